package ask

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/agentairlock/airlock/ask/question"
	"github.com/agentairlock/airlock/audit"
)

// The vocabulary of an ask lives in ask/question, which gate links
// without this package's socket and prompts; these are its names here.
type (
	// Request is what the broker observed about a call the policy asks about.
	Request = question.Request
	// Answer is what became of an ask.
	Answer = question.Answer
	// Outcome is an answer and how it was reached.
	Outcome = question.Outcome
)

// Answers.
const (
	Fallback = question.Fallback // nobody answered: the policy's ask_fallback decides
	Allow    = question.Allow    // approved
	Deny     = question.Deny     // refused
)

// Shape returns the key of an exact call shape: the same tool on the same
// server with byte-identical arguments.
func Shape(source, server, tool string, input []byte) string {
	return question.Shape(source, server, tool, input)
}

// Backend names in AIRLOCK_ASK_BACKEND.
const (
	backendSocket   = "socket"
	backendTTY      = "tty"
	backendDesktop  = "desktop"
	BackendFallback = "fallback"
)

// Defaults.
const (
	defaultBackends = "socket,tty,desktop,fallback"
	defaultTimeout  = 60 * time.Second
	defaultRemember = 300 * time.Second
	// socketName is the approval daemon's socket in the Airlock home.
	socketName = "askd.sock"
	maxTimeout = 24 * time.Hour
)

// Options configure a Channel.
type Options struct {
	Home   string              // the Airlock home (askd.key, and askd.sock off Linux, live there)
	Getenv func(string) string // nil: os.Getenv
	Now    func() time.Time    // nil: time.Now
	// Auto approves every ask without asking (--yes). Such approvals are
	// recorded as automatic, never as a person's.
	Auto bool
	// TTY is the terminal the tty backend prompts on; "" is /dev/tty.
	TTY string
	// Desktop runs a desktop dialog; nil finds zenity, kdialog or
	// osascript. It returns reached=false when no dialog could be shown.
	Desktop func(ctx context.Context, title, text string, timeout time.Duration) (a Answer, reached bool, err error)
}

// Channel asks people. It is safe for concurrent use.
type Channel struct {
	o        Options
	backends []string
	fallback bool
	timeout  time.Duration
	remember time.Duration
	now      func() time.Time

	mu       sync.Mutex
	memo     map[string]memo
	inflight map[string]*flight
	tty      chan struct{} // one prompt on the terminal at a time
}

type memo struct {
	answer  Answer
	expires time.Time
}

type flight struct {
	done chan struct{}
	out  Outcome
}

