package audit

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
)

// copyHome copies a fixture home into a new directory, files 0600 (git
// does not keep modes).
func copyHome(t *testing.T, src string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), "h")
	if err := os.Mkdir(dst, 0o700); err != nil {
		t.Fatal(err)
	}
	des, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, de := range des {
		if de.Name() == "README.md" {
			continue
		}
		b, err := os.ReadFile(filepath.Join(src, de.Name()))
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(dst, de.Name()), b)
	}
	return dst
}

// homeFiles returns every file of home by name.
func homeFiles(t *testing.T, home string) map[string][]byte {
	t.Helper()
	des, err := os.ReadDir(home)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]byte{}
	for _, de := range des {
		b, err := os.ReadFile(filepath.Join(home, de.Name()))
		if err != nil {
			t.Fatal(err)
		}
		out[de.Name()] = b
	}
	return out
}

// TestV1HomeStillVerifies: homes written by release 1 (one-line
// audit.head, testdata/v1home) verify intact as they are, verifying them
// changes nothing, and the first append by this version goes on from
// their checkpoint without recovering anything, converts audit.head and
// leaves every earlier byte as it was.
func TestV1HomeStillVerifies(t *testing.T) {
	cases := []struct {
		name               string
		env                map[string]string
		records, segments  int
		signing            bool
		firstAppendRecords int // records the first append writes (a signer's sign_start is not needed: the chain ends signed)
	}{
		{name: "plain", records: 16, segments: 1},
		{name: "hmac", env: map[string]string{SignEnv: signModeHMAC}, records: 18, segments: 2, signing: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv(MaxMBEnv, "")
			t.Setenv(FsyncEnv, "")
			getenv := func(k string) string { return tc.env[k] }
			home := copyHome(t, filepath.Join("testdata", "v1home", tc.name))
			before := homeFiles(t, home)
			if !bytes.HasPrefix(before[headFile], []byte(`{"count":`)) {
				t.Fatalf("the fixture's audit.head is not release 1's format: %q", before[headFile])
			}
			verify := func() *Report {
				t.Helper()
				rep, err := VerifyWith(home, VerifyOptions{Getenv: getenv})
				if err != nil {
					t.Fatal(err)
				}
				if rep.Segments != tc.segments || (rep.Signing != "") != tc.signing {
					t.Fatalf("segments %d signing %q, want %d %v", rep.Segments, rep.Signing, tc.segments, tc.signing)
				}
				return rep
			}
			requireIntact(t, verify(), tc.records)
			h, err := readHead(home)
			if err != nil || h == nil || (h.Sig != "") != tc.signing || h.Segments != tc.segments {
				t.Fatalf("release 1's checkpoint: %+v, %v", h, err)
			}
			if got := homeFiles(t, home); !mapsEqualBytes(got, before) {
				t.Fatal("Verify changed the home")
			}

			l, err := OpenWith(home, Options{Getenv: getenv})
			if err != nil {
				t.Fatal(err)
			}
			for i := range 3 {
				if _, err := l.Append(testRecord(100 + i)); err != nil {
					t.Fatalf("append %d: %v", i, err)
				}
			}
			if err := l.Close(); err != nil {
				t.Fatal(err)
			}
			requireIntact(t, verify(), tc.records+3)
			after := homeFiles(t, home)
			for name, b := range before {
				switch name {
				case headFile:
					if !bytes.HasPrefix(after[name], []byte(headMagic)) {
						t.Errorf("audit.head was not converted: %q", after[name])
					}
				case LogFile:
					if !bytes.HasPrefix(after[name], b) {
						t.Errorf("%s: the records release 1 wrote changed", name)
					}
					if n := bytes.Count(after[name][len(b):], []byte{'\n'}); n != 3 {
						t.Errorf("%s: %d lines appended, want 3 (nothing to recover)", name, n)
					}
				default:
					if !bytes.Equal(after[name], b) {
						t.Errorf("%s changed", name)
					}
				}
			}
			h2, err := readHead(home)
			if err != nil || h2.Count != h.Count+3 || h2.Segments != h.Segments || (h2.Sig != "") != tc.signing {
				t.Fatalf("converted checkpoint %+v (%v), was %+v", h2, err, h)
			}
		})
	}
}

