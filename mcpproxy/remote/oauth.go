package remote

import (
	"context"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/agentairlock/airlock/internal/atomicfile"
	"github.com/mark3labs/mcp-go/client/transport"
)

// OAuth for remote servers. Airlock is the OAuth client itself: a token is
// asked for the server's own URL (RFC 8707's resource, found through the
// server's protected-resource metadata), so a localhost proxy that
// forwarded the agent's tokens could never work. mcp-go's OAuthHandler
// does discovery, dynamic registration, PKCE, the code exchange and
// refresh; what it lacks is ours: a store on disk that also keeps the
// registered client and can be deleted, and the loopback redirect
// listener of `airlock mcp login`.

// Login is one server's OAuth state in the home: the client registered
// for it and its tokens. The file is 0600 in a 0700 directory, one per
// server; it is never copied into an agent's config or a record.
type Login struct {
	URL                 string           `json:"url"`
	ClientID            string           `json:"client_id"`
	ClientSecret        string           `json:"client_secret,omitempty"`
	AuthMethod          string           `json:"token_endpoint_auth_method,omitempty"`
	RedirectURI         string           `json:"redirect_uri,omitempty"`
	ResourceMetadataURL string           `json:"resource_metadata_url,omitempty"`
	Scopes              []string         `json:"scopes,omitempty"`
	Token               *transport.Token `json:"token,omitempty"`
}

// Store is where a server's Login lives: $AIRLOCK_HOME/mcp-remote/NAME.
type Store struct {
	Home string
	Name string
}

// Dir is the server's directory in the home.
func (s Store) Dir() string {
	return filepath.Join(s.Home, "mcp-remote", safeName(s.Name))
}

// Path is the login file.
func (s Store) Path() string { return filepath.Join(s.Dir(), "oauth.json") }

// safeName maps a server name to one path element: the name itself when
// it is plain, else its hex. A name that starts as the hex form does
// ("x-…") is not plain, so no name can take another's directory.
func safeName(n string) string {
	plain := n != "" && n != "." && n != ".." && len(n) <= 100 && !strings.HasPrefix(strings.ToLower(n), "x-")
	for _, r := range n {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.') {
			plain = false
			break
		}
	}
	if plain {
		return n
	}
	return "x-" + hex.EncodeToString([]byte(n))
}

// Load reads the login; fs.ErrNotExist when there is none.
func (s Store) Load() (*Login, error) {
	f, err := os.Open(s.Path())
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if fi.Mode().Perm()&0o077 != 0 {
		return nil, fmt.Errorf("%s is readable by others (mode %o); run airlock mcp logout %s and log in again", s.Path(), fi.Mode().Perm(), s.Name)
	}
	b, err := io.ReadAll(io.LimitReader(f, 1<<20))
	if err != nil {
		return nil, err
	}
	var l Login
	if err := json.Unmarshal(b, &l); err != nil {
		return nil, fmt.Errorf("%s: %w", s.Path(), err)
	}
	return &l, nil
}

// Save writes the login, 0600.
func (s Store) Save(l *Login) error {
	if err := os.MkdirAll(s.Dir(), 0o700); err != nil {
		return err
	}
	b, err := json.MarshalIndent(l, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.WriteState(s.Path(), append(b, '\n'), 0o600)
}

// Delete removes the login; none is not an error.
func (s Store) Delete() error {
	err := os.Remove(s.Path())
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return err
}

// tokenStore is mcp-go's TokenStore over the file. stale makes the token
// read as expired (after a 401) so the handler refreshes it.
type tokenStore struct {
	s     Store
	mu    sync.Mutex
	login *Login
	stale bool
}

func (t *tokenStore) GetToken(ctx context.Context) (*transport.Token, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.login == nil || t.login.Token == nil {
		return nil, transport.ErrNoToken
	}
	tok := *t.login.Token
	if t.stale {
		tok.ExpiresAt = time.Unix(1, 0)
	}
	return &tok, nil
}

func (t *tokenStore) SaveToken(ctx context.Context, tok *transport.Token) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.login == nil {
		t.login = &Login{}
	}
	c := *tok
	if c.RefreshToken == "" && t.login.Token != nil {
		c.RefreshToken = t.login.Token.RefreshToken // a refresh may not rotate it
	}
	t.login.Token = &c
	t.stale = false
	return t.s.Save(t.login)
}

