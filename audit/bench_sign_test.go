package audit

import (
	"path/filepath"
	"testing"
)

// BenchmarkVerifySigned verifies a signed log of 20,000 records per mode;
// see the records/s metric (BenchmarkVerify is the unsigned baseline).
func BenchmarkVerifySigned(b *testing.B) {
	const n = 20_000
	for _, s := range signSetups(b, signModeHMAC, signModeEd25519) {
		b.Run(s.mode, func(b *testing.B) {
			home := filepath.Join(b.TempDir(), "h")
			for i := 0; i < n; i += 1000 {
				appendWith(b, home, s.append, "", i, 1000)
			}
			b.ResetTimer()
			for b.Loop() {
				rep := verifyWith(b, home, s.verify, "")
				if rep.Status != Intact {
					b.Fatalf("not intact: %s", describe(rep))
				}
			}
			b.ReportMetric(float64(b.N)*float64(n+2)/b.Elapsed().Seconds(), "records/s")
		})
	}
}

// BenchmarkAppendSigned appends one record per op to an open Log.
func BenchmarkAppendSigned(b *testing.B) {
	for _, s := range signSetups(b, "", signModeHMAC, signModeEd25519) {
		b.Run(s.mode, func(b *testing.B) {
			b.Setenv(FsyncEnv, "")
			home := filepath.Join(b.TempDir(), "h")
			appendWith(b, home, s.append, "", 0, 1000)
			l, err := OpenWith(home, Options{Getenv: s.append})
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
	}
}
