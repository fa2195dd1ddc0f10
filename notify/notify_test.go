package notify

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentairlock/airlock/internal/flock"
)

type sent struct{ title, body string }

type recorder struct {
	mu  sync.Mutex
	got []sent
}

func (r *recorder) send(title, body string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.got = append(r.got, sent{title, body})
	return nil
}

func (r *recorder) take() []sent {
	r.mu.Lock()
	defer r.mu.Unlock()
	got := r.got
	r.got = nil
	return got
}

type clock struct{ t time.Time }

func (c *clock) now() time.Time          { return c.t }
func (c *clock) advance(d time.Duration) { c.t = c.t.Add(d) }
func newClock() *clock                   { return &clock{t: time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)} }
func envOf(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

func newTestNotifier(home string, env map[string]string, c *clock, r *recorder) *Notifier {
	return New(Options{AirlockHome: home, Getenv: envOf(env), Now: c.now, GOOS: "linux", Send: r.send})
}

func block(i int) Block {
	return Block{Source: "hook", Tool: "Read", Target: fmt.Sprintf("/secret/%d", i), Rule: "secrets.ssh", Reason: "reading SSH private keys", Fix: "airlock allow last"}
}

func TestAirlockNotifyZeroTurnsNotificationsOff(t *testing.T) {
	for _, tc := range []struct {
		value string
		want  int
	}{
		{"0", 0}, {"false", 0}, {"OFF", 0}, {" no ", 0},
		{"", 1}, {"1", 1}, {"yes", 1},
	} {
		t.Run(tc.value, func(t *testing.T) {
			r := &recorder{}
			n := newTestNotifier(t.TempDir(), map[string]string{"AIRLOCK_NOTIFY": tc.value}, newClock(), r)
			n.Blocked(block(1))
			if got := len(r.take()); got != tc.want {
				t.Fatalf("AIRLOCK_NOTIFY=%q: %d notifications, want %d", tc.value, got, tc.want)
			}
		})
	}
}

// One table drives a clock and a sequence of blocks through one notifier;
// each step says how many notifications it must produce.
func TestCooldownSuppressesOnlyTheSameBlock(t *testing.T) {
	same, other := block(1), block(2)
	otherRule := block(1)
	otherRule.Rule = "secrets.aws"
	otherTool := block(1)
	otherTool.Tool = "Edit"
	steps := []struct {
		name    string
		advance time.Duration
		b       Block
		want    int
	}{
		{"first", 0, same, 1},
		{"repeat at once", time.Second, same, 0},
		{"different target", 0, other, 1},
		{"different rule", 0, otherRule, 1},
		{"different tool", 0, otherTool, 1},
		{"repeat before cooldown ends", 18 * time.Second, same, 0},
		{"repeat after cooldown", 2 * time.Second, same, 1},
		{"repeat again at once", 0, same, 0},
	}
	r, c := &recorder{}, newClock()
	env := map[string]string{"AIRLOCK_NOTIFY_MAX": "100"}
	n := newTestNotifier(t.TempDir(), env, c, r)
	for _, s := range steps {
		c.advance(s.advance)
		n.Blocked(s.b)
		if got := r.take(); len(got) != s.want {
			t.Fatalf("%s: %d notifications %v, want %d", s.name, len(got), got, s.want)
		}
	}
}

func TestBurstOfTwelveFoldsIntoOneMessageAfterTheWindow(t *testing.T) {
	r, c := &recorder{}, newClock()
	n := newTestNotifier(t.TempDir(), nil, c, r)
	for i := range 12 {
		n.Blocked(block(i))
		c.advance(time.Second)
	}
	if got := r.take(); len(got) != 5 {
		t.Fatalf("burst of 12 in one window: %d notifications, want 5", len(got))
	}
	c.advance(time.Minute)
	n.Blocked(block(100))
	want := []sent{
		{"Airlock", "7 more blocked — airlock report"},
		{"Airlock blocked Read (hook)", "\"/secret/100\" — secrets.ssh: reading SSH private keys. Fix: airlock allow last"},
	}
	if got := r.take(); !reflect.DeepEqual(got, want) {
		t.Fatalf("first block after the window:\n got %q\nwant %q", got, want)
	}
	// The fold message counted toward the new window: 3 more fit, not 4.
	for i := 200; i < 210; i++ {
		n.Blocked(block(i))
	}
	if got := len(r.take()); got != 3 {
		t.Fatalf("rest of the new window: %d notifications, want 3", got)
	}
}

func TestFoldIsAnnouncedEvenWhenTheNextBlockIsInCooldown(t *testing.T) {
	r, c := &recorder{}, newClock()
	env := map[string]string{"AIRLOCK_NOTIFY_MAX": "1", "AIRLOCK_NOTIFY_WINDOW": "10", "AIRLOCK_NOTIFY_COOLDOWN": "1h"}
	n := newTestNotifier(t.TempDir(), env, c, r)
	n.Blocked(block(1))
	n.Blocked(block(2))
	c.advance(11 * time.Second)
	n.Blocked(block(1)) // within its cooldown: not shown, but the fold is due
	want := []sent{{"Airlock", "1 more blocked — airlock report"}}
	if got := r.take()[1:]; !reflect.DeepEqual(got, want) {
		t.Fatalf("got %q, want %q", got, want)
	}
}

// Two Notifiers on one home stand for two airlock-hook processes.
func TestStateIsSharedBetweenProcesses(t *testing.T) {
	home, c := t.TempDir(), newClock()
	ra, rb := &recorder{}, &recorder{}
	a := newTestNotifier(home, nil, c, ra)
	b := newTestNotifier(home, nil, c, rb)
	a.Blocked(block(1))
	b.Blocked(block(1))
	if got := len(rb.take()); got != 0 {
		t.Fatalf("second process repeated a block the first showed %d time(s) within cooldown", got)
	}
	for i := 2; i <= 4; i++ {
		a.Blocked(block(i))
	}
	b.Blocked(block(5))
	b.Blocked(block(6))
	if na, nb := len(ra.take()), len(rb.take()); na != 4 || nb != 1 {
		t.Fatalf("budget of 5 across processes: a sent %d, b sent %d; want 4 and 1", na, nb)
	}
	c.advance(time.Minute)
	a.Blocked(block(7))
	if got := ra.take(); len(got) != 2 || got[0].body != "1 more blocked — airlock report" {
		t.Fatalf("fold counted in process b not announced by process a: %q", got)
	}
}

func TestCorruptStateFileIsReset(t *testing.T) {
	for _, tc := range []struct{ name, content string }{
		{"garbage", "not json {"},
		{"wrong type", `{"v":1,"sent":"five"}`},
		{"unknown version", `{"v":2}`},
		{"negative counters", `{"v":1,"window_start":1,"sent":-1}`},
		{"budget exhausted beyond range", `{"v":1,"sent":999999}`},
		{"bad key", `{"v":1,"last":{"../../etc":1}}`},
		{"oversized", `{"v":1,"pad":"` + strings.Repeat("x", maxStateBytes) + `"}`},
		{"json null", "null"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			home, r := t.TempDir(), &recorder{}
			path := filepath.Join(home, stateFile)
			if err := os.WriteFile(path, []byte(tc.content), 0o600); err != nil {
				t.Fatal(err)
			}
			newTestNotifier(home, nil, newClock(), r).Blocked(block(1))
			if got := len(r.take()); got != 1 {
				t.Fatalf("after a %s state file: %d notifications, want 1", tc.name, got)
			}
			st, err := readState(path)
			if err != nil || st.Sent != 1 {
				t.Fatalf("state file not rewritten as fresh: %+v, %v", st, err)
			}
		})
	}
}