// authorizer is the bridge's Authorizer from a stored login.
type authorizer struct {
	h     *transport.OAuthHandler
	store *tokenStore
}

// NewAuthorizer returns the Authorizer for a server's stored login, or
// nil when there is none (the server is then sent no token, and a 401 is
// answered with the message naming `airlock mcp login`).
func NewAuthorizer(s Store, serverURL string, client *http.Client) (Authorizer, error) {
	l, err := s.Load()
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if l.URL != "" && l.URL != serverURL {
		return nil, fmt.Errorf("the login stored for %q is for %s, not %s; run airlock mcp login %s again", s.Name, l.URL, serverURL, s.Name)
	}
	ts := &tokenStore{s: s, login: l}
	h := newHandler(l, ts, client, serverURL)
	return &authorizer{h: h, store: ts}, nil
}

func newHandler(l *Login, ts transport.TokenStore, client *http.Client, serverURL string) *transport.OAuthHandler {
	if client == nil {
		client = &http.Client{Timeout: 30 * time.Second}
	} else if client.Timeout == 0 {
		// the bridge's client has no timeout (streams are long); the
		// authorization server's answers are short
		c := *client
		c.Timeout = 30 * time.Second
		client = &c
	}
	h := transport.NewOAuthHandler(transport.OAuthConfig{
		ClientID:                l.ClientID,
		ClientSecret:            l.ClientSecret,
		TokenEndpointAuthMethod: l.AuthMethod,
		RedirectURI:             l.RedirectURI,
		Scopes:                  l.Scopes,
		TokenStore:              ts,
		PKCEEnabled:             true,
		HTTPClient:              client,
	})
	h.SetBaseURL(baseURL(serverURL))
	if l.ResourceMetadataURL != "" {
		h.SetProtectedResourceMetadataURL(l.ResourceMetadataURL)
	}
	return h
}

// baseURL is the server's URL without query or fragment: the resource a
// token is asked for.
func baseURL(s string) string {
	u, err := url.Parse(s)
	if err != nil {
		return s
	}
	u.RawQuery, u.Fragment = "", ""
	return u.String()
}

func (a *authorizer) Header(ctx context.Context) (string, error) {
	h, err := a.h.GetAuthorizationHeader(ctx)
	if errors.Is(err, transport.ErrOAuthAuthorizationRequired) {
		return "", fmt.Errorf("%w: no valid token, and it could not be refreshed", ErrLoginNeeded)
	}
	return h, err
}

func (a *authorizer) Unauthorized(resp *http.Response) {
	a.store.mu.Lock()
	a.store.stale = true
	a.store.mu.Unlock()
}

// LoginOptions configure `airlock mcp login`.
type LoginOptions struct {
	Store  Store
	URL    string
	Scopes []string
	HTTP   *http.Client
	Out    io.Writer          // where the URL to open is printed
	Open   func(string) error // opens a browser; nil prints only
	Wait   time.Duration      // how long to wait for the browser (default 5 min)
	// Listen is the loopback address of the redirect (default
	// 127.0.0.1:0, a free port).
	Listen string
}

