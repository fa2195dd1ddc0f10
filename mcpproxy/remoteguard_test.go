package mcpproxy

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/agentairlock/airlock/policy"
)

// TestRemoteGuardJudgesResolvedAddresses: --url's name was judged before
// the bridge started; the address a connection dials (after DNS, on every
// connection: a rebinding name changes between them) is judged again, and
// a metadata address or a forbidden collector behind an innocent name is
// refused, while the addresses of a name the policy allowed are not
// refused by the catch-all rules that already ran on the name.
func TestRemoteGuardJudgesResolvedAddresses(t *testing.T) {
	root := t.TempDir()
	pol, err := policy.LoadProfile("default", policy.Vars{Workspace: root, Home: root, Tmp: root, User: "dev", AirlockHome: root})
	if err != nil {
		t.Fatal(err)
	}
	g := remoteGuard(pol, "https")
	for _, bad := range []string{"169.254.169.254", "fd00:ec2::254", "webhook.site"} {
		if err := g(bad, 443); err == nil || !strings.Contains(err.Error(), "refused by the policy") {
			t.Errorf("%s: %v", bad, err)
		}
	}
	for _, ok := range []string{"127.0.0.1", "::1", "140.82.112.3", "10.1.2.3"} {
		if err := g(ok, 443); err != nil {
			t.Errorf("%s: %v", ok, err)
		}
	}
	if remoteGuard(nil, "https") != nil {
		t.Error("no policy, no guard")
	}
}

// TestRemoteQueryFromEnv: airlock init moves a URL's query (where servers
// take keys) off the bridge's command line into AIRLOCK_MCP_URL_QUERY;
// the bridge dials with it, and the key is in no record.
func TestRemoteQueryFromEnv(t *testing.T) {
	home := remoteHome(t)
	var mu sync.Mutex
	var queries []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		queries = append(queries, r.URL.RawQuery)
		mu.Unlock()
		if r.Method != http.MethodPost {
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		b, _ := io.ReadAll(r.Body)
		m := gjson.ParseBytes(b)
		if !m.Get("id").Exists() {
			w.WriteHeader(http.StatusAccepted)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2025-06-18","capabilities":{},"serverInfo":{"name":"q","version":"1"}}}`, m.Get("id").Raw)
	}))
	defer srv.Close()
	t.Setenv("AIRLOCK_MCP_URL_QUERY", "apiKey=sk-live-envq77&x=1")
	c := startBridge(t, []string{"--name", "q", "--url", srv.URL + "/mcp"})
	c.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	if m := c.next("1"); !m.Get("result").IsObject() {
		t.Fatalf("initialize: %s", m.Raw)
	}
	c.in.Close()
	<-c.code
	mu.Lock()
	if len(queries) == 0 || queries[0] != "apiKey=sk-live-envq77&x=1" {
		t.Errorf("the server saw the queries %q", queries)
	}
	mu.Unlock()
	b, _ := os.ReadFile(filepath.Join(home, "audit.jsonl"))
	if len(b) == 0 || strings.Contains(string(b), "sk-live-envq77") {
		t.Errorf("the audit log:\n%s", b)
	}
	if _, err := urlWithEnvQuery("https://x/mcp?a=1", "b=2"); err == nil {
		t.Error("two queries were merged")
	}
}

// TestRemoteDestinationSpellings: the metadata address in the spellings
// attackers write is refused before anything is dialled, as its plain
// form is.
func TestRemoteDestinationSpellings(t *testing.T) {
	remoteHome(t)
	for _, u := range []string{"http://0xa9fea9fe/mcp", "http://2852039166/mcp", "http://[::ffff:a9fe:a9fe]/mcp", "http://169.254.169.254.nip.io/mcp", "http://0251.0376.0251.0376/mcp", "HTTP://169.254.169.254:80/mcp", "http://[fd00:ec2::254]/mcp"} {
		var out, errb strings.Builder
		code := Main([]string{"--name", "evil", "--url", u}, strings.NewReader(""), &out, &errb)
		if code != exitConfig || !strings.Contains(errb.String(), "refused by the policy") {
			t.Errorf("%s: exit %d, %s", u, code, errb.String())
		}
	}
}
