package notify

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"time"

	"github.com/agentairlock/airlock/internal/atomicfile"
	"github.com/agentairlock/airlock/internal/flock"
	"github.com/agentairlock/airlock/internal/regular"
)

const (
	stateFile     = "notify.json"
	lockFile      = "notify.lock"
	stateVersion  = 1
	maxStateBytes = 64 << 10
	maxKeys       = 256
	maxFolded     = 1 << 30
	keyLen        = 32 // hex of 16 bytes of SHA-256
	// lockWait bounds how long a block waits for another process's
	// update of notify.json; past it the notification is dropped.
	lockWait = 25 * time.Millisecond
)

// state is notify.json: what every process on one AirlockHome shares.
// Times are Unix milliseconds.
type state struct {
	V           int              `json:"v"`
	Last        map[string]int64 `json:"last,omitempty"`         // block key → when first shown or folded in its cooldown
	WindowStart int64            `json:"window_start,omitempty"` // when the current window opened; 0 = none
	Sent        int              `json:"sent,omitempty"`         // notifications sent in the window, fold message included
	Folded      int              `json:"folded,omitempty"`       // blocks counted, not shown, in the window; announced when it ends
}

var errBadState = errors.New("invalid notify state")

// decodeState parses notify.json. Empty input is a fresh state. Anything
// the rate limiter could not trust is an error, and the caller starts over.
func decodeState(data []byte) (state, error) {
	if len(data) == 0 {
		return state{V: stateVersion}, nil
	}
	if len(data) > maxStateBytes {
		return state{}, fmt.Errorf("%w: %d bytes", errBadState, len(data))
	}
	var s state
	if err := json.Unmarshal(data, &s); err != nil {
		return state{}, fmt.Errorf("%w: %w", errBadState, err)
	}
	if err := s.validate(); err != nil {
		return state{}, err
	}
	return s, nil
}

func (s *state) validate() error {
	switch {
	case s.V != stateVersion:
		return fmt.Errorf("%w: version %d", errBadState, s.V)
	case s.WindowStart < 0, s.Sent < 0, s.Sent > maxMax, s.Folded < 0, s.Folded > maxFolded:
		return fmt.Errorf("%w: counters out of range", errBadState)
	case len(s.Last) > maxKeys:
		return fmt.Errorf("%w: %d keys", errBadState, len(s.Last))
	}
	for k, t := range s.Last {
		if !isKey(k) || t < 0 {
			return fmt.Errorf("%w: bad key %q", errBadState, k)
		}
	}
	return nil
}

