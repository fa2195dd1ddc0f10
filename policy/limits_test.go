package policy

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Seen is one call a test's counter saw.
type Seen struct {
	At     int64 // Unix milliseconds
	Tool   string
	Digest string
}

// seenList is a Tally over a list of calls, counted at its newest one (as
// a counter's tally is counted at the call it counts).
type seenList []Seen

func (s seenList) since(window time.Duration) int64 {
	var newest int64
	for _, c := range s {
		newest = max(newest, c.At)
	}
	return newest - window.Milliseconds()
}

func (s seenList) Same(digest string, window time.Duration) int {
	since, n := s.since(window), 0
	for _, c := range s {
		if c.At > since && c.Digest == digest {
			n++
		}
	}
	return n
}

func (s seenList) Tools(window time.Duration, match func(string) bool) int {
	since, n := s.since(window), 0
	for _, c := range s {
		if c.At > since && match(c.Tool) {
			n++
		}
	}
	return n
}

// seenCalls builds n calls of tool with digest, one a second, ending at end.
func seenCalls(n int, tool, digest string, end time.Time) seenList {
	out := make(seenList, n)
	for i := range out {
		out[i] = Seen{At: end.Add(-time.Duration(n-1-i) * time.Second).UnixMilli(), Tool: tool, Digest: digest}
	}
	return out
}

func TestLimitsDecision(t *testing.T) {
	vars, _ := testVars(t)
	p := mustParse(t, `mode: enforce
default: allow
loop: {repeat: 20, window: 2m, action: ask, except: [BashOutput]}
limits:
  - {tool: "mcp__*", per_minute: 30, action: ask}
  - {tool: "mcp__github__*", per_minute: 10, per: server, action: block}
rules:
  - {id: git-ok, tool: Bash, command: {program: git}, action: allow, reason: mine}
`, vars)
	now := time.Unix(1_800_000_000, 0)
	in := []byte(`{"command":"git status"}`)
	dg := CallDigest("Bash", in)
	other := CallDigest("Bash", []byte(`{"command":"git log"}`))
	cases := []struct {
		name   string
		tool   string
		input  []byte
		recent *Recent
		want   Action
		rule   string
		reason string
	}{
		{"nothing counted", "Bash", in, nil, Allow, "git-ok", ""},
		{"20 identical calls pass", "Bash", in, &Recent{Digest: dg, Session: seenCalls(20, "Bash", dg, now)}, Allow, "git-ok", ""},
		{"the 21st asks, past the rule's allow", "Bash", in, &Recent{Digest: dg, Session: seenCalls(21, "Bash", dg, now)}, Ask, LoopRule,
			"the same call 21 times in 2m (loop: ask after 20)"},
		{"different calls never", "Bash", in, &Recent{Digest: dg, Session: append(seenCalls(100, "Bash", other, now), Seen{At: now.UnixMilli(), Tool: "Bash", Digest: dg})}, Allow, "git-ok", ""},
		{"calls older than the window are not counted", "Bash", in, &Recent{Digest: dg, Session: append(seenCalls(30, "Bash", dg, now.Add(-3*time.Minute)), seenCalls(5, "Bash", dg, now)...)}, Allow, "git-ok", ""},
		{"an excepted tool is never a loop", "BashOutput", []byte(`{"bash_id":"1"}`), &Recent{Digest: "x", Session: seenCalls(200, "BashOutput", "x", now.Add(-time.Millisecond))}, Allow, "default", ""},
		{"31 MCP calls a minute ask", "mcp__notes__read", []byte(`{}`), &Recent{Digest: "d", Session: mixed(31, now)}, Ask, SessionRateRule,
			"31 calls of mcp__* in 1m in this session (limits: ask above 30 a minute)"},
		{"30 pass", "mcp__notes__read", []byte(`{}`), &Recent{Digest: "d", Session: mixed(30, now)}, Allow, "default", ""},
		{"a cap counts only its tools", "Bash", in, &Recent{Digest: dg, Session: append(mixed(100, now), Seen{At: now.UnixMilli(), Tool: "Bash", Digest: dg})}, Allow, "git-ok", ""},
		{"a server cap counts the server's calls", "mcp__github__issue", []byte(`{}`), &Recent{Digest: "d", Server: seenCalls(11, "mcp__github__issue", "z", now)}, Block, ServerRateRule,
			"11 calls of mcp__github__* in 1m to this server (limits: block above 10 a minute)"},
		{"the strictest limit decides", "mcp__github__issue", []byte(`{}`), &Recent{Digest: "z", Session: seenCalls(40, "mcp__github__issue", "z", now), Server: seenCalls(40, "mcp__github__issue", "z", now)}, Block, ServerRateRule, ""},
		{"unreadable counts: the strictest action, once", "Bash", in, &Recent{Digest: dg, Session: seenCalls(1, "Bash", dg, now), Err: "calls: 1 line(s) do not parse"}, Block, StateRule,
			"the call counts could not be read (calls: 1 line(s) do not parse); they start over"},
		{"a forbid's block is never lowered", "Bash", []byte(`{"command":"cat ~/.ssh/id_rsa"}`), &Recent{Digest: "k", Session: seenCalls(50, "Bash", "k", now)}, Block, "secrets.ssh", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := Classify(c.tool, c.input, CallEnv{Cwd: vars.Workspace, Home: vars.Home, User: vars.User})
			v := p.Decide(f, now, Stages{Limits: c.recent})
			d := v.Decision
			if d.Action != c.want || (c.rule != "" && !strings.HasPrefix(d.Rule, c.rule)) {
				t.Fatalf("got %s by %s (%s), want %s by %s", d.Action, d.Rule, d.Reason, c.want, c.rule)
			}
			if c.reason != "" && d.Reason != c.reason {
				t.Errorf("reason %q, want %q", d.Reason, c.reason)
			}
			if d.Source == FromLimit && v.Effective != c.want {
				t.Errorf("effective %s under enforce, want %s", v.Effective, c.want)
			}
		})
	}
}

