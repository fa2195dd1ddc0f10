package setup

import (
	"sort"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"
)

// Codex CLI's remote servers ([mcp_servers.NAME] with url): the url line
// becomes the bridge's command, args and env, and the lines that only a
// remote server has (bearer_token_env_var, http_headers,
// env_http_headers) go. Codex passes a server only the variables its
// env_vars names, and expands none, so the bearer token's and the
// env_http_headers' variables are passed through by name and the bridge
// reads them itself (AIRLOCK_MCP_BEARER_ENV, AIRLOCK_MCP_HEADER_ENV_n);
// static http_headers go in env as AIRLOCK_MCP_HEADER_n.

// codexRemoteKeys are the statements a remote Codex entry may have that
// the rewrite takes away.
var codexRemoteKeys = map[string]bool{"url": true, "bearer_token_env_var": true, "http_headers": true, "env_http_headers": true}

func wrapRemoteTOML(st Store, data []byte, cfg *Config, s *server, mcp string) ([]byte, wrapRecord, error) {
	rec := wrapRecord{Name: s.Name}
	var doc map[string]any
	if _, err := toml.Decode(string(data), &doc); err != nil {
		return nil, rec, refuse("the file no longer reads: %v", err)
	}
	servers, _ := doc["mcp_servers"].(map[string]any)
	entry, _ := servers[s.Name].(map[string]any)
	if entry == nil {
		return nil, rec, refuse("no server %q in the file", s.Name)
	}
	var urlSt *tstmt
	var gone []tstmt
	for _, t := range tomlStmts(data) {
		if len(t.path) < 3 || t.path[0] != "mcp_servers" || t.path[1] != s.Name {
			continue
		}
		key := t.path[2]
		if len(t.path) > 3 {
			if codexRemoteKeys[key] && t.inline {
				continue // a member of an inline table taken away whole
			}
			return nil, rec, refuse("server %q: %s is written as a table of its own: put it inline (%s = { … }) to let airlock init rewrite it", s.Name, key, key)
		}
		switch {
		case key == "command" || key == "args" || key == "env" || key == "env_vars" || key == "cwd":
			return nil, rec, refuse("server %q has both a URL and %q: not rewritten", s.Name, key)
		case !codexRemoteKeys[key]:
			continue
		case t.inline || !onlyCommentAfter(data, t.valEnd) || strings.TrimSpace(string(data[lineStart(data, t.keyOff):t.keyOff])) != "":
			return nil, rec, refuse("server %q: %s does not have a line of its own", s.Name, key)
		case key == "url":
			u := t
			urlSt = &u
		default:
			gone = append(gone, t)
		}
	}
	if urlSt == nil {
		return nil, rec, refuse("server %q: url not found where Airlock can edit it", s.Name)
	}
	var env [][2]string
	var pass []string
	if h, ok := entry["http_headers"].(map[string]any); ok {
		for i, k := range sortedAny(h) {
			v, ok := h[k].(string)
			if !ok || strings.ContainsAny(k, ":\r\n") || strings.ContainsAny(v, "\r\n") {
				return nil, rec, refuse("server %q: header %q is not a plain string", s.Name, k)
			}
			env = append(env, [2]string{headerEnvName(i), k + ": " + v})
		}
	}
	if v, ok := entry["bearer_token_env_var"].(string); ok && v != "" {
		env = append(env, [2]string{"AIRLOCK_MCP_BEARER_ENV", v})
		pass = append(pass, v)
	}
	if h, ok := entry["env_http_headers"].(map[string]any); ok {
		for i, k := range sortedAny(h) {
			v, ok := h[k].(string)
			if !ok || v == "" || strings.ContainsAny(k, ":\r\n") {
				return nil, rec, refuse("server %q: env_http_headers %q is not a variable name", s.Name, k)
			}
			env = append(env, [2]string{"AIRLOCK_MCP_HEADER_ENV_" + strconv.Itoa(i+1), k + ": " + v})
			pass = append(pass, v)
		}
	}
	nl, indent := newline(data), indentOf(data, urlSt.keyOff)
	key := string(data[urlSt.keyOff:urlSt.lastKeyOff]) // "" or "mcp_servers.NAME."
	base, query := splitQuery(s.URL)
	if query != "" {
		env = append(env, [2]string{urlQueryEnv, query})
	}
	args := []string{"--name", s.Name, "--url", base}
	var q []string
	for _, a := range args {
		q = append(q, tomlQuote(a))
	}
	lines := []string{key + "command = " + tomlQuote(mcp) + " " + mark, indent + key + "args = [" + strings.Join(q, ", ") + "]"}
	if len(env) > 0 {
		var e []string
		for _, kv := range env {
			e = append(e, kv[0]+" = "+tomlQuote(kv[1]))
		}
		lines = append(lines, indent+key+"env = { "+strings.Join(e, ", ")+" }")
	}
	if len(pass) > 0 {
		var p []string
		for _, v := range pass {
			p = append(p, tomlQuote(v))
		}
		lines = append(lines, indent+key+"env_vars = ["+strings.Join(p, ", ")+"]")
	}
	urlLine := [2]int{lineStart(data, urlSt.keyOff), lineEnd(data, urlSt.valEnd)}
	orig := []string{string(data[urlLine[0]:urlLine[1]])}
	sp := []splice{{urlSt.keyOff, eol(data, urlSt.valEnd), strings.Join(lines, nl)}}
	for _, t := range gone {
		ls, le := lineStart(data, t.keyOff), lineEnd(data, t.valEnd)
		orig = append(orig, string(data[ls:le]))
		if le < len(data) {
			le++ // and its line break
		}
		sp = append(sp, splice{ls, le, ""})
	}
	rec.Remote = strings.Join(orig, "\n")
	out, err := applySplices(data, sp)
	if err != nil {
		return nil, rec, err
	}
	if err := checkRemoteEdit(st, cfg, out, s.Name, true); err != nil {
		return nil, rec, err
	}
	return out, rec, nil
}

