package pins

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/agentairlock/airlock/internal/textsafe"
)

// Inspector judges a toolset: poisoned means hold it, with why. The caller
// passes the scanner; a nil Inspector finds nothing.
type Inspector func(ts *Toolset) (poisoned bool, why string)

// Admission is the decision on a toolset seen live.
type Admission struct {
	State  state
	First  bool   // first sight of this server
	Reason string // why it is held, for the refusal message
	Diff   diff   // the live toolset against the pinned one (all added when none is)
}

// Admit decides a complete toolset seen live from server and records the
// decision, all under the lock:
//
//   - never seen: poisoned by inspect → Held, with the toolset pending;
//     otherwise Pinned (trust on first use).
//   - the pinned toolset → Pinned; a reverted toolset clears any hold.
//   - a toolset a person rejected → Held.
//   - any other toolset → Held with it pending; the pinned toolset stays
//     authoritative until a person approves.
//
// Only a person releases a hold on a toolset that was never pinned.
//
// When the decision cannot be written it is still returned, with the
// error: the caller keeps a hold in memory, so an unwritable home can never
// release one. When pins.json cannot be read, the admission is Held.
func (s *Store) Admit(server string, ts *Toolset, inspect Inspector, now time.Time) (Admission, error) {
	if server == "" || ts == nil {
		return Admission{State: Held, Reason: "no server name or no toolset"}, errors.New("pins: admit needs a server name and a toolset")
	}
	var adm Admission
	decided := false
	err := s.update(func(m map[string]*Entry) (bool, error) {
		first := m[server] == nil
		e, changed := decide(m[server], server, ts, inspect, now)
		m[server] = e
		adm = admission(e, ts)
		adm.First = first
		decided = true
		return changed, nil
	})
	if !decided {
		adm = Admission{State: Held, Reason: fmt.Sprintf("its pins cannot be read: %v", err)}
	}
	return adm, err
}

// decide returns the entry after seeing ts, and whether it changed. It
// never modifies old.
func decide(old *Entry, server string, ts *Toolset, inspect Inspector, now time.Time) (*Entry, bool) {
	if old == nil {
		e := &Entry{Server: server, State: Pinned, Pinned: ts, FirstSeen: now, Updated: now}
		if bad, why := judge(inspect, ts); bad {
			e.State, e.Pinned, e.Pending = Held, nil, ts
			e.Reason = "poisoned at first sight: " + why + "; " + howToRelease(server)
		}
		return e, true
	}
	e := *old
	e.Rejected = slices.Clone(old.Rejected)
	switch {
	case e.Pinned != nil && ts.Hash == e.Pinned.Hash:
		e.State, e.Pending, e.Reason = Pinned, nil, ""
	case e.State == Pinned && subset(ts, e.Pinned):
		// Fewer tools, each exactly as pinned: servers list tools by the
		// client's capabilities (server-everything hides its sampling
		// tools from a client without sampling). Nothing new to trust;
		// the pin stays as it is.
	case slices.Contains(e.Rejected, ts.Hash):
		e.State, e.Pending = Held, nil
		e.Reason = rejectedReason(&e, ts.Hash)
	case e.Pending != nil && ts.Hash == e.Pending.Hash:
		e.State = Held // seen before: the reason stands
	case e.Pinned != nil:
		e.State, e.Pending = Held, ts
		e.Reason = "toolset changed since it was pinned: " + Compare(e.Pinned, ts).String()
		if bad, why := judge(inspect, ts); bad {
			e.Reason += "; the new toolset also looks poisoned: " + why
		}
		e.Reason += "; " + howToRelease(server)
	default: // held since first sight, never approved: a new face does not earn trust
		e.State = Held
		if bad, why := judge(inspect, ts); bad {
			e.Reason = "poisoned at first sight: " + why
		} else if e.Pending != nil {
			e.Reason = "held since first sight and never approved; its toolset has changed since: " + Compare(e.Pending, ts).String()
		} else {
			e.Reason = "held since first sight and never approved; it now serves a toolset nobody has reviewed"
		}
		e.Pending = ts
		e.Reason += "; " + howToRelease(server)
	}
	changed := e.State != old.State || e.Reason != old.Reason || hashOf(e.Pending) != hashOf(old.Pending)
	if changed {
		e.Updated = now
	}
	return &e, changed
}

func admission(e *Entry, live *Toolset) Admission {
	return Admission{State: e.State, Reason: e.Reason, Diff: Compare(e.Pinned, live)}
}