func TestStateFileIsPrivateAndHoldsNoTarget(t *testing.T) {
	home := t.TempDir()
	newTestNotifier(home, nil, newClock(), &recorder{}).Blocked(block(1))
	path := filepath.Join(home, stateFile)
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Fatalf("notify.json mode %v, want 0600", fi.Mode().Perm())
	}
	data, _ := os.ReadFile(path)
	if strings.Contains(string(data), "secret") {
		t.Fatalf("notify.json repeats the target: %s", data)
	}
}

func TestLockHeldByAnotherDropsWithoutWaiting(t *testing.T) {
	home, r := t.TempDir(), &recorder{}
	held, err := os.OpenFile(filepath.Join(home, lockFile), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	if err := flock.Lock(held); err != nil {
		t.Skip("no file locking here:", err)
	}
	n := newTestNotifier(home, nil, newClock(), r)
	done := make(chan struct{})
	go func() {
		n.Blocked(block(1))
		n.Blocked(block(2)) // an abandoned wait is outstanding: drops at once
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Blocked waited for a lock another process holds")
	}
	if got := r.take(); len(got) != 0 {
		t.Fatalf("sent without the state lock: %q", got)
	}
	if err := flock.Unlock(held); err != nil {
		t.Fatal(err)
	}
	// the abandoned waiter takes and releases the lock, then ends (Wait
	// does not wait for it: a lock held for ever must not hold Wait)
	for deadline := time.Now().Add(10 * time.Second); n.abandoned.Load() > 0; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the abandoned lock wait never ended")
		}
	}
	n.Blocked(block(3))
	if got := len(r.take()); got != 1 {
		t.Fatalf("after the lock was released: %d notifications, want 1", got)
	}
}

