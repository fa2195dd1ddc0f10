// Package audit keeps Airlock's tamper-evident audit log.
//
// Audit records, it never decides: the policy engine and the gate decide
// what happens to a tool call; this package only writes down what was
// decided and what happened, and later proves whether that record is still
// whole. Nothing in this package changes a decision, and a failure to audit
// is reported to the caller, who decides what to do about it.
//
// # Files
//
// All state lives in one directory (the caller passes $AIRLOCK_HOME):
//
//   - audit.jsonl: one JSON record per line, append-only, mode 0600.
//   - audit.lock: the cross-process lock file taken by every appender.
//   - audit.head: the checkpoint {"count":N,"last":"<h>","at":"<ts>"},
//     written after every append, mode 0600. The file has two fixed-size
//     slots, each with a sequence number and a SHA-256 digest, written
//     alternately in place (head.go): a torn write, or a reader catching a
//     write half done, leaves the other slot, the previous checkpoint,
//     readable. Release 1's one-line file still loads; the next append
//     converts it.
//
// A Log keeps audit.jsonl and audit.head open between appends, checking
// before each one that they are still the files at those paths (held.go).
//
// # Hash chain
//
// Every record carries prev (the h of the record before it, or 64 zeros for
// the first record) and h, the SHA-256 (64 lower-case hex digits) of the
// canonical encoding of every member of the record except h and the
// reserved signature members sig and alg. The canonical encoding of a record
// is what encoding/json produces for the record decoded into a
// map[string]any with UseNumber: members sorted by key, no insignificant
// white space, encoding/json's string escaping. Because the hash is computed
// over the decoded object rather than over a Go struct, members added by
// later versions of Airlock are covered automatically.
//
// Lines are written in canonical form (h included), so a valid line is
// byte-for-byte determined by its content: Verify rejects any line whose
// bytes are not canonical, even if its content still hashes correctly.
//
// The first record of a new log is an automatic audit_start record with
// detail "checkpointed"; its presence tells Verify that a missing audit.head
// was deleted rather than never written.
//
// When an appender finds the log and its checkpoint inconsistent (the
// checkpoint is missing, stale, points past the end of the log, or the last
// line is torn), it does not silently repair the checkpoint: it first
// appends an audit_recover record describing what it found, so the evidence
// survives in the chain and Verify keeps reporting it.
//
// # Signatures and anchors
//
// With AIRLOCK_SIGN (sign.go) every record, ledger line and checkpoint also
// carries alg and sig members (outside h); a signing appender first writes a
// sign_start record, and from it on Verify requires every record to be
// signed. With AIRLOCK_ANCHOR_DIR (anchor.go) appenders copy (count, last h)
// outside the home every AnchorEvery records and at every rotation. What
// each detects, with and without the key, is spelt out in verify_sign.go.
//
// # Verdicts, warnings and recovery
//
// Verify's verdict is intact, broken or tail-unprovable; an intact report
// may carry warnings (verify_tail.go): records a writer stopped between
// its record and its checkpoint left after the checkpoint (well formed and
// chained from it, unconfirmed-tail), and breaks an audit_seal record
// covers (seal.go). audit.genesis (genesis.go) marks a started chain, so
// a deleted log is a finding; audit.fault-* files (fault.go) let a writer
// whose append failed on a full disk tell the next one why its line is
// torn. docs/audit-format.md, "Verdicts and recovery", is the reference.
package audit
