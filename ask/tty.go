package ask

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"
)

// askTTY prompts on the controlling terminal.
func (c *Channel) askTTY(ctx context.Context, r Request) result {
	f, why := openTerminal(ttyPath(c.o.TTY))
	if f == nil {
		return result{why: why}
	}
	defer f.Close()
	// one question on the terminal at a time; waiting counts against the
	// timeout
	select {
	case c.ttySem() <- struct{}{}:
		defer func() { <-c.ttySem() }()
	case <-ctx.Done():
		return result{reached: true, answer: Fallback}
	}
	deadline, _ := ctx.Deadline()
	if err := f.SetDeadline(deadline); err != nil {
		return result{why: "the terminal cannot time out a read (" + shortErr(err) + ")"}
	}
	stop := context.AfterFunc(ctx, func() { _ = f.SetDeadline(time.Unix(1, 0)) })
	defer stop()
	var b strings.Builder
	b.WriteString("\r\n")
	for _, l := range Lines(r) {
		b.WriteString(l + "\r\n")
	}
	b.WriteString(Question(time.Until(deadline), r.Fallback))
	// what was typed before the question was on the screen is not an
	// answer to it. Flushed before the question is written, never after:
	// a "y" typed the moment the question shows would otherwise be
	// thrown away with the type-ahead, and the call would wait out its
	// timeout.
	flushInput(f)
	if _, err := f.WriteString(b.String()); err != nil {
		return result{why: "cannot write to the terminal (" + shortErr(err) + ")"}
	}
	if questionShown != nil {
		questionShown(f)
	}
	rd := bufio.NewReader(f)
	for {
		line, err := rd.ReadString('\n')
		if err != nil {
			if errors.Is(err, os.ErrDeadlineExceeded) || ctx.Err() != nil {
				_, _ = f.WriteString("\r\nno answer in time: ask_fallback decides\r\n")
				return result{reached: true, answer: Fallback}
			}
			// Ctrl-D, or the terminal went away, at a [y/N] question: no
			_, _ = f.WriteString("\r\n→ refused\r\n")
			return result{reached: true, answer: Deny}
		}
		if a, ok := parseAnswer(line); ok {
			fmt.Fprintf(f, "→ %s\r\n", map[Answer]string{Allow: "allowed", Deny: "refused"}[a])
			return result{reached: true, answer: a}
		}
		_, _ = f.WriteString("answer y or n: ")
	}
}

// questionShown, when set (by a test), runs once the question is on the
// terminal, before the answer is read.
var questionShown func(*os.File)

func (c *Channel) ttySem() chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.tty == nil {
		c.tty = make(chan struct{}, 1)
	}
	return c.tty
}

// openTerminal opens path when it is a terminal this process may prompt
// on; otherwise it returns nil and why not.
func openTerminal(path string) (*os.File, string) {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return nil, "no terminal (" + shortErr(err) + ")"
	}
	if why := promptable(f); why != "" {
		f.Close()
		return nil, why
	}
	return f, ""
}
