package forward

import (
	"context"
	"fmt"
	"github.com/agentairlock/airlock/internal/testrecv"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// benchShip ships a 5,000-record chain from its start to target, b.N
// times (the cursor removed between runs), and reports records per second.
func benchShip(b *testing.B, target string) {
	home := filepath.Join(b.TempDir(), "airlock")
	const n = 5000
	appendRecords(b, home, 0, n)
	tg, err := ParseTarget(target)
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	start := time.Now()
	for i := 0; i < b.N; i++ {
		_ = os.Remove(CursorPath(home, tg))
		if err := Run(context.Background(), Config{Home: home, Target: tg, Once: true, Batch: 256, Settle: 10 * time.Millisecond, Poll: 5 * time.Millisecond}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(n*b.N)/time.Since(start).Seconds(), "records/s")
}

func BenchmarkForwardRELP(b *testing.B) {
	r := testrecv.StartRsyslog(b, nil)
	benchShip(b, fmt.Sprintf("relp://127.0.0.1:%d", r.RELP))
}

func BenchmarkForwardTLS(b *testing.B) {
	ca := testrecv.NewCA(b)
	r := testrecv.StartRsyslog(b, ca)
	benchShip(b, fmt.Sprintf("tls://127.0.0.1:%d?ca=%s", r.TLS, ca.CAFile))
}

func BenchmarkForwardOTLP(b *testing.B) {
	r := testrecv.StartOTLP(b)
	benchShip(b, r.URL())
}