// RunLogin runs the browser flow once: it discovers the authorization
// server from the server's protected-resource metadata, registers a
// client (dynamic registration), prints the authorization URL (PKCE, the
// resource indicator), waits on a loopback redirect for the code, and
// stores the tokens.
func RunLogin(ctx context.Context, o LoginOptions) error {
	if o.Wait <= 0 {
		o.Wait = 5 * time.Minute
	}
	if o.Listen == "" {
		o.Listen = "127.0.0.1:0"
	}
	client := o.HTTP
	if client == nil {
		client = &http.Client{Timeout: 30 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	}
	ln, err := net.Listen("tcp", o.Listen)
	if err != nil {
		return fmt.Errorf("listen for the redirect: %w", err)
	}
	defer ln.Close()
	redirect := "http://" + ln.Addr().String() + "/callback"
	l := &Login{URL: o.URL, RedirectURI: redirect}
	if len(o.Scopes) > 0 {
		l.Scopes = o.Scopes
	}
	ts := &tokenStore{s: o.Store, login: l}
	h := newHandler(l, ts, client, o.URL)
	// the server's 401 names its metadata (RFC 9728); without one the
	// well-known address is tried
	if challenge := probeResourceMetadata(ctx, client, o.URL); challenge != "" {
		h.HandleUnauthorizedResponse(prm401(challenge))
		if u := resourceMetadataURL(challenge); u != "" && sameOrigin(u, o.URL) {
			l.ResourceMetadataURL = u
		}
	}
	if err := h.RegisterClient(ctx, "Airlock"); err != nil {
		return fmt.Errorf("register a client with the authorization server: %w", err)
	}
	l.ClientID, l.ClientSecret, l.AuthMethod = h.GetClientID(), h.GetClientSecret(), h.GetTokenEndpointAuthMethod()
	verifier, err := transport.GenerateCodeVerifier()
	if err != nil {
		return err
	}
	state, err := transport.GenerateState()
	if err != nil {
		return err
	}
	authURL, err := h.GetAuthorizationURL(ctx, state, transport.GenerateCodeChallenge(verifier))
	if err != nil {
		return err
	}
	type result struct{ code, state, err string }
	got := make(chan result, 1)
	srv := &http.Server{ReadHeaderTimeout: 10 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/callback" {
			http.NotFound(w, r)
			return
		}
		q := r.URL.Query()
		res := result{code: q.Get("code"), state: q.Get("state"), err: q.Get("error")}
		// any local process can connect to a loopback port: a callback
		// without this flow's state (a refusal or a code alike) is not
		// the browser's, and must not end the login
		if subtle.ConstantTimeCompare([]byte(res.state), []byte(state)) != 1 {
			http.Error(w, "Airlock: this is not the login's redirect.", http.StatusBadRequest)
			return
		}
		if res.err != "" {
			fmt.Fprintf(w, "Airlock: the login was refused (%s). You can close this tab.\n", res.err)
		} else {
			fmt.Fprintln(w, "Airlock: logged in. You can close this tab.")
		}
		select {
		case got <- res:
		default:
		}
	})}
	go func() { _ = srv.Serve(ln) }()
	defer srv.Close()
	fmt.Fprintf(o.Out, "Open this address to log in to %s (the server at %s):\n\n  %s\n\nWaiting for the browser on %s …\n", o.Store.Name, shownURL(o.URL), authURL, redirect)
	if o.Open != nil {
		_ = o.Open(authURL)
	}
	var res result
	select {
	case res = <-got:
	case <-time.After(o.Wait):
		return fmt.Errorf("no answer from the browser within %s", o.Wait)
	case <-ctx.Done():
		return ctx.Err()
	}
	if res.err != "" {
		return fmt.Errorf("the authorization server refused: %s", res.err)
	}
	if err := h.ProcessAuthorizationResponse(ctx, res.code, res.state, verifier); err != nil {
		return fmt.Errorf("exchange the code for a token: %w", err)
	}
	o.Store.clearLoginNeeded()
	return nil
}

// probeResourceMetadata asks the server unauthenticated and returns the
// resource_metadata URL its 401 names, or "".
func probeResourceMetadata(ctx context.Context, client *http.Client, serverURL string) string {
	ctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, serverURL, strings.NewReader(`{"jsonrpc":"2.0","id":"airlock-probe","method":"ping"}`))
	if err != nil {
		return ""
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := client.Do(req)
	if err != nil {
		return ""
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		return ""
	}
	return resp.Header.Get("WWW-Authenticate")
}

