package hook

import (
	"fmt"
	"strings"
	"time"

	"github.com/agentairlock/airlock/audit"
	"github.com/agentairlock/airlock/internal/home"
	"github.com/agentairlock/airlock/policy"
	"github.com/agentairlock/airlock/scan"
	"github.com/agentairlock/airlock/taint"
)

// untrusted reports whether the call's result is content from outside the
// machine: an MCP tool's result, a fetched page or a search, a shell
// command that reached the network (curl of a page).
func untrusted(tool string, f *policy.Facts) bool {
	switch {
	case strings.HasPrefix(tool, "mcp__"), tool == "WebFetch", tool == "WebSearch":
		return true
	}
	return f != nil && len(f.Commands) > 0 && len(f.Hosts) > 0
}

// taintFromResult is the post-tool half of session taint: an untrusted
// result that carries injection taints the event's session (and the
// record says so); any call that ran teaches an untainted session the
// hosts it used. It returns what the injection was ("" for none), for the
// answer's warning to the model. Failures are warnings: a post-tool event
// never blocks.
func taintFromResult(o Options, log *audit.Log, env home.Env, p *policy.Policy, f *policy.Facts, ev *Event) (injection string) {
	if ev.Session == "" || p == nil {
		return ""
	}
	failed := ev.Name == "PostToolUseFailure"
	store := taint.Open(env.AirlockHome, env.Now)
	if untrusted(ev.Tool, f) {
		// the proxy's measure (scan.AnswerInjected), string by string of
		// the tool_response: a session is tainted by the same result
		// whichever front end saw it
		what, rule, ok := scan.AnswerInjected(ev.Response.Raw)
		if failed {
			// a failed tool's error text reaches the model too (a
			// server's error message is as much its words as a result)
			what, rule, ok = scan.Injected(ev.Error)
		}
		if ok {
			changed, err := store.Mark(ev.Session, taint.Source{Origin: "hook", Tool: ev.Tool, What: what, Rule: rule}, p.TaintTTL)
			if err != nil {
				warnf(o, "the session's taint was not saved: %v", err)
				return what
			}
			if changed {
				until := time.Now().Add(p.TaintTTL)
				if env.Now != nil {
					until = env.Now().Add(p.TaintTTL)
				}
				if _, err := log.Append(audit.Record{Event: "taint", Source: "hook", Session: ev.Session, Tool: ev.Tool,
					Decision: "taint", Rule: rule, Reason: "the session is tainted by the result of " + ev.Tool + ": " + what,
					Detail: "until=" + until.UTC().Format(time.RFC3339)}); err != nil {
					warnf(o, "the taint was not recorded: %v", err)
				}
			}
			return what
		}
	}
	if failed || f == nil || len(f.Hosts) == 0 {
		return ""
	}
	hosts := make([]string, 0, len(f.Hosts))
	for _, h := range f.Hosts {
		hosts = append(hosts, h.Host)
	}
	if err := store.UseHosts(ev.Session, hosts); err != nil {
		warnf(o, "the session's hosts were not saved: %v", err)
	}
	return ""
}

func warnf(o Options, format string, args ...any) {
	fmt.Fprintf(o.Stderr, "airlock: warning: "+format+"\n", args...)
}
