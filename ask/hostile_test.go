//go:build linux

package ask

import (
	"context"
	"io"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// DEFECT: the tty backend reads whatever is already waiting in the
// terminal's input queue as the answer. A "y" typed before the question
// was ever drawn (type-ahead, a double-typed answer to the previous
// question, a key pressed while the agent ran a command in this terminal)
// approves a call nobody saw. askd drains type-ahead ("type-ahead is not an
// answer to a question not yet shown"); the tty backend does not.
// Correct: flush pending input (tcflush(TCIFLUSH) / TCFLSH) before writing
// the question, so only input typed after it is an answer.
func TestHostileTTYTypeAheadApprovesUnseenQuestion(t *testing.T) {
	out, screen := runTTYChild(t, "700ms", "y\n", "")
	if out.Answer == Allow {
		t.Fatalf("a 'y' typed before the question was shown approved it: %+v\nterminal:\n%s", out, screen)
	}
}

// DEFECT: Ctrl-D (end of input) at the tty prompt is recorded as
// "timeout" at once ("no answer within 60s") and handed to ask_fallback —
// which is allow under the default profile. The person at the terminal
// dismissed a "[y/N]" prompt; that is a refusal (N is the default), never
// a silent approval, and it was not a timeout.
// Correct: EOF on the terminal (or any read error that is not the
// deadline) is Deny/reached by a person, or at least not Asked=timeout
// while time is left.
func TestHostileTTYEndOfInputIsFallbackNotRefusal(t *testing.T) {
	out, screen := runTTYChild(t, "10s", "", "\x04")
	if out.Answer != Deny {
		t.Fatalf("Ctrl-D at a [y/N] prompt gave %+v (ask_fallback decides; default profile: allow)\nterminal:\n%s", out, screen)
	}
}

// DEFECT: the question on the askd terminal (and the tty) says "no answer
// is no", but when the list includes "fallback" (the default) an
// unanswered ask is Fallback, and the default profile's ask_fallback is
// allow: not answering approves. The prompt lies to the person about the
// consequence of walking away.
// Correct: the question states what no answer does (pass the effective
// ask_fallback into the Channel, or word it "no answer: the policy's
// ask_fallback decides"), or an ask a person was shown and did not answer
// is refused.
func TestHostileQuestionPromisesNoAnswerIsNo(t *testing.T) {
	home := shortHome(t)
	d := startDaemon(t, home)
	c, err := New(Options{Home: home, Getenv: env("AIRLOCK_ASK_BACKEND", "socket,fallback", "AIRLOCK_ASK_TIMEOUT", "500ms")})
	if err != nil {
		t.Fatal(err)
	}
	out := c.Ask(context.Background(), Request{Source: "mcp", Tool: "t", Rule: "r"})
	shown := d.out.String()
	if strings.Contains(shown, "no answer is no") && out.Answer != Deny {
		t.Fatalf("the prompt said %q, and no answer gave %+v (ask_fallback decides: allow under default)", "no answer is no", out)
	}
}

// hookOut is askd's screen; before the question's first line is written it
// runs hook once (a key typed while the question is being drawn).
type hookOut struct {
	syncBuf
	hook func()
}

func (h *hookOut) Write(p []byte) (int, error) {
	if h.hook != nil && strings.Contains(string(p), "Airlock asks about a call") {
		f := h.hook
		h.hook = nil
		f()
	}
	return h.syncBuf.Write(p)
}

// DEFECT: askd's type-ahead drain is one non-blocking sweep of the lines
// channel taken before the question is printed. A line the reader
// goroutine delivers after that sweep but before the question is on the
// screen (here: typed while its first line was being drawn; in practice,
// the later lines of a burst "y\ny\ny\n", which the reader goroutine hands
// over one at a time) answers the question. Correct: stamp each line with
// when it was read and accept only lines read after the question (and its
// "Allow this call?") was fully written.
func TestHostileAskdTypeAheadBeforeQuestionIsShown(t *testing.T) {
	home := shortHome(t)
	pr, pw := io.Pipe()
	out := &hookOut{}
	out.hook = func() { io.WriteString(pw, "y\n") }
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- (&Daemon{Home: home, In: pr, Out: out}).Serve(ctx) }()
	t.Cleanup(func() { cancel(); pw.Close(); <-done })
	deadline := time.Now().Add(5 * time.Second)
	for {
		if askdListening(home) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("askd did not start")
		}
		time.Sleep(5 * time.Millisecond)
	}
	c, _ := New(Options{Home: home, Getenv: env("AIRLOCK_ASK_BACKEND", "socket", "AIRLOCK_ASK_TIMEOUT", "700ms")})
	got := c.Ask(context.Background(), Request{Source: "mcp", Tool: "t", Rule: "r"})
	if got.Answer == Allow {
		t.Fatalf("a line typed before the question was on the screen approved it: %+v\nscreen:\n%s", got, out.String())
	}
}

