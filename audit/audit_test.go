package audit

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
)

func TestAppendVerifyIntact(t *testing.T) {
	for _, n := range []int{1, 2, 10, 250} {
		t.Run(strconv.Itoa(n), func(t *testing.T) {
			home := newLog(t, n)
			rep := mustVerify(t, home)
			requireIntact(t, rep, n+1)
			if rep.Head == nil || rep.Head.Count != n+1 {
				t.Fatalf("head = %+v, want count %d", rep.Head, n+1)
			}
		})
	}
}

func TestVerifyEmpty(t *testing.T) {
	t.Run("missing home", func(t *testing.T) {
		requireIntact(t, mustVerify(t, filepath.Join(t.TempDir(), "nope")), 0)
	})
	t.Run("opened but never appended", func(t *testing.T) {
		home := filepath.Join(t.TempDir(), "h")
		l, err := Open(home)
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		requireIntact(t, mustVerify(t, home), 0)
	})
	t.Run("empty log file", func(t *testing.T) {
		home := t.TempDir()
		writeFile(t, filepath.Join(home, LogFile), nil)
		requireIntact(t, mustVerify(t, home), 0)
	})
}

var tsPattern = regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$`)

func TestAppendReturnsWrittenRecord(t *testing.T) {
	home := filepath.Join(t.TempDir(), "h")
	l, err := Open(home)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	in := testRecord(1)
	in.Reason = "bad\xffutf8 <script> & \u2028"
	in.Prev, in.H = "ignored", "ignored"
	got, err := l.Append(in)
	if err != nil {
		t.Fatal(err)
	}
	if !tsPattern.MatchString(got.Time) {
		t.Errorf("ts %q does not look like 2026-11-29T10:43:49.123Z", got.Time)
	}
	if got.Reason != "bad\ufffdutf8 <script> & \u2028" {
		t.Errorf("reason as written = %q", got.Reason)
	}
	lines := readLines(t, home)
	if len(lines) != 2 {
		t.Fatalf("want audit_start + record, got %d lines", len(lines))
	}
	var start Record
	if err := json.Unmarshal(lines[0], &start); err != nil {
		t.Fatal(err)
	}
	if start.Event != EventStart || start.Detail != StartDetail || start.Source != "hook" || start.Prev != Genesis {
		t.Errorf("first record = %+v, want audit_start/checkpointed from hook at genesis", start)
	}
	if got.Prev != start.H {
		t.Errorf("prev = %s, want audit_start's h %s", got.Prev, start.H)
	}
	tail, err := Tail(home, 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(tail) != 1 || !reflect.DeepEqual(tail[0], got) {
		t.Errorf("Tail(1) = %+v\nwant %+v", tail, got)
	}
	// A caller-provided time is kept.
	in.Time = "2020-01-02T03:04:05.678Z"
	got2, err := l.Append(in)
	if err != nil {
		t.Fatal(err)
	}
	if got2.Time != in.Time || got2.Prev != got.H {
		t.Errorf("second record ts=%q prev=%q", got2.Time, got2.Prev)
	}
}

func TestAppendRejects(t *testing.T) {
	l, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range []Record{{Source: "hook"}, {Event: "decision"}} {
		if _, err := l.Append(r); err == nil {
			t.Errorf("Append(%+v) succeeded, want an error", r)
		}
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := l.Append(testRecord(0)); err == nil || !strings.Contains(err.Error(), "closed") {
		t.Errorf("Append after Close: %v", err)
	}
	if _, err := Open(""); err == nil {
		t.Error("Open(\"\") succeeded")
	}
}

// TestHashMatchesSpecification recomputes every h exactly as the design
// says, with encoding/json only: decode with UseNumber, delete h/sig/alg,
// json.Marshal, SHA-256. Lines must also be json.Marshal of the full map.
func TestHashMatchesSpecification(t *testing.T) {
	home := newLog(t, 20)
	for i, line := range readLines(t, home) {
		m, err := decodeObject(line)
		if err != nil {
			t.Fatal(err)
		}
		full, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		if string(full) != string(line) {
			t.Errorf("line %d is not json.Marshal of its map:\n%s\n%s", i+1, line, full)
		}
		h := m["h"].(string)
		delete(m, "h")
		b, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(b)
		if want := hex.EncodeToString(sum[:]); h != want {
			t.Errorf("line %d: h = %s, spec says %s", i+1, h, want)
		}
	}
}

// TestHashCoversEveryField changes each Record field in turn (and adds an
// unknown member) and checks that h changes. Alg and Sig are excluded from
// h by design: the signature is over h.
func TestHashCoversEveryField(t *testing.T) {
	base := testRecord(3)
	base.Time = "2026-11-29T10:43:49.123Z"
	_, b0, err := encodeRecord(base, Genesis)
	if err != nil {
		t.Fatal(err)
	}
	rt := reflect.TypeFor[Record]()
	for i := range rt.NumField() {
		f := rt.Field(i)
		if f.Name == "H" || f.Name == "Alg" || f.Name == "Sig" {
			continue
		}
		r := base
		prev := Genesis
		if f.Name == "Prev" {
			prev = strings.Repeat("1", 64)
		} else {
			reflect.ValueOf(&r).Elem().Field(i).SetString("changed")
		}
		_, b1, err := encodeRecord(r, prev)
		if err != nil {
			t.Fatal(err)
		}
		if b1.H == b0.H {
			t.Errorf("changing %s does not change h", f.Name)
		}
	}
	line, _, err := encodeRecord(base, Genesis)
	if err != nil {
		t.Fatal(err)
	}
	m, err := decodeObject(line)
	if err != nil {
		t.Fatal(err)
	}
	m["future_field"] = map[string]any{"nested": []any{json.Number("1"), true, nil}}
	h, err := hashObject(m)
	if err != nil {
		t.Fatal(err)
	}
	if h == b0.H {
		t.Error("an unknown member does not change h")
	}
	// The reserved signature members are excluded by design.
	delete(m, "future_field")
	m["sig"], m["alg"] = "c2ln", "ed25519"
	if h, _ := hashObject(m); h != b0.H {
		t.Error("sig/alg must not be covered by h")
	}
}

// TestFutureFieldsVerify: a record written by a newer version with members
// this version does not know (including reserved sig/alg) verifies, because
// Verify hashes the decoded line, not the Record struct.
func TestFutureFieldsVerify(t *testing.T) {
	home := newLog(t, 3)
	lines := readLines(t, home)
	m, err := decodeObject(lines[len(lines)-1])
	if err != nil {
		t.Fatal(err)
	}
	m["zz_new"] = []any{"x", json.Number("2.50")}
	m["policy_hash"] = "abc"
	m["sig"], m["alg"] = "c2ln", "ed25519"
	lines = append(lines, rehashMap(t, m, lastHash(t, lines)))
	writeLines(t, home, lines)
	writeHeadJSON(t, home, Head{Count: len(lines), Last: lastHash(t, lines), At: "x"})
	requireIntact(t, mustVerify(t, home), len(lines))
}

func rehashMap(t *testing.T, m map[string]any, prev string) []byte {
	t.Helper()
	m["prev"] = prev
	h, err := hashObject(m)
	if err != nil {
		t.Fatal(err)
	}
	m["h"] = h
	line, err := appendCanonical(nil, m, 0)
	if err != nil {
		t.Fatal(err)
	}
	return line
}

func TestArgsDigest(t *testing.T) {
	got := ArgsDigest([]byte(`{"command":"ls"}`))
	sum := sha256.Sum256([]byte(`{"command":"ls"}`))
	if got != hex.EncodeToString(sum[:]) || len(got) != 64 {
		t.Errorf("ArgsDigest = %q", got)
	}
}

func TestNeedSync(t *testing.T) {
	cases := []struct {
		decision, effective, env string
		want                     bool
	}{
		{"allow", "allow", "", false},
		{"block", "", "", true},
		{"allow", "ask", "", true},
		{"ask", "allow", "", true},
		{"", "ran", "", false},
		{"allow", "ran", "always", true},
		{"block", "block", "never", false},
		{"block", "", "bogus", true},
	}
	for _, c := range cases {
		if got := needSync(Record{Decision: c.decision, Effective: c.effective}, c.env); got != c.want {
			t.Errorf("needSync(%q,%q,env=%q) = %v, want %v", c.decision, c.effective, c.env, got, c.want)
		}
	}
}

func TestPermissions(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("unix permissions")
	}
	t.Run("new home", func(t *testing.T) {
		home := filepath.Join(t.TempDir(), "a", "b")
		appendRecords(t, home, 0, 2)
		wantMode(t, home, 0o700)
		for _, f := range []string{LogFile, headFile, LockFile} {
			wantMode(t, filepath.Join(home, f), 0o600)
		}
	})
	t.Run("existing loose home and files", func(t *testing.T) {
		home := filepath.Join(t.TempDir(), "loose")
		if err := os.Mkdir(home, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(home, 0o755); err != nil { // defeat umask
			t.Fatal(err)
		}
		for _, f := range []string{LogFile, LockFile} {
			if err := os.WriteFile(filepath.Join(home, f), nil, 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(filepath.Join(home, f), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		appendRecords(t, home, 0, 1)
		wantMode(t, home, 0o755) // user directory left alone
		for _, f := range []string{LogFile, headFile, LockFile} {
			wantMode(t, filepath.Join(home, f), 0o600)
		}
	})
}

func wantMode(t *testing.T, path string, want os.FileMode) {
	t.Helper()
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := st.Mode().Perm(); got != want {
		t.Errorf("%s: mode %o, want %o", filepath.Base(path), got, want)
	}
}

func TestTail(t *testing.T) {
	home := newLog(t, 30)
	all, err := Tail(home, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != 31 || all[0].Event != EventStart || all[30].Reason != "reason number 29" {
		t.Fatalf("Tail(0): %d records, first %q, last %q", len(all), all[0].Event, all[len(all)-1].Reason)
	}
	for _, n := range []int{1, 3, 30, 31, 100} {
		got, err := Tail(home, n)
		if err != nil {
			t.Fatal(err)
		}
		want := all[max(0, len(all)-n):]
		if !reflect.DeepEqual(got, want) {
			t.Errorf("Tail(%d) = %d records, want the last %d oldest first", n, len(got), len(want))
		}
	}
	// A partial last line is skipped; a malformed line is shown as such.
	lines := readLines(t, home)
	lines[29] = []byte("garbage\x1b[2J")
	writeLines(t, home, lines)
	appendRaw(t, home, []byte(`{"event":"dec`))
	got, err := Tail(home, 3)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 || got[1].Event != EventMalformed || got[1].Detail != "garbage\x1b[2J" || got[2].Reason != "reason number 29" {
		t.Errorf("Tail(3) after damage = %+v", got)
	}
	none, err := Tail(filepath.Join(t.TempDir(), "missing"), 5)
	if err != nil || len(none) != 0 {
		t.Errorf("Tail of missing log = %v, %v", none, err)
	}
}

