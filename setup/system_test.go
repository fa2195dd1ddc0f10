package setup

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// systemFixture is a fake root with a managed settings file and a
// requirements.toml an administrator wrote before Airlock, and the
// binaries in root/usr/bin.
func systemFixture(t *testing.T) (Options, string) {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("init --system has no Windows channels yet")
	}
	root := t.TempDir()
	bin := filepath.Join(root, "usr", "bin")
	for _, b := range []string{"airlock-hook", "airlock-mcp"} {
		writeTestFile(t, filepath.Join(bin, b), []byte("#!/bin/sh\n"), 0o755)
	}
	writeTestFile(t, filepath.Join(root, "etc/claude-code/managed-settings.json"), []byte(managedSettingsBefore), 0o644)
	writeTestFile(t, filepath.Join(root, "etc/codex/requirements.toml"), []byte(requirementsBefore), 0o644)
	return Options{
		GOOS: "linux", System: true, Root: root,
		AirlockHome: filepath.Join(root, "etc", "airlock"),
		HookPath:    filepath.Join(bin, "airlock-hook"), MCPPath: filepath.Join(bin, "airlock-mcp"),
		Now: func() time.Time { return time.Date(2026, 12, 2, 7, 0, 0, 0, time.UTC) },
	}, root
}

const managedSettingsBefore = `{
  // the organisation's settings
  "permissions": {"deny": ["Bash(curl:*)"]}
}
`

const requirementsBefore = `# the organisation's Codex requirements
allowed_sandbox_modes = ["read-only", "workspace-write"]

[features]
web_search = false
`

