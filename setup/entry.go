package setup

import "strings"

// dialect is how a family of config files spells a server entry.
type dialect int

const (
	dialectMCP      dialect = iota // mcpServers, VS Code servers, Continue: command, args, env, cwd, url/httpUrl/serverUrl, type
	dialectZed                     // context_servers: command string or {path, args, env}
	dialectOpencode                // mcp: command [cmd, args…], environment, type local/remote
	dialectGrokCLI                 // mcpServers: transport {type, command, args, env, url}, else top-level command
	dialectTOML                    // Codex and Grok [mcp_servers.NAME]
	dialectGoose                   // extensions: cmd, args, envs, uri, type
)

// entryReader reads one server's fields, turning the first wrong type into
// an error that names the file, the line, the server and the field.
type entryReader struct {
	st   Store
	name string
	line int
	err  error
}

func (r *entryReader) bad(line int, field, want string) {
	if r.err != nil {
		return
	}
	if line == 0 {
		line = r.line
	}
	r.err = &ParseError{Path: r.st.Path, Line: line, Err: &ServerError{Name: r.name, Err: &FieldError{Field: field, Want: want}}}
}

// field returns obj[key] when it is present and not null.
func field(obj value, key string) (member, bool) {
	m, ok := get(obj, key)
	if !ok || m.val.kind() == kNull {
		return member{}, false
	}
	return m, true
}

func (r *entryReader) str(obj value, prefix, key string) string {
	m, ok := field(obj, key)
	if !ok {
		return ""
	}
	s, ok := scalarString(m.val)
	if !ok {
		r.bad(m.line, prefix+key, "a string")
	}
	return s
}

func (r *entryReader) strs(obj value, prefix, key string) []string {
	m, ok := field(obj, key)
	if !ok {
		return nil
	}
	return r.strList(m, prefix+key)
}

func (r *entryReader) strList(m member, name string) []string {
	if m.val.kind() != kArr {
		r.bad(m.line, name, "an array of strings")
		return nil
	}
	els := m.val.elems()
	out := make([]string, 0, len(els))
	for _, e := range els {
		s, ok := scalarString(e)
		if !ok {
			r.bad(e.line(), name, "an array of strings")
			return nil
		}
		out = append(out, s)
	}
	return out
}

func (r *entryReader) strMap(obj value, prefix, key string) map[string]string {
	m, ok := field(obj, key)
	if !ok {
		return nil
	}
	if m.val.kind() != kObj {
		r.bad(m.line, prefix+key, "an object of strings")
		return nil
	}
	out := map[string]string{}
	for _, kv := range m.val.members() {
		s, ok := scalarString(kv.val)
		if !ok {
			r.bad(kv.line, prefix+key+"."+kv.key, "a string")
			return nil
		}
		out[kv.key] = s
	}
	return out
}

// boolean returns obj[key] and whether it is set.
func (r *entryReader) boolean(obj value, key string) (b, set bool) {
	m, ok := field(obj, key)
	if !ok {
		return false, false
	}
	b, ok = scalarBool(m.val)
	if !ok {
		r.bad(m.line, key, "a boolean")
		return false, false
	}
	return b, true
}

