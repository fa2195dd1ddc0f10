package audit

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
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

// The checkpoint file. Release 1 wrote the Head as one JSON line and
// replaced the file (temporary file, then rename) on every append; on ext4
// that rename was a tenth of a hook call. Now the file is created once,
// by rename (so it never exists half written), and then written in place:
//
//	airlock-checkpoint 2 1024\n        header: format and slot size, written only with the file
//	<seq> <json> <sha256 hex>   …\n    slot 0: exactly <slot size> bytes, padded with spaces
//	<seq> <json> <sha256 hex>   …\n    slot 1
//
// Checkpoint number seq (1, 2, …) lives in slot seq%2, so an append
// overwrites the older slot and the newer one stays whole. The digest is
// the SHA-256 of "<seq> <json>": a write torn by a kill or a power cut, or
// one a reader catches half done, leaves a slot whose digest does not
// match, and the reader uses the other slot. The checkpoint is the valid
// slot with the highest seq. The JSON is the Head as release 1 wrote it,
// signature members included, so SignHead and Verify see no difference.
//
// A file in release 1's format (no header) still loads; the next append
// rewrites it in this format (by rename, once).
const (
	headMagic    = "airlock-checkpoint 2 "
	headSlotSize = 1024             // the slot size of a new file; a larger Head gets a larger one
	maxHeadSlot  = maxHeadBytes / 4 // two slots and the header stay well under maxHeadBytes
	headTries    = 8                // reads of a file a writer is writing, before taking what is there
)

// headFormat is what readHead found at audit.head.
type headFormat int

const (
	headNone   headFormat = iota // missing, or unreadable: the next write creates the file anew
	headLegacy                   // release 1's one JSON line
	headSlots                    // two slots, at least one valid
)

// headState says where the checkpoint was found: what the next write
// needs to write in place.
type headState struct {
	format headFormat
	hdr    int    // header length: the offset of slot 0
	slot   int    // slot size
	seq    uint64 // seq of the checkpoint read (0: none)
	torn   bool   // a slot that is not empty failed to decode (torn, or being written)
}

// readHead reads audit.head without the append lock. It returns (nil, nil)
// if the file does not exist, an error wrapping errHeadMalformed if it
// cannot be parsed (in both slots), and other errors for I/O failures.
//
// A reader that does not hold the lock may catch an append writing a
// slot: the digest tells it to use the other one, which is the checkpoint
// as it was before that append. So that it gets the newest, it reads
// again while a slot fails and the file is still changing.
func readHead(home string) (*Head, error) {
	f, err := openRegular(filepath.Join(home, headFile), os.O_RDONLY, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", headFile, err)
	}
	defer f.Close()
	var prev []byte
	for try := 1; ; try++ {
		b, err := readHeadBytes(f, nil, -1)
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", headFile, err)
		}
		h, st, err := decodeHead(b)
		if !st.torn || try == headTries || bytes.Equal(b, prev) {
			return h, err
		}
		prev = b
	}
}

// readHeadBytes reads the whole checkpoint file from offset 0 into buf
// (reused when large enough). size is the file's size if known, else -1.
func readHeadBytes(f *os.File, buf []byte, size int64) ([]byte, error) {
	if size > maxHeadBytes {
		return nil, fmt.Errorf("%s is larger than %d bytes: not a file this log writes", f.Name(), maxHeadBytes)
	}
	if size >= 0 {
		// One pread of the size the caller found under the append lock
		// (no appender changes the file meanwhile).
		if int64(cap(buf)) < size {
			buf = make([]byte, size)
		}
		n, err := f.ReadAt(buf[:size], 0)
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, err
		}
		return buf[:n], nil
	}
	b, err := io.ReadAll(io.NewSectionReader(f, 0, maxHeadBytes+1))
	if err != nil {
		return nil, err
	}
	if len(b) > maxHeadBytes {
		return nil, fmt.Errorf("%s is larger than %d bytes: not a file this log writes", f.Name(), maxHeadBytes)
	}
	return b, nil
}

