package audit

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// buildLog writes a valid checkpointed log of n records (plus audit_start)
// without going through Append, for benchmarks.
func buildLog(b *testing.B, home string, n int) {
	b.Helper()
	f, err := os.OpenFile(filepath.Join(home, LogFile), os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
	if err != nil {
		b.Fatal(err)
	}
	prev := Genesis
	var last Record
	buf := make([]byte, 0, 1<<20)
	for i := -1; i < n; i++ {
		r := Record{Event: EventStart, Source: "hook", Detail: StartDetail}
		if i >= 0 {
			r = testRecord(i)
		}
		r.Time = "2026-11-29T10:43:49.123Z"
		line, w, err := encodeRecord(r, prev)
		if err != nil {
			b.Fatal(err)
		}
		buf = append(append(buf, line...), '\n')
		if len(buf) > 1<<20-4096 {
			if _, err := f.Write(buf); err != nil {
				b.Fatal(err)
			}
			buf = buf[:0]
		}
		prev, last = w.H, w
	}
	if _, err := f.Write(buf); err != nil {
		b.Fatal(err)
	}
	if err := f.Close(); err != nil {
		b.Fatal(err)
	}
	head, _ := json.Marshal(Head{Count: n + 1, Last: last.H, At: last.Time})
	writeFile(b, filepath.Join(home, headFile), head)
}

// BenchmarkVerify verifies a 100,000-record log; see the records/s metric.
func BenchmarkVerify(b *testing.B) {
	const n = 100_000
	home := b.TempDir()
	buildLog(b, home, n)
	st, _ := os.Stat(filepath.Join(home, LogFile))
	b.SetBytes(st.Size())
	b.ResetTimer()
	for b.Loop() {
		rep, err := Verify(home)
		if err != nil {
			b.Fatal(err)
		}
		if rep.Status != Intact || rep.Records != n+1 {
			b.Fatalf("not intact: %s", describe(rep))
		}
	}
	b.ReportMetric(float64(b.N)*float64(n+1)/b.Elapsed().Seconds(), "records/s")
}

// BenchmarkAppend appends to an existing log of 1000 records.
//
//   - hot: one open Log, Append per op (allow: no fsync under the default
//     AIRLOCK_AUDIT_FSYNC=critical), what the MCP proxy does
//   - never: as hot with AIRLOCK_AUDIT_FSYNC=never
//   - fsync: as hot, but every record is a block decision (fsynced)
//   - process: Open + Append + Close per op, what one airlock-hook does
//
// The line-bytes metric is the record line's length (about 420 bytes).
func BenchmarkAppend(b *testing.B) {
	run := func(b *testing.B, decision, fsync string, perOp bool) {
		home := filepath.Join(b.TempDir(), "h")
		appendRecords(b, home, 0, 1000)
		b.Setenv(FsyncEnv, fsync)
		r := testRecord(1)
		r.Decision = decision
		var l *Log
		open := func() {
			var err error
			if l, err = Open(home); err != nil {
				b.Fatal(err)
			}
		}
		if !perOp {
			open()
			defer l.Close()
		}
		b.ResetTimer()
		for b.Loop() {
			if perOp {
				open()
			}
			if _, err := l.Append(r); err != nil {
				b.Fatal(err)
			}
			if perOp {
				if err := l.Close(); err != nil {
					b.Fatal(err)
				}
			}
		}
		if line, _, err := encodeRecord(r, Genesis); err == nil {
			b.ReportMetric(float64(len(line)+1), "line-bytes")
		}
	}
	b.Run("hot", func(b *testing.B) { run(b, "allow", "", false) })
	b.Run("never", func(b *testing.B) { run(b, "allow", "never", false) })
	b.Run("fsync", func(b *testing.B) { run(b, "block", "", false) })
	b.Run("process", func(b *testing.B) { run(b, "allow", "", true) })
}

// BenchmarkCheckpoint writes one checkpoint the two ways this package
// can: in place into the older slot of the held audit.head (every append)
// and as a new file installed by rename (release 1 did this on every
// append; now only the first checkpoint of a home and conversions do).
func BenchmarkCheckpoint(b *testing.B) {
	home := filepath.Join(b.TempDir(), "h")
	appendRecords(b, home, 0, 10)
	l, err := Open(home)
	if err != nil {
		b.Fatal(err)
	}
	defer l.Close()
	h, _, err := l.loadHead()
	if err != nil {
		b.Fatal(err)
	}
	b.Run("in-place", func(b *testing.B) {
		for b.Loop() {
			_, st, err := l.loadHead()
			if err != nil {
				b.Fatal(err)
			}
			if err := l.storeHead(*h, st, false); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("rename", func(b *testing.B) {
		text, err := encodeSlot(nil, 1, *h)
		if err != nil {
			b.Fatal(err)
		}
		for b.Loop() {
			if err := createHead(home, 1, text, false); err != nil {
				b.Fatal(err)
			}
		}
	})
}
