//go:build unix

package e2e

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestAgentsHooksWiredByInit: after airlock init in a throwaway home, the
// real agents run the hooks it wrote. Codex's app-server lists both hooks
// as trusted (init recorded the trust; the test never uses the bypass
// flag), and airlock doctor, asking that same Codex, says its own tools
// are gated. Codex, in one turn against a fake Responses API, runs the
// trusted PreToolUse and PostToolUse hooks, and skips them once the trust
// is taken away (the control). Uninstall restores every file byte for
// byte. What each agent's hooks then decide, turn by turn (Gemini CLI's
// and Claude Code's too), is TestRealAgentTurns.
func TestAgentsHooksWiredByInit(t *testing.T) {
	codex := agentCLI(t, "@openai/codex")
	h := newAgentHome(t)
	originals := map[string][]byte{}
	for rel, body := range map[string][]byte{
		".codex/config.toml":    []byte("# mine\nmodel = \"gpt-5\"\n"),
		".gemini/settings.json": []byte(`{"security": {"auth": {"selectedType": "gemini-api-key"}}}` + "\n"),
	} {
		originals[h.write(t, rel, body)] = body
	}
	out, errOut, code, _ := runIn(t, h.proj, h.env, filepath.Join(bin, "airlock"), "init")
	if code != 0 {
		t.Fatalf("airlock init: exit %d\n%s%s", code, out, errOut)
	}
	t.Logf("airlock init:\n%s", out)
	hooksJSON := filepath.Join(h.home, ".codex", "hooks.json")
	for _, want := range []string{
		hooksJSON + ": hook wired (PreToolUse, PostToolUse: " + filepath.Join(bin, "airlock-hook") + " --agent codex)",
		filepath.Join(h.home, ".codex", "config.toml") + ": Codex trusts airlock-hook's hooks (recorded in hooks.state, as /hooks in Codex does: Codex skips a hook nobody trusted)",
		filepath.Join(h.home, ".gemini", "settings.json") + ": hook wired (BeforeTool, AfterTool: " + filepath.Join(bin, "airlock-hook") + " --agent gemini)",
	} {
		if !slices.Contains(strings.Split(out, "\n"), want) {
			t.Errorf("airlock init output lacks %q", want)
		}
	}
	if t.Failed() {
		t.FailNow()
	}

	t.Run("codex lists the hooks trusted", func(t *testing.T) {
		start := time.Now()
		c := startAppServer(t, h, codex)
		c.call(t, "initialize", map[string]any{"clientInfo": map[string]any{"name": "airlock-e2e", "version": "0"}})
		c.notify(t, "initialized")
		var list struct {
			Data []struct {
				Hooks []struct {
					Key, Command, TrustStatus, CurrentHash string
					Enabled                                bool
				}
			}
		}
		c.callInto(t, "hooks/list", map[string]any{"cwds": []string{h.proj}}, &list)
		c.close(t)
		t.Logf("codex app-server hooks/list in %v: %+v", time.Since(start).Round(time.Millisecond), list)
		got := map[string]string{}
		for _, d := range list.Data {
			for _, hk := range d.Hooks {
				if hk.Enabled {
					got[hk.Key] = hk.Command + " " + hk.TrustStatus
				}
			}
		}
		hook := filepath.Join(bin, "airlock-hook")
		for key, want := range map[string]string{
			hooksJSON + ":pre_tool_use:0:0":  hook + " --agent codex trusted",
			hooksJSON + ":post_tool_use:0:0": hook + " --agent codex --post trusted",
		} {
			if got[key] != want {
				t.Errorf("codex lists %s as %q, want %q (all: %v)", key, got[key], want, got)
			}
		}
		// doctor asks the same Codex
		env := append(h.env[:len(h.env):len(h.env)], "PATH="+filepath.Dir(codex)+string(os.PathListSeparator)+strings.TrimPrefix(h.env[0], "PATH="))
		out, errOut, _, _ := runIn(t, h.proj, env, filepath.Join(bin, "airlock"), "doctor", "--verbose")
		if !strings.Contains(out, "gated (Codex: trusted)") {
			t.Errorf("airlock doctor does not say Codex confirmed its trust:\n%s%s", out, errOut)
		}
	})

	t.Run("codex runs its PreToolUse hook", func(t *testing.T) {
		// one turn: the model runs a shell command; what airlock-hook
		// recorded of it
		turn := func() (decided, outcome bool) {
			before := len(readAudit(t, h.airlockHome))
			m := codexTurn(t, h, []toolCall{{"exec_command", map[string]any{"cmd": "echo hooked-by-codex"}}})
			if !m.carrying("hooked-by-codex") {
				t.Fatalf("codex did not run the model's command: the turn proves nothing (last request %s)", lastTail(m))
			}
			recs := readAudit(t, h.airlockHome)[before:]
			decided = slices.ContainsFunc(recs, func(r auditRecord) bool { return r.Event == "decision" && r.Source == "hook" })
			outcome = slices.ContainsFunc(recs, func(r auditRecord) bool { return r.Event == "outcome" && r.Source == "hook" })
			return decided, outcome
		}
		// control: without the trust init recorded, Codex skips the hook
		// (so the test can fail)
		cfg := filepath.Join(h.home, ".codex", "config.toml")
		trusted, err := os.ReadFile(cfg)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(cfg, originals[cfg], 0o600); err != nil {
			t.Fatal(err)
		}
		if d, o := turn(); d || o {
			t.Errorf("control: Codex ran an untrusted hook (decision %v, outcome %v): the trust is not what makes it run", d, o)
		}
		if err := os.WriteFile(cfg, trusted, 0o600); err != nil {
			t.Fatal(err)
		}
		if d, o := turn(); !d || !o {
			t.Errorf("airlock-hook recorded decision %v, outcome %v for Codex's shell call: Codex did not run the hooks init wrote and trusted", d, o)
		}
	})

	if v, errOut, code, _ := runIn(t, h.proj, h.env, filepath.Join(bin, "airlock"), "verify"); code != 0 {
		t.Errorf("airlock verify: exit %d\n%s%s", code, v, errOut)
	}
	out, errOut, code, _ = runIn(t, h.proj, h.env, filepath.Join(bin, "airlock"), "uninstall", "-y")
	if code != 0 {
		t.Fatalf("airlock uninstall -y: exit %d\n%s%s", code, out, errOut)
	}
	for path, want := range originals {
		if got, err := os.ReadFile(path); err != nil || !bytes.Equal(got, want) {
			t.Errorf("uninstall did not restore %s byte for byte (%v):\n got %q\nwant %q", path, err, got, want)
		}
	}
	if _, err := os.Stat(hooksJSON); !os.IsNotExist(err) {
		t.Errorf("%s outlived uninstall (%v)", hooksJSON, err)
	}
}
