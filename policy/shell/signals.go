package shell

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Words that, found together in interpreter code, reveal a behaviour. All
// lower case; code is lower-cased before the search.
var (
	codeSocket = []string{"socket", "fsockopen", "tcpclient", "require('net')", `require("net")`, "require 'net'",
		"/dev/tcp/", "/dev/udp/", "/inet/tcp/", "/inet/udp/", "net.dial", "net::tcp", "tcpstream", "udpclient"}
	codeProc = []string{"subprocess", "pty.spawn", "dup2", "exec", "system", "spawn", "child_process", "/bin/sh",
		"/bin/bash", "/bin/zsh", "cmd.exe", "powershell", "popen", "proc_open", "passthru", "getline", "iex",
		"invoke-expression", "start-process", "io.popen"}
	codeDownload = []string{"urllib", "urlopen", "requests.get", "requests.post", "requests.request", "http.client", "httplib",
		"urlretrieve", "lwp::", "getstore", "net::http", "open-uri", "uri.open", "file_get_contents('http",
		`file_get_contents("http`, "curl_exec", "invoke-webrequest", "iwr ", "invoke-restmethod", "irm ",
		"downloadstring", "downloadfile", "webclient", "start-bitstransfer", "fetch(", "http.get(", "https.get(",
		"curl ", "wget ", "httpx.get", "aiohttp", "http::tiny", "mojo::useragent"}
	codeRun = []string{"exec(", "exec ", "eval(", "eval ", "iex", "invoke-expression", "os.system", "subprocess",
		"system(", "system ", "| sh", "|sh", "| bash", "|bash", "child_process", "execsync", "spawn", "popen",
		"`", "runpy", "compile(", "load(", "loadstring", "instance_eval", "%x",
		// node: eval handed as a callback, the Function constructor, the vm module
		"(eval)", ",eval)", "new function(", "function(d)(", "runinthiscontext", "runinnewcontext", "runincontext",
		"vm.script", "_compile("}
	// nodeHTTP: node's http and https modules, loaded by require or import;
	// their get and request download (require('https').get(u, …), h.get(u, …)).
	nodeHTTP = []string{"require('https')", `require("https")`, "require('http')", `require("http")`,
		"require('node:https')", `require("node:https")`, "require('node:http')", `require("node:http")`,
		"from 'https'", `from "https"`, "from 'http'", `from "http"`, "from 'node:https'", `from "node:https"`,
		"import('https')", `import("https")`, "require('axios')", `require("axios")`, "require('node-fetch')", `require("node-fetch")`,
		"require('undici')", `require("undici")`, "require('got')", `require("got")`}
)

func containsAny(s string, words []string) bool {
	for _, w := range words {
		if strings.Contains(s, w) {
			return true
		}
	}
	return false
}

// embedded records code handed to an interpreter and looks for reverse
// shells, download-and-run and fork bombs in it. It returns flow bits: a
// program that downloads writes downloaded bytes.
func (w *walker) embedded(code argVal, sc *scope) flowBits {
	return w.embeddedCode(code, sc, true)
}

// embeddedCode is embedded; fold says whether the paths the code's
// literals build are recorded (not when a complete translation of the
// code was walked instead: its commands say what opens which path, and
// a path in a string it only prints is data).
func (w *walker) embeddedCode(code argVal, sc *scope, fold bool) flowBits {
	if strings.TrimSpace(code.s) == "" {
		return 0
	}
	w.addEmbedded(code.s)
	if fold {
		w.foldedPaths(code.s, sc)
	}
	if code.dl {
		w.signal(SignalDownloadExec, sc.detail())
	}
	lc := strings.ToLower(code.s)
	if code.obf || codeDecodesAndRuns(lc) {
		w.signal(SignalObfuscatedExec, sc.detail())
	}
	lc = strings.ReplaceAll(lc, "platform.system", "")
	var f flowBits
	socket := containsAny(lc, codeSocket)
	if socket && containsAny(lc, codeProc) {
		w.signal(SignalReverseShell, sc.detail())
	}
	if containsAny(lc, codeDownload) || nodeDownload(lc) {
		f |= flowDL | flowDownloader
		w.sawDownload = true
		if containsAny(lc, codeRun) {
			w.signal(SignalDownloadExec, sc.detail())
		}
	}
	if isForkLoop(lc) {
		w.signal(SignalForkBomb, sc.detail())
	}
	return f
}

