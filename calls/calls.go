// Package calls counts an agent's recent calls for the policy's limits
// (policy.Limits): the loop detector and the per-minute caps. It is a
// fact the gate reads, never a decision.
//
// The hook is one process per call, so a session's counts are shared
// across hook processes through one small file per session (and per MCP
// server, for the per-server caps) under the home's calls/ folder, as the
// session taint is. Unlike the taint, the counts change on every call: a
// call is one line appended (`<unix ms> <digest> <tool>`), under the
// folder's lock so that no count is lost to a concurrent hook or to a
// rewrite, and the file is read back to count. A file grown past what its
// window holds is rewritten with the calls still in it (temp file and
// rename, under the same lock). The proxy counts in memory (Memory), in
// counts per window rather than a list read back.
//
// A file that cannot be read or holds a line that does not parse is a
// count nobody can trust: Count starts it over and says so (ErrReset), and
// the gate gives that one call the strictest limit's action with the
// reason, so a broken state neither blocks ordinary work for good nor
// silently lets a loop through. The folder is Airlock's own state, which
// the forbids keep from the agent (gate.airlock-home): an agent cannot
// reset its own counts.
package calls

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/agentairlock/airlock/internal/atomicfile"
	"github.com/agentairlock/airlock/internal/flock"
	"github.com/agentairlock/airlock/internal/regular"
)

const (
	stateDir = "calls"
	lockFile = ".lock"
	// MaxKept bounds the calls one key keeps within a window: a count
	// saturates there, above any limit a policy may write (4000).
	MaxKept = 4096
	maxTool = 128
	maxFile = 1 << 20
	// a file with this many lines out of the window, and more of them
	// than in it, is rewritten: a rewrite (with its sync) every few
	// hundred calls, a read of at most a few hundred stale lines per call
	compactStale = 256
	staleAge     = 24 * time.Hour // files untouched this long are removed when a new one is made
)

// Call is one call a counter saw.
type Call struct {
	At     int64 // Unix milliseconds
	Digest string
	Tool   string
}

// ErrReset says the counts of a key could not be trusted (unreadable, a
// line that does not parse) and were started over.
var ErrReset = errors.New("the call counts were unreadable and start over")

// Store is the call counts of one Airlock home.
type Store struct {
	home string
	now  func() time.Time
}

// Open returns the store of an Airlock home; it touches nothing yet.
func Open(airlockHome string, now func() time.Time) *Store {
	if now == nil {
		now = time.Now
	}
	return &Store{home: airlockHome, now: now}
}

func (s *Store) dir() string { return filepath.Join(s.home, stateDir) }

// Path is the file of a key ("session:ID", "server:NAME").
func (s *Store) Path(key string) string {
	sum := sha256.Sum256([]byte(key))
	return filepath.Join(s.dir(), hex.EncodeToString(sum[:12])+".log")
}

// Tally is Count for the widest of windows, as a Tally.
func (s *Store) Tally(key string, c Call, windows []Window) (Tally, error) {
	var w time.Duration
	for _, win := range windows {
		w = max(w, win.Span)
	}
	kept, err := s.Count(key, c, w)
	if kept == nil {
		return nil, err
	}
	return kept, err
}

// Count records c under key and returns the key's calls within window,
// oldest first, c last. An error wrapping ErrReset comes with the counts
// of the started-over file (c alone); any other error comes with none.
func (s *Store) Count(key string, c Call, window time.Duration) (List, error) {
	c.Tool = cleanTool(c.Tool)
	lf, err := regular.OpenState(filepath.Join(s.dir(), lockFile), os.O_RDWR|os.O_CREATE, 0o600)
	if errors.Is(err, fs.ErrNotExist) {
		if err := os.Mkdir(s.dir(), 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
			return nil, fmt.Errorf("make %s: %w", s.dir(), err)
		}
		lf, err = regular.OpenState(filepath.Join(s.dir(), lockFile), os.O_RDWR|os.O_CREATE, 0o600)
	}
	if err != nil {
		return nil, fmt.Errorf("lock the call counts: %w", err)
	}
	defer lf.Close()
	if err := flock.Lock(lf); err == nil {
		defer func() { _ = flock.Unlock(lf) }()
	}
	path := s.Path(key)
	now := s.now().UnixMilli()
	since := now - window.Milliseconds()
	line := appendLine(nil, c)

	f, err := regular.OpenState(path, os.O_RDWR|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return s.reset(path, c, line, err)
	}
	data, err := readAll(f)
	if err == nil && len(data) >= maxFile {
		err = fmt.Errorf("%s is larger than %d bytes", path, maxFile)
	}
	if err != nil {
		f.Close()
		return s.reset(path, c, line, err)
	}
	kept, stale, bad := parse(data, since, now+window.Milliseconds())
	if bad > 0 {
		f.Close()
		return s.reset(path, c, line, fmt.Errorf("%d line(s) of %s do not parse", bad, path))
	}
	_, werr := f.Write(line)
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		return nil, fmt.Errorf("count the call: %w", werr)
	}
	if len(data) == 0 {
		s.prune(path)
	}
	kept = append(kept, c)
	if len(kept) > MaxKept {
		kept = kept[len(kept)-MaxKept:]
		stale++
	}
	if stale >= compactStale && stale > len(kept) || len(kept) == MaxKept && stale > 0 {
		var b []byte
		for _, k := range kept {
			b = appendLine(b, k)
		}
		if err := atomicfile.WriteState(path, b, 0o600); err != nil {
			return nil, fmt.Errorf("rewrite the call counts: %w", err)
		}
	}
	return kept, nil
}

