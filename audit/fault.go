package audit

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/agentairlock/airlock/internal/textsafe"
)

// A write that fails because the disk is full (ENOSPC, or EDQUOT for a
// quota) can leave a torn line, and the failing writer cannot write a
// record saying why: there is no room. What it can still do on every file
// system we know is create an empty file (an inode and a directory entry,
// no data block), so it names the fault in a file name:
//
//	audit.fault-<offset>-<cause>-<UTC time as 20060102T150405.000Z>
//
// offset is where in audit.jsonl the torn line starts. The appender that
// later finds the torn line (planRecover) looks for a fault at exactly that
// offset and writes its cause into the audit_recover "torn" record, so the
// chain says "torn: the disk was full at …" instead of a bare tear; it
// removes the fault files once that record is written. A fault file never
// explains a tear at another offset, so a stale one cannot excuse a later
// kill or a hand edit.
const faultPrefix = "audit.fault-"

const faultStamp = "20060102T150405.000Z"

// Causes named in fault files and audit_recover details.
const (
	causeDiskFull = "disk-full"
	causeQuota    = "quota"
)

func faultCause(err error) string {
	switch {
	case errors.Is(err, syscall.ENOSPC):
		return causeDiskFull
	case errors.Is(err, syscall.EDQUOT):
		return causeQuota
	}
	return ""
}

// noteFault records why a write of buf to the live file f failed after n
// bytes, when the cause is a full disk or quota. Best effort.
func noteFault(home string, f *os.File, buf []byte, n int, err error) {
	cause := faultCause(err)
	if cause == "" || n <= 0 {
		return // nothing written: nothing torn
	}
	st, serr := f.Stat()
	if serr != nil {
		return
	}
	start := st.Size() - int64(n)
	if buf[0] == '\n' {
		start++ // the write first terminated an older torn line
	}
	name := fmt.Sprintf("%s%d-%s-%s", faultPrefix, start, cause, time.Now().UTC().Format(faultStamp))
	if ff, err := os.OpenFile(filepath.Join(home, name), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600); err == nil {
		_ = ff.Close()
	}
}

// tornCause returns the cause a fault file gives for a torn line of
// partial bytes at the end of the live file f, as " cause=<c> at=<ts>",
// or "" if none does.
func tornCause(home string, f *os.File, partial int) string {
	st, err := f.Stat()
	if err != nil {
		return ""
	}
	start := st.Size() - int64(partial)
	des, err := os.ReadDir(home)
	if err != nil {
		return ""
	}
	for _, de := range des {
		off, cause, at, ok := parseFault(de.Name())
		if ok && off == start {
			return fmt.Sprintf(" cause=%s at=%s", cause, FormatTime(at))
		}
	}
	return ""
}

// clearFaults removes the fault files once a recovery has been written.
func clearFaults(home string) {
	des, err := os.ReadDir(home)
	if err != nil {
		return
	}
	for _, de := range des {
		if _, _, _, ok := parseFault(de.Name()); ok {
			_ = os.Remove(filepath.Join(home, de.Name()))
		}
	}
}

func parseFault(name string) (offset int64, cause string, at time.Time, ok bool) {
	rest, found := strings.CutPrefix(name, faultPrefix)
	if !found {
		return 0, "", time.Time{}, false
	}
	off, rest, ok1 := strings.Cut(rest, "-")
	i := strings.LastIndexByte(rest, '-')
	if !ok1 || i < 0 {
		return 0, "", time.Time{}, false
	}
	parts := []string{off, rest[:i], rest[i+1:]}
	offset, err := strconv.ParseInt(parts[0], 10, 64)
	if err != nil || offset < 0 {
		return 0, "", time.Time{}, false
	}
	at, err = time.Parse(faultStamp, parts[2])
	if err != nil || (parts[1] != causeDiskFull && parts[1] != causeQuota) {
		return 0, "", time.Time{}, false
	}
	return offset, parts[1], at, true
}

// tornReason turns the cause in an audit_recover "torn" detail into words,
// "" if it names none.
func tornReason(detail string) string {
	_, rest, ok := strings.Cut(detail, " cause=")
	if !ok {
		return ""
	}
	cause, at, _ := strings.Cut(rest, " at=")
	at, _, _ = strings.Cut(at, " ")
	switch cause {
	case causeDiskFull:
		return "the disk was full at " + textsafe.Escape(at)
	case causeQuota:
		return "the disk quota was exceeded at " + textsafe.Escape(at)
	}
	return ""
}
