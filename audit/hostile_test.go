//go:build unix

package audit

// Hostile homes: files planted or replaced by someone who can write
// $AIRLOCK_HOME. Each TestHostile… guards a hole found in review and
// closed (a FIFO or /dev/zero where a file should be, a deleted install.id
// hiding anchors, stripped signatures verified without a key, a torn
// signed ledger line); each TestHostileOK… is a suspicion that was ruled
// out, kept so it stays that way.

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// verifyWithin runs VerifyWith in a goroutine and reports whether it
// returned within d. unblock is called after a timeout so the goroutine
// can finish (and the test does not leak it).
func verifyWithin(t *testing.T, home string, getenv func(string) string, d time.Duration, unblock func()) (*Report, error, bool) {
	t.Helper()
	type res struct {
		rep *Report
		err error
	}
	ch := make(chan res, 1)
	go func() {
		rep, err := VerifyWith(home, VerifyOptions{Getenv: getenv})
		ch <- res{rep, err}
	}()
	select {
	case r := <-ch:
		return r.rep, r.err, true
	case <-time.After(d):
		if unblock != nil {
			unblock()
		}
		select {
		case <-ch:
		case <-time.After(5 * time.Second):
		}
		return nil, nil, false
	}
}

// unblockFIFO opens a FIFO for writing (non-blocking: a reader is waiting)
// and closes it, so a blocked open-for-read returns and then reads EOF.
func unblockFIFO(path string) func() {
	return func() {
		if f, err := os.OpenFile(path, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			f.Close()
		}
	}
}

// --- hostile files: hangs ---

// A FIFO named like a segment hangs Verify forever (os.Open of a FIFO
// blocks until a writer appears). Records and Tail hang the same way.
func TestHostileVerifyHangsOnFIFOSegment(t *testing.T) {
	home := newLog(t, 3)
	fifo := filepath.Join(home, "audit-20000101T000000.000000000Z-000001.jsonl")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("mkfifo:", err)
	}
	rep, err, done := verifyWithin(t, home, signEnv(), 3*time.Second, unblockFIFO(fifo))
	if !done {
		t.Fatalf("Verify hung on a FIFO planted as a segment (%s): it must refuse non-regular files (open with O_NONBLOCK / Lstat and require a regular file) and report them", filepath.Base(fifo))
	}
	if err == nil && rep.Status == Intact {
		t.Fatalf("planted FIFO segment not reported: %s", describeFiles(rep))
	}
}

// audit.head as a FIFO: Verify blocks in readHead while HOLDING the append
// lock, so every appender (every gated tool call) blocks too.
func TestHostileVerifyHangsOnFIFOHeadHoldingLock(t *testing.T) {
	home := newLog(t, 3)
	head := filepath.Join(home, headFile)
	os.Remove(head)
	if err := syscall.Mkfifo(head, 0o600); err != nil {
		t.Skip("mkfifo:", err)
	}
	_, _, done := verifyWithin(t, home, signEnv(), 3*time.Second, unblockFIFO(head))
	if !done {
		t.Fatalf("Verify hung on audit.head being a FIFO, holding audit.lock (appenders block too)")
	}
}

// --- hostile files: unbounded reads (run in a child with a memory cap) ---

func TestHostileChildHelper(t *testing.T) {
	home := os.Getenv("REVIEW_CHILD_HOME")
	if home == "" {
		t.Skip("helper")
	}
	// Cap the address space so an unbounded read dies quickly instead of
	// eating the machine.
	lim := syscall.Rlimit{Cur: 3 << 30, Max: 3 << 30}
	_ = syscall.Setrlimit(syscall.RLIMIT_AS, &lim)
	switch os.Getenv("REVIEW_CHILD_WHAT") {
	case "verify":
		rep, err := VerifyWith(home, VerifyOptions{Getenv: signEnv()})
		if err != nil {
			os.Stdout.WriteString("ERR " + err.Error() + "\n")
			return
		}
		os.Stdout.WriteString("STATUS " + rep.Status.String() + "\n")
	case "tail":
		_, err := Tail(home, 5)
		os.Stdout.WriteString("TAIL done " + errString(err) + "\n")
	}
}

