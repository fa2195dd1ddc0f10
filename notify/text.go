package notify

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/agentairlock/airlock/internal/textsafe"
)

const (
	maxTitleRunes  = 80
	maxBodyRunes   = 300
	maxTargetRunes = 120 // so a long target cannot push the reason out
	maxFixRunes    = 100
)

// title is "Airlock blocked Read", with the source when there is one.
func title(b Block) string {
	tool := textsafe.Escape(b.Tool)
	if tool == "" {
		tool = "a call"
	}
	t := "Airlock blocked " + tool
	if src := textsafe.Escape(b.Source); src != "" {
		t += " (" + src + ")"
	}
	return textsafe.CutRunes(t, maxTitleRunes)
}

// body is "~/.ssh/id_rsa — secrets.ssh: reading SSH private keys. Fix:
// airlock allow last". The fix is clipped least and placed so that it
// always survives the length cap: it is what the person needs to act.
func body(b Block) string {
	why := textsafe.Escape(b.Rule)
	if reason := textsafe.Escape(b.Reason); reason != "" {
		if why != "" {
			why += ": "
		}
		why += reason
	}
	head := join(" — ", quoted(b.Target, maxTargetRunes), why)
	tail := "."
	if fix := textsafe.CutRunes(textsafe.Escape(b.Fix), maxFixRunes); fix != "" {
		tail = ". Fix: " + fix
	}
	head = strings.TrimSuffix(head, ".")
	if head == "" {
		head = "Blocked"
	}
	return textsafe.CutRunes(head, maxBodyRunes-utf8.RuneCountInString(tail)) + tail
}

func foldBody(n int) string {
	return strconv.Itoa(n) + " more blocked — airlock report"
}

func join(sep string, parts ...string) string {
	var kept []string
	for _, p := range parts {
		if p != "" {
			kept = append(kept, p)
		}
	}
	return strings.Join(kept, sep)
}

// quoted shows an agent's string as the agent's: cut to max runes first
// (so no escape is split), escaped, and in double quotes with its own
// quotes escaped, so words in it (a rule, "Fix: …") never read as
// Airlock's own.
func quoted(s string, max int) string {
	if s == "" {
		return ""
	}
	cut := false
	if utf8.RuneCountInString(s) > max {
		n := 0
		for i := range s {
			if n == max-1 {
				s, cut = s[:i], true
				break
			}
			n++
		}
	}
	q := `"` + strings.ReplaceAll(textsafe.Escape(s), `"`, `\"`)
	if cut {
		q += "…"
	}
	return q + `"`
}
