package setup

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"
)

// tstmt is one key = value in a TOML text, with where its parts are.
type tstmt struct {
	path       []string // the full key: table, then dotted key
	keyOff     int      // start of the key as written
	lastKeyOff int      // start of the key's last part
	valOff     int
	valEnd     int
	inline     bool // inside an inline table, not a line of its own
}

// tomlStmts lists every key = value of a TOML text the decoder accepted,
// inline tables' members included, in file order.
func tomlStmts(src []byte) []tstmt {
	var out []tstmt
	var table []string
	for i := 0; i < len(src); {
		switch c := src[i]; {
		case c == ' ' || c == '\t' || c == '\r' || c == '\n':
			i++
		case c == '#':
			i = lineEnd(src, i)
		case c == '[':
			i++
			if i < len(src) && src[i] == '[' {
				i++
			}
			keys, j := tomlKey(src, i)
			table = keys
			i = lineEnd(src, j)
		default:
			st, j, ok := tomlStmtAt(src, i, table, false)
			if !ok {
				i = lineEnd(src, i)
				continue
			}
			out = append(out, st...)
			i = j
		}
	}
	return out
}

// tomlStmtAt reads key = value at src[i:] under table; an inline table's
// members follow their parent in the result.
func tomlStmtAt(src []byte, i int, table []string, inline bool) ([]tstmt, int, bool) {
	keys, lastOff, j := tomlKeyParts(src, i)
	if len(keys) == 0 || j <= i {
		return nil, i, false
	}
	for j < len(src) && (src[j] == ' ' || src[j] == '\t') {
		j++
	}
	if j >= len(src) || src[j] != '=' {
		return nil, i, false
	}
	j++
	for j < len(src) && (src[j] == ' ' || src[j] == '\t') {
		j++
	}
	path := append(slices.Clone(table), keys...)
	st := tstmt{path: path, keyOff: i, lastKeyOff: lastOff, valOff: j, valEnd: tomlValueEnd(src, j), inline: inline}
	out := []tstmt{st}
	if j < len(src) && src[j] == '{' {
		out = append(out, tomlInlineMembers(src, j, path)...)
	}
	return out, st.valEnd, true
}

// tomlKeyParts reads a dotted key as tomlKey does, also giving where its
// last part starts.
func tomlKeyParts(src []byte, i int) ([]string, int, int) {
	var keys []string
	last := i
	for {
		for i < len(src) && (src[i] == ' ' || src[i] == '\t') {
			i++
		}
		k, j := tomlKeyOne(src, i)
		if j == i {
			return keys, last, i
		}
		keys, last, i = append(keys, k), i, j
		for i < len(src) && (src[i] == ' ' || src[i] == '\t') {
			i++
		}
		if i >= len(src) || src[i] != '.' {
			return keys, last, i
		}
		i++
	}
}

// tomlKeyOne reads one key part (bare, "basic" or 'literal'); the offset
// returned is i when there is none.
func tomlKeyOne(src []byte, i int) (string, int) {
	if i >= len(src) {
		return "", i
	}
	switch c := src[i]; {
	case c == '"' || c == '\'':
		j := i + 1
		for j < len(src) && src[j] != c && src[j] != '\n' {
			if c == '"' && src[j] == '\\' {
				j++
			}
			j++
		}
		if j >= len(src) || src[j] != c {
			return "", i
		}
		if c == '\'' {
			return string(src[i+1 : j]), j + 1
		}
		return tomlUnescape(string(src[i+1 : j])), j + 1
	case isBareKeyByte(c):
		j := i
		for j < len(src) && isBareKeyByte(src[j]) {
			j++
		}
		return string(src[i:j]), j
	}
	return "", i
}

// tomlValueEnd is the offset just past the value starting at src[i].
func tomlValueEnd(src []byte, i int) int {
	if i >= len(src) {
		return i
	}
	switch src[i] {
	case '"', '\'':
		j, _ := tomlSkipString(src, i)
		return j
	case '[', '{':
		depth := 0
		for j := i; j < len(src); {
			switch src[j] {
			case '"', '\'':
				j, _ = tomlSkipString(src, j)
				continue
			case '#':
				j = lineEnd(src, j)
				continue
			case '[', '{':
				depth++
			case ']', '}':
				depth--
				if depth == 0 {
					return j + 1
				}
			}
			j++
		}
		return len(src)
	}
	j := i
	for j < len(src) && !strings.ContainsRune(" \t\r\n,]}#", rune(src[j])) {
		j++
	}
	return j
}

// tomlSkipBlank moves past white space, line breaks, comments and (when
// commas) commas.
func tomlSkipBlank(src []byte, i int, commas bool) int {
	for i < len(src) {
		switch src[i] {
		case ' ', '\t', '\r', '\n':
			i++
		case ',':
			if !commas {
				return i
			}
			i++
		case '#':
			i = lineEnd(src, i)
		default:
			return i
		}
	}
	return i
}

// tomlInlineMembers lists the members of the inline table at src[open].
func tomlInlineMembers(src []byte, open int, path []string) []tstmt {
	var out []tstmt
	end := tomlValueEnd(src, open)
	for i := tomlSkipBlank(src, open+1, true); i < end-1; i = tomlSkipBlank(src, i, true) {
		st, j, ok := tomlStmtAt(src, i, path, true)
		if !ok || j <= i {
			break
		}
		out = append(out, st...)
		i = j
	}
	return out
}

