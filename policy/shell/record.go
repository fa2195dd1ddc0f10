package shell

import (
	"strings"
)

// flowBits describe a statement's data flow.
type flowBits uint16

const (
	flowDL         flowBits = 1 << iota // stdout may carry downloaded bytes
	flowNet                             // stdout may carry bytes from a raw network connection
	flowShellSink                       // a shell reads its program from stdin
	flowInterpSink                      // an interpreter reads code from stdin
	flowConnector                       // a raw network client (nc, telnet, socat …) runs
	flowDownloader                      // a downloader runs

	flowTaint = flowDL | flowNet | flowSecret | flowDecoded // flowSecret: flow.go; flowDecoded: obfuscated.go
)

// flow is the data flow out of a statement: bits, and its stdout text when
// statically known (echo, printf, base64 -d of known text).
type flow struct {
	bits    flowBits
	text    string
	hasText bool
	names   bool // text is a list of name patterns (find, locate, echo of a glob): xargs reads what they name
}

func (w *walker) full() bool {
	if len(w.res.Commands) >= maxCommands {
		w.res.TooDeep = true
		return true
	}
	return false
}

func (w *walker) signal(sig Signal, detail string) {
	for _, s := range w.res.Signals {
		if s.Signal == sig {
			return // the first occurrence names the offending command
		}
	}
	detail = shortDetail(detail)
	w.res.Signals = append(w.res.Signals, raised{Signal: sig, Detail: detail})
}

// finish raises signals that need the whole program.
func (w *walker) finish() {
	if w.fifoDetail != "" && w.netcatDetail != "" {
		d := w.fifoDetail
		if d != w.netcatDetail {
			d += " … " + w.netcatDetail
		}
		w.signal(SignalReverseShell, d)
	}
}

// addEnv records an environment assignment, and what the programs that
// read the variable would run from it (envRuns).
func (w *walker) addEnv(name, val string, sc *scope) {
	kv := name + "=" + val
	for _, e := range w.res.Env {
		if e == kv {
			return
		}
	}
	w.res.Env = append(w.res.Env, kv)
	w.noteEditor(name, val)
	w.trustEnv(name, val, sc)
	w.envRun(name, val, sc)
}

func (w *walker) addEmbedded(code string) {
	for _, e := range w.res.Embedded {
		if e == code {
			return
		}
	}
	w.res.Embedded = append(w.res.Embedded, code)
}

// addPathAbs records an absolute path fact.
func (w *walker) addPathAbs(raw, abs string, acc Access) {
	w.addPathMode(raw, abs, acc, w.mode)
}

// addPathMode records an absolute path fact of the given shape.
func (w *walker) addPathMode(raw, abs string, acc Access, mode pathMode) {
	k := pathKey{abs, acc, mode}
	if w.pathSeen != nil {
		if w.pathSeen[k] {
			return
		}
	} else {
		for _, p := range w.res.Paths {
			if p.Path == abs && p.Access == acc && p.mode() == mode {
				return
			}
		}
		if len(w.res.Paths) >= 16 {
			w.pathSeen = make(map[pathKey]bool, 64)
			for _, p := range w.res.Paths {
				w.pathSeen[pathKey{p.Path, p.Access, p.mode()}] = true
			}
		}
	}
	if w.pathSeen != nil {
		w.pathSeen[k] = true
	}
	w.res.Paths = append(w.res.Paths, Path{Raw: raw, Path: abs, Access: acc,
		Glob: mode&modeGlob != 0, Tree: mode&modeTree != 0, Names: mode&modeNames != 0})
}

func (p *Path) mode() pathMode {
	var m pathMode
	if p.Glob {
		m |= modeGlob
	}
	if p.Tree {
		m |= modeTree
	}
	if p.Names {
		m |= modeNames
	}
	return m
}

func (w *walker) addHost(raw string) {
	if raw == "" {
		return
	}
	if len(w.cmdHosts) < maxCmdHosts {
		w.cmdHosts = append(w.cmdHosts, raw) // the sinks of secret flows (flow.go)
	}
	if w.hostSeen != nil {
		if w.hostSeen[raw] {
			return
		}
	} else {
		for _, h := range w.res.Hosts {
			if h.Raw == raw {
				return
			}
		}
		if len(w.res.Hosts) >= 16 {
			w.hostSeen = make(map[string]bool, 64)
			for _, h := range w.res.Hosts {
				w.hostSeen[h.Raw] = true
			}
		}
	}
	if w.hostSeen != nil {
		w.hostSeen[raw] = true
	}
	w.res.Hosts = append(w.res.Hosts, Host{Raw: raw})
}

func (w *walker) markDownloaded(abs string) {
	if w.dlFiles == nil {
		w.dlFiles = make(map[string]bool, 4)
	}
	w.dlFiles[abs] = true
	w.sawDownload = true
	w.addWritten(Written{Path: abs, Fetched: true}) // written.go
}

// checkExecDownloaded raises download-exec when abs, about to be run, holds
// downloaded bytes (or is a temp file run after a download).
func (w *walker) checkExecDownloaded(abs string, sc *scope) {
	if text, ok := w.fileTexts[abs]; ok {
		// a file this command wrote with known text runs: judge the text
		delete(w.fileTexts, abs)
		w.extracted(text, sc.nested(nil))
		w.foldedPaths(text, sc) // and, as code in any language, the paths it builds
	}
	if w.obfFiles[abs] {
		w.signal(SignalObfuscatedExec, sc.detail())
	}
	if w.dlFiles[abs] {
		w.signal(SignalDownloadExec, sc.detail())
		return
	}
	for _, d := range w.dlDirs {
		if strings.HasPrefix(abs, d+"/") {
			w.signal(SignalDownloadExec, sc.detail())
			return
		}
	}
	if w.sawDownload && isTempPath(abs) {
		w.signal(SignalDownloadExec, sc.detail())
	}
}

func isTempPath(p string) bool {
	for _, d := range []string{"/tmp/", "/var/tmp/", "/dev/shm/", "/private/tmp/", "/private/var/tmp/"} {
		if strings.HasPrefix(p, d) {
			return true
		}
	}
	return false
}

// isPseudoDevice reports paths that are not files worth a fact.
func isPseudoDevice(p string) bool {
	switch p {
	case "/dev/null", "/dev/stdin", "/dev/stdout", "/dev/stderr", "/dev/tty", "/dev/zero", "/dev/random", "/dev/urandom":
		return p != "/dev/zero" && p != "/dev/random" && p != "/dev/urandom"
	}
	return strings.HasPrefix(p, "/dev/fd/") || strings.HasPrefix(p, "/proc/self/fd/")
}

// devTCPHost extracts HOST from /dev/tcp/HOST/PORT or /dev/udp/HOST/PORT.
func devTCPHost(s string) (string, bool) {
	var rest string
	switch {
	case strings.HasPrefix(s, "/dev/tcp/"):
		rest = s[len("/dev/tcp/"):]
	case strings.HasPrefix(s, "/dev/udp/"):
		rest = s[len("/dev/udp/"):]
	default:
		return "", false
	}
	if i := strings.IndexByte(rest, '/'); i >= 0 {
		rest = rest[:i]
	}
	return rest, true
}
