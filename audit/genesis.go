package audit

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/agentairlock/airlock/internal/textsafe"
)

// genesisFile marks a home whose chain was started. It is written once,
// when the first record of a new chain (its audit_start) is written, and
// never rewritten:
//
//	{"at":"<ts>","h":"<h of the chain's first record>"}
//
// audit.jsonl and audit.head can be deleted together, and without this
// file an emptied home looks like one that was never used. With it, Verify
// reports a home with a genesis mark and no log as a deletion, and a chain
// whose first record is not the one the mark names as replaced (the log
// deleted and a new chain started). Someone who deletes the mark too makes
// the home look unused: only anchors outside the home (AIRLOCK_ANCHOR_DIR)
// catch that. `airlock init` starts the chain, so every initialised home
// has the mark.
const genesisFile = "audit.genesis"

// Finding kinds about the genesis mark.
const (
	kindLogDeleted    = "log-deleted"    // the chain was started but no file of it is left
	kindChainReplaced = "chain-replaced" // the chain does not start with the record the mark names
)

// genesisMark is the content of GenesisFile.
type genesisMark struct {
	At string `json:"at"`
	H  string `json:"h"`
}

// readGenesis returns the mark, nil if there is none.
func readGenesis(home string) (*genesisMark, error) {
	b, err := readRegular(filepath.Join(home, genesisFile), 4096)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", genesisFile, err)
	}
	var g genesisMark
	if err := json.Unmarshal(b, &g); err != nil || !isHexDigest(g.H) {
		return &genesisMark{}, nil // unreadable: Verify says the chain does not match it
	}
	return &g, nil
}

// markGenesis writes GenesisFile for a chain whose first line starts buf,
// unless the file exists (it is never replaced: a second chain in the same
// home is what it exists to reveal). It is best effort: the record is
// written already, and a home without the mark is only less protected
// against deletion (Start, which init calls, reports the failure).
func markGenesis(home string, buf []byte) error {
	line, _, _ := bytes.Cut(buf, []byte{'\n'})
	var cp canonParser
	h, prev, ev, _, ok := recordHashes(&cp, line)
	if !ok || prev != Genesis || ev != EventStart {
		return nil
	}
	var r Record
	_ = json.Unmarshal(line, &r)
	return writeGenesis(home, genesisMark{At: r.Time, H: h})
}

func writeGenesis(home string, g genesisMark) error {
	b, err := json.Marshal(g)
	if err != nil {
		return err
	}
	f, err := openRegular(filepath.Join(home, genesisFile), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("create %s: %w", genesisFile, err)
	}
	_, err = f.Write(append(b, '\n'))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		_ = os.Remove(f.Name())
		return fmt.Errorf("write %s: %w", genesisFile, err)
	}
	return nil
}

// Start starts the chain in home, if it is not started, by appending r
// (after the chain's audit_start when the log is new), and makes sure the
// genesis mark exists: a log written before the mark existed gets one for
// its first record, so from now on its deletion is detected. `airlock
// init` calls it, so "this home was used" has a meaning.
func Start(home string, r Record) error {
	l, err := Open(home)
	if err != nil {
		return err
	}
	_, err = l.Append(r)
	if cerr := l.Close(); err == nil {
		err = cerr
	}
	if err != nil && !errors.Is(err, ErrCheckpoint) && !errors.Is(err, ErrAnchor) {
		return err
	}
	g, gerr := readGenesis(home)
	if gerr != nil || g != nil {
		return gerr
	}
	for e, ierr := range records(home) {
		if ierr != nil {
			return fmt.Errorf("audit: start: %w", ierr)
		}
		if e.Record.Prev != Genesis || !isHexDigest(e.Record.H) {
			// The chain's first file is gone or does not start the chain:
			// a mark would vouch for what Verify already reports.
			return err
		}
		if werr := writeGenesis(home, genesisMark{At: e.Record.Time, H: e.Record.H}); werr != nil {
			return fmt.Errorf("audit: start: %w", werr)
		}
		break
	}
	return err
}

// checkGenesis compares the mark with what the walk found: the h of the
// chain's first record (nil when the first file is missing or empty).
func (v *verifier) checkGenesis(g *genesisMark, snap *snapshot) {
	if g == nil {
		return
	}
	switch {
	case v.rep.Records == 0 && snap.head == nil && snap.headBad == nil && len(snap.ledger) == 0 && len(snap.segFiles) == 0:
		v.addIn(LogFile, 0, kindLogDeleted, Broken, "%s and %s are gone but %s says this home's chain was started at %s (first record h %s): the log was deleted", LogFile, headFile, genesisFile, textsafe.Escape(g.At), shortHash([]byte(g.H)))
	case v.firstH != nil && v.firstGenesis && string(v.firstH) != g.H:
		// (A first record that does not start from genesis is reported
		// by the walk as records deleted from the start.)
		v.addIn(v.firstFile, 1, kindChainReplaced, Broken, "the chain starts with a record whose h is %s but %s says it was started at %s with h %s: the log was deleted or replaced and a new chain started", shortHash(v.firstH), genesisFile, textsafe.Escape(g.At), shortHash([]byte(g.H)))
	}
}
