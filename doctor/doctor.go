// Package doctor runs the checks of `airlock doctor`: whether what Airlock
// is meant to enforce on this machine is enforcing, and what it does not
// cover. Every check says what it found, and a failing one says how to fix
// it. Nothing here changes a file; Fix (in fix.go) is the one exception
// and says so.
package doctor

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"

	"github.com/agentairlock/airlock/audit"
	"github.com/agentairlock/airlock/internal/home"
	"github.com/agentairlock/airlock/internal/regular"
	"github.com/agentairlock/airlock/pins"
	"github.com/agentairlock/airlock/policy"
)

// Status is a check's outcome.
type Status string

// Outcomes, from best to worst. Only Fail makes doctor exit 1: a gap
// (Warn) is something Airlock cannot enforce by its nature and says so.
const (
	OK   Status = "ok"
	info Status = "info"
	warn Status = "warn"
	fail Status = "fail"
)

// Check is one line of the doctor's report, with details below it.
type Check struct {
	Name   string   `json:"name"`
	Status Status   `json:"status"`
	Detail string   `json:"detail"`
	Items  []string `json:"items,omitempty"`
	Fix    string   `json:"fix,omitempty"`
	// Brief, when set, is the check on one line for the default text
	// report, which then leaves Detail and Items to --verbose (and JSON,
	// which always has them all).
	Brief string `json:"-"`
	// table: the items are the rows of a table, printed whole (a table
	// cut short hides agents).
	table bool
}

// report is every check, in the order run.
type report struct {
	Checks []Check `json:"checks"`
	// NothingWired: no agent's tool call passes the gate (no Claude Code
	// hook in force, no MCP server behind airlock-mcp); the "agents" check
	// says so and fails.
	NothingWired bool `json:"nothing_wired"`
}

// Enforcing reports whether no check failed.
func (r *report) Enforcing() bool {
	for _, c := range r.Checks {
		if c.Status == fail {
			return false
		}
	}
	return true
}

func (r *report) add(c Check) { r.Checks = append(r.Checks, c) }

// Options say where to look.
type Options struct {
	Env       home.Env
	Workspace string // the project whose stores are checked (cwd)
	GOOS      string
	Getenv    func(string) string
	// HookPath and MCPPath are the binaries init wires; "" when not found.
	HookPath, MCPPath string
	ExtraConfigs      []string
	// CodexPath is the codex program to ask which hooks it runs ("" when
	// it was not found).
	CodexPath string
	// SystemRoot prefixes the managed hook files doctor reads (tests: a
	// directory standing for /); "" is the real root.
	SystemRoot string
}

// Run runs every check.
func Run(o Options) *report {
	if o.Getenv == nil {
		o.Getenv = os.Getenv
	}
	r := &report{}
	r.add(checkPolicy(o))
	r.add(checkAudit(o.Env.AirlockHome, auditOptions(o)))
	setupChecks, unwired := checkSetup(o)
	r.NothingWired = unwired
	for _, c := range setupChecks {
		r.add(c)
	}
	r.add(checkPins(o.Env.AirlockHome))
	r.add(checkFeed(o.Env.AirlockHome))
	r.add(checkEnv(o.Getenv))
	r.add(checkAsk(o))
	r.add(checkKernel())
	return r
}

