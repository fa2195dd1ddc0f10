package policy

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strings"

	airlockhome "github.com/agentairlock/airlock/internal/home"
	"github.com/agentairlock/airlock/internal/regular"
	"github.com/agentairlock/airlock/internal/yamldoc"
)

// managed is the organisation's layer (internal/home.ManagedFile): read
// before the user's policy, never loosened by it, by the repository
// overlay or by an AIRLOCK_* variable. What it can do:
//
//   - mode, default, ask_fallback and escalate are floors: the policy in
//     force is at least as strict; its egress caps are ceilings;
//   - its rules (block or ask) are consulted on every call for a stricter
//     answer, after the user's rules, grants and the overlay;
//   - its forbids join the built-in ones, before them; nothing lifts them;
//   - lock_forbids (a list of built-in forbid ids, or "all") puts those
//     back whatever the user's overrides: say;
//   - no_grants (tool patterns): no grant of the user's applies to a call of
//     those tools;
//   - export: the receivers `airlock forward` ships the log to when it is
//     given no --target, in its --target syntax (forward.ParseTarget
//     checks them; here only their shape), and for which init installs
//     the forwarder's user service;
//   - audit: sign (hmac or ed25519) and anchor_dir, which every appender
//     applies over AIRLOCK_SIGN and AIRLOCK_ANCHOR_DIR (managed_audit.go).
type managed struct {
	File     string
	Rules    []*Rule
	noGrants *Rule // the tools no user grant applies to; nil: none
	Export   []string
	Audit    AuditRequirement
}

// ManagedExport is the managed policy's export targets (nil when the
// machine is not managed or names none).
func (p *Policy) ManagedExport() []string {
	if p.managed == nil {
		return nil
	}
	return p.managed.Export
}

// exportSchemes are the URL schemes `airlock forward --target` takes.
var exportSchemes = []string{"relp", "tls", "tcp", "udp", "otlp+http", "otlp+https"}

// ManagedFile is the managed policy in force ("" when the machine is not
// managed), for `airlock profile` and doctor.
func (p *Policy) ManagedFile() string {
	if p.managed == nil {
		return ""
	}
	return p.managed.File
}