// readAll reads f whole, in one buffer sized by its Stat.
func readAll(f *os.File) ([]byte, error) {
	size := 0
	if st, err := f.Stat(); err == nil {
		size = int(min(st.Size(), maxFile))
	}
	buf := make([]byte, size+512)
	n := 0
	for {
		m, err := f.Read(buf[n:])
		n += m
		if errors.Is(err, io.EOF) || m == 0 && err == nil {
			return buf[:n], nil
		}
		if err != nil {
			return nil, err
		}
		if n == len(buf) {
			if n >= maxFile {
				return buf[:n], nil
			}
			buf = append(buf, make([]byte, len(buf))...)
		}
	}
}

// reset starts a key's file over with c, after why.
func (s *Store) reset(path string, c Call, line []byte, why error) (List, error) {
	_ = os.Remove(path) // a link or a FIFO goes, never what it points to
	if err := atomicfile.WriteState(path, line, 0o600); err != nil {
		return nil, fmt.Errorf("%w: %w; and starting over failed: %w", ErrReset, why, err)
	}
	return List{c}, fmt.Errorf("%w: %w", ErrReset, why)
}

// prune removes the files of keys untouched for a day (sessions that
// ended); it runs when a key's file is new, so rarely.
func (s *Store) prune(keep string) {
	des, err := os.ReadDir(s.dir())
	if err != nil {
		return
	}
	old := s.now().Add(-staleAge)
	for _, de := range des {
		p := filepath.Join(s.dir(), de.Name())
		if p == keep || filepath.Ext(p) != ".log" {
			continue
		}
		if fi, err := de.Info(); err == nil && fi.ModTime().Before(old) {
			_ = os.Remove(p)
		}
	}
}

// parse reads the lines of a file: the calls after since (and not after
// until: a clock set back keeps no call for ever), how many lines are
// older, and how many do not parse. A line out of the window costs no
// allocation, and a run of one tool's calls shares its name.
func parse(data []byte, since, until int64) (kept List, stale, bad int) {
	var tool string
	for len(data) > 0 {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			return kept, stale, bad + 1 // a torn last line
		}
		ln := data[:i]
		data = data[i+1:]
		at, digest, t, ok := splitLine(ln)
		switch {
		case !ok:
			bad++
		case at <= since || at > until:
			stale++
		default:
			if string(t) != tool {
				tool = string(t)
			}
			kept = append(kept, Call{At: at, Digest: string(digest), Tool: tool})
		}
	}
	return kept, stale, bad
}

// splitLine reads `<unix ms> <digest> <tool>`.
func splitLine(ln []byte) (at int64, digest, tool []byte, ok bool) {
	a := bytes.IndexByte(ln, ' ')
	if a <= 0 || a > 19 {
		return 0, nil, nil, false
	}
	for _, c := range ln[:a] {
		if c < '0' || c > '9' {
			return 0, nil, nil, false
		}
		at = at*10 + int64(c-'0')
	}
	rest := ln[a+1:]
	b := bytes.IndexByte(rest, ' ')
	if b <= 0 {
		return 0, nil, nil, false
	}
	tool = rest[b+1:]
	if len(tool) == 0 || len(tool) > maxTool || bytes.IndexByte(tool, ' ') >= 0 {
		return 0, nil, nil, false
	}
	return at, rest[:b], tool, true
}

func appendLine(b []byte, c Call) []byte {
	b = strconv.AppendInt(b, c.At, 10)
	b = append(b, ' ')
	b = append(b, c.Digest...)
	b = append(b, ' ')
	b = append(b, c.Tool...)
	return append(b, '\n')
}

// cleanTool keeps a tool name one word of a line: spaces and control
// characters become _, and it is cut to maxTool bytes.
func cleanTool(t string) string {
	if t == "" {
		return "_"
	}
	if len(t) > maxTool {
		t = t[:maxTool]
	}
	clean := true
	for i := 0; i < len(t); i++ {
		if t[i] <= ' ' || t[i] == 0x7f {
			clean = false
			break
		}
	}
	if clean {
		return t
	}
	b := []byte(t)
	for i := range b {
		if b[i] <= ' ' || b[i] == 0x7f {
			b[i] = '_'
		}
	}
	return string(b)
}
