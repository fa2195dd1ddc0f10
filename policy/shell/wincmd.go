package shell

import (
	"path"
	"strings"
)

// winBuiltin models cmd.exe's file builtins and the Windows programs that
// copy, read, delete or fetch files, spelled with /switches (Microsoft
// Learn's command-line reference; LOLBAS for the programs that copy and
// download). It reports whether it knew c's program.
//
//	type, more FILE…                 read
//	copy, xcopy, move SRC… DST       read SRC, write DST (xcopy /s /e: a tree)
//	robocopy SRC DST [FILE…]         read the tree SRC, write DST
//	del, erase FILE…; rd DIR…        write (delete); rd /s a tree
//	findstr [/s] PATTERN FILE…       read; /s every file under the pattern's directory
//	esentutl /y SRC /d DST           read SRC (also a locked one), write DST
//	bitsadmin /transfer N … URL DST  download URL into DST
//	mshta URL, regsvr32 /i:URL, msiexec /i URL, rundll32 javascript:…
//	                                  run code fetched from the URL
func (w *walker) winBuiltin(c *cmdCtx) bool {
	prog := strings.TrimSuffix(strings.ToLower(c.prog), ".exe")
	switch prog {
	case "type", "more", "copy", "xcopy", "move", "robocopy", "del", "erase", "rd", "findstr", "esentutl",
		"bitsadmin", "mshta", "regsvr32", "msiexec", "rundll32":
	default:
		return false
	}
	if prog == "type" && len(c.argv) > 1 && strings.HasPrefix(c.argv[1].s, "-") {
		return false // bash's type -p/-P/-t/-a
	}
	var ops []argVal
	sw := map[string]string{}
	for _, a := range c.argv[1:] {
		if s := a.s; winSwitch(s) {
			k, v, _ := strings.Cut(strings.ToLower(s[1:]), ":")
			sw[k] = v
			if prog == "findstr" && v == "" {
				for _, r := range k {
					sw[string(r)] = "" // findstr takes joined switches (/si)
				}
			}
			continue
		}
		ops = append(ops, a)
	}
	_, tree := sw["s"]
	read := func(a argVal, tree bool) string {
		if tree {
			return w.treePath(a, c.sc, accR)
		}
		return w.argPath(a, c.sc, accR, true)
	}
	switch prog {
	case "type":
		// bash's type names commands; cmd's type prints files: a word
		// spelled as a path decides
		for _, a := range ops {
			if strings.ContainsAny(a.s, `/\%:.`) {
				w.argPath(a, c.sc, accR, true)
			}
		}
	case "more":
		for _, a := range ops {
			w.argPath(a, c.sc, accR, true)
		}
	case "copy", "xcopy", "move":
		_, e := sw["e"]
		if len(ops) == 0 {
			break
		}
		if len(ops) == 1 {
			read(ops[0], prog == "xcopy" && (tree || e))
			break
		}
		for _, a := range ops[:len(ops)-1] {
			read(a, prog == "xcopy" && (tree || e))
		}
		w.argPath(ops[len(ops)-1], c.sc, accW, true)
	case "robocopy":
		if len(ops) >= 1 {
			w.treePath(ops[0], c.sc, accR)
		}
		if len(ops) >= 2 {
			w.argPath(ops[1], c.sc, accW, true)
		}
	case "del", "erase", "rd":
		for _, a := range ops {
			if tree && prog == "rd" {
				w.treePath(a, c.sc, accW)
			} else {
				w.argPath(a, c.sc, accW, true)
			}
		}
	case "findstr":
		_, c1 := sw["c"]
		_, g1 := sw["g"]
		files := ops
		if !c1 && !g1 && len(files) > 0 {
			files = files[1:] // the first operand is the pattern
		}
		for _, a := range files {
			if tree {
				dir := a
				dir.s = path.Dir(strings.ReplaceAll(a.s, `\`, "/"))
				w.treePath(dir, c.sc, accR)
			} else {
				w.argPath(a, c.sc, accR, true)
			}
		}
	case "esentutl":
		for i := 1; i < len(c.argv); i++ {
			s := strings.ToLower(c.argv[i].s)
			if i+1 < len(c.argv) && (s == "/y" || s == "/d") {
				acc := accR
				if s == "/d" {
					acc = accW
				}
				w.argPath(c.argv[i+1], c.sc, acc, true)
				i++
			}
		}
	case "bitsadmin":
		if _, ok := sw["transfer"]; !ok || len(ops) < 3 {
			break
		}
		// /transfer NAME [/download|/upload] [/priority P] URL DST
		for i := 1; i+1 < len(ops); i++ {
			if isURL(ops[i].s) {
				if abs := w.argPath(ops[i+1], c.sc, accW, true); abs != "" {
					w.markDownloaded(abs)
				}
				break
			}
		}
	case "mshta", "regsvr32", "msiexec", "rundll32":
		for _, a := range c.argv[1:] {
			s := strings.ToLower(a.s)
			if i := strings.Index(s, ":"); strings.HasPrefix(s, "/i:") || strings.HasPrefix(s, "-i:") {
				s = s[i+1:]
			}
			if isURL(s) || strings.HasPrefix(s, "javascript:") || strings.HasPrefix(s, "vbscript:") {
				w.sawDownload = true
				w.signal(SignalDownloadExec, c.sc.detail())
				break
			}
		}
	}
	return true
}

// winSwitch: a cmd.exe-style switch (/s, /Q, /y, /transfer, /i:URL).
func winSwitch(s string) bool {
	if len(s) < 2 || s[0] != '/' || !isLetter(s[1]) && s[1] != '?' {
		return false
	}
	k, _, _ := strings.Cut(s[1:], ":")
	if strings.ContainsAny(k, `/\.`) || len(k) > 12 {
		return false
	}
	return true
}

// locatedPaths is the output of a program locator (which NAME, command -v
// NAME, type -P NAME, whereis NAME): the path of each named program on
// PATH. The directory is not known without the file system; the name is
// what the forbids on programs' files judge (gate.binaries: **/airlock), so
// the path stands in a PATH directory the program could be in.
func locatedPaths(args []argVal) flow {
	var b strings.Builder
	for _, a := range args {
		s := a.s
		if s == "" || strings.HasPrefix(s, "-") || a.dyn || strings.ContainsAny(s, "/\\ $*?") {
			continue
		}
		b.WriteString("/usr/local/bin/" + s + "\n")
	}
	if b.Len() == 0 {
		return flow{}
	}
	return flow{text: b.String(), hasText: true}
}