// decodeHead parses the checkpoint file's bytes, in either format.
func decodeHead(b []byte) (*Head, headState, error) {
	if !bytes.HasPrefix(b, []byte(headMagic)) {
		h, err := parseHeadJSON(b)
		if err != nil {
			return nil, headState{}, err
		}
		return h, headState{format: headLegacy}, nil
	}
	var st headState
	nl := bytes.IndexByte(b, '\n')
	if nl < 0 || nl > len(headMagic)+20 {
		return nil, st, fmt.Errorf("%w: the header line is cut short", errHeadMalformed)
	}
	size, err := strconv.Atoi(string(b[len(headMagic):nl]))
	if err != nil || size < headSlotSize || size > maxHeadSlot {
		return nil, st, fmt.Errorf("%w: the header names slot size %q", errHeadMalformed, b[len(headMagic):nl])
	}
	hdr := nl + 1
	if extra := len(b) - hdr - 2*size; extra > 0 {
		return nil, st, fmt.Errorf("%w: %d bytes after its two slots", errHeadMalformed, extra)
	}
	var best *Head
	var why [2]string
	// Newest first: the JSON of the older slot is parsed only when the
	// newer one's does not parse.
	var body [2][]byte
	var seq [2]uint64
	for i := range 2 {
		off := hdr + i*size
		var empty bool
		var err error
		body[i], seq[i], empty, err = checkSlot(b[min(off, len(b)):min(off+size, len(b))], size, i)
		switch {
		case empty && err != nil:
			why[i] = err.Error()
		case empty:
			why[i] = "empty"
		case err != nil:
			why[i], st.torn = err.Error(), true
		}
	}
	order := [2]int{0, 1}
	if seq[1] > seq[0] {
		order = [2]int{1, 0}
	}
	for _, i := range order {
		if body[i] == nil {
			continue
		}
		h, err := parseHeadJSON(body[i])
		if err != nil {
			why[i] = err.Error()
			continue
		}
		best, st.seq = h, seq[i]
		break
	}
	if best == nil {
		return nil, st, fmt.Errorf("%w: slot 0 %s; slot 1 %s", errHeadMalformed, why[0], why[1])
	}
	st.format, st.hdr, st.slot = headSlots, hdr, size
	return best, st, nil
}

// decodeSlot checks one slot (i is its index) and parses its checkpoint.
// empty is true for a slot that holds only padding (never written).
func decodeSlot(s []byte, size, i int) (h *Head, seq uint64, empty bool, err error) {
	body, seq, empty, err := checkSlot(s, size, i)
	if body == nil {
		return nil, 0, empty, err
	}
	if h, err = parseHeadJSON(body); err != nil {
		return nil, 0, false, err
	}
	return h, seq, false, nil
}

// checkSlot checks one slot's layout, digest and sequence number and
// returns its JSON (nil if the slot is not valid).
func checkSlot(s []byte, size, i int) (body []byte, seq uint64, empty bool, err error) {
	if len(s) == 0 {
		return nil, 0, true, errors.New("missing (the file is cut short)")
	}
	if len(s) < size {
		return nil, 0, false, fmt.Errorf("cut short (%d of %d bytes)", len(s), size)
	}
	if s[size-1] != '\n' {
		return nil, 0, false, errors.New("does not end in a newline")
	}
	t := bytes.TrimRight(s[:size-1], " ")
	if len(t) == 0 {
		return nil, 0, true, nil
	}
	const dl = 2 * sha256.Size
	if len(t) < dl+3 || t[len(t)-dl-1] != ' ' {
		return nil, 0, false, errors.New("has no digest")
	}
	body = t[:len(t)-dl-1]
	sum := sha256.Sum256(body)
	var want [dl]byte
	hex.Encode(want[:], sum[:])
	if !bytes.Equal(want[:], t[len(t)-dl:]) {
		return nil, 0, false, errors.New("does not match its digest (a write was torn, or is in progress)")
	}
	sp := bytes.IndexByte(body, ' ')
	if sp > 0 {
		seq, err = strconv.ParseUint(string(body[:sp]), 10, 64)
	}
	if sp <= 0 || err != nil || seq == 0 || seq%2 != uint64(i) {
		return nil, 0, false, fmt.Errorf("has sequence number %q, not one for slot %d", body[:max(sp, 0)], i)
	}
	return body[sp+1:], seq, false, nil
}

