package report

import (
	"strings"
	"time"

	"github.com/agentairlock/airlock/internal/textsafe"
	"github.com/agentairlock/airlock/policy"
)

// candidate is a group of gated calls a grant could lift, with the command
// that would write the grant. The report only suggests: the command still
// shows the grant and refuses what a built-in forbid covers.
type candidate struct {
	Gated
	Grant string // airlock allow last, or airlock allow TOOL --match TARGET; raw, each renderer escapes it
	// Hold says a pins hold stopped the group: the hold is decided before
	// grants, so no grant lifts it, and Grant is the fix instead (review
	// the toolset, then approve it: HoldFix).
	Hold bool
}

// maxCandidates is how many grant candidates a report shows.
const maxCandidates = 5

// grantCandidates picks the groups a grant could lift, most often gated
// first. A group stopped by a built-in forbid is left out: no grant lifts
// it, and suggesting one would teach the reader to try. A group a pins
// hold stopped is kept as a Hold, with the pins commands that lift it. When the built-in
// forbids cannot be listed, nothing is suggested. toEnd says the groups
// run to the end of the whole log (no --until, no narrowing filter), so the
// latest of them is the one `airlock allow last` acts on.
//
// granted, when not nil, says a group is covered by a grant in force now;
// such a group is not a candidate any more.
func grantCandidates(groups []Gated, toEnd bool, granted func(tool, target string) bool) []candidate {
	forbid, err := ForbidRules()
	if err != nil {
		return nil
	}
	latest, _ := Latest(groups)
	var out []candidate
	for _, g := range groups {
		// a call a person refused when asked is their decision, not
		// something that got in their way
		if forbid[g.Rule] || g.Rule == TaintRule || IsLimitRule(g.Rule) || g.Refused > 0 || (granted != nil && granted(g.Tool, g.Target)) {
			continue
		}
		if fix, held := HoldFix(g.Tool, g.Rule); held {
			out = append(out, candidate{Gated: g, Grant: fix, Hold: true})
			if len(out) == maxCandidates {
				break
			}
			continue
		}
		c := candidate{Gated: g, Grant: grantCommand(g)}
		// allow last refuses a group with no literal target (folding
		// nothing would grant every call of the tool)
		if toEnd && g.Last == latest.Last && literalTarget(g.Target) {
			c.Grant = "airlock allow last"
		}
		out = append(out, c)
		if len(out) == maxCandidates {
			break
		}
	}
	return out
}

// IsHold says a decision's rule is a pins hold (pins:held, pins:unlisted,
// pins:shown, pins:unreadable): the server's toolset is not admitted, which
// the gate decides before grants.
func IsHold(rule string) bool { return strings.HasPrefix(rule, "pins:") }

// HoldFix is what lifts a pins hold on a call of tool: review the server's
// toolset, then approve it. The server is read from the tool's name
// (mcp__SERVER__TOOL, as the agent sees it). held is false for a rule that
// is not a hold.
func HoldFix(tool, rule string) (fix string, held bool) {
	if !IsHold(rule) {
		return "", false
	}
	s := HoldServer(tool)
	if s == "" {
		return "airlock pins list, then airlock pins diff NAME and airlock pins approve NAME (a hold: no grant lifts it)", true
	}
	s = shellQuote(s)
	return "airlock pins diff " + s + ", then airlock pins approve " + s + " (a hold: no grant lifts it)", true
}

// HoldServer is the server in an MCP tool name (mcp__SERVER__TOOL), or "".
func HoldServer(tool string) string {
	rest, ok := strings.CutPrefix(tool, "mcp__")
	if !ok {
		return ""
	}
	i := strings.LastIndex(rest, "__")
	if i <= 0 {
		return ""
	}
	return rest[:i]
}

// GrantedBy says whether a grant of p in force now covers a call of tool
// on target, the target read as propose reads it (a command, a URL, a
// path).
func GrantedBy(p *policy.Policy, home, user string, now time.Time) func(tool, target string) bool {
	return func(tool, target string) bool {
		if p == nil || target == "" {
			return false
		}
		f := policy.Classify(tool, policy.TargetInput(tool, target), policy.CallEnv{Cwd: "/", Home: home, User: user})
		d, ok := p.CheckGrants(f, now)
		return ok && d.Action == policy.Allow
	}
}

// ForbidRules is the set of built-in forbid ids: a decision whose rule is
// one of them cannot be lifted by a grant.
// TaintRule is the rule of a tainted session's escalated calls: decided
// after the grants, so no grant lifts it (a person ends the taint).
const TaintRule = "taint.privileged"

// IsLimitRule reports a decision of the policy's call limits (the loop
// detector, a per-minute cap; policy.Limits): counted after the grants,
// so no grant lifts it; it ends as its window passes.
func IsLimitRule(rule string) bool { return strings.HasPrefix(rule, "limits.") }

func ForbidRules() (map[string]bool, error) {
	ids, err := policy.ForbidIDs()
	if err != nil {
		return nil, err
	}
	out := make(map[string]bool, len(ids))
	for _, id := range ids {
		out[id[0]] = true
	}
	return out, nil
}

// grantCommand is the narrowest `airlock allow` for one group: the target
// itself as the match. A target with no literal form (empty, or holding
// glob characters, which policy globs cannot escape) gets GLOB for the
// reader to write: a log record must never be able to suggest a match
// wider than itself, such as "*".
func grantCommand(g Gated) string {
	match := "GLOB"
	if literalTarget(g.Target) {
		match = shellQuote(g.Target)
	}
	return "airlock allow " + shellQuote(g.Tool) + " --match " + match
}

// literalTarget says t can be a --match as it stands: not empty, no glob
// character, not read as a flag, and shown as it is (a control or
// invisible character is shown escaped, so the command on screen would
// not be the target).
func literalTarget(t string) bool {
	return t != "" && t[0] != '-' && !strings.ContainsAny(t, "*?{}[") && textsafe.Escape(t) == t
}

// shellQuote makes s one shell word, so a pasted command cannot run
// record text: plain words stay as they are, anything else is single-quoted.
// A single quote inside ends the quoting, is written inside double
// quotes, and the quoting resumes: no backslash, which renderers double.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./:@%+=,") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'"'"'`) + "'"
}
