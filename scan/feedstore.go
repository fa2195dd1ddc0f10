package scan

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/agentairlock/airlock/internal/atomicfile"
	"github.com/agentairlock/airlock/internal/home"
	"github.com/agentairlock/airlock/internal/regular"
)

// storedFeed is feed.json: the payload as it was verified, byte for byte,
// and where it came from.
type storedFeed struct {
	Version   int    `json:"version"`
	Created   string `json:"created"`
	Signer    string `json:"signer"`
	Source    string `json:"source"`
	Installed string `json:"installed"`
	SHA256    string `json:"sha256"`
	Payload   string `json:"payload"`
}

// LoadFeed reads an installed feed (FeedFile in the Airlock home) and
// validates it again: caps, patterns and the floor. The signature was
// checked when it was installed; feed.json is the home's own state, like
// pins.json. A file that does not exist is an error wrapping
// fs.ErrNotExist; any other problem names the file and the fix.
func LoadFeed(path string) (*Feed, error) {
	raw, err := readFeedFile(path)
	if err != nil {
		return nil, err
	}
	f, err := parseStored(raw)
	if err != nil {
		return nil, fmt.Errorf("feed %s is not usable: %w; install a feed again with `airlock update FILE|URL`, or remove the file to fall back to the bundled indicators", path, err)
	}
	return f, nil
}

func readFeedFile(path string) ([]byte, error) {
	// A FIFO or device planted as feed.json would hang or never end.
	// The payload is a JSON string in the file: escaping at most doubles it.
	const limit = 2*MaxFeedBytes + 64<<10
	raw, err := regular.ReadState(path, limit)
	if errors.Is(err, regular.ErrNotRegular) || errors.Is(err, home.ErrUnsafe) {
		return nil, fmt.Errorf("feed %w; remove it to fall back to the bundled indicators", err)
	}
	if err != nil {
		return nil, err
	}
	if len(raw) > limit {
		return nil, fmt.Errorf("feed %s is over %d bytes: not a file Airlock writes; remove it to fall back to the bundled indicators", path, limit)
	}
	return raw, nil
}

func parseStored(raw []byte) (*Feed, error) {
	var st storedFeed
	if err := decodeStrict(raw, &st); err != nil {
		return nil, err
	}
	payload := []byte(st.Payload)
	sum := sha256.Sum256(payload)
	if hex.EncodeToString(sum[:]) != st.SHA256 {
		return nil, errors.New("its payload does not match its sha256: the file was edited or damaged")
	}
	f, err := compileFeed(payload, true)
	if err != nil {
		return nil, err
	}
	if f.Version != st.Version || f.Created.Format(time.RFC3339) != st.Created {
		return nil, errors.New("its version or created time does not match its payload: the file was edited")
	}
	if st.Signer != Unsigned && !validKeyID(st.Signer) {
		return nil, fmt.Errorf("signer %q is neither a key id nor %q", clip(st.Signer, 32), Unsigned)
	}
	if f.Installed, err = time.Parse(time.RFC3339, st.Installed); err != nil {
		return nil, fmt.Errorf("installed %q is not an RFC 3339 time", clip(st.Installed, 40))
	}
	f.Signer, f.Source = st.Signer, st.Source
	return f, nil
}

// InstallFeed makes f the feed installed at path (FeedFile in the Airlock
// home), unless that would roll back: a lower version than the installed
// one, or the same version with other content. Installing the same
// payload again, with the same signer, changes nothing and reports
// already. The caller sets f.Source and f.Installed.
func InstallFeed(path string, f *Feed) (already bool, err error) {
	cur, err := LoadFeed(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
	case err != nil:
		return false, err
	case cur.SHA256 == f.SHA256 && (cur.Signer == f.Signer || f.Signer == Unsigned):
		return true, nil
	case cur.SHA256 == f.SHA256:
		// The same feed, now signed (or signed by another trusted key):
		// record the new signer.
	case f.Version < cur.Version:
		return false, fmt.Errorf("%w: this feed is version %d, the active one is version %d; a feed can only move forward", errFeedRollback, f.Version, cur.Version)
	case f.Version == cur.Version:
		return false, fmt.Errorf("%w: version %d is already active with other content (sha256 %.12s…, this one %.12s…); a publisher raises the version for every change", errFeedRollback, f.Version, cur.SHA256, f.SHA256)
	}
	st := storedFeed{
		Version: f.Version, Created: f.Created.Format(time.RFC3339), Signer: f.Signer, Source: f.Source,
		Installed: f.Installed.UTC().Format(time.RFC3339), SHA256: f.SHA256, Payload: string(f.payload),
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(st); err != nil {
		return false, fmt.Errorf("install feed %s: %w", path, err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return false, fmt.Errorf("install feed %s: %w", path, err)
	}
	return false, atomicfile.WriteState(path, b.Bytes(), 0o600)
}
