package files

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/agentairlock/airlock/scan"
)

// corpusCase is one line of testdata/scan/cases.txt.
type corpusCase struct {
	dir      string   // poisoned/<case> or clean/<case>
	evidence string   // the file that must carry the evidence ("" for clean)
	ids      []string // indicator ids that file must carry
}

const corpusRoot = "../../testdata/scan"

func readCases(t testing.TB) []corpusCase {
	t.Helper()
	f, err := os.Open(filepath.Join(corpusRoot, "cases.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []corpusCase
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		fields := strings.Fields(line)
		if len(fields) != 3 {
			t.Fatalf("cases.txt:%d: want 3 fields, got %q", n, line)
		}
		c := corpusCase{dir: fields[0]}
		if fields[1] != "-" {
			c.evidence = fields[1]
		}
		if fields[2] != "-" {
			c.ids = strings.Split(fields[2], ",")
		}
		out = append(out, c)
	}
	if len(out) == 0 {
		t.Fatal("cases.txt lists no cases")
	}
	return out
}

// TestStaticCorpus scans every case of testdata/scan as `airlock scan`
// would: each poisoned case must reach high (the --fail-on-findings
// default) with its evidence in the named file, and no clean look-alike
// may. It reports recall and false positives.
func TestStaticCorpus(t *testing.T) {
	var poisoned, caught, clean, falsePos int
	for _, c := range readCases(t) {
		dir := filepath.Join(corpusRoot, c.dir)
		bad := strings.HasPrefix(c.dir, "poisoned/")
		if bad {
			poisoned++
		} else {
			clean++
		}
		t.Run(c.dir, func(t *testing.T) {
			rep, err := Walk([]string{dir}, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if rep.Scanned == 0 {
				t.Fatalf("no file read in %s", dir)
			}
			if !bad {
				if rep.Reaches(scan.High) {
					falsePos++
					t.Errorf("clean case reaches high:\n%s", reportDump(rep))
				}
				return
			}
			if !rep.Reaches(scan.High) {
				t.Errorf("poisoned case does not reach high:\n%s", reportDump(rep))
				return
			}
			var ev *File
			want := filepath.ToSlash(filepath.Join(dir, c.evidence))
			for i := range rep.Files {
				if rep.Files[i].Path == want {
					ev = &rep.Files[i]
				}
			}
			if ev == nil || ev.Severity != scan.High {
				t.Errorf("evidence file %s not at high risk:\n%s", c.evidence, reportDump(rep))
				return
			}
			caught++
			for _, id := range c.ids {
				if !hasID(ev.Findings, id) {
					t.Errorf("%s: %s not found:\n%s", c.evidence, id, dump(ev.Findings))
				}
			}
		})
	}
	t.Logf("static corpus: recall %d/%d poisoned cases at high; false positives %d/%d clean cases", caught, poisoned, falsePos, clean)
}

// TestOwnDocsAreNotHighRisk: the project's README, docs and profiles are
// full of attack strings quoted as examples; none may score high.
func TestOwnDocsAreNotHighRisk(t *testing.T) {
	var paths []string
	for _, p := range []string{"../../README.md", "../../CHANGELOG.md", "../../docs", "../../profiles", "../../action.yml"} {
		if _, err := os.Stat(p); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	rep, err := Walk(paths, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Scanned < 5 {
		t.Fatalf("read only %d files", rep.Scanned)
	}
	for _, f := range rep.Files {
		if f.Severity == scan.High {
			t.Errorf("%s scores %d (high):\n%s", f.Path, f.Risk, dump(f.Findings))
		}
	}
}

// TestSARIFValidates checks the SARIF output of the whole corpus against
// the SARIF 2.1.0 JSON schema shipped in testdata.
func TestSARIFValidates(t *testing.T) {
	rep, err := Walk([]string{corpusRoot}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := rep.WriteSARIF(&buf, "test"); err != nil {
		t.Fatal(err)
	}
	sch := compileSchema(t, filepath.Join(corpusRoot, "sarif-schema-2.1.0.json"))
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if err := sch.Validate(inst); err != nil {
		t.Fatalf("SARIF does not validate: %v", err)
	}
	var doc struct {
		Runs []struct {
			Tool struct {
				Driver struct {
					Rules []struct {
						ID   string
						Help struct{ Text string }
					}
				}
			}
			Results []struct {
				RuleID    string
				RuleIndex int
				Locations []struct {
					PhysicalLocation struct {
						ArtifactLocation struct{ URI, URIBaseID string }
						Region           struct{ StartLine, StartColumn int }
					}
				}
			}
		}
	}
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	run := doc.Runs[0]
	if len(run.Results) < 20 {
		t.Fatalf("only %d results", len(run.Results))
	}
	for _, r := range run.Results {
		rule := run.Tool.Driver.Rules[r.RuleIndex]
		if rule.ID != r.RuleID || rule.Help.Text == "" {
			t.Fatalf("result %s points at rule %s (help %q)", r.RuleID, rule.ID, rule.Help.Text)
		}
		loc := r.Locations[0].PhysicalLocation
		if loc.ArtifactLocation.URIBaseID != "%SRCROOT%" || strings.HasPrefix(loc.ArtifactLocation.URI, "/") || loc.Region.StartLine < 1 {
			t.Fatalf("bad location %+v", loc)
		}
	}
}

func compileSchema(t *testing.T, path string) *jsonschema.Schema {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("sarif.json", doc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile("sarif.json")
	if err != nil {
		t.Fatal(err)
	}
	return sch
}

func reportDump(r *report) string {
	var b strings.Builder
	for _, f := range r.Files {
		b.WriteString(f.Path + " risk " + f.Severity.String() + "\n" + dump(f.Findings))
	}
	return b.String()
}