func isKey(k string) bool {
	if len(k) != keyLen {
		return false
	}
	for i := 0; i < len(k); i++ {
		if c := k[i]; (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

func encodeState(s state) ([]byte, error) {
	data, err := json.Marshal(s)
	if err != nil {
		return nil, fmt.Errorf("encode notify state: %w", err)
	}
	return data, nil
}

// admit applies the window, cooldown and budget rules to one block under
// the cross-process lock. fold > 0 asks for the fold message first; show
// asks for the block's own notification. Nothing is asked for unless the
// new state was saved: without it the next process could not rate-limit.
func (n *Notifier) admit(key string) (fold int, show bool) {
	unlock, ok := n.lock()
	if !ok {
		return 0, false
	}
	defer unlock()

	path := filepath.Join(n.home, stateFile)
	st, err := readState(path)
	if err != nil {
		st = state{V: stateVersion} // corrupt or unreadable: start over, never surface it
	}
	now := n.now().UnixMilli()
	fold, show, changed := st.apply(key, now, n.cfg)
	if !changed && err == nil {
		return 0, false
	}
	data, err := encodeState(st)
	if err != nil {
		return 0, false
	}
	if err := atomicfile.WriteState(path, data, 0o600); err != nil {
		return 0, false
	}
	return fold, show
}

// apply is the whole rate-limiting rule, free of I/O so it can be tested
// against a table; the package doc states it in words.
func (s *state) apply(key string, now int64, c config) (fold int, show, changed bool) {
	if s.WindowStart == 0 || now < s.WindowStart || now-s.WindowStart >= c.window.Milliseconds() {
		fold = s.Folded
		s.WindowStart, s.Sent, s.Folded = now, 0, 0
		if fold > 0 {
			s.Sent = 1
		}
		changed = true
	}
	if s.prune(now, c.cooldown.Milliseconds()) {
		changed = true
	}
	if _, seen := s.Last[key]; seen {
		return fold, false, changed
	}
	if s.Last == nil {
		s.Last = make(map[string]int64)
	}
	s.Last[key] = now
	s.prune(now, c.cooldown.Milliseconds()) // keep within maxKeys
	if s.Sent < c.max {
		s.Sent++
		show = true
	} else if s.Folded < maxFolded {
		s.Folded++
	}
	return fold, show, true
}

// prune forgets keys whose cooldown has passed or that lie in the future
// (the clock went back), then the oldest beyond maxKeys.
func (s *state) prune(now, cooldown int64) (changed bool) {
	for k, t := range s.Last {
		if t > now || now-t >= cooldown {
			delete(s.Last, k)
			changed = true
		}
	}
	if len(s.Last) <= maxKeys {
		return changed
	}
	keys := make([]string, 0, len(s.Last))
	for k := range s.Last {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if s.Last[keys[i]] != s.Last[keys[j]] {
			return s.Last[keys[i]] < s.Last[keys[j]]
		}
		return keys[i] < keys[j]
	})
	for _, k := range keys[:len(keys)-maxKeys] {
		delete(s.Last, k)
	}
	return true
}

// readState reads notify.json, at most maxStateBytes+1 of it so that an
// oversized file costs nothing. A missing file is a fresh state.
func readState(path string) (state, error) {
	f, err := regular.OpenState(path, os.O_RDONLY, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return state{V: stateVersion}, nil
	}
	if err != nil {
		return state{}, fmt.Errorf("read %s: %w", path, err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxStateBytes+1))
	if err != nil {
		return state{}, fmt.Errorf("read %s: %w", path, err)
	}
	s, err := decodeState(data)
	if err != nil {
		return state{}, fmt.Errorf("read %s: %w", path, err)
	}
	return s, nil
}

// lock takes the exclusive lock on notify.lock, waiting at most lockWait.
// internal/flock only blocks, so the wait runs in a goroutine; one that is
// given up on releases the lock as soon as it gets it. While such a wait is
// outstanding, lock fails at once.
func (n *Notifier) lock() (unlock func(), ok bool) {
	if n.abandoned.Load() > 0 {
		return nil, false
	}
	f, err := regular.OpenState(filepath.Join(n.home, lockFile), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, false
	}
	var (
		mu       sync.Mutex
		gaveUp   bool
		finished = make(chan error, 1)
	)
	// not counted in n.running: a lock another process holds for ever
	// must not hold Wait (and the exit of airlock run) with it
	go func() {
		err := flock.Lock(f)
		mu.Lock()
		defer mu.Unlock()
		if gaveUp {
			if err == nil {
				_ = flock.Unlock(f)
			}
			f.Close()
			n.abandoned.Add(-1)
			return
		}
		finished <- err
	}()
	timer := time.NewTimer(lockWait)
	defer timer.Stop()
	var lerr error
	select {
	case lerr = <-finished:
	case <-timer.C:
		mu.Lock()
		select {
		case lerr = <-finished: // got it just in time
			mu.Unlock()
		default:
			gaveUp = true
			n.abandoned.Add(1)
			mu.Unlock()
			return nil, false
		}
	}
	if lerr != nil {
		f.Close()
		return nil, false
	}
	return func() {
		_ = flock.Unlock(f) // closing releases it too
		f.Close()
	}, true
}
