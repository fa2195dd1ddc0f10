package gate

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentairlock/airlock/audit"
	airlockhome "github.com/agentairlock/airlock/internal/home"
	"github.com/agentairlock/airlock/policy"
)

// A gate_config record is written when, and only when, the gate in force
// changes: another policy file, another mode, a weakening variable.
func TestRecordConfigOnChangeOnly(t *testing.T) {
	home := t.TempDir()
	log, err := audit.Open(home)
	if err != nil {
		t.Fatal(err)
	}
	defer log.Close()
	p, err := policy.LoadProfile("default", policy.Vars{Home: "/home/dev"})
	if err != nil {
		t.Fatal(err)
	}
	env := map[string]string{}
	genv := airlockhome.Env{Getenv: func(k string) string { return env[k] }}
	steps := []struct {
		set    func()
		record bool
	}{
		{func() {}, true},  // first sight
		{func() {}, false}, // the same gate
		{func() { env["AIRLOCK_MODE"] = "observe" }, true},
		{func() {}, false},
		{func() { env["AIRLOCK_FAIL_OPEN"] = "1" }, true},
		{func() { delete(env, "AIRLOCK_FAIL_OPEN"); delete(env, "AIRLOCK_MODE") }, true},
	}
	want := 0
	for i, st := range steps {
		st.set()
		if err := RecordConfig(log, home, "s", ConfigOf("hook", p, genv)); err != nil {
			t.Fatal(err)
		}
		if st.record {
			want++
		}
		recs, err := audit.Tail(home, 100)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, r := range recs {
			if r.Event == "gate_config" {
				n++
				if i == 2 && r == recs[len(recs)-1] && !strings.Contains(r.Detail, "AIRLOCK_MODE=observe") {
					t.Errorf("the record does not say what changed: %q", r.Detail)
				}
			}
		}
		if n != want {
			t.Fatalf("step %d: %d gate_config records, want %d", i, n, want)
		}
	}
	// another policy file is another gate
	c := ConfigOf("hook", p, genv, FileDigest("contracts", filepath.Join(home, "contracts.yaml")))
	if c.Fingerprint() == ConfigOf("hook", p, genv).Fingerprint() {
		t.Fatal("a further file does not change the fingerprint")
	}
}
