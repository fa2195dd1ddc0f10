package scan

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// loadTools reads every tool definition in dir: a file holds either one
// tool object or a tools/list result ({"tools": [...]}).
func loadTools(t testing.TB, dir string) map[string][]byte {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no corpus in %s: %v", dir, err)
	}
	tools := map[string][]byte{}
	for _, p := range paths {
		raw, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		var list struct {
			Tools []json.RawMessage `json:"tools"`
		}
		if err := json.Unmarshal(raw, &list); err == nil && list.Tools != nil {
			for _, tool := range list.Tools {
				var head struct{ Name string }
				if err := json.Unmarshal(tool, &head); err != nil {
					t.Fatalf("%s: %v", p, err)
				}
				tools[filepath.Base(p)+"#"+head.Name] = tool
			}
			continue
		}
		tools[filepath.Base(p)] = raw
	}
	return tools
}

func TestToolFlagsPoisonedCorpus(t *testing.T) {
	for name, raw := range loadTools(t, "testdata/poisoned") {
		t.Run(name, func(t *testing.T) {
			fs := Tool(raw)
			bad, reason := Poisoned(fs)
			if !bad {
				t.Errorf("not poisoned (risk %s); findings:\n%s", Risk(fs), dump(fs))
				return
			}
			if !strings.HasPrefix(reason, `tool "`) {
				t.Errorf("reason %q does not name the tool", reason)
			}
			t.Logf("reason: %s", reason)
		})
	}
}

// Specific evidence a poisoned case must carry, beyond being poisoned.
var wantIDs = map[string][]string{
	"add-important-sidenote.json":    {"inject.important-block", "inject.conceal", "secret.path", "exfil.via-argument"},
	"shadow-send-email-bcc.json":     {"inject.shadow", "inject.redirect"},
	"tag-chars-smuggled.json":        {"stealth.tag-chars", "inject.override"},
	"bidi-override.json":             {"stealth.bidi"},
	"zero-width-split.json":          {"inject.override", "stealth.zero-width"},
	"parameter-description.json":     {"inject.important-block", "secret.path"},
	"fullwidth-override.json":        {"inject.override"},
	"exfil-url-with-secret.json":     {"secret.dotenv", "exfil.collector", "exfil.payload"},
	"html-comment-hidden.json":       {"stealth.html-comment", "inject.role"},
	"details-collapsed.json":         {"stealth.details", "inject.precall", "secret.path"},
	"reverse-shell.json":             {"exec.reverse-shell"},
	"output-schema-curl-sh.json":     {"exec.download-exec"},
	"cyrillic-homoglyph.json":        {"inject.override", "inject.conceal"},
	"duplicate-description-key.json": {"inject.override"},
}

var wantFields = map[string]string{
	"parameter-description.json": "inputSchema.properties.query.description",
	"enum-value.json":            "inputSchema.properties.mode.enum[2]",
	"output-schema-curl-sh.json": "outputSchema.properties.temp.description",
	"annotation-title.json":      "annotations.title",
	"property-name.json":         "inputSchema.properties.contents_of_dot_ssh_id_rsa (name)",
}

func TestToolPoisonedEvidence(t *testing.T) {
	tools := loadTools(t, "testdata/poisoned")
	for name, ids := range wantIDs {
		fs := Tool(tools[name])
		for _, id := range ids {
			if feedFind(fs, id) == nil {
				t.Errorf("%s: no %s finding; got:\n%s", name, id, dump(fs))
			}
		}
	}
	for name, field := range wantFields {
		found := false
		for _, f := range Tool(tools[name]) {
			found = found || f.Field == field
		}
		if !found {
			t.Errorf("%s: no finding in field %q; got:\n%s", name, field, dump(Tool(tools[name])))
		}
	}
}

func TestToolPassesBenignCorpus(t *testing.T) {
	perFile := map[string][]Finding{}
	for name, raw := range loadTools(t, "testdata/benign") {
		fs := Tool(raw)
		file, _, _ := strings.Cut(name, "#")
		perFile[file] = append(perFile[file], fs...)
		if bad, reason := Poisoned(fs); bad {
			t.Errorf("%s: poisoned: %s\n%s", name, reason, dump(fs))
		}
		for _, f := range fs {
			if f.Severity == High {
				t.Errorf("%s: High finding in a benign tool: %s", name, f)
			}
		}
	}
	// A whole clean server must not combine into High either.
	for file, fs := range perFile {
		if bad, reason := Poisoned(fs); bad {
			t.Errorf("%s as a toolset: poisoned: %s", file, reason)
		}
	}
}

// The real reference servers carry no indicator at Med or above except
// where the text really names one.
func TestReferenceServersAreQuiet(t *testing.T) {
	for name, raw := range loadTools(t, "testdata/benign") {
		if strings.HasPrefix(name, "look-alikes") {
			continue
		}
		for _, f := range Tool(raw) {
			if f.Severity >= Med {
				t.Errorf("%s: %s", name, f)
			}
		}
	}
}

// testdata/text/<context>.<risk>.<name>: the expected Risk of Text over
// the file in that context.
func TestTextCorpusRisk(t *testing.T) {
	paths, err := filepath.Glob("testdata/text/*")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no text corpus: %v", err)
	}
	contexts := map[string]Context{"instructions": Instructions, "prose": Prose, "code": Code}
	for _, p := range paths {
		base := filepath.Base(p)
		parts := strings.SplitN(base, ".", 3)
		if len(parts) < 3 {
			t.Fatalf("%s: want <context>.<risk>.<name>", base)
		}
		ctx, ok := contexts[parts[0]]
		if !ok {
			t.Fatalf("%s: unknown context %q", base, parts[0])
		}
		raw, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		t.Run(base, func(t *testing.T) {
			fs := Text(string(raw), ctx)
			if got := Risk(fs).String(); got != parts[1] {
				t.Errorf("Risk = %s, want %s; findings:\n%s", got, parts[1], dump(fs))
			}
		})
	}
}

func dump(fs []Finding) string {
	var b strings.Builder
	for _, f := range fs {
		b.WriteString("  " + f.String() + "\n")
	}
	return b.String()
}
