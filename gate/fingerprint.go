package gate

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/agentairlock/airlock/audit"
	"github.com/agentairlock/airlock/internal/atomicfile"
	"github.com/agentairlock/airlock/internal/flock"
	"github.com/agentairlock/airlock/internal/home"
	"github.com/agentairlock/airlock/internal/regular"
	"github.com/agentairlock/airlock/internal/textsafe"
	"github.com/agentairlock/airlock/policy"
)

// Config describes the gate in force at an enforcement point: the policy
// files it loaded (with digests), its mode, and the weakening variables
// that are set.
type Config struct {
	Source string // hook | mcp
	Lines  []string
}

// ConfigOf describes the gate a policy and the caller's environment make.
// extra lists further files the enforcement point read (contracts.yaml for
// the proxy).
func ConfigOf(source string, p *policy.Policy, env home.Env, extra ...string) Config {
	c := Config{Source: source}
	for _, f := range p.Files {
		c.Lines = append(c.Lines, f.Role+" "+f.Path+" "+f.Digest) // fmt.Sprintf("%s %s %s"): its first call in a process costs ~10 µs
	}
	if len(p.Files) == 0 {
		c.Lines = append(c.Lines, "profile "+p.Source)
	}
	c.Lines = append(c.Lines, "mode "+p.Mode.String())
	if req := p.ManagedAudit(); req.Required() {
		c.Lines = append(c.Lines, "managed-audit "+req.String())
	}
	for _, v := range home.WeakeningVars {
		if val := getenv(env)(v); val != "" {
			c.Lines = append(c.Lines, v+"="+val)
		}
	}
	c.Lines = append(c.Lines, extra...)
	return c
}

// Fingerprint is a digest of the description.
func (c Config) Fingerprint() string {
	h := sha256.New()
	for _, l := range c.Lines {
		h.Write([]byte(l))
		h.Write([]byte{'\n'})
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil))
}

// FileDigest describes a further file an enforcement point read, for
// ConfigOf's extra: "contracts PATH sha256:…", or "contracts PATH absent".
// The file is one of Airlock's own in the home, read as its loader reads
// it (no link followed, no FIFO waited on, at most maxDigestBytes): one
// that is not a regular file of the user's is described as unreadable.
func FileDigest(role, path string) string {
	b, err := regular.ReadState(path, maxDigestBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return role + " " + path + " absent"
	}
	if err != nil {
		return role + " " + path + " unreadable"
	}
	sum := sha256.Sum256(b)
	return role + " " + path + " sha256:" + hex.EncodeToString(sum[:])
}

// maxDigestBytes bounds a file FileDigest reads: contracts.yaml's own
// bound (contracts/atomic.go), past which its loader has refused it.
const maxDigestBytes = 64 << 20

// RecordConfig writes one gate_config record when the gate in force at
// this enforcement point differs from the last one recorded there, so a
// run under a substituted policy or a weakening variable shows in the log
// as a change. The last fingerprint per source is kept in
// $AIRLOCK_HOME/gate.<source>.fingerprint; losing that file costs one
// more (truthful) record, never a missed change.
func RecordConfig(log Recorder, home, session string, c Config) error {
	if log == nil {
		return nil
	}
	fp := c.Fingerprint()
	mark := filepath.Join(home, "gate."+c.Source+".fingerprint")
	same := func() bool {
		b, err := regular.ReadState(mark, 4096)
		return err == nil && strings.TrimSpace(string(b)) == fp
	}
	if same() {
		return nil // the common case: no lock, one small read
	}
	// Many hook processes may see the change at once: one records it.
	lf, err := regular.OpenState(filepath.Join(home, "gate.lock"), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("record the gate configuration: %w", err)
	}
	defer lf.Close()
	if err := flock.Lock(lf); err != nil {
		return fmt.Errorf("record the gate configuration: %w", err)
	}
	defer flock.Unlock(lf) //nolint:errcheck // closing releases it too
	if same() {
		return nil
	}
	lines := append([]string(nil), c.Lines...)
	sort.Strings(lines)
	if _, err := log.Append(audit.Record{
		Event: "gate_config", Source: c.Source, Session: session, Target: fp,
		Decision: "change", Detail: textsafe.Escape(strings.Join(lines, "; ")),
	}); err != nil {
		return fmt.Errorf("record the gate configuration: %w", err)
	}
	if err := atomicfile.WriteState(mark, []byte(fp+"\n"), 0o600); err != nil {
		return fmt.Errorf("remember the gate configuration: %w", err)
	}
	return nil
}
