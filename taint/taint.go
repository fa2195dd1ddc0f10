// Package taint owns what a session has seen: untrusted content that
// carried indicators (an MCP result, a fetched page, a search result),
// where it came from, and until when it counts. It is a fact the gate
// reads, never a decision: the gate escalates privileged actions of a
// tainted session (policy.Taint); taint only remembers.
//
// Which process taints what: the hook's post-tool event carries the
// agent's session id and the tool's result, so the hook taints that
// session; the MCP proxy taints its own client connection and, where the
// agent passes its session id to the server, that session too (Mark with
// Origin "mcp"). All of them share the home's taint/ folder, one small
// file per session, as notifications share notify.json: read on every
// PreToolUse (one open and a small decode: microseconds, BenchmarkOf*), written
// only when a session's taint or its known hosts change, by temp file and
// rename under a lock, never through a link.
//
// A taint ends by time (the policy's taint ttl, stored with the entry when
// it is marked) or by a person (airlock taint clear SESSION, which the
// agents may not run: it is a self-approval).
package taint

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/agentairlock/airlock/internal/atomicfile"
	"github.com/agentairlock/airlock/internal/flock"
	"github.com/agentairlock/airlock/internal/regular"
)

const (
	stateDir     = "taint"
	lockFile     = ".lock"
	stateVersion = 1
	maxEntry     = 16 << 10
	// bounds that keep the file small whatever the agents do
	maxSessions = 256
	maxSources  = 4
	maxHosts    = 64
	maxText     = 200
	maxSession  = 128
)

// DefaultTTL is how long a taint lasts when the policy names none.
const DefaultTTL = 2 * time.Hour

// Source is one piece of untrusted content that tainted a session.
type Source struct {
	Origin string `json:"origin"`         // hook | mcp
	Tool   string `json:"tool"`           // the tool whose result it was: mcp__notes__read_note, WebFetch …
	At     int64  `json:"at"`             // Unix milliseconds
	What   string `json:"what"`           // the strongest indicator, for a person: "instructions to read ~/.ssh/id_rsa"
	Rule   string `json:"rule,omitempty"` // the indicator's id
}

// Entry is what the state holds for one session.
type Entry struct {
	Session string   `json:"session"`
	Since   int64    `json:"since,omitempty"` // when the taint began (Unix ms); 0: not tainted
	Until   int64    `json:"until,omitempty"` // when it ends
	Sources []Source `json:"sources,omitempty"`
	// Hosts the session sent calls to before it was tainted: a privileged
	// action's "new host" is one not among them. Hosts reached after the
	// taint began (the tainting page's own host too) never join.
	Hosts []string `json:"hosts,omitempty"`
}

// Tainted reports whether the entry is tainted at now.
func (e *Entry) Tainted(now time.Time) bool {
	return e != nil && e.Since > 0 && now.UnixMilli() < e.Until
}

// Provenance names the taint's first source for a reason: "the result of
// mcp__notes__read_note at 12:03: instructions to read ~/.ssh/id_rsa".
func (e *Entry) Provenance() string {
	if e == nil || len(e.Sources) == 0 {
		return ""
	}
	s := e.Sources[0]
	at := time.UnixMilli(s.At).Local().Format("15:04")
	out := "the result of " + s.Tool + " at " + at
	if s.What != "" {
		out += ": " + s.What
	}
	if n := len(e.Sources) - 1; n > 0 {
		out += fmt.Sprintf(" (and %d more)", n)
	}
	return out
}

// KnownHost reports whether the session used host before its taint.
func (e *Entry) KnownHost(host string) bool {
	return e != nil && slices.Contains(e.Hosts, host)
}

// Store is the taint state of one Airlock home: one small file per
// session that has one (taint/<digest of the session id>.json), so the
// PreToolUse path decodes its own session's entry and nothing else.
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

// ErrBadState is an unreadable or invalid entry.
var ErrBadState = errors.New("invalid taint state")

func (s *Store) dir() string { return filepath.Join(s.home, stateDir) }

func (s *Store) path(session string) string {
	sum := sha256.Sum256([]byte(session))
	return filepath.Join(s.dir(), hex.EncodeToString(sum[:12])+".json")
}

// readFile loads one entry file; a missing file is no entry.
func readFile(path string) (*Entry, error) {
	data, err := regular.ReadState(path, maxEntry)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	var f file
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("%s: %w: %w", path, ErrBadState, err)
	}
	if f.V != stateVersion || f.Entry.Session == "" {
		return nil, fmt.Errorf("%s: %w: version %d", path, ErrBadState, f.V)
	}
	return &f.Entry, nil
}

// file is one entry file.
type file struct {
	V int `json:"v"`
	Entry
}

// Of returns the session's entry (nil when it has none). The PreToolUse
// path calls it once per call: a session never tainted, with no known
// hosts, costs one failed open. An error is a state the gate cannot
// trust; the gate treats the session as tainted by it (fail closed).
func (s *Store) Of(session string) (*Entry, error) {
	if session == "" || len(session) > maxSession {
		return nil, nil
	}
	e, err := readFile(s.path(session))
	if err != nil || e == nil {
		return nil, err
	}
	if e.Session != session {
		return nil, fmt.Errorf("%s: %w: it holds another session", s.path(session), ErrBadState)
	}
	return e, nil
}

// List returns every session's entry, sorted by session id; an entry
// that cannot be read is left out and named in the error.
func (s *Store) List() ([]*Entry, error) {
	des, err := os.ReadDir(s.dir())
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list %s: %w", s.dir(), err)
	}
	var out []*Entry
	var errs []error
	for _, de := range des {
		if !strings.HasSuffix(de.Name(), ".json") {
			continue
		}
		e, err := readFile(filepath.Join(s.dir(), de.Name()))
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if e != nil {
			out = append(out, e)
		}
	}
	slices.SortFunc(out, func(a, b *Entry) int { return strings.Compare(a.Session, b.Session) })
	return out, errors.Join(errs...)
}