// parseHeadJSON parses and checks one checkpoint's JSON.
func parseHeadJSON(b []byte) (*Head, error) {
	h, ok := parseHeadFast(b)
	if !ok {
		if err := json.Unmarshal(b, &h); err != nil {
			return nil, fmt.Errorf("%w: %w", errHeadMalformed, err)
		}
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

// encodeSlot returns checkpoint seq's slot text "<seq> <json> <digest>"
// (without padding and newline).
func encodeSlot(dst []byte, seq uint64, h Head) ([]byte, error) {
	dst = strconv.AppendUint(dst[:0], seq, 10)
	dst = append(dst, ' ')
	if !headPlain(h) {
		j, err := json.Marshal(h)
		if err != nil {
			return nil, fmt.Errorf("marshal checkpoint: %w", err)
		}
		dst = append(dst, j...)
	} else {
		dst = appendHeadJSON(dst, h)
	}
	sum := sha256.Sum256(dst)
	dst = append(dst, ' ')
	return hex.AppendEncode(dst, sum[:]), nil
}

// headPlain reports whether every string of h is printable ASCII that
// encoding/json writes as it is (no quote, backslash or HTML character it
// escapes): then appendHeadJSON writes exactly what json.Marshal would
// (TestAppendHeadJSON). A Head's strings are digests, a timestamp and
// signatures; a caller's odd Time takes json.Marshal.
func headPlain(h Head) bool {
	for _, s := range [...]string{h.Last, h.At, h.Ledger, h.Alg, h.Sig} {
		for i := 0; i < len(s); i++ {
			switch c := s[i]; {
			case c < 0x20 || c > 0x7e, c == '"', c == '\\', c == '<', c == '>', c == '&':
				return false
			}
		}
	}
	return true
}

// appendHeadJSON appends json.Marshal(h) for a Head headPlain accepts.
func appendHeadJSON(dst []byte, h Head) []byte {
	dst = append(dst, `{"count":`...)
	dst = strconv.AppendInt(dst, int64(h.Count), 10)
	dst = append(append(append(dst, `,"last":"`...), h.Last...), '"')
	dst = append(append(append(dst, `,"at":"`...), h.At...), '"')
	if h.Segments != 0 {
		dst = strconv.AppendInt(append(dst, `,"segments":`...), int64(h.Segments), 10)
	}
	for _, f := range [...]struct{ k, v string }{{`,"ledger":"`, h.Ledger}, {`,"alg":"`, h.Alg}, {`,"sig":"`, h.Sig}} {
		if f.v != "" {
			dst = append(append(append(dst, f.k...), f.v...), '"')
		}
	}
	return append(dst, '}')
}

// parseHeadFast reads the JSON appendHeadJSON writes, the form of every
// checkpoint of a plain Head, without encoding/json: a process's first
// json.Unmarshal builds the decoder's reflection caches, which cost a
// hook process more than the rest of reading the checkpoint (issue 16).
// It accepts b only when appendHeadJSON of the result is b byte for byte:
// b is then json.Marshal of the result, which json.Unmarshal would return.
// Anything else (another member order, white space, an escape) is false,
// and json.Unmarshal reads it.
func parseHeadFast(b []byte) (Head, bool) {
	var h Head
	rest := b
	num := func(key string) (int, bool) {
		if !bytes.HasPrefix(rest, []byte(key)) {
			return 0, false
		}
		rest = rest[len(key):]
		i := 0
		for i < len(rest) && i < 19 && rest[i] >= '0' && rest[i] <= '9' {
			i++
		}
		n, err := strconv.Atoi(string(rest[:i]))
		rest = rest[i:]
		return n, err == nil
	}
	str := func(key string) (string, bool) {
		if !bytes.HasPrefix(rest, []byte(key)) {
			return "", false
		}
		rest = rest[len(key):]
		i := bytes.IndexByte(rest, '"')
		if i < 0 {
			return "", false
		}
		v := string(rest[:i])
		rest = rest[i+1:]
		return v, true
	}
	var ok bool
	if h.Count, ok = num(`{"count":`); !ok {
		return Head{}, false
	}
	if h.Last, ok = str(`,"last":"`); !ok {
		return Head{}, false
	}
	if h.At, ok = str(`,"at":"`); !ok {
		return Head{}, false
	}
	if bytes.HasPrefix(rest, []byte(`,"segments":`)) {
		if h.Segments, ok = num(`,"segments":`); !ok {
			return Head{}, false
		}
	}
	for _, f := range [...]struct {
		k string
		v *string
	}{{`,"ledger":"`, &h.Ledger}, {`,"alg":"`, &h.Alg}, {`,"sig":"`, &h.Sig}} {
		if bytes.HasPrefix(rest, []byte(f.k)) {
			if *f.v, ok = str(f.k); !ok {
				return Head{}, false
			}
		}
	}
	if !headPlain(h) || !bytes.Equal(appendHeadJSON(make([]byte, 0, len(b)), h), b) {
		return Head{}, false
	}
	return h, true
}

// padSlot pads slot text to size bytes (spaces, then a newline).
func padSlot(dst, text []byte, size int) []byte {
	dst = append(dst[:0], text...)
	if pad := size - 1 - len(dst); pad > 0 {
		dst = slices.Grow(dst, pad+1)
		start := len(dst)
		dst = dst[:start+pad]
		for i := start; i < len(dst); i++ {
			dst[i] = ' '
		}
	}
	return append(dst, '\n')
}

// slotSizeFor returns the slot size for slot text of n bytes.
func slotSizeFor(n int) (int, error) {
	size := headSlotSize
	for size < n+1 {
		size *= 2
	}
	if size > maxHeadSlot {
		return 0, fmt.Errorf("checkpoint of %d bytes is larger than %d", n, maxHeadSlot)
	}
	return size, nil
}

// createHead writes a new checkpoint file holding checkpoint seq (text as
// encodeSlot made it) in its slot and an empty other slot, and installs it
// as audit.head atomically (temporary file in the same directory, then
// rename): the first checkpoint of a home, the conversion of release 1's
// format, the repair of an unreadable file, and a Head too large for the
// file's slots. The file is created 0600.
func createHead(home string, seq uint64, text []byte, sync bool) error {
	size, err := slotSizeFor(len(text))
	if err != nil {
		return err
	}
	b := fmt.Appendf(nil, "%s%d\n", headMagic, size)
	empty := padSlot(nil, nil, size)
	slot := padSlot(nil, text, size)
	if seq%2 == 0 {
		b = append(append(b, slot...), empty...)
	} else {
		b = append(append(b, empty...), slot...)
	}
	tmp, err := os.CreateTemp(home, headFile+".tmp*")
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
	if err := os.Rename(name, filepath.Join(home, headFile)); err != nil {
		return fmt.Errorf("install checkpoint: %w", err)
	}
	ok = true
	return nil
}
