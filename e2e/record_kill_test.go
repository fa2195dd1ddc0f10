//go:build unix

package e2e

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/agentairlock/airlock/audit"
)

// killRecord is what the kill test reads of a record.
type killRecord struct {
	Event, Tool, Target, Decision string
	ArgsDigest                    string `json:"args_digest"`
}

// TestKilledProxyAndHooksLeaveNoServedCallUnrecorded kills the proxy with
// SIGKILL at random moments across hundreds of served calls, while 8 hook
// processes (killed at random moments too) append to the same home: every
// call the server received and every answer the client received has its
// decision record in audit.jsonl, and so has every call a hook answered.
// The log may end torn or with an unconfirmed tail (a kill between two
// writes cannot be excluded); nothing else may be wrong with it.
// Before the fix the proxy queued its records and wrote them in batches
// after the call was served: a kill lost the calls of the last batch.
func TestKilledProxyAndHooksLeaveNoServedCallUnrecorded(t *testing.T) {
	px := newProxyFixture(t)
	// the log and its checkpoint exist before the first kill (a writer
	// killed between a new log's first line and its first checkpoint is
	// the audit package's case, not this test's)
	if r := run(t, px.env, event(t, "Read", fmt.Sprintf(`{"file_path":%q}`, filepath.Join(px.WS, "first.go")), px.WS), "airlock-hook"); r.code != 0 {
		t.Fatalf("a hook call before the kills: exit %d: %s", r.code, r.stderr)
	}
	stop := make(chan struct{})
	var hooks sync.WaitGroup
	var hmu sync.Mutex
	var hookAnswered []string // file paths of the calls a hook answered
	hookCalls, hookKilled := 0, 0
	for w := 0; w < 8; w++ {
		hooks.Add(1)
		go func(w int) {
			defer hooks.Done()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				path := filepath.Join(px.WS, fmt.Sprintf("w%d-%d.go", w, i))
				cmd := exec.Command(filepath.Join(bin, "airlock-hook"))
				cmd.Env = px.env
				cmd.Stdin = bytes.NewReader(event(t, "Read", fmt.Sprintf(`{"file_path":%q}`, path), px.WS))
				if err := cmd.Start(); err != nil {
					t.Error(err)
					return
				}
				// a random moment in a hook's life (some tens of ms here)
				kill := time.AfterFunc(time.Duration(rand.IntN(60000))*time.Microsecond, func() { _ = cmd.Process.Kill() })
				err := cmd.Wait()
				kill.Stop()
				hmu.Lock()
				hookCalls++
				if err == nil {
					hookAnswered = append(hookAnswered, path)
				} else {
					hookKilled++
				}
				hmu.Unlock()
			}
		}(w)
	}

	served := filepath.Join(px.Root, "served.log")
	var answered []string // argument texts of the calls the client got an answer to
	rounds := 0
	for len(answered) < 300 && rounds < 40 {
		rounds++
		answered = append(answered, killProxyRound(t, px, served, rounds)...)
	}
	close(stop)
	hooks.Wait()
	if t.Failed() {
		t.FailNow()
	}

	// one clean append: the next writer confirms what a killed one left
	if r := run(t, px.env, event(t, "Read", fmt.Sprintf(`{"file_path":%q}`, filepath.Join(px.WS, "last.go")), px.WS), "airlock-hook"); r.code != 0 {
		t.Fatalf("a hook call after the kills: exit %d: %s", r.code, r.stderr)
	}
	digests, targets := map[string]bool{}, map[string]bool{}
	b, err := os.ReadFile(filepath.Join(px.AirlockHome, audit.LogFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		var r killRecord
		if json.Unmarshal([]byte(l), &r) != nil || r.Event != "decision" {
			continue // a line torn by a kill
		}
		digests[r.ArgsDigest] = true
		targets[r.Target] = true
	}
	lost := 0
	check := func(what, text string) {
		if !digests[audit.ArgsDigest(echoArgs(text))] {
			lost++
			if lost <= 5 {
				t.Errorf("%s %q has no decision record", what, text)
			}
		}
	}
	for _, text := range answered {
		check("an answer the client received to", text)
	}
	servedTexts := servedCalls(t, served)
	for _, text := range servedTexts {
		check("a call the server received,", text)
	}
	for _, path := range hookAnswered {
		if !targets[path] {
			lost++
			if lost <= 10 {
				t.Errorf("the hook answered a Read of %s and there is no record of it", path)
			}
		}
	}
	if lost > 0 {
		t.Errorf("%d served or answered calls without a record", lost)
	}
	rep, err := audit.Verify(px.AirlockHome)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range rep.Problems {
		switch p.Kind {
		case audit.KindTorn, audit.KindCheckpointStale:
			// a kill between the write and its newline, or between the
			// record and the checkpoint: expected, and not tampering
		default:
			t.Errorf("verify after the kills: %s line %d: %s: %s", p.File, p.Line, p.Kind, p.Message)
		}
	}
	t.Logf("%d proxy runs killed: %d answers received, %d calls served; %d hook calls (%d killed, %d answered); verify: %s with %d problems",
		rounds, len(answered), len(servedTexts), hookCalls, hookKilled, len(hookAnswered), rep.Verdict, len(rep.Problems))
}

