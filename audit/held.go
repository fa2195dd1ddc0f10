package audit

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"syscall"
)

// A Log keeps audit.jsonl and audit.head open between appends (the MCP
// proxy appends through one Log for hours), so that an append is a lock, a
// write and a write in place, not two opens and a close. Before each
// append, under the lock, it checks with one Lstat per file that the file
// it holds is still the one at the path: another process may have rotated
// the live file, created or converted the checkpoint, or a person may have
// deleted or replaced either. A file that is no longer at its path is
// closed and the path opened again, as the first append does. Holding the
// file also keeps its inode from being reused, so a new file at the path
// is never mistaken for the held one.
//
// Not on Windows, which cannot rename a file another process holds open:
// a proxy holding the live file would stop every other process from
// rotating it. There every append opens and closes, as before.
const holdFiles = runtime.GOOS != "windows"

// heldFile is a file a Log holds open, with its identity when opened.
type heldFile struct {
	f        *os.File
	id       os.FileInfo
	writable bool // audit.head only: opened read-write, so it can be written in place
}

func (h *heldFile) close() {
	if h.f != nil {
		_ = h.f.Close()
	}
	*h = heldFile{}
}

// current returns the path's Lstat if the held file is still the file at
// path; otherwise it closes the held file.
func (h *heldFile) current(path string) (os.FileInfo, bool) {
	if h.f == nil {
		return nil, false
	}
	st, err := os.Lstat(path)
	if err == nil && os.SameFile(st, h.id) {
		return st, true
	}
	h.close()
	return nil, false
}

// liveFile returns the live audit.jsonl (opened with flag if it is not
// held) and its size.
func (l *Log) liveFile(flag int) (*os.File, int64, error) {
	if st, ok := l.live.current(filepath.Join(l.home, LogFile)); ok {
		if err := restrictMode(l.live.f, st); err != nil {
			return nil, 0, fmt.Errorf("stat log: %w", err)
		}
		return l.live.f, st.Size(), nil
	}
	l.tail.ok = false // a file this Log did not leave as it is
	f, st, err := openLive(l.home, flag)
	if err != nil {
		return nil, 0, err
	}
	l.live = heldFile{f: f, id: st}
	return f, st.Size(), nil
}

// loadHead reads audit.head through the held file (opening it if it is
// not held) under the append lock. It returns (nil, state, nil) for a
// missing file and an error wrapping errHeadMalformed if neither slot can
// be parsed.
func (l *Log) loadHead() (*Head, headState, error) {
	path := filepath.Join(l.home, headFile)
	st, ok := l.head.current(path)
	if !ok {
		f, writable, err := openHead(path)
		if errors.Is(err, fs.ErrNotExist) {
			return nil, headState{}, nil
		}
		if err != nil {
			return nil, headState{}, fmt.Errorf("read %s: %w", headFile, err)
		}
		if st, err = f.Stat(); err != nil {
			_ = f.Close()
			return nil, headState{}, fmt.Errorf("read %s: %w", headFile, err)
		}
		l.head = heldFile{f: f, id: st, writable: writable}
	}
	if err := restrictMode(l.head.f, st); err != nil {
		return nil, headState{}, fmt.Errorf("read %s: %w", headFile, err)
	}
	b, err := readHeadBytes(l.head.f, l.headBuf, st.Size())
	if err != nil {
		return nil, headState{}, fmt.Errorf("read %s: %w", headFile, err)
	}
	if cap(b) <= 64<<10 {
		l.headBuf = b[:0]
	}
	c := &l.headCache
	if c.ok && bytes.Equal(b, c.img) {
		h := c.head
		return &h, c.st, nil
	}
	h, hst, err := decodeHead(b)
	c.ok, c.mine = false, false
	if err == nil && hst.format == headSlots {
		c.img = append(c.img[:0], b...)
		c.head, c.st, c.ok = *h, hst, true
	}
	return h, hst, err
}

// headCache is the checkpoint file as this Log last read or wrote it,
// with what it decodes to: an append whose read finds the same bytes (no
// other process appended since) need not check digests and parse JSON
// again. Keyed by the whole content, so any change is a miss.
type headCache struct {
	img  []byte
	head Head
	st   headState
	ok   bool
	mine bool // img is what this Log's last storeHead wrote (not merely read)
}