// TestInitSystem wires every managed channel under a fake root, leaves
// what the administrator wrote as it was, writes nothing the second time,
// and uninstall puts every file back byte for byte and removes the ones
// it made.
func TestInitSystem(t *testing.T) {
	opt, root := systemFixture(t)
	before := snapshot(t, root)
	r, err := Init(opt)
	if err != nil {
		t.Fatal(err)
	}
	if r.Refused != 0 {
		t.Fatalf("refused:\n%s", reportText(r))
	}
	hook := opt.HookPath
	settings := readTest(t, filepath.Join(root, "etc/claude-code/managed-settings.json"))
	for _, want := range []string{`"permissions": {"deny": ["Bash(curl:*)"]}`, `// the organisation's settings`, `"PreToolUse"`, `"command": "` + hook + `"`, `"PostToolUseFailure"`} {
		if !strings.Contains(settings, want) {
			t.Errorf("managed-settings.json lacks %q:\n%s", want, settings)
		}
	}
	req := readTest(t, filepath.Join(root, "etc/codex/requirements.toml"))
	wantReq := requirementsBefore + "\n" + codexRequirementsMark + "[hooks]\nmanaged_dir = \"" + filepath.Dir(hook) + "\"\n" +
		"\n[[hooks.PreToolUse]]\nmatcher = \"*\"\n\n[[hooks.PreToolUse.hooks]]\ntype = \"command\"\ncommand = \"" + hook + " --agent codex\"\ntimeout = 30\n" +
		"\n[[hooks.PostToolUse]]\nmatcher = \"*\"\n\n[[hooks.PostToolUse.hooks]]\ntype = \"command\"\ncommand = \"" + hook + " --agent codex --post\"\ntimeout = 30\n"
	if req != wantReq {
		t.Errorf("requirements.toml:\n%s\nwant:\n%s", req, wantReq)
	}
	// the files init made: readable by the agents (run as users), root's to write
	for _, p := range []string{"etc/cursor/hooks.json", "etc/windsurf/hooks.json", "etc/github-copilot/policy.d/airlock.json"} {
		fi, err := os.Stat(filepath.Join(root, p))
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != 0o644 {
			t.Errorf("%s: mode %04o, want 0644", p, fi.Mode().Perm())
		}
		di, err := os.Stat(filepath.Dir(filepath.Join(root, p)))
		if err != nil {
			t.Fatal(err)
		}
		if di.Mode().Perm() != 0o755 {
			t.Errorf("%s: mode %04o, want 0755", filepath.Dir(p), di.Mode().Perm())
		}
	}
	for want, p := range map[string]string{
		`"failClosed": true`:                     "etc/cursor/hooks.json",
		`"show_output": false`:                   "etc/windsurf/hooks.json",
		`"bash": "` + hook + ` --agent copilot"`: "etc/github-copilot/policy.d/airlock.json",
	} {
		if got := readTest(t, filepath.Join(root, p)); !strings.Contains(got, want) {
			t.Errorf("%s lacks %s:\n%s", p, want, got)
		}
	}
	// doctor's view: every channel wired, and nothing under the real /etc
	for _, h := range SystemWiring(root, "linux") {
		if !h.Wired || h.Problem != "" || !strings.HasPrefix(h.Path, root) {
			t.Errorf("SystemWiring: %+v", h)
		}
	}
	if _, err := os.Stat(filepath.Join(opt.AirlockHome, "setup", "manifest.json")); err != nil {
		t.Errorf("the system manifest: %v", err)
	}

	// a second run changes nothing
	mid := snapshot(t, root)
	r2, err := Init(opt)
	if err != nil {
		t.Fatal(err)
	}
	if r2.Changed != 0 || r2.Refused != 0 {
		t.Errorf("second init --system changed %d, refused %d:\n%s", r2.Changed, r2.Refused, reportText(r2))
	}
	if d := diffTrees(mid, snapshot(t, root), false); d != "" {
		t.Errorf("second init --system wrote:\n%s", d)
	}

	// uninstall --system: everything back as it was
	ur, err := Uninstall(UninstallOptions{AirlockHome: opt.AirlockHome})
	if err != nil {
		t.Fatal(err)
	}
	if ur.Refused != 0 {
		t.Fatalf("uninstall refused:\n%s", reportText(ur))
	}
	if got := readTest(t, filepath.Join(root, "etc/codex/requirements.toml")); got != requirementsBefore {
		t.Errorf("requirements.toml not restored:\n%s", got)
	}
	if got := readTest(t, filepath.Join(root, "etc/claude-code/managed-settings.json")); got != managedSettingsBefore {
		t.Errorf("managed-settings.json not restored:\n%s", got)
	}
	if d := diffTrees(before, snapshot(t, root, filepath.Join(root, "etc", "airlock")), false); d != "" {
		t.Errorf("uninstall --system left:\n%s", d)
	}
}

// TestInitSystemEditedSince: a requirements.toml the administrator
// changed after init keeps the change; only Airlock's block comes out.
func TestInitSystemEditedSince(t *testing.T) {
	opt, root := systemFixture(t)
	if r, err := Init(opt); err != nil || r.Refused != 0 {
		t.Fatalf("init: %v\n%s", err, reportText(r))
	}
	p := filepath.Join(root, "etc/codex/requirements.toml")
	edited := "# a line the admin added later\n" + readTest(t, p)
	writeTestFile(t, p, []byte(edited), 0o644)
	ur, err := Uninstall(UninstallOptions{AirlockHome: opt.AirlockHome})
	if err != nil || ur.Refused != 0 {
		t.Fatalf("uninstall: %v\n%s", err, reportText(ur))
	}
	if got, want := readTest(t, p), "# a line the admin added later\n"+requirementsBefore; got != want {
		t.Errorf("requirements.toml:\n%s\nwant:\n%s", got, want)
	}
}

