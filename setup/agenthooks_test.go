package setup

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// agentHookCases are each agent's hook file: one the user already has
// (an unknown key, a hook of the user's own, comments where the agent
// reads JSONC) and what init must leave of it.
var agentHookCases = []struct {
	id, file, existing string
}{
	{"codex.user-hooks", ".codex/hooks.json",
		`{"description": "mine", "hooks": {"PreToolUse": [{"matcher": "^Bash$", "hooks": [{"type": "command", "command": "~/bin/lint", "statusMessage": "linting"}]}]}}` + "\n"},
	{"gemini.user", ".gemini/settings.json",
		"{\n  \"security\": {\"auth\": {\"selectedType\": \"gemini-api-key\"}},\n  \"mcpServers\": {},\n  \"hooks\": {\n    \"BeforeTool\": [\n      {\"matcher\": \"write_file\", \"hooks\": [{\"type\": \"command\", \"command\": \"./fmt.sh\", \"timeout\": 5000}]}\n    ]\n  }\n}\n"},
	{"cursor.user-hooks", ".cursor/hooks.json",
		"{\n  \"version\": 1,\n  \"hooks\": {\n    \"afterFileEdit\": [{\"command\": \"./format.sh\"}],\n    \"preToolUse\": [{\"command\": \"./audit.sh\", \"matcher\": \"Shell\"}]\n  },\n  \"x-team\": true\n}\n"},
	{"windsurf.user-hooks", ".codeium/windsurf/hooks.json",
		"{\n  \"hooks\": {\n    \"post_write_code\": [\n      {\"command\": \"prettier --write\", \"show_output\": true}\n    ]\n  }\n}\n"},
	{"copilot.user-hooks", ".copilot/hooks/airlock.json", ""},
}

// TestAgentHooksWire: for every agent, init's edit of its hook file is
// the golden one (testdata/hooks/, -update rewrites), wiring again
// changes nothing, and unwiring gives the user's file back byte for byte.
func TestAgentHooksWire(t *testing.T) {
	hook := "/opt/air lock/airlock-hook"
	for _, tc := range agentHookCases {
		for _, from := range []string{"new", "existing"} {
			if from == "existing" && tc.existing == "" {
				continue
			}
			t.Run(tc.id+"/"+from, func(t *testing.T) {
				st := newStore(tc.id, "/home/dev/"+tc.file)
				var in []byte
				if from == "existing" {
					in = []byte(tc.existing)
					if _, err := Parse(st, in); err != nil {
						t.Fatalf("premise: %v", err)
					}
				}
				out, recs, err := wireHooks(st, in, hook)
				if err != nil {
					t.Fatal(err)
				}
				golden := filepath.Join("testdata", "hooks", tc.id+"."+from+".json")
				if *update {
					if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
						t.Fatal(err)
					}
					if err := os.WriteFile(golden, out, 0o644); err != nil {
						t.Fatal(err)
					}
				}
				want, err := os.ReadFile(golden)
				if err != nil {
					t.Fatalf("%v (go test ./setup -run TestAgentHooksWire -update writes it)", err)
				}
				if !bytes.Equal(out, want) {
					t.Errorf("wire:\n got %s\nwant %s", out, want)
				}
				d := dialectOf(st)
				if len(recs) != len(d.events) {
					t.Errorf("wired %d events, want every one of %d: %+v", len(recs), len(d.events), recs)
				}
				cfg, err := Parse(st, out)
				if err != nil {
					t.Fatal(err)
				}
				for _, ev := range d.events {
					n := 0
					for _, h := range cfg.Hooks {
						if h.Event == ev.name && hookProblem(h, d, hook) == "" {
							n++
						}
					}
					if n != 1 {
						t.Errorf("%s: %d hooks run airlock-hook as init wires it, want 1", ev.name, n)
					}
				}
				if !strings.Contains(string(out), "--agent "+d.agent) {
					t.Errorf("no --agent %s in %s", d.agent, out)
				}
				again, more, err := wireHooks(st, out, hook)
				if err != nil || len(more) != 0 || !bytes.Equal(again, out) {
					t.Errorf("wiring twice changed the file: %v %v", more, err)
				}
				if in == nil {
					return
				}
				back, n, err := unwireHooks(st, out, recs)
				if err != nil {
					t.Fatal(err)
				}
				if n != len(recs) || !bytes.Equal(back, in) {
					t.Errorf("unwire (%d removed):\n got %s\nwant %s", n, back, in)
				}
			})
		}
	}
}

