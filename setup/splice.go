package setup

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strings"
)

// Every edit Airlock makes to a config file is a splice: a few byte spans
// (a command's value, the start of an args list) replaced, everything else
// — comments, key order, white space, keys Airlock does not know — left as
// the user wrote it. A file is never decoded and re-encoded: no encoder
// keeps all of that, and a config that comes back reformatted is a config
// the user no longer recognises.

// splice replaces data[off:end] with text.
type splice struct {
	off, end int
	text     string
}

// applySplices applies non-overlapping splices to a copy of data.
func applySplices(data []byte, sp []splice) ([]byte, error) {
	sort.SliceStable(sp, func(i, j int) bool { return sp[i].off < sp[j].off })
	var b bytes.Buffer
	b.Grow(len(data) + 256)
	at := 0
	for _, s := range sp {
		if s.off < at || s.end < s.off || s.end > len(data) {
			return nil, refuse("internal error: overlapping edits at byte %d", s.off)
		}
		b.Write(data[at:s.off])
		b.WriteString(s.text)
		at = s.end
	}
	b.Write(data[at:])
	return b.Bytes(), nil
}

// mark is the comment Airlock leaves on a line it edits in formats that
// have comments (TOML, YAML), so a reader — and uninstall — can find it.
// JSON has no comments, and some agents refuse unknown keys, so a JSON
// entry's mark is the wrapper itself: airlock-mcp --name NAME --.
const mark = "# airlock: wrapped"

// errRefused is the cause when a file is left alone because editing it
// safely is not possible; the message says why.
var errRefused = errors.New("left alone")

func refuse(format string, args ...any) error {
	return fmt.Errorf("%w: %s", errRefused, fmt.Sprintf(format, args...))
}

// jsonQuote writes s as a JSON string literal, without escaping <, > and &
// (a path with & stays readable).
func jsonQuote(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	return strings.TrimSuffix(b.String(), "\n")
}

// wrapPrefix is what goes before the original command line: the options
// airlock-mcp reads, each written by quote.
func wrapPrefix(name string, quote func(string) string) []string {
	return []string{quote("--name"), quote(name), quote("--")}
}

// lineStart is the offset of the first byte of the line holding data[i].
func lineStart(data []byte, i int) int {
	for i > 0 && data[i-1] != '\n' {
		i--
	}
	return i
}

// eol is the offset of the line break ending the line holding data[i]
// ("\r\n" or "\n"), or len(data).
func eol(data []byte, i int) int {
	j := lineEnd(data, i)
	if j > i && data[j-1] == '\r' {
		return j - 1
	}
	return j
}

// newline is the file's line break: "\r\n" when its first line ends so.
func newline(data []byte) string {
	if i := bytes.IndexByte(data, '\n'); i > 0 && data[i-1] == '\r' {
		return "\r\n"
	}
	return "\n"
}

// indentOf is the white space that starts the line holding data[i].
func indentOf(data []byte, i int) string {
	s := lineStart(data, i)
	e := s
	for e < len(data) && (data[e] == ' ' || data[e] == '\t') {
		e++
	}
	return string(data[s:e])
}

// onlyCommentAfter says the rest of the line after data[i] is white space
// or a # comment: a mark can go at its end without landing inside a value.
func onlyCommentAfter(data []byte, i int) bool {
	for ; i < len(data) && data[i] != '\n' && data[i] != '\r'; i++ {
		switch data[i] {
		case ' ', '\t':
		case '#':
			return true
		default:
			return false
		}
	}
	return true
}

// serverByName is the server a file defines under name (nil if none).
func serverByName(cfg *Config, name string) *server {
	if cfg == nil {
		return nil
	}
	var found *server
	for i := range cfg.Servers {
		if cfg.Servers[i].Name == name && cfg.Servers[i].Project == "" {
			if found != nil {
				return nil // two list items with one name: not ours to guess
			}
			found = &cfg.Servers[i]
		}
	}
	return found
}

func argvOf(s *server) []string {
	return append([]string{s.Command}, s.Args...)
}

// sameServer compares two readings of one server, all but its line (an
// edit above it may move it) and the fields a wrap changes when wrap is
// set.
func sameServer(a, b server, wrap bool) bool {
	a.Line, b.Line = 0, 0
	if wrap {
		a.Command, a.Args, a.Wrapped, a.WrapName, a.Inner = "", nil, false, "", nil
		b.Command, b.Args, b.Wrapped, b.WrapName, b.Inner = "", nil, false, "", nil
	}
	return reflect.DeepEqual(a, b)
}

// checkEdit re-reads an edited file and holds it to what the edit meant:
// the servers in want are wrapped with their own names around their
// original command lines (or, unwrapping, run those command lines again),
// every other server reads exactly as before, and the file has no error
// it did not have. An edit that fails this is a bug (or a parser's quirk
// the splice met), and the file is left alone rather than written.
func checkEdit(st Store, before *Config, after []byte, wrapped map[string][]string, unwrapped map[string][]string) error {
	cfg, err := Parse(st, after)
	if err != nil {
		return refuse("internal error: the edited file no longer reads: %v", err)
	}
	if len(cfg.Servers) != len(before.Servers) {
		return refuse("internal error: the edit changed the number of servers (%d, was %d)", len(cfg.Servers), len(before.Servers))
	}
	for i, old := range before.Servers {
		now := cfg.Servers[i]
		if now.Name != old.Name {
			return refuse("internal error: the edit moved server %q", old.Name)
		}
		if argv, ok := wrapped[old.Name]; ok && old.Project == "" {
			if old.Remote && len(argv) == 1 && argv[0] == bridgeSentinel {
				if !readsAsBridge(old, now) {
					return refuse("internal error: server %q does not read as the bridge to %s after the edit", old.Name, old.URL)
				}
				continue
			}
			if !now.Wrapped || now.WrapName != old.Name || !reflect.DeepEqual(now.Inner, argv) || !sameServer(old, now, true) {
				return refuse("internal error: server %q does not read as wrapped after the edit", old.Name)
			}
			continue
		}
		if argv, ok := unwrapped[old.Name]; ok && old.Project == "" {
			if now.Wrapped || !reflect.DeepEqual(argvOf(&now), argv) || !sameServer(old, now, true) {
				return refuse("internal error: server %q does not read as unwrapped after the edit", old.Name)
			}
			continue
		}
		if !sameServer(old, now, false) {
			return refuse("internal error: the edit changed server %q", old.Name)
		}
	}
	return nil
}
