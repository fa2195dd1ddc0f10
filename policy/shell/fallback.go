package shell

import "strings"

// reserved are words that make a command more than a simple command.
var reserved = set("if", "then", "else", "elif", "fi", "case", "esac", "for", "select", "while", "until", "do",
	"done", "function", "time", "coproc", "in", "export", "declare", "local", "readonly", "typeset", "nameref", "let")

// fastSplit handles the common simple command made only of plain words
// (`go test ./...`, `git status`, `ls -la src/`) without the parser. It
// yields exactly the words bash would see; anything else goes to the parser.
func (w *walker) fastSplit(src string, sc *scope) ([]argVal, bool) {
	if len(src) > 512 {
		return nil, false
	}
	for i := 0; i < len(src); i++ {
		c := src[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case c == ' ', c == '\t', c == '-', c == '_', c == '.', c == '/', c == ':', c == ',', c == '+', c == '@', c == '%', c == '=', c == '~':
		default:
			return nil, false
		}
	}
	n := 0
	for i := 0; i < len(src); i++ {
		if src[i] != ' ' && src[i] != '\t' && (i == 0 || src[i-1] == ' ' || src[i-1] == '\t') {
			n++
		}
	}
	if n == 0 {
		return nil, true
	}
	argv := make([]argVal, 0, n)
	rest := src
	for {
		rest = strings.TrimLeft(rest, " \t")
		if rest == "" {
			break
		}
		end := strings.IndexAny(rest, " \t")
		if end < 0 {
			end = len(rest)
		}
		f := rest[:end]
		rest = rest[end:]
		if len(argv) == 0 && (strings.IndexByte(f, '=') >= 0 || reserved.has(f)) {
			return nil, false
		}
		if strings.IndexByte(f, '~') >= 0 {
			b := wordBuilder{w: w, sc: sc, fields: true}
			b.unquotedLit(f, true)
			argv = b.finish(argv)
			continue
		}
		argv = append(argv, argVal{s: f})
	}
	sc.text = src
	return argv, true
}

// crudeTok is a token of the fallback splitter.
type crudeTok struct {
	s  string
	op byte // 0 word, ';' end of command, '|' pipe, '>' '<' redirection, 'h' here-document
}

// crudeTokens splits text that did not parse: whitespace separates words,
// quotes group (an unterminated quote runs to the end), ; & | ( ) ` and
// newlines end commands, < and > redirect.
func crudeTokens(src string) []crudeTok {
	var toks []crudeTok
	var cur []byte
	inWord := false
	flush := func() {
		if inWord {
			toks = append(toks, crudeTok{s: string(cur)})
			cur = cur[:0]
			inWord = false
		}
	}
	for i := 0; i < len(src); i++ {
		c := src[i]
		switch c {
		case ' ', '\t', '\r':
			flush()
		case '\n', ';', '&', '(', ')', '`', '{', '}':
			if c == '&' && i+1 < len(src) && src[i+1] == '>' {
				flush()
				toks = append(toks, crudeTok{op: '>'})
				i++
				for i+1 < len(src) && (src[i+1] == '>' || src[i+1] == '|') {
					i++
				}
				continue
			}
			if (c == '{' || c == '}') && inWord {
				cur = append(cur, c)
				continue
			}
			flush()
			toks = append(toks, crudeTok{op: ';'})
		case '|':
			flush()
			if i+1 < len(src) && src[i+1] == '|' {
				i++
				toks = append(toks, crudeTok{op: ';'})
			} else {
				if i+1 < len(src) && src[i+1] == '&' {
					i++
				}
				toks = append(toks, crudeTok{op: '|'})
			}
		case '>', '<':
			if inWord && isDigits(string(cur)) {
				cur = cur[:0]
				inWord = false
			}
			flush()
			op := c
			if c == '<' && i+1 < len(src) && src[i+1] == '<' {
				op = 'h'
				if i+2 < len(src) && src[i+2] == '<' {
					op = 'w'
				}
			}
			for i+1 < len(src) && (src[i+1] == '>' || src[i+1] == '<' || src[i+1] == '&' || src[i+1] == '|' || src[i+1] == '-') {
				i++
			}
			if op == 'w' {
				continue // here-string: the word is data
			}
			if c == '<' && i+1 < len(src) && src[i+1] == '(' {
				continue // process substitution
			}
			toks = append(toks, crudeTok{op: op})
		case '\'':
			inWord = true
			j := strings.IndexByte(src[i+1:], '\'')
			if j < 0 {
				cur = append(cur, src[i+1:]...)
				i = len(src)
				break
			}
			cur = append(cur, src[i+1:i+1+j]...)
			i += j + 1
		case '"':
			inWord = true
			i++
			for ; i < len(src) && src[i] != '"'; i++ {
				if src[i] == '\\' && i+1 < len(src) && strings.IndexByte("\"\\$`\n", src[i+1]) >= 0 {
					i++
					if src[i] == '\n' {
						continue
					}
				}
				cur = append(cur, src[i])
			}
		case '\\':
			inWord = true
			if i+1 < len(src) {
				i++
				if src[i] != '\n' {
					cur = append(cur, src[i])
				}
			}
		case '$':
			if i+1 < len(src) && src[i+1] == '(' {
				flush()
				toks = append(toks, crudeTok{op: ';'})
				i++
				continue
			}
			inWord = true
			cur = append(cur, c)
		default:
			inWord = true
			cur = append(cur, c)
		}
	}
	flush()
	return toks
}

