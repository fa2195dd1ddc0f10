//go:build unix

package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestHookNotifiesBlocks: the built airlock-hook, one process per call,
// tells a desktop about blocks through notify-send (a stand-in on PATH
// that writes down its argv): five per window, the same block once per
// cooldown, and the rest of a burst folded into one line pointing at the
// report. Allowed calls notify nothing, and AIRLOCK_NOTIFY=0 turns it off.
func TestHookNotifiesBlocks(t *testing.T) {
	px := newProxyFixture(t)
	fake := t.TempDir()
	sent := filepath.Join(fake, "sent.log")
	script := "#!/bin/sh\nprintf '%s|%s|%s\\n' \"$1\" \"$2\" \"$3\" >> " + sent + "\n"
	if err := os.WriteFile(filepath.Join(fake, "notify-send"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	env := append(px.env[:0:0], px.env...)
	for i, kv := range env {
		if strings.HasPrefix(kv, "PATH=") {
			env[i] = "PATH=" + fake + ":" + strings.TrimPrefix(kv, "PATH=")
		}
	}
	env = append(env, "AIRLOCK_NOTIFY_WINDOW=6", "AIRLOCK_NOTIFY_COOLDOWN=20", "AIRLOCK_NOTIFY_MAX=5")
	block := func(env []string, n int) {
		t.Helper()
		key := filepath.Join(px.Home, ".ssh", fmt.Sprintf("id_rsa_%d", n))
		if r := run(t, env, event(t, "Read", `{"file_path":"`+key+`"}`, px.WS), "airlock-hook"); r.code != 2 {
			t.Fatalf("hook on %s: exit %d %s", key, r.code, r.stderr)
		}
	}
	lines := func(want int) []string {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for {
			b, _ := os.ReadFile(sent)
			got := strings.Split(strings.TrimSpace(string(b)), "\n")
			if len(b) == 0 {
				got = nil
			}
			if len(got) >= want || time.Now().After(deadline) {
				return got
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	start := time.Now()
	if r := run(t, env, event(t, "Read", `{"file_path":"`+filepath.Join(px.WS, "README.md")+`"}`, px.WS), "airlock-hook"); r.code != 0 {
		t.Fatalf("allowed read: %d %s", r.code, r.stderr)
	}
	block(env, 1)
	block(env, 1) // cooldown: the same block is not repeated
	for n := 2; n <= 8; n++ {
		block(env, n)
	}
	got := lines(5)
	if len(got) != 5 {
		t.Fatalf("%d notifications in the first window, want 5:\n%s", len(got), strings.Join(got, "\n"))
	}
	first := got[0]
	if !strings.HasPrefix(first, "--|Airlock blocked Read") || !strings.Contains(first, "id_rsa_1") || !strings.Contains(first, "secrets.") || !strings.Contains(first, "Fix: ") {
		t.Fatalf("notification %q does not say what, why and the fix", first)
	}
	if time.Since(start) > 6*time.Second {
		t.Fatalf("the burst took longer than the window; the fold cannot be checked")
	}
	time.Sleep(time.Until(start.Add(6100 * time.Millisecond)))
	block(env, 9)
	got = lines(7)
	// the fold and the new block are two programs started one after the
	// other: either may write first
	tail := strings.Join(got[min(5, len(got)):], "\n")
	if len(got) != 7 || !strings.Contains(tail, "|Airlock|3 more blocked — airlock report") || !strings.Contains(tail, "id_rsa_9") {
		t.Fatalf("after the window, want the fold and the new block:\n%s", strings.Join(got, "\n"))
	}
	off := append(env[:len(env):len(env)], "AIRLOCK_NOTIFY=0")
	block(off, 10)
	time.Sleep(300 * time.Millisecond)
	if got := lines(8); len(got) != 7 {
		t.Fatalf("AIRLOCK_NOTIFY=0 still notified:\n%s", strings.Join(got, "\n"))
	}
}
