package mcpproxy

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/agentairlock/airlock/audit"
)

// gatedAppender is a batchAppender whose first AppendAll waits for release,
// so a test can queue callers behind a write in progress.
type gatedAppender struct {
	entered chan struct{}
	release chan struct{}
	err     error

	mu      sync.Mutex
	batches [][]string // the Detail of each record, per AppendAll
}

func (g *gatedAppender) AppendAll(rs []audit.Record) ([]audit.Record, error) {
	g.mu.Lock()
	first := len(g.batches) == 0
	var b []string
	for _, r := range rs {
		b = append(b, r.Detail)
	}
	g.batches = append(g.batches, b)
	g.mu.Unlock()
	if first {
		close(g.entered)
		<-g.release
	}
	if g.err != nil && !errors.Is(g.err, audit.ErrCheckpoint) {
		return nil, g.err
	}
	out := make([]audit.Record, len(rs))
	for i, r := range rs {
		r.H = "h:" + r.Detail
		out[i] = r
	}
	return out, g.err
}

func queued(c *commitLog) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.queue)
}

// waitQueued waits until n records are queued behind the write under way
// (in-process state, no clock: it yields until the goroutines got there).
func waitQueued(t *testing.T, c *commitLog, n int) {
	t.Helper()
	for i := 0; queued(c) < n; i++ {
		if i > 1e7 {
			t.Fatalf("%d records queued, want %d", queued(c), n)
		}
		runtime.Gosched()
	}
}

// TestCommitLogGroupCommit: callers that arrive while a write is under way
// share the next append (one AppendAll for all of them), each gets its own
// record back, and nobody returns before its record was written.
func TestCommitLogGroupCommit(t *testing.T) {
	for _, fail := range []error{nil, fmt.Errorf("write log: %w", syscall.ENOSPC), fmt.Errorf("%w: rename", audit.ErrCheckpoint)} {
		t.Run(fmt.Sprint(fail), func(t *testing.T) {
			g := &gatedAppender{entered: make(chan struct{}), release: make(chan struct{}), err: fail}
			c := &commitLog{log: g}
			type got struct {
				r   audit.Record
				err error
			}
			first := make(chan got, 1)
			go func() {
				r, err := c.Append(audit.Record{Event: "decision", Source: "mcp", Detail: "first"})
				first <- got{r, err}
			}()
			<-g.entered
			const n = 10
			rest := make([]chan got, n)
			for i := range rest {
				rest[i] = make(chan got, 1)
				go func(i int) {
					r, err := c.Append(audit.Record{Event: "decision", Source: "mcp", Detail: fmt.Sprint("call", i)})
					rest[i] <- got{r, err}
				}(i)
			}
			waitQueued(t, c, n)
			select {
			case r := <-first:
				t.Fatalf("Append returned before its record was written: %+v", r)
			default:
			}
			close(g.release)
			check := func(want string, r got) {
				t.Helper()
				if errors.Is(fail, syscall.ENOSPC) {
					// not written: every caller of the append is told
					if !errors.Is(r.err, syscall.ENOSPC) {
						t.Errorf("%s: error %v, want ENOSPC", want, r.err)
					}
					return
				}
				// written (a missed checkpoint is still written)
				if (fail == nil) != (r.err == nil) || fail != nil && !errors.Is(r.err, audit.ErrCheckpoint) {
					t.Errorf("%s: error %v, want %v", want, r.err, fail)
				}
				if r.r.Detail != want || r.r.H != "h:"+want {
					t.Errorf("%s: got back %+v", want, r.r)
				}
			}
			check("first", <-first)
			for i, ch := range rest {
				check(fmt.Sprint("call", i), <-ch)
			}
			if len(g.batches) != 2 || len(g.batches[0]) != 1 || len(g.batches[1]) != n {
				t.Fatalf("appends %v: want the first alone, then the %d callers that queued behind it in one", g.batches, n)
			}
		})
	}
}

