package setup

import (
	"net/url"
	"strconv"
	"strings"
)

// Remote servers (url, httpUrl, serverUrl; type http or sse) are wrapped
// by rewriting their entry into a stdio one that runs the bridge,
// airlock-mcp --name NAME --url URL [--transport sse]: the agent starts it
// as any local server and Airlock gates every call. The entry's headers
// move into its env as AIRLOCK_MCP_HEADER_n ("Name: value", the agent's
// ${…} references left for the agent to expand), never onto the command
// line, where any local user can read them. The original entry's bytes
// are kept in the manifest (like the backup, in the Airlock home), so
// uninstall puts back the entry as written even in a file edited since.

// remoteStores are the agents whose remote entries init rewrites: JSON
// files of the mcpServers (or VS Code servers) dialect, and Codex's TOML
// (wrap_remote_toml.go), whose agent starts a stdio entry's command with
// its env. Claude Code's own
// ~/.claude.json is never edited (airlock-hook sees its servers' calls).
var remoteStores = map[string]bool{
	"Claude Code": true, "Claude Desktop": true, "Cursor": true, "VS Code": true, "Windsurf": true, "Gemini CLI": true,
	"Codex CLI": true,
}

// remoteWhyNot says why a remote server of st is not wrapped, or "" when
// init wraps it.
func remoteWhyNot(st Store, s server) string {
	switch {
	case st.ID == "claude-code.user-mcp":
		return "Claude Code's own servers are gated by airlock-hook"
	case st.Scope == scopeSystem:
		return "managed by an administrator"
	case !remoteStores[st.Agent] || (st.Agent == "Codex CLI") != (st.Format == formatTOML):
		return "airlock init does not rewrite " + st.Agent + "'s remote entries yet; put airlock-mcp --name " + s.Name + " --url " + ShownURL(s.URL) + " in its place by hand"
	case urlHasUserinfo(s.URL):
		return "the URL holds a user name or password, which would be on airlock-mcp's command line, where any local user can read it: give them as an Authorization header and run airlock init again"
	case s.Command != "":
		return "the entry has both a command and a URL, and " + st.Agent + " connects to the URL: keep one of them and run airlock init again"
	case strings.Contains(strings.ToLower(s.Transport), "websocket") || s.Transport == "ws":
		return "a WebSocket server: airlock-mcp bridges streamable HTTP and SSE only"
	case s.Project != "":
		return "a per-project entry of ~/.claude.json"
	}
	return ""
}

// remoteFields are the entry members the rewrite replaces; the others
// (timeout, disabled, trust …) stay as written.
var remoteFields = map[string]bool{"url": true, "httpUrl": true, "serverUrl": true, "type": true, "transport": true, "headers": true}

// wrapRemote rewrites remote server s into a stdio entry running the
// bridge at mcp.
func wrapRemote(st Store, data []byte, cfg *Config, s *server, mcp string) ([]byte, wrapRecord, error) {
	if st.Format == formatTOML {
		return wrapRemoteTOML(st, data, cfg, s, mcp)
	}
	return wrapRemoteJSON(st, data, cfg, s, mcp)
}

// unwrapRemote undoes wrapRemote while the server is still its bridge.
func unwrapRemote(st Store, data []byte, cfg *Config, rec wrapRecord) ([]byte, bool, error) {
	if st.Format == formatTOML {
		return unwrapRemoteTOML(st, data, cfg, rec)
	}
	return unwrapRemoteJSON(st, data, cfg, rec)
}

