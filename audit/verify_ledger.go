package audit

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"slices"

	"github.com/agentairlock/airlock/internal/textsafe"
)

// ledgerCheck is what Verify learned from audit.chain.
type ledgerCheck struct {
	entries []ledgerEntry       // lines that parse as entries, in file order
	bySeq   map[int]ledgerEntry // first line for each seq
	maxSeq  int                 // highest seq listed, 0 if none
	lineOf  map[int]int         // seq -> line of its first entry
}

// checkLedger verifies audit.chain: every line's hash, that seqs run 1, 2,
// 3 ... in file order without gaps, and that each line chains to the one
// with the seq before it. Problems are reported against LedgerFile.
func (v *verifier) checkLedger(raw []byte) *ledgerCheck {
	lc := &ledgerCheck{bySeq: map[int]ledgerEntry{}}
	lineOf := map[int]int{} // seq -> ledger line
	var cp canonParser
	var f lineFields
	var sumHex [2 * sha256.Size]byte
	maxSoFar, n := 0, 0
	for len(raw) > 0 {
		n++
		line := raw
		i := bytes.IndexByte(raw, '\n')
		if i < 0 {
			raw = nil
			v.add(n, KindTorn, Broken, "line %d of %s has no trailing newline: torn (a writer was killed while rotating)", n, LedgerFile)
			continue
		}
		line, raw = raw[:i], raw[i+1:]
		if err := cp.parseCanonical(line, &f); err == nil && f.h != nil {
			hex.Encode(sumHex[:], f.hashed[:])
			if !bytes.Equal(sumHex[:], f.h) {
				v.add(n, kindLedgerEdited, Broken, "line %d of %s was edited: its content hashes to %s but its h is %s", n, LedgerFile, sumHex[:12], shortHash(f.h))
			}
		} else {
			m, derr := decodeObject(line)
			if derr != nil && (bytes.HasPrefix(line, []byte(`{"count":`)) || bytes.HasPrefix(line, []byte(`{"alg":`))) && errors.Is(derr, io.ErrUnexpectedEOF) {
				// The start of a ledger line cut short, then terminated by
				// the next rotation: a writer was killed mid-write.
				v.add(n, KindTorn, Broken, "line %d of %s: torn line (a writer was killed while rotating); the ledger continues at line %d", n, LedgerFile, n+1)
				continue
			}
			if derr != nil {
				v.add(n, kindMalformed, Broken, "line %d of %s is malformed: %s", n, LedgerFile, textsafe.Escape(derr.Error()))
				continue
			}
			hs, _ := m["h"].(string)
			sum, herr := hashObject(m)
			switch {
			case herr != nil:
				v.add(n, kindMalformed, Broken, "line %d of %s cannot be hashed: %v", n, LedgerFile, herr)
			case sum == hs:
				v.add(n, kindNonCanonical, Broken, "line %d of %s was re-encoded: its content still matches its h but its bytes are not canonical", n, LedgerFile)
			default:
				v.add(n, kindLedgerEdited, Broken, "line %d of %s was edited: its content hashes to %s but its h is %s", n, LedgerFile, sum[:12], shortHash([]byte(hs)))
			}
		}
		e, err := parseLedgerEntry(line)
		if err != nil {
			v.add(n, kindMalformed, Broken, "line %d of %s is not a ledger entry: %s", n, LedgerFile, textsafe.Escape(err.Error()))
			continue
		}
		lc.entries = append(lc.entries, e)
		if at, dup := lineOf[e.Seq]; dup {
			v.add(n, kindLedgerReordered, Broken, "line %d of %s repeats entry %d (line %d)", n, LedgerFile, e.Seq, at)
			continue
		}
		if e.Seq < maxSoFar {
			v.add(n, kindLedgerReordered, Broken, "line %d of %s (entry %d) comes after entry %d: the ledger was reordered", n, LedgerFile, e.Seq, maxSoFar)
		}
		maxSoFar = max(maxSoFar, e.Seq)
		lineOf[e.Seq] = n
		lc.bySeq[e.Seq] = e
	}
	seqs := make([]int, 0, len(lc.bySeq))
	for s := range lc.bySeq {
		seqs = append(seqs, s)
	}
	slices.Sort(seqs)
	prevSeq, prevH := 0, Genesis
	for _, s := range seqs {
		e := lc.bySeq[s]
		switch {
		case s != prevSeq+1 && s-1 == prevSeq+1:
			v.add(lineOf[s], kindLedgerPruned, Broken, "%s has no entry %d before line %d (entry %d): a ledger line was removed", LedgerFile, prevSeq+1, lineOf[s], s)
		case s != prevSeq+1:
			v.add(lineOf[s], kindLedgerPruned, Broken, "%s has no entries %d-%d before line %d (entry %d): ledger lines were removed", LedgerFile, prevSeq+1, s-1, lineOf[s], s)
		case e.Prev != prevH && prevSeq == 0:
			v.add(lineOf[s], kindLedgerEdited, Broken, "line %d of %s (entry 1) does not start the ledger chain: it was rewritten", lineOf[s], LedgerFile)
		case e.Prev != prevH:
			v.add(lineOf[s], kindLedgerEdited, Broken, "line %d of %s (entry %d) does not chain to entry %d (line %d): one of them was rewritten", lineOf[s], LedgerFile, s, prevSeq, lineOf[prevSeq])
		}
		prevSeq, prevH = s, e.H
	}
	lc.maxSeq = prevSeq
	lc.lineOf = lineOf
	return lc
}
