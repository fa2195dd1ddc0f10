//go:build linux

package mcpproxy

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime/debug"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/agentairlock/airlock/gate"
	"github.com/agentairlock/airlock/internal/home"
	"github.com/agentairlock/airlock/policy"
)

// A message costs the proxy about twice its size while it is read (its
// pieces, then the string gjson reads without a copy), not the four or
// five times a growing buffer and the parser's own copy did (a 200 MiB
// line peaked at over 800 MiB). Measured in a child process, whose peak
// RSS is its own.
func TestLargeServerMessageCostsAboutTwiceItsSize(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector multiplies memory; this bound is measured without -race")
	}
	const size = 48 << 20
	if os.Getenv("AIRLOCK_TEST_MEMORY_CHILD") == "1" {
		memoryChild(t, size)
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestLargeServerMessageCostsAboutTwiceItsSize$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), "AIRLOCK_TEST_MEMORY_CHILD=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	s := string(out)
	i := strings.Index(s, "grew=")
	if i < 0 {
		t.Fatalf("child printed no measurement:\n%s", s)
	}
	var grew int64
	fmt.Sscanf(s[i:], "grew=%d", &grew)
	t.Logf("peak RSS grew by %d MiB relaying one %d MiB message (%.2fx)", grew>>20, size>>20, float64(grew)/size)
	if grew > size*5/2 {
		t.Fatalf("relaying one %d MiB message raised peak RSS by %d MiB: more than 2.5x the message", size>>20, grew>>20)
	}
}

func memoryChild(t *testing.T, size int) {
	pol, err := policy.LoadProfile("default", policy.Vars{Workspace: t.TempDir(), Home: "/nonexistent", Tmp: "/tmp", User: "dev"})
	if err != nil {
		t.Fatal(err)
	}
	o := Options{Name: "mem", Stdout: io.Discard, Stderr: io.Discard, Gate: &gate.Gate{Policy: pol, Env: home.Env{Getenv: func(string) string { return "" }}},
		MaxMessage: 64 << 20}
	o.defaults()
	p := newProxy(o)
	p.toServer = newLineWriter(io.Discard)
	if err := p.fromClient(`{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\n"); err != nil {
		t.Fatal(err)
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		defer w.Close()
		io.WriteString(w, `{"jsonrpc":"2.0","id":1,"result":{"contents":[{"uri":"file:///big","text":"`)
		chunk := []byte(strings.Repeat("x", 64<<10))
		for left := size; left > 0; left -= len(chunk) {
			w.Write(chunk[:min(left, len(chunk))])
		}
		io.WriteString(w, `"}]}}`+"\n")
	}()
	debug.FreeOSMemory()
	before := peakRSS(t)
	p.serverLoop(r)
	grew := peakRSS(t) - before
	if p.inFlight(rawKey("1")) {
		t.Fatal("the answer was not matched to its call")
	}
	fmt.Println("grew=" + strconv.FormatInt(grew, 10))
}

func peakRSS(t *testing.T) int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		t.Fatal(err)
	}
	return ru.Maxrss << 10 // KiB on Linux
}
