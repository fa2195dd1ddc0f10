package shell

import (
	"strings"
)

// Obfuscated execution (MITRE ATT&CK T1027, T1140; GTFOBins' "shell"
// entries): a program that is decoded on the spot — base64 -d, xxd -r,
// openssl enc -d, gpg -d, rev, tr between two sets, printf of hex or octal
// escapes, an interpreter one-liner that decodes — and handed to a shell or
// an interpreter, through a pipe, $( ), a process substitution, eval, sh -c
// or a variable. Nobody reviewing the call can read what runs; when the
// decoded text is known it is walked as well (fold.go, text.go), but the
// hiding itself is the signal, whatever the text turns out to be.
//
// The decoder's output carries flowDecoded (through filters, like a
// download's bytes); a word built from it carries argVal.obf. The sinks are
// the ones download-exec uses: stdinSink, sh -c, eval, a script operand, an
// interpreter's code, the command name itself.

// SignalObfuscatedExec: decoded text reaches a shell or interpreter.
const SignalObfuscatedExec Signal = "obfuscated-exec"

// flowDecoded: stdout may carry a decoder's output (the last free bit
// above the secret slots of flow.go).
const flowDecoded flowBits = 1 << 14

// decoderOut returns flowDecoded when c is a decoder: its stdout is text
// nobody spelled.
func (w *walker) decoderOut(c *cmdCtx) flowBits {
	switch c.prog {
	case "base64", "gbase64", "base32", "gbase32", "basenc", "xxd", "openssl", "gpg", "gpg2", "age", "rage", "uudecode", "rev", "tr", "printf", "echo":
	default:
		if unpacker(c.prog) {
			if unpacks(c.prog, argStrings(c.argv)) {
				return flowDecoded
			}
			return 0
		}
		if !isInterpName(c.prog) {
			return 0
		}
	}
	if decoderCmd(c.prog, argStrings(c.argv)) || echoesSpelled(c) {
		return flowDecoded
	}
	return 0
}

// decoderCmd: prog with argv decodes, decrypts or scrambles its input.
func decoderCmd(prog string, argv []string) bool {
	switch prog {
	case "base64", "gbase64", "base32", "gbase32", "basenc":
		return hasAnyArg(argv, "-d", "-D", "--decode") || hasShortFlag(argv, 'd')
	case "xxd":
		return hasAnyArg(argv, "-r", "-revert") || hasShortFlag(argv, 'r')
	case "openssl":
		// openssl enc -d, openssl base64 -d, openssl aes-256-cbc -d
		return len(argv) > 1 && hasAnyArg(argv[1:], "-d", "-decrypt", "-a", "-base64") && !hasAnyArg(argv[1:], "-e", "-encrypt") &&
			argv[1] != "req" && argv[1] != "x509" && argv[1] != "s_client" && argv[1] != "dgst"
	case "gpg", "gpg2", "age", "rage":
		return hasAnyArg(argv, "-d", "--decrypt")
	case "uudecode":
		return true
	case "rev":
		return len(argv) == 1 // reverses stdin; rev FILE reads a file someone can read
	case "tr":
		// tr SET1 SET2 substitutes (rot13, a cipher); tr -d/-s SET only deletes or squeezes
		n := 0
		for _, a := range argv[1:] {
			if strings.HasPrefix(a, "-") && len(a) > 1 {
				if strings.ContainsAny(a, "ds") && !strings.Contains(a, "c") {
					return false
				}
				continue
			}
			n++
		}
		return n >= 2
	case "printf":
		return len(argv) > 1 && escapedBytes(strings.Join(argv[1:], " "))
	case "echo":
		return len(argv) > 1 && (hasShortFlag(argv, 'e') || argv[1] == "-ne" || argv[1] == "-en") && escapedBytes(strings.Join(argv[1:], " "))
	}
	if isInterpName(prog) {
		for _, a := range argv[1:] {
			if codeDecodes(strings.ToLower(a)) {
				return true
			}
		}
	}
	return false
}

func isInterpName(prog string) bool {
	switch prog {
	case "python", "perl", "ruby", "node", "php", "pwsh", "powershell", "deno", "bun", "lua":
		return true
	}
	return strings.HasPrefix(prog, "python") || strings.HasPrefix(prog, "perl")
}

// escapedBytes: text with hex, octal or unicode escapes (\x63, \143,
// \u0063): a word spelled so that it cannot be read. \n, \t do not count.
func escapedBytes(s string) bool {
	n := 0
	for i := 0; i+2 < len(s); i++ {
		if s[i] != '\\' {
			continue
		}
		switch c := s[i+1]; {
		case c == 'x' && isHexDigit(s[i+2]), c == 'u' && isHexDigit(s[i+2]), c >= '0' && c <= '7' && s[i+2] >= '0' && s[i+2] <= '7':
			n++
		}
	}
	return n >= 2
}

