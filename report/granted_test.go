package report

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/agentairlock/airlock/audit"
	"github.com/agentairlock/airlock/policy"
)

// A call a grant in force now covers is not a grant candidate any more;
// a closed window (--until) is reported the same whatever the policy is.
func TestCandidatesLeaveOutWhatIsGranted(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "policy.yaml")
	src := "profile: default\nmode: guard\ndefault: allow\nask_fallback: allow\nrules: []\ngrants:\n  - tool: Write\n    match: /srv/data/**\n    reason: exports\n"
	if err := os.WriteFile(file, []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	p, err := policy.Load(policy.Options{Cwd: dir, Home: dir, User: "u", Tmp: "/tmp", AirlockHome: dir,
		Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	granted := GrantedBy(p, dir, "u", time.Now())
	log := entriesOf(gatedRec("Write", "write-elsewhere", "/srv/data/x.csv", "ask"),
		gatedRec("Write", "write-elsewhere", "/srv/other/y.csv", "ask"))
	s := SummarizeWith(log, Integrity{Status: audit.Intact}, Filter{}, granted)
	if len(s.GrantCandidates) != 1 || s.GrantCandidates[0].Target != "/srv/other/y.csv" {
		t.Fatalf("candidates %+v", s.GrantCandidates)
	}
	closed := Filter{Until: time.Now().Add(time.Hour)}
	if s := SummarizeWith(log, Integrity{Status: audit.Intact}, closed, granted); len(s.GrantCandidates) != 2 {
		t.Fatalf("a closed window changed with the policy: %+v", s.GrantCandidates)
	}
}

// A call a person refused when asked is not offered as a grant.
func TestCandidatesLeaveOutWhatAPersonRefused(t *testing.T) {
	refused := gatedRec("mcp__fs__write_file", "default", "/w/.github/workflows/release.yml", "ask")
	refused.Effective, refused.Asked = "block", audit.AskedHuman
	approved := gatedRec("mcp__fs__write_file", "default", "/w/CHANGELOG.md", "ask")
	approved.Effective, approved.Asked = "allow", audit.AskedHuman
	s := Summarize(entriesOf(approved, refused), Integrity{Status: audit.Intact}, Filter{})
	if len(s.GrantCandidates) != 1 || s.GrantCandidates[0].Target != "/w/CHANGELOG.md" {
		t.Fatalf("candidates %+v", s.GrantCandidates)
	}
}