// mixed is n MCP calls of two tools within the last minute.
func mixed(n int, now time.Time) seenList {
	out := make(seenList, n)
	for i := range out {
		out[i] = Seen{At: now.Add(-time.Duration(i) * time.Second).UnixMilli(), Tool: fmt.Sprintf("mcp__notes__t%d", i%2), Digest: fmt.Sprint(i)}
	}
	return out
}

// TestLimitsModes: a limit is a written decision, so guard keeps it (only
// the default is let through), observe records it and refuses nothing.
func TestLimitsModes(t *testing.T) {
	vars, _ := testVars(t)
	now := time.Unix(1_800_000_000, 0)
	for mode, want := range map[string]Action{"guard": Ask, "observe": Allow, "enforce": Ask} {
		p := mustParse(t, "mode: "+mode+"\ndefault: allow\nrules: []\n", vars)
		f := Classify("Read", []byte(`{"file_path":"/tmp/x"}`), CallEnv{Cwd: vars.Workspace, Home: vars.Home})
		v := p.Decide(f, now, Stages{Limits: &Recent{Digest: "r", Session: seenCalls(21, "Read", "r", now)}})
		if v.Decision.Rule != LoopRule || v.Effective != want {
			t.Errorf("mode %s: %s by %s, effective %s; want the loop, effective %s", mode, v.Decision.Action, v.Decision.Rule, v.Effective, want)
		}
	}
}

func TestLimitsProfiles(t *testing.T) {
	vars, _ := testVars(t)
	for name, want := range map[string]Action{"default": Ask, "paranoid": Block, "yolo": Ask} {
		p, err := LoadProfile(name, vars)
		if err != nil {
			t.Fatal(err)
		}
		lp := p.Limits.Loop
		if lp == nil || lp.Repeat != 20 || lp.Window != 2*time.Minute || lp.Action != want || lp.except == nil || !lp.except.matchTool("BashOutput") {
			t.Errorf("%s: loop %+v, want 20 in 2m, %s, BashOutput excepted", name, lp, want)
		}
		if len(p.Limits.Rates) != 0 {
			t.Errorf("%s: a per-minute cap by default: %+v", name, p.Limits.Rates)
		}
	}
	// a policy that names no loop gets the default one
	p := mustParse(t, "rules: []\n", vars)
	if d := DefaultLoop(); p.Limits.Loop == nil || *p.Limits.Loop != *d || d.except == nil {
		t.Errorf("unnamed loop %+v, want %+v", p.Limits.Loop, d)
	}
	if p := mustParse(t, "rules: []\nloop: {action: allow}\n", vars); p.Limits.On() {
		t.Errorf("loop action allow leaves the detector on: %+v", p.Limits)
	}
}

func TestLimitsLoadErrors(t *testing.T) {
	vars, _ := testVars(t)
	cases := []struct{ name, yml, want string }{
		{"loop typo", "rules: []\nloop: {repeat: 5, acton: ask}\n", `test.yaml:2: unknown key "acton" in loop: did you mean "action"?`},
		{"loop scalar", "rules: []\nloop: 20\n", "test.yaml:2: loop must be a mapping like {repeat: 20, window: 2m, action: ask}"},
		{"loop repeat", "rules: []\nloop:\n  repeat: -3\n", "test.yaml:2: loop.repeat: -3: write how many identical calls are let through, from 1 to 4000"},
		{"loop window", "rules: []\nloop: {window: forever}\n", `test.yaml:2: loop.window: "forever": write a duration up to 24h`},
		{"loop action", "rules: []\nloop: {action: nag}\n", `loop.action: "nag" is not an action`},
		{"limits not a list", "rules: []\nlimits: {tool: x}\n", "test.yaml:2: limits must be a list"},
		{"limit typo", "rules: []\nlimits:\n  - {tool: \"mcp__*\", per_minut: 10}\n", `test.yaml:3: unknown key "per_minut" in a limit: did you mean "per_minute"?`},
		{"limit no tool", "rules: []\nlimits:\n  - {per_minute: 10}\n", "test.yaml:3: limit has no tool"},
		{"limit no count", "rules: []\nlimits:\n  - {tool: Bash}\n", "test.yaml:3: limit per_minute: 0: write how many calls a minute are let through, from 1 to 4000"},
		{"limit per typo", "rules: []\nlimits:\n  - {tool: Bash, per_minute: 5, per: sesion}\n", `test.yaml:3: limit per: "sesion" is not what a limit counts by`},
		{"limit allow", "rules: []\nlimits:\n  - {tool: Bash, per_minute: 5, action: allow}\n", "test.yaml:3: limit action: allow: a limit asks or blocks"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := parse([]byte(c.yml), "test.yaml", "policy", vars)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want %q", err, c.want)
			}
		})
	}
	// the did-you-mean of per:
	_, err := parse([]byte("rules: []\nlimits:\n  - {tool: Bash, per_minute: 5, per: sever}\n"), "test.yaml", "policy", vars)
	if err == nil || !strings.Contains(err.Error(), `did you mean "server"?`) {
		t.Errorf("per: sever: %v", err)
	}
}

