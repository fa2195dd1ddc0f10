package setup

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestUninstallRestoresEveryFileByteForByte(t *testing.T) {
	h := newFixtureHome(t)
	before := snapshot(t, h.root)
	if _, err := Init(h.opt); err != nil {
		t.Fatal(err)
	}
	r, err := Uninstall(UninstallOptions{AirlockHome: h.opt.AirlockHome, Home: h.home})
	if err != nil {
		t.Fatal(err)
	}
	if r.Refused != 0 {
		t.Fatalf("uninstall refused:\n%s", reportText(r))
	}
	for _, l := range r.Lines {
		// a hook file init created for an agent it found goes again
		if l.Action != actRestored && (l.Action != actRemoved || !strings.Contains(l.Path, "hooks")) {
			t.Errorf("not a byte-for-byte restore: %s", l)
		}
	}
	after := snapshot(t, h.root, h.opt.AirlockHome)
	delete(before, h.opt.AirlockHome) // did not exist
	if d := diffTrees(before, after, false); d != "" {
		t.Errorf("uninstall did not restore the tree:\n%s", d)
	}
	if _, err := os.Stat(manifestPath(h.opt.AirlockHome)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the manifest outlived a complete uninstall: %v", err)
	}
}

func TestUninstallKeepsEditsMadeAfterInit(t *testing.T) {
	h := newFixtureHome(t)
	orig := parsedFiles(t, h.opt)
	if _, err := Init(h.opt); err != nil {
		t.Fatal(err)
	}
	edits := []struct {
		file     string
		old, new string // replace old with new (once)
		added    string // a server the edit adds
		kept     string // text that must survive uninstall
	}{
		{filepath.Join(h.proj, ".cursor", "mcp.json"), `"mcpServers": {`, `"mcpServers": {
    "added": { "command": "node", "args": ["added.js"] },`, "added", `"${workspaceFolder}/.env.local"`},
		{filepath.Join(h.home, ".codex", "config.toml"), `model = "gpt-5-codex"`, `model = "gpt-6"

[mcp_servers.added]
command = "node"`, "added", `model = "gpt-6"`},
		{filepath.Join(h.proj, ".continue", "config.yaml"), "name: Team assistant", "name: Team bot", "", "name: Team bot"},
		{filepath.Join(h.proj, ".continue", "config.yaml"), "  - uses: anthropic/memory-mcp\n", "  - uses: anthropic/memory-mcp\n  - name: Added\n    command: node\n", "Added", "name: Added"},
		{filepath.Join(h.home, ".claude", "settings.json"), `"model": "opus"`, `"model": "sonnet"`, "", `"model": "sonnet"`},
	}
	for _, e := range edits {
		data, err := os.ReadFile(e.file)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(data, []byte(e.old)) {
			t.Fatalf("%s: %q not found", e.file, e.old)
		}
		data = bytes.Replace(data, []byte(e.old), []byte(e.new), 1)
		if strings.HasSuffix(e.file, "mcp.json") {
			data = bytes.Replace(data, []byte(`"${workspaceFolder}/.env"`), []byte(`"${workspaceFolder}/.env.local"`), 1)
		}
		if err := os.WriteFile(e.file, data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	r, err := Uninstall(UninstallOptions{AirlockHome: h.opt.AirlockHome, Home: h.home})
	if err != nil {
		t.Fatal(err)
	}
	if r.Refused != 0 {
		t.Fatalf("uninstall refused:\n%s", reportText(r))
	}
	after := parsedFiles(t, h.opt)
	for _, e := range edits {
		data, _ := os.ReadFile(e.file)
		if !bytes.Contains(data, []byte(e.kept)) {
			t.Errorf("%s: the user's edit %q did not survive uninstall", e.file, e.kept)
		}
		if bytes.Contains(data, []byte(h.opt.MCPPath)) || bytes.Contains(data, []byte(h.opt.HookPath)) || bytes.Contains(data, []byte(mark)) {
			t.Errorf("%s: airlock's entries survived uninstall:\n%s", e.file, data)
		}
		cfg := after[e.file]
		if e.added != "" && serverByName(cfg, e.added) == nil {
			t.Errorf("%s: server %s added after init is gone", e.file, e.added)
		}
		for _, o := range orig[e.file].Servers {
			n := serverByName(cfg, o.Name)
			if n == nil || !sameServer(o, *n, false) {
				t.Errorf("%s: %s is not back as it was: %+v", e.file, o.Name, n)
			}
		}
	}
	settings := filepath.Join(h.home, ".claude", "settings.json")
	if cfg := after[settings]; len(cfg.Hooks) != 1 || IsAirlockHook(cfg.Hooks[0].Command) {
		t.Errorf("settings hooks after uninstall: %+v, want only the user's own", cfg.Hooks)
	}
	if b, _ := os.ReadFile(settings); bytes.Contains(b, []byte(`"PreToolUse"`)) {
		t.Errorf("the PreToolUse list init created outlived uninstall:\n%s", b)
	}
	unwrapped := 0
	for _, l := range r.Lines {
		if l.Action == actUnwrapped && l.Server == "" {
			unwrapped++
		}
	}
	if unwrapped != 4 {
		t.Errorf("%d files unwrapped semantically, want 4:\n%s", unwrapped, reportText(r))
	}
}

func TestInitCreatesClaudeSettingsAndUninstallRemovesIt(t *testing.T) {
	h := newFixtureHome(t)
	settings := filepath.Join(h.home, ".claude", "settings.json")
	if err := os.Remove(settings); err != nil {
		t.Fatal(err)
	}
	r, err := Init(h.opt)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(reportText(r), settings+": created\n") {
		t.Errorf("no created line:\n%s", reportText(r))
	}
	fi, err := os.Stat(settings)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("settings.json: %v %v, want mode 0600", fi, err)
	}
	r, err = Uninstall(UninstallOptions{AirlockHome: h.opt.AirlockHome, Home: h.home})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(settings); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the settings file init created outlived uninstall:\n%s", reportText(r))
	}
}