func TestHostileStringsAreEscapedInWhatIsSent(t *testing.T) {
	r := &recorder{}
	n := newTestNotifier(t.TempDir(), nil, newClock(), r)
	n.Blocked(Block{
		Tool:   "Read\x1b]0;pwned\x07",
		Source: "mcp:\u202eevil",
		Target: "/tmp/a\r\nAirlock allowed everything",
		Rule:   "secrets\u200b.ssh",
		Reason: "why\x00\u2066",
		Fix:    "airlock allow last\nrm -rf ~",
	})
	got := r.take()
	if len(got) != 1 {
		t.Fatalf("%d notifications, want 1", len(got))
	}
	for _, s := range []string{got[0].title, got[0].body} {
		for _, bad := range []string{"\x1b", "\x07", "\r", "\n", "\x00", "\u202e", "\u200b", "\u2066"} {
			if strings.Contains(s, bad) {
				t.Errorf("%q reaches the desktop unescaped in %q", bad, s)
			}
		}
	}
	for _, want := range []string{`\x1b`, `\u202e`, `\r\n`} {
		if !strings.Contains(got[0].title+got[0].body, want) {
			t.Errorf("escape %s missing from %q", want, got[0])
		}
	}
}

func TestTextIsCappedAndKeepsTheFix(t *testing.T) {
	b := Block{Tool: strings.Repeat("T", 500), Target: strings.Repeat("p", 1000), Rule: "r", Reason: strings.Repeat("why ", 200), Fix: "airlock allow last"}
	ti, bo := title(b), body(b)
	if n := len([]rune(ti)); n > maxTitleRunes {
		t.Errorf("title has %d runes, cap %d", n, maxTitleRunes)
	}
	if n := len([]rune(bo)); n > maxBodyRunes {
		t.Errorf("body has %d runes, cap %d", n, maxBodyRunes)
	}
	if !strings.HasSuffix(bo, ". Fix: airlock allow last") {
		t.Errorf("the fix was clipped away: %q", bo)
	}
}

func TestBodyFormat(t *testing.T) {
	for _, tc := range []struct {
		b    Block
		want string
	}{
		{Block{Target: "~/.ssh/id_rsa", Rule: "secrets.ssh", Reason: "reading SSH private keys", Fix: "airlock allow last"},
			`"~/.ssh/id_rsa"` + " — secrets.ssh: reading SSH private keys. Fix: airlock allow last"},
		{Block{Target: "curl x | sh", Rule: "forbid.download_exec", Reason: "download and execute.", Fix: "airlock report"},
			`"curl x | sh"` + " — forbid.download_exec: download and execute. Fix: airlock report"},
		{Block{Reason: "no rule"}, "no rule."},
		{Block{}, "Blocked."},
	} {
		if got := body(tc.b); got != tc.want {
			t.Errorf("body(%+v)\n got %q\nwant %q", tc.b, got, tc.want)
		}
	}
}

func TestNilAndHomelessNotifiersDoNothing(t *testing.T) {
	var n *Notifier
	n.Blocked(block(1))
	n.Wait()
	r := &recorder{}
	New(Options{Send: r.send}).Blocked(block(1))
	New(Options{AirlockHome: filepath.Join(t.TempDir(), "missing"), Send: r.send}).Blocked(block(1))
	if got := r.take(); len(got) != 0 {
		t.Fatalf("sent without a usable home: %q", got)
	}
}

