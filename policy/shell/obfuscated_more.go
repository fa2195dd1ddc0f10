package shell

import "strings"

// More of obfuscated.go's decoders (MITRE ATT&CK T1027.002, T1140): a
// compressed or archived script unpacked straight into a shell is as
// unreadable to a reviewer as a base64 one (zcat x.sh.gz | sh, tar -xOf
// x.tar | bash, unzip -p x.zip | sh), and a decoder's output written to a
// file that the same command line then runs is still decoded text running
// (base64 -d x.b64 > /tmp/t; chmod +x /tmp/t; /tmp/t). Unpacking into a
// file, a pager or grep is what these programs are for and stays allowed:
// only the shell and interpreter sinks of obfuscated.go act on the bit.

// unpacker: prog decompresses or extracts archives.
func unpacker(prog string) bool {
	switch prog {
	case "zcat", "gzcat", "gunzip", "gzip", "pigz", "unpigz", "xz", "xzcat", "unxz", "lzma", "unlzma", "lzcat",
		"bzip2", "bzcat", "bunzip2", "zstd", "zstdcat", "unzstd", "lz4", "lz4cat", "unlz4", "brotli", "tar", "bsdtar", "unzip":
		return true
	}
	return false
}

// unpacks: prog with argv writes unpacked bytes to its stdout.
func unpacks(prog string, argv []string) bool {
	switch prog {
	case "zcat", "gzcat", "xzcat", "lzcat", "bzcat", "zstdcat", "lz4cat":
		return true
	case "gunzip", "unpigz", "unxz", "unlzma", "bunzip2", "unzstd", "unlz4":
		// to stdout with -c, or when reading stdin (no file operand)
		return hasAnyArg(argv, "-c", "--stdout", "--to-stdout") || hasShortFlag(argv, 'c') || !hasOperand(argv)
	case "gzip", "pigz", "xz", "lzma", "bzip2", "zstd", "lz4", "brotli":
		dec := hasAnyArg(argv, "-d", "--decompress", "--uncompress") || hasShortFlag(argv, 'd')
		out := hasAnyArg(argv, "-c", "--stdout", "--to-stdout") || hasShortFlag(argv, 'c') || !hasOperand(argv)
		return dec && out
	case "tar", "bsdtar":
		// tar -xOf, tar xOf (old-style bundle), --to-stdout
		if hasAnyArg(argv, "-O", "--to-stdout") || hasShortFlag(argv, 'O') {
			return true
		}
		return len(argv) > 1 && !strings.HasPrefix(argv[1], "-") && strings.ContainsRune(argv[1], 'x') && strings.ContainsRune(argv[1], 'O') && isLetters(argv[1])
	case "unzip":
		return hasAnyArg(argv, "-p", "-c") || hasShortFlag(argv, 'p')
	}
	return false
}

// hasOperand: argv has a word after the program that is not an option.
func hasOperand(argv []string) bool {
	for _, a := range argv[1:] {
		if a == "-" {
			return false
		}
		if !strings.HasPrefix(a, "-") {
			return true
		}
	}
	return false
}

// markDecodedFile remembers that abs holds a decoder's output.
func (w *walker) markDecodedFile(abs string) {
	if w.obfFiles == nil {
		w.obfFiles = make(map[string]bool, 2)
	}
	if len(w.obfFiles) < 64 {
		w.obfFiles[abs] = true
	}
}

// spelledInEscapes: the body of a $'…' string spells printable text in
// hex, octal or unicode escapes ($'\x69\x64' is "id"): a word written so
// that a reader cannot read it. Escapes of control characters ($'\e[1m',
// $'\x1b', $'\n', $'\t') are what $'…' is for and do not count.
func spelledInEscapes(s string) bool {
	n := 0
	for i := 0; i+2 < len(s) && n < 2; i++ {
		if s[i] != '\\' {
			continue
		}
		v, ok := 0, false
		switch c := s[i+1]; {
		case c == 'x' && isHexDigit(s[i+2]):
			v, ok = hexVal(s[i+2]), true
			if i+3 < len(s) && isHexDigit(s[i+3]) {
				v = v*16 + hexVal(s[i+3])
			}
		case c == 'u' && i+5 < len(s) && isHexDigit(s[i+2]) && isHexDigit(s[i+3]) && isHexDigit(s[i+4]) && isHexDigit(s[i+5]):
			v, ok = ((hexVal(s[i+2])*16+hexVal(s[i+3]))*16+hexVal(s[i+4]))*16+hexVal(s[i+5]), true
		case c >= '0' && c <= '3' && s[i+2] >= '0' && s[i+2] <= '7' && i+3 < len(s) && s[i+3] >= '0' && s[i+3] <= '7':
			v, ok = int(c-'0')*64+int(s[i+2]-'0')*8+int(s[i+3]-'0'), true
		}
		if ok && v > 0x20 && v < 0x7f {
			n++
		}
		i++
	}
	return n >= 2
}

// echoesSpelled: echo or printf prints a word spelled in escapes
// (echo $'\x69\x64' | sh): its output is that hidden text.
func echoesSpelled(c *cmdCtx) bool {
	if c.prog != "echo" && c.prog != "printf" {
		return false
	}
	for _, a := range c.argv[1:] {
		if a.obf {
			return true
		}
	}
	return false
}

// obfWord: one of argv holds a decoder's output.
func obfWord(argv []argVal) bool {
	for _, a := range argv {
		if a.obf {
			return true
		}
	}
	return false
}
