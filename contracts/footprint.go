package contracts

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/agentairlock/airlock/internal/regular"
	"github.com/agentairlock/airlock/policy"
)

// footprintsName is the file in $AIRLOCK_HOME that holds what servers did
// while Airlock observed them.
const footprintsName = "footprints.json"

// Bounds on one server's footprint. A server that touches more is not one
// whose footprint a person can review, and the file must not grow without
// limit; past a bound the footprint is marked truncated and Promote
// refuses it rather than write a contract that would block the part that
// was never recorded.
const (
	maxPaths = 1000
	maxHosts = 200
	maxTools = 200
)

// footprint is what one server actually did while observed.
type footprint struct {
	// Tools are the tool names called (Claude Code's spelling).
	Tools []string `json:"tools"`
	// Paths are absolute paths in every spelling a contract checks (as
	// written, symlink-resolved, percent-decoded); a path that was a
	// directory when observed ends in "/".
	Paths []string `json:"paths"`
	// Hosts are canonical hosts.
	Hosts []string  `json:"hosts"`
	Shell bool      `json:"shell"` // a call carried a shell command
	Calls int       `json:"calls"`
	First time.Time `json:"first"`
	Last  time.Time `json:"last"`
	// Set when a bound was reached: the list above is incomplete.
	ToolsTruncated bool `json:"tools_truncated,omitempty"`
	PathsTruncated bool `json:"paths_truncated,omitempty"`
	HostsTruncated bool `json:"hosts_truncated,omitempty"`
}

// Truncated reports whether any list hit its bound.
func (fp *footprint) Truncated() bool {
	return fp.ToolsTruncated || fp.PathsTruncated || fp.HostsTruncated
}

type footprintFile struct {
	Version int                   `json:"version"`
	Servers map[string]*footprint `json:"servers"`
}

// Observe merges one call of server's tool into $AIRLOCK_HOME/footprints.json.
// Many short-lived processes observe at once, so the read-merge-write runs
// under the cross-process lock (footprints.lock) and the file is replaced
// atomically (temp file + rename, 0600): no call is lost, no reader sees
// half a file. A footprints file that does not parse is an error, never
// silently replaced.
func Observe(airlockHome, server, tool string, f *policy.Facts, now time.Time) error {
	if server == "" {
		return errors.New("observe: no server name")
	}
	key := NormName(server)
	return withLock(airlockHome, func() error {
		file := filepath.Join(airlockHome, footprintsName)
		ff, err := readFootprints(file)
		if err != nil {
			return err
		}
		fp := ff.Servers[key]
		if fp == nil {
			fp = &footprint{First: now}
			ff.Servers[key] = fp
		}
		fp.merge(NormName(tool), f, homeOf(airlockHome), now)
		data, err := json.MarshalIndent(ff, "", "  ")
		if err != nil {
			return fmt.Errorf("observe %s: %w", server, err)
		}
		return writeAtomic(file, append(data, '\n'))
	})
}

// homeOf guesses the user's home for ~ and $HOME in raw paths when only
// Airlock's home is known; the classifier has already expanded them in
// PathFact.Path, so this only matters for a percent-decoded spelling.
func homeOf(airlockHome string) string {
	if h, err := os.UserHomeDir(); err == nil {
		return h
	}
	return filepath.Dir(airlockHome)
}

// Footprints reads every server's footprint. A missing file is none.
func Footprints(airlockHome string) (map[string]*footprint, error) {
	ff, err := readFootprints(filepath.Join(airlockHome, footprintsName))
	if err != nil {
		return nil, err
	}
	return ff.Servers, nil
}

func readFootprints(file string) (*footprintFile, error) {
	ff := &footprintFile{Version: 1, Servers: map[string]*footprint{}}
	data, err := regular.ReadState(file, maxFileBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return ff, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read footprints %s: %w", file, err)
	}
	if err := json.Unmarshal(data, ff); err != nil {
		return nil, fmt.Errorf("read footprints %s: %w (delete the file to start observing afresh)", file, err)
	}
	if ff.Version != 1 {
		return nil, fmt.Errorf("read footprints %s: version %d is not one this Airlock reads", file, ff.Version)
	}
	if ff.Servers == nil {
		ff.Servers = map[string]*footprint{}
	}
	for name, fp := range ff.Servers {
		if fp == nil {
			delete(ff.Servers, name)
		}
	}
	return ff, nil
}

// merge adds one call. Paths are recorded in every spelling Check will
// test, so a contract promoted from the footprint admits the calls that
// made it.
func (fp *footprint) merge(tool string, f *policy.Facts, home string, now time.Time) {
	fp.Calls++
	if fp.First.IsZero() || now.Before(fp.First) {
		fp.First = now
	}
	if now.After(fp.Last) {
		fp.Last = now
	}
	fp.Tools, fp.ToolsTruncated = addBounded(fp.Tools, tool, maxTools, fp.ToolsTruncated)
	if f == nil {
		return
	}
	if len(f.Commands) > 0 || len(f.Signals) > 0 {
		fp.Shell = true
	}
	for _, pf := range f.Paths {
		sp, _ := spellings(pf, home)
		for _, s := range sp {
			p := s.path
			if st, err := os.Stat(p); err == nil && st.IsDir() && !strings.HasSuffix(p, "/") {
				p += "/"
			}
			fp.Paths, fp.PathsTruncated = addBounded(fp.Paths, p, maxPaths, fp.PathsTruncated)
		}
	}
	for _, h := range f.Hosts {
		host := h.Host
		if host == "" {
			host = policy.CanonicalHost(h.Raw)
		}
		if host != "" {
			fp.Hosts, fp.HostsTruncated = addBounded(fp.Hosts, host, maxHosts, fp.HostsTruncated)
		}
	}
}

// addBounded inserts s into the sorted set list unless it would exceed
// max, in which case truncated becomes true.
func addBounded(list []string, s string, max int, truncated bool) ([]string, bool) {
	if s == "" {
		return list, truncated
	}
	i := sort.SearchStrings(list, s)
	if i < len(list) && list[i] == s {
		return list, truncated
	}
	if len(list) >= max {
		return list, true
	}
	list = append(list, "")
	copy(list[i+1:], list[i:])
	list[i] = s
	return list, truncated
}
