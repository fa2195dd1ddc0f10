package setup

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// parsedFiles reads every existing store of the fixture home.
func parsedFiles(t *testing.T, opt Options) map[string]*Config {
	t.Helper()
	out := map[string]*Config{}
	for _, st := range opt.stores() {
		data, err := os.ReadFile(st.Path)
		if err != nil {
			continue
		}
		cfg, err := Parse(st, data)
		if err != nil {
			t.Fatalf("fixture %s: %v", st.Path, err)
		}
		out[st.Path] = cfg
	}
	return out
}

// comments lists the comments of a file: what blanking removes from JSONC,
// the # parts of TOML and YAML lines.
func comments(data []byte, f format) []string {
	var out []string
	if f == formatJSON || f == formatJSONC {
		b := blankJSONC(data)
		for i := 0; i < len(data); {
			if data[i] == b[i] || data[i] == ',' {
				i++
				continue
			}
			j := i
			for j < len(data) && data[j] != b[j] {
				j++
			}
			out = append(out, string(data[i:j]))
			i = j
		}
		return out
	}
	for _, line := range strings.Split(string(data), "\n") {
		if i := strings.Index(line, "#"); i >= 0 && (i == 0 || line[i-1] == ' ') {
			out = append(out, line[i:])
		}
	}
	return out
}

// mustWrap is the set of stores the issue lists, each of which holds at
// least one stdio server the fixture home leaves unwrapped.
var mustWrap = []string{
	"claude-code.project-mcp", "claude-desktop.user", "cursor.user", "cursor.project", "windsurf.user",
	"cline.code", "roo.project", "vscode.project", "vscode.user", "codex.user", "gemini.user", "zed.user",
	"zed.project", "opencode.project-jsonc", "opencode.project-dot", "continue.project",
	"continue.project-server", "goose.user", "kimi.user", "grok.project", "grok-cli.project-settings",
	"grok-cli.project-mcp", "generic.1",
}

