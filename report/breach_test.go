package report

import (
	"bytes"
	"strings"
	"testing"
)

func TestBreachSimulationGradesEachSessionExactly(t *testing.T) {
	entries, err := Collect(SimulatedIncident(), Filter{})
	if err != nil {
		t.Fatal(err)
	}
	b := Analyze(entries, Integrity{Simulated: true}, Filter{})
	want := map[string]Grade{"sim-poisoned": confirmed, "sim-ssh": probable, "sim-dotenv": possible}
	got := map[string]Grade{}
	for _, f := range b.Findings {
		if _, dup := got[f.Session]; dup {
			t.Errorf("session %s graded twice", f.Session)
		}
		got[f.Session] = f.Grade
	}
	for s, g := range want {
		if got[s] != g {
			t.Errorf("session %s graded %v, want %v", s, got[s], g)
		}
	}
	for _, s := range []string{"sim-noise", "sim-attempt"} {
		if g, ok := got[s]; ok {
			t.Errorf("session %s graded %v, want no finding", s, g)
		}
	}
	if len(b.Attempts) != 1 || b.Attempts[0].Session != "sim-attempt" {
		t.Errorf("attempts = %+v, want the blocked SSH read alone", b.Attempts)
	}
	var out bytes.Buffer
	if err := b.Text(&out); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"CONFIRMED", "PROBABLE", "POSSIBLE", "AWS keys in ~/.aws", "SSH keys in ~/.ssh", Coverage, "staging"} {
		if !strings.Contains(out.String(), s) {
			t.Errorf("simulation output lacks %q:\n%s", s, out.String())
		}
	}
	rot := b.Rotations()
	if len(rot) != 3 || rot[0].Grade != confirmed || rot[1].Grade != probable || rot[2].Grade != possible {
		t.Errorf("rotations = %+v, want AWS CONFIRMED, SSH PROBABLE, .env POSSIBLE (the blocked SSH read leaked nothing)", rot)
	}
}