func TestTailLongLines(t *testing.T) {
	home := filepath.Join(t.TempDir(), "h")
	l, err := Open(home)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	for i := range 5 {
		r := testRecord(i)
		r.Detail = strings.Repeat(strconv.Itoa(i), 200<<10) // longer than a read chunk
		if _, err := l.Append(r); err != nil {
			t.Fatal(err)
		}
	}
	got, err := Tail(home, 2)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Detail[0] != '3' || got[1].Detail[0] != '4' || len(got[1].Detail) != 200<<10 {
		t.Fatalf("Tail(2) of long lines: %d records", len(got))
	}
	requireIntact(t, mustVerify(t, home), 6)
}

// TestConcurrentAppend: 8 goroutines, each with its own Log (so the lock,
// not the mutex, serialises them), 200 appends each.
func TestConcurrentAppend(t *testing.T) {
	for _, shared := range []bool{false, true} {
		t.Run(fmt.Sprintf("shared=%v", shared), func(t *testing.T) {
			home := filepath.Join(t.TempDir(), "h")
			var sharedLog *Log
			if shared {
				var err error
				if sharedLog, err = Open(home); err != nil {
					t.Fatal(err)
				}
				defer sharedLog.Close()
			}
			const workers, each = 8, 200
			var wg sync.WaitGroup
			errs := make(chan error, workers)
			for w := range workers {
				wg.Go(func() {
					l := sharedLog
					if l == nil {
						var err error
						if l, err = Open(home); err != nil {
							errs <- err
							return
						}
						defer l.Close()
					}
					for i := range each {
						if _, err := l.Append(testRecord(w*1000 + i)); err != nil {
							errs <- err
							return
						}
					}
				})
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				t.Fatal(err)
			}
			rep := mustVerify(t, home)
			requireIntact(t, rep, workers*each+1)
			if rep.Head.Count != workers*each+1 {
				t.Fatalf("head count %d", rep.Head.Count)
			}
		})
	}
}