func errString(err error) string {
	if err == nil {
		return "nil"
	}
	return err.Error()
}

// runChild runs TestHostileChildHelper on home; ok is false when the child
// crashed or timed out.
func runChild(t *testing.T, home, what string) (string, bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestHostileChildHelper$", "-test.count=1")
	cmd.Env = append(os.Environ(), "REVIEW_CHILD_HOME="+home, "REVIEW_CHILD_WHAT="+what, "GOGC=off")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	s := out.String()
	if len(s) > 600 {
		s = s[:600] + "…"
	}
	return s, err == nil && ctx.Err() == nil
}

// audit.chain as a symlink to /dev/zero: os.ReadFile never reaches EOF, so
// Verify (and every appender: readLedger) grows memory until it dies.
// The same holds for audit.head and install.id (os.ReadFile everywhere).
func TestHostileVerifyUnboundedReadLedgerDevZero(t *testing.T) {
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero")
	}
	home := newLog(t, 3)
	if err := os.Symlink("/dev/zero", filepath.Join(home, LedgerFile)); err != nil {
		t.Fatal(err)
	}
	out, ok := runChild(t, home, "verify")
	if !ok {
		t.Fatalf("Verify crashed or hung reading audit.chain -> /dev/zero (unbounded os.ReadFile; read with a size cap / require a regular file):\n%s", out)
	}
}

// A single huge line without a newline: Tail reads the whole file into
// memory looking for a newline (bounded only by the file size); checked
// here only for termination with a modest file.
func TestHostileOKTailOnHugeLineTerminates(t *testing.T) {
	home := newLog(t, 3)
	big := bytes.Repeat([]byte("x"), 8<<20)
	appendRaw(t, home, big)
	if _, err := Tail(home, 2); err != nil {
		t.Fatal(err)
	}
	if rep := mustVerify(t, home); rep.Status != Broken {
		t.Fatalf("torn huge line: %s", describe(rep))
	}
}

// --- anchors ---

// Anchors are looked up by HomeID, which hashes install.id, a file in the
// home the attacker can write. Deleting it hides every anchor: a rollback
// that the anchors catch becomes "intact" (with only a note), and the next
// `airlock verify --anchor` even anchors the rolled-back state under a new
// id. README: "Only an external anchor catches ... rolled back to an older
// signed checkpoint, up to the last anchor."
func TestHostileAnchorsHiddenByDeletingInstallID(t *testing.T) {
	for _, s := range signSetups(t, "", signModeEd25519) {
		t.Run(s.mode, func(t *testing.T) {
			home := filepath.Join(t.TempDir(), "h")
			anchors := t.TempDir()
			appendWith(t, home, s.append, "", 0, 10)
			oldLog, err := os.ReadFile(filepath.Join(home, LogFile))
			if err != nil {
				t.Fatal(err)
			}
			oldHead, err := os.ReadFile(filepath.Join(home, headFile))
			if err != nil {
				t.Fatal(err)
			}
			appendWith(t, home, s.append, "", 10, 10)
			if _, _, err := AnchorNow(home, anchors); err != nil {
				t.Fatal(err)
			}
			requireIntact(t, verifyWith(t, home, s.verify, anchors), len(readLines(t, home)))

			// Roll back: the old (validly signed) log and checkpoint.
			writeFile(t, filepath.Join(home, LogFile), oldLog)
			writeFile(t, filepath.Join(home, headFile), oldHead)
			if rep := verifyWith(t, home, s.verify, anchors); rep.Status != Broken {
				t.Fatalf("rollback below an anchor not detected: %s", describe(rep))
			}
			// ... and hide the anchors.
			os.Remove(filepath.Join(home, installIDFile))
			rep := verifyWith(t, home, s.verify, anchors)
			if rep.Status == Intact {
				t.Fatalf("rollback below an anchor is INTACT once install.id is deleted (notes: %q); the anchor file still holds this home's anchors under the old id. Fix: key anchors by something the home writer cannot reset (e.g. also store the resolved home path, or a path-only id, in anchor lines and report anchors for this path under another install id; or record an anchor_start record in the chain so a missing install.id is a finding)", rep.Notes)
			}
		})
	}
}