// TestInitSystemRefusals: hooks already in requirements.toml are not
// merged into, and a hook binary a user could replace is refused before
// anything is written.
func TestInitSystemRefusals(t *testing.T) {
	opt, root := systemFixture(t)
	p := filepath.Join(root, "etc/codex/requirements.toml")
	own := requirementsBefore + "\n[[hooks.PreToolUse]]\nmatcher = \"Bash\"\n"
	writeTestFile(t, p, []byte(own), 0o644)
	r, err := Init(opt)
	if err != nil {
		t.Fatal(err)
	}
	if r.Refused != 1 || !strings.Contains(reportText(r), "TOML allows one [hooks] table") {
		t.Errorf("want requirements.toml refused:\n%s", reportText(r))
	}
	if got := readTest(t, p); got != own {
		t.Errorf("a refused requirements.toml was changed:\n%s", got)
	}
	for _, toml := range []string{"[hooks]\n", "hooks.managed_dir = \"/x\"\n", "[ hooks.PreToolUse ]\n", "[[ hooks.PostToolUse ]]\n"} {
		if !hasTOMLHooks([]byte(toml)) {
			t.Errorf("hasTOMLHooks(%q) = false", toml)
		}
	}
	for _, toml := range []string{"[features]\nhooks = false\n", "hooksmith = 1\n", requirementsBefore} {
		if hasTOMLHooks([]byte(toml)) {
			t.Errorf("hasTOMLHooks(%q) = true", toml)
		}
	}

	opt2, root2 := systemFixture(t)
	if err := os.Chmod(filepath.Dir(opt2.HookPath), 0o777); err != nil {
		t.Fatal(err)
	}
	before := snapshot(t, root2)
	if _, err := Init(opt2); err == nil || !strings.Contains(err.Error(), "writable by others") {
		t.Errorf("a world-writable bin directory: err = %v", err)
	}
	if d := diffTrees(before, snapshot(t, root2), false); d != "" {
		t.Errorf("a refused init --system wrote:\n%s", d)
	}
}

func readTest(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(bytes.TrimPrefix(b, nil))
}

// TestInitServiceFile: the forwarder's unit init writes when the managed
// policy names export targets: created when missing, left alone when
// there (even when it differs), removed by uninstall.
func TestInitServiceFile(t *testing.T) {
	root := t.TempDir()
	bin := filepath.Join(root, "bin")
	for _, b := range []string{"airlock-hook", "airlock-mcp"} {
		writeTestFile(t, filepath.Join(bin, b), []byte("#!/bin/sh\n"), 0o755)
	}
	h := filepath.Join(root, "home")
	unit := filepath.Join(h, ".config", "systemd", "user", "airlock-forward.service")
	opt := Options{Home: h, GOOS: "linux", AirlockHome: filepath.Join(h, ".airlock"),
		HookPath: filepath.Join(bin, "airlock-hook"), MCPPath: filepath.Join(bin, "airlock-mcp"),
		Services: []ServiceFile{{Path: unit, Data: []byte("[Unit]\n"), Next: "systemctl --user enable --now airlock-forward.service"}}}
	r, err := Init(opt)
	if err != nil {
		t.Fatal(err)
	}
	if got := readTest(t, unit); got != "[Unit]\n" || !strings.Contains(reportText(r), "systemctl --user enable --now airlock-forward.service") {
		t.Fatalf("unit %q, report:\n%s", got, reportText(r))
	}
	r, err = Init(opt)
	if err != nil || !strings.Contains(reportText(r), unit) || r.Changed != 0 {
		t.Errorf("second init: %v, changed %d\n%s", err, r.Changed, reportText(r))
	}
	ur, err := Uninstall(UninstallOptions{AirlockHome: opt.AirlockHome, Home: h})
	if err != nil || ur.Refused != 0 {
		t.Fatalf("uninstall: %v\n%s", err, reportText(ur))
	}
	if _, err := os.Stat(unit); !os.IsNotExist(err) {
		t.Errorf("uninstall left the unit: %v", err)
	}
	// one the user has already, different: kept
	writeTestFile(t, unit, []byte("[Unit]\n# mine\n"), 0o644)
	r, err = Init(opt)
	if err != nil || !strings.Contains(reportText(r), "it differs from what init writes") || readTest(t, unit) != "[Unit]\n# mine\n" {
		t.Errorf("a unit of the user's own: %v\n%s", err, reportText(r))
	}
}