// crudeExpand expands ~, $HOME, ${HOME}, $USER and ${USER} textually.
func (w *walker) crudeExpand(s string) string {
	if w.home != "" && (s == "~" || strings.HasPrefix(s, "~/")) {
		s = w.home + s[1:]
	}
	if strings.IndexByte(s, '$') < 0 {
		return s
	}
	if w.home != "" {
		s = strings.ReplaceAll(s, "${HOME}", w.home)
		s = strings.ReplaceAll(s, "$HOME", w.home)
	}
	if w.user != "" {
		s = strings.ReplaceAll(s, "${USER}", w.user)
		s = strings.ReplaceAll(s, "$USER", w.user)
	}
	return s
}

// crude classifies text the parser rejected, so the caller still sees its
// programs, paths and hosts; it raises the unparsed signal.
func (w *walker) crude(src string, sc *scope, detail string) {
	w.signal(SignalUnparsed, detail)
	cs := &scope{dir: sc.dir, depth: sc.depth, text: src, pos: sc.pos}
	var argv []argVal
	var in flow
	piped := false
	redir := byte(0)
	run := func(next byte) {
		k := 0
		for k < len(argv) {
			name, val, ok := assignWord(argv[k].s)
			if !ok {
				break
			}
			w.addEnv(name, val, cs)
			k++
		}
		f := flow{}
		if k < len(argv) && !w.full() {
			pin := flow{}
			if piped {
				pin = flow{bits: in.bits & flowTaint}
			}
			f = w.classify(argv[k:], cs, pin)
			if f.bits&flowConnector != 0 && pin.bits&flowShellSink != 0 {
				w.signal(SignalReverseShell, src)
			}
		}
		if next == '|' {
			in = f
		} else {
			in = flow{}
		}
		argv = nil
		piped = next == '|'
	}
	for _, t := range crudeTokens(src) {
		switch t.op {
		case 0:
			s := w.crudeExpand(t.s)
			if s == "" {
				continue
			}
			if redir != 0 {
				r := redir
				redir = 0
				if r == 'h' {
					continue
				}
				if host, ok := devTCPHost(s); ok {
					w.addHost(host)
					w.signal(SignalReverseShell, src)
					continue
				}
				acc := AccessWrite
				if r == '<' {
					acc = AccessRead
				}
				w.argPath(argVal{s: s}, cs, acc, true)
				continue
			}
			argv = append(argv, argVal{s: s})
		case '>', '<', 'h':
			redir = t.op
		case ';', '|':
			run(t.op)
		}
	}
	run(';')
}

// splitWords splits a command line the way env -S and nc -e do: whitespace
// separates, quotes group, backslash escapes; there are no operators.
func (w *walker) splitWords(s string) []argVal {
	var out []argVal
	var cur []byte
	inWord := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch c {
		case ' ', '\t', '\n', '\r':
			if inWord {
				out = append(out, argVal{s: w.crudeExpand(string(cur))})
				cur, inWord = cur[:0], false
			}
		case '\'', '"':
			inWord = true
			j := strings.IndexByte(s[i+1:], c)
			if j < 0 {
				cur = append(cur, s[i+1:]...)
				i = len(s)
				break
			}
			cur = append(cur, s[i+1:i+1+j]...)
			i += j + 1
		case '\\':
			inWord = true
			if i+1 < len(s) {
				i++
				cur = append(cur, s[i])
			}
		default:
			inWord = true
			cur = append(cur, c)
		}
	}
	if inWord {
		out = append(out, argVal{s: w.crudeExpand(string(cur))})
	}
	return out
}
