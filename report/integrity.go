package report

import (
	"fmt"
	"slices"
	"strings"

	"github.com/agentairlock/airlock/audit"
	"github.com/agentairlock/airlock/internal/textsafe"
)

// Integrity is what every report and breach analysis opens with: can the
// log it is built on be trusted?
type Integrity struct {
	Simulated bool         // no log was read (breach --simulate)
	Status    audit.Status // audit.Verify's verdict over the whole log
	Records   int          // lines Verify examined
	Problems  int
	Strength  string // audit's one sentence on what the verdict protects against
	Warnings  int    // findings that leave the verdict intact (audit.Report.Warnings)
	// Sealed names the files holding breaks an audit_seal record covers
	// (airlock audit seal): every report names them.
	Sealed []string
}

// CheckIntegrity verifies the log in home as airlock verify does, with
// the signing key and anchor directory getenv names.
func CheckIntegrity(home string, getenv func(string) string) (Integrity, error) {
	rep, err := audit.VerifyWith(home, audit.VerifyOptions{Getenv: getenv, AnchorDir: getenv(audit.AnchorDirEnv)})
	if err != nil {
		return Integrity{}, err
	}
	in := Integrity{
		Status:   rep.Status,
		Records:  rep.Records,
		Problems: len(rep.Problems),
		Strength: rep.Strength,
		Warnings: len(rep.Warnings),
	}
	for _, w := range rep.Warnings {
		if w.Kind == audit.KindSealedBreak && !slices.Contains(in.Sealed, w.File) {
			in.Sealed = append(in.Sealed, w.File)
		}
	}
	return in, nil
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
		h := fmt.Sprintf("INTEGRITY: intact, %d records, chain and checkpoint verified (airlock verify)", i.Records)
		switch {
		case len(i.Sealed) > 0:
			h += fmt.Sprintf("; sealed breaks in %s, kept as evidence (airlock verify names them)", textsafe.Escape(strings.Join(i.Sealed, ", ")))
		case i.Warnings > 0:
			h += fmt.Sprintf("; %d warning(s): airlock verify names them", i.Warnings)
		}
		return h
	case audit.TailUnprovable:
		return fmt.Sprintf("INTEGRITY: tail unprovable, %d records chain correctly, but nothing proves no records were cut from the end", i.Records)
	}
	return fmt.Sprintf("INTEGRITY: BROKEN, the audit log was altered (%d problem(s)); run airlock verify. Nothing below can be trusted as evidence", i.Problems)
}

// Caveat is what the verdict does and does not protect against, or "".
func (i Integrity) Caveat() string {
	if i.Simulated || i.Strength == "" {
		return ""
	}
	return "Strength: " + i.Strength + "."
}
