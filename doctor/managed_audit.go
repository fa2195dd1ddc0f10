package doctor

import (
	"fmt"
	"os"

	"github.com/agentairlock/airlock/audit"
	"github.com/agentairlock/airlock/internal/textsafe"
	"github.com/agentairlock/airlock/policy"
)

// The managed policy's audit requirement (policy.AuditRequirement), as
// doctor, airlock verify and airlock profile show and apply it; the
// appenders apply it through gate.OpenLog.

// VerifyOptions are the options airlock verify and doctor check the log
// with: the managed policy's signing mode over AIRLOCK_SIGN, and its
// anchor directory unless anchorDir (--anchor-dir) names one.
func VerifyOptions(p *policy.Policy, anchorDir string) audit.VerifyOptions {
	o := audit.VerifyOptions{AnchorDir: anchorDir}
	if p == nil {
		return o
	}
	req := p.ManagedAudit()
	o.Sign = req.Sign
	if o.AnchorDir == "" {
		o.AnchorDir = req.AnchorDir
	}
	return o
}

// AuditNotes says how the managed policy's audit requirement stands over
// the environment's settings, for airlock profile and doctor: nil when it
// requires nothing.
func AuditNotes(p *policy.Policy, getenv func(string) string) []string {
	if p == nil {
		return nil
	}
	req := p.ManagedAudit()
	if !req.Required() {
		return nil
	}
	if getenv == nil {
		getenv = os.Getenv
	}
	notes := []string{fmt.Sprintf("the managed policy requires of the audit log: %s (%s)", req, req.File)}
	if v := getenv(audit.SignEnv); req.Sign != "" && v != req.Sign {
		notes = append(notes, fmt.Sprintf("%s=%q is not what the managed policy says: every record is signed with %s", audit.SignEnv, v, req.Sign))
	}
	if v := getenv(audit.AnchorDirEnv); req.AnchorDir != "" && v != "" && v != req.AnchorDir {
		notes = append(notes, fmt.Sprintf("%s=%s is not used: anchors go to %s, the managed policy's", audit.AnchorDirEnv, textsafe.Escape(v), req.AnchorDir))
	}
	return notes
}