func sortedAny(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// unwrapRemoteTOML puts back the lines rec.Remote holds where the
// bridge's command line is, when server rec.Name is still that bridge.
func unwrapRemoteTOML(st Store, data []byte, cfg *Config, rec wrapRecord) ([]byte, bool, error) {
	s := serverByName(cfg, rec.Name)
	if s == nil || !s.Wrapped || s.WrapName != rec.Name || bridgeURL(s) == "" {
		return data, false, nil
	}
	start, end := -1, -1
	for _, t := range tomlStmts(data) {
		if len(t.path) < 3 || t.path[0] != "mcp_servers" || t.path[1] != rec.Name || t.inline {
			continue
		}
		switch t.path[2] {
		case "command", "args", "env", "env_vars":
			if start < 0 || t.keyOff < start {
				start = t.keyOff
			}
			if e := lineEnd(data, t.valEnd); e > end {
				end = e
			}
		}
	}
	if start < 0 {
		return data, false, nil
	}
	start = lineStart(data, start)
	// only the bridge's own statements in the block: a line written
	// between them since is not Airlock's to drop
	for _, t := range tomlStmts(data) {
		if t.keyOff >= start && t.keyOff < end && !t.inline {
			if len(t.path) != 3 || t.path[0] != "mcp_servers" || t.path[1] != rec.Name || !(t.path[2] == "command" || t.path[2] == "args" || t.path[2] == "env" || t.path[2] == "env_vars") {
				return nil, false, refuse("server %q: lines were added among the bridge's since init: put its entry back by hand", rec.Name)
			}
		}
	}
	out, err := applySplices(data, []splice{{start, end, rec.Remote}})
	if err != nil {
		return nil, false, err
	}
	if err := checkRemoteEdit(st, cfg, out, rec.Name, false); err != nil {
		return nil, false, err
	}
	return out, true, nil
}