func mapsEqualBytes(a, b map[string][]byte) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || !bytes.Equal(v, w) {
			return false
		}
	}
	return true
}

// readSlots returns the layout of home's two-slot audit.head and the
// checkpoint each slot holds (nil if none).
func readSlots(t *testing.T, home string) (b []byte, hdr, size int, slot [2]*Head, newest int) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(home, headFile))
	if err != nil {
		t.Fatal(err)
	}
	_, st, err := decodeHead(b)
	if err != nil || st.format != headSlots {
		t.Fatalf("audit.head is not a readable two-slot file (%v): %q", err, b)
	}
	var seq [2]uint64
	for i := range 2 {
		off := st.hdr + i*st.slot
		h, s, _, err := decodeSlot(b[off:off+st.slot], st.slot, i)
		if err == nil {
			slot[i], seq[i] = h, s
		}
	}
	if seq[0] > seq[1] {
		newest = 0
	} else {
		newest = 1
	}
	return b, st.hdr, st.slot, slot, newest
}

// TestHeadDamagedSlot damages audit.head's slots the ways a torn write, a
// short file system or an editor can: while one slot is whole, readHead
// returns it and Verify judges the log against it exactly as against that
// checkpoint written whole; with neither, the checkpoint is malformed.
// Either way the next append goes on and leaves a readable checkpoint.
func TestHeadDamagedSlot(t *testing.T) {
	const newest, previous, malformed = "newest", "previous", "malformed"
	flip := func(b []byte, at int) []byte { b[at] ^= 0x20; return b }
	cases := []struct {
		name   string
		damage func(b []byte, hdr, size, newest int) []byte
		want   string
	}{
		{"newest slot garbled", func(b []byte, hdr, size, n int) []byte { return flip(b, hdr+n*size+20) }, previous},
		{"older slot garbled", func(b []byte, hdr, size, n int) []byte { return flip(b, hdr+(1-n)*size+20) }, newest},
		{"newest slot's digest garbled", func(b []byte, hdr, size, n int) []byte {
			end := hdr + n*size + len(bytes.TrimRight(b[hdr+n*size:hdr+(n+1)*size], " \n"))
			return flip(b, end-1)
		}, previous},
		{"newest slot zeroed", func(b []byte, hdr, size, n int) []byte {
			clear(b[hdr+n*size : hdr+(n+1)*size])
			return b
		}, previous},
		{"newest slot blank", func(b []byte, hdr, size, n int) []byte {
			copy(b[hdr+n*size:], padSlot(nil, nil, size))
			return b
		}, previous},
		{"file cut inside slot 1", func(b []byte, hdr, size, n int) []byte { return b[:hdr+size+size/2] }, previous},
		{"file cut after slot 0", func(b []byte, hdr, size, n int) []byte { return b[:hdr+size] }, previous},
		{"both slots garbled", func(b []byte, hdr, size, n int) []byte { return flip(flip(b, hdr+20), hdr+size+20) }, malformed},
		{"slots swapped", func(b []byte, hdr, size, n int) []byte {
			s0 := slices.Clone(b[hdr : hdr+size])
			copy(b[hdr:], b[hdr+size:hdr+2*size])
			copy(b[hdr+size:], s0)
			return b
		}, malformed},
		{"bytes after the slots", func(b []byte, hdr, size, n int) []byte { return append(b, "x\n"...) }, malformed},
		{"file cut inside slot 0", func(b []byte, hdr, size, n int) []byte { return b[:hdr+size/2] }, malformed},
		{"header garbled", func(b []byte, hdr, size, n int) []byte { return flip(b, len(headMagic)) }, malformed},
		{"empty file", func(b []byte, hdr, size, n int) []byte { return nil }, malformed},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			// Five checkpoints (the first append writes audit_start and
			// a record): the newest (seq 5, 6 lines) in slot 1, the
			// previous one (seq 4, 5 lines) in slot 0.
			home := newLog(t, 5)
			b, hdr, size, slot, n := readSlots(t, home)
			if slot[0] == nil || slot[1] == nil || n != 1 || slot[1].Count != 6 || slot[0].Count != 5 {
				t.Fatalf("want checkpoints of 5 and 6 lines in slots 0 and 1, got %+v %+v", slot[0], slot[1])
			}
			want := map[string]*Head{newest: slot[n], previous: slot[1-n]}[tc.want]
			damaged := tc.damage(slices.Clone(b), hdr, size, n)
			writeFile(t, filepath.Join(home, headFile), damaged)

			got, err := readHead(home)
			switch {
			case want == nil && !errors.Is(err, errHeadMalformed):
				t.Fatalf("want a malformed checkpoint, got %+v, %v", got, err)
			case want != nil && (err != nil || got == nil || *got != *want):
				t.Fatalf("want checkpoint %+v, got %+v, %v", want, got, err)
			}
			rep := mustVerify(t, home)
			if want == nil {
				if !hasProblem(rep, headFile, 0, kindCheckpointMalformed) {
					t.Fatalf("want checkpoint-malformed, got %s", describe(rep))
				}
			} else {
				// The same verdict as for that checkpoint written whole.
				writeHeadJSON(t, home, *want)
				ref := mustVerify(t, home)
				writeFile(t, filepath.Join(home, headFile), damaged)
				if describe(rep) != describe(ref) {
					t.Fatalf("verdict on the damaged file:\n%s\non its surviving checkpoint written whole:\n%s", describe(rep), describe(ref))
				}
			}

			appendRecords(t, home, 10, 1)
			lines := readLines(t, home)
			h, err := readHead(home)
			if err != nil || h == nil || h.Count != len(lines) || h.Last != lastHash(t, lines) {
				t.Fatalf("after an append the checkpoint is %+v (%v), the log has %d lines", h, err, len(lines))
			}
			if want != nil {
				requireIntact(t, mustVerify(t, home), len(lines))
			}
		})
	}
}