// DEFECT: when askd stops (Ctrl-C / Ctrl-D, which its own message says
// sends "asks now go to the next backend"), questions still waiting in its
// queue are never closed: their callers wait out the whole timeout, are
// recorded as "timeout" ("asked a person via socket; no answer") although
// no person ever saw them, and never reach the next backend.
// Correct: on stop, close every queued connection (drain the queue) so the
// caller moves on to the next backend at once.
func TestHostileAskdStopStrandsQueuedQuestions(t *testing.T) {
	home := shortHome(t)
	d := startDaemon(t, home)
	desk := &fakeDesk{answer: Deny, reached: true}
	c, err := New(Options{Home: home, Desktop: desk.run,
		Getenv: env("AIRLOCK_ASK_BACKEND", "socket,desktop", "AIRLOCK_ASK_TIMEOUT", "2s", "AIRLOCK_ASK_REMEMBER", "0")})
	if err != nil {
		t.Fatal(err)
	}
	first := make(chan Outcome, 1)
	go func() {
		first <- c.Ask(context.Background(), Request{Source: "mcp", Tool: "t", Target: "/one", Rule: "r"})
	}()
	d.waitFor(t, `"/one"`)
	// five more queue behind /one (the prompter's select between ctx.Done
	// and the queue is random, so a stop strands most of them)
	start := time.Now()
	rest := make(chan Outcome, 5)
	for i := 0; i < 5; i++ {
		go func() {
			rest <- c.Ask(context.Background(), Request{Source: "mcp", Tool: "t", Target: "/queued", Rule: "r"})
		}()
	}
	time.Sleep(200 * time.Millisecond)
	d.stop()
	<-first
	for i := 0; i < 5; i++ {
		if o := <-rest; o.Asked == "timeout" || !strings.Contains(o.Detail, "via desktop") {
			t.Fatalf("a question queued when askd stopped: %+v after %s (never shown, recorded as a person's timeout, next backend never tried)", o, time.Since(start).Round(time.Millisecond))
		}
	}
}

// DEFECT (low): Quote cuts the escaped text at a rune count, so the cut can
// fall inside an escape: half of "\\" (a dangling backslash that now
// escapes the "…"), or "\u20" of "\u202e". The shown value is then not a
// faithful escaped prefix. Correct: cut on escape boundaries (escape rune
// by rune and stop before the escape that would pass maxShown).
func TestHostileQuoteCutsInsideAnEscape(t *testing.T) {
	partial := regexp.MustCompile(`(^|[^\\])(\\\\)*\\(x[0-9a-f]?|u[0-9a-fA-F]{0,3}|U[0-9a-fA-F]{0,7})?…`)
	for _, s := range []string{
		strings.Repeat("a", maxShown-1) + `\` + strings.Repeat("b", 50),
		strings.Repeat("a", maxShown-2) + "\u202e" + strings.Repeat("b", 50),
		strings.Repeat("a", maxShown-1) + "\x1b" + strings.Repeat("b", 50),
	} {
		q := quote(s)
		cut := q[:strings.Index(q, "…")+len("…")]
		if partial.MatchString(cut) {
			t.Errorf("cut inside an escape: …%q", cut[len(cut)-16:])
		}
	}
}

// DEFECT (low): AIRLOCK_ASK_REMEMBER=0 is documented as "always ask", yet
// a second caller asking about the same shape while the first is being
// asked is settled by the first person's answer and recorded as
// "remembered" — a remembered answer with remembering switched off.
// Correct: with remember 0, do not share in-flight answers (or record the
// waiter as its own kind, not "remembered").
func TestHostileRememberZeroStillReusesAnswers(t *testing.T) {
	desk := &fakeDesk{answer: Allow, reached: true, wait: 150 * time.Millisecond}
	c, _ := New(Options{Getenv: env("AIRLOCK_ASK_BACKEND", "desktop", "AIRLOCK_ASK_REMEMBER", "0"), Desktop: desk.run})
	var wg sync.WaitGroup
	outs := make([]Outcome, 2)
	for i := range outs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			outs[i] = c.Ask(context.Background(), Request{Tool: "t", Shape: "same"})
		}()
		time.Sleep(20 * time.Millisecond)
	}
	wg.Wait()
	for _, o := range outs {
		if o.Asked == "remembered" {
			t.Fatalf("AIRLOCK_ASK_REMEMBER=0, yet an answer was reused as remembered: %+v (%d prompts)", outs, desk.calls.Load())
		}
	}
}

// REGRESSION (passes): hostile AIRLOCK_ASK_* values are refused, never
// turned into a zero, negative or unbounded timeout.
func TestHostileAskEnvEdgeCases(t *testing.T) {
	for _, v := range []string{"+Inf", "-Inf", "NaN", "1e9", "1e300", " 60 ", "-1", "0", "1e-12", "25h", "-0"} {
		if c, err := New(Options{Getenv: env("AIRLOCK_ASK_TIMEOUT", v)}); err == nil {
			t.Errorf("AIRLOCK_ASK_TIMEOUT=%q accepted as %s", v, c.Timeout())
		}
	}
}
