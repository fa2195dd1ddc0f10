package audit

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// anchorChain builds n real records (1-based hAt) and returns their lines.
func anchorChain(t *testing.T, n int, edit func(i int, r *Record)) [][]byte {
	t.Helper()
	prev := Genesis
	var lines [][]byte
	for i := 1; i <= n; i++ {
		r := Record{Time: "2026-11-29T10:43:49.123Z", Event: "decision", Source: "hook", Tool: "Bash", Detail: fmt.Sprint("call ", i)}
		if edit != nil {
			edit(i, &r)
		}
		line, out, err := encodeRecord(r, prev)
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, line)
		prev = out.H
	}
	return lines
}

// anchorLineH returns the h member of a canonical record line.
func anchorLineH(line []byte) string {
	m, err := decodeObject(line)
	if err != nil {
		return ""
	}
	h, _ := m["h"].(string)
	return h
}

// anchorHAt is what Verify builds while streaming the log: the h of each
// record by count.
func anchorHAt(lines [][]byte) func(int64) (string, bool) {
	return func(c int64) (string, bool) {
		if c < 1 || c > int64(len(lines)) {
			return "", false
		}
		return anchorLineH(lines[c-1]), true
	}
}

func anchorAppend(t *testing.T, dir, home string, count int64, lines [][]byte) {
	t.Helper()
	if err := appendAnchor(dir, home, count, anchorLineH(lines[count-1]), time.Date(2026, 11, 29, 10, 0, int(count), 0, time.UTC)); err != nil {
		t.Fatal(err)
	}
}

func anchorRead(t *testing.T, dir, home string) ([]Anchor, []anchorProblem) {
	t.Helper()
	as, ps, err := readAnchors(dir, home)
	if err != nil {
		t.Fatal(err)
	}
	return as, ps
}

func TestAnchorAppendReadAndCheck(t *testing.T) {
	dir := t.TempDir()
	lines := anchorChain(t, 30, nil)
	other := anchorChain(t, 5, func(i int, r *Record) { r.Source = "mcp" })
	if as, ps := anchorRead(t, dir, "home-a"); len(as) != 0 || len(ps) != 0 {
		t.Fatalf("no anchor file: %v %v", as, ps)
	}
	anchorAppend(t, dir, "home-a", 10, lines)
	anchorAppend(t, dir, "home-b", 5, other)
	anchorAppend(t, dir, "home-a", 20, lines)
	anchorAppend(t, dir, "home-a", 30, lines)
	as, ps := anchorRead(t, dir, "home-a")
	if len(ps) != 0 {
		t.Fatalf("intact anchor file has problems: %v", ps)
	}
	var counts []int64
	for _, a := range as {
		counts = append(counts, a.Count)
	}
	if fmt.Sprint(counts) != "[10 20 30]" || as[1].Line != 3 {
		t.Fatalf("anchors of home-a: counts %v, second on line %d; want [10 20 30], line 3", counts, as[1].Line)
	}
	if p := checkAgainstAnchors(as, anchorHAt(lines)); len(p) != 0 {
		t.Fatalf("the anchored log itself contradicts its anchors: %v", p)
	}
	if want := AnchoredCounts(as); !want[20] || want[21] || len(want) != 3 {
		t.Fatalf("AnchoredCounts = %v", want)
	}
	// Every line is canonical: one more way an edit shows.
	data, _ := os.ReadFile(filepath.Join(dir, anchorFile))
	for _, l := range bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n")) {
		var p canonParser
		var f lineFields
		if err := p.parseCanonical(l, &f); err != nil {
			t.Fatalf("anchor line not canonical: %s", l)
		}
	}
	if runtime.GOOS != "windows" {
		st, _ := os.Stat(filepath.Join(dir, anchorFile))
		if st.Mode().Perm() != 0o600 {
			t.Fatalf("anchor file mode %04o", st.Mode().Perm())
		}
	}
}

