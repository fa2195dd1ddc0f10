package main

import (
	"runtime"
	"testing"
)

// TestHookRunsOnOneP: the binary imports internal/oneproc, so a decision
// runs on one P (no thread woken to find nothing).
func TestHookRunsOnOneP(t *testing.T) {
	if n := runtime.GOMAXPROCS(0); n != 1 {
		t.Fatalf("GOMAXPROCS %d in airlock-hook, want 1 (the import of internal/oneproc is gone?)", n)
	}
}
