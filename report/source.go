package report

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/agentairlock/airlock/audit"
)

// Entry is one line of the log: the record and where it was read. A line
// that is not a JSON record is still an Entry (nothing is skipped): Err
// says why, and Raw keeps the bytes for an escaped display.
type Entry struct {
	File   string
	Line   int
	Record audit.Record
	Raw    []byte // the line as read; only set when Err != nil
	Err    error
}

// Source yields log entries in chain order. Each stops at, and returns, the
// first error fn returns.
type Source interface {
	Each(fn func(Entry) error) error
}

// LogSource is the audit log in home: every rotated segment, then the
// live file, in chain order (audit.Each), streamed.
func LogSource(home string) Source {
	return chainSource{home: home}
}

type chainSource struct{ home string }

func (s chainSource) Each(fn func(Entry) error) error {
	return audit.Each(s.home, func(ae audit.Entry) error {
		e := Entry{File: ae.File, Line: ae.Line, Record: ae.Record}
		if ae.Record.Event == audit.EventMalformed {
			e.Err, e.Raw = errors.New("not a JSON record, or torn"), []byte(ae.Record.Detail)
			e.Record = audit.Record{}
		}
		return fn(e)
	})
}

// fileSource streams one JSONL file. Lines have no length limit.
type fileSource struct{ path string }

func (s fileSource) Each(fn func(Entry) error) error {
	f, err := os.Open(s.path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("read audit log: %w", err)
	}
	defer f.Close()
	return eachLine(f, filepath.Base(s.path), fn)
}

func eachLine(r io.Reader, name string, fn func(Entry) error) error {
	br := bufio.NewReaderSize(r, 64<<10)
	for n := 1; ; n++ {
		line, err := br.ReadBytes('\n')
		if len(line) == 0 && errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return fmt.Errorf("read %s: %w", name, err)
		}
		torn := len(line) == 0 || line[len(line)-1] != '\n'
		if !torn {
			line = line[:len(line)-1]
		}
		e := Entry{File: name, Line: n}
		switch {
		case torn:
			e.Err, e.Raw = errors.New("partial line (a write in progress, or torn)"), line
		default:
			if jerr := json.Unmarshal(line, &e.Record); jerr != nil {
				e.Err, e.Raw = fmt.Errorf("not a JSON record: %v", jerr), line
			} else if e.Record.Event == "" {
				e.Err, e.Raw = errors.New("record has no event"), line
			}
		}
		if ferr := fn(e); ferr != nil {
			return ferr
		}
		if err != nil { // io.EOF after a partial line
			return nil
		}
	}
}

// Records is an in-memory Source (tests, the breach simulation).
type Records []audit.Record

// Each yields the records in order, numbered from line 1.
func (rs Records) Each(fn func(Entry) error) error {
	for i, r := range rs {
		if err := fn(Entry{File: "memory", Line: i + 1, Record: r}); err != nil {
			return err
		}
	}
	return nil
}

// Collect reads every entry of src that f keeps.
func Collect(src Source, f Filter) ([]Entry, error) {
	var out []Entry
	err := src.Each(func(e Entry) error {
		if f.Keep(e) {
			out = append(out, e)
		}
		return nil
	})
	return out, err
}