// applyManaged reads the managed layer, when the machine has one, and
// applies it over p. A managed file that is not the administrator's alone,
// or does not load, or a marker that says one is required where there is
// none, is an error: the gate then refuses every call (fail closed), never
// runs as if the machine were unmanaged.
func (p *Policy) applyManaged(vars Vars) error {
	file := airlockhome.ManagedFile()
	fi, err := os.Lstat(file)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if _, merr := os.Lstat(airlockhome.ManagedMarker()); merr == nil || !errors.Is(merr, fs.ErrNotExist) {
			return fmt.Errorf("the managed policy %s is required on this machine (%s says so) and is missing: every call is refused until it is back; ask your administrator to reinstall it",
				file, airlockhome.ManagedMarker())
		}
		return nil
	case err != nil:
		return fmt.Errorf("the managed policy %s: %w", file, err)
	}
	if err := airlockhome.CheckManaged(file, fi); err != nil {
		return fmt.Errorf("the managed policy is not the administrator's alone, so every call is refused: %w", err)
	}
	// not as Airlock state (regular.ReadState), which must be the
	// reader's own: the managed file is root's and every user reads it.
	// The file opened is checked again, so what is read is what was
	// checked (no swap between the Lstat above and the open).
	data, err := readPolicyFile(file, func(path string, flag int, perm os.FileMode) (*os.File, error) {
		f, err := regular.Open(path, flag|noFollow, perm)
		if err != nil {
			return nil, err
		}
		fi, err := f.Stat()
		if err == nil {
			err = airlockhome.CheckManaged(path, fi)
		}
		if err != nil {
			f.Close()
			return nil, err
		}
		return f, nil
	})
	if err != nil {
		return fmt.Errorf("the managed policy %s: %w", file, err)
	}
	raw, probs := decode(data, file, true)
	if err := probs.Err(); err != nil {
		return err
	}
	m := &Policy{Source: file, Mode: Observe, Default: Allow, Escalate: map[Severity]Action{}, Overrides: map[string]string{}, Vars: vars}
	errs := yamldoc.Problems{File: file}
	if err := m.settle(raw, file, vars, &errs); err != nil {
		return err
	}
	if raw.AskFallback == "" {
		m.AskFallback = Allow // no floor written: the user's stands
	}
	for _, r := range raw.rules {
		if a, err := parseAction(r.Action); err == nil && a == Allow {
			errs.Add(r.line, "rule %q: a managed rule can only ask or block: what is allowed is the user's policy's to say (the managed layer only tightens it)", r.ID)
		}
	}
	if len(raw.grants) > 0 {
		errs.Add(raw.lines["grants"], "grants: a managed policy grants nothing: it only tightens the user's")
	}
	if len(raw.overrides) > 0 {
		errs.Add(raw.lines["overrides"], "overrides: a managed policy relaxes no built-in forbid; to keep one the user may lift, leave it out of lock_forbids")
	}
	if len(raw.indicators) > 0 {
		// the layer has no place for them: refused, never read and dropped
		errs.Add(raw.lines["indicators"], "indicators: a managed policy adds no indicator (the built-in ones are graded for every policy): raise what they lead to with escalate:, or block the text with a rule")
	}
	var forbids []*Rule
	for _, r := range raw.forbids {
		f, err := compileBuiltinForbid(r, vars)
		if err != nil {
			errs.Add(r.line, "%v", err)
			continue
		}
		if f.Action == Allow {
			// a forbid answers before the built-in forbids after it and
			// before every rule: one that allows would loosen both
			errs.Add(r.line, "forbid %q: a managed forbid can only ask or block (action: %s)", r.ID, r.Action)
			continue
		}
		forbids = append(forbids, f)
	}
	builtin, _, err := builtins(vars)
	if err != nil {
		return err
	}
	// what a user's override can name, and so a lock: the built-in
	// forbids and those Airlock's own records make (the binaries, the
	// feed's hosts), in the order parse lists them
	recorded, err := recordedForbids(vars.AirlockHome)
	if err != nil {
		return err
	}
	builtin = append(builtin, recorded...)
	var locked []string
	for _, id := range raw.LockForbids {
		if id == "all" {
			for _, f := range builtin {
				locked = append(locked, f.ID)
			}
			continue
		}
		if slices.Contains(recordedIDs, id) {
			locked = append(locked, id) // locked where its record is there
			continue
		}
		if !hasForbid(builtin, id) {
			errs.Add(raw.lines["lock_forbids"], "lock_forbids names %q, which is not a built-in forbid: run `airlock policy check --forbids` for the ids", id)
			continue
		}
		locked = append(locked, id)
	}
	var noGrants *Rule
	if len(raw.NoGrants) > 0 {
		noGrants, err = compileRule(rawRule{ID: "no_grants", Tool: strings.Join(raw.NoGrants, "|"), Action: "block"}, vars, file)
		if err != nil {
			errs.Add(raw.lines["no_grants"], "no_grants: %v", err)
		}
	}
	for _, t := range raw.Export {
		scheme, rest, ok := strings.Cut(t, "://")
		if !ok || rest == "" || !slices.Contains(exportSchemes, scheme) {
			errs.Add(raw.lines["export"], "export: %q is not a receiver URL: write it as airlock forward --target takes it (%s://HOST:PORT)", t, strings.Join(exportSchemes, ", "))
		}
	}
	audit := managedAudit(raw, file, &errs)
	if err := errs.Err(); err != nil {
		return err
	}

	// floors
	if m.Mode > p.Mode {
		if p.ModeFromEnv != "" {
			// AIRLOCK_MODE did not set the mode: nothing may say it did
			p.Warnings = append(p.Warnings, fmt.Sprintf("AIRLOCK_MODE=%s is below the managed policy's mode %s (%s): the mode is %s", p.ModeFromEnv, m.Mode, file, m.Mode))
			p.ModeFromEnv = ""
		}
		p.Mode = m.Mode
	}
	for h, n := range m.MaxBytesOut {
		if cur, ok := p.MaxBytesOut[h]; !ok || n < cur {
			if p.MaxBytesOut == nil {
				p.MaxBytesOut = map[string]int64{}
			}
			p.MaxBytesOut[h] = n // a floor: the user's policy may lower a cap, never raise one
		}
	}
	p.Default = stricter(p.Default, m.Default)
	p.AskFallback = stricter(p.AskFallback, m.AskFallback)
	p.Limits.tighten(m.Limits) // a floor: the user's policy may lower a limit, never raise one
	for sev, a := range m.Escalate {
		if cur, ok := p.Escalate[sev]; !ok || a > cur {
			p.Escalate[sev] = a
		}
	}
	// locked built-in forbids the user's overrides lifted come back, and
	// the user is told why
	for _, id := range locked {
		if reason, off := p.Overrides[id]; off {
			delete(p.Overrides, id)
			p.Warnings = append(p.Warnings, fmt.Sprintf("your override of %s (%q) is ignored: the managed policy %s locks it", id, reason, file))
		}
	}
	if len(locked) > 0 {
		// in the built-in order, the user's list plus the locked ones
		// back; then what the user's list holds beyond the built-ins (the
		// feed's hosts, the binaries)
		var out []*Rule
		for _, f := range builtin {
			if hasForbid(p.Forbids, f.ID) || slices.Contains(locked, f.ID) {
				out = append(out, f)
			}
		}
		for _, f := range p.Forbids {
			if !hasForbid(builtin, f.ID) {
				out = append(out, f)
			}
		}
		p.Forbids = out
	}
	p.Forbids = append(forbids, p.Forbids...)
	p.managed = &managed{File: file, Rules: m.Rules, noGrants: noGrants, Export: raw.Export, Audit: audit}
	p.Files = append([]loadedFile{{Path: file, Digest: digest(data), Role: "managed"}}, p.Files...)
	return nil
}

// managedDecision consults the managed layer's rules and keeps their
// answer only when it is stricter (as the overlay's).
func (p *Policy) managedDecision(f *Facts, d Decision) Decision {
	if p.managed == nil {
		return d
	}
	return tighten(p.managed.Rules, f, d, FromManaged, " [managed policy]")
}

// grantsBarred reports whether the managed layer bars the user's grants
// from this call's tool.
func (p *Policy) grantsBarred(f *Facts) bool {
	return p.managed != nil && p.managed.noGrants != nil && p.managed.noGrants.matchToolOf(f)
}

// GrantsBarredFor reports whether the managed layer's no_grants names the
// tool a grant is written for (airlock allow refuses to write one that
// would never apply).
func (p *Policy) GrantsBarredFor(tool string) bool {
	return p.managed != nil && p.managed.noGrants != nil && p.managed.noGrants.matchTool(tool)
}