func TestInitWrapsEveryStdioServerExactlyOnce(t *testing.T) {
	h := newFixtureHome(t)
	before := parsedFiles(t, h.opt)
	raw := map[string][]byte{}
	for p := range before {
		raw[p], _ = os.ReadFile(p)
	}
	r, err := Init(h.opt)
	if err != nil {
		t.Fatal(err)
	}
	if r.Refused != 0 {
		t.Fatalf("init refused something:\n%s", reportText(r))
	}
	wrappedLines := map[string]int{}
	for _, l := range r.Lines {
		if l.Action == actWrapped {
			wrappedLines[l.Path+"\x00"+l.Server]++
		}
	}
	after := parsedFiles(t, h.opt)
	for p, old := range before {
		now := after[p]
		data, _ := os.ReadFile(p)
		for _, c := range comments(raw[p], old.Store.Format) {
			if !bytes.Contains(data, []byte(c)) {
				t.Errorf("%s: comment %q is gone", p, c)
			}
		}
		if old.Store.ID == "claude-code.user-mcp" {
			if !bytes.Equal(data, raw[p]) {
				t.Errorf("%s: Claude Code's own file was edited", p)
			}
			continue
		}
		if len(now.Servers) != len(old.Servers) {
			t.Fatalf("%s: %d servers, was %d", p, len(now.Servers), len(old.Servers))
		}
		for i, o := range old.Servers {
			n := now.Servers[i]
			key := p + "\x00" + o.Name
			if o.Remote && remoteWhyNot(o.Store, o) == "" {
				// a remote server becomes its bridge: airlock-mcp --url, its
				// headers in the env, none on the command line
				if !readsAsBridge(o, n) || n.Command != h.opt.MCPPath {
					t.Errorf("%s: %s reads %q %q, want airlock-mcp --name %s --url %s", p, o.Name, n.Command, n.Args, o.Name, o.URL)
				}
				for _, a := range n.Args {
					if strings.Contains(a, "Bearer") || strings.Contains(a, "${") || strings.Contains(a, "$GITHUB") {
						t.Errorf("%s: %s: a header reached the command line: %q", p, o.Name, n.Args)
					}
				}
				if wrappedLines[key] != 1 {
					t.Errorf("%s: %s reported wrapped %d times", p, o.Name, wrappedLines[key])
				}
				continue
			}
			if o.Command == "" || o.Wrapped {
				if !sameServer(o, n, false) {
					t.Errorf("%s: %s changed though it needed no wrap:\n was %+v\n now %+v", p, o.Name, o, n)
				}
				if wrappedLines[key] != 0 {
					t.Errorf("%s: %s reported wrapped", p, o.Name)
				}
				continue
			}
			if !n.Wrapped || n.WrapName != o.Name || !reflect.DeepEqual(n.Inner, argvOf(&o)) {
				t.Errorf("%s: %s reads %q %q, want airlock-mcp --name %s -- %q", p, o.Name, n.Command, n.Args, o.Name, argvOf(&o))
			}
			if n.Command != h.opt.MCPPath {
				t.Errorf("%s: %s runs %q, want %q", p, o.Name, n.Command, h.opt.MCPPath)
			}
			if !reflect.DeepEqual(n.Env, o.Env) || n.Cwd != o.Cwd || n.Disabled != o.Disabled || n.Transport != o.Transport {
				t.Errorf("%s: %s: env, cwd, disabled or transport changed", p, o.Name)
			}
			if wrappedLines[key] != 1 {
				t.Errorf("%s: %s reported wrapped %d times", p, o.Name, wrappedLines[key])
			}
		}
	}
	man, err := ReadManifest(h.opt.AirlockHome)
	if err != nil {
		t.Fatal(err)
	}
	inManifest := map[string]bool{}
	for _, f := range man.Files {
		inManifest[f.Store.ID] = true
		ch := f.Changes[0]
		if !ch.Existed {
			// a hook file init created for an agent it found: no backup,
			// uninstall removes it (TestAgentHooks*)
			if f.Store.Kind != kindHooks && f.Store.ID != "gemini.user" {
				t.Errorf("%s: init created it", f.Path)
			}
			continue
		}
		b, err := os.ReadFile(ch.Backup)
		if err != nil || sum(b) != ch.Before || !bytes.Equal(b, raw[f.Path]) && f.Store.Kind == kindMCP {
			t.Errorf("%s: backup %s is not the file as it was (%v)", f.Path, ch.Backup, err)
		}
		if fi, err := os.Stat(ch.Backup); err != nil || fi.Mode().Perm() != 0o600 {
			t.Errorf("backup %s: mode %v, want 0600", ch.Backup, fi.Mode())
		}
	}
	for _, id := range mustWrap {
		if !inManifest[id] {
			t.Errorf("store %s was not edited", id)
		}
	}
	if fi, err := os.Stat(manifestPath(h.opt.AirlockHome)); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("manifest mode %v %v, want 0600", fi.Mode(), err)
	}

	// The symlinked config: still a link, its target edited.
	link := filepath.Join(h.home, ".cursor", "mcp.json")
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("%s is no longer a symlink", link)
	}
	if b, _ := os.ReadFile(filepath.Join(h.home, "dotfiles", "cursor-mcp.json")); !bytes.Contains(b, []byte(h.opt.MCPPath)) {
		t.Errorf("the link's target was not edited")
	}
	// The odd mode is kept.
	if fi, _ := os.Stat(filepath.Join(h.home, ".codex", "config.toml")); fi.Mode().Perm() != 0o640 {
		t.Errorf("config.toml mode %v, want 0640", fi.Mode())
	}
	// TOML and YAML lines carry the mark.
	for _, p := range []string{filepath.Join(h.home, ".codex", "config.toml"), filepath.Join(h.proj, ".continue", "config.yaml")} {
		if b, _ := os.ReadFile(p); !bytes.Contains(b, []byte(mark)) {
			t.Errorf("%s: no %q mark", p, mark)
		}
	}
}