func isHexDigit(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

func hasAnyArg(argv []string, names ...string) bool {
	for _, a := range argv {
		for _, n := range names {
			if a == n {
				return true
			}
		}
	}
	return false
}

// hasShortFlag: a bundle of short flags (-di, -rp) holds letter.
func hasShortFlag(argv []string, letter byte) bool {
	for _, a := range argv[1:] {
		if len(a) > 1 && a[0] == '-' && a[1] != '-' && strings.IndexByte(a[1:], letter) >= 0 && isLetters(a[1:]) {
			return true
		}
	}
	return false
}

// codeDecoders are the decoding calls of the scripting languages (lower
// case): base64, hex, rot13, zlib, marshal, PowerShell's FromBase64String.
var codeDecoders = []string{"b64decode", "base64.decode", "decodebytes", "a85decode", "b32decode", "unhexlify",
	"bytes.fromhex", "codecs.decode", "zlib.decompress", "gzip.decompress", "marshal.loads", "decode('hex')",
	`decode("hex")`, "'rot13'", `"rot13"`, "'rot_13'", "atob(", "'base64')", `"base64")`, "decode_base64", "mime::base64",
	"unpack('m", `unpack("m`, "unpack1('m", "frombase64string", "pack('h", `pack("h`, "base64_decode", "str_rot13", "gzinflate",
	"[char[]]", "-join",
	// text built from character codes (obfuscated_more.go's charCodes)
	"fromcharcode(", "join(chr(", "join(map(chr", "map(chr,", "pack('c", `pack("c`, "pack('u", `pack("u`, "[char]0x"}

// codeRunners are the calls that run a string as code or a command.
var codeRunners = []string{"exec(", "eval(", "eval ", "os.system", "subprocess", "popen", "child_process", "execsync",
	"spawn", "invoke-expression", "iex(", "iex ", "| iex", "|iex", "new function(", "runinthiscontext", "system(",
	"instance_eval", "compile(", "passthru", "shell_exec", "assert("}

func codeDecodes(lc string) bool { return containsAny(lc, codeDecoders) }

// codeDecodesAndRuns: interpreter code that decodes a string and runs
// code or a command (python -c 'exec(b64decode(…))').
func codeDecodesAndRuns(lc string) bool {
	return containsAny(lc, codeDecoders) && containsAny(lc, codeRunners)
}

// noteObfVar remembers that variable name holds a decoder's output.
func (w *walker) noteObfVar(name string, obf bool) {
	switch {
	case obf:
		if w.obfVars == nil {
			w.obfVars = make(map[string]bool, 2)
		}
		w.obfVars[name] = true
	case w.obfVars[name]:
		delete(w.obfVars, name)
	}
}

// setPositionals follows set -- ARGS and shift N, which replace or move
// the positional parameters: `set -- cat ~/.aws/credentials; "$@"` runs
// cat on the key file, and a program hidden there must be seen.
func setPositionals(c *cmdCtx) {
	sc := c.sc
	if sc.inFunc {
		return
	}
	argv := argStrings(c.argv)
	switch c.prog {
	case "set":
		i := 1
		for i < len(argv) && (strings.HasPrefix(argv[i], "-") || strings.HasPrefix(argv[i], "+")) && argv[i] != "--" && argv[i] != "-" {
			if argv[i] == "-o" || argv[i] == "+o" {
				i++
			}
			i++
		}
		if i < len(argv) && (argv[i] == "--" || argv[i] == "-") {
			i++
		} else if i >= len(argv) {
			return // set -e, set -o pipefail: options only
		}
		for _, a := range c.argv[i:] {
			if a.dyn {
				return // unknown words: keep what was known (nothing is invented)
			}
		}
		pos := make([]string, 0, 1+len(argv)-i)
		if len(sc.pos) > 0 {
			pos = append(pos, sc.pos[0])
		} else {
			pos = append(pos, "sh")
		}
		sc.pos = append(pos, argv[i:]...)
	case "shift":
		n := 1
		if len(argv) > 1 {
			n = 0
			for _, ch := range argv[1] {
				if ch < '0' || ch > '9' || n > 1000 {
					return
				}
				n = n*10 + int(ch-'0')
			}
		}
		if len(sc.pos) <= 1 {
			return
		}
		rest := sc.pos[1:]
		if n > len(rest) {
			n = len(rest)
		}
		sc.pos = append([]string{sc.pos[0]}, rest[n:]...)
	}
}
