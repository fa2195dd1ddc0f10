package audit

import (
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/agentairlock/airlock/internal/flock"
	"github.com/agentairlock/airlock/internal/textsafe"
)

// External anchors.
//
// Anyone who can write audit.jsonl and audit.head can recompute the whole
// chain, and with the signing key re-sign it; anyone can roll it back to an
// older state. An anchor is a copy of (count, last h) kept somewhere the
// agent cannot rewrite: a directory on another volume, owned by another
// user, or a file made append-only (chattr +a). Verify then checks that the
// log still has, at every anchored count, the h that was anchored.
//
// The anchor directory holds AnchorFile, one canonical JSON line per anchor
// and shared by any number of homes:
//
//	{"at":"<ts>","count":N,"h":"<hex>","home":"<home id>","last":"<hex>","prev":"<hex>"}
//
// count is the number of records in the home's whole chain so far, last the
// h of record count (the same pair audit.head holds); home is HomeID. The
// file is itself a hash chain, built exactly like the audit log: h is the
// SHA-256 of the canonical encoding of the other members and prev the h of
// the line before (Genesis for the first), so an edited, inserted or
// deleted anchor line is detected. Truncating the file's tail is not, which
// is why the directory must be out of the agent's reach.
const (
	AnchorDirEnv   = "AIRLOCK_ANCHOR_DIR"
	anchorFile     = "airlock-anchors.jsonl"
	anchorLockFile = "airlock-anchors.lock"
	installIDFile  = "install.id"

	// anchorEvery is how often an appender anchors: at least once per
	// AnchorEvery records (see AnchorDue).
	anchorEvery int64 = 1000
)

// Anchor is one line of AnchorFile.
type Anchor struct {
	At    string `json:"at"`
	Count int64  `json:"count"`
	H     string `json:"h"`
	Home  string `json:"home"`
	Last  string `json:"last"`
	Path  string `json:"path,omitempty"` // the home's resolved path, so a replaced install.id cannot hide its anchors
	Prev  string `json:"prev"`

	Line int `json:"-"` // 1-based line in AnchorFile
}

// anchorProblem is a finding about AnchorFile itself.
type anchorProblem struct {
	Line    int // 1-based line of AnchorFile
	Message string
}

// AnchorDue reports whether an append that brings the chain to count
// records must write an anchor, given the count at the last anchor. Passing
// the count before the append works too (no need to read AnchorFile on the
// hot path): then an anchor is written whenever the chain crosses a
// multiple of AnchorEvery.
func AnchorDue(count, lastAnchored int64) bool {
	return count > lastAnchored && count/anchorEvery > lastAnchored/anchorEvery
}

// HomeID returns the stable identifier of an audit home used in anchors:
// the SHA-256 (hex) of a domain tag, the home's absolute path (symlinks
// resolved) and the random install id kept in home/install.id, which it
// creates (0600, exclusively) on first use. The path tells apart copies of
// one home; the install id tells apart homes re-created at one path.
func HomeID(home string) (string, error) {
	abs, path, err := homePaths(home)
	if err != nil {
		return "", err
	}
	id, err := readInstallID(path)
	if errors.Is(err, fs.ErrNotExist) {
		fresh := make([]byte, 32)
		if _, err := rand.Read(fresh); err != nil {
			return "", fmt.Errorf("create %s: %w", path, err)
		}
		if _, err := createExclusive(path, []byte(hex.EncodeToString(fresh)+"\n"), 0o600); err != nil {
			return "", fmt.Errorf("create %s: %w", path, err)
		}
		id, err = readInstallID(path)
	}
	if err != nil {
		return "", err
	}
	return homeIDOf(abs, id), nil
}

// existingHomeID is HomeID for readers (Verify): it never creates
// install.id. A home without one has never been anchored (or its install.id
// was deleted); the error then wraps fs.ErrNotExist.
func existingHomeID(home string) (string, error) {
	abs, path, err := homePaths(home)
	if err != nil {
		return "", err
	}
	id, err := readInstallID(path)
	if err != nil {
		return "", err
	}
	return homeIDOf(abs, id), nil
}

