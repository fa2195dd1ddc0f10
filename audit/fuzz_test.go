package audit

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
)

var updateSeeds = flag.Bool("update-seeds", false, "rewrite testdata/fuzz/FuzzVerify seed files")

// refChain is a valid log and its checkpoint, built deterministically the
// way Append builds them.
type refChain struct {
	log, head []byte
}

var refChains = sync.OnceValue(func() []refChain {
	specs := [][]Record{
		{
			{Event: "decision", Source: "hook", Tool: "Bash", Decision: "allow", Effective: "allow"},
			{Event: "decision", Source: "hook", Tool: "Write", Decision: "block", Effective: "block", Rule: "forbid-ssh", Target: "~/.ssh/id_ed25519"},
			{Event: "outcome", Source: "hook", Tool: "Bash", Effective: "ran"},
		},
		{
			{Event: "decision", Source: "mcp", Reason: "ünïcödé <&> \u2028 \x1b[31m \u202e \"quoted\" \\ \t", Detail: "line1\nline2", ArgsDigest: ArgsDigest([]byte("{}"))},
		},
		{
			{Event: "gate_config", Source: "cli", Mode: "enforce", Detail: "profile=strict"},
			{Event: "decision", Source: "hook", Session: "s1", Tool: "WebFetch", Decision: "ask", Effective: "ask", Target: "https://example.com/x?a=1&b=2"},
			{Event: "hook_error", Source: "hook", Detail: "timeout"},
			{Event: "decision", Source: "hook", Session: "s1", Tool: "Read", Decision: "allow", Effective: "allow", Target: "/etc/passwd"},
			{Event: "outcome", Source: "hook", Session: "s1", Tool: "Read", Effective: "ran"},
		},
	}
	var out []refChain
	for ci, recs := range specs {
		var log []byte
		prev := Genesis
		all := append([]Record{{Event: EventStart, Source: recs[0].Source, Detail: StartDetail}}, recs...)
		var last Record
		for i, r := range all {
			r.Time = fmt.Sprintf("2026-11-29T10:43:%02d.%03dZ", ci, i)
			if i == 0 {
				r.Source = recs[0].Source
			}
			line, w, err := encodeRecord(r, prev)
			if err != nil {
				panic(err) // test fixture construction only
			}
			log = append(append(log, line...), '\n')
			prev, last = w.H, w
		}
		head, err := json.Marshal(Head{Count: len(all), Last: last.H, At: last.Time})
		if err != nil {
			panic(err)
		}
		out = append(out, refChain{log: log, head: append(head, '\n')})
	}
	return out
})

// fuzzSeeds are the FuzzVerify seed inputs: every reference chain as is,
// plus mutations of it. Each seed is (log, head); an empty head means no
// audit.head file.
func fuzzSeeds() [][2][]byte {
	var seeds [][2][]byte
	for _, rc := range refChains() {
		lines := bytes.SplitAfter(rc.log, []byte{'\n'})
		lines = lines[:len(lines)-1]
		mut := func(f func(b []byte) []byte) []byte { return f(bytes.Clone(rc.log)) }
		seeds = append(seeds,
			[2][]byte{rc.log, rc.head},
			[2][]byte{rc.log, nil},
			[2][]byte{mut(func(b []byte) []byte { b[len(b)/2] ^= 1; return b }), rc.head},
			[2][]byte{mut(func(b []byte) []byte { return b[:len(b)-1] }), rc.head},
			[2][]byte{mut(func(b []byte) []byte { return b[:len(b)-len(lines[len(lines)-1])] }), rc.head},
			[2][]byte{mut(func(b []byte) []byte { return bytes.Replace(b, []byte(`":"`), []byte(`": "`), 1) }), rc.head},
			[2][]byte{bytes.Join(append([][]byte{lines[1], lines[0]}, lines[2:]...), nil), rc.head},
			[2][]byte{append(bytes.Clone(rc.log), lines[0]...), rc.head},
			[2][]byte{bytes.Join(append([][]byte{lines[0]}, lines[2:]...), nil), rc.head},
			[2][]byte{[]byte("not json\n"), rc.head},
		)
	}
	seeds = append(seeds, [2][]byte{nil, nil}, [2][]byte{[]byte("{}\n"), nil})
	return seeds
}

// TestFuzzVerifySeeds keeps testdata/fuzz/FuzzVerify in step with the
// reference chains (run with -update-seeds after changing the encoding),
// so every `go test` runs FuzzVerify on valid chains and their mutations.
func TestFuzzVerifySeeds(t *testing.T) {
	dir := filepath.Join("testdata", "fuzz", "FuzzVerify")
	for i, s := range fuzzSeeds() {
		path := filepath.Join(dir, fmt.Sprintf("seed-%02d", i))
		want := []byte("go test fuzz v1\n[]byte(" + strconv.Quote(string(s[0])) + ")\n[]byte(" + strconv.Quote(string(s[1])) + ")\n")
		if *updateSeeds {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, want, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		got, err := os.ReadFile(path)
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("%s is missing or stale (%v); run go test ./audit -run TestFuzzVerifySeeds -update-seeds", path, err)
		}
	}
	// The reference chains themselves verify intact.
	for i, rc := range refChains() {
		home := t.TempDir()
		writeFile(t, filepath.Join(home, LogFile), rc.log)
		writeFile(t, filepath.Join(home, headFile), rc.head)
		rep := mustVerify(t, home)
		if rep.Status != Intact || !referenceIntact(rc.log, rc.head) {
			t.Fatalf("reference chain %d: %s", i, describe(rep))
		}
	}
}

