package monitor

import (
	"path/filepath"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/agentairlock/airlock/audit"
	"github.com/agentairlock/airlock/internal/textsafe"
)

// observed reports a call that ran only because the policy is in observe
// mode: the policy said block or ask, and the mode let it through. The gate
// records the mode with every decision (Record.Mode), so this holds for
// the hook's, the MCP proxy's and the egress proxy's records alike.
func observed(r audit.Record) bool {
	return r.Mode == "observe" && (r.Decision == "block" || r.Decision == "ask") && effective(r) == "allow"
}

// observedResult is the result word of an observed call: what the policy
// would have done, marked as observe's.
func observedResult(r audit.Record) string {
	return "observe:" + r.Decision
}

// observedNote says what an observed call is, in words.
func observedNote(r audit.Record) string {
	verb := "blocked"
	if r.Decision == "ask" {
		verb = "asked a person"
	}
	return "ran only because of observe mode; enforced, the policy would have " + verb + " it"
}

// SGR codes of the board's colours. Plain ANSI, so no terminal is asked
// what it can show; a terminal that shows no colour still has the word.
const (
	sgrReset    = "\x1b[0m"
	sgrAllow    = "\x1b[32m"      // green
	sgrAsk      = "\x1b[33m"      // yellow
	sgrBlock    = "\x1b[1;31m"    // bold red
	sgrHold     = "\x1b[1;35m"    // bold magenta
	sgrObserved = "\x1b[1;97;41m" // bold white on red: it ran, and it should not have
	sgrDim      = "\x1b[2m"       // faint: records that are not decisions
	sgrSelected = "\x1b[1;7m"     // the cursor's gutter
	sgrBroken   = "\x1b[1;97;41m" // a broken chain
	sgrTitle    = "\x1b[1m"       // bold
	sgrKeyHelp  = "\x1b[2m"       // faint
	sgrField    = "\x1b[1;36m"    // bold cyan: a field name in the record view
)

// resultSGR is the colour of a record's result: what happened to the call,
// so that a block never looks like an allow.
func resultSGR(r audit.Record) string {
	if observed(r) {
		return sgrObserved
	}
	switch kindOf(r) {
	case kindHold:
		return sgrHold
	case kindBlock:
		return sgrBlock
	case kindAllow:
		return sgrAllow
	case kindAsk:
		switch effective(r) {
		case "allow":
			return sgrAllow
		case "block":
			return sgrBlock
		}
		return sgrAsk
	}
	return sgrDim
}

// paint wraps s in sgr when colour is on.
func paint(on bool, sgr, s string) string {
	if !on || sgr == "" || s == "" {
		return s
	}
	return sgr + s + sgrReset
}

// shortener writes paths the short way a person reads them: the user's
// home as ~. It works on escaped text, so what it shortens can hide
// nothing: a record's own "~" and a real home look the same because they
// mean the same.
type shortener struct {
	home string // escaped, cleaned; "" shortens nothing
}

func newShortener(home string) shortener {
	if home == "" || !filepath.IsAbs(home) {
		return shortener{}
	}
	home = filepath.ToSlash(filepath.Clean(home))
	if home == "/" {
		return shortener{}
	}
	return shortener{home: textsafe.Escape(home)}
}

// short replaces every occurrence of the home directory that is a whole
// path prefix (at the start or after a space, quote, = or :, and followed
// by / or the end) with ~.
func (sh shortener) short(s string) string {
	if sh.home == "" || !strings.Contains(s, sh.home) {
		return s
	}
	var b strings.Builder
	for {
		i := strings.Index(s, sh.home)
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		end := i + len(sh.home)
		before := i == 0 || strings.ContainsRune(" \t'\"=:(", rune(s[i-1]))
		after := end == len(s) || s[end] == '/'
		b.WriteString(s[:i])
		if before && after {
			b.WriteByte('~')
		} else {
			b.WriteString(sh.home)
		}
		s = s[end:]
	}
}

// shortPath cuts a path to width w keeping what tells one path from
// another: its file name and as many of the directories above it as fit,
// with the first directory kept and the rest of the middle as "…". A
// string that is not one path (a command line) is cut in the middle.
func shortPath(s string, w int) string {
	if ansi.StringWidth(s) <= w {
		return s
	}
	isPath := (strings.HasPrefix(s, "/") || strings.HasPrefix(s, "~/")) && !strings.ContainsAny(s, " \t")
	base := strings.LastIndexByte(s, '/')
	if !isPath || base <= 0 || ansi.StringWidth(s[base:])+2 > w {
		return truncMiddle(s, w)
	}
	// the first directory: "~/" or "/home/"
	first := strings.IndexByte(s[1:], '/') + 2
	if first <= 1 || first > base {
		first = 1
	}
	tail := base
	for tail > first {
		j := strings.LastIndexByte(s[:tail], '/')
		if j < first-1 || ansi.StringWidth(s[:first])+1+ansi.StringWidth(s[j:]) > w {
			break
		}
		tail = j
	}
	room := w - 1 - ansi.StringWidth(s[tail:])
	head := ansi.Truncate(s[:tail], room, "")
	if k := strings.LastIndexByte(head, '/'); k >= first-1 {
		head = head[:k+1] // whole directories only
	}
	return head + "…" + s[tail:]
}