// What the anchors exist for: the log has been changed in a way its own
// chain (and signatures, for someone holding the key) cannot show.
func TestAnchorDetectsLogChanges(t *testing.T) {
	lines := anchorChain(t, 30, nil)
	recomputed := anchorChain(t, 30, func(i int, r *Record) {
		if i == 15 {
			r.Decision = "allow" // rewrite history, then recompute every h after it
		}
	})
	for _, tc := range []struct {
		name   string
		log    [][]byte
		counts []int64
		want   []string // substrings, one per expected message
	}{
		{"intact", lines, []int64{10, 20, 30}, nil},
		{"log longer than anchors", lines, []int64{10}, nil},
		{"truncated", lines[:25], []int64{10, 20, 30}, []string{"30 records, but the log has fewer"}},
		{"deleted entirely", nil, []int64{10}, []string{"fewer"}},
		{"recomputed chain", recomputed, []int64{10, 20, 30}, []string{"record 20", "record 30"}},
		{"rolled back and regrown", lines, []int64{20, 10}, []string{"rolled back"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			for _, c := range tc.counts {
				anchorAppend(t, dir, "h", c, lines)
			}
			as, ps := anchorRead(t, dir, "h")
			if len(ps) != 0 {
				t.Fatal(ps)
			}
			got := checkAgainstAnchors(as, anchorHAt(tc.log))
			if len(got) != len(tc.want) {
				t.Fatalf("got %d findings %q, want %d", len(got), got, len(tc.want))
			}
			for i, w := range tc.want {
				if !strings.Contains(got[i], w) {
					t.Errorf("finding %q does not contain %q", got[i], w)
				}
			}
		})
	}
}