// TestHeadTornWrite tears the write of the next checkpoint at every byte,
// in order and in reverse (a disk writing its sectors out of order): the
// file reads as the previous checkpoint until the new slot is whole, then
// as the new one; never as neither, never as a mix.
func TestHeadTornWrite(t *testing.T) {
	home := newLog(t, 2) // checkpoint seq 1 in slot 1, seq 2 (newest) in slot 0
	b, hdr, size, slot, n := readSlots(t, home)
	if n != 0 || slot[1] == nil {
		t.Fatalf("newest slot %d, want 0 with slot 1 whole", n)
	}
	cur := *slot[0]
	next := Head{Count: cur.Count + 1, Last: Genesis, At: cur.At}
	text, err := encodeSlot(nil, 3, next)
	if err != nil {
		t.Fatal(err)
	}
	newSlot := padSlot(nil, text, size)
	off := hdr + size // seq 3 goes to slot 1
	for _, reverse := range []bool{false, true} {
		for k := 0; k <= size; k++ {
			c := slices.Clone(b)
			if reverse {
				copy(c[off+size-k:off+size], newSlot[size-k:])
			} else {
				copy(c[off:off+k], newSlot[:k])
			}
			got, _, err := decodeHead(c)
			want := cur
			if bytes.Equal(c[off:off+size], newSlot) {
				want = next
			}
			if err != nil || *got != want {
				t.Fatalf("reverse=%v, %d of %d bytes written: got %+v (%v), want %+v", reverse, k, size, got, err, want)
			}
		}
	}
}

