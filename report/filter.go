package report

import (
	"fmt"
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/agentairlock/airlock/audit"
)

// Filter selects records. The zero Filter keeps everything.
//
// An entry that cannot be placed (a malformed line, a record whose time
// does not parse) is always kept: a filter must never be a way to hide
// damage to the log.
type Filter struct {
	Since    time.Time // keep records at or after Since (zero: no bound)
	Until    time.Time // keep records before Until (zero: no bound)
	Session  string    // exact session id
	Tool     string    // glob (path.Match syntax) over the tool name
	Decision string    // matches the policy decision or the effective result
}

// Keep reports whether e passes f.
func (f Filter) Keep(e Entry) bool {
	if e.Err != nil || e.Record.Event == audit.EventMalformed {
		return true
	}
	r := e.Record
	if !f.Since.IsZero() || !f.Until.IsZero() {
		if t, ok := recordTime(r); ok {
			if !f.Since.IsZero() && t.Before(f.Since) {
				return false
			}
			if !f.Until.IsZero() && !t.Before(f.Until) {
				return false
			}
		}
	}
	if f.Session != "" && r.Session != f.Session {
		return false
	}
	if f.Tool != "" {
		if ok, err := path.Match(f.Tool, r.Tool); err != nil || !ok {
			return false
		}
	}
	if f.Decision != "" && r.Decision != f.Decision && r.Effective != f.Decision {
		return false
	}
	return true
}

// Empty reports whether f keeps everything.
func (f Filter) Empty() bool { return f == Filter{} }

// Validate checks the tool glob.
func (f Filter) Validate() error {
	if f.Tool != "" {
		if _, err := path.Match(f.Tool, ""); err != nil {
			return fmt.Errorf("bad --tool glob %q: %w", f.Tool, err)
		}
	}
	return nil
}

// recordTime parses a record's ts.
func recordTime(r audit.Record) (time.Time, bool) {
	t, err := time.Parse(time.RFC3339Nano, r.Time)
	if err != nil {
		return time.Time{}, false
	}
	return t, true
}

// ParseSince turns a --since value into a point in time: a Go duration
// ("36h", "90m"), days ("2d", "1d12h"), an RFC 3339 time or a date
// ("2026-01-31", UTC midnight), or "all" (the start of the log). Durations
// count back from now.
func ParseSince(s string, now time.Time) (time.Time, error) {
	if s == "" || s == "all" {
		return time.Time{}, nil
	}
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t, nil
	}
	if t, err := time.Parse("2006-01-02", s); err == nil {
		return t, nil
	}
	d, err := parseDuration(s)
	if err != nil {
		return time.Time{}, fmt.Errorf("bad --since %q: want a duration like 2d or 36h, or a time like 2026-01-31T09:00:00Z", s)
	}
	return now.Add(-d), nil
}

// parseDuration is time.ParseDuration plus a leading whole number of days
// ("7d", "1d12h").
func parseDuration(s string) (time.Duration, error) {
	days := time.Duration(0)
	if i := strings.IndexByte(s, 'd'); i > 0 {
		n, err := strconv.Atoi(s[:i])
		if err != nil || n < 0 || n > 100000 {
			return 0, fmt.Errorf("bad day count in %q", s)
		}
		days = time.Duration(n) * 24 * time.Hour
		s = s[i+1:]
		if s == "" {
			return days, nil
		}
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, err
	}
	if d < 0 {
		return 0, fmt.Errorf("negative duration %q", s)
	}
	return days + d, nil
}
