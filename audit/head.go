package audit

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// Head is the checkpoint kept in audit.head: the number of lines in the
// live audit.jsonl and the h of the last one, as of the last append, and
// how many rotations the ledger had then with the h of its last line (both
// omitted before the first rotation). A checkpoint names a position in the
// whole chain: line Count of the file that was live after Segments
// rotations.
type Head struct {
	Count    int    `json:"count"`
	Last     string `json:"last"`
	At       string `json:"at"`
	Segments int    `json:"segments,omitempty"` // ledger lines when written
	Ledger   string `json:"ledger,omitempty"`   // h of the last ledger line then
	Alg      string `json:"alg,omitempty"`      // signature algorithm, when signing
	Sig      string `json:"sig,omitempty"`      // signature of HeadSigningInput (covers every other member)
}

// errHeadMalformed wraps parse problems with audit.head; its presence is a
// finding, not an I/O failure.
var errHeadMalformed = errors.New("checkpoint malformed")

// readHead reads audit.head. It returns (nil, nil) if the file does not
// exist, an error wrapping errHeadMalformed if it cannot be parsed, and other
// errors for I/O failures.
func readHead(home string) (*Head, error) {
	b, err := readRegular(filepath.Join(home, HeadFile), maxHeadBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", HeadFile, err)
	}
	var h Head
	if err := json.Unmarshal(b, &h); err != nil {
		return nil, fmt.Errorf("%w: %w", errHeadMalformed, err)
	}
	if h.Count < 1 {
		return nil, fmt.Errorf("%w: count %d", errHeadMalformed, h.Count)
	}
	if !isHexDigest(h.Last) {
		return nil, fmt.Errorf("%w: last %q is not a sha256 hex digest", errHeadMalformed, h.Last)
	}
	if h.Segments < 0 || (h.Segments > 0) != (h.Ledger != "") || (h.Ledger != "" && !isHexDigest(h.Ledger)) {
		return nil, fmt.Errorf("%w: segments %d with ledger %q", errHeadMalformed, h.Segments, h.Ledger)
	}
	return &h, nil
}

// writeHead replaces audit.head atomically (temporary file in the same
// directory, then rename). The file is created 0600.
func writeHead(home string, h Head, sync bool) error {
	b, err := json.Marshal(h)
	if err != nil {
		return fmt.Errorf("marshal checkpoint: %w", err)
	}
	b = append(b, '\n')
	tmp, err := os.CreateTemp(home, HeadFile+".tmp*")
	if err != nil {
		return fmt.Errorf("create checkpoint: %w", err)
	}
	name := tmp.Name()
	ok := false
	defer func() {
		if !ok {
			_ = tmp.Close()
			_ = os.Remove(name)
		}
	}()
	if _, err := tmp.Write(b); err != nil {
		return fmt.Errorf("write checkpoint: %w", err)
	}
	if sync {
		if err := tmp.Sync(); err != nil {
			return fmt.Errorf("sync checkpoint: %w", err)
		}
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("close checkpoint: %w", err)
	}
	if err := os.Rename(name, filepath.Join(home, HeadFile)); err != nil {
		return fmt.Errorf("install checkpoint: %w", err)
	}
	ok = true
	return nil
}