// echoArgs is the arguments of the echo call carrying text, byte for byte
// as the test sends them (the record's args_digest is over these bytes).
func echoArgs(text string) []byte { return []byte(`{"text":"` + text + `"}`) }

// killProxyRound starts the proxy, pipelines echo calls through it and
// kills it with SIGKILL at a random moment; it returns the texts of the
// calls whose answers arrived.
func killProxyRound(t *testing.T, px proxyFixture, served string, round int) []string {
	argv := px.proxied("kill", fakeMCPCmd(t, "-mode", "clean", "-log", served)...)
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = px.env
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	outPipe, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pid := cmd.Process.Pid
	out := bufio.NewReader(outPipe)
	hello := func(line string) {
		if _, err := io.WriteString(in, line+"\n"); err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		if _, err := out.ReadString('\n'); err != nil {
			t.Fatalf("round %d: after %s: %v", round, line, err)
		}
	}
	hello(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"kill","version":"0"}}}`)
	_, _ = io.WriteString(in, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n")
	hello(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)

	go func() {
		for i := 0; i < 400; i++ {
			text := fmt.Sprintf("r%d-c%d", round, i)
			line := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo","arguments":%s}}`, i+2, echoArgs(text))
			if _, err := io.WriteString(in, line+"\n"); err != nil {
				return // killed
			}
		}
	}()
	got := make(chan []string, 1)
	// the random moment: after a random number of answers, and a random
	// fraction of a call later
	killAt := 5 + rand.IntN(40)
	reached := make(chan struct{})
	go func() {
		var texts []string
		signalled := false
		for {
			if len(texts) >= killAt && !signalled {
				close(reached)
				signalled = true
			}
			line, err := out.ReadString('\n')
			if err != nil {
				got <- texts
				return
			}
			var m struct {
				Result struct{ Content []struct{ Text string } }
			}
			if json.Unmarshal([]byte(line), &m) == nil && len(m.Result.Content) == 1 && strings.HasPrefix(m.Result.Content[0].Text, fmt.Sprintf("r%d-c", round)) {
				texts = append(texts, m.Result.Content[0].Text)
			}
		}
	}()
	select {
	case <-reached:
	case texts := <-got:
		t.Fatalf("round %d: the proxy ended after %d answers, before it was killed", round, len(texts))
	}
	time.Sleep(time.Duration(rand.IntN(2000)) * time.Microsecond)
	_ = syscall.Kill(pid, syscall.SIGKILL)
	_ = syscall.Kill(-pid, syscall.SIGKILL) // and the server
	texts := <-got
	_ = cmd.Wait()
	return texts
}

// servedCalls is the argument texts of the echo calls the fake server
// received (it logs each line before it handles it).
func servedCalls(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var texts []string
	for _, l := range strings.Split(string(b), "\n") {
		var m struct {
			Method string
			Params struct {
				Arguments struct{ Text string }
			}
		}
		if json.Unmarshal([]byte(l), &m) == nil && m.Method == "tools/call" && m.Params.Arguments.Text != "" {
			texts = append(texts, m.Params.Arguments.Text)
		}
	}
	return texts
}