// TestCommitLogCloseWithIsLast: the proxy's last records are the last in
// the log; an Append after them fails and writes nothing.
func TestCommitLogCloseWithIsLast(t *testing.T) {
	home := t.TempDir()
	l, err := audit.Open(home)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	c := newCommitLog(l)
	var wg sync.WaitGroup
	for i := 0; i < 50; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			_, _ = c.Append(audit.Record{Event: "decision", Source: "mcp", Detail: fmt.Sprint(i)})
		}(i)
	}
	if err := c.closeWith(audit.Record{Event: "sandbox_end", Source: "mcp"}, audit.Record{Event: "mcp_exit", Source: "mcp"}); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	if _, err := c.Append(audit.Record{Event: "decision", Source: "mcp"}); !errors.Is(err, errLogClosed) {
		t.Fatalf("Append after closeWith: %v, want errLogClosed", err)
	}
	if err := c.closeWith(audit.Record{Event: "mcp_exit", Source: "mcp"}); !errors.Is(err, errLogClosed) {
		t.Fatalf("a second closeWith: %v, want errLogClosed", err)
	}
	b, err := os.ReadFile(filepath.Join(home, audit.LogFile))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if !strings.Contains(lines[len(lines)-2], `"sandbox_end"`) || !strings.Contains(lines[len(lines)-1], `"mcp_exit"`) {
		t.Fatalf("the log does not end with the last records:\n%s", strings.Join(lines[len(lines)-3:], "\n"))
	}
	if res, err := audit.Verify(home); err != nil || res.Status != audit.Intact || len(res.Problems) > 0 {
		t.Fatalf("verify: %v %+v", err, res)
	}
}

// TestRelayHoldsAToolsetWhoseAdmissionCannotBeRecorded: the admission of a
// toolset gates what reaches the model, so it takes effect only once its
// record is written: listed while the log cannot be written, the server is
// held; once the log recovers, the next call releases it (the toolset is
// pinned) and the release is recorded before the call's decision. Before,
// the failed mcp_admit was dropped and the toolset served with no record
// of its admission at all.
func TestRelayHoldsAToolsetWhoseAdmissionCannotBeRecorded(t *testing.T) {
	r := newRelay(t, relayOpts{})
	logPath := filepath.Join(r.home, audit.LogFile)
	_ = os.Remove(logPath)
	if err := os.Mkdir(logPath, 0o700); err != nil { // an append now fails
		t.Fatal(err)
	}
	r.listAll()
	r.p.adm.mu.Lock()
	held := r.p.adm.held
	r.p.adm.mu.Unlock()
	if !held {
		t.Fatal("the toolset was admitted although its admission was not recorded")
	}
	if err := os.Remove(logPath); err != nil {
		t.Fatal(err)
	}
	if res := r.call(1, "echo", `{"text":"hello"}`); blocked(res) {
		t.Fatalf("the call after the log recovered: %s", res.Raw)
	}
	b, err := os.ReadFile(logPath)
	if err != nil {
		t.Fatal(err)
	}
	var events []string
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var rec audit.Record
		if err := json.Unmarshal([]byte(l), &rec); err != nil {
			t.Fatal(err)
		}
		events = append(events, rec.Event)
	}
	if i := slices.Index(events, "mcp_release"); i < 0 || !slices.Contains(events[i:], "decision") {
		t.Fatalf("records %v: want the release before the call's decision", events)
	}
}

// TestProxyFinishWaitsForTheLastAppend: the stop signal's last record and
// Run's end race; the loser must not return (and let the process exit)
// while the winner's append is still being written. Before, Run returned
// at once and airlock-mcp exited between the record and its checkpoint
// (verify: checkpoint-stale after every Codex session on a busy machine).
func TestProxyFinishWaitsForTheLastAppend(t *testing.T) {
	g := &gatedAppender{entered: make(chan struct{}), release: make(chan struct{})}
	p := &Proxy{log: &commitLog{log: g}, opts: Options{Name: "x", Stderr: io.Discard}}
	var released atomic.Bool
	go p.finish(audit.Record{Event: "mcp_exit", Detail: "stopped by SIGTERM"})
	<-g.entered
	returnedEarly := make(chan bool, 1)
	go func() {
		p.finish(audit.Record{Event: "mcp_exit", Detail: "exited with status 143"})
		returnedEarly <- !released.Load()
	}()
	// give the second finish every chance to return early (no clock: it
	// has nothing to wait for but the first append)
	for i := 0; i < 1000; i++ {
		runtime.Gosched()
	}
	released.Store(true)
	close(g.release)
	if <-returnedEarly {
		t.Fatal("the second finish returned while the first append was still being written")
	}
	if len(g.batches) != 1 || g.batches[0][0] != "stopped by SIGTERM" {
		t.Fatalf("appends %v: want only the first finish's record", g.batches)
	}
}
