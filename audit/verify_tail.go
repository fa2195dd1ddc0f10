package audit

import (
	"fmt"

	"github.com/agentairlock/airlock/internal/textsafe"
)

// Warning kinds: findings that leave the verdict intact but that a reader
// must see. `airlock verify --strict` treats any of them as tail-unprovable.
const (
	// KindUnconfirmedTail: records after the checkpoint that are well
	// formed and chain from the checkpointed record. The record and the
	// checkpoint are two writes, so a writer killed between them leaves
	// exactly this; the next append confirms them (an audit_recover
	// "checkpoint-stale", which is no finding).
	kindUnconfirmedTail = "unconfirmed-tail"
	// KindSealedBreak: a break inside a file of the log that an
	// audit_seal record later in the chain names by position and line
	// digest (see seal.go).
	KindSealedBreak = "sealed-break"
)

// KindAppended: lines after the checkpoint that are not a well-formed
// continuation of the chain from the checkpointed record (garbage, records
// that do not chain): something other than an appender wrote them.
const kindAppended = "appended"

// warning is a finding that does not change Report.Status.
type warning struct {
	File     string `json:"file"`                // where the first line it is about is
	Line     int    `json:"line,omitempty"`      // 1-based first line, 0 if not about lines
	LastLine int    `json:"last_line,omitempty"` // last line of the range in File, 0 for one line
	Kind     string `json:"kind"`                // one of the warning kinds
	Message  string `json:"message"`             // file text in it is Escape'd
}

func (v *verifier) warn(w warning) { v.rep.Warnings = append(v.rep.Warnings, w) }

// tailClean reports whether no line after the checkpoint has a finding:
// no problem with a line in the files after the checkpoint's file, nor in
// that file after line count. A torn last line of the live file (a partial
// line) is judged by itself and does not count.
func (v *verifier) tailClean(items []walkItem, target, count int, live *fileState) bool {
	after := map[string]bool{}
	for _, it := range items[target+1:] {
		after[it.name] = true
	}
	name := items[target].name
	for _, p := range v.rep.Problems {
		if p.Line == 0 {
			continue
		}
		if p.File == LogFile && live.partial && p.Line == live.lines+1 && p.Kind == KindTorn {
			continue
		}
		if after[p.File] || (p.File == name && p.Line > count) {
			return false
		}
	}
	return true
}

// afterCheckpoint judges the lines count+1..L of the live file when line
// count is the checkpointed record.
func (v *verifier) afterCheckpoint(items []walkItem, count int, live *fileState) {
	L := live.lines
	if !v.tailClean(items, len(items)-1, count, live) {
		v.addIn(LogFile, count+1, kindAppended, Broken, "lines appended after the checkpoint: %s of %s %s the checkpointed record (line %d) but %s not a well-formed continuation of the chain from it; something other than an appender wrote them", lineRange(count+1, L), LogFile, plural(count+1, L, "follows", "follow"), count, plural(count+1, L, "is", "are"))
		return
	}
	v.warn(warning{File: LogFile, Line: count + 1, LastLine: rangeEnd(count+1, L), Kind: kindUnconfirmedTail,
		Message: fmt.Sprintf("%s of %s %s after the checkpoint (line %d): well-formed records chained from it, left by a writer stopped between writing them and updating the checkpoint; nothing proves no record after line %d was removed; the next append confirms them", lineRange(count+1, L), LogFile, comes(count+1, L), count, L)})
}

// afterRotation judges the live file when the checkpoint names the end of
// the segment before it, from before the rotation that followed (a writer
// was stopped before updating it). interrupted says the segment is not in
// the ledger yet (stopped before listing it).
func (v *verifier) afterRotation(items []walkItem, target int, tst, live *fileState, count int, interrupted bool) {
	it := items[target]
	clean := tst.lines == count && v.tailClean(items, target, count, live)
	switch {
	case !clean && interrupted:
		v.addIn(it.name, 0, kindRotationInterrupted, TailUnprovable, "a writer was killed while rotating: %s was moved aside but not yet listed in %s; the next append lists it and starts a new %s", textsafe.Escape(it.name), LedgerFile, LogFile)
	case !clean:
		v.addIn(LogFile, 0, KindCheckpointStale, TailUnprovable, "the checkpoint names line %d of %s, from before the rotation that followed it, and what follows it has findings of its own: the %d line(s) of %s after it are not confirmed", count, textsafe.Escape(it.name), live.lines, LogFile)
	case interrupted:
		v.warn(warning{File: it.name, Kind: kindRotationInterrupted,
			Message: fmt.Sprintf("a writer was stopped while rotating: %s (which ends with the checkpointed record) was moved aside but not yet listed in %s; the next append lists it and starts a new %s", textsafe.Escape(it.name), LedgerFile, LogFile)})
	case live.lines == 0:
		v.warn(warning{File: it.name, Kind: kindUnconfirmedTail,
			Message: fmt.Sprintf("the checkpoint names the last line (%d) of %s, from before the rotation that listed it (a writer was stopped before updating the checkpoint); no record follows yet; the next append confirms it", count, textsafe.Escape(it.name))})
	default:
		v.warn(warning{File: LogFile, Line: 1, LastLine: rangeEnd(1, live.lines), Kind: kindUnconfirmedTail,
			Message: fmt.Sprintf("%s of %s %s after the checkpoint, which names the last line (%d) of %s from before the rotation: well-formed records chained from it, left by a writer stopped before updating the checkpoint; nothing proves no record after line %d was removed; the next append confirms them", lineRange(1, live.lines), LogFile, comes(1, live.lines), count, textsafe.Escape(it.name), live.lines)})
	}
}

func lineRange(a, b int) string {
	if a == b {
		return fmt.Sprintf("line %d", a)
	}
	return fmt.Sprintf("lines %d-%d", a, b)
}

func rangeEnd(a, b int) int {
	if a == b {
		return 0
	}
	return b
}

func comes(a, b int) string { return plural(a, b, "comes", "come") }

func plural(a, b int, one, many string) string {
	if a == b {
		return one
	}
	return many
}
