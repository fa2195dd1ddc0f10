package policy

import (
	"strings"
	"testing"
)

// DEFECT (found in review of issue 14): a decision's target is the text
// that matched, cut to 120 bytes before the record is written — and so
// before the audit log masks it. A token that straddled the cut had lost
// its shape (a GitHub token is 40 characters, and 25 of them are not one),
// so the log kept most of it. The text is masked before it is cut.
func TestClipMasksBeforeCutting(t *testing.T) {
	tok := "ghp_" + "aB3dE5fG7hI9jK1lM3nO5pQ7rS9tU1vW3xY5"
	for _, at := range []int{70, 80, 95} {
		s := "curl " + strings.Repeat("a", at) + " " + tok + " https://x.example"
		got := clip(s, 120)
		if strings.Contains(got, tok[4:16]) {
			t.Errorf("clip of a command with a token at byte %d keeps part of it: %q", at, got)
		}
	}
	if got := clip("short "+tok, 120); got != "short "+tok {
		t.Errorf("a text under the bound is changed here: %q (the log masks it whole)", got)
	}
}