// wrapRemoteJSON is wrapRemote for a JSON store.
func wrapRemoteJSON(st Store, data []byte, cfg *Config, s *server, mcp string) ([]byte, wrapRecord, error) {
	rec := wrapRecord{Name: s.Name}
	obj, err := jsonEntry(st, data, s.Name)
	if err != nil {
		return nil, rec, err
	}
	var keep []string
	var env []string
	hadType := false
	for _, m := range jmembers(obj) {
		switch m.key {
		case "command", "args", "env", "envFile", "cwd":
			return nil, rec, refuse("server %q has both a URL and %q: not rewritten", s.Name, m.key)
		case "oauth", "authProviderType", "auth":
			return nil, rec, refuse("server %q uses %s's own OAuth (%q): remove it, wrap the server, and log in with airlock mcp login %s", s.Name, st.Agent, m.key, s.Name)
		case "headers":
			if m.val.kind() != kObj {
				return nil, rec, refuse("server %q: headers is not an object", s.Name)
			}
			for _, h := range jmembers(m.val) {
				v, ok := scalarString(h.val)
				if !ok || strings.ContainsAny(h.key, ":\r\n") || strings.ContainsAny(v, "\r\n") {
					return nil, rec, refuse("server %q: header %q is not a plain string", s.Name, h.key)
				}
				env = append(env, h.key+": "+v)
			}
		case "type":
			hadType = true
		}
		if !remoteFields[m.key] {
			keep = append(keep, string(data[m.keyOff:m.val.end]))
		}
	}
	base, query := splitQuery(s.URL)
	if query != "" {
		env = append(env, "")
	}
	args := []string{"--name", s.Name, "--url", base}
	if t := bridgeTransport(s.Transport); t != "" {
		args = append(args, "--transport", t)
	}
	var parts []string
	if hadType || st.Agent == "VS Code" {
		parts = append(parts, `"type": "stdio"`)
	}
	q := make([]string, len(args))
	for i, a := range args {
		q[i] = jsonQuote(a)
	}
	parts = append(parts, `"command": `+jsonQuote(mcp), `"args": [`+strings.Join(q, ", ")+`]`)
	if len(env) > 0 {
		var e []string
		for i, h := range env {
			if query != "" && i == len(env)-1 {
				e = append(e, jsonQuote(urlQueryEnv)+": "+jsonQuote(query))
				continue
			}
			e = append(e, jsonQuote(headerEnvName(i))+": "+jsonQuote(h))
		}
		parts = append(parts, `"env": {`+strings.Join(e, ", ")+`}`)
	}
	parts = append(parts, keep...)
	rec.Remote = string(data[obj.off:obj.end])
	out, err := applySplices(data, []splice{{obj.off, obj.end, "{" + strings.Join(parts, ", ") + "}"}})
	if err != nil {
		return nil, rec, err
	}
	if err := checkRemoteEdit(st, cfg, out, s.Name, true); err != nil {
		return nil, rec, err
	}
	return out, rec, nil
}

// urlQueryEnv is the variable a remote URL's query reaches the bridge
// in: servers take keys there (?api_key=…), and the bridge's command line
// is every local user's to read, its environment only its owner's.
const urlQueryEnv = "AIRLOCK_MCP_URL_QUERY"

// splitQuery is u without its query, and the query ("" when none); a
// fragment stays with the base.
func splitQuery(u string) (base, query string) {
	i := strings.IndexByte(u, '?')
	if i < 0 || (strings.IndexByte(u, '#') >= 0 && strings.IndexByte(u, '#') < i) {
		return u, ""
	}
	base, query = u[:i], u[i+1:]
	if j := strings.IndexByte(query, '#'); j >= 0 {
		base, query = base+query[j:], query[:j]
	}
	return base, query
}

// urlHasUserinfo reports whether u names a user (or a password).
func urlHasUserinfo(u string) bool {
	p, err := url.Parse(u)
	if err != nil {
		// unparsable: look for an @ before the path
		rest := u
		if i := strings.Index(rest, "://"); i >= 0 {
			rest = rest[i+3:]
		}
		if i := strings.IndexAny(rest, "/?#"); i >= 0 {
			rest = rest[:i]
		}
		return strings.Contains(rest, "@")
	}
	return p.User != nil
}

// ShownURL is a remote URL as reports show it: without user name,
// password or query (where servers take keys).
func ShownURL(u string) string {
	base, query := splitQuery(u)
	if p, err := url.Parse(base); err == nil && p.User != nil {
		p.User = nil
		base = p.String()
	} else if err != nil && urlHasUserinfo(base) {
		base = "(a URL with credentials)"
	}
	if query != "" {
		base += "?…"
	}
	return base
}

// headerEnvName is the variable the bridge reads header i from.
func headerEnvName(i int) string {
	return "AIRLOCK_MCP_HEADER_" + strconv.Itoa(i+1)
}

// bridgeTransport maps an agent's transport name to airlock-mcp's
// --transport ("" for the default, streamable HTTP).
func bridgeTransport(t string) string {
	if strings.EqualFold(t, "sse") {
		return "sse"
	}
	return ""
}