// TestLimitsTighten: a repository overlay and the managed layer may lower
// a limit, never raise one, nor switch the detector off.
func TestLimitsTighten(t *testing.T) {
	vars, _ := testVars(t)
	base := "rules: []\nloop: {repeat: 50, window: 1m, action: ask, except: [BashOutput]}\nlimits:\n  - {tool: \"mcp__*\", per_minute: 100}\n"
	cases := []struct {
		name, overlay string
		repeat        int
		window        time.Duration
		action        Action
		rates         int
		except        bool
	}{
		{"lower repeat, longer window, block", "rules: []\nloop: {repeat: 10, window: 5m, action: block}\n", 10, 5 * time.Minute, Block, 1, true},
		{"a higher repeat and a shorter window change nothing", "rules: []\nloop: {repeat: 500, window: 10s}\n", 50, time.Minute, Ask, 1, true},
		{"allow does not switch it off", "rules: []\nloop: {action: allow}\n", 50, time.Minute, Ask, 1, true},
		{"a cap is added", "rules: []\nlimits:\n  - {tool: \"mcp__*\", per_minute: 1000}\n", 50, time.Minute, Ask, 2, true},
		{"a different except drops the exception", "rules: []\nloop: {except: [Read]}\n", 20, 2 * time.Minute, Ask, 1, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := mustParse(t, base, vars)
			if err := p.applyOverlay([]byte(c.overlay), filepath.Join(vars.Workspace, ".airlock.yaml")); err != nil {
				t.Fatal(err)
			}
			lp := p.Limits.Loop
			if lp == nil || lp.Repeat != c.repeat || lp.Window != c.window || lp.Action != c.action || len(p.Limits.Rates) != c.rates || (lp.except != nil) != c.except {
				t.Errorf("loop %+v, %d caps; want repeat %d, window %s, %s, %d caps, except %v", lp, len(p.Limits.Rates), c.repeat, c.window, c.action, c.rates, c.except)
			}
		})
	}
	// a user who switched the detector off gets the overlay's
	p := mustParse(t, "rules: []\nloop: {action: allow}\n", vars)
	if err := p.applyOverlay([]byte("rules: []\nloop: {repeat: 5}\n"), filepath.Join(vars.Workspace, ".airlock.yaml")); err != nil {
		t.Fatal(err)
	}
	if p.Limits.Loop == nil || p.Limits.Loop.Repeat != 5 {
		t.Errorf("the overlay's loop is not on: %+v", p.Limits.Loop)
	}
}

func TestLimitsManagedFloor(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("the managed file must be root's: run as root (CI does)")
	}
	o := managedEnv(t, "rules: []\nloop: {repeat: 1000, action: allow}\n", "loop: {repeat: 30, action: block}\nlimits:\n  - {tool: \"mcp__*\", per_minute: 600, per: server, action: ask}\n")
	p, err := Load(o)
	if err != nil {
		t.Fatal(err)
	}
	lp := p.Limits.Loop
	if lp == nil || lp.Repeat != 30 || lp.Action != Block || len(p.Limits.Rates) != 1 || p.Limits.ServerWindow() != time.Minute {
		t.Errorf("managed floor not applied: loop %+v, caps %d", lp, len(p.Limits.Rates))
	}
}

func TestCallDigest(t *testing.T) {
	a := CallDigest("Bash", []byte(`{"command":"ls"}`))
	if a != CallDigest("Bash", []byte(`{"command":"ls"}`)) || len(a) != 16 {
		t.Errorf("digest %q is not stable or not 16 hex", a)
	}
	for _, o := range []string{CallDigest("Read", []byte(`{"command":"ls"}`)), CallDigest("Bash", []byte(`{"command":"ls "}`)), CallDigest("Bas", []byte(`h{"command":"ls"}`))} {
		if o == a {
			t.Errorf("two calls share a digest %q", a)
		}
	}
}