// TestAgentHooksTimeoutsNest: every timeout init writes leaves
// airlock-hook its deadline to answer (with the agent's deny) before the
// agent gives up on it; Copilot lets a timed-out hook through.
func TestAgentHooksTimeoutsNest(t *testing.T) {
	for _, d := range []*hookDialect{claudeDialect, codexDialect, geminiDialect, cursorDialect, copilotDialect} {
		h := d.handler("/x/airlock-hook", d.events[0])
		for _, m := range h {
			if m.key != d.timeoutKey {
				continue
			}
			sec := m.val.(int)
			if d.ms {
				sec /= 1000
			}
			if sec <= HookDeadline {
				t.Errorf("%s: timeout %d s is not past airlock-hook's %d s deadline", d.agent, sec, HookDeadline)
			}
		}
	}
}

// TestCodexHookHashIsCodexs: the trusted_hash of the hook init writes is
// the one Codex 0.171.0 computes for it (its app-server's hooks/list
// reported this currentHash for this file; the e2e test asks the real
// binary each run).
func TestCodexHookHashIsCodexs(t *testing.T) {
	data := []byte(`{"hooks": {"PreToolUse": [{"matcher": "*", "hooks": [{"type": "command", "command": "/tmp/h19w-bin/airlock-hook --agent codex", "timeout": 30}]}],` +
		`"PostToolUse": [{"matcher": "*", "hooks": [{"type": "command", "command": "/tmp/h19w-bin/airlock-hook --agent codex --post", "timeout": 30}]}]}}`)
	got := codexTrust("/tmp/h19w-probe/home/.codex/hooks.json", data, "/tmp/h19w-bin/airlock-hook")
	want := []trustRecord{
		{Key: "/tmp/h19w-probe/home/.codex/hooks.json:pre_tool_use:0:0", Hash: "sha256:02abad249c502168a31b17da32ede55becf4dc77e6471f74b043fd91fc8c42a3"},
		{Key: "/tmp/h19w-probe/home/.codex/hooks.json:post_tool_use:0:0", Hash: "sha256:b61b6e02d3b6846c3bd3d20f9373ff6db8d80ea0f707213fc7ef6bfac5377ec8"},
	}
	if len(got) != len(want) {
		t.Fatalf("codexTrust = %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("entry %d: %+v, want %+v", i, got[i], want[i])
		}
	}
}

// TestCodexTrustEdit: trust is appended to config.toml, a second run adds
// nothing, a stale hash is replaced, a hook the user disabled stays
// disabled, and untrusting gives the file back byte for byte.
func TestCodexTrustEdit(t *testing.T) {
	want := []trustRecord{{Key: `C:\Users\dev\.codex\hooks.json:pre_tool_use:0:0`, Hash: "sha256:aa"}}
	for _, in := range []string{"", "model = \"gpt-5\"\n", "model = \"gpt-5\"", "[projects.\"/w\"]\ntrust_level = \"trusted\"\n\n[hooks.state.\"other:pre_tool_use:0:0\"]\nenabled = true\n"} {
		out, recs, notes, err := trustCodex([]byte(in), want)
		if err != nil || len(recs) != 1 || len(notes) != 0 {
			t.Fatalf("%q: %v %v %v", in, recs, notes, err)
		}
		got, _, err := codexStates(out)
		if err != nil || got[want[0].Key] != "sha256:aa" {
			t.Errorf("%q: trust does not read back: %v %v\n%s", in, got, err, out)
		}
		again, more, _, err := trustCodex(out, want)
		if err != nil || len(more) != 0 || !bytes.Equal(again, out) {
			t.Errorf("%q: trusting twice changed the file: %v %v", in, more, err)
		}
		if back := untrustCodex(out, recs); string(back) != in && !(in == "model = \"gpt-5\"" && string(back) == in+"\n") {
			t.Errorf("untrust:\n got %q\nwant %q", back, in)
		}
	}
	stale := "[hooks.state.'C:\\Users\\dev\\.codex\\hooks.json:pre_tool_use:0:0']\ntrusted_hash = \"sha256:old\"\n"
	// a literal-string key is the same key: the hash line is replaced
	out, recs, _, err := trustCodex([]byte(strings.Replace(stale, "'C:\\Users\\dev\\.codex\\hooks.json:pre_tool_use:0:0'", tomlQuote(want[0].Key), 1)), want)
	if err != nil || len(recs) != 1 || recs[0].Was != "sha256:old" || !strings.Contains(string(out), `trusted_hash = "sha256:aa"`) {
		t.Errorf("stale hash not replaced: %v %+v\n%s", err, recs, out)
	}
	disabled := "[hooks.state." + tomlQuote(want[0].Key) + "]\nenabled = false\ntrusted_hash = \"sha256:old\"\n"
	out, recs, notes, err := trustCodex([]byte(disabled), want)
	if err != nil || len(recs) != 0 || len(notes) != 1 || string(out) != disabled {
		t.Errorf("a hook the user disabled was touched: %v %v %v\n%s", err, recs, notes, out)
	}
	if _, _, _, err := trustCodex([]byte("hooks = 3\n"), want); err == nil {
		t.Errorf("a config.toml whose hooks is not a table was edited")
	}
}