// Mark taints session with src for ttl (DefaultTTL when 0). A session
// already tainted keeps its start and gains the source (up to four) and
// the later end. It reports whether the state changed: a session tainted
// again by the same tool and indicator writes nothing.
func (s *Store) Mark(session string, src Source, ttl time.Duration) (changed bool, err error) {
	if err := checkSession(session); err != nil {
		return false, err
	}
	if ttl <= 0 {
		ttl = DefaultTTL
	}
	now := s.now()
	if src.At == 0 {
		src.At = now.UnixMilli()
	}
	src.Tool, src.What, src.Rule, src.Origin = cut(src.Tool), cut(src.What), cut(src.Rule), cut(src.Origin)
	return s.update(session, func(e *Entry) bool {
		until := now.Add(ttl).UnixMilli()
		if !e.Tainted(now) {
			e.Since, e.Until, e.Sources = now.UnixMilli(), until, []Source{src}
			return true
		}
		ch := false
		if until > e.Until {
			e.Until, ch = until, true
		}
		for _, o := range e.Sources {
			if o.Tool == src.Tool && o.Rule == src.Rule && o.What == src.What {
				return ch
			}
		}
		if len(e.Sources) < maxSources {
			e.Sources = append(e.Sources, src)
			ch = true
		}
		return ch
	})
}

// UseHosts remembers hosts an untainted session sent calls to, so that a
// later taint can tell a host it knew from a new one. A tainted session
// learns no host. It writes only when a host is new.
func (s *Store) UseHosts(session string, hosts []string) error {
	if len(hosts) == 0 || checkSession(session) != nil {
		return nil
	}
	now := s.now()
	if e, err := s.Of(session); err == nil && e != nil && (e.Tainted(now) || containsAll(e.Hosts, hosts)) {
		return nil
	}
	_, err := s.update(session, func(e *Entry) bool {
		if e.Tainted(now) {
			return false
		}
		ch := false
		for _, h := range hosts {
			if h != "" && len(e.Hosts) < maxHosts && !slices.Contains(e.Hosts, h) {
				e.Hosts = append(e.Hosts, cut(h))
				ch = true
			}
		}
		return ch
	})
	return err
}

// Clear ends a session's taint (the person's airlock taint clear). Its
// known hosts stay. It reports whether the session was tainted.
func (s *Store) Clear(session string) (bool, error) {
	if checkSession(session) != nil {
		return false, nil
	}
	was := false
	_, err := s.update(session, func(e *Entry) bool {
		if e.Since == 0 {
			return false
		}
		was = e.Tainted(s.now())
		e.Since, e.Until, e.Sources = 0, 0, nil
		return true
	})
	return was, err
}

// update applies f to the session's entry under the home's taint lock and
// writes it when f reports a change. A new entry beyond maxSessions
// first removes the entry least worth keeping (an untainted one, then
// the taint that ends first).
func (s *Store) update(session string, f func(*Entry) bool) (bool, error) {
	if err := os.Mkdir(s.dir(), 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return false, fmt.Errorf("make %s: %w", s.dir(), err)
	}
	lf, err := regular.OpenState(filepath.Join(s.dir(), lockFile), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return false, fmt.Errorf("lock the taint state: %w", err)
	}
	defer lf.Close()
	if err := flock.Lock(lf); err == nil {
		defer func() { _ = flock.Unlock(lf) }()
	}
	path := s.path(session)
	e, err := readFile(path)
	bad := err != nil || e != nil && e.Session != session
	if bad || e == nil {
		// new, or a state nobody can trust, started over rather than
		// kept: the gate has been treating the session as tainted by it
		e = &Entry{Session: session}
		if !bad {
			s.prune()
		}
	}
	if e.Since > 0 && !e.Tainted(s.now()) {
		e.Since, e.Until, e.Sources = 0, 0, nil
	}
	if !f(e) && !bad {
		return false, nil
	}
	data, err := json.Marshal(file{V: stateVersion, Entry: *e})
	if err != nil {
		return false, fmt.Errorf("encode the taint state: %w", err)
	}
	if err := atomicfile.WriteState(path, data, 0o600); err != nil {
		return false, fmt.Errorf("write the taint state: %w", err)
	}
	return true, nil
}

// prune keeps the store under maxSessions entries before one is added.
func (s *Store) prune() {
	es, _ := s.List()
	for len(es) >= maxSessions {
		v := 0
		for i := range es {
			if betterVictim(es[i], es[v]) {
				v = i
			}
		}
		_ = os.Remove(s.path(es[v].Session))
		es = slices.Delete(es, v, v+1)
	}
}

// betterVictim: e is dropped before v when the store is full.
func betterVictim(e, v *Entry) bool {
	if (e.Since == 0) != (v.Since == 0) {
		return e.Since == 0
	}
	return e.Until < v.Until || e.Until == v.Until && e.Session < v.Session
}

func checkSession(session string) error {
	if session == "" {
		return errors.New("no session id")
	}
	if len(session) > maxSession {
		return fmt.Errorf("session id longer than %d bytes", maxSession)
	}
	return nil
}

func containsAll(have, want []string) bool {
	for _, h := range want {
		if !slices.Contains(have, h) {
			return false
		}
	}
	return true
}

func cut(s string) string {
	if len(s) <= maxText {
		return s
	}
	n := maxText
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}