// TestHeadReadersDuringAppends: readers that do not take the append lock
// (readHead, as Tail's and a read-only Verify's snapshot do) read the
// checkpoint while two Logs append 1,000 records in place: every read is a
// checkpoint that was written (line Count of the log has h Last), never an
// error, never a torn mix.
func TestHeadReadersDuringAppends(t *testing.T) {
	t.Setenv(FsyncEnv, "never")
	home := newLog(t, 1)
	const writers, each, readers = 2, 500, 3
	var stop atomic.Bool
	seen := make([][]Head, readers)
	reads := make([]int, readers)
	var rwg sync.WaitGroup
	for r := range readers {
		rwg.Go(func() {
			for !stop.Load() {
				h, err := readHead(home)
				if err != nil || h == nil {
					t.Errorf("reader %d: %+v, %v", r, h, err)
					return
				}
				reads[r]++
				if k := len(seen[r]); k == 0 || seen[r][k-1] != *h {
					seen[r] = append(seen[r], *h)
				}
			}
		})
	}
	var wwg sync.WaitGroup
	for w := range writers {
		wwg.Go(func() {
			l, err := Open(home)
			if err != nil {
				t.Error(err)
				return
			}
			defer l.Close()
			for i := range each {
				if _, err := l.Append(testRecord(w*each + i)); err != nil {
					t.Errorf("writer %d: %v", w, err)
					return
				}
			}
		})
	}
	wwg.Wait()
	stop.Store(true)
	rwg.Wait()
	lines := readLines(t, home)
	if len(lines) != 2+writers*each {
		t.Fatalf("%d lines, want %d", len(lines), 2+writers*each)
	}
	distinct := 0
	for r := range readers {
		for _, h := range seen[r] {
			if h.Count < 1 || h.Count > len(lines) || hashOfLine(t, lines[h.Count-1]) != h.Last {
				t.Fatalf("reader %d read checkpoint %+v, which was never written", r, h)
			}
		}
		distinct += len(seen[r])
	}
	t.Logf("%d reads, %d distinct checkpoints seen", reads[0]+reads[1]+reads[2], distinct)
	requireIntact(t, mustVerify(t, home), len(lines))
}

// TestLogHeldFilesFollowThePaths: a Log holds audit.jsonl and audit.head
// open between appends, but when either is moved, rotated by another
// process, deleted, replaced or opened up to others between two appends,
// the next append goes to the file now at the path (never to the held
// one), with the mode fixed.
func TestLogHeldFilesFollowThePaths(t *testing.T) {
	cases := []struct {
		name    string
		change  func(t *testing.T, home string)
		records int  // records the chain holds at the end, 0: not intact (evidence of the change)
		recover bool // the next append must record what it found
	}{
		{"live file moved away", func(t *testing.T, home string) {
			if err := os.Rename(filepath.Join(home, LogFile), filepath.Join(home, "moved")); err != nil {
				t.Fatal(err)
			}
		}, 0, true},
		{"live file rotated by another process", func(t *testing.T, home string) {
			t.Setenv(MaxMBEnv, "0.001")
			appendRecords(t, home, 50, 1)
			t.Setenv(MaxMBEnv, "")
		}, 1 + 3 + 1 + 1 + 2, false},
		{"checkpoint deleted", func(t *testing.T, home string) {
			if err := os.Rename(filepath.Join(home, headFile), filepath.Join(home, "moved")); err != nil {
				t.Fatal(err)
			}
		}, 0, true},
		{"checkpoint replaced by a copy in release 1's format", func(t *testing.T, home string) {
			h, err := readHead(home)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.Rename(filepath.Join(home, headFile), filepath.Join(home, "moved")); err != nil {
				t.Fatal(err)
			}
			writeHeadJSON(t, home, *h)
		}, 1 + 3 + 2, false},
		{"checkpoint rewritten in place with an older one", func(t *testing.T, home string) {
			lines := readLines(t, home)
			writeHeadJSON(t, home, Head{Count: len(lines) - 1, Last: hashOfLine(t, lines[len(lines)-2]), At: "x"})
		}, 0, true},
		{"checkpoint and log opened to others", func(t *testing.T, home string) {
			for _, f := range []string{headFile, LogFile} {
				if err := os.Chmod(filepath.Join(home, f), 0o644); err != nil {
					t.Fatal(err)
				}
			}
		}, 1 + 3 + 2, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv(MaxMBEnv, "")
			home := filepath.Join(t.TempDir(), "h")
			l, err := Open(home)
			if err != nil {
				t.Fatal(err)
			}
			defer l.Close()
			for i := range 3 {
				if _, err := l.Append(testRecord(i)); err != nil {
					t.Fatal(err)
				}
			}
			live, head := l.live.f, l.head.f
			if holdFiles && (live == nil || head == nil) {
				t.Fatalf("the Log does not hold its files: live %v head %v", live, head)
			}
			tc.change(t, home)
			var moved []byte
			if b, err := os.ReadFile(filepath.Join(home, "moved")); err == nil {
				moved = b
			}
			for i := range 2 {
				if _, err := l.Append(testRecord(10 + i)); err != nil {
					t.Fatal(err)
				}
			}
			if b, err := os.ReadFile(filepath.Join(home, "moved")); moved != nil && (err != nil || !bytes.Equal(b, moved)) {
				t.Fatal("an append wrote to the file that was moved away from its path")
			}
			lines := readLines(t, home)
			h, err := readHead(home)
			if err != nil || h == nil || h.Count != len(lines) || h.Last != lastHash(t, lines) {
				t.Fatalf("checkpoint %+v (%v) does not name the end of audit.jsonl (%d lines)", h, err, len(lines))
			}
			for _, f := range []string{headFile, LogFile} {
				st, err := os.Stat(filepath.Join(home, f))
				if err != nil {
					t.Fatal(err)
				}
				if st.Mode().Perm() != 0o600 && holdFiles {
					t.Errorf("%s has mode %v, want 0600", f, st.Mode().Perm())
				}
			}
			if tc.records > 0 {
				requireIntact(t, mustVerify(t, home), tc.records)
			}
			recovered := bytes.Contains(bytes.Join(lines, nil), []byte(`"event":"`+EventRecover+`"`))
			if recovered != tc.recover {
				t.Fatalf("audit_recover written: %v, want %v", recovered, tc.recover)
			}
		})
	}
}