// FuzzVerify writes arbitrary bytes as audit.jsonl (and audit.head unless
// head is empty) and verifies. Verify must not fail or panic, its report
// must be consistent, it may only say Intact when a straightforward
// implementation of the specification agrees, and it must never say Intact
// for a mutation of a reference chain checked against that chain's
// checkpoint.
func FuzzVerify(f *testing.F) {
	for _, s := range fuzzSeeds() {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, log, head []byte) {
		home := t.TempDir()
		writeFile(t, filepath.Join(home, LogFile), log)
		if len(head) > 0 {
			writeFile(t, filepath.Join(home, headFile), head)
		}
		rep, err := Verify(home)
		if err != nil {
			t.Fatalf("Verify: %v", err)
		}
		worst := Intact
		for _, p := range rep.Problems {
			if p.Severity != Broken && p.Severity != TailUnprovable {
				t.Fatalf("problem with severity %v: %+v", p.Severity, p)
			}
			if p.Severity == Broken {
				worst = Broken
			} else if worst == Intact {
				worst = TailUnprovable
			}
			if p.Line < 0 || p.Line > rep.Records+1 || p.Kind == "" {
				t.Fatalf("bad problem %+v (records %d)", p, rep.Records)
			}
			for i := 0; i < len(p.Message); i++ {
				if c := p.Message[i]; c < 0x20 || c == 0x7f {
					t.Fatalf("message contains control byte: %q", p.Message)
				}
			}
		}
		if rep.Status != worst {
			t.Fatalf("status %v but problems say %v: %s", rep.Status, worst, describe(rep))
		}
		if rep.Status != Intact {
			return
		}
		if !referenceIntact(log, head) {
			t.Fatalf("Verify says intact but the reference verifier does not:\n%q\n%q", log, head)
		}
		if n := bytes.Count(log, []byte{'\n'}); rep.Records != n {
			t.Fatalf("intact with %d records but %d lines", rep.Records, n)
		}
		for _, rc := range refChains() {
			if bytes.Equal(head, rc.head) && !bytes.Equal(log, rc.log) && !bytes.Equal(stripReserved(t, log), rc.log) {
				t.Fatalf("mutated chain verified intact:\n%q", log)
			}
		}
	})
}

// referenceIntact is the specification, written as plainly as possible with
// encoding/json only.
func referenceIntact(log, headBytes []byte) bool {
	if len(log) == 0 {
		return len(headBytes) == 0
	}
	if log[len(log)-1] != '\n' || len(headBytes) == 0 {
		return false
	}
	lines := bytes.Split(log[:len(log)-1], []byte{'\n'})
	prev := Genesis
	for _, line := range lines {
		m, err := decodeObject(line)
		if err != nil {
			return false
		}
		if full, err := json.Marshal(m); err != nil || !bytes.Equal(full, line) {
			return false
		}
		h, ok1 := m["h"].(string)
		p, ok2 := m["prev"].(string)
		if !ok1 || !ok2 || p != prev {
			return false
		}
		delete(m, "h")
		delete(m, "sig")
		delete(m, "alg")
		b, err := json.Marshal(m)
		if err != nil {
			return false
		}
		sum := sha256.Sum256(b)
		if hex.EncodeToString(sum[:]) != h {
			return false
		}
		prev = h
	}
	var head Head
	if err := json.Unmarshal(headBytes, &head); err != nil {
		return false
	}
	return head.Count == len(lines) && head.Last == prev
}

// stripReserved removes the sig/alg members (not covered by h by design)
// from every line.
func stripReserved(t *testing.T, log []byte) []byte {
	var out []byte
	for _, line := range bytes.SplitAfter(log, []byte{'\n'}) {
		if len(line) == 0 {
			continue
		}
		m, err := decodeObject(line)
		if err != nil {
			return log
		}
		delete(m, "sig")
		delete(m, "alg")
		b, err := appendCanonical(nil, m, 0)
		if err != nil {
			t.Fatal(err)
		}
		out = append(append(out, b...), '\n')
	}
	return out
}

// TestEveryByteMutationDetected flips, deletes and duplicates every byte of
// a reference chain in turn: none of the results may verify intact against
// the chain's checkpoint.
func TestEveryByteMutationDetected(t *testing.T) {
	rc := refChains()[0]
	home := t.TempDir()
	writeFile(t, filepath.Join(home, headFile), rc.head)
	mutations := map[string]func(b []byte, i int) []byte{
		"flip": func(b []byte, i int) []byte { b[i] ^= 0x01; return b },
		"delete": func(b []byte, i int) []byte {
			return append(b[:i:i], b[i+1:]...)
		},
		"duplicate": func(b []byte, i int) []byte {
			return append(b[:i+1:i+1], b[i:]...)
		},
	}
	for name, mutate := range mutations {
		for i := range rc.log {
			log := mutate(bytes.Clone(rc.log), i)
			writeFile(t, filepath.Join(home, LogFile), log)
			if rep := mustVerify(t, home); rep.Status == Intact {
				t.Fatalf("%s at byte %d verified intact:\n%q", name, i, log)
			}
		}
	}
}
