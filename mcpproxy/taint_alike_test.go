package mcpproxy

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentairlock/airlock/audit"
	"github.com/agentairlock/airlock/hook"
	airlockhome "github.com/agentairlock/airlock/internal/home"
	"github.com/agentairlock/airlock/internal/jsonwalk"
)

// taintCase is one result both front ends see.
type taintCase struct {
	name   string
	result string // an MCP tools/call result (JSON)
	benign bool   // from an ordinary-results corpus: must taint neither
}

// taintCorpus: the injection corpus (instruction files, the static
// scanner's poisoned files, the strings of poisoned tool definitions) and
// the ordinary results (testdata/results, the secret table's benign
// files, the static scanner's clean files), each as a text result and
// as structured content.
func taintCorpus(t *testing.T) []taintCase {
	t.Helper()
	var cs []taintCase
	add := func(name, text string, benign bool) {
		cs = append(cs,
			taintCase{name + " (text)", `{"content":[{"type":"text","text":` + string(jsonwalk.Quote(text)) + `}]}`, benign},
			taintCase{name + " (structured)", `{"content":[],"structuredContent":{"notes":` + string(jsonwalk.Quote(text)) + `}}`, benign})
	}
	files := func(root string, benign bool) {
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			add(p, string(b), benign)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	files("../scan/testdata/text", false) // instructions.high.*, and look-alikes (none, med)
	files("../testdata/scan/poisoned", false)
	files("../testdata/scan/clean", false) // benign for the file scanner, but quoting attacks: agreement only
	files("../scan/secret/testdata/benign", true)
	tools, _ := filepath.Glob("../scan/testdata/poisoned/*.json")
	for _, p := range tools {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		var v any
		if err := json.Unmarshal(b, &v); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		var walk func(v any)
		n := 0
		walk = func(v any) {
			switch x := v.(type) {
			case string:
				add(fmt.Sprintf("%s string %d", p, n), x, false)
				n++
			case map[string]any:
				for _, e := range x {
					walk(e)
				}
			case []any:
				for _, e := range x {
					walk(e)
				}
			}
		}
		walk(v)
	}
	for name, res := range corpus(t) {
		cs = append(cs, taintCase{"testdata/results/" + name, string(res), true})
	}
	return cs
}

// TestHookAndProxyTaintAlike: the post-tool hook (hook.Run on a Claude
// Code PostToolUse event for an MCP tool) and the proxy (its result
// filter, which sets the connection's taint) reach the same taint verdict
// on every result of the injection and ordinary corpora: a session is
// tainted by the same measure whichever front end saw the result. No
// ordinary result taints either, and the injection corpus is not vacuous.
func TestHookAndProxyTaintAlike(t *testing.T) {
	root := t.TempDir()
	env := airlockhome.Env{Home: filepath.Join(root, "home"), User: "dev", Tmp: filepath.Join(root, "tmp"),
		AirlockHome: filepath.Join(root, "airlock"), Getenv: func(string) string { return "" }}
	if err := os.MkdirAll(filepath.Join(env.Home, "proj"), 0o755); err != nil {
		t.Fatal(err)
	}
	cs := taintCorpus(t)
	proxySays := make([]bool, len(cs))
	for i, c := range cs {
		_, found := readResults("tools/call", c.result)
		for _, f := range found {
			proxySays[i] = proxySays[i] || f.Taints
		}
		ev, err := json.Marshal(map[string]any{"session_id": fmt.Sprintf("s%d", i), "cwd": filepath.Join(env.Home, "proj"),
			"hook_event_name": "PostToolUse", "tool_name": "mcp__notes__read_note", "tool_input": map[string]any{"id": "1"},
			"tool_response": json.RawMessage(c.result)})
		if err != nil {
			t.Fatal(err)
		}
		var out, errb strings.Builder
		if code := hook.Run(hook.Options{Stdin: strings.NewReader(string(ev)), Stdout: &out, Stderr: &errb, Post: true,
			Getenv: env.Getenv, EnvFunc: func() (airlockhome.Env, error) { return env, nil }}); code != hook.ExitAllow {
			t.Fatalf("%s: the post-tool hook exited %d: %s", c.name, code, errb.String())
		}
	}
	recs, err := audit.Tail(env.AirlockHome, 10*len(cs))
	if err != nil {
		t.Fatal(err)
	}
	hookSays := map[string]bool{}
	for _, r := range recs {
		if r.Event == "taint" {
			hookSays[r.Session] = true
		}
	}
	tainted := 0
	for i, c := range cs {
		h := hookSays[fmt.Sprintf("s%d", i)]
		switch {
		case h != proxySays[i]:
			t.Errorf("%s: the hook taints %v, the proxy %v", c.name, h, proxySays[i])
		case c.benign && h:
			t.Errorf("%s: an ordinary result taints the session", c.name)
		case h:
			tainted++
		}
	}
	if tainted < 40 {
		t.Errorf("only %d of %d results of the injection corpus taint: the corpus went missing or the verdict went blind", tainted, len(cs))
	}
	t.Logf("%d results, %d tainting in both front ends", len(cs), tainted)
}