func judge(inspect Inspector, ts *Toolset) (bool, string) {
	if inspect == nil {
		return false, ""
	}
	bad, why := inspect(ts)
	if why == "" {
		why = "the scanner gave no reason"
	}
	return bad, textsafe.Escape(why)
}

func hashOf(ts *Toolset) string {
	if ts == nil {
		return ""
	}
	return ts.Hash
}

func rejectedReason(e *Entry, hash string) string {
	until := "until it serves its pinned toolset again"
	if e.Pinned == nil {
		until = fmt.Sprintf("until it is forgotten (%q)", "airlock pins forget "+shellWord(e.Server))
	}
	return fmt.Sprintf("its toolset %s was rejected by a person; it stays held %s", ShortHash(hash), until)
}

func howToRelease(server string) string {
	n := shellWord(server)
	return fmt.Sprintf("run %q, then %q (or %q)", "airlock pins diff "+n, "airlock pins approve "+n, "airlock pins reject "+n)
}

// shellWord quotes a server name for a command line a person may paste.
func shellWord(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.@:/+=") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(textsafe.Escape(s), "'", `'\''`) + "'"
}

// Approve makes the pending toolset the pin and clears the hold.
func (s *Store) Approve(server string, now time.Time) (*Entry, error) {
	return s.ApprovePending(server, "", now)
}

// ApprovePending is Approve that insists the pending toolset is the one a
// person reviewed: hash, with or without "sha256:", must be a prefix of at
// least 12 hex digits of the pending hash. The server may have served
// something new between "pins diff" and "pins approve". An empty hash
// approves whatever is pending.
func (s *Store) ApprovePending(server, hash string, now time.Time) (*Entry, error) {
	want := strings.TrimPrefix(hash, "sha256:")
	if hash != "" && len(want) < 12 {
		return nil, fmt.Errorf("pins: %q is too short to name a toolset: give at least 12 hex digits", textsafe.Escape(hash))
	}
	var out *Entry
	err := s.update(func(m map[string]*Entry) (bool, error) {
		e, err := s.entry(m, server)
		if err != nil {
			return false, err
		}
		if e.Pending == nil {
			return false, nothingPending(e, "approve")
		}
		if want != "" && !strings.HasPrefix(strings.TrimPrefix(e.Pending.Hash, "sha256:"), want) {
			return false, fmt.Errorf("pins: the pending toolset of %q is %s, not %s: it changed since it was reviewed; run %q again",
				textsafe.Escape(server), ShortHash(e.Pending.Hash), textsafe.Escape(want), "airlock pins diff "+shellWord(server))
		}
		e.Pinned, e.Pending, e.State, e.Reason, e.Updated = e.Pending, nil, Pinned, "", now
		e.Rejected = slices.DeleteFunc(e.Rejected, func(h string) bool { return h == e.Pinned.Hash })
		out = e
		return true, nil
	})
	return out, err
}

// Reject discards the pending toolset and remembers its hash; the server
// stays held until it serves its pinned toolset again.
func (s *Store) Reject(server string, now time.Time) (*Entry, error) {
	var out *Entry
	err := s.update(func(m map[string]*Entry) (bool, error) {
		e, err := s.entry(m, server)
		if err != nil {
			return false, err
		}
		if e.Pending == nil {
			return false, nothingPending(e, "reject")
		}
		if !slices.Contains(e.Rejected, e.Pending.Hash) {
			e.Rejected = append(e.Rejected, e.Pending.Hash)
		}
		e.State, e.Reason, e.Updated = Held, rejectedReason(e, e.Pending.Hash), now
		e.Pending = nil
		out = e
		return true, nil
	})
	return out, err
}

// Forget removes the server, and with it its other listings (a key of
// its own, NAME#kind, forgets only that listing); its next start pins
// afresh.
func (s *Store) Forget(server string) error {
	return s.update(func(m map[string]*Entry) (bool, error) {
		if _, err := s.entry(m, server); err != nil {
			return false, err
		}
		delete(m, server)
		if _, kind := ListingOf(server); kind == "" {
			for _, k := range listingKinds {
				delete(m, ListingKey(server, k))
			}
		}
		return true, nil
	})
}

func (s *Store) entry(m map[string]*Entry, server string) (*Entry, error) {
	if e := m[server]; e != nil {
		return e, nil
	}
	return nil, &UnknownServerError{Server: server, Path: s.path, Known: sortedNames(m)}
}

func nothingPending(e *Entry, verb string) error {
	msg := fmt.Sprintf("pins: %q has nothing pending to %s: it is %s", textsafe.Escape(e.Server), verb, e.State)
	if e.State == Held {
		msg += " (" + e.Reason + ")"
	}
	return errors.New(msg)
}
