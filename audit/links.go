package audit

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/agentairlock/airlock/internal/textsafe"
)

// shortHash renders a claimed hash for messages: first 12 characters, escaped.
func shortHash(h []byte) string {
	s := string(h)
	if len(s) > 12 {
		s = s[:12] + "…"
	}
	if s == "" {
		return `""`
	}
	return textsafe.Escape(s)
}

// digest is a fixed-size key for a claimed hash string: the decoded SHA-256
// for well-formed values, a hash of the text otherwise, so equal strings
// give equal digests either way.
type digest [sha256.Size]byte

func digestOf(s []byte) digest {
	var d digest
	if len(s) == 2*sha256.Size && strings.Trim(string(s), hexDigits) == "" {
		if _, err := hex.Decode(d[:], s); err == nil {
			return d
		}
	}
	return sha256.Sum256(append([]byte("\x00not-hex\x00"), s...))
}

type linkEntry struct {
	h, prev digest
	ok      bool // the line is a record
}

// collectLinks re-reads one file keeping only each record's h and prev.
// Only a file whose chain is broken is re-read, and one file at a time, so
// the memory this takes is bounded by the rotation size.
func collectLinks(r io.Reader) ([]linkEntry, error) {
	var out []linkEntry
	var cp canonParser
	lr := newLineReader(r)
	for {
		line, _, err := lr.next()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		h, prev, _, _, ok := recordHashes(&cp, line)
		e := linkEntry{ok: ok}
		if ok {
			e.h, e.prev = digestOf([]byte(h)), digestOf([]byte(prev))
		}
		out = append(out, e)
	}
}

// chainStart is where a file's chain must begin: genesis for the first
// file, the last h of the file before it otherwise.
type chainStart struct {
	h        digest
	first    bool   // the first file of the walk
	prevFile string // the file before, for messages
}

// classifyLinks explains every place in one file where a record's prev is
// not the h of the record before it, as a deletion, insertion or
// reordering, or a break at the boundary with the previous file.
func (v *verifier) classifyLinks(es []linkEntry, start chainStart) {
	first := make(map[digest]int, len(es)) // h -> first line with it
	var dups map[digest][]int              // h -> all lines, only for repeated h
	for i, e := range es {
		if !e.ok {
			continue
		}
		if j, seen := first[e.h]; seen {
			if dups == nil {
				dups = map[digest][]int{}
			}
			if len(dups[e.h]) == 0 {
				dups[e.h] = []int{j}
			}
			dups[e.h] = append(dups[e.h], i+1)
			continue
		}
		first[e.h] = i + 1
	}
	lookup := func(d digest) (int, bool) {
		if d == start.h {
			return 0, true
		}
		j, ok := first[d]
		return j, ok
	}
	nextOK := func(i int) int { // line after i that is a record, 0 if none
		for k := i; k < len(es); k++ {
			if es[k].ok {
				return k + 1
			}
		}
		return 0
	}
	lineName := func(n int) string {
		switch {
		case n > 0:
			return fmt.Sprintf("line %d", n)
		case start.first:
			return "genesis"
		}
		return "the last record of " + start.prevFile
	}
	involved := map[int]bool{}
	p, hp := 0, start.h
	for idx, e := range es {
		i := idx + 1
		if !e.ok {
			continue
		}
		if e.prev == hp {
			p, hp = i, e.h
			continue
		}
		j, found := lookup(e.prev)
		n := nextOK(i)
		switch {
		case involved[i] || (p > 0 && involved[p]) || (found && j > 0 && involved[j]):
			// Already explained by an earlier finding.
		case len(dups[e.h]) > 1:
			other := dups[e.h][0]
			if other == i {
				other = dups[e.h][1]
			}
			v.add(i, kindInserted, Broken, "%s was inserted: it is a copy of line %d", v.loc(i), other)
			involved[i] = true
			continue // not part of the chain: the next record should chain to line p
		case found && j > i:
			v.add(i, kindReordered, Broken, "%s is out of order: it chains to line %d, which comes after it", v.loc(i), j)
			involved[i], involved[j] = true, true
		case n > 0 && es[n-1].prev == hp:
			v.add(i, kindInserted, Broken, "%s was inserted: line %d chains to %s, skipping it", v.loc(i), n, lineName(p))
			involved[i] = true
			continue
		case found && j < p && n > 0 && es[n-1].prev == e.h:
			v.add(j+1, kindInserted, Broken, "lines %d-%d%s were inserted: line %d chains to %s, skipping them", j+1, p, v.ofFile(), i, lineName(j))
			for k := j + 1; k <= p; k++ {
				involved[k] = true
			}
		case found && j < p:
			v.add(i, kindInserted, Broken, "%s was inserted: it chains to %s instead of line %d", v.loc(i), lineName(j), p)
			involved[i] = true
			continue
		case p == 0 && start.first:
			v.add(i, kindDeleted, Broken, "%s does not start the chain: the record(s) before it were deleted from the start of the log", v.loc(i))
		case p == 0:
			v.add(i, kindBoundary, Broken, "%s does not chain to the last record of %s: the chain breaks at the segment boundary (records deleted at the end of %s or the start of %s, or a segment removed)", v.loc(i), start.prevFile, start.prevFile, v.file)
		default:
			v.add(i, kindDeleted, Broken, "%s does not chain to line %d: record(s) between them were deleted (or line %d was rewritten)", v.loc(i), p, p)
		}
		p, hp = i, e.h
	}
}