func TestSecondInitWrapsOnlyWhatIsNewAndUninstallStillRestores(t *testing.T) {
	h := newFixtureHome(t)
	file := filepath.Join(h.proj, ".mcp.json")
	orig, _ := os.ReadFile(file)
	if _, err := Init(h.opt); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(file)
	data = bytes.Replace(data, []byte(`"mcpServers": {`), []byte(`"mcpServers": {
    "later": { "command": "uvx", "args": ["later-mcp"] },`), 1)
	if err := os.WriteFile(file, data, 0o644); err != nil {
		t.Fatal(err)
	}
	h.opt.Now = func() time.Time { return time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC) }
	r, err := Init(h.opt)
	if err != nil {
		t.Fatal(err)
	}
	if r.Changed != 1 || !strings.Contains(reportText(r), file+": later: wrapped\n") {
		t.Fatalf("second init:\n%s", reportText(r))
	}
	man, _ := ReadManifest(h.opt.AirlockHome)
	for _, f := range man.Files {
		if f.Path == file && len(f.Changes) != 2 {
			t.Errorf("%d changes recorded for %s, want 2", len(f.Changes), file)
		}
	}
	if _, err := Uninstall(UninstallOptions{AirlockHome: h.opt.AirlockHome, Home: h.home}); err != nil {
		t.Fatal(err)
	}
	// The user's server added between the two inits stays, unwrapped; the
	// rest is the file as it was.
	got, _ := os.ReadFile(file)
	want := bytes.Replace(orig, []byte(`"mcpServers": {`), []byte(`"mcpServers": {
    "later": { "command": "uvx", "args": ["later-mcp"] },`), 1)
	if !bytes.Equal(got, want) {
		t.Errorf("after uninstall:\n%s\nwant:\n%s", got, want)
	}
}

func TestUninstallPurge(t *testing.T) {
	h := newFixtureHome(t)
	if _, err := Init(h.opt); err != nil {
		t.Fatal(err)
	}
	r, err := Uninstall(UninstallOptions{AirlockHome: h.opt.AirlockHome, Home: h.home, Purge: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(h.opt.AirlockHome); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("--purge left %s:\n%s", h.opt.AirlockHome, reportText(r))
	}
	if !strings.Contains(reportText(r), h.opt.AirlockHome+": purged\n") {
		t.Errorf("no purged line:\n%s", reportText(r))
	}
}

func TestPurgeNeverDeletesAHome(t *testing.T) {
	root := t.TempDir()
	home := filepath.Join(root, "home")
	writeTestFile(t, filepath.Join(home, "policy.yaml"), []byte("x"), 0o600)
	writeTestFile(t, filepath.Join(root, "stuff", "notes.txt"), []byte("x"), 0o600)
	for _, dir := range []string{home, root, "/", filepath.Join(root, "stuff"), "relative"} {
		if err := purgeable(dir, home); err == nil {
			t.Errorf("purgeable(%q) = nil, want a refusal", dir)
		}
	}
	if err := purgeable(filepath.Join(home, ".airlock-not-yet"), home); err == nil {
		t.Errorf("a directory with none of Airlock's files is purgeable")
	}
}

func TestUninstallWithoutItsBackupOrItsFile(t *testing.T) {
	h := newFixtureHome(t)
	orig := parsedFiles(t, h.opt)
	if _, err := Init(h.opt); err != nil {
		t.Fatal(err)
	}
	noBackup := filepath.Join(h.proj, ".roo", "mcp.json")
	deleted := filepath.Join(h.proj, ".zed", "settings.json")
	man, _ := ReadManifest(h.opt.AirlockHome)
	for _, f := range man.Files {
		if f.Path == noBackup {
			if err := os.Remove(f.Changes[0].Backup); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := os.Remove(deleted); err != nil {
		t.Fatal(err)
	}
	r, err := Uninstall(UninstallOptions{AirlockHome: h.opt.AirlockHome, Home: h.home})
	if err != nil {
		t.Fatal(err)
	}
	text := reportText(r)
	for _, want := range []string{
		noBackup + ": " + actNoBackup + "\n",
		noBackup + ": local-tools: unwrapped\n",
		deleted + ": " + actGone + "\n",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("report lacks %q:\n%s", want, text)
		}
	}
	data, _ := os.ReadFile(noBackup)
	cfg, err := Parse(orig[noBackup].Store, data)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(cfg.Servers, orig[noBackup].Servers) {
		t.Errorf("without its backup, %s is not back as it was:\n%s", noBackup, data)
	}
	if _, err := os.Stat(deleted); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("uninstall recreated a file the user deleted")
	}
}
