package audit

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"

	"github.com/agentairlock/airlock/internal/flock"
)

// snapshot is a consistent view of an audit home for readers (Verify,
// Records, Tail): the checkpoint, the ledger, the segment files present and
// the live file, taken under the append lock so no append or rotation is
// half done. Segments never change once rotated out, so only the live file
// is held open; its size bounds what is read, and appends after the
// snapshot are ignored.
type snapshot struct {
	head     *Head
	headBad  error  // set when audit.head exists but cannot be parsed
	ledger   []byte // audit.chain as read, nil if missing
	segFiles []string
	live     *os.File // nil if audit.jsonl is missing
	liveSize int64
}

func (s *snapshot) close() {
	if s.live != nil {
		_ = s.live.Close()
	}
}

// takeSnapshot takes the append lock while reading. If the lock file cannot
// be opened (a read-only copy of the directory), it reads without it.
func takeSnapshot(home string) (*snapshot, error) {
	if lf, lerr := openRegular(filepath.Join(home, LockFile), os.O_RDONLY, 0); lerr == nil {
		if flock.Lock(lf) == nil {
			defer func() { _ = flock.Unlock(lf) }()
		}
		defer lf.Close()
	}
	s := &snapshot{}
	head, err := readHead(home)
	if errors.Is(err, errHeadMalformed) {
		s.headBad, head, err = err, nil, nil
	}
	if err != nil {
		return nil, err
	}
	s.head = head
	s.ledger, err = readRegular(filepath.Join(home, LedgerFile), maxLedgerBytes)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("read %s: %w", LedgerFile, err)
	}
	if s.segFiles, err = listSegments(home); err != nil {
		return nil, err
	}
	f, err := openRegular(filepath.Join(home, LogFile), os.O_RDONLY, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return s, nil
	}
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", LogFile, err)
	}
	st, err := f.Stat()
	if err != nil {
		_ = f.Close()
		return nil, fmt.Errorf("stat %s: %w", LogFile, err)
	}
	s.live, s.liveSize = f, st.Size()
	return s, nil
}

// listSegments returns the names of the segment files in home, sorted.
// A missing home has none.
func listSegments(home string) ([]string, error) {
	des, err := os.ReadDir(home)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list %s: %w", home, err)
	}
	var out []string
	for _, de := range des {
		if n := de.Name(); validSegmentName(n) && !de.IsDir() {
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return out, nil
}

// walkItem is one file of the chain in walk order.
type walkItem struct {
	name   string
	entry  *ledgerEntry // its ledger line; nil for an unlisted segment and the live file
	exists bool
	live   bool
}

// walkOrder is the order the chain runs through the files: the segments
// the ledger lists, by seq (which is the ledger's own order unless it was
// reordered), with segment files the ledger does not list slotted in by
// name (names sort in rotation order), then the live file.
func walkOrder(entries []ledgerEntry, segFiles []string) []walkItem {
	byName := make(map[string]bool, len(segFiles))
	for _, n := range segFiles {
		byName[n] = true
	}
	sorted := slices.Clone(entries)
	slices.SortStableFunc(sorted, func(a, b ledgerEntry) int { return a.Seq - b.Seq })
	listed := map[string]bool{}
	var items []walkItem
	for i := range sorted {
		e := &sorted[i]
		if listed[e.Segment] {
			continue // a duplicated ledger line: Verify reports it
		}
		listed[e.Segment] = true
		items = append(items, walkItem{name: e.Segment, entry: e, exists: byName[e.Segment]})
	}
	for _, n := range segFiles {
		if listed[n] {
			continue
		}
		at := len(items)
		for i, it := range items {
			if it.name > n {
				at = i
				break
			}
		}
		items = slices.Insert(items, at, walkItem{name: n, exists: true})
	}
	return append(items, walkItem{name: LogFile, live: true})
}

// openItem opens a segment for reading; for the live file it returns the
// snapshot's handle. The caller closes what it gets unless it is s.live.
func (s *snapshot) openItem(home string, it walkItem) (*os.File, int64, error) {
	if it.live {
		return s.live, s.liveSize, nil
	}
	f, err := openRegular(filepath.Join(home, it.name), os.O_RDONLY, 0)
	if err != nil {
		return nil, 0, fmt.Errorf("open %s: %w", it.name, err)
	}
	st, err := f.Stat()
	if err != nil {
		_ = f.Close()
		return nil, 0, fmt.Errorf("stat %s: %w", it.name, err)
	}
	return f, st.Size(), nil
}
