package report

import (
	"fmt"

	"github.com/agentairlock/airlock/audit"
)

// Environment variables that, once audit supports them, make the chain
// stronger than the directory's permissions.
const (
	EnvSign      = "AIRLOCK_SIGN"
	EnvAnchorDir = "AIRLOCK_ANCHOR_DIR"
)

// Integrity is what every report and breach analysis opens with: can the
// log it is built on be trusted?
type Integrity struct {
	Simulated bool         // no log was read (breach --simulate)
	Status    audit.Status // audit.Verify's verdict over the whole log
	Records   int          // lines Verify examined
	Problems  int
	Anchored  bool // signing or external anchors are configured
}

// CheckIntegrity verifies the log in home. getenv reports whether signing
// or anchoring is configured.
func CheckIntegrity(home string, getenv func(string) string) (Integrity, error) {
	rep, err := audit.Verify(home)
	if err != nil {
		return Integrity{}, err
	}
	return Integrity{
		Status:   rep.Status,
		Records:  rep.Records,
		Problems: len(rep.Problems),
		Anchored: getenv(EnvSign) != "" || getenv(EnvAnchorDir) != "",
	}, nil
}

// Trusted reports whether the records can be read as evidence (the chain
// is not broken).
func (i Integrity) Trusted() bool { return i.Simulated || i.Status != audit.Broken }

// Headline is the one-line verdict.
func (i Integrity) Headline() string {
	if i.Simulated {
		return "SIMULATION: a built-in canonical incident; no audit log was read"
	}
	switch i.Status {
	case audit.Intact:
		return fmt.Sprintf("INTEGRITY: intact, %d records, chain and checkpoint verified (airlock verify)", i.Records)
	case audit.TailUnprovable:
		return fmt.Sprintf("INTEGRITY: tail unprovable, %d records chain correctly, but nothing proves no records were cut from the end", i.Records)
	}
	return fmt.Sprintf("INTEGRITY: BROKEN, the audit log was altered (%d problem(s)); run airlock verify. Nothing below can be trusted as evidence", i.Problems)
}

// Caveat is the standing limit of an unanchored chain, or "".
func (i Integrity) Caveat() string {
	if i.Simulated || i.Anchored {
		return ""
	}
	return "The chain is only as strong as the directory's permissions: anyone who can write $AIRLOCK_HOME can rewrite the whole log consistently (no signing key or external anchor is configured)."
}
