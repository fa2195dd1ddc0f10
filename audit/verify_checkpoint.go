package audit

import "github.com/agentairlock/airlock/internal/textsafe"

// checkpoint compares audit.head (and the ledger's end) with what the walk
// found. target is the walk index of the file the checkpoint names a line
// of (-1 if none), tst that file's state, live the live file's.
func (v *verifier) checkpoint(snap *snapshot, led *ledgerCheck, items []walkItem, target int, tst, live *fileState) {
	head, headBad := snap.head, snap.headBad
	v.file, v.live = LogFile, true
	if head != nil {
		switch {
		case head.Segments > led.maxSeq:
			v.addIn(LedgerFile, 0, kindLedgerPruned, Broken, "the checkpoint was written after %d rotations but %s lists %d: ledger lines were removed from its end", head.Segments, LedgerFile, led.maxSeq)
		case head.Segments > 0 && head.Segments == led.maxSeq && led.bySeq[led.maxSeq].H != head.Ledger:
			v.addIn(LedgerFile, 0, kindLedgerEdited, Broken, "the checkpoint says ledger entry %d has h %s but %s has h %s: the ledger was rewritten", head.Segments, shortHash([]byte(head.Ledger)), LedgerFile, shortHash([]byte(led.bySeq[led.maxSeq].H)))
		}
	}
	L := live.lines
	liveIdx := len(items) - 1
	switch {
	case headBad != nil:
		v.addIn(headFile, 0, kindCheckpointMalformed, Broken, "%s is unreadable: %s", headFile, textsafe.Escape(headBad.Error()))
	case head == nil:
		if v.rep.Records == 0 {
			return
		}
		if v.markLine > 0 {
			where := ""
			if v.markFile != LogFile {
				where = " of " + v.markFile
			}
			v.addIn(headFile, 0, kindCheckpointMissing, Broken, "%s is missing but the log is checkpointed (%s at line %d%s): the checkpoint was deleted, so records may have been removed from the end", headFile, v.markWhat, v.markLine, where)
		} else {
			v.addIn(headFile, 0, kindCheckpointMissing, TailUnprovable, "%s is missing and the log was never checkpointed: records after line %d may have been removed without trace", headFile, L)
		}
	case target < 0:
		v.addIn(headFile, 0, kindCheckpointMismatch, Broken, "the checkpoint names line %d of the file that was live after %d rotations, but %s does not list that segment", head.Count, head.Segments, LedgerFile)
	case target != liveIdx:
		it := items[target]
		switch {
		case !tst.hAtOK || tst.hAt != head.Last:
			got := "no record"
			if tst.hAtOK {
				got = "h " + shortHash([]byte(tst.hAt))
			}
			v.addIn(it.name, head.Count, kindCheckpointMismatch, Broken, "the checkpoint says line %d of %s has h %s but it has %s", head.Count, textsafe.Escape(it.name), shortHash([]byte(head.Last)), got)
			if it.entry == nil {
				v.addIn(it.name, 0, kindSegmentUnlisted, Broken, "%s is not listed in %s: its ledger line was removed, or the file was planted", textsafe.Escape(it.name), LedgerFile)
			}
		default:
			v.afterRotation(items, target, tst, live, head.Count, it.entry == nil)
		}
	case live.partial && head.Count == L+1 && string(v.lastH) == head.Last:
		// The checkpointed record lost its newline: reported as torn.
	case head.Count < L && live.hAtOK && live.hAt == head.Last:
		// Line Count is the checkpointed record: what follows it is a
		// killed writer's unconfirmed tail, or lines appended by hand.
		v.afterCheckpoint(items, head.Count, live)
	case head.Count != L && string(live.lastFull) == head.Last:
		// The log still ends with the checkpointed record, so lines were
		// removed or added inside it: the chain findings explain that.
		if !live.linkBroken {
			v.addIn(headFile, 0, kindCheckpointMismatch, Broken, "the checkpoint counts %d lines but the log has %d although it ends with the checkpointed record: %s was edited", head.Count, L, headFile)
		}
	case head.Count > L:
		missing := head.Count - L
		if L == 0 {
			v.addIn(LogFile, 1, kindTruncated, Broken, "%s is empty or missing but the checkpoint records %d records: all %d missing (truncated)", LogFile, head.Count, missing)
		} else {
			v.addIn(LogFile, L+1, kindTruncated, Broken, "the log ends after line %d but the checkpoint records %d lines: %d record(s) missing from the end (truncated)", L, head.Count, missing)
		}
	case !live.hAtOK || live.hAt != head.Last:
		got := "no record"
		if live.hAtOK {
			got = "h " + shortHash([]byte(live.hAt))
		}
		v.addIn(LogFile, head.Count, kindCheckpointMismatch, Broken, "the checkpoint says line %d has h %s but line %d has %s: the log was rewritten, or truncated and appended to", head.Count, shortHash([]byte(head.Last)), head.Count, got)
	}
}
