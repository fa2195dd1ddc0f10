package pins

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/agentairlock/airlock/internal/flock"
	"github.com/agentairlock/airlock/internal/home"
	"github.com/agentairlock/airlock/internal/regular"
	"github.com/agentairlock/airlock/internal/textsafe"
)

// state is whether a server may serve calls.
type state string

const (
	// Pinned: calls are served while the live toolset hashes as pinned.
	Pinned state = "pinned"
	// Held: every call is refused until a person approves, rejects or
	// forgets, or the server serves its pinned toolset again.
	Held state = "held"
)

// Entry is what pins.json remembers about one server.
type Entry struct {
	Server string `json:"server"`
	State  state  `json:"state"`
	// Pinned is authoritative; nil when the server was held at first sight.
	Pinned *Toolset `json:"pinned,omitempty"`
	// Pending is what caused the hold, awaiting approve or reject.
	Pending *Toolset `json:"pending,omitempty"`
	// Rejected are toolset hashes a person rejected; serving one again
	// keeps the server held.
	Rejected []string `json:"rejected,omitempty"`
	// Reason says why the server is held, for the refusal message.
	Reason    string    `json:"reason,omitempty"`
	FirstSeen time.Time `json:"first_seen"`
	Updated   time.Time `json:"updated"`
}

// fileVersion is the format of pins.json. The file is one JSON object,
// {"version":1,"servers":{NAME:ENTRY,…}}, written by Store with one server
// per line. Canonical tool JSON is stored verbatim, so a hand-reformatted
// file shows every tool as changed.
const fileVersion = 1

type file struct {
	Version int               `json:"version"`
	Servers map[string]*Entry `json:"servers"`
}

// ErrCorrupt marks a pins.json that exists but cannot be used.
var ErrCorrupt = errors.New("pins file is corrupt")

// UnknownServerError is returned for a server pins.json does not know.
type UnknownServerError struct {
	Server string
	Path   string
	Known  []string // sorted
}

func (e *UnknownServerError) Error() string {
	known := "no server is pinned yet"
	if len(e.Known) > 0 {
		names := make([]string, len(e.Known))
		for i, k := range e.Known {
			names[i] = textsafe.Escape(k)
		}
		known = "known: " + strings.Join(names, ", ")
	}
	return fmt.Sprintf("pins: no server named %q in %s (%s)", textsafe.Escape(e.Server), e.Path, known)
}

// Store is the pins file of one Airlock home: $AIRLOCK_HOME/pins.json,
// written under the cross-process lock $AIRLOCK_HOME/pins.lock.
type Store struct {
	home string
	path string
	lock string

	rename func(oldpath, newpath string) error // os.Rename; tests make it fail
}

// Open returns the store of airlockHome; nothing is read until it is used.
func Open(airlockHome string) *Store {
	return &Store{
		home: airlockHome,
		path: filepath.Join(airlockHome, "pins.json"),
		lock: filepath.Join(airlockHome, "pins.lock"),

		rename: os.Rename,
	}
}

// Path is the pins file.
func (s *Store) Path() string { return s.path }

// Load reads pins.json. A missing file is an empty map. A file that cannot
// be read or parsed is an error naming the file and the fix; it wraps
// ErrCorrupt when the content is at fault. Writes replace the file
// atomically, so Load needs no lock.
func (s *Store) Load() (map[string]*Entry, error) {
	data, err := regular.ReadState(s.path, maxPinsBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return map[string]*Entry{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("pins: read %s: %w", s.path, err)
	}
	return s.parse(data)
}

// maxPinsBytes bounds pins.json: far above any real toolset's
// fingerprints, far below what would exhaust memory.
const maxPinsBytes = 64 << 20

const fixCorrupt = "move it aside to re-pin every server on next start"

func (s *Store) parse(data []byte) (map[string]*Entry, error) {
	var f file
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return nil, s.corrupt(data, err)
	}
	if dec.More() {
		return nil, fmt.Errorf("pins: %s: %w: data after the end of the JSON object; %s", s.path, ErrCorrupt, fixCorrupt)
	}
	if f.Version != fileVersion {
		return nil, fmt.Errorf("pins: %s: %w: version %d, this airlock reads version %d; %s", s.path, ErrCorrupt, f.Version, fileVersion, fixCorrupt)
	}
	if f.Servers == nil {
		f.Servers = map[string]*Entry{}
	}
	for name, e := range f.Servers {
		if err := checkEntry(name, e); err != nil {
			return nil, fmt.Errorf("pins: %s: %w: server %q: %v; %s", s.path, ErrCorrupt, textsafe.Escape(name), err, fixCorrupt)
		}
	}
	return f.Servers, nil
}

// corrupt turns a decode error into one that names the file, the line and
// the fix.
func (s *Store) corrupt(data []byte, err error) error {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	var off int64 = -1
	switch {
	case errors.As(err, &syn):
		off = syn.Offset
	case errors.As(err, &typ):
		off = typ.Offset
	}
	if off >= 0 {
		line := 1 + bytes.Count(data[:min(int(off), len(data))], []byte{'\n'})
		return fmt.Errorf("pins: %s: invalid JSON at line %d: %w (%w); %s", s.path, line, err, ErrCorrupt, fixCorrupt)
	}
	return fmt.Errorf("pins: %s: invalid JSON: %w (%w); %s", s.path, err, ErrCorrupt, fixCorrupt)
}

