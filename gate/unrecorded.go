package gate

import (
	"github.com/agentairlock/airlock/audit"
	"github.com/agentairlock/airlock/internal/home"
	"github.com/agentairlock/airlock/policy"
)

// FailOpenEnv names the variable that lets calls through while Airlock is
// broken — an audit log that cannot be written included.
const FailOpenEnv = "AIRLOCK_FAIL_OPEN"

// ruleUnrecorded is the rule of a call refused because its decision could
// not be written to the audit log.
const ruleUnrecorded = "audit-unwritable"

// Unrecorded says why a record could not be written and how to fix it, for
// a person: the cause first (disk full, permission, read-only file system),
// then the error with the file it names, then the fix (audit.Unwritable).
func Unrecorded(err error, home string) string { return audit.Unwritable(err, home) }

// written reports whether an append error still leaves the record in the
// log: written but not checkpointed, or not anchored, is recorded.
func written(err error) bool { return audit.Written(err) }

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
	if home.FailOpen(getenv(g.Env)) {
		res.Note = joinNote(res.Note, "not recorded, let through because "+FailOpenEnv+"=1: "+why)
		return
	}
	way := " (or set " + FailOpenEnv + "=1 to let calls through unrecorded)"
	if home.ManagedInForce() {
		way = " (" + FailOpenEnv + " lets nothing through on this managed machine)"
	}
	res.Decision = policy.Decision{
		Action: policy.Block, Source: policy.FromError, Rule: ruleUnrecorded, Target: res.Decision.Target,
		Reason: "Airlock refuses a call it cannot record: " + why + way,
	}
	res.Effective = policy.Block
}

// FailedOpen reports whether res is a call let through unrecorded because
// AIRLOCK_FAIL_OPEN=1: the front end says so to the person.
func (r Result) FailedOpen() bool {
	return !written(r.AuditErr) && r.Effective != policy.Block
}