// prm401 is a stand-in 401 carrying the challenge, for mcp-go's parser
// (which checks the metadata URL's origin against the server's).
func prm401(challenge string) *http.Response {
	h := http.Header{}
	h.Set("WWW-Authenticate", challenge)
	return &http.Response{StatusCode: http.StatusUnauthorized, Header: h}
}

// resourceMetadataURL is the resource_metadata parameter of a
// WWW-Authenticate challenge, or "".
func resourceMetadataURL(challenge string) string {
	i := strings.Index(strings.ToLower(challenge), "resource_metadata=")
	if i < 0 {
		return ""
	}
	v := challenge[i+len("resource_metadata="):]
	if strings.HasPrefix(v, `"`) {
		v = v[1:]
		if j := strings.IndexByte(v, '"'); j >= 0 {
			return v[:j]
		}
		return ""
	}
	if j := strings.IndexAny(v, ", "); j >= 0 {
		v = v[:j]
	}
	return v
}

// shownURL is a server's URL for a person: without credentials or query
// (where some servers take a key).
func shownURL(s string) string {
	u, err := url.Parse(s)
	if err != nil {
		return "(an unreadable URL)"
	}
	q := u.RawQuery != ""
	u.User, u.RawQuery, u.Fragment = nil, "", ""
	if q {
		return u.String() + "?…"
	}
	return u.String()
}

func sameOrigin(a, b string) bool {
	ua, err1 := url.Parse(a)
	ub, err2 := url.Parse(b)
	return err1 == nil && err2 == nil && ua.Scheme == ub.Scheme && strings.EqualFold(ua.Host, ub.Host)
}

// Server is what the home remembers of a remote server besides its
// login: where it is, so `airlock mcp login NAME` needs no URL.
type Server struct {
	URL       string `json:"url"`
	Transport string `json:"transport,omitempty"`
}

func (s Store) serverPath() string { return filepath.Join(s.Dir(), "server.json") }

// SaveServer notes the server's address (not a secret: 0600 all the
// same, beside the login).
func (s Store) SaveServer(v Server) error {
	if old, err := s.LoadServer(); err == nil && old == v {
		return nil
	}
	if err := os.MkdirAll(s.Dir(), 0o700); err != nil {
		return err
	}
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return atomicfile.WriteState(s.serverPath(), append(b, '\n'), 0o600)
}

// LoadServer reads the noted address; fs.ErrNotExist when there is none.
func (s Store) LoadServer() (Server, error) {
	var v Server
	b, err := os.ReadFile(s.serverPath())
	if err != nil {
		return v, err
	}
	err = json.Unmarshal(b, &v)
	return v, err
}

// LoggedIn reports whether the home holds a token for the server.
func (s Store) LoggedIn() bool {
	l, err := s.Load()
	return err == nil && l.Token != nil && (l.Token.AccessToken != "" || l.Token.RefreshToken != "")
}

func (s Store) loginMark() string { return filepath.Join(s.Dir(), "needs-login") }

// MarkLoginNeeded notes that the server asked for a token the home does
// not hold (for airlock doctor); RunLogin clears it.
func (s Store) MarkLoginNeeded() error {
	if s.NeedsLogin() {
		return nil
	}
	if err := os.MkdirAll(s.Dir(), 0o700); err != nil {
		return err
	}
	return atomicfile.WriteState(s.loginMark(), []byte(time.Now().UTC().Format(time.RFC3339)+"\n"), 0o600)
}

// NeedsLogin reports whether the bridge noted a login is needed.
func (s Store) NeedsLogin() bool {
	_, err := os.Lstat(s.loginMark())
	return err == nil
}

func (s Store) clearLoginNeeded() {
	_ = os.Remove(s.loginMark())
}