// readServer reads one server entry. A server with a field of the wrong
// type is returned with a *ParseError and must not be used.
func readServer(st Store, name string, line int, v value, d dialect) (server, error) {
	r := &entryReader{st: st, name: name, line: line}
	s := server{Name: name, Store: st, Line: line}
	if v.kind() != kObj {
		r.bad(line, "", "an object")
		return s, r.err
	}
	urlKey := ""
	switch d {
	case dialectMCP, dialectTOML:
		s.Command = r.str(v, "", "command")
		s.Args = r.strs(v, "", "args")
		s.Env = r.strMap(v, "", "env")
		s.Cwd = r.str(v, "", "cwd")
		keys := []string{"url"}
		if d == dialectMCP {
			// Gemini's httpUrl wins over its url; Windsurf spells it serverUrl.
			keys = []string{"httpUrl", "serverUrl", "url"}
			s.Transport = r.str(v, "", "type")
			if s.Transport == "" {
				// Kimi Code: transport: "sse". Other agents use the key
				// differently (grok-cli nests an object), so only a string counts.
				if m, ok := field(v, "transport"); ok && m.val.kind() == kStr {
					s.Transport = m.val.text()
				}
			}
		}
		for _, k := range keys {
			if u := r.str(v, "", k); u != "" && s.URL == "" {
				s.URL, urlKey = u, k
			}
		}
	case dialectGrokCLI:
		src, prefix := v, ""
		if m, ok := field(v, "transport"); ok {
			if m.val.kind() != kObj {
				r.bad(m.line, "transport", "an object")
				return s, r.err
			}
			src, prefix = m.val, "transport."
		}
		s.Transport = r.str(src, prefix, "type")
		s.Command = r.str(src, prefix, "command")
		s.Args = r.strs(src, prefix, "args")
		s.Env = r.strMap(src, prefix, "env")
		s.URL = r.str(src, prefix, "url")
	case dialectZed:
		if m, ok := field(v, "command"); ok && m.val.kind() == kObj {
			// The early settings form: "command": {"path", "args", "env"}.
			s.Command = r.str(m.val, "command.", "path")
			s.Args = r.strs(m.val, "command.", "args")
			s.Env = r.strMap(m.val, "command.", "env")
		} else {
			s.Command = r.str(v, "", "command")
			s.Args = r.strs(v, "", "args")
			s.Env = r.strMap(v, "", "env")
		}
		s.URL = r.str(v, "", "url")
	case dialectOpencode:
		s.Transport = r.str(v, "", "type")
		if m, ok := field(v, "command"); ok {
			if argv := r.strList(m, "command"); len(argv) > 0 {
				s.Command, s.Args = argv[0], argv[1:]
			}
		}
		s.Env = r.strMap(v, "", "environment")
		s.URL = r.str(v, "", "url")
	case dialectGoose:
		s.Transport = r.str(v, "", "type")
		s.Command = r.str(v, "", "cmd")
		s.Args = r.strs(v, "", "args")
		s.Env = r.strMap(v, "", "envs")
		s.URL = r.str(v, "", "uri")
	}
	if off, set := r.boolean(v, "disabled"); set && off {
		s.Disabled = true
	}
	if on, set := r.boolean(v, "enabled"); set && !on {
		s.Disabled = true
	}
	if r.err != nil {
		return s, r.err
	}
	if s.Transport == "" {
		switch {
		case st.Agent == "Gemini CLI" && urlKey == "httpUrl":
			// Gemini CLI connects to a URL whenever there is one, and
			// runs command only without (mcp-client.ts createTransport).
			s.Transport = "http"
		case st.Agent == "Gemini CLI" && urlKey == "url":
			s.Transport = "sse"
		case s.Command != "":
			s.Transport = "stdio"
		case st.Agent == "Codex CLI" && s.URL != "":
			s.Transport = "http"
		}
	}
	if len(s.Args) == 0 {
		s.Args = nil
	}
	if len(s.Env) == 0 {
		s.Env = nil
	}
	// An agent picks the transport from "type": with http, sse or
	// streamable HTTP and a URL it connects to the URL, and a command
	// beside them (a decoy airlock-mcp) is never run.
	s.Remote = s.URL != "" && (s.Command == "" || remoteTransport(s.Transport) || st.Agent == "Gemini CLI")
	if !s.Remote {
		s.WrapName, s.Inner, s.Wrapped = WrappedCommand(s.Command, s.Args)
	}
	return s, nil
}

// remoteTransport reports whether a transport name, as agents spell it,
// is reached over the network.
func remoteTransport(t string) bool {
	switch strings.ToLower(strings.NewReplacer("-", "", "_", "").Replace(t)) {
	case "http", "sse", "streamablehttp", "remote", "websocket", "ws":
		return true
	}
	return false
}
