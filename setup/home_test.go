package setup

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// The fixture home: the realistic configs of testdata/setup, copied to
// where each agent keeps them on Linux, under a home and a project, plus
// what a real machine adds — a config reached through a symlink into a
// dotfiles directory, one with mode 0640, Claude Code's user settings with
// a hook of the user's own, and a team file named with --mcp-config.
var homeFiles = []struct {
	fixture string // under fixtureRoot
	dest    string // under the test root: home/… or proj/…
}{
	{"claude-code.user-mcp/.claude.json", "home/.claude.json"},
	{"claude-code.project-mcp/.mcp.json", "proj/.mcp.json"},
	{"claude-code.project-settings/.claude/settings.json", "proj/.claude/settings.json"},
	{"claude-desktop.user/Library/Application Support/Claude/claude_desktop_config.json", "home/.config/Claude/claude_desktop_config.json"},
	{"cursor.project/.cursor/mcp.json", "proj/.cursor/mcp.json"},
	{"cursor.project/.cursor/mcp.json", "home/dotfiles/cursor-mcp.json"}, // ~/.cursor/mcp.json links here
	{"windsurf.user/.codeium/windsurf/mcp_config.json", "home/.codeium/windsurf/mcp_config.json"},
	{"cline.code/Code/User/globalStorage/saoudrizwan.claude-dev/settings/cline_mcp_settings.json", "home/.config/Code/User/globalStorage/saoudrizwan.claude-dev/settings/cline_mcp_settings.json"},
	{"roo.project/.roo/mcp.json", "proj/.roo/mcp.json"},
	{"vscode.project/.vscode/mcp.json", "proj/.vscode/mcp.json"},
	{"vscode.project/.vscode/mcp.json", "home/.config/Code/User/mcp.json"},
	{"vscode.user-settings/Code/User/settings.json", "home/.config/Code/User/settings.json"},
	{"copilot.user/.copilot/mcp-config.json", "home/.copilot/mcp-config.json"},
	{"codex.project/.codex/config.toml", "home/.codex/config.toml"},
	{"gemini.project/.gemini/settings.json", "home/.gemini/settings.json"},
	{"kimi.user/.kimi/mcp.json", "home/.kimi/mcp.json"},
	{"kimi-code.project/.kimi-code/mcp.json", "proj/.kimi-code/mcp.json"},
	{"grok.project/.grok/config.toml", "proj/.grok/config.toml"},
	{"grok-cli.project-settings/.grok/settings.json", "proj/.grok/settings.json"},
	{"grok-cli.project-mcp/.grok/mcp.json", "proj/.grok/mcp.json"},
	{"zed.user/.config/zed/settings.json", "home/.config/zed/settings.json"},
	{"zed.project/.zed/settings.json", "proj/.zed/settings.json"},
	{"continue.project/.continue/config.yaml", "proj/.continue/config.yaml"},
	{"continue.project-server/.continue/mcpServers/playwright.yaml", "proj/.continue/mcpServers/playwright.yaml"},
	{"continue.project-server/.continue/mcpServers/claude-style.json", "proj/.continue/mcpServers/claude-style.json"},
	{"goose.user/.config/goose/config.yaml", "home/.config/goose/config.yaml"},
	{"opencode.project-jsonc/opencode.jsonc", "proj/opencode.jsonc"},
	{"opencode.project-dot/.opencode/opencode.json", "proj/.opencode/opencode.json"},
	{"amazonq.project/.amazonq/mcp.json", "proj/.amazonq/mcp.json"},
	{"amazonq.cli-agent/.aws/amazonq/cli-agents/reviewer.json", "home/.aws/amazonq/cli-agents/reviewer.json"},
	{"kiro.project/.kiro/settings/mcp.json", "proj/.kiro/settings/mcp.json"},
	{"generic/team-servers.json", "team/servers.json"},
}

// userSettings is ~/.claude/settings.json before init: the user's own
// hook on PostToolUse, no PreToolUse, keys Airlock does not know.
const userSettings = `{
  "model": "opus",
  "permissions": {
    "allow": ["Bash(go test:*)"]
  },
  "hooks": {
    "PostToolUse": [
      {
        "matcher": "Write|Edit",
        "hooks": [
          { "type": "command", "command": "gofmt -l \"$CLAUDE_PROJECT_DIR\"" }
        ]
      }
    ]
  },
  "feedbackSurveyState": { "lastShown": 1764000000 }
}
`

type fixtureHome struct {
	root, home, proj string
	opt              Options
}