func homePaths(home string) (abs, idPath string, err error) {
	abs, err = filepath.Abs(home)
	if err != nil {
		return "", "", fmt.Errorf("home id: %w", err)
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	return abs, filepath.Join(abs, installIDFile), nil
}

func homeIDOf(abs, id string) string {
	sum := sha256.Sum256([]byte("airlock-home-v1\n" + abs + "\n" + id))
	return hex.EncodeToString(sum[:])
}

func readInstallID(path string) (string, error) {
	b, err := readRegular(path, 4096)
	if err != nil {
		return "", fmt.Errorf("read %s: %w", path, err)
	}
	id := strings.TrimSpace(string(b))
	if !isHexDigest(id) {
		return "", fmt.Errorf("%s must hold 64 hex digits; deleting it makes a new id, and anchors taken under the old one no longer match this home", path)
	}
	return id, nil
}

// appendAnchor appends an anchor for (homeID, count, last) to AnchorFile
// in dir, under an exclusive lock on AnchorLockFile, and fsyncs it.
func appendAnchor(dir, homeID string, count int64, last string, now time.Time) error {
	return appendAnchorAt(dir, homeID, "", count, last, now)
}

// appendAnchorAt is AppendAnchor recording the home's resolved path too.
func appendAnchorAt(dir, homeID, homePath string, count int64, last string, now time.Time) error {
	switch {
	case homeID == "":
		return errors.New("append anchor: empty home id")
	case count < 1:
		return fmt.Errorf("append anchor: count %d", count)
	case !isHexDigest(last):
		return fmt.Errorf("append anchor: last %q is not a sha256 hex digest", last)
	}
	lf, err := os.OpenFile(filepath.Join(dir, anchorLockFile), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("append anchor: open lock (is %s=%s a writable directory?): %w", AnchorDirEnv, dir, err)
	}
	defer lf.Close()
	if err := flock.Lock(lf); err != nil {
		return fmt.Errorf("append anchor: %w", err)
	}
	defer func() { _ = flock.Unlock(lf) }()

	f, err := os.OpenFile(filepath.Join(dir, anchorFile), os.O_RDWR|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("append anchor: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(f)
	if err != nil {
		return fmt.Errorf("append anchor: read %s: %w", anchorFile, err)
	}
	prev, torn := anchorTail(data)
	line, err := encodeAnchor(Anchor{At: FormatTime(now), Count: count, Home: homeID, Last: last, Path: homePath, Prev: prev})
	if err != nil {
		return fmt.Errorf("append anchor: %w", err)
	}
	var buf []byte
	if torn {
		// Terminate a writer's torn line rather than hide it: ReadAnchors
		// reports it, and the chain continues from the line before.
		buf = append(buf, '\n')
	}
	buf = append(append(buf, line...), '\n')
	if _, err := f.Write(buf); err != nil {
		return fmt.Errorf("append anchor: write %s: %w", anchorFile, err)
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("append anchor: sync %s: %w", anchorFile, err)
	}
	return nil
}

// anchorTail returns the claimed h of the last complete line that has one
// (Genesis if none) and whether data ends in a partial line.
func anchorTail(data []byte) (prev string, torn bool) {
	torn = len(data) > 0 && data[len(data)-1] != '\n'
	if torn {
		data = data[:bytes.LastIndexByte(data, '\n')+1]
	}
	lines := bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n"))
	for i := len(lines) - 1; i >= 0; i-- {
		if m, err := decodeObject(lines[i]); err == nil {
			if h, ok := m["h"].(string); ok {
				return h, torn
			}
		}
	}
	return Genesis, torn
}

// encodeAnchor returns the canonical line of a (with h computed).
func encodeAnchor(a Anchor) ([]byte, error) {
	a.H = ""
	raw, err := json.Marshal(a)
	if err != nil {
		return nil, err
	}
	m, err := decodeObject(raw)
	if err != nil {
		return nil, err
	}
	if m["h"], err = hashObject(m); err != nil {
		return nil, err
	}
	return appendCanonical(nil, m, 0)
}

// readAnchors reads AnchorFile in dir, verifies it as a hash chain and
// returns the anchors of homeID in file order, with every problem found
// in the file (including lines of other homes: it is one chain). A missing
// file gives no anchors and no error. Anchors on lines that fail their own
// hash are not returned; their problem is.
func readAnchors(dir, homeID string) ([]Anchor, []anchorProblem, error) {
	mine, _, problems, err := readAnchorsAt(dir, homeID, "")
	return mine, problems, err
}

// readAnchorsAt is ReadAnchors that also returns the anchors taken for
// homePath under another home id: install.id was deleted or replaced,
// which must not hide a home's anchors.
func readAnchorsAt(dir, homeID, homePath string) (mine, foreign []Anchor, problems []anchorProblem, err error) {
	data, err := readRegular(filepath.Join(dir, anchorFile), maxAnchorBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil, nil
	}
	if err != nil {
		return nil, nil, nil, fmt.Errorf("read anchors: %w", err)
	}
	prevH := Genesis
	add := func(n int, format string, args ...any) {
		problems = append(problems, anchorProblem{Line: n, Message: fmt.Sprintf("%s line %d: ", anchorFile, n) + fmt.Sprintf(format, args...)})
	}
	for n := 1; len(data) > 0; n++ {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			add(n, "torn (no trailing newline; a writer was killed mid-append)")
			break
		}
		line := data[:i]
		data = data[i+1:]
		m, err := decodeObject(line)
		if err != nil {
			add(n, "malformed: %s", textsafe.Escape(err.Error()))
			continue
		}
		h, okH := m["h"].(string)
		prev, okP := m["prev"].(string)
		if !okH || !okP {
			add(n, "malformed: no string h and prev")
			continue
		}
		sum, err := hashObject(m)
		intact := err == nil && sum == h
		switch {
		case !intact:
			add(n, "edited: its content does not hash to its h %s", anchorShort(h))
		default:
			if c, cerr := appendCanonical(nil, m, 0); cerr != nil || !bytes.Equal(c, line) {
				add(n, "re-encoded: its bytes are not the canonical encoding that was written")
				intact = false
			}
		}
		if prev != prevH {
			add(n, "does not chain to the line before it: anchor lines were deleted, inserted or reordered")
		}
		prevH = h
		if !intact {
			continue
		}
		var a Anchor
		if err := json.Unmarshal(line, &a); err != nil || a.Count < 1 || !isHexDigest(a.Last) || a.Home == "" {
			add(n, "malformed anchor (home, count or last missing or invalid)")
			continue
		}
		a.Line = n
		switch {
		case a.Home == homeID:
			mine = append(mine, a)
		case homePath != "" && a.Path == homePath:
			foreign = append(foreign, a)
		}
	}
	return mine, foreign, problems, nil
}

// AnchoredCounts returns the set of record counts the anchors name: the
// records whose h the caller must collect while streaming the log.
func AnchoredCounts(anchors []Anchor) map[int64]bool {
	want := make(map[int64]bool, len(anchors))
	for _, a := range anchors {
		want[a.Count] = true
	}
	return want
}

// checkAgainstAnchors checks the log against the anchors of its home (as
// ReadAnchors returned them). hAt returns the h of record count (1-based,
// counting the whole chain) and false if the log has fewer records. It
// returns one message per anchor the log contradicts, nil if all hold.
func checkAgainstAnchors(anchors []Anchor, hAt func(count int64) (string, bool)) []string {
	var out []string
	var maxCount int64
	maxLine := 0
	for _, a := range anchors {
		where := fmt.Sprintf("the anchor at %s line %d (%s)", anchorFile, a.Line, textsafe.Escape(a.At))
		if a.Count < maxCount {
			out = append(out, fmt.Sprintf("%s records %d records, fewer than the %d of the anchor at line %d: the log was rolled back or restarted between them", where, a.Count, maxCount, maxLine))
		} else {
			maxCount, maxLine = a.Count, a.Line
		}
		h, ok := hAt(a.Count)
		switch {
		case !ok:
			out = append(out, fmt.Sprintf("%s records %d records, but the log has fewer: records were removed (truncated or deleted) after it was taken", where, a.Count))
		case h != a.Last:
			out = append(out, fmt.Sprintf("%s records h %s for record %d, but the log has %s there: the chain was rewritten (recomputed) after it was taken", where, anchorShort(a.Last), a.Count, anchorShort(h)))
		}
	}
	return out
}

// anchorShort renders a claimed hash for messages: 12 characters, escaped.
func anchorShort(h string) string {
	if len(h) > 12 {
		h = h[:12] + "…"
	}
	if h == "" {
		return `""`
	}
	return textsafe.Escape(h)
}

// AnchorNow appends an anchor for the current checkpoint of home to dir
// (what `airlock verify --anchor` does after a clean verify). Under the
// append lock it reads audit.head and the ledger, so the count is the
// whole chain's, as an appender's anchors count it. It creates install.id
// if the home has none. It returns the anchored count and h.
func AnchorNow(home, dir string) (int64, string, error) {
	abs, _, err := homePaths(home)
	if err != nil {
		return 0, "", fmt.Errorf("audit: anchor: %w", err)
	}
	if _, err := existingHomeID(home); errors.Is(err, fs.ErrNotExist) {
		// A new install.id would hide the anchors this path already has.
		if _, foreign, _, rerr := readAnchorsAt(dir, "", abs); rerr == nil && len(foreign) > 0 {
			return 0, "", fmt.Errorf("audit: anchor: %s is missing but %s holds %d anchors for %s: restore %s (to start afresh on purpose, move the anchor file aside)", installIDFile, textsafe.Escape(dir), len(foreign), textsafe.Escape(abs), installIDFile)
		}
	}
	id, err := HomeID(home)
	if err != nil {
		return 0, "", fmt.Errorf("audit: anchor: %w", err)
	}
	lf, err := openRegular(filepath.Join(home, LockFile), os.O_RDWR, 0)
	if err != nil {
		return 0, "", fmt.Errorf("audit: anchor: %w", err)
	}
	defer lf.Close()
	if err := flock.Lock(lf); err != nil {
		return 0, "", fmt.Errorf("audit: anchor: %w", err)
	}
	defer func() { _ = flock.Unlock(lf) }()
	head, err := readHead(home)
	if err != nil {
		return 0, "", fmt.Errorf("audit: anchor: %w", err)
	}
	if head == nil {
		return 0, "", fmt.Errorf("audit: anchor: %s is missing: nothing to anchor", headFile)
	}
	li, err := readLedger(home)
	if err != nil {
		return 0, "", fmt.Errorf("audit: anchor: %w", err)
	}
	total := ledgerTotal(li.entries, head.Segments) + int64(head.Count)
	if err := appendAnchorAt(dir, id, abs, total, head.Last, time.Now()); err != nil {
		return 0, "", fmt.Errorf("audit: %w", err)
	}
	return total, head.Last, nil
}