func TestInitWiresTheClaudeHook(t *testing.T) {
	h := newFixtureHome(t)
	if _, err := Init(h.opt); err != nil {
		t.Fatal(err)
	}
	st := byID(Locate(h.home, h.proj, "linux", nil))["claude-code.user-settings"]
	data, _ := os.ReadFile(st.Path)
	cfg, err := Parse(st, data)
	if err != nil {
		t.Fatal(err)
	}
	pre, post := HookCommands(h.opt.HookPath)
	var got []string
	for _, hk := range cfg.Hooks {
		got = append(got, hk.Event+"|"+hk.Matcher+"|"+hk.Command+"|"+string(rune('0'+hk.Timeout/10)))
	}
	want := []string{
		`PostToolUse|Write|Edit|gofmt -l "$CLAUDE_PROJECT_DIR"|0`,
		"PostToolUse|*|" + post + "|3",
		"PreToolUse|*|" + pre + "|3",
		"PostToolUseFailure|*|" + post + "|3",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("hooks:\n got %q\nwant %q", got, want)
	}
	for _, k := range []string{`"args"`, `"onFailure"`} {
		if bytes.Contains(data, []byte(k)) {
			t.Errorf("settings carry %s, which older Claude Code refuses", k)
		}
	}
	for _, k := range []string{`"feedbackSurveyState"`, `"Bash(go test:*)"`} {
		if !bytes.Contains(data, []byte(k)) {
			t.Errorf("settings lost %s", k)
		}
	}
	s, err := Status(h.opt)
	if err != nil {
		t.Fatal(err)
	}
	if !s.Hook.Pre || !s.Hook.Post || !s.Hook.Failure || !s.Hook.Executable || s.Hook.Command != pre {
		t.Errorf("Status hook = %+v", s.Hook)
	}
}

func TestInitTwiceChangesNothing(t *testing.T) {
	h := newFixtureHome(t)
	if _, err := Init(h.opt); err != nil {
		t.Fatal(err)
	}
	before := snapshot(t, h.root)
	r, err := Init(h.opt)
	if err != nil {
		t.Fatal(err)
	}
	if d := diffTrees(before, snapshot(t, h.root), true); d != "" {
		t.Errorf("a second init changed the tree:\n%s", d)
	}
	if r.Changed != 0 || r.Summary() != "nothing changed" {
		t.Errorf("second init: %s", r.Summary())
	}
	for _, l := range r.Lines {
		if l.Action == actWrapped || l.Action == actBackedUp || l.Action == actHookWired {
			t.Errorf("second init: %s", l)
		}
	}
}

func TestInitDryRunWritesNothing(t *testing.T) {
	h := newFixtureHome(t)
	h.opt.DryRun = true
	before := snapshot(t, h.root)
	r, err := Init(h.opt)
	if err != nil {
		t.Fatal(err)
	}
	if d := diffTrees(before, snapshot(t, h.root), true); d != "" {
		t.Errorf("--dry-run wrote:\n%s", d)
	}
	text := reportText(r)
	for _, want := range []string{": github: would wrap\n", ": would back up to ", ": would wire hook (", "policy.yaml: would write (profile default)", "would change 34 files (dry run: nothing written)"} {
		if !strings.Contains(text, want) {
			t.Errorf("dry-run report lacks %q:\n%s", want, text)
		}
	}
}

func TestInitRefusesAFileChangedUnderIt(t *testing.T) {
	h := newFixtureHome(t)
	target := filepath.Join(h.proj, ".mcp.json")
	theirs := []byte(`{"mcpServers": {"theirs": {"command": "node"}}}`)
	h.opt.beforeCommit = func(p string) {
		if p == target {
			if err := os.WriteFile(p, theirs, 0o644); err != nil {
				t.Error(err)
			}
		}
	}
	r, err := Init(h.opt)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, l := range r.Lines {
		if l.Path == target && l.Action == actRefused && strings.Contains(l.Detail, errChanged.Error()) {
			found = true
		}
		if l.Path == target && (l.Action == actWrapped || l.Action == actBackedUp) {
			t.Errorf("reported as done: %s", l)
		}
	}
	if !found {
		t.Errorf("no refusal for %s:\n%s", target, reportText(r))
	}
	if b, _ := os.ReadFile(target); !bytes.Equal(b, theirs) {
		t.Errorf("the other writer's change was clobbered:\n%s", b)
	}
	man, _ := ReadManifest(h.opt.AirlockHome)
	for _, f := range man.Files {
		if f.Path == target {
			t.Errorf("the manifest records a change that was not made")
		}
	}
	// 29 stores, and the hook files of the four agents the fixture home
	// has (Codex, Cursor, Windsurf, Copilot CLI)
	if r.Refused != 1 || r.Changed != 33 {
		t.Errorf("refused %d, changed %d; want 1 and 33", r.Refused, r.Changed)
	}
}