// An anchor with a later count but of another home is ignored; anchors of
// this home still catch a truncation.
func TestHostileOKAnchorOfOtherHomeIgnored(t *testing.T) {
	home := filepath.Join(t.TempDir(), "h")
	other := filepath.Join(t.TempDir(), "o")
	anchors := t.TempDir()
	appendWith(t, home, signEnv(), "", 0, 5)
	appendWith(t, other, signEnv(), "", 0, 50)
	if _, _, err := AnchorNow(other, anchors); err != nil {
		t.Fatal(err)
	}
	if _, _, err := AnchorNow(home, anchors); err != nil {
		t.Fatal(err)
	}
	requireIntact(t, verifyWith(t, home, signEnv(), anchors), 6)
}

// --- signing ---

// A signed log whose signatures were all stripped (h is unchanged: alg and
// sig are outside it) verifies INTACT when the verifier's environment does
// not set AIRLOCK_SIGN, although the chain itself contains a sign_start
// record saying (in its detail) which mode signed it. README: "Once signing
// starts (a signed sign_start record), an unsigned record is a break".
func TestHostileSignatureStripIntactWithoutSignEnv(t *testing.T) {
	s := signSetups(t, signModeHMAC)[0]
	home := filepath.Join(t.TempDir(), "h")
	appendWith(t, home, s.append, "", 0, 5)
	lines := readLines(t, home)
	for i := range lines {
		lines[i] = mutateLine(t, lines[i], stripSig)
	}
	writeLines(t, home, lines)
	hp, err := readHead(home)
	if err != nil || hp == nil {
		t.Fatalf("readHead: %v", err)
	}
	h := *hp
	h.Alg, h.Sig = "", ""
	writeHeadJSON(t, home, h)
	if rep := verifyWith(t, home, s.verify, ""); rep.Status != Broken {
		t.Fatalf("with AIRLOCK_SIGN: %s", describe(rep))
	}
	rep := verifyWith(t, home, signEnv(), "")
	if rep.Status == Intact {
		t.Fatalf("every signature stripped, sign_start present, verified without AIRLOCK_SIGN: INTACT (notes %q). Fix: a sign_start in the chain should make later unsigned records at least tail-unprovable/broken even when the verifier has no key (the sign_start detail names the mode)", rep.Notes)
	}
}

// An attacker without the key inserts an unsigned sign_start (chain
// recomputed from there): the signed records after it fail.
func TestHostileOKUnsignedSignStartInserted(t *testing.T) {
	for _, s := range signSetups(t, signModeHMAC, signModeEd25519) {
		t.Run(s.mode, func(t *testing.T) {
			home := filepath.Join(t.TempDir(), "h")
			appendWith(t, home, signEnv(), "", 0, 3)
			appendWith(t, home, s.append, "", 3, 3)
			lines := readLines(t, home)
			// drop the real sign_start (line 5) and signatures after it,
			// insert an unsigned one of the attacker, recompute.
			var out [][]byte
			for i, l := range lines {
				if i == 4 {
					continue
				}
				out = append(out, mutateLine(t, l, stripSig))
				if i == 1 {
					out = append(out, mutateLine(t, lines[4], stripSig))
				}
			}
			rechain(t, home, out, nil)
			if rep := verifyWith(t, home, s.verify, ""); rep.Status != Broken {
				t.Fatalf("%s", describe(rep))
			}
		})
	}
}