func TestConfigFromEnvironment(t *testing.T) {
	def := config{on: true, cooldown: defaultCooldown, window: defaultWindow, max: defaultMax}
	for _, tc := range []struct {
		env  map[string]string
		want config
	}{
		{nil, def},
		{map[string]string{"AIRLOCK_NOTIFY_COOLDOWN": "5"}, config{true, 5 * time.Second, defaultWindow, defaultMax}},
		{map[string]string{"AIRLOCK_NOTIFY_COOLDOWN": "1m30s"}, config{true, 90 * time.Second, defaultWindow, defaultMax}},
		{map[string]string{"AIRLOCK_NOTIFY_COOLDOWN": "0"}, config{true, 0, defaultWindow, defaultMax}},
		{map[string]string{"AIRLOCK_NOTIFY_COOLDOWN": "-3"}, def},
		{map[string]string{"AIRLOCK_NOTIFY_COOLDOWN": "soon"}, def},
		{map[string]string{"AIRLOCK_NOTIFY_COOLDOWN": "99999999999999999999"}, def},
		{map[string]string{"AIRLOCK_NOTIFY_COOLDOWN": "25h"}, def},
		{map[string]string{"AIRLOCK_NOTIFY_WINDOW": "0"}, def},
		{map[string]string{"AIRLOCK_NOTIFY_WINDOW": " 120 "}, config{true, defaultCooldown, 2 * time.Minute, defaultMax}},
		{map[string]string{"AIRLOCK_NOTIFY_MAX": "0"}, def},
		{map[string]string{"AIRLOCK_NOTIFY_MAX": "1001"}, def},
		{map[string]string{"AIRLOCK_NOTIFY_MAX": "2.5"}, def},
		{map[string]string{"AIRLOCK_NOTIFY_MAX": "12"}, config{true, defaultCooldown, defaultWindow, 12}},
		{map[string]string{"AIRLOCK_NOTIFY": "0", "AIRLOCK_NOTIFY_MAX": "12"}, config{false, defaultCooldown, defaultWindow, 12}},
	} {
		if got := loadConfig(envOf(tc.env)); got != tc.want {
			t.Errorf("env %v: got %+v, want %+v", tc.env, got, tc.want)
		}
	}
}

func TestCooldownKeysAreBounded(t *testing.T) {
	c := config{on: true, cooldown: time.Hour, window: time.Minute, max: maxMax}
	st := state{V: stateVersion}
	for i := range maxKeys + 50 {
		st.apply(blockKey(block(i)), int64(1000+i), c)
	}
	if len(st.Last) != maxKeys {
		t.Fatalf("after %d distinct blocks: %d keys, want %d", maxKeys+50, len(st.Last), maxKeys)
	}
	if _, kept := st.Last[blockKey(block(0))]; kept {
		t.Fatal("the oldest key was kept and a newer one forgotten")
	}
	if err := st.validate(); err != nil {
		t.Fatalf("pruned state does not validate: %v", err)
	}
}

// BenchmarkBlocked measures one call with the fake sender. "shown" and
// "folded" rewrite notify.json (atomicfile: temp file, fsync, rename), which
// dominates; "cooldown" only takes the lock and reads; "off" is the switch.
func BenchmarkBlocked(b *testing.B) {
	for _, bc := range []struct {
		name    string
		env     map[string]string
		advance time.Duration
		same    bool
	}{
		{"shown", map[string]string{"AIRLOCK_NOTIFY_MAX": "1000", "AIRLOCK_NOTIFY_COOLDOWN": "1"}, time.Second, false},
		{"folded", map[string]string{"AIRLOCK_NOTIFY_MAX": "1", "AIRLOCK_NOTIFY_COOLDOWN": "0", "AIRLOCK_NOTIFY_WINDOW": "24h"}, time.Millisecond, false},
		{"cooldown", map[string]string{"AIRLOCK_NOTIFY_COOLDOWN": "24h"}, time.Millisecond, true},
		{"off", map[string]string{"AIRLOCK_NOTIFY": "0"}, 0, false},
	} {
		b.Run(bc.name, func(b *testing.B) {
			r, c := &recorder{}, newClock()
			n := newTestNotifier(b.TempDir(), bc.env, c, r)
			blocks := make([]Block, 64)
			for i := range blocks {
				blocks[i] = block(i)
			}
			n.Blocked(blocks[0])
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				c.advance(bc.advance)
				if bc.same {
					n.Blocked(blocks[0])
				} else {
					n.Blocked(blocks[i%len(blocks)])
				}
				r.take()
			}
		})
	}
}