const helperEnv = "AIRLOCK_AUDIT_TEST_HELPER_HOME"

// TestHelperAppender is not a test: TestCrossProcessAppend runs the test
// binary as child processes that execute it.
func TestHelperAppender(t *testing.T) {
	home := os.Getenv(helperEnv)
	if home == "" {
		t.Skip("helper process for TestCrossProcessAppend")
	}
	id, err := strconv.Atoi(os.Getenv(helperEnv + "_ID"))
	if err != nil {
		t.Fatal(err)
	}
	n, err := strconv.Atoi(os.Getenv(helperEnv + "_N"))
	if err != nil {
		t.Fatal(err)
	}
	// With _HELD=mixed, odd children append through one Log that holds
	// its files open, like the MCP proxy, while the others rotate them.
	held := os.Getenv(helperEnv+"_HELD") == "mixed" && id%2 == 1
	var l *Log
	for i := range n {
		// One Open per append, like a short-lived airlock-hook process.
		if l == nil {
			if l, err = Open(home); err != nil {
				t.Fatal(err)
			}
		}
		r := testRecord(id*1000 + i)
		r.Source = "hook-" + strconv.Itoa(id)
		if i%50 == 0 {
			r.Decision = "block" // exercise the fsync path too
		}
		if _, err := l.Append(r); err != nil {
			t.Fatal(err)
		}
		if !held {
			if err := l.Close(); err != nil {
				t.Fatal(err)
			}
			l = nil
		}
	}
	if l != nil {
		if err := l.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

// TestCrossProcessAppend is the real cross-process lock test: 8 processes
// append 200 records each to one home at the same time.
func TestCrossProcessAppend(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns processes")
	}
	home := filepath.Join(t.TempDir(), "h")
	const procs, each = 8, 200
	cmds := make([]*exec.Cmd, procs)
	outs := make([]*strings.Builder, procs)
	for p := range procs {
		cmd := exec.Command(os.Args[0], "-test.run=^TestHelperAppender$", "-test.count=1")
		cmd.Env = append(os.Environ(),
			helperEnv+"="+home,
			helperEnv+"_ID="+strconv.Itoa(p),
			helperEnv+"_N="+strconv.Itoa(each),
			FsyncEnv+"=",
		)
		outs[p] = new(strings.Builder)
		cmd.Stdout, cmd.Stderr = outs[p], outs[p]
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds[p] = cmd
	}
	for p, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Errorf("child %d: %v\n%s", p, err, outs[p])
		}
	}
	if t.Failed() {
		t.FailNow()
	}
	rep := mustVerify(t, home)
	requireIntact(t, rep, procs*each+1)
	if rep.Head.Count != procs*each+1 {
		t.Fatalf("head count %d, want %d", rep.Head.Count, procs*each+1)
	}
	// Every child's records are all there, in its own order.
	recs, err := Tail(home, 0)
	if err != nil {
		t.Fatal(err)
	}
	next := map[string]int{}
	for i, r := range recs[1:] {
		if r.Time < recs[i].Time {
			t.Errorf("record %d: ts %s before the previous record's %s", i+2, r.Time, recs[i].Time)
		}
		id, _ := strconv.Atoi(strings.TrimPrefix(r.Source, "hook-"))
		want := fmt.Sprintf("reason number %d", id*1000+next[r.Source])
		if r.Reason != want {
			t.Fatalf("%s: got %q, want %q", r.Source, r.Reason, want)
		}
		next[r.Source]++
	}
	for p := range procs {
		if got := next["hook-"+strconv.Itoa(p)]; got != each {
			t.Errorf("child %d wrote %d records, want %d", p, got, each)
		}
	}
}

