package flock

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// Two opens of one file exclude each other, in one process as across
// processes: the lock belongs to the open file, not the process.
func TestLockExcludesAnotherOpen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.lock")
	open := func() *os.File {
		f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close() })
		return f
	}
	a, b := open(), open()
	if err := Lock(a); err != nil {
		t.Fatal(err)
	}
	got := make(chan time.Time, 1)
	go func() {
		if err := Lock(b); err != nil {
			t.Error(err)
		}
		got <- time.Now()
		Unlock(b)
	}()
	select {
	case <-got:
		t.Fatal("a second open took the lock while the first held it")
	case <-time.After(100 * time.Millisecond):
	}
	released := time.Now()
	if err := Unlock(a); err != nil {
		t.Fatal(err)
	}
	select {
	case at := <-got:
		if at.Before(released) {
			t.Fatal("lock taken before it was released")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the lock was never handed over")
	}
}
