package sandbox

import (
	"errors"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/agentairlock/airlock/ask"
	"github.com/agentairlock/airlock/audit"
)

// TestSessionWiresAskNoticeAndRecords: a session's egress proxy puts the
// destination the policy asks about to the session's ask channel (a
// person's no refuses it, though ask_fallback would allow), records it
// under the session's id and sends the block's notice after the record;
// the command gets the proxy's variables after its own environment, and
// the proxy's port is the one Landlock lets it reach.
func TestSessionWiresAskNoticeAndRecords(t *testing.T) {
	dir := t.TempDir()
	p := hostilePolicy(t, "mode: enforce\ndefault: allow\nask_fallback: allow\nrules:\n"+
		"  - id: ask-api\n    tool: WebFetch\n    host: [\"api.test\"]\n    action: ask\n    reason: the test asks\n")
	per := &hostilePerson{answer: ask.Deny}
	var (
		mu     sync.Mutex
		events []string
	)
	s, err := OpenSession(SessionConfig{
		Options: Options{Argv: []string{"/bin/true"}, Dir: dir, Policy: p, Env: []string{"OWN=1"}},
		ID:      "sess-1", Source: "cli", Tool: "run",
		Ask: per,
		Record: func(r audit.Record) error {
			mu.Lock()
			defer mu.Unlock()
			events = append(events, "record "+r.Event+" "+r.Session+" "+r.Target+" "+r.Effective+" "+r.Asked)
			return nil
		},
		Notice: func(r audit.Record) {
			mu.Lock()
			defer mu.Unlock()
			events = append(events, "notice "+r.Target+" "+r.Rule)
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	addr := s.egress.Addr()
	penv, port := s.plan.opt.Env, s.plan.opt.EgressPort
	resp, _ := egressRaw(t, addr, "CONNECT api.test:443 HTTP/1.1\r\nHost: api.test:443\r\n\r\n")
	if resp.StatusCode != 403 {
		t.Fatalf("CONNECT to the asked host: %d, want 403 (a person said no)", resp.StatusCode)
	}
	if len(per.asked) != 1 || per.asked[0].Target != "api.test:443" {
		t.Fatalf("asked: %+v, want one question about api.test:443", per.asked)
	}
	if err := s.Close(); err != nil {
		t.Fatalf("close: %v", err)
	}
	want := []string{"record egress sess-1 api.test:443 block " + audit.AskedHuman, "notice api.test:443 ask-api"}
	mu.Lock()
	got := slices.Clone(events)
	mu.Unlock()
	if !slices.Equal(got, want) {
		t.Fatalf("events:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if len(penv) == 0 || penv[0] != "OWN=1" || !slices.Contains(penv, "HTTPS_PROXY=http://"+addr) {
		t.Errorf("the command's environment: %q, want its own then the proxy's", penv)
	}
	if !strings.HasSuffix(addr, ":"+strconv.Itoa(port)) {
		t.Errorf("Landlock's egress port %d is not the proxy's (%s)", port, addr)
	}
	if s.Close() != nil || s.plan != nil || s.egress != nil {
		t.Errorf("a second Close")
	}
}

// TestSessionRecords: the session's own records, as airlock run and
// airlock-mcp --sandbox write them.
func TestSessionRecords(t *testing.T) {
	s := &Session{cfg: SessionConfig{ID: "sess-1", Source: "cli", Tool: "run"}}
	cases := []struct {
		status     int
		err        error
		wantStatus int
		effective  string
		detail     string
	}{
		{0, nil, 0, "exit 0", "exit_status=0"},
		{3, nil, 3, "exit 3", "exit_status=3"},
		{0, errors.New("no such \x1b[2Jfile"), 126, "error", "exit_status=126 not started: no such \\x1b[2Jfile"},
		{127, errors.New("not found"), 127, "error", "exit_status=127 not started: not found"},
	}
	for _, tc := range cases {
		r, status := s.EndRecord(tc.status, tc.err)
		if status != tc.wantStatus || r.Event != "sandbox_end" || r.Effective != tc.effective || r.Detail != tc.detail || r.Session != "sess-1" || r.Source != "cli" || r.Tool != "run" {
			t.Errorf("EndRecord(%d, %v) = %+v, %d", tc.status, tc.err, r, status)
		}
	}
}

// TestSessionAsksNameTheServer: under airlock-mcp --sandbox each question
// names the server, and an answer about one server's destination is not
// remembered for another's (or for airlock run's command).
func TestSessionAsksNameTheServer(t *testing.T) {
	p := hostilePolicy(t, "mode: enforce\ndefault: allow\nask_fallback: block\nrules:\n"+
		"  - id: ask-api\n    tool: WebFetch\n    host: [\"api.test\"]\n    action: ask\n    reason: the test asks\n")
	shapes := map[string]string{}
	for _, server := range []string{"", "srv-a", "srv-b"} {
		per := &hostilePerson{answer: ask.Deny}
		s, err := OpenSession(SessionConfig{
			Options: Options{Argv: []string{"/bin/true"}, Dir: t.TempDir(), Policy: p},
			ID:      "sess-" + server, Ask: per, Server: server,
		})
		if err != nil {
			t.Fatal(err)
		}
		egressRaw(t, s.egress.Addr(), "CONNECT api.test:443 HTTP/1.1\r\nHost: api.test:443\r\n\r\n")
		_ = s.Close()
		if len(per.asked) != 1 || per.asked[0].Server != server || per.asked[0].Shape == "" {
			t.Fatalf("server %q: asked %+v", server, per.asked)
		}
		for other, shape := range shapes {
			if shape == per.asked[0].Shape {
				t.Errorf("servers %q and %q share the shape of a remembered answer", other, server)
			}
		}
		shapes[server] = per.asked[0].Shape
	}
}

// TestSessionAskMasksSecrets: a destination the server chose can carry a
// secret in a name label; the question (a desktop dialog's text is its
// argv, which every local user can read) masks it as the gate's
// questions and the log do, and so is the server's name.
func TestSessionAskMasksSecrets(t *testing.T) {
	p := hostilePolicy(t, "mode: enforce\ndefault: ask\nask_fallback: block\nrules: []\n")
	token := "ghp_" + strings.Repeat("aB3dE5gH7j", 3) + "K9mN0p"
	per := &hostilePerson{answer: ask.Deny}
	s, err := OpenSession(SessionConfig{
		Options: Options{Argv: []string{"/bin/true"}, Dir: t.TempDir(), Policy: p},
		ID:      "sess-mask", Ask: per, Server: "srv-" + token,
	})
	if err != nil {
		t.Fatal(err)
	}
	host := token + ".evil.test"
	egressRaw(t, s.egress.Addr(), "CONNECT "+host+":443 HTTP/1.1\r\nHost: "+host+":443\r\n\r\n")
	_ = s.Close()
	if len(per.asked) != 1 {
		t.Fatalf("asked %+v, want one question", per.asked)
	}
	q := per.asked[0]
	for field, v := range map[string]string{"target": q.Target, "server": q.Server, "reason": q.Reason} {
		if strings.Contains(strings.ToLower(v), strings.ToLower(token)) {
			t.Errorf("the question's %s shows the secret: %q", field, v)
		}
	}
}
