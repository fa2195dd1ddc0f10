package setup

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"
)

// hostileEnv is a bare home and project with stand-ins for the two
// binaries: each hostile test adds only the files it attacks with.
type hostileEnv struct {
	root, home, proj, bin string
	opt                   Options
}

func newHostileEnv(t *testing.T) *hostileEnv {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("Linux paths and links")
	}
	root := t.TempDir()
	e := &hostileEnv{root: root, home: filepath.Join(root, "home"), proj: filepath.Join(root, "proj"), bin: filepath.Join(root, "opt", "airlock", "bin")}
	for _, d := range []string{e.home, e.proj} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, b := range []string{"airlock-hook", "airlock-mcp"} {
		writeTestFile(t, filepath.Join(e.bin, b), []byte("#!/bin/sh\n"), 0o755)
	}
	e.opt = Options{
		Home: e.home, Workspace: e.proj, GOOS: "linux", Env: func(string) string { return "" },
		AirlockHome: filepath.Join(e.home, ".airlock"),
		HookPath:    filepath.Join(e.bin, "airlock-hook"),
		MCPPath:     filepath.Join(e.bin, "airlock-mcp"),
		Now:         func() time.Time { return time.Date(2026, 11, 30, 10, 15, 0, 0, time.UTC) },
	}
	return e
}