func TestInitRefusesAFileThatDoesNotParse(t *testing.T) {
	h := newFixtureHome(t)
	broken := map[string]string{
		filepath.Join(h.proj, ".cursor", "mcp.json"):   "{\n  \"mcpServers\": {\n    \"a\": {\"command\": \"x\"}\n    \"b\": {}\n  }\n}\n",
		filepath.Join(h.proj, ".roo", "mcp.json"):      "{\"mcpServers\": {\n\"ok\": {\"command\": \"x\"},\n\"bad\": {\"command\": \"y\", \"args\": \"--flag\"}}}\n",
		filepath.Join(h.home, ".codex", "config.toml"): "[mcp_servers.x]\ncommand = \"npx\"\nargs = [\"a\"\n",
	}
	for p, s := range broken {
		if err := os.WriteFile(p, []byte(s), 0o640); err != nil {
			t.Fatal(err)
		}
	}
	r, err := Init(h.opt)
	if err != nil {
		t.Fatal(err)
	}
	for p, s := range broken {
		if b, _ := os.ReadFile(p); string(b) != s {
			t.Errorf("%s was edited despite its error", p)
		}
		found := false
		for _, l := range r.Lines {
			if l.Path == p && l.Action == actRefused && strings.Contains(l.Detail, p+":") && strings.Contains(l.Detail, "fix the file") {
				found = true
			}
		}
		if !found {
			t.Errorf("no refusal naming %s and its line:\n%s", p, reportText(r))
		}
	}
	if r.Refused != len(broken) {
		t.Errorf("refused %d, want %d", r.Refused, len(broken))
	}
}

func TestInitNeedsTheBinaries(t *testing.T) {
	h := newFixtureHome(t)
	h.opt.MCPPath = filepath.Join(h.root, "nowhere", "airlock-mcp")
	before := snapshot(t, h.root)
	_, err := Init(h.opt)
	if err == nil || !strings.Contains(err.Error(), "install.sh") || !strings.Contains(err.Error(), "airlock-mcp") {
		t.Fatalf("err = %v, want one naming airlock-mcp and install.sh", err)
	}
	if d := diffTrees(before, snapshot(t, h.root), true); d != "" {
		t.Errorf("init touched files before failing:\n%s", d)
	}
}

func TestStatusNamesStragglersAndRemotes(t *testing.T) {
	h := newFixtureHome(t)
	s, err := Status(h.opt)
	if err != nil {
		t.Fatal(err)
	}
	by := map[string]storeStatus{}
	for _, ss := range s.Stores {
		by[ss.Store.ID] = ss
	}
	if got := by["claude-code.project-mcp"]; !reflect.DeepEqual(got.Stragglers, []string{"github"}) ||
		!reflect.DeepEqual(got.Remote, []string{"sentry", "linear"}) || !reflect.DeepEqual(got.Wrapped, []string{"filesystem"}) {
		t.Errorf(".mcp.json status = %+v", got)
	}
	if got := by["claude-code.user-mcp"]; len(got.HookGated) != 3 || len(got.Stragglers) != 0 {
		t.Errorf(".claude.json status = %+v", got)
	}
	if s.Hook.Pre || s.Hook.Post {
		t.Errorf("hook reported wired before init: %+v", s.Hook)
	}
	if _, err := Init(h.opt); err != nil {
		t.Fatal(err)
	}
	if s, err = Status(h.opt); err != nil {
		t.Fatal(err)
	}
	for _, ss := range s.Stores {
		if len(ss.Stragglers) > 0 || ss.Error != "" {
			t.Errorf("after init, %s: stragglers %v, error %q", ss.Store.Path, ss.Stragglers, ss.Error)
		}
	}
	if s.Manifest == nil || len(s.Manifest.Files) != 33 {
		t.Errorf("Status manifest lists %d files, want 33", len(s.Manifest.Files))
	}
}
