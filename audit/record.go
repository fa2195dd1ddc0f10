package audit

import (
	"crypto/sha256"
	"encoding/hex"
	"time"
)

// File names inside the audit home directory.
const (
	LogFile  = "audit.jsonl"
	LockFile = "audit.lock"
	headFile = "audit.head"
)

// Genesis is the prev value of the first record of a log: 64 zeros.
const Genesis = "0000000000000000000000000000000000000000000000000000000000000000"

// Events written by the package itself.
const (
	// EventStart is the first record of every log created by this package.
	EventStart = "audit_start"
	// EventRecover is written by an appender that found the log and its
	// checkpoint inconsistent; its Reason is one of the Recover* values.
	EventRecover = "audit_recover"
	// eventSignStart is written by the first signing appender of a log (or
	// after unsigned records): every record from the first sign_start on
	// must be signed. Its Detail is SignStartDetail(mode).
	eventSignStart = "sign_start"

	// StartDetail marks a log that has had a checkpoint from its first record.
	StartDetail = "checkpointed"
)

// Reasons of an EventRecover record.
const (
	recoverCheckpointMissing = "checkpoint-missing"    // audit.head was gone although the log had the checkpointed mark
	recoverUncheckpointed    = "checkpoint-unprovable" // audit.head was gone and the log never had one
	recoverCheckpointStale   = "checkpoint-stale"      // audit.head lagged behind the log (a writer died after writing)
	recoverTruncated         = "truncated"             // audit.head counted more records than the log held
	recoverCheckpointBad     = "checkpoint-mismatch"   // audit.head named a hash the log does not have at that position
	recoverTorn              = "torn"                  // the log ended in a partial line
)

// TimeFormat is the layout of Record.Time: UTC, millisecond precision.
const TimeFormat = "2006-01-02T15:04:05.000Z"

// Record is one audit log entry. Only Event and Source are required; Time,
// Prev and H are filled in by Append.
type Record struct {
	Time       string `json:"ts"`                    // UTC RFC 3339 with milliseconds, e.g. "2026-11-29T10:43:49.123Z"; set by Append if empty
	Event      string `json:"event"`                 // decision, outcome, audit_start, hook_error, gate_config, ...
	Source     string `json:"source"`                // hook | mcp | cli
	Session    string `json:"session,omitempty"`     // agent session id
	Tool       string `json:"tool,omitempty"`        // tool name, canonical (Bash, Read, mcp__server__tool, ...)
	Agent      string `json:"agent,omitempty"`       // the agent whose hook sent the call (codex, gemini, cursor, ...); "" for Claude Code and the proxy
	AgentTool  string `json:"agent_tool,omitempty"`  // the agent's own name for the tool (run_shell_command), when it is not Tool
	Decision   string `json:"decision,omitempty"`    // what the policy said: allow|ask|block
	Effective  string `json:"effective,omitempty"`   // what happened: allow|ask|block|ran|...
	Rule       string `json:"rule,omitempty"`        // rule or forbid id
	Reason     string `json:"reason,omitempty"`      // human-readable reason
	Target     string `json:"target,omitempty"`      // concrete path/host/command that matched
	Detail     string `json:"detail,omitempty"`      // free-form detail
	Mode       string `json:"mode,omitempty"`        // policy mode
	Asked      string `json:"asked,omitempty"`       // how an ask was answered: one of the Asked* values
	ArgsDigest string `json:"args_digest,omitempty"` // sha256 hex of the canonical args (see ArgsDigest), never raw args
	Prev       string `json:"prev"`                  // h of the previous record, Genesis for the first
	H          string `json:"h"`                     // SHA-256 of the canonical record without h (and sig/alg)
	Alg        string `json:"alg,omitempty"`         // signature algorithm (AlgHMAC, AlgEd25519); set by Append when signing
	Sig        string `json:"sig,omitempty"`         // base64 signature of RecordSigningInput(H); set by Append when signing
}

// How an ask was answered (Record.Asked). A decision whose policy verdict
// was ask and that no agent prompt could answer (the MCP proxy, the
// sandbox's egress proxy) carries one of these.
const (
	AskedHuman      = "human"      // a person answered through the ask channel; Detail names the backend
	AskedRemembered = "remembered" // a person's answer to the same call shape, reused within AIRLOCK_ASK_REMEMBER
	AskedAutomatic  = "automatic"  // approved by --yes, never by a person
	AskedTimeout    = "timeout"    // a person was asked and did not answer in time; ask_fallback decided
	AskedUnattended = "unattended" // no channel could reach a person; ask_fallback decided
)

// ArgsDigest returns the full SHA-256 hex digest of canonicalJSON. Callers
// log this digest instead of raw tool arguments.
func ArgsDigest(canonicalJSON []byte) string {
	sum := sha256.Sum256(canonicalJSON)
	return hex.EncodeToString(sum[:])
}

// FormatTime formats t the way Record.Time is written.
func FormatTime(t time.Time) string {
	return t.UTC().Format(TimeFormat)
}