// newFixtureHome builds the fixture home in a temp dir, with stand-ins for
// the two binaries.
func newFixtureHome(t *testing.T) *fixtureHome {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("the fixture home uses Linux paths and symlinks")
	}
	root := t.TempDir()
	h := &fixtureHome{root: root, home: filepath.Join(root, "home"), proj: filepath.Join(root, "proj")}
	bin := filepath.Join(root, "opt", "airlock", "bin")
	for _, f := range homeFiles {
		data, err := os.ReadFile(filepath.Join(fixtureRoot, f.fixture))
		if err != nil {
			t.Fatal(err)
		}
		// The fixtures' servers already behind airlock-mcp are behind
		// this install's: one that is not (Airlock moved) is repointed.
		for _, old := range []string{"/usr/local/bin/airlock-mcp", "/home/dev/.local/bin/airlock-mcp", `C:\\Program Files\\Airlock\\airlock-mcp.exe`} {
			data = bytes.ReplaceAll(data, []byte(old), []byte(filepath.Join(bin, "airlock-mcp")))
		}
		writeTestFile(t, filepath.Join(root, f.dest), data, 0o644)
	}
	writeTestFile(t, filepath.Join(h.home, ".claude", "settings.json"), []byte(userSettings), 0o600)
	if err := os.Chmod(filepath.Join(h.home, ".codex", "config.toml"), 0o640); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(h.home, ".cursor"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../dotfiles/cursor-mcp.json", filepath.Join(h.home, ".cursor", "mcp.json")); err != nil {
		t.Fatal(err)
	}
	for _, b := range []string{"airlock-hook", "airlock-mcp"} {
		writeTestFile(t, filepath.Join(bin, b), []byte("#!/bin/sh\n"), 0o755)
	}
	// A bare "airlock-mcp" in the fixtures is found on PATH, as an agent
	// finds it.
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	env := map[string]string{}
	h.opt = Options{
		Home: h.home, Workspace: h.proj, GOOS: "linux", Env: func(k string) string { return env[k] },
		AirlockHome:  filepath.Join(h.home, ".airlock"),
		HookPath:     filepath.Join(bin, "airlock-hook"),
		MCPPath:      filepath.Join(bin, "airlock-mcp"),
		ExtraConfigs: []string{filepath.Join(root, "team", "servers.json")},
		Now:          func() time.Time { return time.Date(2026, 11, 30, 10, 15, 0, 0, time.UTC) },
		Profile:      "default",
		Policy:       []byte("version: 1\n# the default profile\n"),
	}
	return h
}

func writeTestFile(t *testing.T, p string, data []byte, mode fs.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, data, mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(p, mode); err != nil {
		t.Fatal(err)
	}
}

// entry is one file, link or directory of a tree, as a test compares it.
type entry struct {
	data  string
	mode  fs.FileMode
	link  string
	mtime time.Time
}

// snapshot records every entry under root but those under skip.
func snapshot(t *testing.T, root string, skip ...string) map[string]entry {
	t.Helper()
	out := map[string]entry{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		for _, s := range skip {
			if p == s {
				return filepath.SkipDir
			}
		}
		fi, err := os.Lstat(p)
		if err != nil {
			return err
		}
		e := entry{mode: fi.Mode(), mtime: fi.ModTime()}
		switch {
		case fi.Mode()&fs.ModeSymlink != 0:
			e.link, _ = os.Readlink(p)
		case fi.Mode().IsRegular():
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			e.data = string(b)
		}
		out[p] = e
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// diffTrees says how two snapshots differ (bytes, modes, links, and
// mtimes when withTimes); "" when they do not.
func diffTrees(a, b map[string]entry, withTimes bool) string {
	var d []string
	for p, ea := range a {
		eb, ok := b[p]
		switch {
		case !ok:
			d = append(d, "gone: "+p)
		case ea.data != eb.data:
			d = append(d, "bytes differ: "+p)
		case ea.mode != eb.mode:
			d = append(d, "mode "+ea.mode.String()+" became "+eb.mode.String()+": "+p)
		case ea.link != eb.link:
			d = append(d, "link differs: "+p)
		case withTimes && !ea.mtime.Equal(eb.mtime) && !ea.mode.IsDir():
			d = append(d, "mtime differs: "+p)
		}
	}
	for p := range b {
		if _, ok := a[p]; !ok {
			d = append(d, "new: "+p)
		}
	}
	return strings.Join(d, "\n")
}

func reportText(r *Report) string {
	var b bytes.Buffer
	_ = r.WriteText(&b)
	return b.String()
}
