package audit

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// buildSegmentedLog writes a valid rotated chain of n records (plus
// audit_start and the segment_starts) without going through Append: segments
// of perSeg lines, their ledger, the live file and the checkpoint. It
// returns the number of lines written.
func buildSegmentedLog(tb testing.TB, home string, n, perSeg int) int {
	tb.Helper()
	prev, ledgerPrev := Genesis, Genesis
	var w *bufio.Writer
	var f *os.File
	var lines, inFile int
	var firstPrev string
	var seq int
	var ledger ledgerEntry
	open := func() {
		var err error
		if f, err = os.OpenFile(filepath.Join(home, LogFile), os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600); err != nil {
			tb.Fatal(err)
		}
		w = bufio.NewWriterSize(f, 1<<20)
		inFile, firstPrev = 0, prev
	}
	closeFile := func() {
		if err := w.Flush(); err != nil {
			tb.Fatal(err)
		}
		if err := f.Close(); err != nil {
			tb.Fatal(err)
		}
	}
	put := func(r Record) {
		r.Time = "2026-11-29T10:43:49.123Z"
		line, out, err := encodeRecord(r, prev)
		if err != nil {
			tb.Fatal(err)
		}
		w.Write(line)
		w.WriteByte('\n')
		prev = out.H
		lines++
		inFile++
	}
	open()
	put(Record{Event: EventStart, Source: "hook", Detail: StartDetail})
	for i := range n {
		if inFile == perSeg {
			closeFile()
			seq++
			name := fmt.Sprintf("audit-20261129T104349.%09dZ-%06d.jsonl", seq, seq)
			if err := os.Rename(filepath.Join(home, LogFile), filepath.Join(home, name)); err != nil {
				tb.Fatal(err)
			}
			e := ledgerEntry{Seq: seq, Segment: name, Count: inFile, FirstPrev: firstPrev, Last: prev, Time: "2026-11-29T10:43:49.123Z", Prev: ledgerPrev}
			var err error
			if ledger, err = appendLedger(home, e, false, false, nil); err != nil {
				tb.Fatal(err)
			}
			ledgerPrev = ledger.H
			open()
			put(Record{Event: eventSegmentStart, Source: "hook", Detail: segmentStartDetail(ledger)})
		}
		put(testRecord(i))
	}
	closeFile()
	head, _ := json.Marshal(Head{Count: inFile, Last: prev, At: "x", Segments: seq, Ledger: ledger.H})
	writeFile(tb, filepath.Join(home, headFile), head)
	return lines
}

func TestBuildSegmentedLogVerifies(t *testing.T) {
	home := t.TempDir()
	lines := buildSegmentedLog(t, home, 1000, 300)
	rep := mustVerify(t, home)
	if rep.Status != Intact || rep.Records != lines || rep.Segments != 3 {
		t.Fatalf("generated log: %s", describeFiles(rep))
	}
}

// BenchmarkVerifySegments verifies 100,000 records in 10 segments and the
// live file; see the records/s metric (the budget is 200,000 records/s).
func BenchmarkVerifySegments(b *testing.B) {
	home := b.TempDir()
	lines := buildSegmentedLog(b, home, 100_000, 10_000)
	b.ResetTimer()
	for b.Loop() {
		rep, err := Verify(home)
		if err != nil {
			b.Fatal(err)
		}
		if rep.Status != Intact || rep.Records != lines {
			b.Fatalf("not intact: %s", describeFiles(rep))
		}
	}
	b.ReportMetric(float64(b.N)*float64(lines)/b.Elapsed().Seconds(), "records/s")
}

// BenchmarkVerifyLargeLogMemory verifies a ~200 MB chain (64 MB segments
// like the default rotation) and reports the peak heap while verifying,
// which must stay flat (well under 32 MB): Verify streams.
func BenchmarkVerifyLargeLogMemory(b *testing.B) {
	home := b.TempDir()
	const perSeg = 64 << 20 / 420 // about 64 MB of typical records
	records := 500_000
	if n, err := strconv.Atoi(os.Getenv("AIRLOCK_BENCH_RECORDS")); err == nil && n > 0 {
		records = n // e.g. 2500000 for a ~1 GB log
	}
	lines := buildSegmentedLog(b, home, records, perSeg)
	var size int64
	names, _ := listSegments(home)
	for _, n := range append(names, LogFile) {
		st, err := os.Stat(filepath.Join(home, n))
		if err != nil {
			b.Fatal(err)
		}
		size += st.Size()
	}
	b.SetBytes(size)
	runtime.GC()
	var base runtime.MemStats
	runtime.ReadMemStats(&base)
	var peak atomic.Uint64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		var ms runtime.MemStats
		tick := time.NewTicker(2 * time.Millisecond)
		defer tick.Stop()
		for {
			runtime.ReadMemStats(&ms)
			if ms.HeapAlloc > peak.Load() {
				peak.Store(ms.HeapAlloc)
			}
			select {
			case <-stop:
				return
			case <-tick.C:
			}
		}
	})
	b.ResetTimer()
	for b.Loop() {
		rep, err := Verify(home)
		if err != nil {
			b.Fatal(err)
		}
		if rep.Status != Intact || rep.Records != lines {
			b.Fatalf("not intact: %s", describeFiles(rep))
		}
	}
	b.StopTimer()
	close(stop)
	wg.Wait()
	mb := float64(peak.Load()) / (1 << 20)
	b.ReportMetric(mb, "peak-heap-MB")
	b.ReportMetric(float64(size)/(1<<20), "log-MB")
	b.ReportMetric(float64(b.N)*float64(lines)/b.Elapsed().Seconds(), "records/s")
	if mb > 32 {
		b.Fatalf("peak heap %.1f MB while verifying a %.0f MB log", mb, float64(size)/(1<<20))
	}
}

// BenchmarkAppendThroughput measures appended records per second with the
// default fsync policy (allow decisions: no fsync) and rotation at 1 MB:
//
//   - 1proc: one process, one open Log
//   - 8procs: 8 processes (the test binary re-executed), each appending
//     b.N/8 records with one Open per append, as airlock-hook does
func BenchmarkAppendThroughput(b *testing.B) {
	b.Run("1proc", func(b *testing.B) {
		b.Setenv(MaxMBEnv, "1")
		b.Setenv(FsyncEnv, "")
		home := filepath.Join(b.TempDir(), "h")
		l, err := Open(home)
		if err != nil {
			b.Fatal(err)
		}
		defer l.Close()
		r := testRecord(1)
		b.ResetTimer()
		for b.Loop() {
			if _, err := l.Append(r); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "records/s")
	})
	b.Run("8procs", func(b *testing.B) {
		home := filepath.Join(b.TempDir(), "h")
		each := max(b.N/8, 1)
		b.ResetTimer()
		cmds, outs := startAppenders(b, home, 8, each, MaxMBEnv+"=1", FsyncEnv+"=")
		for p, c := range cmds {
			if err := c.Wait(); err != nil {
				b.Fatalf("child %d: %v\n%s", p, err, outs[p])
			}
		}
		b.StopTimer()
		b.ReportMetric(float64(8*each)/b.Elapsed().Seconds(), "records/s")
		rep, err := Verify(home)
		if err != nil || rep.Status != Intact {
			b.Fatalf("after the benchmark: %v %s", err, describeFiles(rep))
		}
	})
}
