package gate

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/agentairlock/airlock/audit"
	"github.com/agentairlock/airlock/policy"
)

// failingLog refuses every record with err, as a full disk or a home
// another user owns does.
type failingLog struct{ err error }

func (f failingLog) Append(r audit.Record) (audit.Record, error) { return audit.Record{}, f.err }

// TestDecideRefusesWhatItCannotRecord: one rule for every front end — a
// decision whose record was not written refuses the call, an allow
// included, and the refusal names the cause and the fix; written but not
// checkpointed (or not anchored) is recorded, not refused; and
// AIRLOCK_FAIL_OPEN=1 lets the call through and says so.
func TestDecideRefusesWhatItCannotRecord(t *testing.T) {
	wrap := func(err error) error {
		return fmt.Errorf("audit: append: write log: %w", &fs.PathError{Op: "write", Path: "/h/audit.jsonl", Err: err})
	}
	cases := []struct {
		name     string
		err      error
		failOpen bool
		want     policy.Action
		says     []string // in the refusal's reason, or the note when let through
	}{
		{"disk full", wrap(syscall.ENOSPC), false, policy.Block, []string{"disk is full", "ENOSPC", "free space", "AIRLOCK_FAIL_OPEN=1", "audit.jsonl"}},
		{"quota", wrap(syscall.EDQUOT), false, policy.Block, []string{"quota"}},
		{"permission", wrap(syscall.EACCES), false, policy.Block, []string{"permission denied", "chmod"}},
		{"read-only", wrap(syscall.EROFS), false, policy.Block, []string{"read-only", "AIRLOCK_HOME"}},
		{"unknown", wrap(syscall.EIO), false, policy.Block, []string{"cannot be written", "airlock doctor"}},
		{"not checkpointed", fmt.Errorf("%w: %w", audit.ErrCheckpoint, wrap(syscall.ENOSPC)), false, policy.Allow, nil},
		{"not anchored", fmt.Errorf("%w: %w", audit.ErrAnchor, wrap(syscall.EACCES)), false, policy.Allow, nil},
		{"fail open", wrap(syscall.ENOSPC), true, policy.Allow, []string{"let through because AIRLOCK_FAIL_OPEN=1", "disk is full"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			g, fx := fixtureGate(t, "")
			g.Log = failingLog{c.err}
			getenv := g.Env.Getenv
			g.Env.Getenv = func(k string) string {
				if k == FailOpenEnv && c.failOpen {
					return "1"
				}
				return getenv(k)
			}
			res := g.Decide(Call{Source: "hook", Tool: "Read", Input: []byte(fmt.Sprintf(`{"file_path":%q}`, filepath.Join(fx.WS, "main.go"))), Cwd: fx.WS, Attended: true})
			if res.Effective != c.want {
				t.Fatalf("effective %v, want %v (decision %+v)", res.Effective, c.want, res.Decision)
			}
			if res.AuditErr == nil {
				t.Fatal("AuditErr not set")
			}
			text := res.Decision.Reason
			if c.failOpen {
				text = res.Note
				if !res.FailedOpen() {
					t.Error("FailedOpen() false for a call let through unrecorded")
				}
			}
			if c.want == policy.Block && (res.Decision.Rule != ruleUnrecorded || res.Decision.Source != policy.FromError) {
				t.Errorf("refusal rule %q source %q, want %q from error", res.Decision.Rule, res.Decision.Source, ruleUnrecorded)
			}
			for _, s := range c.says {
				if !strings.Contains(text, s) {
					t.Errorf("%q lacks %q", text, s)
				}
			}
		})
	}
}

// TestDecideRefusesUnwritableHome: the rule meets a real append error, not
// only a crafted one (a home whose log is a directory).
func TestDecideRefusesUnwritableHome(t *testing.T) {
	g, fx := fixtureGate(t, "")
	if err := os.MkdirAll(filepath.Join(fx.AirlockHome, audit.LogFile), 0o700); err != nil {
		t.Fatal(err)
	}
	l, err := audit.Open(fx.AirlockHome)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	g.Log = l
	res := g.Decide(Call{Source: "hook", Tool: "Read", Input: []byte(fmt.Sprintf(`{"file_path":%q}`, filepath.Join(fx.WS, "main.go"))), Cwd: fx.WS, Attended: true})
	if res.Effective != policy.Block || res.Decision.Rule != ruleUnrecorded {
		t.Fatalf("a call whose record failed was %v (%+v, audit error %v)", res.Effective, res.Decision, res.AuditErr)
	}
}