// TestLogHoldsFilesBetweenAppends: a second append through one Log opens
// nothing (on Windows every append opens and closes: see holdFiles).
func TestLogHoldsFilesBetweenAppends(t *testing.T) {
	home := newLog(t, 1)
	l, err := Open(home)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if _, err := l.Append(testRecord(1)); err != nil {
		t.Fatal(err)
	}
	live, head := l.live.f, l.head.f
	if _, err := l.Append(testRecord(2)); err != nil {
		t.Fatal(err)
	}
	if holdFiles != (live != nil && l.live.f == live && head != nil && l.head.f == head) {
		t.Fatalf("holdFiles=%v but live %p→%p head %p→%p", holdFiles, live, l.live.f, head, l.head.f)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if l.live.f != nil || l.head.f != nil {
		t.Fatal("Close left files open")
	}
	if _, err := os.Stat(filepath.Join(home, headFile)); errors.Is(err, fs.ErrNotExist) {
		t.Fatal("no checkpoint")
	}
}

// FuzzDecodeHead: decodeHead never panics on any audit.head; what it
// accepts is a valid checkpoint; and the next checkpoint written in place
// the way storeHead writes it (older slot, seq+1) reads back as itself.
func FuzzDecodeHead(f *testing.F) {
	h := Head{Count: 3, Last: Genesis, At: "2026-12-01T21:20:00.000Z"}
	legacy, _ := json.Marshal(h)
	f.Add(append(legacy, '\n'))
	text, _ := encodeSlot(nil, 1, h)
	file := fmt.Appendf(nil, "%s%d\n", headMagic, headSlotSize)
	file = append(append(file, padSlot(nil, nil, headSlotSize)...), padSlot(nil, text, headSlotSize)...)
	f.Add(file)
	f.Add(file[:len(file)-10])
	f.Add([]byte(headMagic + "1024\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		got, st, err := decodeHead(b)
		if err != nil {
			if got != nil || !errors.Is(err, errHeadMalformed) {
				t.Fatalf("error %v with checkpoint %+v", err, got)
			}
			return
		}
		if j, _ := json.Marshal(got); j == nil {
			t.Fatal("unmarshalable")
		}
		if _, err := parseHeadJSON(mustJSON(t, *got)); err != nil {
			t.Fatalf("accepted an invalid checkpoint %+v: %v", got, err)
		}
		if st.format != headSlots {
			return
		}
		next := *got
		next.Count++
		seq := st.seq + 1
		text, err := encodeSlot(nil, seq, next)
		if err != nil || len(text)+1 > st.slot {
			return
		}
		c := slices.Clone(b)
		off := st.hdr + int(seq%2)*st.slot
		for len(c) < off+st.slot {
			c = append(c, 0)
		}
		copy(c[off:], padSlot(nil, text, st.slot))
		back, st2, err := decodeHead(c)
		if err != nil || *back != next || st2.seq != seq {
			t.Fatalf("wrote %+v as seq %d, read back %+v seq %d (%v)", next, seq, back, st2.seq, err)
		}
	})
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
