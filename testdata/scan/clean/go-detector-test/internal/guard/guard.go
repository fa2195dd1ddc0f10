// Package guard flags text that looks like a prompt-injection attempt.
package guard

import "strings"

var phrases = []string{
	"ignore previous instructions",
	"do not tell the user",
	"you are now dan",
	"<important>",
	"webhook.site",
	"| sh",
}

// Suspicious reports whether s contains a known injection phrase.
func Suspicious(s string) bool {
	l := strings.ToLower(s)
	for _, p := range phrases {
		if strings.Contains(l, p) {
			return true
		}
	}
	return false
}