// New reads AIRLOCK_ASK_BACKEND, AIRLOCK_ASK_TIMEOUT and
// AIRLOCK_ASK_REMEMBER. A value it cannot read is an error naming the
// variable: an ask channel that is not what the user configured is not
// quietly replaced by another.
func New(o Options) (*Channel, error) {
	getenv := o.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	c := &Channel{o: o, timeout: defaultTimeout, remember: defaultRemember, now: o.Now,
		memo: map[string]memo{}, inflight: map[string]*flight{}}
	if c.now == nil {
		c.now = time.Now
	}
	list := getenv("AIRLOCK_ASK_BACKEND")
	if strings.TrimSpace(list) == "" {
		list = defaultBackends
	}
	seen := map[string]bool{}
	for _, b := range strings.Split(list, ",") {
		b = strings.ToLower(strings.TrimSpace(b))
		switch b {
		case backendSocket, backendTTY, backendDesktop:
			if !seen[b] {
				c.backends = append(c.backends, b)
			}
		case BackendFallback:
			c.fallback = true
		case "":
		default:
			return nil, fmt.Errorf("AIRLOCK_ASK_BACKEND=%q: unknown backend %q (use a comma-separated list of socket, tty, desktop, fallback)", list, b)
		}
		seen[b] = true
	}
	var err error
	if v := getenv("AIRLOCK_ASK_TIMEOUT"); v != "" {
		if c.timeout, err = seconds("AIRLOCK_ASK_TIMEOUT", v, false); err != nil {
			return nil, err
		}
	}
	if v := getenv("AIRLOCK_ASK_REMEMBER"); v != "" {
		if c.remember, err = seconds("AIRLOCK_ASK_REMEMBER", v, true); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// seconds reads a count of seconds ("60") or a Go duration ("90s").
func seconds(name, v string, zeroOK bool) (time.Duration, error) {
	d, err := time.ParseDuration(v)
	if err != nil {
		n, err2 := strconv.ParseFloat(v, 64)
		if err2 != nil || n != n {
			return 0, fmt.Errorf("%s=%q is not a number of seconds (e.g. 60) or a duration (e.g. 90s)", name, v)
		}
		d = time.Duration(n * float64(time.Second))
	}
	if d < 0 || (d == 0 && !zeroOK) || d > maxTimeout {
		return 0, fmt.Errorf("%s=%q is out of range (more than 0, at most 24h)", name, v)
	}
	return d, nil
}

// Timeout is how long a person has to answer.
func (c *Channel) Timeout() time.Duration { return c.timeout }

// Backends lists the backends tried, in order, with "fallback" last when
// it is enabled.
func (c *Channel) Backends() []string {
	out := append([]string(nil), c.backends...)
	if c.fallback {
		out = append(out, BackendFallback)
	}
	return out
}

// Ask asks about r and returns the outcome; it returns within the timeout
// (plus the time to give up on a backend).
func (c *Channel) Ask(ctx context.Context, r Request) Outcome {
	if c == nil {
		return Outcome{Answer: Fallback, Asked: audit.AskedUnattended, Detail: "no ask channel"}
	}
	if c.o.Auto {
		return Outcome{Answer: Allow, Asked: audit.AskedAutomatic, Detail: "approved automatically (--yes); no person was asked"}
	}
	if r.Shape == "" || c.remember == 0 {
		// 0 always asks: not even a question being asked right now
		// answers another
		return c.ask(ctx, r)
	}
	c.mu.Lock()
	now := c.now()
	if m, ok := c.memo[r.Shape]; ok {
		if now.Before(m.expires) {
			c.mu.Unlock()
			return Outcome{Answer: m.answer, Asked: audit.AskedRemembered,
				Detail: fmt.Sprintf("a person's answer to the same call (%s), remembered until %s", m.answer, m.expires.UTC().Format(time.TimeOnly))}
		}
		delete(c.memo, r.Shape)
	}
	if f, ok := c.inflight[r.Shape]; ok {
		c.mu.Unlock()
		select {
		case <-f.done:
		case <-ctx.Done():
			return Outcome{Answer: c.unanswered(), Asked: audit.AskedTimeout, Detail: "the call was cancelled while a person was being asked"}
		}
		out := f.out
		if out.Asked == audit.AskedHuman {
			out.Asked = audit.AskedRemembered
			out.Detail = "the same call was being asked about; " + out.Detail
		}
		return out
	}
	f := &flight{done: make(chan struct{})}
	c.inflight[r.Shape] = f
	c.mu.Unlock()

	out := c.ask(ctx, r)

	c.mu.Lock()
	delete(c.inflight, r.Shape)
	if out.Asked == audit.AskedHuman && c.remember > 0 && out.Answer != Fallback {
		c.memo[r.Shape] = memo{answer: out.Answer, expires: c.now().Add(c.remember)}
		c.pruneLocked()
	}
	c.mu.Unlock()
	f.out = out
	close(f.done)
	return out
}

// maxMemo bounds the remembered answers a process keeps.
const maxMemo = 4096

func (c *Channel) pruneLocked() {
	if len(c.memo) <= maxMemo {
		return
	}
	now := c.now()
	for k, m := range c.memo {
		if !now.Before(m.expires) || len(c.memo) > maxMemo {
			delete(c.memo, k)
		}
	}
}

func (c *Channel) unanswered() Answer {
	if c.fallback {
		return Fallback
	}
	return Deny
}

// ask tries the backends in order.
func (c *Channel) ask(ctx context.Context, r Request) Outcome {
	if !c.fallback || r.Fallback == "" {
		r.Fallback = "block"
	}
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	var skipped []string
	for _, b := range c.backends {
		var res result
		switch b {
		case backendSocket:
			res = c.askSocket(ctx, r)
		case backendTTY:
			res = c.askTTY(ctx, r)
		case backendDesktop:
			res = c.askDesktop(ctx, r)
		}
		if !res.reached {
			skipped = append(skipped, b+": "+res.why)
			continue
		}
		if res.answer == Fallback {
			return Outcome{Answer: c.unanswered(), Asked: audit.AskedTimeout,
				Detail: fmt.Sprintf("asked a person via %s; no answer within %s (%s)", b, c.timeout, c.fallbackWord())}
		}
		return Outcome{Answer: res.answer, Asked: audit.AskedHuman, Detail: fmt.Sprintf("a person answered %s via %s", res.answer, b)}
	}
	why := "no backend reached a person"
	if len(skipped) > 0 {
		why += " (" + strings.Join(skipped, "; ") + ")"
	}
	return Outcome{Answer: c.unanswered(), Asked: audit.AskedUnattended, Detail: why + "; " + c.fallbackWord()}
}

func (c *Channel) fallbackWord() string {
	if c.fallback {
		return "ask_fallback decided"
	}
	return "refused: AIRLOCK_ASK_BACKEND has no fallback"
}

// result is one backend's attempt: reached says a person was put in front
// of the question; answer is Fallback when they did not answer in time.
type result struct {
	reached bool
	answer  Answer
	why     string // why not reached
}

func (c *Channel) askDesktop(ctx context.Context, r Request) result {
	run := c.o.Desktop
	if run == nil {
		run = desktopDialog(runtime.GOOS, c.getenv)
	}
	if run == nil {
		return result{why: "no dialog program or display"}
	}
	deadline, _ := ctx.Deadline()
	a, reached, err := run(ctx, "Airlock asks", plainText(r), time.Until(deadline))
	if !reached {
		why := "no dialog could be shown"
		if err != nil {
			why += ": " + err.Error()
		}
		return result{why: why}
	}
	return result{reached: true, answer: a}
}

func (c *Channel) getenv(k string) string {
	if c.o.Getenv != nil {
		return c.o.Getenv(k)
	}
	return os.Getenv(k)
}
