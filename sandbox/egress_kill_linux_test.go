//go:build linux

package sandbox

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/agentairlock/airlock/audit"
	"github.com/agentairlock/airlock/policy"
)

// egressKillHelper is the test binary re-executed as an egress proxy that
// records into the audit log in home (AIRLOCK_EGRESS_KILL_HOME): every
// *.test name resolves to 127.0.0.1. It prints its address and serves
// until killed.
func egressKillHelper(home string) int {
	log, err := audit.Open(home)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	p, err := policy.LoadProfile("default", policy.Vars{Workspace: home, Home: home, Tmp: home, User: "dev", AirlockHome: home})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	e, err := StartEgress(egressOptions{Policy: p, Home: home,
		Lookup: func(context.Context, string) ([]netip.Addr, error) {
			return []netip.Addr{netip.MustParseAddr("127.0.0.1")}, nil
		},
		Record: func(r audit.Record) error { _, err := log.Append(r); return err }})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	fmt.Println(e.Addr())
	select {}
}

// TestEgressKilledLeavesNoServedConnectionUnrecorded kills the egress
// proxy with SIGKILL at random points while clients make connections
// through it to a local server, another writer appending to the same log:
// every connection that reached the server has its decision in the log. Before the fix a connection was recorded
// only when it ended, so one the server had already served left no trace.
func TestEgressKilledLeavesNoServedConnectionUnrecorded(t *testing.T) {
	var mu sync.Mutex
	served := map[string]bool{}
	reached := make(chan struct{}, 1024)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		served[r.Host] = true
		mu.Unlock()
		reached <- struct{}{}
		_, _ = w.Write([]byte("hello"))
	}))
	defer srv.Close()
	port := srv.URL[strings.LastIndex(srv.URL, ":")+1:]
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 14))
	total := 0
	for round := range 8 {
		home := filepath.Join(t.TempDir(), "home")
		if err := os.Mkdir(home, 0o700); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), "AIRLOCK_EGRESS_KILL_HOME="+home)
		var stderr strings.Builder
		cmd.Stderr = &stderr
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		addr, err := bufio.NewReader(out).ReadString('\n')
		if err != nil {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
			t.Fatalf("the egress proxy did not start: %v\n%s", err, stderr.String())
		}
		addr = strings.TrimSpace(addr)
		for len(reached) > 0 {
			<-reached
		}
		// kill at the k-th connection the server sees, and a random few
		// microseconds later: clients keep connecting meanwhile
		k := 1 + rng.IntN(20)
		delay := time.Duration(rng.IntN(2000)) * time.Microsecond
		stop := make(chan struct{})
		var clients sync.WaitGroup
		// another writer appends to the same log all along
		other, err := audit.Open(home)
		if err != nil {
			t.Fatal(err)
		}
		clients.Add(1)
		go func() {
			defer clients.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				if _, err := other.Append(audit.Record{Event: "decision", Source: "test", Tool: "Read", Effective: "allow"}); err != nil {
					t.Errorf("the other writer: %v", err)
					return
				}
			}
		}()
		for c := range 4 {
			clients.Add(1)
			go func() {
				defer clients.Done()
				for i := 0; ; i++ {
					select {
					case <-stop:
						return
					default:
					}
					host := fmt.Sprintf("r%d-c%d-%d.test:%s", round, c, i, port)
					if _, err := egressKillGet(addr, host); err != nil {
						return // the proxy is gone
					}
				}
			}()
		}
		for range k {
			<-reached
		}
		time.Sleep(delay) // a random point, not a wait for an event
		_ = cmd.Process.Signal(syscall.SIGKILL)
		_ = cmd.Wait()
		close(stop)
		clients.Wait()
		_ = other.Close()

		recorded := map[string]bool{}
		if err := audit.Each(home, func(en audit.Entry) error {
			if en.Record.Event == "egress" {
				recorded[en.Record.Target] = true
			}
			return nil
		}); err != nil {
			t.Fatalf("round %d: read the log: %v", round, err)
		}
		mu.Lock()
		for host := range served {
			if strings.HasPrefix(host, fmt.Sprintf("r%d-", round)) {
				total++
				if !recorded[host] {
					t.Errorf("round %d (killed after %d connections + %v): %s reached the server with no record", round, k, delay, host)
				}
			}
		}
		mu.Unlock()
	}
	t.Logf("%d connections served across 8 kills", total)
}

// egressKillGet makes one plain-HTTP request for host through the proxy
// at addr, on a connection of its own.
func egressKillGet(addr, host string) (int, error) {
	tr := &http.Transport{Proxy: func(*http.Request) (*url.URL, error) { return &url.URL{Scheme: "http", Host: addr}, nil }, DisableKeepAlives: true}
	defer tr.CloseIdleConnections()
	c := &http.Client{Transport: tr, Timeout: 10 * time.Second}
	resp, err := c.Get("http://" + host + "/")
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, resp.Body)
	return resp.StatusCode, nil
}
