package home_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/agentairlock/airlock/internal/home"
)

// BenchmarkCheck is what every hook call pays to check its home: a few
// lstat calls, one per directory up to /.
func BenchmarkCheck(b *testing.B) {
	h := filepath.Join(b.TempDir(), "home", ".airlock")
	if err := home.Make(h); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if err := home.Check(h); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLstat is one lstat of the home, for scale.
func BenchmarkLstat(b *testing.B) {
	h := b.TempDir()
	for b.Loop() {
		if _, err := os.Lstat(h); err != nil {
			b.Fatal(err)
		}
	}
}
