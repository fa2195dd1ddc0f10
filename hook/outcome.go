package hook

import (
	"strings"

	"github.com/agentairlock/airlock/scan/secret"
)

// postEvents are the events whose hook records an outcome and never
// blocks: Claude Code fires PostToolUse for a tool that succeeded and
// PostToolUseFailure (with an "error" string, and "is_interrupt" when the
// user stopped it) for one that failed.
func postEvent(name string) bool {
	return name == "PostToolUse" || name == "PostToolUseFailure"
}

// maxOutcomeError bounds how much of a failed tool's error an outcome
// record keeps: enough to tell a failure from another, never a whole
// stderr.
const maxOutcomeError = 200

// outcomeReason is what an outcome record says about how the tool ended
// ("" for a success with nothing to note).
func outcomeReason(ev *Event) string {
	failed := ev.Failed || ev.Name == "PostToolUseFailure"
	switch {
	case failed && ev.Interrupted:
		return "the tool was interrupted"
	case failed:
		msg := strings.TrimSpace(oneLine(ev.Error))
		if msg == "" {
			return "the tool failed"
		}
		return "the tool failed: " + cutText(msg, maxOutcomeError)
	case ev.Response.Get("is_error").Bool() || ev.Response.Get("isError").Bool():
		return "the tool reported an error"
	}
	return ""
}

// cutText shortens s to at most n bytes on a rune boundary, marked "…".
// A text past n is masked first (scan/secret), as the audit log would
// mask it whole: a token cut in two no longer has its shape.
func cutText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	if s = secret.Mask(s); len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n] + "…"
}