// --- segments ---

// Swapping two segments' files (names kept, contents swapped), swapping
// their ledger lines, duplicating a segment under a new name, and ledger
// lines naming ../ paths are all reported.
func TestHostileOKSegmentShuffles(t *testing.T) {
	cases := map[string]func(t *testing.T, home string, segs []ledgerEntry){
		"swap contents": func(t *testing.T, home string, segs []ledgerEntry) {
			a, b := filepath.Join(home, segs[1].Segment), filepath.Join(home, segs[2].Segment)
			ba, _ := os.ReadFile(a)
			bb, _ := os.ReadFile(b)
			writeFile(t, a, bb)
			writeFile(t, b, ba)
		},
		"swap ledger lines": func(t *testing.T, home string, segs []ledgerEntry) {
			p := filepath.Join(home, LedgerFile)
			ls := fileLines(t, p)
			ls[1], ls[2] = ls[2], ls[1]
			writeFileLines(t, p, ls)
		},
		"duplicate segment": func(t *testing.T, home string, segs []ledgerEntry) {
			b, _ := os.ReadFile(filepath.Join(home, segs[1].Segment))
			writeFile(t, filepath.Join(home, "audit-20000101T000000.000000000Z-000002.jsonl"), b)
		},
		"duplicate last segment after all": func(t *testing.T, home string, segs []ledgerEntry) {
			b, _ := os.ReadFile(filepath.Join(home, segs[len(segs)-1].Segment))
			writeFile(t, filepath.Join(home, plantedSegment), b)
		},
		"dotdot ledger": func(t *testing.T, home string, segs []ledgerEntry) {
			p := filepath.Join(home, LedgerFile)
			ls := fileLines(t, p)
			ls[0] = mutateLine(t, ls[0], func(m map[string]any) { m["segment"] = "../audit-x.jsonl" })
			writeFileLines(t, p, ls)
		},
		"segment symlink to /dev/zero": func(t *testing.T, home string, segs []ledgerEntry) {
			p := filepath.Join(home, segs[1].Segment)
			os.Remove(p)
			if err := os.Symlink("/dev/zero", p); err != nil {
				t.Fatal(err)
			}
		},
		"live emptied after rotation": func(t *testing.T, home string, segs []ledgerEntry) {
			writeFile(t, filepath.Join(home, LogFile), nil)
		},
		"live deleted": func(t *testing.T, home string, segs []ledgerEntry) {
			os.Remove(filepath.Join(home, LogFile))
		},
		"ledger count edited": func(t *testing.T, home string, segs []ledgerEntry) {
			p := filepath.Join(home, LedgerFile)
			ls := fileLines(t, p)
			ls[1] = mutateLine(t, ls[1], func(m map[string]any) { m["count"] = json.Number("3") })
			writeFileLines(t, p, ls)
		},
	}
	for name, tamper := range cases {
		t.Run(name, func(t *testing.T) {
			home := rotatedLog(t, 20)
			segs := ledgerOf(t, home)
			if len(segs) < 4 {
				t.Fatalf("%d segments", len(segs))
			}
			tamper(t, home, segs)
			rep, err, done := verifyWithin(t, home, signEnv(), 10*time.Second, nil)
			if !done || err != nil {
				t.Fatalf("done=%v err=%v", done, err)
			}
			if rep.Status != Broken {
				t.Fatalf("%s", describeFiles(rep))
			}
		})
	}
}

// A checkpoint that claims fewer records than the log has (an attacker
// cannot hide the extra records this way): since issue 14 this is what a
// writer stopped between its record and its checkpoint leaves, so it is
// intact with an unconfirmed-tail warning naming the extra lines (was
// tail-unprovable); --strict exits 2 on it.
func TestHostileOKHeadClaimsFewer(t *testing.T) {
	home := newLog(t, 5)
	lines := readLines(t, home)
	writeHeadJSON(t, home, Head{Count: 3, Last: hashOfLine(t, lines[2]), At: "x"})
	rep := mustVerify(t, home)
	requireProblems(t, rep, Intact)
	requireWarnings(t, rep, kindUnconfirmedTail)
	if w := rep.Warnings[0]; w.Line != 4 || w.LastLine != 6 || !strings.Contains(w.Message, "lines 4-6 of audit.jsonl") {
		t.Fatalf("warning %+v, want lines 4-6", w)
	}
}