// reportHas says a report has a line for path with action (and, when
// given, a detail holding detail).
func reportHas(r *Report, path, action, detail string) bool {
	for _, l := range r.Lines {
		if l.Path == path && l.Action == action && strings.Contains(l.Detail, detail) {
			return true
		}
	}
	return false
}

// TestAgentHooksOnlyForInstalledAgents: init writes an agent's hook file
// only where the agent's own directory exists, and never makes one up.
func TestAgentHooksOnlyForInstalledAgents(t *testing.T) {
	e := newHostileEnv(t)
	// a Documents folder is not Cline
	if err := os.MkdirAll(filepath.Join(e.home, "Documents"), 0o755); err != nil {
		t.Fatal(err)
	}
	mustInit(t, e.opt)
	for _, rel := range []string{".codex", ".gemini", ".cursor", ".codeium", ".copilot", "Documents/Cline"} {
		if _, err := os.Stat(filepath.Join(e.home, rel)); !os.IsNotExist(err) {
			t.Errorf("init made ~/%s for an agent that is not installed (%v)", rel, err)
		}
	}
}

// TestAgentHooksRefuseAHardLinkedFile: a hook file with a second name is
// not replaced (the other name would keep the old bytes).
func TestAgentHooksRefuseAHardLinkedFile(t *testing.T) {
	e := newHostileEnv(t)
	p := filepath.Join(e.home, ".cursor", "hooks.json")
	writeTestFile(t, p, []byte(`{"version": 1, "hooks": {}}`), 0o644)
	if err := os.Link(p, filepath.Join(e.root, "other.json")); err != nil {
		t.Skip(err)
	}
	r := mustInit(t, e.opt)
	if !reportHas(r, p, actRefused, "hard links") {
		t.Errorf("a hard-linked hooks.json was not refused:\n%s", reportText(r))
	}
	if b, _ := os.ReadFile(p); string(b) != `{"version": 1, "hooks": {}}` {
		t.Errorf("the hard-linked file was changed: %s", b)
	}
}

