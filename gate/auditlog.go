package gate

import (
	"errors"
	"fmt"
	"os"

	"github.com/agentairlock/airlock/audit"
	"github.com/agentairlock/airlock/internal/home"
	"github.com/agentairlock/airlock/internal/textsafe"
	"github.com/agentairlock/airlock/policy"
)

// ErrAuditRequirement is wrapped by OpenLog's error when the managed
// policy's audit: requirement cannot be met: the caller refuses every call
// (fail closed), writing no record the requirement does not allow.
var ErrAuditRequirement = errors.New("the managed policy's audit requirement is not met")

// OpenLog opens home's audit log as the policy in force requires: with
// the managed policy's signing mode and anchor directory over AIRLOCK_SIGN
// and AIRLOCK_ANCHOR_DIR, which then cannot turn signing off, change its
// mode or move the anchors. p nil (a policy that did not load) opens it as
// the environment says. The requirement is known before the first record
// is written: a signing key that cannot be loaded, or an anchor directory
// that is not there, is an ErrAuditRequirement naming the managed file,
// its line and the fix.
func OpenLog(airlockHome string, p *policy.Policy, getenv func(string) string) (*audit.Log, error) {
	var req policy.AuditRequirement
	if p != nil {
		req = p.ManagedAudit()
	}
	if !req.Required() {
		return audit.OpenWith(airlockHome, audit.Options{Getenv: getenv})
	}
	if req.AnchorDir != "" {
		if st, err := os.Stat(req.AnchorDir); err != nil || !st.IsDir() {
			why := "is not a directory"
			if err != nil {
				why = "cannot be used: " + err.Error()
			}
			return nil, fmt.Errorf("%w: %s line %d (audit.anchor_dir) sends this machine's anchors to %s, which %s: every call is refused until it is there; ask your administrator to create it (writable by the users who run agents, its anchor file append-only)",
				ErrAuditRequirement, req.File, req.AnchorLine, textsafe.Escape(req.AnchorDir), textsafe.Escape(why))
		}
	}
	log, err := audit.OpenWith(airlockHome, audit.Options{Getenv: getenv, Sign: req.Sign, AnchorDir: req.AnchorDir})
	var serr *audit.SignRequiredError
	if errors.As(err, &serr) {
		fix := "check that " + airlockHome + " is yours and writable (the hmac key, audit.key, is made there on first use)"
		if req.Sign == "ed25519" {
			fix = "set AIRLOCK_SIGN_KEY, where you start your agents, to the ed25519 private key your administrator gave you (PEM PKCS#8), or ask your administrator"
		}
		return nil, fmt.Errorf("%w: %s line %d (audit.sign: %s) requires every audit record signed with %s, and signing cannot be set up (%v): every call is refused until it can; %s",
			ErrAuditRequirement, req.File, req.SignLine, req.Sign, req.Sign, serr.Err, fix)
	}
	return log, err
}

// OpenLogEnv is OpenLog for a caller that has not loaded the policy (the
// hook's deadline record, askd, taint clear): it loads it from env for
// the managed requirement; a policy that does not load opens the log as
// the environment says.
func OpenLogEnv(env home.Env, cwd string) (*audit.Log, error) {
	p, err := policy.LoadEnv(env, cwd)
	if err != nil {
		p = nil
	}
	return OpenLog(env.AirlockHome, p, env.Getenv)
}