func mustInit(t *testing.T, opt Options) *Report {
	t.Helper()
	r, err := Init(opt)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func mustUninstall(t *testing.T, home, airlockHome string) *Report {
	t.Helper()
	r, err := Uninstall(UninstallOptions{AirlockHome: airlockHome, Home: home})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func readServers(t *testing.T, st Store) map[string]server {
	t.Helper()
	data, err := os.ReadFile(st.Path)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := Parse(st, data)
	if err != nil {
		t.Fatalf("%s: %v", st.Path, err)
	}
	out := map[string]server{}
	for _, s := range cfg.Servers {
		out[s.Name] = s
	}
	return out
}

const cursorConfig = `{
  "mcpServers": {
    "github": { "command": "npx", "args": ["-y", "@modelcontextprotocol/server-github"], "env": { "GITHUB_TOKEN": "ghp_secret" } }
  }
}
`

// TestHostileInitBreaksHardLinks: ~/.cursor/mcp.json is a hard link to
// ~/dotfiles/cursor-mcp.json (how some dotfile managers install configs).
// commit writes a temp file and renames it over the path, so init leaves a
// new inode at ~/.cursor/mcp.json and the dotfiles copy keeps the old,
// unwrapped command line; uninstall renames again, so even "restored byte
// for byte" leaves two unrelated files: every later edit of the dotfiles
// copy silently stops reaching the agent. Symlinks are kept (the target is
// edited), hard links are not. Fix: when the file has more than one link
// (Stat_t.Nlink > 1), either rewrite it in place after the backup (the
// bytes are checked as now) or refuse it, naming the other links, as the
// dangling-symlink case is refused.
func TestHostileInitBreaksHardLinks(t *testing.T) {
	e := newHostileEnv(t)
	shared := filepath.Join(e.home, "dotfiles", "cursor-mcp.json")
	writeTestFile(t, shared, []byte(cursorConfig), 0o644)
	cfg := filepath.Join(e.home, ".cursor", "mcp.json")
	if err := os.MkdirAll(filepath.Dir(cfg), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(shared, cfg); err != nil {
		t.Skip("no hard links here:", err)
	}
	sameFile := func(when string) {
		a, err1 := os.Stat(shared)
		b, err2 := os.Stat(cfg)
		if err1 != nil || err2 != nil {
			t.Fatalf("%s: %v %v", when, err1, err2)
		}
		if !os.SameFile(a, b) {
			da, _ := os.ReadFile(shared)
			db, _ := os.ReadFile(cfg)
			t.Errorf("%s: %s is no longer a hard link to %s (the two now differ: %v)", when, cfg, shared, !bytes.Equal(da, db))
		}
	}
	r := mustInit(t, e.opt)
	refused := false
	for _, l := range r.Lines {
		refused = refused || l.Path == cfg && l.Action == actRefused
	}
	if !refused {
		sameFile("after init")
	}
	mustUninstall(t, e.home, e.opt.AirlockHome)
	sameFile("after uninstall")
}

// TestHostileUninstallRevertsAChmodMadeAfterInit: the user tightens
// ~/.cursor/mcp.json (it holds a token in env) from 0644 to 0600 after
// init. The bytes are still what init left, so uninstall takes the
// byte-for-byte path and also restores the mode init found (Change.Mode),
// making the token world-readable again. The manifest records AfterMode
// but restoreFile never compares it. Fix: restore Change.Mode only when the
// file's mode is still Change.AfterMode; otherwise keep the mode the user
// set (and say so).
func TestHostileUninstallRevertsAChmodMadeAfterInit(t *testing.T) {
	e := newHostileEnv(t)
	cfg := filepath.Join(e.home, ".cursor", "mcp.json")
	writeTestFile(t, cfg, []byte(cursorConfig), 0o644)
	mustInit(t, e.opt)
	if err := os.Chmod(cfg, 0o600); err != nil {
		t.Fatal(err)
	}
	mustUninstall(t, e.home, e.opt.AirlockHome)
	data, _ := os.ReadFile(cfg)
	if string(data) != cursorConfig {
		t.Fatalf("not restored:\n%s", data)
	}
	if fi, _ := os.Stat(cfg); fi.Mode().Perm() != 0o600 {
		t.Errorf("uninstall changed the mode the user set after init: %v, want 0600 (the file holds a token)", fi.Mode().Perm())
	}
}

// TestHostileConcurrentInitsLoseManifestRecords: two inits share one
// $AIRLOCK_HOME (airlock init in two projects at once, or airlock doctor
// --fix while init runs). Each reads the manifest once at the start and
// rewrites the whole of it before each file, so the later writer drops the
// other's records: the other init's files stay wrapped after uninstall,
// their backups orphaned. Here run B runs entirely while run A is between
// two of its files. Fix: take a cross-process lock on the manifest
// (internal/flock) for the whole of Init and Uninstall, or re-read and merge
// it under the lock before each write.
func TestHostileConcurrentInitsLoseManifestRecords(t *testing.T) {
	a := newHostileEnv(t)
	writeTestFile(t, filepath.Join(a.home, ".cursor", "mcp.json"), []byte(cursorConfig), 0o644)
	writeTestFile(t, filepath.Join(a.home, ".kimi", "mcp.json"), []byte(cursorConfig), 0o644)

	b := newHostileEnv(t)
	bCfg := filepath.Join(b.home, ".cursor", "mcp.json")
	writeTestFile(t, bCfg, []byte(cursorConfig), 0o644)
	b.opt.AirlockHome = a.opt.AirlockHome // one Airlock home, two homes of configs

	ran := false
	a.opt.beforeCommit = func(string) {
		if !ran {
			ran = true
			mustInit(t, b.opt)
		}
	}
	mustInit(t, a.opt)
	if !ran {
		t.Fatal("run B never ran")
	}
	if data, _ := os.ReadFile(bCfg); !bytes.Contains(data, []byte(b.opt.MCPPath)) {
		t.Fatalf("run B did not wrap %s", bCfg)
	}
	mustUninstall(t, a.home, a.opt.AirlockHome)
	if data, _ := os.ReadFile(bCfg); string(data) != cursorConfig {
		t.Errorf("%s, wrapped by the other init, is still wrapped after uninstall (its record was overwritten in the manifest):\n%s", bCfg, data)
	}
}

// TestHostileInitAfterTheBinariesMoved: the user reinstalls Airlock
// somewhere else (or a package manager moves it) and runs init again.
// Every server still names the old airlock-mcp and the hook the old
// airlock-hook, neither of which exists. init reports "already wrapped"
// and "hook already wired" and changes nothing, because WrappedCommand and
// IsAirlockHook look at base names only. The servers no longer start, and
// the hook command fails with 127, which Claude Code treats as "go ahead":
// every tool call runs ungated. doctor sees the dead hook but its advice,
// "airlock doctor --fix (or airlock init)", cannot fix it for the same
// reason. Fix: treat a wrapper or hook whose program is not the airlock-mcp /
// airlock-hook being installed (missing, or not os.SameFile) as stale and
// repoint it (backed up and recorded like any edit).
func TestHostileInitAfterTheBinariesMoved(t *testing.T) {
	e := newHostileEnv(t)
	cfg := filepath.Join(e.home, ".cursor", "mcp.json")
	writeTestFile(t, cfg, []byte(cursorConfig), 0o644)
	mustInit(t, e.opt)

	moved := filepath.Join(e.root, "usr", "local", "bin")
	if err := os.MkdirAll(filepath.Dir(moved), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(e.bin, moved); err != nil {
		t.Fatal(err)
	}
	e.opt.HookPath = filepath.Join(moved, "airlock-hook")
	e.opt.MCPPath = filepath.Join(moved, "airlock-mcp")
	r := mustInit(t, e.opt)

	st := byID(Locate(e.home, e.proj, "linux", nil))["cursor.user"]
	if s := readServers(t, st)["github"]; s.Command != e.opt.MCPPath {
		t.Errorf("after the second init github launches %q, which does not exist; want %q\n%s", s.Command, e.opt.MCPPath, reportText(r))
	}
	s, err := Status(e.opt)
	if err != nil {
		t.Fatal(err)
	}
	if !s.Hook.Executable {
		t.Errorf("after the second init the hook still runs %q, which does not exist\n%s", s.Hook.Command, reportText(r))
	}
}

// effectiveHooks reads a settings file as Claude Code does (JSON.parse:
// the last of a repeated key wins) and returns event -> matcher -> commands.
func effectiveHooks(t *testing.T, path string) map[string]map[string][]string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Hooks map[string][]struct {
			Matcher string `json:"matcher"`
			Hooks   []struct {
				Type    string `json:"type"`
				Command string `json:"command"`
			} `json:"hooks"`
		} `json:"hooks"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	out := map[string]map[string][]string{}
	for ev, groups := range doc.Hooks {
		out[ev] = map[string][]string{}
		for _, g := range groups {
			for _, h := range g.Hooks {
				out[ev][g.Matcher] = append(out[ev][g.Matcher], h.Command)
			}
		}
	}
	return out
}

func runsAirlockForAll(groups map[string][]string) bool {
	for _, m := range []string{"", "*"} {
		for _, c := range groups[m] {
			if IsAirlockHook(c) {
				return true
			}
		}
	}
	return false
}

// TestHostileInitTrustsAShadowedHookEvent: ~/.claude/settings.json names
// "PreToolUse" twice inside "hooks"; the first list runs airlock-hook, the
// last is empty. Claude Code reads it with JSON.parse, where the last key
// wins, so no PreToolUse hook runs. Parse's hooks() iterates members(),
// which returns both keys, so init counts airlock-hook as wired and adds
// nothing, and Status (and so doctor) report Pre: true. Parse documents
// "when a key is repeated, the last one wins" and does so for servers, not
// for hook events. Fix: read hook events with the last-wins rule (skip a
// member whose key appears again later), as addMembers does for servers.
func TestHostileInitTrustsAShadowedHookEvent(t *testing.T) {
	e := newHostileEnv(t)
	pre, post := HookCommands(e.opt.HookPath)
	settings := filepath.Join(e.home, ".claude", "settings.json")
	writeTestFile(t, settings, []byte(`{
  "hooks": {
    "PreToolUse": [{ "matcher": "*", "hooks": [{ "type": "command", "command": "`+pre+`", "timeout": 30 }] }],
    "PostToolUse": [{ "matcher": "*", "hooks": [{ "type": "command", "command": "`+post+`", "timeout": 30 }] }],
    "PreToolUse": []
  }
}
`), 0o600)
	r := mustInit(t, e.opt)
	if !runsAirlockForAll(effectiveHooks(t, settings)["PreToolUse"]) {
		t.Errorf("after init Claude Code runs no airlock-hook on PreToolUse (the wired list is shadowed by a later key):\n%s", reportText(r))
	}
	s, err := Status(e.opt)
	if err != nil {
		t.Fatal(err)
	}
	if s.Hook.Pre && !runsAirlockForAll(effectiveHooks(t, settings)["PreToolUse"]) {
		t.Errorf("Status says PreToolUse runs airlock-hook; Claude Code runs none")
	}
}

// TestHostileInitKeepsAHookThatMatchesOneTool: the user once wired
// airlock-hook for Bash only ("matcher": "Bash"). wireHooks counts any
// PreToolUse hook whose program is airlock-hook as wired, whatever its
// matcher, so init adds nothing and reports "hook already wired": Read,
// Write, Edit, WebFetch and every MCP tool pass ungated. The issue asks for
// "matcher all". Fix: a PreToolUse/PostToolUse airlock-hook counts only in a
// group whose matcher is "", "*" or omitted (and without "if"/"async");
// otherwise add init's own matcher-all group.
func TestHostileInitKeepsAHookThatMatchesOneTool(t *testing.T) {
	e := newHostileEnv(t)
	pre, post := HookCommands(e.opt.HookPath)
	settings := filepath.Join(e.home, ".claude", "settings.json")
	writeTestFile(t, settings, []byte(`{
  "hooks": {
    "PreToolUse": [{ "matcher": "Bash", "hooks": [{ "type": "command", "command": "`+pre+`", "timeout": 30 }] }],
    "PostToolUse": [{ "matcher": "*", "hooks": [{ "type": "command", "command": "`+post+`", "timeout": 30 }] }]
  }
}
`), 0o600)
	r := mustInit(t, e.opt)
	if !runsAirlockForAll(effectiveHooks(t, settings)["PreToolUse"]) {
		t.Errorf("after init airlock-hook runs on PreToolUse for Bash only:\n%s", reportText(r))
	}
}

// TestHostileGeminiURLBeatsCommand: Gemini CLI's createTransport connects
// over HTTP whenever an entry has httpUrl or url, and only runs command
// when it has neither (packages/core/src/tools/mcp-client.ts). readServer
// takes a command without "type" as stdio, so for ~/.gemini/settings.json:
//   - an entry with command and url is wrapped and reported "wrapped",
//     though Gemini never launches airlock-mcp for it;
//   - a decoy "command": "airlock-mcp", "args": ["--name", …] beside an
//     httpUrl reads as "already wrapped", and doctor counts it as gated.
//
// Fix: for Gemini CLI (and any agent documented the same way) a URL wins:
// the entry is Remote and not Wrapped, init lists it as remote and does not
// edit it.
func TestHostileGeminiURLBeatsCommand(t *testing.T) {
	e := newHostileEnv(t)
	p := filepath.Join(e.home, ".gemini", "settings.json")
	writeTestFile(t, p, []byte(`{
  "mcpServers": {
    "docs": { "command": "npx", "args": ["-y", "docs-mcp"], "url": "https://docs.example.com/mcp" },
    "github": { "command": "`+e.opt.MCPPath+`", "args": ["--name", "github", "--", "npx", "-y", "@modelcontextprotocol/server-github"],
                "httpUrl": "https://mcp.evil.example/mcp" }
  }
}
`), 0o644)
	r := mustInit(t, e.opt)
	for _, l := range r.Lines {
		if l.Path == p && l.Server != "" && l.Action != actRemote {
			t.Errorf("init: %s (Gemini CLI connects to the URL and never runs this command)", l)
		}
	}
	st := byID(Locate(e.home, e.proj, "linux", nil))["gemini.user"]
	for name, s := range readServers(t, st) {
		if !s.Remote || s.Wrapped {
			t.Errorf("%s: Remote=%v Wrapped=%v; Gemini CLI reaches it at %s", name, s.Remote, s.Wrapped, s.URL)
		}
	}
}

// TestHostilePurgeDeletesADirectoryThatIsNotAirlocks: AIRLOCK_HOME is set by
// mistake to a project directory (say, in a shell profile copied from a
// README). purgeable accepts any directory holding a file or directory
// named policy.yaml, setup, backups, audit.jsonl or pins.json; a
// Kubernetes or OPA project has a policy.yaml, many projects have backups/.
// `airlock uninstall -y --purge` then deletes the whole project with
// RemoveAll. Fix: purge only what Airlock made: require Airlock's own
// state (the manifest, an audit.jsonl whose first record is Airlock's, or a
// marker written when the home was created), and remove Airlock's known
// entries one by one rather than RemoveAll on whatever the variable names.
func TestHostilePurgeDeletesADirectoryThatIsNotAirlocks(t *testing.T) {
	e := newHostileEnv(t)
	project := filepath.Join(e.root, "work", "cluster-config")
	writeTestFile(t, filepath.Join(project, "policy.yaml"), []byte("apiVersion: kyverno.io/v1\nkind: ClusterPolicy\n"), 0o644)
	writeTestFile(t, filepath.Join(project, "main.go"), []byte("package main\n"), 0o644)
	r, err := Uninstall(UninstallOptions{AirlockHome: project, Home: e.home, Purge: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(project, "main.go")); err != nil {
		t.Errorf("uninstall --purge deleted a directory Airlock never made (%v):\n%s", err, reportText(r))
	}
}

// TestHostileUninstallUndercountsARemovedFile: Report.Changed "counts the
// files written, created or removed", but restoreFile's remove branch (a
// file init created, such as ~/.claude/settings.json, still as init left
// it) never increments it. Uninstall of a home where init wrapped one file
// and created the settings prints "1 file changed" after removing one file
// and restoring another. Fix: r.Changed++ after a successful remove.
func TestHostileUninstallUndercountsARemovedFile(t *testing.T) {
	e := newHostileEnv(t)
	// Kiro: an agent with no hook file for init to create besides
	writeTestFile(t, filepath.Join(e.home, ".kiro", "settings", "mcp.json"), []byte(cursorConfig), 0o644)
	mustInit(t, e.opt)
	u := mustUninstall(t, e.home, e.opt.AirlockHome)
	removed, restored := 0, 0
	for _, l := range u.Lines {
		switch l.Action {
		case actRemoved:
			removed++
		case actRestored:
			restored++
		}
	}
	if removed != 1 || restored != 1 {
		t.Fatalf("expected one removal and one restore:\n%s", reportText(u))
	}
	if u.Changed != 2 {
		t.Errorf("Changed = %d after removing one file and restoring another; summary %q", u.Changed, u.Summary())
	}
}
