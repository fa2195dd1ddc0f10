package policy

import (
	"strings"
	"testing"
)

// TestEgressMaxBytesOut: egress.max_bytes_out is read per canonical host;
// bad hosts, counts and keys are load errors naming the line; a
// repository overlay can lower a cap, never raise or remove one.
func TestEgressMaxBytesOut(t *testing.T) {
	vars := Vars{Home: "/home/u", Tmp: "/tmp", Workspace: "/home/u/w"}
	p, err := parse([]byte("rules: []\negress:\n  max_bytes_out:\n    API.Example.com.: 1000\n    0x7f.1: 50\n"), "policy.yaml", "policy", vars)
	if err != nil {
		t.Fatal(err)
	}
	if p.MaxBytesOut["api.example.com"] != 1000 || p.MaxBytesOut["127.0.0.1"] != 50 || len(p.MaxBytesOut) != 2 {
		t.Fatalf("MaxBytesOut = %v", p.MaxBytesOut)
	}
	for src, want := range map[string]string{
		"rules: []\negress:\n  max_bytes_out:\n    api.example.com: 0\n":  "write a number of bytes above 0",
		"rules: []\negress:\n  max_bytes_out:\n    api.example.com: -5\n": "write a number of bytes above 0",
		"rules: []\negress:\n  max_byte_out:\n    api.example.com: 5\n":   "max_byte_out",
		"rules: []\negress: 5\n": "egress must be a mapping",
	} {
		_, err := parse([]byte(src), "policy.yaml", "policy", vars)
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "policy.yaml") {
			t.Errorf("%q: err = %v, want it to name the file and say %q", src, err, want)
		}
	}
	if err := p.applyOverlay([]byte("rules: []\negress:\n  max_bytes_out:\n    api.example.com: 10\n    127.0.0.1: 500000\n    other.example: 7\n"), "/w/.airlock.yaml"); err != nil {
		t.Fatal(err)
	}
	if p.MaxBytesOut["api.example.com"] != 10 || p.MaxBytesOut["127.0.0.1"] != 50 || p.MaxBytesOut["other.example"] != 7 {
		t.Fatalf("after the overlay: %v", p.MaxBytesOut)
	}
}
