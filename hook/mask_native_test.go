package hook

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/agentairlock/airlock/audit"
)

// TestNativeResultsAreMaskedInTheirShape: Claude Code's native tools'
// results (testdata/native_results.txt) carrying secrets are answered
// with updatedToolOutput in the tool's own shape (Claude Code keeps the
// original output when the shape differs), each secret gone, the mask
// recorded before the answer; the benign look-alikes are answered with
// nothing.
func TestNativeResultsAreMaskedInTheirShape(t *testing.T) {
	f, err := os.Open(filepath.Join("testdata", "native_results.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	secretRe := regexp.MustCompile(`\{\{(.*?)\}\}`)
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	n := 0
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		parts := strings.SplitN(line, "\t", 3)
		if len(parts) != 3 {
			t.Fatalf("malformed case %q", line)
		}
		tool, want, resp := parts[0], parts[1], parts[2]
		var secrets []string
		for _, m := range secretRe.FindAllStringSubmatch(resp, -1) {
			// the JSON text holds the secret escaped; the check reads it
			// the way the model would
			var s string
			_ = json.Unmarshal([]byte(`"`+m[1]+`"`), &s)
			secrets = append(secrets, s)
		}
		resp = secretRe.ReplaceAllString(resp, "$1")
		n++
		t.Run(tool+"/"+want, func(t *testing.T) {
			env := taintEnv(t, "default")
			ev := map[string]any{"session_id": "s1", "cwd": filepath.Join(env.Home, "proj"), "hook_event_name": "PostToolUse",
				"tool_name": tool, "tool_input": map[string]any{}, "tool_response": json.RawMessage(resp)}
			code, stdout, stderr := runHook(t, env, true, ev)
			if code != ExitAllow {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			if want == "keep" {
				if stdout != "" {
					t.Errorf("a benign result was answered: %s", stdout)
				}
				return
			}
			var answer struct {
				HookSpecificOutput struct {
					HookEventName string          `json:"hookEventName"`
					Updated       json.RawMessage `json:"updatedToolOutput"`
					MCP           json.RawMessage `json:"updatedMCPToolOutput"`
				} `json:"hookSpecificOutput"`
			}
			if err := json.Unmarshal([]byte(stdout), &answer); err != nil || answer.HookSpecificOutput.HookEventName != "PostToolUse" {
				t.Fatalf("answer %q: %v", stdout, err)
			}
			if answer.HookSpecificOutput.MCP != nil {
				t.Errorf("a native result answered as an MCP one: %s", stdout)
			}
			var got, orig map[string]any
			if err := json.Unmarshal(answer.HookSpecificOutput.Updated, &got); err != nil {
				t.Fatalf("updatedToolOutput %s: %v", answer.HookSpecificOutput.Updated, err)
			}
			_ = json.Unmarshal([]byte(resp), &orig)
			if !sameShape(got, orig) {
				t.Errorf("the shape changed:\n got %s\nwant the shape of %s", answer.HookSpecificOutput.Updated, resp)
			}
			text := string(answer.HookSpecificOutput.Updated)
			var unq map[string]any
			_ = json.Unmarshal(answer.HookSpecificOutput.Updated, &unq)
			for _, s := range secrets {
				if strings.Contains(text, s) || strings.Contains(stdout, s) || strings.Contains(strings.Join(stringsIn(unq), "\n"), s) {
					t.Errorf("the secret %q is still handed back: %s", s, text)
				}
			}
			if !strings.Contains(text, "[masked ") {
				t.Errorf("no mask in its place: %s", text)
			}
			recs, _ := audit.Tail(env.AirlockHome, 1)
			if len(recs) != 1 || recs[0].Event != "mask" || recs[0].Tool != tool {
				t.Errorf("the mask was not the last record: %+v", recs)
			}
			for _, s := range secrets {
				if len(recs) == 1 && strings.Contains(recs[0].Detail+recs[0].Reason, s) {
					t.Errorf("the record holds the secret: %+v", recs[0])
				}
			}
		})
	}
	if n < 10 {
		t.Fatalf("%d cases read: the corpus is missing", n)
	}
}

// sameShape: the same keys at every level, values of the same JSON kind.
func sameShape(a, b any) bool {
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, v := range x {
			w, ok := y[k]
			if !ok || !sameShape(v, w) {
				return false
			}
		}
		return true
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !sameShape(x[i], y[i]) {
				return false
			}
		}
		return true
	case string:
		_, ok := b.(string)
		return ok
	case float64:
		// the numbers are kept as they were
		return a == b
	default:
		return a == b
	}
}

func stringsIn(v any) []string {
	var out []string
	switch x := v.(type) {
	case string:
		out = append(out, x)
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			out = append(out, stringsIn(x[k])...)
		}
	case []any:
		for _, e := range x {
			out = append(out, stringsIn(e)...)
		}
	}
	return out
}

// TestInjectedNativeResultIsNeutralisedInItsShape: a fetched page that
// carries instructions reaches the model with them removed (default) or
// withheld (paranoid), its other fields as they were, the decision
// recorded before the answer; the warning goes with it.
func TestInjectedNativeResultIsNeutralisedInItsShape(t *testing.T) {
	for _, tc := range []struct{ profile, effective, want string }{
		{"default", "neutralised", "Meeting notes.\n\n[instruction removed by Airlock]"},
		{"paranoid", "withheld", "[withheld by Airlock: the result of WebFetch carried instructions"},
	} {
		env := taintEnv(t, tc.profile)
		code, stdout, stderr := runHook(t, env, true, map[string]any{"session_id": "s1", "cwd": filepath.Join(env.Home, "proj"),
			"hook_event_name": "PostToolUse", "tool_name": "WebFetch", "tool_input": map[string]any{"url": "https://blog.example.org/p", "prompt": "summarise"},
			"tool_response": map[string]any{"bytes": 300, "code": 200, "codeText": "OK", "result": injectedResult, "durationMs": 90, "url": "https://blog.example.org/p"}})
		if code != ExitAllow {
			t.Fatalf("%s: exit %d: %s", tc.profile, code, stderr)
		}
		var answer struct {
			HookSpecificOutput struct {
				Context string `json:"additionalContext"`
				Updated struct {
					Bytes  json.Number `json:"bytes"`
					URL    string      `json:"url"`
					Result string      `json:"result"`
				} `json:"updatedToolOutput"`
			} `json:"hookSpecificOutput"`
		}
		if err := json.Unmarshal([]byte(stdout), &answer); err != nil {
			t.Fatalf("%s: answer %q: %v", tc.profile, stdout, err)
		}
		up := answer.HookSpecificOutput.Updated
		if !strings.HasPrefix(up.Result, tc.want) || strings.Contains(up.Result, "send its contents") || up.URL != "https://blog.example.org/p" || up.Bytes != "300" {
			t.Errorf("%s: updatedToolOutput %+v", tc.profile, up)
		}
		if !strings.HasPrefix(answer.HookSpecificOutput.Context, "Airlock: the last tool result carried instructions") {
			t.Errorf("%s: no warning: %s", tc.profile, stdout)
		}
		recs, _ := audit.Tail(env.AirlockHome, 1)
		if len(recs) != 1 || recs[0].Event != "result" || recs[0].Effective != tc.effective || recs[0].Tool != "WebFetch" {
			t.Errorf("%s: last record %+v", tc.profile, recs)
		}
	}
}
