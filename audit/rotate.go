package audit

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"
)

// Rotation keeps the live audit.jsonl bounded. When an append would take it
// past AIRLOCK_AUDIT_MAX_MB, the appender (holding audit.lock, on the fast
// path, so the live file and audit.head agree) moves it aside as a segment
// and starts a new live file that continues the same chain. The steps, in
// this order, each leave a state the next appender repairs or Verify names:
//
//  1. rename audit.jsonl to audit-<UTC stamp>-<seq>.jsonl (atomic). Killed
//     here: there is no live file and one segment the ledger does not list,
//     whose end is what audit.head names. The next appender lists it in the
//     ledger and goes on with step 3 (audit_recover "rotation-resumed");
//     until then Verify reports it intact with a rotation-interrupted
//     warning (the moved file ends with the checkpointed record).
//  2. append the segment's line to audit.chain with one write, fsync. If the
//     write fails, the rename is undone and the append goes to the old live
//     file. Killed here: the ledger lists the segment, there is no live file
//     and audit.head still names the segment's end; the next appender goes
//     on with step 3. A torn ledger line is terminated by the next ledger
//     append and stays visible to Verify.
//  3. create audit.jsonl (O_EXCL) and write segment_start (chained to the
//     segment's last h, naming the ledger line's seq and h) and the records
//     with one write, fsync. Killed here: a torn or missing live file; the
//     next appender starts it over from the ledger's last line.
//  4. write audit.head (in place, see head.go). Killed before: the
//     checkpoint predates the rotation; Verify reports the new live file's
//     records as an unconfirmed-tail warning (intact) and the next appender
//     records the checkpoint as stale, which is no finding.
//
// Nothing before step 1 changes anything, so a rotation that cannot start
// (Windows refuses to rename a file another process holds open) is simply
// skipped and tried again by the next append past the limit.

// MaxMBEnv names the environment variable that sets the size, in MiB, past
// which the live file is rotated: a positive number, fractions allowed
// ("0.01" is about 10 KB). Missing or invalid values mean DefaultMaxMB.
const MaxMBEnv = "AIRLOCK_AUDIT_MAX_MB"

// defaultMaxMB is the rotation size when AIRLOCK_AUDIT_MAX_MB is not set.
const defaultMaxMB = 64

// segmentStamp is the UTC time layout in segment names: fixed width, so
// names sort in rotation order.
const segmentStamp = "20060102T150405.000000000Z"

// maxLiveBytes is the rotation threshold from the environment.
func maxLiveBytes() int64 {
	v := strings.TrimSpace(os.Getenv(MaxMBEnv))
	if v == "" {
		return defaultMaxMB << 20 // unset: no parse error to allocate on every append
	}
	mb, err := strconv.ParseFloat(v, 64)
	if err != nil || !(mb > 0) || mb > 1<<30 || math.IsInf(mb, 0) {
		mb = defaultMaxMB
	}
	return max(int64(mb*(1<<20)), 1)
}

// segmentName returns a segment name that sorts after prevName and does not
// exist in home: the stamp is at least one nanosecond after the previous
// segment's (so a clock stepping back cannot reorder names) and the seq
// makes it unique.
func segmentName(home string, now time.Time, prevName string, seq int) (string, error) {
	now = now.UTC()
	if len(prevName) >= len("audit-")+len(segmentStamp) {
		if t, err := time.Parse(segmentStamp, prevName[len("audit-"):len("audit-")+len(segmentStamp)]); err == nil && !now.After(t) {
			now = t.Add(time.Nanosecond)
		}
	}
	for range 1000 {
		name := fmt.Sprintf("audit-%s-%06d.jsonl", now.Format(segmentStamp), seq)
		_, err := os.Lstat(filepath.Join(home, name))
		if errors.Is(err, fs.ErrNotExist) {
			return name, nil
		}
		if err != nil {
			return "", fmt.Errorf("check segment name: %w", err)
		}
		now = now.Add(time.Nanosecond)
	}
	return "", errors.New("no free segment name")
}