// nodeDownload: code that loads an HTTP client module of node's and calls
// its get or request (or the module itself: axios(u), got(u)).
func nodeDownload(lc string) bool {
	return containsAny(lc, nodeHTTP) && (strings.Contains(lc, ".get(") || strings.Contains(lc, ".request(") ||
		strings.Contains(lc, "axios(") || strings.Contains(lc, "got(") || strings.Contains(lc, "fetch("))
}

// isForkLoop spots `fork while fork`, `while(1){fork}`, `while True: os.fork()`.
func isForkLoop(lc string) bool {
	if !strings.Contains(lc, "fork") {
		return false
	}
	compact := strings.Map(func(r rune) rune {
		switch r {
		case ' ', '\t', '\n', '\r':
			return -1
		}
		return r
	}, lc)
	for _, p := range []string{"forkwhilefork", "forkwhile1", "forkwhiletrue", "forkuntil0", "forkwhile(1)", "forkwhile(true)",
		"forkforever", "loop{fork", "loopdo fork", "1while fork"} {
		if strings.Contains(compact, strings.ReplaceAll(p, " ", "")) {
			return true
		}
	}
	for _, loop := range []string{"while(1)", "while1", "whiletrue", "while(true)", "for(;;)", "loop{", "loopdo", "until(0)", "until0"} {
		if i := strings.Index(compact, loop); i >= 0 && strings.Contains(compact[i:], "fork") {
			return true
		}
	}
	return false
}

// checkForkBomb raises fork-bomb for a function that runs itself in a
// pipeline or in the background: :(){ :|:& };:
func (w *walker) checkForkBomb(fd *syntax.FuncDecl, sc *scope) {
	if fd.Body == nil {
		return
	}
	names := make([]string, 0, 1+len(fd.Names))
	if fd.Name != nil {
		names = append(names, fd.Name.Value)
	}
	for _, n := range fd.Names {
		names = append(names, n.Value)
	}
	bomb := false
	syntax.Walk(fd.Body, func(n syntax.Node) bool {
		if bomb {
			return false
		}
		switch n := n.(type) {
		case *syntax.Stmt:
			if n.Background && stmtCalls(n, names) {
				bomb = true
			}
		case *syntax.BinaryCmd:
			if (n.Op == syntax.Pipe || n.Op == syntax.PipeAll) && (stmtCalls(n.X, names) || stmtCalls(n.Y, names)) {
				bomb = true
			}
		}
		return !bomb
	})
	if bomb {
		w.signal(SignalForkBomb, nodeText(sc.src, fd))
	}
}

// stmtCalls reports whether st runs one of names directly.
func stmtCalls(st *syntax.Stmt, names []string) bool {
	if st == nil {
		return false
	}
	switch c := st.Cmd.(type) {
	case *syntax.CallExpr:
		if len(c.Args) == 0 {
			return false
		}
		first := c.Args[0].Lit()
		for _, n := range names {
			if first == n {
				return true
			}
		}
	case *syntax.BinaryCmd:
		return stmtCalls(c.X, names) || stmtCalls(c.Y, names)
	case *syntax.Block:
		for _, s := range c.Stmts {
			if stmtCalls(s, names) {
				return true
			}
		}
	case *syntax.Subshell:
		for _, s := range c.Stmts {
			if stmtCalls(s, names) {
				return true
			}
		}
	}
	return false
}