// TestClineHookScripts: init writes Cline's two scripts, executable and
// running the installed airlock-hook; when Airlock moves, its own scripts
// follow it, and a script of the user's own is never replaced.
func TestClineHookScripts(t *testing.T) {
	e := newHostileEnv(t)
	hooks := filepath.Join(e.home, "Documents", "Cline", "Hooks")
	if err := os.MkdirAll(filepath.Dir(hooks), 0o755); err != nil {
		t.Fatal(err)
	}
	mustInit(t, e.opt)
	pre := filepath.Join(hooks, "PreToolUse")
	for _, c := range []struct {
		file string
		post bool
	}{{pre, false}, {filepath.Join(hooks, "PostToolUse"), true}} {
		b, err := os.ReadFile(c.file)
		if err != nil || !bytes.Equal(b, clineScript(e.opt.HookPath, c.post)) {
			t.Fatalf("%s: %v\n%s", c.file, err, b)
		}
		if fi, _ := os.Stat(c.file); fi.Mode().Perm()&0o100 == 0 {
			t.Errorf("%s is not executable: %v", c.file, fi.Mode())
		}
		cfg, err := Parse(newStore("cline.user-pre", c.file), b)
		if err != nil || len(cfg.Hooks) != 1 || hookProblem(cfg.Hooks[0], clineDialect, e.opt.HookPath) != "" {
			t.Errorf("%s does not read back as airlock-hook's hook: %v %+v", c.file, err, cfg)
		}
	}
	// Airlock moved: the scripts init wrote follow it
	moved := filepath.Join(e.root, "new", "airlock-hook")
	writeTestFile(t, moved, []byte("#!/bin/sh\n"), 0o755)
	opt := e.opt
	opt.HookPath = moved
	r := mustInit(t, opt)
	if b, _ := os.ReadFile(pre); !bytes.Equal(b, clineScript(moved, false)) || !reportHas(r, pre, actHookWired, "moved from "+e.opt.HookPath) {
		t.Errorf("Cline's script did not follow airlock-hook:\n%s\n%s", b, reportText(r))
	}
	// a script of the user's own
	mine := []byte("#!/bin/sh\necho '{\"cancel\": false}'\n")
	writeTestFile(t, pre, mine, 0o755)
	r = mustInit(t, opt)
	if b, _ := os.ReadFile(pre); !bytes.Equal(b, mine) || !reportHas(r, pre, actRefused, "not what airlock init writes") {
		t.Errorf("a Cline hook of the user's own was touched:\n%s\n%s", b, reportText(r))
	}
	// not on Windows
	if err := os.Remove(pre); err != nil {
		t.Fatal(err)
	}
	run := &initRun{opt: opt, r: &Report{}, seen: map[string]bool{}}
	run.opt.GOOS = "windows"
	run.clineHook(newStore("cline.user-pre", pre))
	if _, err := os.Stat(pre); !os.IsNotExist(err) || !reportHas(run.r, pre, actLeftAlone, "not wired on Windows") {
		t.Errorf("Cline's hook written for Windows (%v):\n%s", err, reportText(run.r))
	}
}

// TestAgentHooksUninstallKeepsEditsMadeSince: a hook file edited after
// init keeps the edit; only Airlock's hooks, and the Codex trust init
// recorded, come out.
func TestAgentHooksUninstallKeepsEditsMadeSince(t *testing.T) {
	e := newHostileEnv(t)
	gem := filepath.Join(e.home, ".gemini", "settings.json")
	cfgToml := filepath.Join(e.home, ".codex", "config.toml")
	cursor := filepath.Join(e.home, ".cursor", "hooks.json")
	writeTestFile(t, gem, []byte("{\n  \"theme\": \"dark\"\n}\n"), 0o644)
	writeTestFile(t, cfgToml, []byte("model = \"gpt-5\"\n"), 0o644)
	writeTestFile(t, cursor, []byte("{\n  \"version\": 1,\n  \"hooks\": {}\n}\n"), 0o644)
	mustInit(t, e.opt)
	// the user edits each file after init
	edit := func(p, old, new string) {
		b, err := os.ReadFile(p)
		if err != nil || !strings.Contains(string(b), old) {
			t.Fatalf("%s: %v\n%s", p, err, b)
		}
		if err := os.WriteFile(p, []byte(strings.Replace(string(b), old, new, 1)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	edit(gem, `"theme": "dark"`, `"theme": "light"`)
	edit(cfgToml, `model = "gpt-5"`, `model = "gpt-6"`)
	edit(cursor, `"version": 1`, `"version": 1, "mine": true`)
	r := mustUninstall(t, e.home, e.opt.AirlockHome)
	for p, want := range map[string]string{
		gem:     "{\n  \"theme\": \"light\"\n}\n",
		cfgToml: "model = \"gpt-6\"\n",
		cursor:  "{\n  \"version\": 1, \"mine\": true,\n  \"hooks\": {}\n}\n",
	} {
		if b, _ := os.ReadFile(p); string(b) != want {
			t.Errorf("%s after uninstall:\n got %q\nwant %q\n%s", p, b, want, reportText(r))
		}
	}
}
