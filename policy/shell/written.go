package shell

import (
	"strings"
)

// Written is what a command puts into a file, as far as the command text
// tells: the text itself when it is static (echo/printf/cat of a
// here-document redirected into the file, tee of known stdin, the text a
// sed -i script inserts), or only that the bytes are unknown, fetched from
// the network, or copied from another file. Policy judges a write to a file
// that runs by itself (a shell start-up file, a git hook, a task
// definition) by what this text would run.
type Written struct {
	Path    string // absolute and cleaned
	Text    string // the text written, when Known
	Known   bool   // Text is the whole of what this command writes there
	Append  bool   // >>, tee -a, sed -i's insertions: added to what the file holds
	Fetched bool   // the bytes come from a download
	From    string // cp/mv/ln/install: the absolute source path, "" when not a copy
	Staged  bool   // From was written earlier in this same command (jq … > /tmp/t && mv /tmp/t f)
}

// maxWritten bounds the Written facts of one Parse call, and
// maxWrittenText the text kept for each: a bound on the work a caller
// does to judge them.
const (
	maxWritten     = 64
	maxWrittenText = 256 << 10
)

func (w *walker) addWritten(wr Written) {
	if wr.Path == "" || len(w.res.Written) >= maxWritten {
		return
	}
	if len(wr.Text) > maxWrittenText {
		wr.Text, wr.Known = "", false
	}
	w.res.Written = append(w.res.Written, wr)
}

// writtenByFlow records a write of a statement's stdout into abs.
func (w *walker) writtenByFlow(abs string, f flow, appendTo bool) {
	w.addWritten(Written{Path: abs, Text: f.text, Known: f.hasText, Append: appendTo, Fetched: f.bits&flowDL != 0})
}

// sedInserted is the text a sed script puts into the file: the text of its
// a, i and c commands and the replacements of its s commands. Not a sed
// interpreter: enough to see what code lands in the file.
func sedInserted(scripts []string) string {
	var b strings.Builder
	for _, sc := range scripts {
		for _, line := range strings.Split(sc, "\n") {
			sedLine(&b, line)
		}
	}
	return b.String()
}

func sedLine(b *strings.Builder, line string) {
	s := strings.TrimSpace(line)
	// skip an address: $, numbers, /re/, ranges
	for len(s) > 0 {
		switch c := s[0]; {
		case c == '$' || c == ',' || c == '!' || c >= '0' && c <= '9' || c == ' ' || c == '~' || c == '+':
			s = s[1:]
		case c == '/' || c == '\\' && len(s) > 1:
			d := c
			i := 1
			if c == '\\' {
				d, i = s[1], 2
			}
			j := strings.IndexByte(s[i:], d)
			if j < 0 {
				return
			}
			s = s[i+j+1:]
		default:
			goto cmd
		}
	}
cmd:
	if s == "" {
		return
	}
	switch s[0] {
	case 'a', 'i', 'c':
		t := strings.TrimLeft(s[1:], " \t")
		t = strings.TrimPrefix(t, "\\")
		t = strings.TrimLeft(t, " \t")
		b.WriteString(t)
		b.WriteByte('\n')
	case 's':
		if len(s) < 2 {
			return
		}
		d := s[1]
		parts := splitUnescaped(s[2:], d, 3)
		if len(parts) >= 2 {
			b.WriteString(strings.ReplaceAll(parts[1], "\\"+string(d), string(d)))
			b.WriteByte('\n')
		}
	}
}

// splitUnescaped splits s at unescaped d, at most n parts.
func splitUnescaped(s string, d byte, n int) []string {
	var out []string
	start := 0
	for i := 0; i < len(s) && len(out) < n-1; i++ {
		if s[i] == '\\' {
			i++
			continue
		}
		if s[i] == d {
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return append(out, s[start:])
}

// copiedInto records that cp/mv/ln/install puts src's bytes at dst (or in
// dst, a directory, when there are several sources or dst is one).
func (w *walker) copiedInto(dst, src string, single, fetched bool) {
	staged := false
	for _, p := range w.res.Written {
		staged = staged || p.Path == src
	}
	w.addWritten(Written{Path: dst, From: src, Fetched: fetched, Staged: staged})
	if !single || strings.HasSuffix(dst, "/") {
		return
	}
	// dst may be a directory: the file lands at dst/base(src) too
	if i := strings.LastIndexByte(src, '/'); i >= 0 && i+1 < len(src) {
		w.addWritten(Written{Path: dst + "/" + src[i+1:], From: src, Fetched: fetched, Staged: staged})
	}
}
