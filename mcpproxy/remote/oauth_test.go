package remote

import (
	"bufio"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/tidwall/gjson"
)

// authServer is a small OAuth authorization server (metadata, dynamic
// registration, PKCE, refresh) in front of mcp-go's streamable HTTP
// server, which accepts only tokens minted for its own URL (RFC 8707).
type authServer struct {
	t        *testing.T
	as, rs   *httptest.Server
	resource string // the MCP endpoint: the resource tokens must name

	mu       sync.Mutex
	clients  map[string]string // client_id → redirect_uri
	codes    map[string]codeGrant
	tokens   map[string]string // access token → its resource
	refresh  map[string]string // refresh token → resource
	ttl      time.Duration
	refreshN int
	sawAuth  []string // Authorization headers the resource server got
}

type codeGrant struct {
	client, redirect, challenge, resource string
}

func token() string {
	b := make([]byte, 12)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

func newAuthServer(t *testing.T) *authServer {
	a := &authServer{t: t, clients: map[string]string{}, codes: map[string]codeGrant{}, tokens: map[string]string{}, refresh: map[string]string{}, ttl: time.Hour}
	mux := http.NewServeMux()
	a.as = httptest.NewServer(mux)
	t.Cleanup(a.as.Close)
	mux.HandleFunc("/.well-known/oauth-authorization-server", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, map[string]any{
			"issuer":                                a.as.URL,
			"authorization_endpoint":                a.as.URL + "/authorize",
			"token_endpoint":                        a.as.URL + "/token",
			"registration_endpoint":                 a.as.URL + "/register",
			"response_types_supported":              []string{"code"},
			"grant_types_supported":                 []string{"authorization_code", "refresh_token"},
			"code_challenge_methods_supported":      []string{"S256"},
			"token_endpoint_auth_methods_supported": []string{"none"},
		})
	})
	mux.HandleFunc("/register", func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			RedirectURIs []string `json:"redirect_uris"`
		}
		if json.NewDecoder(r.Body).Decode(&req) != nil || len(req.RedirectURIs) != 1 || !strings.HasPrefix(req.RedirectURIs[0], "http://127.0.0.1:") {
			http.Error(w, "bad registration", 400)
			return
		}
		id := "client-" + token()
		a.mu.Lock()
		a.clients[id] = req.RedirectURIs[0]
		a.mu.Unlock()
		w.WriteHeader(201)
		writeJSON(w, map[string]any{"client_id": id, "redirect_uris": req.RedirectURIs, "token_endpoint_auth_method": "none"})
	})
	mux.HandleFunc("/authorize", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		a.mu.Lock()
		redirect, ok := a.clients[q.Get("client_id")]
		a.mu.Unlock()
		if !ok || redirect != q.Get("redirect_uri") || q.Get("code_challenge_method") != "S256" || q.Get("code_challenge") == "" || q.Get("resource") == "" {
			http.Error(w, "bad authorization request: "+r.URL.RawQuery, 400)
			return
		}
		code := token()
		a.mu.Lock()
		a.codes[code] = codeGrant{client: q.Get("client_id"), redirect: redirect, challenge: q.Get("code_challenge"), resource: q.Get("resource")}
		a.mu.Unlock()
		http.Redirect(w, r, redirect+"?code="+code+"&state="+url.QueryEscape(q.Get("state")), http.StatusFound)
	})
	mux.HandleFunc("/token", func(w http.ResponseWriter, r *http.Request) {
		_ = r.ParseForm()
		a.mu.Lock()
		defer a.mu.Unlock()
		var resource string
		switch r.Form.Get("grant_type") {
		case "authorization_code":
			g, ok := a.codes[r.Form.Get("code")]
			delete(a.codes, r.Form.Get("code"))
			sum := sha256.Sum256([]byte(r.Form.Get("code_verifier")))
			if !ok || base64.RawURLEncoding.EncodeToString(sum[:]) != g.challenge || r.Form.Get("redirect_uri") != g.redirect || r.Form.Get("resource") != g.resource {
				w.WriteHeader(400)
				writeJSON(w, map[string]string{"error": "invalid_grant"})
				return
			}
			resource = g.resource
		case "refresh_token":
			res, ok := a.refresh[r.Form.Get("refresh_token")]
			delete(a.refresh, r.Form.Get("refresh_token"))
			if !ok {
				w.WriteHeader(400)
				writeJSON(w, map[string]string{"error": "invalid_grant"})
				return
			}
			a.refreshN++
			resource = res
		default:
			w.WriteHeader(400)
			writeJSON(w, map[string]string{"error": "unsupported_grant_type"})
			return
		}
		at, rt := "at-"+token(), "rt-"+token()
		a.tokens[at] = resource
		a.refresh[rt] = resource
		writeJSON(w, map[string]any{"access_token": at, "token_type": "Bearer", "refresh_token": rt, "expires_in": int(a.ttl / time.Second)})
	})

	s := server.NewMCPServer("protected", "1")
	s.AddTool(mcp.NewTool("whoami"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("you are logged in"), nil
	})
	mcpH := server.NewStreamableHTTPServer(s)
	rmux := http.NewServeMux()
	a.rs = httptest.NewServer(rmux)
	t.Cleanup(a.rs.Close)
	a.resource = a.rs.URL + "/mcp"
	prm := func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, map[string]any{"resource": a.resource, "authorization_servers": []string{a.as.URL}})
	}
	rmux.HandleFunc("/.well-known/oauth-protected-resource/mcp", prm)
	rmux.HandleFunc("/.well-known/oauth-protected-resource", prm)
	rmux.HandleFunc("/mcp", func(w http.ResponseWriter, r *http.Request) {
		h := r.Header.Get("Authorization")
		a.mu.Lock()
		a.sawAuth = append(a.sawAuth, h)
		res, ok := a.tokens[strings.TrimPrefix(h, "Bearer ")]
		a.mu.Unlock()
		if !ok || res != a.resource {
			// a token for another resource is no token here
			w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="`+a.rs.URL+`/.well-known/oauth-protected-resource/mcp"`)
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		mcpH.ServeHTTP(w, r)
	})
	return a
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}

// browse plays the browser: it follows the authorization URL to the
// loopback redirect.
func browse(u string) error {
	go func() {
		resp, err := http.Get(u)
		if err == nil {
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
	}()
	return nil
}

// bridge is a Conn driven by hand over its pipes.
type bridge struct {
	t   *testing.T
	c   *Conn
	out *bufio.Reader
	rec *[]string
}

func newBridge(t *testing.T, o Options) *bridge {
	t.Helper()
	var mu sync.Mutex
	var recs []string
	o.Record = func(e, d string) { mu.Lock(); recs = append(recs, e+": "+d); mu.Unlock() }
	c, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	c.Start()
	t.Cleanup(c.Close)
	return &bridge{t: t, c: c, out: bufio.NewReader(c.FromServer()), rec: &recs}
}

func (b *bridge) call(msg string) gjson.Result {
	b.t.Helper()
	if _, err := io.WriteString(b.c.ToServer(), msg+"\n"); err != nil {
		b.t.Fatal(err)
	}
	want := gjson.Get(msg, "id").Raw
	for {
		line, err := b.out.ReadString('\n')
		if err != nil {
			b.t.Fatalf("no answer to %s: %v", msg, err)
		}
		if m := gjson.Parse(line); m.Get("id").Raw == want {
			return m
		}
	}
}

const initMsg = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`

func TestOAuthLoginCallsRefresh(t *testing.T) {
	a := newAuthServer(t)
	st := Store{Home: t.TempDir(), Name: "protected"}

	// before a login: the model is told what to run
	b := newBridge(t, Options{Name: "protected", URL: a.resource})
	if m := b.call(initMsg); !strings.Contains(m.Get("error.message").String(), "airlock mcp login protected") {
		t.Fatalf("no login yet: %s", m.Raw)
	}

	if err := RunLogin(context.Background(), LoginOptions{Store: st, URL: a.resource, Out: io.Discard, Open: browse, Wait: 10 * time.Second}); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(st.Path())
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("the login file: %v %v", fi, err)
	}
	l, err := st.Load()
	if err != nil || l.Token == nil || l.ClientID == "" || l.Token.RefreshToken == "" {
		t.Fatalf("stored login: %+v %v", l, err)
	}

	auth, err := NewAuthorizer(st, a.resource, nil)
	if err != nil || auth == nil {
		t.Fatalf("authorizer: %v", err)
	}
	b = newBridge(t, Options{Name: "protected", URL: a.resource, Auth: auth})
	if m := b.call(initMsg); !m.Get("result").IsObject() {
		t.Fatalf("initialize with the token: %s", m.Raw)
	}
	_, _ = io.WriteString(b.c.ToServer(), `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n")
	if m := b.call(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"whoami","arguments":{}}}`); m.Get("result.content.0.text").String() != "you are logged in" {
		t.Fatalf("a call with the token: %s", m.Raw)
	}

	// the server forgets the access token: a 401, one refresh, the call
	// goes through, and the new token is stored
	a.mu.Lock()
	for k := range a.tokens {
		delete(a.tokens, k)
	}
	a.mu.Unlock()
	if m := b.call(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"whoami","arguments":{}}}`); m.Get("result.content.0.text").String() != "you are logged in" {
		t.Fatalf("a call after the token was revoked: %s", m.Raw)
	}
	a.mu.Lock()
	n := a.refreshN
	a.mu.Unlock()
	l2, _ := st.Load()
	if n != 1 || l2.Token.AccessToken == l.Token.AccessToken {
		t.Fatalf("refreshes %d; stored token changed: %v", n, l2.Token.AccessToken != l.Token.AccessToken)
	}
	for _, r := range *b.rec {
		if strings.Contains(r, l2.Token.AccessToken) || strings.Contains(r, l2.Token.RefreshToken) {
			t.Errorf("a record holds the token: %s", r)
		}
	}

	if err := st.Delete(); err != nil || st.LoggedIn() {
		t.Fatalf("logout: %v", err)
	}
}

// A token minted for another resource is refused by the server, and the
// bridge tells the model to log in rather than sending it on and on.
func TestOAuthTokenForAnotherResourceRefused(t *testing.T) {
	a := newAuthServer(t)
	st := Store{Home: t.TempDir(), Name: "protected"}
	a.mu.Lock()
	a.tokens["at-other"] = "https://other.example/mcp"
	a.mu.Unlock()
	if err := st.Save(&Login{URL: a.resource, ClientID: "x", Token: &transport.Token{AccessToken: "at-other", TokenType: "Bearer"}}); err != nil {
		t.Fatal(err)
	}
	auth, err := NewAuthorizer(st, a.resource, nil)
	if err != nil {
		t.Fatal(err)
	}
	b := newBridge(t, Options{Name: "protected", URL: a.resource, Auth: auth})
	m := b.call(initMsg)
	if !strings.Contains(m.Get("error.message").String(), "airlock mcp login protected") {
		t.Fatalf("a token for another resource: %s", m.Raw)
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if len(a.sawAuth) != 1 {
		t.Errorf("the refused token was sent %d times", len(a.sawAuth))
	}
}

// The login is the server's own: a file for another URL is not used.
func TestOAuthLoginBoundToItsURL(t *testing.T) {
	st := Store{Home: t.TempDir(), Name: "s"}
	if err := st.Save(&Login{URL: "https://a.example/mcp", Token: &transport.Token{AccessToken: "x"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := NewAuthorizer(st, "https://b.example/mcp", nil); err == nil || !strings.Contains(err.Error(), "airlock mcp login s") {
		t.Fatalf("a login for another URL: %v", err)
	}
	if err := os.Chmod(st.Path(), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Load(); err == nil {
		t.Fatal("a login file others can read was used")
	}
}

// Another local process (any user can connect to a loopback port) races
// the browser to the redirect: a callback without the flow's state, an
// error or a forged code, is ignored, and the browser's own still logs in.
func TestOAuthLoginIgnoresForgedCallbacks(t *testing.T) {
	a := newAuthServer(t)
	st := Store{Home: t.TempDir(), Name: "protected"}
	racer := func(u string) error {
		au, err := url.Parse(u)
		if err != nil {
			return err
		}
		redirect := au.Query().Get("redirect_uri")
		for _, q := range []string{"?error=access_denied", "?error=access_denied&state=guess", "?code=forged&state=guess", "?code=forged"} {
			resp, err := http.Get(redirect + q)
			if err != nil {
				return err
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
		return browse(u)
	}
	if err := RunLogin(context.Background(), LoginOptions{Store: st, URL: a.resource, Out: io.Discard, Open: racer, Wait: 10 * time.Second}); err != nil {
		t.Fatalf("a forged callback ended the login: %v", err)
	}
	if l, err := st.Load(); err != nil || l.Token == nil || l.Token.AccessToken == "" {
		t.Fatalf("stored login: %+v %v", l, err)
	}
}

// Two names never share a server's directory (its login, its noted URL):
// a plain name spelled like another's hex form (a project's config names
// its server "x-6d79206c696e656172" beside the user's "my linear") gets a
// directory of its own.
func TestStoreNamesDoNotCollide(t *testing.T) {
	names := []string{"my linear", "x-" + hex.EncodeToString([]byte("my linear")), "linear", "x-linear", "X-6d79206c696e656172", ".", "..", ""}
	seen := map[string]string{}
	for _, n := range names {
		d := Store{Home: "/h", Name: n}.Dir()
		if other, ok := seen[d]; ok {
			t.Errorf("%q and %q share %s", n, other, d)
		}
		seen[d] = n
	}
}

// The login names the server it logs in to: the URL noted for a name is
// the one its bridge last ran with, and a project's config can reuse a
// name with an address of its own; the person at the browser sees which.
func TestOAuthLoginNamesTheServer(t *testing.T) {
	a := newAuthServer(t)
	st := Store{Home: t.TempDir(), Name: "protected"}
	var out strings.Builder
	if err := RunLogin(context.Background(), LoginOptions{Store: st, URL: a.resource + "?key=sk-live-l0g1n", Out: &out, Open: browse, Wait: 10 * time.Second}); err != nil {
		t.Logf("login: %v", err) // the test server may not take a query; the prompt is what is checked
	}
	if !strings.Contains(out.String(), a.resource+"?…") || strings.Contains(out.String(), "sk-live-l0g1n") {
		t.Fatalf("the prompt does not name the server (without its query):\n%s", out.String())
	}
}