func checkPolicy(o Options) Check {
	p, err := policy.LoadEnv(o.Env, o.Workspace)
	if err != nil {
		return Check{Name: "policy", Status: fail, Detail: err.Error(),
			Fix: "fix the file and line named above (airlock policy check), or move it aside to fall back to the bundled profile"}
	}
	c := Check{Name: "policy", Status: OK}
	src := "bundled profile " + p.Profile
	var files []string
	for _, f := range p.Files {
		if f.Role == "profile" {
			files = append(files, "the bundled profile "+strings.TrimPrefix(f.Path, "profile:"))
			continue
		}
		files = append(files, fmt.Sprintf("%s: %s", f.Role, f.Path))
	}
	if len(files) > 0 {
		src = strings.Join(files, "; ")
	}
	c.Detail = fmt.Sprintf("%s mode, profile %s, %d rules, %d grants, %d built-in forbids (%d overridden)",
		p.Mode, p.Profile, len(p.Rules), len(p.Grants), len(p.Forbids), len(p.Overrides))
	c.Items = append(c.Items, "loaded from "+src)
	if p.Overlay != nil {
		c.Items = append(c.Items, fmt.Sprintf("repository overlay in force: %s (%d rules, tighten-only)", p.Overlay.File, len(p.Overlay.Rules)))
	}
	if m := p.ManagedFile(); m != "" {
		c.Items = append(c.Items, fmt.Sprintf("managed policy in force: %s %s (the organisation's floor; your policy and the overlay only tighten it)", m, p.Files[0].Digest))
		if t := p.ManagedExport(); len(t) > 0 {
			c.Items = append(c.Items, "export targets of the managed policy: "+strings.Join(t, ", ")+" (airlock forward with no --target ships there)")
		}
		c.Items = append(c.Items, AuditNotes(p, o.Getenv)...)
	}
	if p.ModeFromEnv != "" {
		c.Items = append(c.Items, "mode set by AIRLOCK_MODE="+p.ModeFromEnv)
	}
	if p.Mode == policy.Observe {
		c.Status = fail
		c.Items = append(c.Items, "observe mode refuses nothing: calls are only recorded")
		c.Fix = "airlock profile default"
		if p.ModeFromEnv != "" {
			c.Fix = "unset AIRLOCK_MODE where you start your agents"
		}
	}
	for _, w := range p.Warnings {
		c.Items = append(c.Items, "warning: "+w)
	}
	return c
}

// auditOptions are what the log is verified with: the managed policy's
// audit requirement over the environment's, when the policy loads (when
// it does not, the policy check says so).
func auditOptions(o Options) audit.VerifyOptions {
	p, err := policy.LoadEnv(o.Env, o.Workspace)
	if err != nil {
		p = nil
	}
	return VerifyOptions(p, "")
}

func checkAudit(home string, vo audit.VerifyOptions) Check {
	c := Check{Name: "audit log"}
	if home == "" {
		return Check{Name: "audit log", Status: fail, Detail: "no Airlock home", Fix: "set AIRLOCK_HOME or HOME"}
	}
	if _, err := os.Stat(home); errors.Is(err, fs.ErrNotExist) {
		c.Status, c.Detail = OK, "no decisions recorded yet ("+filepath.Join(home, audit.LogFile)+" is created on the first call)"
	} else {
		// Verified even without audit.jsonl: a started chain whose log was
		// deleted is a finding (audit.GenesisFile), not "nothing yet".
		rep, err := audit.VerifyWith(home, vo)
		switch {
		case err != nil:
			c.Status, c.Detail = fail, "cannot verify: "+err.Error()
			c.Fix = "airlock verify shows where; check the permissions of " + home
		case rep.Status != audit.Intact:
			c.Status = fail
			c.Detail = fmt.Sprintf("chain %s: %d problems in %d records", rep.Verdict, len(rep.Problems), rep.Records)
			for i, p := range rep.Problems {
				if i == 5 {
					c.Items = append(c.Items, fmt.Sprintf("and %d more (airlock verify)", len(rep.Problems)-5))
					break
				}
				c.Items = append(c.Items, p.Message)
			}
			c.Fix = "airlock verify; airlock breach to see what the gap may hide"
		case rep.Records == 0:
			c.Status, c.Detail = OK, "no decisions recorded yet ("+filepath.Join(home, audit.LogFile)+" is created on the first call)"
		default:
			c.Status = OK
			c.Detail = fmt.Sprintf("chain intact, %d records in %d segment(s); %s", rep.Records, rep.Segments+1, rep.Strength)
			for _, w := range rep.Warnings {
				c.Status = warn
				c.Items = append(c.Items, w.Kind+": "+w.Message)
			}
		}
	}
	if err := appendable(home); err != nil {
		c.Status = fail
		c.Items = append(c.Items, "a record cannot be appended now: "+err.Error())
		c.Fix = "make " + home + " writable by you (mode 0700): the hook refuses every call when it cannot record"
		if errors.Is(err, syscall.ENOSPC) {
			c.Fix = "free space on the file system holding " + home + ": the hook and the proxy refuse every call while no record can be written"
		}
	}
	return c
}

