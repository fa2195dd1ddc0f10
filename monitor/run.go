package monitor

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/agentairlock/airlock/audit"
	"github.com/agentairlock/airlock/report"
)

// Options tune a monitor run.
type Options struct {
	Keep     int           // records the board holds (the full-screen view)
	Tail     int           // records plain mode prints at start
	Interval time.Duration // how often the log is polled
	Color    bool          // colour the board (plain mode never is)
	UserHome string        // the user's home, shown as ~ on the board
}

// DefaultOptions keep 1000 records, print the last 20 in plain mode and
// poll four times a second.
var DefaultOptions = Options{Keep: 1000, Tail: 20, Interval: 250 * time.Millisecond}

// RunBoard shows the full-screen board on the terminal until the user
// quits or ctx is done.
func RunBoard(ctx context.Context, home string, o Options) error {
	f := newFollower(home, o.Keep)
	first, err := f.Start()
	if err != nil {
		return err
	}
	p := tea.NewProgram(NewBoard(home, f, first, o), tea.WithContext(ctx))
	// a signal stops the board as q does: bubbletea and ctx both hear it,
	// and either may be first
	if _, err := p.Run(); err != nil && ctx.Err() == nil && !errors.Is(err, tea.ErrInterrupted) {
		return fmt.Errorf("monitor: %w", err)
	}
	return nil
}

// RunPlain prints the last o.Tail records, one escaped line each (the
// format of airlock log, see PlainLine), then every new record as it is
// appended until ctx is done; with once it returns after the tail. The
// chain status goes to status: once at start, and again if the chain
// breaks.
func RunPlain(ctx context.Context, home string, out, status io.Writer, once bool, o Options) error {
	f := newFollower(home, o.Tail)
	first, err := f.Start()
	if err != nil {
		return err
	}
	fmt.Fprintf(status, "airlock monitor: %s\n", first.Chain)
	emit := func(r audit.Record) { fmt.Fprintln(out, plainLine(r)) }
	for _, r := range first.Records {
		emit(r)
	}
	if once {
		return nil
	}
	broken := first.Chain.Broken != ""
	t := time.NewTicker(o.Interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
		ch, err := f.PollEach(emit)
		if err != nil {
			return err
		}
		if ch.Broken != "" && !broken {
			broken = true
			fmt.Fprintf(status, "airlock monitor: %s\n", ch)
		}
	}
}

// plainLine is r as airlock log prints it, except that a call that ran
// only because of observe mode says so where the result is, and again at
// the end: its result reads observe:block (or observe:ask), never allow.
func plainLine(r audit.Record) string {
	if !observed(r) {
		return report.LogLine(r)
	}
	c := r
	c.Effective, c.Decision = observedResult(r), observedResult(r)
	return report.LogLine(c) + " [" + observedNote(r) + "]"
}