// Segment-boundary classification: deleting the live file's segment_start
// while keeping the chain consistent from the segment end is reported.
func TestHostileOKLiveWithoutSegmentStart(t *testing.T) {
	home := rotatedLog(t, 20)
	lines := readLines(t, home)
	if !strings.Contains(string(lines[0]), eventSegmentStart) {
		t.Fatalf("line 1: %s", lines[0])
	}
	writeLines(t, home, lines[1:])
	if rep := mustVerify(t, home); rep.Status != Broken {
		t.Fatalf("%s", describeFiles(rep))
	}
}

// Verify running while several goroutines append with frequent rotations
// (and signing) never sees a broken or tail-unprovable log.
func TestHostileOKVerifyDuringRotatingAppends(t *testing.T) {
	t.Setenv(MaxMBEnv, "0.002")
	s := signSetups(t, signModeEd25519)[0]
	home := filepath.Join(t.TempDir(), "h")
	appendWith(t, home, s.append, "", 0, 1)
	done := make(chan struct{})
	errs := make(chan error, 8)
	for g := 0; g < 4; g++ {
		go func(g int) {
			l, err := OpenWith(home, Options{Getenv: s.append})
			if err != nil {
				errs <- err
				return
			}
			defer l.Close()
			for i := 0; ; i++ {
				select {
				case <-done:
					errs <- nil
					return
				default:
				}
				if _, err := l.Append(testRecord(g*100000 + i)); err != nil {
					errs <- err
					return
				}
			}
		}(g)
	}
	deadline := time.Now().Add(3 * time.Second)
	n := 0
	for time.Now().Before(deadline) {
		rep, err := VerifyWith(home, VerifyOptions{Getenv: s.verify})
		if err != nil {
			close(done)
			t.Fatalf("Verify: %v", err)
		}
		if rep.Status != Intact {
			close(done)
			t.Fatalf("verify %d during appends: %s", n, describeFiles(rep))
		}
		n++
	}
	close(done)
	for g := 0; g < 4; g++ {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	if rep := verifyWith(t, home, s.verify, ""); rep.Status != Intact || rep.Segments < 5 {
		t.Fatalf("final: segments=%d %s", rep.Segments, describeFiles(rep))
	}
}

// A torn ledger line of a SIGNED ledger starts with {"alg": not
// {"count":, so it is reported as malformed rather than torn (still
// broken: only the kind is off).
func TestHostileSignedLedgerTornLineKind(t *testing.T) {
	t.Setenv(MaxMBEnv, "0.002")
	s := signSetups(t, signModeHMAC)[0]
	home := filepath.Join(t.TempDir(), "h")
	for i := 0; i < 12; i++ {
		appendWith(t, home, s.append, "", i, 1)
	}
	p := filepath.Join(home, LedgerFile)
	b, _ := os.ReadFile(p)
	ls := fileLines(t, p)
	if len(ls) < 2 {
		t.Fatalf("%d ledger lines", len(ls))
	}
	// a rotation killed mid-write of its ledger line, then terminated
	// by the next ledger append
	torn := append(append([]byte{}, b...), ls[0][:40]...)
	torn = append(torn, '\n')
	writeFile(t, p, torn)
	rep := verifyWith(t, home, s.verify, "")
	if !hasProblem(rep, LedgerFile, len(ls)+1, KindTorn) {
		t.Fatalf("want torn ledger line %d: %s", len(ls)+1, describeFiles(rep))
	}
}