// probeBytes is what appendable writes: more than a large record and its
// checkpoint, so a disk with room for the probe has room for the next
// append.
const probeBytes = 16 << 10

// appendable proves that a record could be appended now without adding
// one to the chain: it writes a probe file of probeBytes in home, syncs it
// (so the file system has really allocated it, delayed allocation
// included), removes it, and opens the log for appending. A full disk
// fails the write with ENOSPC; permissions fail the create or the open.
func appendable(home string) error {
	if err := os.MkdirAll(home, 0o700); err != nil {
		return err
	}
	f, err := os.CreateTemp(home, ".doctor-probe-*")
	if err != nil {
		return err
	}
	name := f.Name()
	defer os.Remove(name)
	_, err = f.Write(make([]byte, probeBytes))
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		if errors.Is(err, syscall.ENOSPC) {
			return fmt.Errorf("the disk is full: writing a %d KiB probe in %s failed: %w", probeBytes>>10, home, err)
		}
		return fmt.Errorf("writing a probe in %s: %w", home, err)
	}
	if err := os.Remove(name); err != nil {
		return err
	}
	// opened as the log's writers open it: never through a link, never
	// blocking on a FIFO (internal/regular.OpenState)
	log := filepath.Join(home, audit.LogFile)
	if _, err := os.Lstat(log); err == nil {
		lf, err := regular.OpenState(log, os.O_WRONLY|os.O_APPEND, 0)
		if err != nil {
			return err
		}
		lf.Close()
	}
	return nil
}

func checkPins(home string) Check {
	c := Check{Name: "pins"}
	entries, err := pins.Open(home).Load()
	switch {
	case errors.Is(err, fs.ErrNotExist):
		c.Status, c.Detail = OK, "no MCP toolset pinned yet (each is pinned on first use)"
		return c
	case err != nil:
		c.Status, c.Detail = fail, err.Error()
		c.Fix = "the proxy refuses every call while pins.json is unreadable; move it aside to re-pin every server on next start"
		return c
	}
	var held []string
	names := make([]string, 0, len(entries))
	for n := range entries {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if e := entries[n]; e.State == pins.Held {
			held = append(held, fmt.Sprintf("%s: %s", n, e.Reason))
		}
	}
	c.Status = OK
	c.Detail = fmt.Sprintf("%d server(s) pinned, %d held", len(entries)-len(held), len(held))
	if len(entries) == 0 {
		c.Detail = "no MCP toolset pinned yet (each is pinned on first use)"
	}
	if len(held) > 0 {
		c.Status = warn
		c.Items = held
		c.Fix = "review with airlock pins diff NAME, then airlock pins approve or reject"
	}
	return c
}

func checkEnv(getenv func(string) string) Check {
	c := Check{Name: "environment", Status: OK, Detail: "no AIRLOCK_* variable weakens the gate"}
	var set []string
	for _, v := range home.WeakeningVars {
		if val := getenv(v); val != "" {
			set = append(set, v+"="+val)
		}
	}
	if len(set) == 0 {
		return c
	}
	c.Items = set
	c.Detail = fmt.Sprintf("%d variable(s) change what the gate enforces or records; every decision records them", len(set))
	c.Status = warn
	if getenv("AIRLOCK_FAIL_OPEN") == "1" || getenv("AIRLOCK_MODE") == "observe" || getenv("AIRLOCK_PROFILE") == "yolo" {
		c.Status = fail
		c.Fix = "unset AIRLOCK_FAIL_OPEN, AIRLOCK_MODE=observe and AIRLOCK_PROFILE=yolo where you start your agents"
	}
	return c
}