// wrote updates the cache after checkpoint h (seq st.seq+1) was written
// whole in place at off (the bytes in slot).
func (c *headCache) wrote(h Head, st headState, off int, slot []byte) {
	if len(c.img) < off {
		return
	}
	if len(c.img) < off+len(slot) {
		c.img = append(c.img[:off], slot...)
	} else {
		copy(c.img[off:], slot)
	}
	st.seq++
	st.torn = false
	c.head, c.st, c.ok, c.mine = h, st, true, true
}

// tailMemo is what this Log's last append left at the end of the held
// live file: the offset after its write, and the h and alg of the line it
// wrote last. It lets the next append skip reading that line back.
//
// Why that is safe. The next append takes the shortcut only when, under
// the append lock,
//
//  1. the held live file is still the file at audit.jsonl (its Lstat has
//     the held file's identity; the file was not reopened since: liveFile
//     clears the memo when it opens one);
//  2. its size is exactly end, the offset after this Log's own write; and
//  3. audit.head's bytes are exactly the bytes this Log's last storeHead
//     wrote in place (headCache.mine).
//
// Every writer of the live file (this package, in any process or release)
// appends with O_APPEND and never truncates or rewrites it in place; a
// rotation renames it away (1 fails) and a writer killed between its line
// and its checkpoint, or in the middle of its line, has appended bytes (2
// fails); a writer that finished wrote its checkpoint slot, whose sequence
// number differs from ours (3 fails). So when all three hold, no byte was
// added to the log since this Log's write, the last line is the one it
// wrote, and planAppend would read that line, find its h equal to
// head.Last and return the very plan the shortcut builds. Any doubt (a
// failed or short write, a checkpoint not written in place, a rotation, a
// reopened file) clears the memo, and the append reads the tail as before.
//
// What the shortcut does not see is an edit of the log's last line in
// place that keeps the file's size and leaves audit.head alone — not
// something any appender does. The line is not read back, so the next
// record chains to the h this Log wrote; verify reports the edited line
// (its h does not match its content, or the next record's prev does not
// match its h) exactly as it did before, only without an audit_recover
// note from the appender (TestAppendShortcutInPlaceEdit).
type tailMemo struct {
	ok  bool
	end int64  // size of the live file after this Log's last write
	h   string // h of the line it wrote last
	alg string // that line's alg ("" if unsigned)
}

// openHead opens audit.head read-write, or read-only when it may not be
// written (then the next checkpoint replaces it by rename, as release 1
// did with every one).
func openHead(path string) (f *os.File, writable bool, err error) {
	f, err = openRegular(path, os.O_RDWR, 0)
	if err == nil {
		return f, true, nil
	}
	if !errors.Is(err, fs.ErrPermission) && !errors.Is(err, syscall.EROFS) {
		return nil, false, err
	}
	f, err = openRegular(path, os.O_RDONLY, 0)
	return f, false, err
}

// storeHead writes checkpoint h after the one loadHead found (st): in
// place into the older slot of the held file when it has the two-slot
// format and room for h, else as a new file installed by rename.
func (l *Log) storeHead(h Head, st headState, sync bool) error {
	seq := st.seq + 1
	text, err := encodeSlot(l.slotBuf, seq, h)
	if err != nil {
		return err
	}
	l.slotBuf = text
	c := &l.headCache
	cached := c.ok
	c.ok, c.mine = false, false // until the write is known to be whole
	if st.format != headSlots || l.head.f == nil || !l.head.writable || len(text)+1 > st.slot {
		l.head.close()
		return createHead(l.home, seq, text, sync)
	}
	l.padBuf = padSlot(l.padBuf, text, st.slot)
	off := int64(st.hdr) + int64(seq%2)*int64(st.slot)
	n, err := l.head.f.WriteAt(l.padBuf, off)
	if err != nil {
		return fmt.Errorf("write checkpoint: %w", err)
	}
	if n != len(l.padBuf) {
		return fmt.Errorf("write checkpoint: %w", io.ErrShortWrite)
	}
	if cached {
		c.wrote(h, st, int(off), l.padBuf)
	}
	if sync {
		if err := l.head.f.Sync(); err != nil {
			return fmt.Errorf("sync checkpoint: %w", err)
		}
	}
	return nil
}

// releaseFiles closes the held audit.jsonl and audit.head.
func (l *Log) releaseFiles() {
	l.tail.ok = false
	l.live.close()
	l.head.close()
}
