package policy

import (
	"fmt"
	"strings"
	"time"

	"github.com/agentairlock/airlock/internal/yamldoc"
)

// The loop detector a policy that names none gets, and the bundled
// profiles write (docs/policy.md#limits says why these numbers): the same
// call more than 20 times within two minutes. Ordinary work repeats a
// call (a test run between edits, a status poll), but not twenty times
// in two minutes with nothing else changing; an agent stuck in a loop
// does that in well under a minute.
const (
	defaultLoopRepeat = 20
	defaultLoopWindow = 2 * time.Minute
	defaultLoopExcept = "BashOutput"
	maxLimitWindow    = 24 * time.Hour
)

// DefaultLoop is the loop detector of a policy that names none.
func DefaultLoop() *Loop {
	return &Loop{Repeat: defaultLoopRepeat, Window: defaultLoopWindow, Action: Ask,
		Except: defaultLoopExcept, except: defaultLoopExceptRule}
}

var defaultLoopExceptRule = mustToolRule(defaultLoopExcept)

func mustToolRule(tools string) *Rule {
	r, err := compileRule(rawRule{ID: "loop.except", Tool: tools, Action: "allow"}, Vars{}, "")
	if err != nil {
		return nil // a constant pattern: covered by TestDefaultLoop
	}
	return r
}

// settleLimits validates and compiles loop: and limits:.
func (p *Policy) settleLimits(raw *rawDoc, vars Vars, name string, errs *yamldoc.Problems) {
	if rl := raw.Loop; rl.Repeat != 0 || rl.Window != "" || rl.Action != "" || len(rl.Except) > 0 {
		line := raw.lines["loop"]
		lp := DefaultLoop()
		if p.Limits.Loop == nil {
			// a layer's own loop starts from the defaults, with no exception
			lp.Except, lp.except = "", nil
		}
		if rl.Repeat != 0 {
			lp.Repeat = rl.Repeat
		}
		if lp.Repeat < 1 || lp.Repeat > maxCount {
			errs.Add(line, "loop.repeat: %d: write how many identical calls are let through, from 1 to %d", rl.Repeat, maxCount)
		}
		if rl.Window != "" {
			d, err := time.ParseDuration(rl.Window)
			if err != nil || d <= 0 || d > maxLimitWindow {
				errs.Add(line, "loop.window: %q: write a duration up to 24h, such as 2m or 30s", rl.Window)
			}
			lp.Window = d
		}
		if rl.Action != "" {
			a, err := parseAction(rl.Action)
			if err != nil {
				errs.Add(line, "loop.action: %v", err)
			}
			lp.Action = a
		}
		if len(rl.Except) > 0 {
			lp.Except = strings.Join(rl.Except, "|")
			r, err := compileRule(rawRule{ID: "loop.except", Tool: lp.Except, Action: "allow"}, vars, name)
			if err != nil {
				errs.Add(line, "loop.except: %v", err)
			}
			lp.except = r
		}
		p.Limits.Loop = lp
		if lp.Action == Allow {
			p.Limits.Loop = nil // allow switches the detector off
		}
	}
	for _, rl := range raw.limits {
		rt := &Rate{Tool: rl.Tool, PerMinute: rl.PerMinute, Per: rl.Per, Action: Ask, Line: rl.line}
		ok := true
		if rl.Tool == "" {
			errs.Add(rl.line, "limit has no tool: write tool: a pattern such as \"mcp__*\" (the calls it counts)")
			ok = false
		} else if r, err := compileRule(rawRule{ID: "limit", Tool: rl.Tool, Action: "ask"}, vars, name); err != nil {
			errs.Add(rl.line, "limit: %v", err)
			ok = false
		} else {
			rt.tools = r
		}
		if rl.PerMinute < 1 || rl.PerMinute > maxCount {
			errs.Add(rl.line, "limit per_minute: %d: write how many calls a minute are let through, from 1 to %d", rl.PerMinute, maxCount)
			ok = false
		}
		switch rl.Per {
		case "":
			rt.Per = "session"
		case "session", "server":
		default:
			fix := "write session (one agent session's calls) or server (one MCP server's, from every session)"
			if hint := yamldoc.Suggest(rl.Per, []string{"session", "server"}); hint != "" {
				fix = fmt.Sprintf("did you mean %q?", hint)
			}
			errs.AddFix(rl.line, fix, "limit per: %q is not what a limit counts by", rl.Per)
			ok = false
		}
		if rl.Action != "" {
			a, err := parseAction(rl.Action)
			switch {
			case err != nil:
				errs.Add(rl.line, "limit action: %v", err)
				ok = false
			case a == Allow:
				errs.Add(rl.line, "limit action: allow: a limit asks or blocks (leave the limit out to let the calls through)")
				ok = false
			}
			rt.Action = a
		}
		if ok {
			p.Limits.Rates = append(p.Limits.Rates, rt)
		}
	}
}