// TestVerifyWhileAppending: Verify snapshots under the lock, so it never
// sees a half-finished append or a checkpoint ahead of the log.
func TestVerifyWhileAppending(t *testing.T) {
	home := newLog(t, 1)
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for w := range 4 {
		wg.Go(func() {
			l, err := Open(home)
			if err != nil {
				t.Error(err)
				return
			}
			defer l.Close()
			// Bounded: without a cap the writers outran 50 verifies of an
			// ever longer log (300,000 records, three minutes under -race).
			for i := 0; i < 5000; i++ {
				select {
				case <-stop:
					return
				default:
				}
				if _, err := l.Append(testRecord(w*100000 + i)); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	for range 50 {
		rep := mustVerify(t, home)
		if rep.Status != Intact {
			close(stop)
			wg.Wait()
			t.Fatalf("Verify during appends: %s", describe(rep))
		}
	}
	close(stop)
	wg.Wait()
	// Fast appenders may have rotated the log: the records are the
	// rotated segments' (as the ledger counts them) and the live file's.
	rep := mustVerify(t, home)
	li, err := readLedger(home)
	if err != nil {
		t.Fatal(err)
	}
	requireIntact(t, rep, int(ledgerTotal(li.entries, rep.Head.Segments))+rep.Head.Count)
}

// TestCheckpointErrorIsReported: a checkpoint that cannot be read or
// replaced is an error the caller sees, never silently skipped.
func TestCheckpointErrorIsReported(t *testing.T) {
	home := newLog(t, 1)
	l, err := Open(home)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	// a non-empty directory where the checkpoint belongs: the rename that
	// replaces it fails for every user, root included
	head := filepath.Join(home, headFile)
	if err := os.Remove(head); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(head, "blocker"), 0o700); err != nil {
		t.Fatal(err)
	}
	_, err = l.Append(testRecord(5))
	if err == nil || !strings.Contains(err.Error(), headFile) {
		t.Fatalf("Append with an unusable checkpoint did not report it: %v", err)
	}
}

func TestReadLastLine(t *testing.T) {
	for _, size := range []int{0, 1, 100, 4094, 4095, 4096, 4097, 20000, 300000} {
		t.Run(strconv.Itoa(size), func(t *testing.T) {
			last := strings.Repeat("x", size)
			for _, prefix := range []string{"", "first line\n", strings.Repeat("y", 5000) + "\n"} {
				path := filepath.Join(t.TempDir(), "f")
				writeFile(t, path, []byte(prefix+last+"\n"))
				f, err := os.Open(path)
				if err != nil {
					t.Fatal(err)
				}
				st, _ := f.Stat()
				got, complete, err := readLastLine(f, st.Size())
				f.Close()
				if err != nil || !complete || string(got) != last {
					t.Fatalf("prefix %d bytes: got %d bytes complete=%v err=%v", len(prefix), len(got), complete, err)
				}
			}
		})
	}
}

// TestAppendFastPath: with a consistent checkpoint, appends plan from
// audit.head and the last line only, without the recovery path, even when
// the last line is long.
func TestAppendFastPath(t *testing.T) {
	home := filepath.Join(t.TempDir(), "h")
	l, err := Open(home)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	for i, detail := range []string{"short", strings.Repeat("d", 10000), strings.Repeat("e", 300000), "short"} {
		r := testRecord(i)
		r.Detail = detail
		if _, err := l.Append(r); err != nil {
			t.Fatal(err)
		}
		head, err := readHead(home)
		if err != nil {
			t.Fatal(err)
		}
		f, err := os.Open(filepath.Join(home, LogFile))
		if err != nil {
			t.Fatal(err)
		}
		st, _ := f.Stat()
		p, err := planAppend(f, st.Size(), head, nil, nil)
		f.Close()
		if err != nil || p.recovery || len(p.prefix) != 0 || p.prev != head.Last || p.count != head.Count {
			t.Fatalf("after record %d: plan %+v, err %v, head %+v", i, p, err, head)
		}
	}
}

func TestAppendAllChainsInOrder(t *testing.T) {
	home := t.TempDir()
	l, err := Open(home)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if _, err := l.Append(Record{Event: "decision", Source: "hook", Tool: "Read"}); err != nil {
		t.Fatal(err)
	}
	var batch []Record
	for i := 0; i < 5; i++ {
		batch = append(batch, Record{Event: "decision", Source: "mcp", Tool: fmt.Sprintf("mcp__x__t%d", i)})
	}
	out, err := l.AppendAll(batch)
	if err != nil {
		t.Fatal(err)
	}
	if len(out) != 5 || out[1].Prev != out[0].H || out[4].Tool != "mcp__x__t4" {
		t.Fatalf("batch not chained in order: %+v", out)
	}
	rep, err := Verify(home)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Status != Intact || rep.Records != 7 {
		t.Fatalf("verify after AppendAll: status %v, %d records, problems %v", rep.Status, rep.Records, rep.Problems)
	}
}
