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
	cs := taintCorpus(t)
	hookSays, proxySays := taintVerdicts(t, cs)
	tainted := 0
	for i, c := range cs {
		h := hookSays[i]
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

// taintVerdicts runs each case through both front ends: the proxy's
// result filter and the post-tool hook (a Claude Code PostToolUse event
// of an MCP tool, each in a session of its own), and says which taint.
func taintVerdicts(t *testing.T, cs []taintCase) (hookSays, proxySays []bool) {
	t.Helper()
	root := t.TempDir()
	env := airlockhome.Env{Home: filepath.Join(root, "home"), User: "dev", Tmp: filepath.Join(root, "tmp"),
		AirlockHome: filepath.Join(root, "airlock"), Getenv: func(string) string { return "" }}
	if err := os.MkdirAll(filepath.Join(env.Home, "proj"), 0o755); err != nil {
		t.Fatal(err)
	}
	proxySays = make([]bool, len(cs))
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
	bySession := map[string]bool{}
	for _, r := range recs {
		if r.Event == "taint" {
			bySession[r.Session] = true
		}
	}
	hookSays = make([]bool, len(cs))
	for i := range cs {
		hookSays[i] = bySession[fmt.Sprintf("s%d", i)]
	}
	return hookSays, proxySays
}

// TestEveryInjectionCorpusFileTaints: each file of the injection corpus
// (the instruction files the static scanner judges high, its poisoned
// project files, the poisoned tool definitions), handed to the model as
// an MCP result, taints the session in both front ends: as a text
// result, or for a JSON file as structured content (each string read on
// its own). A file that does not is listed below with why; a listed one
// that taints is an error too, so the table stays true.
func TestEveryInjectionCorpusFileTaints(t *testing.T) {
	exceptions := map[string]string{
		// a write-up of the attack next to the attack itself (tools.json, which taints)
		"../testdata/scan/poisoned/rug-pull-issue-search/NOTES.md": "describes the rug pull in prose; the poisoned definition is tools.json",
		// the skill only runs its script; the script (diag.sh) is the reverse shell, and taints
		"../testdata/scan/poisoned/skill-reverse-shell/.claude/skills/net-diag/SKILL.md": "names a script to run and holds nothing of the attack; scripts/diag.sh does",
		// the credential is named by a property's key, the destination by its description
		"../scan/testdata/poisoned/property-name.json": "the credential is a JSON key (contents_of_dot_ssh_id_rsa): a result's strings are read, its keys are not; as a tool definition the toolset scan holds it",
	}
	var files []string
	for _, root := range []string{"../testdata/scan/poisoned", "../scan/testdata/poisoned"} {
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				files = append(files, p)
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	high, _ := filepath.Glob("../scan/testdata/text/instructions.high.*")
	files = append(files, high...)
	var cs []taintCase
	of := []int{} // the file of each case
	for i, p := range files {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		cs = append(cs, taintCase{name: p, result: `{"content":[{"type":"text","text":` + string(jsonwalk.Quote(string(b))) + `}]}`})
		of = append(of, i)
		if json.Valid(b) {
			cs = append(cs, taintCase{name: p + " (structured)", result: `{"content":[],"structuredContent":` + string(b) + `}`})
			of = append(of, i)
		}
	}
	hookSays, proxySays := taintVerdicts(t, cs)
	taints := make([]bool, len(files))
	for i := range cs {
		if hookSays[i] != proxySays[i] {
			t.Errorf("%s: the hook taints %v, the proxy %v", cs[i].name, hookSays[i], proxySays[i])
		}
		taints[of[i]] = taints[of[i]] || (hookSays[i] && proxySays[i])
	}
	n := 0
	for i, p := range files {
		why, excepted := exceptions[p]
		switch {
		case !taints[i] && !excepted:
			t.Errorf("%s: a file of the injection corpus does not taint the session", p)
		case taints[i] && excepted:
			t.Errorf("%s taints now: drop it from the exceptions (%s)", p, why)
		case taints[i]:
			n++
		}
	}
	if n < 45 {
		t.Fatalf("only %d files of the injection corpus read: the corpus went missing", n)
	}
	t.Logf("%d of %d files taint; %d excepted", n, len(files), len(exceptions))
}
