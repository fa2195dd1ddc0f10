package taint

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

func newStore(t testing.TB) (*Store, *clock) {
	t.Helper()
	dir := t.TempDir()
	if err := os.Chmod(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	c := &clock{t: time.Date(2026, 12, 2, 12, 3, 0, 0, time.Local)}
	return Open(dir, c.now), c
}

func TestMarkTaintsUntilTheTTLEnds(t *testing.T) {
	s, c := newStore(t)
	if e, err := s.Of("s1"); err != nil || e != nil {
		t.Fatalf("a fresh home: %v, %v; want no entry", e, err)
	}
	src := Source{Origin: "hook", Tool: "mcp__notes__read_note", What: "instructions to read ~/.ssh/id_rsa", Rule: "inject.override"}
	if ch, err := s.Mark("s1", src, time.Hour); err != nil || !ch {
		t.Fatalf("Mark: changed %v, %v", ch, err)
	}
	e, err := s.Of("s1")
	if err != nil || !e.Tainted(c.t) {
		t.Fatalf("s1 not tainted after Mark: %+v, %v", e, err)
	}
	want := "the result of mcp__notes__read_note at 12:03: instructions to read ~/.ssh/id_rsa"
	if got := e.Provenance(); got != want {
		t.Errorf("provenance %q, want %q", got, want)
	}
	if other, _ := s.Of("s2"); other.Tainted(c.t) {
		t.Error("another session is tainted too")
	}
	c.t = c.t.Add(time.Hour)
	if e, _ := s.Of("s1"); e.Tainted(c.t) {
		t.Error("the taint outlived its ttl")
	}
}

func TestMarkWritesOnlyWhenTaintChanges(t *testing.T) {
	s, _ := newStore(t)
	src := Source{Origin: "hook", Tool: "WebFetch", What: "an override", Rule: "inject.override"}
	if ch, _ := s.Mark("s1", src, time.Hour); !ch {
		t.Fatal("the first Mark wrote nothing")
	}
	fi, err := os.Stat(s.path("s1"))
	if err != nil {
		t.Fatal(err)
	}
	if ch, err := s.Mark("s1", src, time.Hour); ch || err != nil {
		t.Errorf("the same source again: changed %v, %v", ch, err)
	}
	if fi2, _ := os.Stat(s.path("s1")); !os.SameFile(fi, fi2) {
		t.Error("the state file was replaced although nothing changed")
	}
	for i := range 8 {
		src.Tool = "mcp__s__t" + string(rune('a'+i))
		_, _ = s.Mark("s1", src, time.Hour)
	}
	if e, _ := s.Of("s1"); len(e.Sources) != maxSources || !strings.Contains(e.Provenance(), "WebFetch") {
		t.Errorf("sources %d (want %d, the first kept): %s", len(e.Sources), maxSources, e.Provenance())
	}
}

func TestHostsLearntOnlyBeforeTheTaint(t *testing.T) {
	s, _ := newStore(t)
	if err := s.UseHosts("s1", []string{"api.github.com"}); err != nil {
		t.Fatal(err)
	}
	_, _ = s.Mark("s1", Source{Tool: "WebFetch", What: "x"}, time.Hour)
	if err := s.UseHosts("s1", []string{"evil.example"}); err != nil {
		t.Fatal(err)
	}
	e, _ := s.Of("s1")
	if !e.KnownHost("api.github.com") || e.KnownHost("evil.example") {
		t.Errorf("hosts %v: want api.github.com known and a host reached after the taint not", e.Hosts)
	}
}

func TestClearEndsTheTaintAndKeepsHosts(t *testing.T) {
	s, c := newStore(t)
	_ = s.UseHosts("s1", []string{"api.github.com"})
	_, _ = s.Mark("s1", Source{Tool: "WebFetch", What: "x"}, time.Hour)
	if was, err := s.Clear("s1"); !was || err != nil {
		t.Fatalf("Clear: was %v, %v", was, err)
	}
	e, _ := s.Of("s1")
	if e.Tainted(c.t) || !e.KnownHost("api.github.com") {
		t.Errorf("after Clear: %+v", e)
	}
	if was, _ := s.Clear("nobody"); was {
		t.Error("clearing an unknown session reports a taint")
	}
}

func TestStateIsBounded(t *testing.T) {
	s, _ := newStore(t)
	for i := range maxSessions + 20 {
		if _, err := s.Mark("session-"+strings.Repeat("x", i%7)+string(rune('A'+i%26))+string(rune('a'+i/26)), Source{Tool: "WebFetch", What: strings.Repeat("w", 1000)}, time.Hour); err != nil {
			t.Fatal(err)
		}
	}
	es, err := s.List()
	if err != nil || len(es) > maxSessions {
		t.Fatalf("%d sessions (max %d), %v", len(es), maxSessions, err)
	}
	if _, err := s.Mark(strings.Repeat("s", maxSession+1), Source{}, 0); err == nil {
		t.Error("an overlong session id was accepted")
	}
}

func TestBadStateIsAnError(t *testing.T) {
	s, _ := newStore(t)
	_ = os.Mkdir(s.dir(), 0o700)
	if err := os.WriteFile(s.path("s1"), []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Of("s1"); err == nil {
		t.Fatal("a corrupt taint.json read as no taint")
	}
	// a person's clear starts it over
	if _, err := s.Clear("s1"); err != nil {
		t.Fatal(err)
	}
	if e, err := s.Of("s1"); err != nil || e == nil {
		t.Fatalf("after clear: %v, %v", e, err)
	}
}

func TestStateFileIsNotFollowed(t *testing.T) {
	s, _ := newStore(t)
	target := filepath.Join(t.TempDir(), "elsewhere")
	if err := os.WriteFile(target, []byte(`{"v":1}`), 0o600); err != nil {
		t.Fatal(err)
	}
	_ = os.Mkdir(s.dir(), 0o700)
	if err := os.Symlink(target, s.path("s1")); err != nil {
		t.Skip("no symlinks here:", err)
	}
	if _, err := s.Of("s1"); err == nil {
		t.Error("an entry that is a link was read")
	}
}

// BenchmarkOfUntainted: what a PreToolUse pays when no session was ever
// tainted (no taint.json).
func BenchmarkOfUntainted(b *testing.B) {
	s, _ := newStore(b)
	for b.Loop() {
		_, _ = s.Of("s1")
	}
}

// BenchmarkOfTainted: a state with 64 sessions, one of them tainted.
func BenchmarkOfTainted(b *testing.B) {
	s, _ := newStore(b)
	for i := range 64 {
		_ = s.UseHosts("s"+string(rune('A'+i)), []string{"api.github.com", "registry.npmjs.org"})
	}
	_, _ = s.Mark("s1", Source{Tool: "mcp__notes__read_note", What: "instructions to read ~/.ssh/id_rsa"}, time.Hour)
	for b.Loop() {
		_, _ = s.Of("s1")
	}
}
