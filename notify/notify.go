package notify

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/agentairlock/airlock/scan/secret"
)

// Block is one blocked call, as the caller would describe it to a person.
type Block struct {
	Source string // front end or server, e.g. "mcp:github"; may be empty
	Tool   string // e.g. "Read", "Bash", "create_issue"
	Target string // what the call reached for, e.g. "~/.ssh/id_rsa"
	Rule   string // rule or forbid id, e.g. "secrets.ssh"
	Reason string // why, in words
	Fix    string // the one command that fixes it, e.g. "airlock allow last"
}

// Options configures a Notifier. Every field but AirlockHome has a default.
type Options struct {
	// AirlockHome holds notify.json and notify.lock. Empty means no
	// notifications: without shared state there is no rate limit.
	AirlockHome string
	Getenv      func(string) string          // default os.Getenv
	Now         func() time.Time             // default time.Now
	GOOS        string                       // default runtime.GOOS
	LookPath    func(string) (string, error) // default exec.LookPath
	// Send shows one notification. Default: notify-send or osascript,
	// started and not waited for (see the package doc).
	Send func(title, body string) error
}

// Notifier sends rate-limited block notifications. A nil *Notifier is a
// valid no-op.
type Notifier struct {
	home     string
	cfg      config
	now      func() time.Time
	goos     string
	lookPath func(string) (string, error)

	sendOnce sync.Once
	send     func(title, body string) error

	// running counts reapers (each bounded), so Wait can wait for them.
	running sync.WaitGroup
	// abandoned counts lock waits given up on but still blocked in
	// flock: while one is outstanding, later calls drop at once rather
	// than pile up goroutines and descriptors behind a stuck lock.
	abandoned atomic.Int32
}

// New returns a Notifier configured from o and the environment it reads
// through o.Getenv. It does no I/O: the sender is looked up on first use.
func New(o Options) *Notifier {
	n := &Notifier{
		home:     o.AirlockHome,
		now:      o.Now,
		goos:     o.GOOS,
		lookPath: o.LookPath,
		send:     o.Send,
	}
	getenv := o.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	n.cfg = loadConfig(getenv)
	if n.now == nil {
		n.now = time.Now
	}
	if n.goos == "" {
		n.goos = runtime.GOOS
	}
	if n.lookPath == nil {
		n.lookPath = exec.LookPath
	}
	return n
}

// Blocked notifies about b, subject to the switch, cooldown and burst limit
// in the package doc. It never returns an error, never waits for the
// notification program, and waits for the state lock at most 25 ms.
func (n *Notifier) Blocked(b Block) {
	if n == nil || !n.cfg.on || n.home == "" {
		return
	}
	n.sendOnce.Do(func() {
		if n.send == nil {
			n.send = n.defaultSender()
		}
	})
	if n.send == nil {
		return
	}
	b = masked(b)
	fold, show := n.admit(blockKey(b))
	if fold > 0 {
		_ = n.send("Airlock", foldBody(fold))
	}
	if show {
		_ = n.send(title(b), body(b))
	}
}

// Wait waits until every notification program this Notifier started has
// exited (or been killed after 5 s). A lock wait given up on is not waited
// for: another process may hold the lock for ever.
// The hook need not call it; a long-lived process may, at shutdown.
func (n *Notifier) Wait() {
	if n == nil {
		return
	}
	n.running.Wait()
}

// blockKey identifies a block for the cooldown. It is a digest so that
// notify.json stays small and never repeats a path or command line.
// masked is b with every secret the audit log would mask masked the same
// way (scan/secret), before anything is cut to length: a notification is
// a program's argv, which every local user can read, and it lands in the
// desktop's history.
func masked(b Block) Block {
	b.Source, b.Tool, b.Target = secret.Mask(b.Source), secret.Mask(b.Tool), secret.Mask(b.Target)
	b.Rule, b.Reason, b.Fix = secret.Mask(b.Rule), secret.Mask(b.Reason), secret.Mask(b.Fix)
	return b
}

func blockKey(b Block) string {
	h := sha256.New()
	for _, s := range []string{b.Tool, b.Rule, b.Target} {
		h.Write([]byte(strconv.Itoa(len(s)))) // length-prefixed: no two tuples collide by concatenation
		h.Write([]byte{':'})
		h.Write([]byte(s))
	}
	return hex.EncodeToString(h.Sum(nil)[:16])
}

const (
	defaultCooldown = 20 * time.Second
	defaultWindow   = 60 * time.Second
	defaultMax      = 5
	maxDuration     = 24 * time.Hour
	maxMax          = 1000
)

type config struct {
	on       bool
	cooldown time.Duration
	window   time.Duration
	max      int
}

func loadConfig(getenv func(string) string) config {
	c := config{on: true, cooldown: defaultCooldown, window: defaultWindow, max: defaultMax}
	switch strings.ToLower(strings.TrimSpace(getenv("AIRLOCK_NOTIFY"))) {
	case "0", "false", "off", "no":
		c.on = false
	}
	if d, ok := parseDuration(getenv("AIRLOCK_NOTIFY_COOLDOWN")); ok {
		c.cooldown = d
	}
	if d, ok := parseDuration(getenv("AIRLOCK_NOTIFY_WINDOW")); ok && d > 0 {
		c.window = d
	}
	if m, err := strconv.Atoi(strings.TrimSpace(getenv("AIRLOCK_NOTIFY_MAX"))); err == nil && m >= 1 && m <= maxMax {
		c.max = m
	}
	return c
}

// parseDuration reads whole seconds ("20") or a Go duration ("20s") in
// [0, 24h]; anything else is not ok, and the caller keeps its default.
func parseDuration(s string) (time.Duration, bool) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, false
	}
	if secs, err := strconv.ParseInt(s, 10, 64); err == nil {
		if secs < 0 || secs > int64(maxDuration/time.Second) {
			return 0, false
		}
		return time.Duration(secs) * time.Second, true
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 || d > maxDuration {
		return 0, false
	}
	return d, true
}
