// Command fakemcp is a family of misbehaving and well-behaved MCP stdio
// servers for Airlock's proxy tests. Each -mode is one upstream the proxy
// must survive: an honest toolset, a poisoned description, a rug pull
// between starts, poison hidden on a later page, responses nobody asked
// for, a 10 MB result, a crash mid-call, a server that ignores SIGTERM, a
// bare-bones server for benchmarks, and a server that asks the client for
// an LLM completion.
//
// It lives under testdata so that ./... neither builds nor vets it by
// accident; the e2e tests build it explicitly:
//
//	go build -o DIR/fakemcp ./testdata/fakemcp
//
// Flags:
//
//	-mode M      clean, poisoned, rugpull, paged, paged-clean, unsolicited,
//	             big, crash, ignoreterm, echo-raw, sample, script (default clean)
//	-script FILE script: the listings and answers to serve (script.go)
//	-state FILE  rugpull: the first start creates FILE and serves the clean
//	             toolset; any later start (FILE exists) serves the pulled one
//	-size N      big: bytes of text the big tool returns (default 10 MiB)
//	-log FILE    append every line received on stdin to FILE, before it is
//	             handled, so a test can assert what reached the server
//	-legacy      answer server/discover with -32601, like servers that
//	             predate protocol 2026-07-28; clients then fall back to
//	             initialize (implied by -mode sample)
//	-linger D    ignoreterm: how long to stay up after stdin closes, a
//	             safety net so a broken proxy cannot leak it (default 2m)
//	-connect H:P at start, open a CONNECT tunnel to H:P through
//	             $HTTPS_PROXY and say on stderr what the proxy answered
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"time"
)

// config is what the flags ask for.
type config struct {
	mode, state, logPath string
	script               string
	connect              string
	size                 int
	legacy               bool
	linger               time.Duration
}

func main() {
	var c config
	flag.StringVar(&c.mode, "mode", "clean", "server behaviour (see package doc)")
	flag.StringVar(&c.state, "state", "", "rugpull: state file marking the first start")
	flag.IntVar(&c.size, "size", 10<<20, "big: bytes of text the big tool returns")
	flag.StringVar(&c.logPath, "log", "", "append every received line to this file")
	flag.StringVar(&c.script, "script", "", "script: the JSON file of listings and answers to serve")
	flag.BoolVar(&c.legacy, "legacy", false, "refuse server/discover so clients use initialize")
	flag.StringVar(&c.connect, "connect", "", "at start, CONNECT to this host:port through $HTTPS_PROXY")
	flag.DurationVar(&c.linger, "linger", 2*time.Minute, "ignoreterm: time to stay up after stdin EOF")
	flag.Parse()
	fmt.Fprintf(os.Stderr, "fakemcp: mode=%s pid=%d\n", c.mode, os.Getpid())
	if c.connect != "" {
		go connectThroughProxy(c.connect)
	}
	if err := run(c); err != nil {
		fmt.Fprintf(os.Stderr, "fakemcp: %v\n", err)
		os.Exit(1)
	}
}

func run(c config) error {
	var received io.Writer = io.Discard
	if c.logPath != "" {
		f, err := os.OpenFile(c.logPath, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
		if err != nil {
			return fmt.Errorf("open -log: %w", err)
		}
		defer f.Close()
		received = f
	}
	if c.mode == "echo-raw" {
		return serveRaw(os.Stdin, os.Stdout, received)
	}
	if c.mode == "script" {
		return serveScript(c.script, os.Stdin, os.Stdout, received)
	}
	if c.mode == "sample" {
		// server-initiated requests exist only before 2026-07-28
		c.legacy = true
	}
	w := newWire(os.Stdout)
	srv, err := newServer(c, w)
	if err != nil {
		return err
	}
	return serve(c, srv, w, os.Stdin, received)
}