func checkEntry(name string, e *Entry) error {
	switch {
	case e == nil:
		return errors.New("entry is null")
	case e.Server != name:
		return fmt.Errorf("entry names server %q", textsafe.Escape(e.Server))
	case e.State != Pinned && e.State != Held:
		return fmt.Errorf("unknown state %q", textsafe.Escape(string(e.State)))
	case e.State == Pinned && e.Pinned == nil:
		return errors.New("state is pinned but no toolset is pinned")
	}
	for _, ts := range []*Toolset{e.Pinned, e.Pending} {
		if ts != nil && !strings.HasPrefix(ts.Hash, "sha256:") {
			return fmt.Errorf("toolset hash %q is not a sha256 hash", textsafe.Escape(ts.Hash))
		}
	}
	return nil
}

// Get returns the entry of server, or nil, nil when it is not pinned.
func (s *Store) Get(server string) (*Entry, error) {
	m, err := s.Load()
	if err != nil {
		return nil, err
	}
	return m[server], nil
}

// Find returns the entry whose NormName(Server) is normServer, or nil, nil.
// The hook only sees normalised names; when two servers normalise alike
// the answer is an error, since a hold on one must not be dodged by the
// other.
func (s *Store) Find(normServer string) (*Entry, error) {
	m, err := s.Load()
	if err != nil {
		return nil, err
	}
	var found *Entry
	for _, name := range sortedNames(m) {
		if _, kind := ListingOf(name); kind != "" || NormName(name) != normServer {
			continue // a server's other listings are not servers
		}
		if found != nil {
			return nil, fmt.Errorf("pins: servers %q and %q both appear to the agent as %q; rename one of them", textsafe.Escape(found.Server), textsafe.Escape(name), textsafe.Escape(normServer))
		}
		found = m[name]
	}
	if found != nil && found.State == Pinned {
		// a hold on the server's instructions, prompts, resources or
		// templates holds the server: the agent's calls to it too
		for _, kind := range []string{Instructions, Prompts, Resources, Templates} {
			if l := m[ListingKey(found.Server, kind)]; l != nil && l.State == Held {
				held := *found
				held.State, held.Reason = Held, "its "+kind+" are held: "+l.Reason
				return &held, nil
			}
		}
	}
	return found, nil
}

// Allowed reports whether a live toolset may serve calls right now.
func Allowed(e *Entry, live *Toolset) bool {
	return e != nil && live != nil && e.State == Pinned && e.Pinned != nil && (e.Pinned.Hash == live.Hash || subset(live, e.Pinned))
}

func sortedNames(m map[string]*Entry) []string {
	names := make([]string, 0, len(m))
	for n := range m {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// update runs fn on the current entries under the lock and, when fn says
// it changed them, writes them back atomically.
func (s *Store) update(fn func(m map[string]*Entry) (changed bool, err error)) error {
	if err := home.Make(s.home); err != nil {
		return fmt.Errorf("pins: create %s: %w", s.home, err)
	}
	lf, err := regular.OpenState(s.lock, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("pins: open lock: %w", err)
	}
	defer lf.Close()
	if err := flock.Lock(lf); err != nil {
		return fmt.Errorf("pins: %w", err)
	}
	defer flock.Unlock(lf) //nolint:errcheck // closing the file releases the lock too
	m, err := s.Load()
	if err != nil {
		return err
	}
	changed, err := fn(m)
	if err != nil || !changed {
		return err
	}
	return s.write(m)
}

// write replaces pins.json with m: a temporary file in the same directory,
// synced, then renamed over it, so a reader sees the old file or the new
// one and a crash never leaves half a file.
func (s *Store) write(m map[string]*Entry) error {
	var buf bytes.Buffer
	fmt.Fprintf(&buf, "{\"version\":%d,\"servers\":{", fileVersion)
	for i, name := range sortedNames(m) {
		if i > 0 {
			buf.WriteByte(',')
		}
		buf.WriteString("\n")
		k, err := json.Marshal(name)
		if err != nil {
			return fmt.Errorf("pins: encode %q: %w", textsafe.Escape(name), err)
		}
		v, err := json.Marshal(m[name])
		if err != nil {
			return fmt.Errorf("pins: encode %q: %w", textsafe.Escape(name), err)
		}
		buf.Write(k)
		buf.WriteByte(':')
		buf.Write(v)
	}
	buf.WriteString("\n}}\n")

	tmp, err := os.CreateTemp(s.home, ".pins.json.tmp-*")
	if err != nil {
		return fmt.Errorf("pins: write %s: %w", s.path, err)
	}
	ok := false
	defer func() {
		if !ok {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if _, err := tmp.Write(buf.Bytes()); err != nil {
		return fmt.Errorf("pins: write %s: %w", tmp.Name(), err)
	}
	if err := tmp.Chmod(0o600); err != nil && !errors.Is(err, errors.ErrUnsupported) {
		return fmt.Errorf("pins: chmod %s: %w", tmp.Name(), err)
	}
	if err := tmp.Sync(); err != nil {
		return fmt.Errorf("pins: sync %s: %w", tmp.Name(), err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("pins: close %s: %w", tmp.Name(), err)
	}
	rename := s.rename
	if rename == nil {
		rename = os.Rename
	}
	if err := rename(tmp.Name(), s.path); err != nil {
		return fmt.Errorf("pins: replace %s: %w", s.path, err)
	}
	ok = true
	return nil
}