// jsonEntry is server name's entry object in a JSON store.
func jsonEntry(st Store, data []byte, name string) (jval, error) {
	d := &jdoc{src: blankJSONC(data)}
	root, ok := d.root()
	if !ok || root.kind() != kObj {
		return jval{}, refuse("no servers in the file")
	}
	servers, ok := jsonServerMap(st, root)
	if !ok {
		return jval{}, refuse("no servers in the file")
	}
	e, ok := jlast(servers, name)
	if !ok || e.val.kind() != kObj {
		return jval{}, refuse("no server %q in the file", name)
	}
	return e.val, nil
}

// bridgeURL is the --url a wrapped entry gives airlock-mcp, or "".
func bridgeURL(s *server) string {
	for i := 0; i < len(s.Args); i++ {
		switch a := s.Args[i]; {
		case a == "--":
			return ""
		case strings.HasPrefix(a, "--url="):
			return withQuery(strings.TrimPrefix(a, "--url="), s.Env[urlQueryEnv])
		}
		if (s.Args[i] == "--url" || s.Args[i] == "-url") && i+1 < len(s.Args) {
			return withQuery(s.Args[i+1], s.Env[urlQueryEnv])
		}
	}
	return ""
}

// withQuery is the URL the bridge dials: --url's, with the query from its
// env (what airlock-mcp does with AIRLOCK_MCP_URL_QUERY).
func withQuery(u, query string) string {
	if query == "" || strings.Contains(u, "?") {
		return u
	}
	if i := strings.IndexByte(u, '#'); i >= 0 {
		return u[:i] + "?" + query + u[i:]
	}
	return u + "?" + query
}

// unwrapRemoteJSON puts back the entry rec.Remote holds, when server
// rec.Name is still the bridge init wrote; ok false (data unchanged) when
// it is not.
func unwrapRemoteJSON(st Store, data []byte, cfg *Config, rec wrapRecord) ([]byte, bool, error) {
	s := serverByName(cfg, rec.Name)
	if s == nil || !s.Wrapped || s.WrapName != rec.Name || bridgeURL(s) == "" {
		return data, false, nil
	}
	obj, err := jsonEntry(st, data, rec.Name)
	if err != nil {
		return nil, false, err
	}
	out, err := applySplices(data, []splice{{obj.off, obj.end, rec.Remote}})
	if err != nil {
		return nil, false, err
	}
	if err := checkRemoteEdit(st, cfg, out, rec.Name, false); err != nil {
		return nil, false, err
	}
	return out, true, nil
}

// checkRemoteEdit holds a rewrite to what it meant: server name reads as
// the bridge to its URL (wrap) or as a remote server again (unwrap), and
// every other server reads as before.
func checkRemoteEdit(st Store, before *Config, after []byte, name string, wrap bool) error {
	cfg, err := Parse(st, after)
	if err != nil {
		return refuse("internal error: the edited file no longer reads: %v", err)
	}
	if len(cfg.Servers) != len(before.Servers) {
		return refuse("internal error: the edit changed the number of servers (%d, was %d)", len(cfg.Servers), len(before.Servers))
	}
	for i, old := range before.Servers {
		now := cfg.Servers[i]
		if now.Name != old.Name {
			return refuse("internal error: the edit moved server %q", old.Name)
		}
		if old.Name != name || old.Project != "" {
			if !sameServer(old, now, false) {
				return refuse("internal error: the edit changed server %q", old.Name)
			}
			continue
		}
		if wrap && !readsAsBridge(old, now) {
			return refuse("internal error: server %q does not read as the bridge to %s after the edit", name, old.URL)
		}
		if !wrap && (!now.Remote || now.Wrapped) {
			return refuse("internal error: server %q does not read as remote after the edit", name)
		}
	}
	return nil
}

// bridgeSentinel stands, in checkEdit's wrapped map, for a remote server
// rewritten into its bridge (it has no command line to compare).
const bridgeSentinel = "\x00airlock-mcp --url"

// readsAsBridge: now is old, a remote server, as the bridge to its URL.
func readsAsBridge(old, now server) bool {
	return now.Wrapped && now.WrapName == old.Name && !now.Remote && bridgeURL(&now) == old.URL && now.Disabled == old.Disabled
}

// Bridge is a remote server wrapped behind airlock-mcp --url.
type Bridge struct {
	Name string `json:"name"`
	URL  string `json:"url"`
}
