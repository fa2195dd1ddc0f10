package shell

import (
	"strings"
	"testing"
	"time"
)

// FuzzParse checks that Parse never panics, always terminates,
// and reports only well-formed facts.
func FuzzParse(f *testing.F) {
	for _, tc := range parseCases {
		if len(tc.src) < 200 {
			f.Add(tc.src)
		}
	}
	save := recoverPanics
	recoverPanics = false
	f.Cleanup(func() { recoverPanics = save })
	f.Fuzz(func(t *testing.T, src string) {
		done := make(chan Facts, 1)
		go func() { done <- Parse(src, testCwd, testHome, testUser) }()
		var r Facts
		select {
		case r = <-done:
		case <-time.After(10 * time.Second):
			t.Fatalf("Parse(%q) did not terminate", src)
		}
		for _, c := range r.Commands {
			if len(c.Argv) == 0 {
				t.Fatalf("%q: command with empty Argv", src)
			}
			if c.Dir == "" {
				t.Fatalf("%q: command %q without Dir", src, c.Argv)
			}
		}
		for _, p := range r.Paths {
			if p.Access == 0 || p.Path == "" {
				t.Fatalf("%q: bad path fact %+v", src, p)
			}
			if !strings.HasPrefix(p.Path, "/") && !(len(p.Path) >= 3 && p.Path[1] == ':') {
				t.Fatalf("%q: relative path fact %+v", src, p)
			}
		}
		for _, h := range r.Hosts {
			if h.Raw == "" {
				t.Fatalf("%q: empty host", src)
			}
		}
		for _, s := range r.Signals {
			if s.Signal == "" || s.Detail == "" && s.Signal != SignalUnparsed {
				t.Fatalf("%q: bad signal %+v", src, s)
			}
		}
		if len(r.Commands) > maxCommands {
			t.Fatalf("%q: %d commands, budget %d", src, len(r.Commands), maxCommands)
		}
		// the parser-free fast path must agree with the parser
		if fast, slow, ok := bothPaths(src); ok && !resultsEqual(fast, slow) {
			t.Fatalf("%q: fast path differs\nfast %+v\nslow %+v", src, fast, slow)
		}
	})
}
