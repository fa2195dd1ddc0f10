package forward

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentairlock/airlock/audit"
)

// FuzzReadRELPFrame feeds the RELP client's frame parser what a hostile or
// broken receiver could answer: it must return an error or a frame whose
// data fits the length it declared, never panic or allocate past the bound.
func FuzzReadRELPFrame(f *testing.F) {
	for _, s := range []string{
		"1 rsp 6 200 OK\n", "2 rsp 0\n", "0 serverclose 0\n", "1 rsp 99999999999 x\n",
		"1 rsp -1 x\n", "1 rsp 3 200", "1 rsp 3 200x", "x rsp 1 a\n", "1  0\n",
		strings.Repeat("9", 40) + " rsp 0\n", "1 rsp 1000000000 \n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		br := bufio.NewReaderSize(bytes.NewReader(in), 64)
		for range 8 {
			_, cmd, data, err := readRELPFrame(br)
			if err != nil {
				return
			}
			if len(data) > maxRELPFrame || len(cmd) > 32 {
				t.Fatalf("frame past the bounds: cmd %d bytes, data %d", len(cmd), len(data))
			}
		}
	})
}

// FuzzVerifyExport feeds verify --export's syslog and OTLP JSON readers
// hostile copies: an error or a report, never a panic; a report with no
// chain is never OK.
func FuzzVerifyExport(f *testing.F) {
	h := strings.Repeat("a", 64)
	for _, s := range []string{
		`<110>1 2026-12-02T06:00:00.000Z host airlock - decision [airlock@32473 chain="c" h="` + h + `" prev="` + h + `"] {"h":"x"}`,
		`<110>1 - host airlock - forward_heartbeat [airlock@32473 chain="c" beat="1" last_h="` + h + `"] {"event":"forward_heartbeat","last_h":"` + h + `","shipped":5}`,
		`[airlock@32473 h="\`, `[airlock@32473 a="b\"]`, `[airlock@32473 ] CEF:0|`,
		`{"resourceLogs":[{"scopeLogs":[{"logRecords":[{"eventName":"airlock.forward_heartbeat","body":{"stringValue":"{}"}}]}]}]}`,
		`{"resourceLogs":[{"scopeLogs":[{"logRecords":[{"attributes":[{"key":"airlock.h","value":{"stringValue":"` + h + `"}}],"body":{"stringValue":"{\"h\":1}"}}]}]}]}`,
	} {
		f.Add([]byte(s + "\n"))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		rep, err := VerifyExport(bytes.NewReader(in))
		if err != nil {
			return
		}
		if len(rep.Chains) == 0 && rep.OK() {
			t.Fatal("a copy with no chain is OK")
		}
	})
}

// A segment removed behind the forwarder's back, after its cursor: it must
// stop and say so, not ship the next segment as if it followed.
func TestForwardStopsAtAMissingSegment(t *testing.T) {
	t.Setenv(audit.MaxMBEnv, "0.002")
	home := filepath.Join(t.TempDir(), "airlock")
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer pc.Close()
	tg, err := ParseTarget("udp://" + pc.LocalAddr().String())
	if err != nil {
		t.Fatal(err)
	}
	run := func() error {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		return Run(ctx, Config{Home: home, Target: tg, Host: "h", Version: "t", Once: true, Poll: 10 * time.Millisecond})
	}
	appendRecords(t, home, 0, 3)
	if err := run(); err != nil {
		t.Fatalf("first run: %v", err)
	}
	appendRecords(t, home, 3, 30)
	segs, err := filepath.Glob(filepath.Join(home, "audit-*.jsonl"))
	if err != nil || len(segs) < 3 {
		t.Fatalf("want several segments: %v %v", segs, err)
	}
	if err := os.Remove(segs[len(segs)-1]); err != nil {
		t.Fatal(err)
	}
	drain(pc)
	err = run()
	if !errors.Is(err, audit.ErrSegmentMissing) || !strings.Contains(err.Error(), "segment after the cursor is gone") {
		t.Fatalf("a removed segment: %v; want a stop naming it", err)
	}
	// a forwarder that cannot go on sends no heartbeat: restarted by its
	// service every few seconds, it would look alive and idle, not stopped
	if got := drain(pc); got != "" {
		t.Fatalf("a forwarder that cannot go on sent: %s", got)
	}
}

// drain returns what pc received until it is quiet for 200ms.
func drain(pc net.PacketConn) string {
	var b strings.Builder
	buf := make([]byte, 1<<16)
	for {
		_ = pc.SetReadDeadline(time.Now().Add(200 * time.Millisecond))
		n, _, err := pc.ReadFrom(buf)
		if err != nil {
			return b.String()
		}
		b.Write(buf[:n])
		b.WriteByte('\n')
	}
}