// The anchor file is a hash chain of its own.
func TestAnchorFileTamperingDetected(t *testing.T) {
	lines := anchorChain(t, 40, nil)
	for _, tc := range []struct {
		name   string
		tamper func(ls []string) []string
		want   []string // "line N: substring"
	}{
		{"edited count", func(ls []string) []string {
			ls[1] = strings.Replace(ls[1], `"count":20`, `"count":19`, 1)
			return ls
		}, []string{"line 2: edited"}},
		{"edited other home's line", func(ls []string) []string {
			ls[2] = strings.Replace(ls[2], `"count":5`, `"count":6`, 1)
			return ls
		}, []string{"line 3: edited"}},
		{"re-encoded", func(ls []string) []string {
			ls[0] = strings.Replace(ls[0], `,"count"`, `, "count"`, 1)
			return ls
		}, []string{"line 1: re-encoded"}},
		{"deleted line", func(ls []string) []string {
			return append(ls[:1], ls[2:]...)
		}, []string{"line 2: does not chain"}},
		{"swapped lines", func(ls []string) []string {
			ls[0], ls[1] = ls[1], ls[0]
			return ls
		}, []string{"line 1: does not chain", "line 2: does not chain", "line 3: does not chain"}},
		{"garbage line", func(ls []string) []string {
			return append(ls[:1], append([]string{"not json"}, ls[1:]...)...)
		}, []string{"line 2: malformed"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			anchorAppend(t, dir, "h", 10, lines)
			anchorAppend(t, dir, "h", 20, lines)
			anchorAppend(t, dir, "other", 5, lines)
			anchorAppend(t, dir, "h", 30, lines)
			path := filepath.Join(dir, anchorFile)
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			ls := tc.tamper(strings.Split(strings.TrimSuffix(string(data), "\n"), "\n"))
			if err := os.WriteFile(path, []byte(strings.Join(ls, "\n")+"\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			_, ps := anchorRead(t, dir, "h")
			if len(ps) != len(tc.want) {
				t.Fatalf("got %d problems %v, want %d", len(ps), ps, len(tc.want))
			}
			for i, w := range tc.want {
				line, sub, _ := strings.Cut(w, ": ")
				if got := fmt.Sprintf("line %d", ps[i].Line); got != line || !strings.Contains(ps[i].Message, sub) {
					t.Errorf("problem %d = line %d %q, want %s containing %q", i, ps[i].Line, ps[i].Message, line, sub)
				}
			}
		})
	}
}

// A writer killed mid-line leaves a torn line: the next append terminates
// it and chains past it, and the torn line stays reported.
func TestAnchorTornLineKeptAndChainedPast(t *testing.T) {
	dir := t.TempDir()
	lines := anchorChain(t, 20, nil)
	anchorAppend(t, dir, "h", 10, lines)
	f, err := os.OpenFile(filepath.Join(dir, anchorFile), os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(`{"at":"2026`); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if _, ps := anchorRead(t, dir, "h"); len(ps) != 1 || ps[0].Line != 2 || !strings.Contains(ps[0].Message, "torn") {
		t.Fatalf("torn tail: %v", ps)
	}
	anchorAppend(t, dir, "h", 20, lines)
	as, ps := anchorRead(t, dir, "h")
	if len(ps) != 1 || ps[0].Line != 2 || !strings.Contains(ps[0].Message, "malformed") {
		t.Fatalf("after append: %v", ps)
	}
	if len(as) != 2 || as[1].Line != 3 {
		t.Fatalf("anchors after a torn line: %+v", as)
	}
}

func TestAnchorConcurrentAppendsKeepOneChain(t *testing.T) {
	dir := t.TempDir()
	lines := anchorChain(t, 1, nil)
	const workers, each = 8, 10
	var wg sync.WaitGroup
	errs := make(chan error, workers*each)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range each {
				errs <- appendAnchor(dir, fmt.Sprint("home-", w), 1, anchorLineH(lines[0]), time.Now())
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	for w := range workers {
		as, ps := anchorRead(t, dir, fmt.Sprint("home-", w))
		if len(ps) != 0 || len(as) != each {
			t.Fatalf("home-%d: %d anchors, problems %v", w, len(as), ps)
		}
	}
}

func TestAnchorAppendRejectsBadInput(t *testing.T) {
	dir := t.TempDir()
	h := signTestH(1)
	for _, tc := range []struct {
		name, home string
		count      int64
		last       string
	}{
		{"no home", "", 1, h},
		{"zero count", "h", 0, h},
		{"bad last", "h", 1, "abc"},
	} {
		if err := appendAnchor(dir, tc.home, tc.count, tc.last, time.Now()); err == nil {
			t.Errorf("%s: accepted", tc.name)
		}
	}
	if err := appendAnchor(filepath.Join(dir, "missing"), "h", 1, h, time.Now()); err == nil || !strings.Contains(err.Error(), AnchorDirEnv) {
		t.Errorf("missing directory: %v", err)
	}
}

func TestAnchorDue(t *testing.T) {
	for _, tc := range []struct {
		count, last int64
		want        bool
	}{
		{1, 0, false},
		{anchorEvery - 1, 0, false},
		{anchorEvery, 0, true},
		{anchorEvery + 5, anchorEvery - 3, true}, // a batch that crossed the boundary
		{anchorEvery + 5, anchorEvery, false},
		{2 * anchorEvery, anchorEvery, true},
		{3 * anchorEvery, anchorEvery, true}, // a missed anchor is caught up
		{anchorEvery, anchorEvery, false},
		{5, 2 * anchorEvery, false}, // never for a count that went backwards
	} {
		if got := AnchorDue(tc.count, tc.last); got != tc.want {
			t.Errorf("AnchorDue(%d, %d) = %v, want %v", tc.count, tc.last, got, tc.want)
		}
	}
}

func TestHomeIDStableAndDistinct(t *testing.T) {
	root := t.TempDir()
	a, b := filepath.Join(root, "a"), filepath.Join(root, "b")
	for _, d := range []string{a, b} {
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	const n = 16
	ids := make([]string, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() { defer wg.Done(); ids[i], errs[i] = HomeID(a) }()
	}
	wg.Wait()
	for i := range n {
		if errs[i] != nil || ids[i] != ids[0] || !isHexDigest(ids[i]) {
			t.Fatalf("HomeID #%d = %q, %v; want %q", i, ids[i], errs[i], ids[0])
		}
	}
	if again, _ := HomeID(a + string(filepath.Separator) + "."); again != ids[0] {
		t.Fatal("HomeID depends on how the path is spelled")
	}
	if idB, _ := HomeID(b); idB == ids[0] {
		t.Fatal("two homes share an id")
	}
	if runtime.GOOS != "windows" {
		st, err := os.Stat(filepath.Join(a, installIDFile))
		if err != nil || st.Mode().Perm() != 0o600 {
			t.Fatalf("install.id: %v, %v", st, err)
		}
	}
	// A copy of the home at another path, install.id and all, is another home.
	if err := os.Mkdir(filepath.Join(root, "copy"), 0o700); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(filepath.Join(a, installIDFile))
	if err := os.WriteFile(filepath.Join(root, "copy", installIDFile), data, 0o600); err != nil {
		t.Fatal(err)
	}
	if idCopy, _ := HomeID(filepath.Join(root, "copy")); idCopy == ids[0] {
		t.Fatal("a copied home has the original's id")
	}
	if err := os.WriteFile(filepath.Join(a, installIDFile), []byte("short\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := HomeID(a); err == nil || !strings.Contains(err.Error(), installIDFile) {
		t.Fatalf("malformed install.id: %v", err)
	}
}
