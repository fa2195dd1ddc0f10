package gate

import (
	"errors"
	"io/fs"
	"syscall"

	"github.com/agentairlock/airlock/audit"
	"github.com/agentairlock/airlock/policy"
)

// FailOpenEnv names the variable that lets calls through while Airlock is
// broken — an audit log that cannot be written included.
const FailOpenEnv = "AIRLOCK_FAIL_OPEN"

// RuleUnrecorded is the rule of a call refused because its decision could
// not be written to the audit log.
const RuleUnrecorded = "audit-unwritable"

// Unrecorded says why a record could not be written and how to fix it, for
// a person: the cause first (disk full, permission, read-only file system),
// then the error with the file it names, then the fix.
func Unrecorded(err error, home string) string {
	cause, fix := "", ""
	switch {
	case errors.Is(err, syscall.ENOSPC):
		cause, fix = "the disk is full (ENOSPC)", "free space on the file system holding "+home
	case errors.Is(err, syscall.EDQUOT):
		cause, fix = "the disk quota is used up (EDQUOT)", "free space in your quota on the file system holding "+home
	case errors.Is(err, syscall.EROFS):
		cause, fix = "the file system is read-only (EROFS)", "remount it read-write, or point AIRLOCK_HOME at a writable directory"
	case errors.Is(err, fs.ErrPermission):
		cause, fix = "permission denied (EACCES)", "make "+home+" and the files in it yours and writable by you (chown, chmod u+rw)"
	default:
		cause, fix = "it could not be written", "see the error, and run airlock doctor"
	}
	return "the audit log in " + home + " cannot be written: " + cause + ": " + err.Error() + "; fix: " + fix
}

// written reports whether an append error still leaves the record in the
// log: written but not checkpointed, or not anchored, is recorded.
func written(err error) bool {
	return err == nil || errors.Is(err, audit.ErrCheckpoint) || errors.Is(err, audit.ErrAnchor)
}

// refuseUnrecorded applies the one rule for a decision whose record could
// not be written: the call is refused — an allow too — unless the user set
// AIRLOCK_FAIL_OPEN=1, in which case the decision stands and the note says
// it was not recorded. Every front end (hook, proxy, egress) gets the rule
// here, through Decide.
func (g *Gate) refuseUnrecorded(res *Result) {
	if written(res.AuditErr) || res.Effective == policy.Block {
		return
	}
	why := Unrecorded(res.AuditErr, g.Env.AirlockHome)
	if g.Env.Getenv != nil && g.Env.Getenv(FailOpenEnv) == "1" {
		res.Note = joinNote(res.Note, "not recorded, let through because "+FailOpenEnv+"=1: "+why)
		return
	}
	res.Decision = policy.Decision{
		Action: policy.Block, Source: policy.FromError, Rule: RuleUnrecorded, Target: res.Decision.Target,
		Reason: "Airlock refuses a call it cannot record: " + why + " (or set " + FailOpenEnv + "=1 to let calls through unrecorded)",
	}
	res.Effective = policy.Block
}

// FailedOpen reports whether res is a call let through unrecorded because
// AIRLOCK_FAIL_OPEN=1: the front end says so to the person.
func (r Result) FailedOpen() bool {
	return !written(r.AuditErr) && r.Effective != policy.Block
}