// rotateLive does steps 1 and 2 of a rotation (see above) for a live file
// whose checkpoint head was just found to match its end. rotated is false,
// with a nil error, when nothing was changed; an error means the live file
// was moved and could not be put back (the next append resumes the
// rotation).
func rotateLive(home string, head *Head, sync bool, signer signer) (e ledgerEntry, rotated bool, err error) {
	live := filepath.Join(home, LogFile)
	// The fast path found the last line to be the checkpointed record, so
	// the checkpoint gives the count and last h; only the first prev is read.
	firstPrev, err := readFirstPrev(live)
	if err != nil || firstPrev == "" {
		// A rotation that cannot start is skipped, not an append failure.
		return e, false, nil
	}
	li, err := readLedger(home)
	if err != nil {
		return e, false, nil
	}
	e = ledgerEntry{Seq: 1, Count: head.Count, FirstPrev: firstPrev, Last: head.Last, Prev: Genesis}
	prevName := ""
	if last := li.last(); last != nil {
		e.Seq, e.Prev, prevName = last.Seq+1, last.H, last.Segment
	}
	now := time.Now()
	e.Time = FormatTime(now)
	if e.Segment, err = segmentName(home, now, prevName, e.Seq); err != nil {
		return e, false, nil
	}
	seg := filepath.Join(home, e.Segment)
	if err := os.Rename(live, seg); err != nil {
		return e, false, nil
	}
	if sync {
		syncDir(home)
	}
	e, err = appendLedger(home, e, li.partial, sync, signer)
	if err != nil {
		if rerr := os.Rename(seg, live); rerr != nil {
			return e, false, fmt.Errorf("rotate: %w; moving %s back to %s failed: %w", err, e.Segment, LogFile, rerr)
		}
		return e, false, nil
	}
	return e, true, nil
}

// resumeRotation finishes step 2 for a rotation a killed appender left
// after step 1: the newest segment file, not in the ledger, whose end is
// exactly what the checkpoint names and whose first record continues the
// ledger's last segment.
func resumeRotation(home string, li ledgerInfo, head *Head, signer signer) (ledgerEntry, bool, error) {
	names, err := listSegments(home)
	if err != nil {
		return ledgerEntry{}, false, err
	}
	listed := map[string]bool{}
	for _, e := range li.entries {
		listed[e.Segment] = true
	}
	e := ledgerEntry{Seq: 1, Prev: Genesis}
	prevName, start := "", Genesis
	if last := li.last(); last != nil {
		e.Seq, e.Prev, prevName, start = last.Seq+1, last.H, last.Segment, last.Last
	}
	cand := ""
	for _, n := range names {
		if !listed[n] && n > prevName {
			cand = n
		}
	}
	if cand == "" {
		return e, false, nil
	}
	facts, err := scanFile(filepath.Join(home, cand), 0)
	if err != nil {
		return e, false, err
	}
	if facts.partial != nil || facts.lines != head.Count || facts.lastH != head.Last || facts.firstPrev != start {
		return e, false, nil // not the file the checkpoint describes: Verify reports it as unlisted
	}
	e.Segment, e.Count, e.FirstPrev, e.Last, e.Time = cand, facts.lines, facts.firstPrev, facts.lastH, FormatTime(time.Now())
	e, err = appendLedger(home, e, li.partial, true, signer)
	if err != nil {
		return e, false, fmt.Errorf("resume rotation: %w", err)
	}
	return e, true, nil
}

// readFirstPrev returns the prev of the first record of the file at path,
// "" if it has none.
func readFirstPrev(path string) (string, error) {
	f, err := openRegular(path, os.O_RDONLY, 0)
	if err != nil {
		return "", err
	}
	defer f.Close()
	var cp canonParser
	lr := newLineReader(f)
	for {
		line, complete, err := lr.next()
		if errors.Is(err, io.EOF) || (err == nil && !complete) {
			return "", nil
		}
		if err != nil {
			return "", err
		}
		if _, prev, _, _, ok := recordHashes(&cp, line); ok {
			return prev, nil
		}
	}
}

func scanFile(path string, want int) (logFacts, error) {
	f, err := openRegular(path, os.O_RDONLY, 0)
	if err != nil {
		return logFacts{}, err
	}
	defer f.Close()
	return scanFacts(io.Reader(f), want)
}

// syncDir makes a rename in dir durable. It is best effort: Windows and some
// file systems cannot sync a directory, and the rename itself succeeded.
func syncDir(dir string) {
	if runtime.GOOS == "windows" {
		return
	}
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		_ = d.Close()
	}
}
