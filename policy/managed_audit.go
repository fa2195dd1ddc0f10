package policy

import (
	"path/filepath"
	"strings"

	"github.com/agentairlock/airlock/internal/yamldoc"
)

// AuditRequirement is what the managed policy's audit: key requires of
// every user's audit log; the zero value requires nothing. The appenders
// (gate.OpenLog) and airlock verify apply it over AIRLOCK_SIGN,
// AIRLOCK_ANCHOR_DIR and --anchor-dir, which then neither turn signing
// off, change its mode, nor move the anchors.
type AuditRequirement struct {
	File string // the managed file, for messages

	// Sign is the signing mode every record is written with: "hmac" (the
	// home's audit.key, made on first use) or "ed25519" (the private key
	// AIRLOCK_SIGN_KEY names: without one the gate fails closed); "" for
	// no requirement.
	Sign     string
	SignLine int

	// AnchorDir is the directory anchors are written to (an absolute
	// path the deployment made, where the user cannot rewrite them); ""
	// for no requirement.
	AnchorDir  string
	AnchorLine int
}

// Required reports whether the managed policy requires anything of the
// audit log.
func (a AuditRequirement) Required() bool { return a.Sign != "" || a.AnchorDir != "" }

// String describes the requirement on one line ("" when there is none),
// as gate_config records, airlock profile and doctor show it.
func (a AuditRequirement) String() string {
	var out []string
	if a.Sign != "" {
		out = append(out, "sign="+a.Sign)
	}
	if a.AnchorDir != "" {
		out = append(out, "anchor_dir="+a.AnchorDir)
	}
	return strings.Join(out, " ")
}

// ManagedAudit is the managed policy's audit requirement (the zero value
// on an unmanaged machine, or when the managed policy has no audit: key).
func (p *Policy) ManagedAudit() AuditRequirement {
	if p.managed == nil {
		return AuditRequirement{}
	}
	return p.managed.Audit
}

// signModes are the values of audit.sign: AIRLOCK_SIGN's.
var signModes = []string{"hmac", "ed25519"}

// managedAudit checks the managed file's audit: key.
func managedAudit(raw *rawDoc, file string, errs *yamldoc.Problems) AuditRequirement {
	a := AuditRequirement{File: file, Sign: raw.Audit.Sign, SignLine: raw.lines["audit.sign"],
		AnchorDir: raw.Audit.AnchorDir, AnchorLine: raw.lines["audit.anchor_dir"]}
	if _, ok := raw.lines["audit.sign"]; ok && a.Sign != signModes[0] && a.Sign != signModes[1] {
		errs.Add(a.SignLine, "audit.sign: %q is not a signing mode: write hmac (each home's own key, made on first use) or ed25519 (the key AIRLOCK_SIGN_KEY names)", a.Sign)
	}
	if _, ok := raw.lines["audit.anchor_dir"]; ok && (!filepath.IsAbs(a.AnchorDir) || filepath.Clean(a.AnchorDir) != a.AnchorDir) {
		errs.Add(a.AnchorLine, "audit.anchor_dir: %q is not a clean absolute path: name the directory the deployment made for anchors (/var/lib/airlock/anchors)", a.AnchorDir)
	}
	return a
}
