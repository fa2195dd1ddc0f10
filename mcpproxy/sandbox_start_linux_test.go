//go:build linux

package mcpproxy

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentairlock/airlock/audit"
	"github.com/agentairlock/airlock/gate"
	airlockhome "github.com/agentairlock/airlock/internal/home"
	"github.com/agentairlock/airlock/pins"
	"github.com/agentairlock/airlock/policy"
	"github.com/agentairlock/airlock/sandbox"
)

// TestSandboxedServerThatCannotStartEndsItsRecords: a server whose exec
// fails inside the sandbox (a #! interpreter that is not there; the
// repository chooses its server's script) leaves no sandbox_start without
// its sandbox_end, and no mcp_start without its mcp_exit.
func TestSandboxedServerThatCannotStartEndsItsRecords(t *testing.T) {
	if r := sandbox.Probe(); r.ABI < 1 {
		t.Fatalf("the kernel offers no Landlock; airlock-mcp --sandbox needs it")
	}
	root := t.TempDir()
	home := filepath.Join(root, "airlock")
	srv := filepath.Join(root, "srv", "server")
	if err := os.MkdirAll(filepath.Dir(srv), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(srv, []byte("#!/nonexistent/interpreter\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	env := airlockhome.Env{Home: root, User: "dev", Tmp: root, AirlockHome: home, Getenv: func(string) string { return "" }}
	pol, err := policy.LoadProfile("default", policy.Vars{Workspace: root, Home: root, Tmp: root, User: "dev", AirlockHome: home})
	if err != nil {
		t.Fatal(err)
	}
	log, err := audit.Open(home)
	if err != nil {
		t.Fatal(err)
	}
	defer log.Close()
	var errb strings.Builder
	code := Run(context.Background(), Options{Name: "srv", Argv: []string{srv}, Dir: root, Sandbox: true,
		Stdin: strings.NewReader(""), Stdout: &strings.Builder{}, Stderr: &errb, Gate: &gate.Gate{Policy: pol, Env: env}, Log: log,
		Pins: pins.Open(home), Grace: 2 * time.Second})
	if code != exitNotFound {
		t.Fatalf("exit %d, want %d (not started): %s", code, exitNotFound, errb.String())
	}
	b, err := os.ReadFile(filepath.Join(home, audit.LogFile))
	if err != nil {
		t.Fatal(err)
	}
	count := map[string]int{}
	for _, l := range strings.Split(string(b), "\n") {
		for _, ev := range []string{"sandbox_start", "sandbox_end", "mcp_start", "mcp_exit"} {
			if strings.Contains(l, `"event":"`+ev+`"`) {
				count[ev]++
			}
		}
	}
	if count["sandbox_start"] != 1 || count["sandbox_end"] != 1 || count["mcp_start"] != 1 || count["mcp_exit"] != 1 {
		t.Fatalf("records %v, want one of each of sandbox_start, sandbox_end, mcp_start, mcp_exit:\n%s", count, b)
	}
	if !strings.Contains(string(b), "not started") {
		t.Errorf("the sandbox_end does not say the server was not started:\n%s", b)
	}
}

// TestSandboxBannerEscapesTheName: the server's name is the agent's
// config's (a repository's .mcp.json can choose it); the banner on stderr
// shows it escaped, never as control sequences.
func TestSandboxBannerEscapesTheName(t *testing.T) {
	root := t.TempDir()
	pol, err := policy.LoadProfile("default", policy.Vars{Workspace: root, Home: root, Tmp: root, User: "dev", AirlockHome: filepath.Join(root, "airlock")})
	if err != nil {
		t.Fatal(err)
	}
	sess, err := sandbox.OpenSession(sandbox.SessionConfig{Options: sandbox.Options{Argv: []string{"/bin/true"}, Dir: root, Policy: pol}, NoEgress: true})
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	b := sandboxBanner("fs\x1b[2J\rgithub", &sandboxed{sess: sess})
	if strings.ContainsAny(b, "\x1b\r") {
		t.Fatalf("the banner carries the name's control characters raw: %q", b)
	}
}