// tomlElems lists the elements of the array at src[open].
func tomlElems(src []byte, open int) [][2]int {
	var out [][2]int
	end := tomlValueEnd(src, open)
	for i := tomlSkipBlank(src, open+1, true); i < end-1; i = tomlSkipBlank(src, i, true) {
		j := tomlValueEnd(src, i)
		if j <= i {
			break
		}
		out = append(out, [2]int{i, j})
		i = j
	}
	return out
}

// tomlQuote writes s as a TOML basic string.
func tomlQuote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\r':
			b.WriteString(`\r`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\u%04X`, r)
		case r == utf8.RuneError:
			b.WriteString(`\uFFFD`)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// tomlSite is where one server's command and args sit.
type tomlSite struct {
	cmd, args tstmt
	hasArgs   bool
}

func tomlSiteOf(data []byte, name string) (*tomlSite, error) {
	site := &tomlSite{}
	found := false
	for _, st := range tomlStmts(data) {
		if len(st.path) != 3 || st.path[0] != "mcp_servers" || st.path[1] != name {
			continue
		}
		switch st.path[2] {
		case "command":
			site.cmd, found = st, true
		case "args":
			site.args, site.hasArgs = st, true
		}
	}
	if !found {
		return nil, refuse("server %q: command not found where Airlock can edit it", name)
	}
	if c := data[site.cmd.valOff]; c != '"' && c != '\'' {
		return nil, refuse("server %q: command is not a string", name)
	}
	if site.hasArgs && data[site.args.valOff] != '[' {
		return nil, refuse("server %q: args is not a list", name)
	}
	return site, nil
}

// wrapTOML is wrapJSON for Codex's and Grok's [mcp_servers.NAME]: the
// command line also gets the mark as a trailing comment.
func wrapTOML(data []byte, s *server, mcp string) ([]byte, wrapRecord, error) {
	rec := wrapRecord{Name: s.Name}
	site, err := tomlSiteOf(data, s.Name)
	if err != nil {
		return nil, rec, err
	}
	c := site.cmd
	list := strings.Join(append(wrapPrefix(s.Name, tomlQuote), string(data[c.valOff:c.valEnd])), ", ")
	sp := []splice{{c.valOff, c.valEnd, tomlQuote(mcp)}}
	tail := "" // after the command's line
	if !c.inline && onlyCommentAfter(data, c.valEnd) {
		tail = " " + mark
	}
	switch {
	case !site.hasArgs:
		rec.Args = argsAbsent
		if c.inline {
			sp = append(sp, splice{c.valEnd, c.valEnd, ", args = [" + list + "]"})
		} else {
			key := string(data[c.keyOff:c.lastKeyOff]) // "" or "mcp_servers.NAME."
			tail += newline(data) + indentOf(data, c.keyOff) + key + "args = [" + list + "] " + mark
		}
	default:
		if els := tomlElems(data, site.args.valOff); len(els) > 0 {
			sp = append(sp, splice{els[0][0], els[0][0], list + ", "})
		} else {
			sp = append(sp, splice{site.args.valOff + 1, site.args.valOff + 1, list})
		}
	}
	if tail != "" {
		at := eol(data, c.valEnd)
		sp = append(sp, splice{at, at, tail})
	}
	out, err := applySplices(data, sp)
	return out, rec, err
}

// unwrapTOML undoes wrapTOML for server s, which reads as wrapped.
func unwrapTOML(data []byte, s *server, rec wrapRecord) ([]byte, error) {
	site, err := tomlSiteOf(data, s.Name)
	if err != nil {
		return nil, err
	}
	j := len(s.Args) - len(s.Inner) // the first word after "--"
	if !site.hasArgs {
		return nil, refuse("server %q: args is not a list", s.Name)
	}
	els := tomlElems(data, site.args.valOff)
	if len(els) != len(s.Args) {
		return nil, refuse("server %q: args changed under the edit", s.Name)
	}
	c, a := site.cmd, site.args
	inner := string(data[els[j][0]:els[j][1]])
	sp := []splice{{c.valOff, c.valEnd, inner}}
	cmdEOL := eol(data, c.valEnd)
	if !c.inline && strings.HasSuffix(string(data[c.valEnd:cmdEOL]), " "+mark) {
		sp = append(sp, splice{cmdEOL - len(" "+mark), cmdEOL, ""})
	}
	switch {
	case j+1 < len(els):
		sp = append(sp, splice{els[0][0], els[j+1][0], ""})
	case rec.Args == argsAbsent && c.inline && a.inline && a.keyOff > c.valEnd && string(data[c.valEnd:a.keyOff]) == ", ":
		sp = []splice{{c.valOff, a.valEnd, inner}}
	case rec.Args == argsAbsent && !a.inline && lineEnd(data, c.valEnd)+1 == lineStart(data, a.keyOff) &&
		eol(data, a.valEnd) == a.valEnd+len(" "+mark) && string(data[a.valEnd:eol(data, a.valEnd)]) == " "+mark:
		// The line wrapTOML added below the command: take it out whole.
		sp = append(sp, splice{cmdEOL, eol(data, a.valEnd), ""})
	default:
		sp = append(sp, splice{els[0][0], els[j][1], ""})
	}
	return applySplices(data, sp)
}
