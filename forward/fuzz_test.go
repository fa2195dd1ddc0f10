package forward

import (
	"bufio"
	"bytes"
	"strings"
	"testing"
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
