package doctor

import (
	"strings"
	"testing"
)

// TestDoctorReportsAWiringWithoutPostToolUseFailure: a wiring made before
// init wired PostToolUseFailure still gates every call, but the runs that
// fail leave no outcome record: doctor says so (a warning, not a failure:
// enforcement is whole) and names the fix; init's wiring today is ok.
func TestDoctorReportsAWiringWithoutPostToolUseFailure(t *testing.T) {
	cases := []struct {
		name     string
		settings func(e *docEnv) string
		want     Status
		detail   string
	}{
		{"as init wires it", func(e *docEnv) string { return e.wired("", "") }, OK, "PostToolUseFailure"},
		{"an old wiring", func(e *docEnv) string { return e.oldWired() }, warn, "PostToolUseFailure does not run airlock-hook"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := newDocEnv(t)
			writeFile(t, e.settings(), c.settings(e), 0o600)
			r := e.run(t)
			got := check(t, r, "Claude Code hook")
			if got.Status != c.want || !strings.Contains(got.Detail, c.detail) {
				t.Fatalf("hook check %s %q; want %s saying %q", got.Status, got.Detail, c.want, c.detail)
			}
			if c.want == warn && !strings.Contains(got.Fix, "airlock doctor --fix") {
				t.Errorf("no fix named: %+v", got)
			}
			if !r.Enforcing() {
				t.Errorf("not enforcing: %+v", r.Checks)
			}
		})
	}
}
