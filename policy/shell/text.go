package shell

import (
	"encoding/base64"
	"encoding/hex"
	"strings"
)

func echoText(c *cmdCtx) flow {
	args := c.argv[1:]
	newline, escapes := true, false
	for len(args) > 0 {
		s := args[0].s
		if len(s) < 2 || s[0] != '-' || strings.Trim(s[1:], "neE") != "" {
			break
		}
		for _, ch := range s[1:] {
			switch ch {
			case 'n':
				newline = false
			case 'e':
				escapes = true
			case 'E':
				escapes = false
			}
		}
		args = args[1:]
	}
	j := joinArgs(args)
	var f flow
	if j.dl {
		f.bits |= flowDL
	}
	if j.dyn {
		return f
	}
	text := j.s
	if len(text) > maxWord {
		return f
	}
	if escapes {
		text = decodeANSIC(text)
	}
	if newline {
		text += "\n"
	}
	f.text, f.hasText = text, true
	f.names = j.glob
	return f
}

func printfText(c *cmdCtx) flow {
	args := c.argv[1:]
	if len(args) > 0 && args[0].s == "--" {
		args = args[1:]
	}
	if len(args) == 0 || strings.HasPrefix(args[0].s, "-v") {
		return flow{}
	}
	j := joinArgs(args)
	var f flow
	if j.dl {
		f.bits |= flowDL
	}
	if j.dyn {
		return f
	}
	format := args[0].s
	rest := argStrings(args[1:])
	var sb strings.Builder
	for round := 0; round < 64; round++ {
		used := false
		for i := 0; i < len(format); i++ {
			ch := format[i]
			if ch != '%' {
				if ch == '\\' {
					k := i + 1
					for k < len(format) && k < i+4 && format[k] != '\\' && format[k] != '%' {
						k++
					}
					sb.WriteString(decodeANSIC(format[i:k]))
					i = k - 1
					continue
				}
				sb.WriteByte(ch)
				continue
			}
			k := i + 1
			for k < len(format) && strings.IndexByte("-+ #0123456789.", format[k]) >= 0 {
				k++
			}
			if k >= len(format) {
				sb.WriteString(format[i:])
				break
			}
			conv := format[k]
			if conv == '%' {
				sb.WriteByte('%')
			} else {
				arg := ""
				if len(rest) > 0 {
					arg, rest = rest[0], rest[1:]
					used = true
				}
				if conv == 'b' {
					arg = decodeANSIC(arg)
				}
				sb.WriteString(arg)
			}
			i = k
		}
		if !used || len(rest) == 0 || sb.Len() > maxWord {
			break
		}
	}
	f.text, f.hasText = sb.String(), true
	return f
}

func (w *walker) base64(c *cmdCtx) flow {
	decode := false
	var file *argVal
	scanOpts(c.argv, 1, base64Opts, func(o option) bool {
		switch o.name {
		case "d", "D", "decode":
			decode = true
		case "i", "input", "":
			v := o.val
			file = &v
			w.argPath(o.val, c.sc, accR, true)
		case "o", "output":
			w.argPath(o.val, c.sc, accW, true)
		}
		return true
	})
	if file != nil || !c.in.hasText {
		return flow{bits: c.in.bits & flowTaint}
	}
	if !decode {
		return flow{text: base64.StdEncoding.EncodeToString([]byte(c.in.text)) + "\n", hasText: true}
	}
	s := strings.Map(func(r rune) rune {
		if r == ' ' || r == '\n' || r == '\t' || r == '\r' {
			return -1
		}
		return r
	}, c.in.text)
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		b, err = base64.RawStdEncoding.DecodeString(strings.TrimRight(s, "="))
	}
	if err != nil {
		return flow{}
	}
	return flow{text: string(b), hasText: true}
}

func (w *walker) xxd(c *cmdCtx) flow {
	reverse, plain := false, false
	n := 0
	scanOpts(c.argv, 1, xxdOpts, func(o option) bool {
		switch o.name {
		case "r", "revert":
			reverse = true
		case "p", "ps", "postscript", "plain":
			plain = true
		case "":
			acc := accR
			if n == 1 {
				acc = accW
			}
			n++
			w.argPath(o.val, c.sc, acc, true)
		}
		return true
	})
	if n > 0 || !c.in.hasText || !reverse || !plain {
		return flow{bits: c.in.bits & flowTaint}
	}
	s := strings.Map(func(r rune) rune {
		if r == ' ' || r == '\n' || r == '\t' || r == '\r' {
			return -1
		}
		return r
	}, c.in.text)
	b, err := hex.DecodeString(s)
	if err != nil {
		return flow{}
	}
	return flow{text: string(b), hasText: true}
}

var teeOpts = &optSpec{}

var base64Opts = &optSpec{short: "wio", long: set("wrap", "input", "output")}

var xxdOpts = &optSpec{short: "cglsoCn", long: set("cols", "groupsize", "len", "seek", "offset", "name")}
