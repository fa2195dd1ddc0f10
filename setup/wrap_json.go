package setup

import (
	"strings"
)

// wrapRecord is what uninstall needs to undo one wrap: the server's name
// and how its args were written before (a wrap that had to add an args
// list removes it again).
type wrapRecord struct {
	Name string `json:"name"`
	// Args is "absent" when the entry had no args before, "null" when it
	// had args: null; "" when it had a list.
	Args string `json:"args,omitempty"`
	// Was is the airlock-mcp the server ran before init repointed it to
	// the installed one ("" for a fresh wrap): undoing the repoint puts
	// that program back rather than unwrapping the server.
	Was string `json:"was,omitempty"`
	// Remote is a remote server's entry as it was written, when init
	// rewrote it into the bridge (wrap_remote.go); "" for a stdio wrap.
	Remote string `json:"remote,omitempty"`
}

const (
	argsAbsent = "absent"
	argsNull   = "null"
)

// jsonSite is where one server's command line sits in a JSON file.
type jsonSite struct {
	opencode bool // command is [cmd, args…]; there is no args key
	cmd      jmem // "command" (Zed's early form: "path")
	args     jmem
	hasArgs  bool
}

// jsonServerMap finds the object holding a JSON store's servers, the way
// Parse does for each agent.
func jsonServerMap(st Store, root jval) (jval, bool) {
	walk := func(v jval, keys ...string) (jval, bool) {
		for _, k := range keys {
			m, ok := get(v, k)
			if !ok {
				return jval{}, false
			}
			v = m.val.(jval)
		}
		return v, v.kind() == kObj
	}
	switch st.Agent {
	case "VS Code":
		if base(st.Path) == "settings.json" {
			return walk(root, "mcp", "servers")
		}
		return walk(root, "servers")
	case "Zed":
		return walk(root, "context_servers")
	case "opencode":
		mcp, ok := walk(root, "mcp")
		if !ok {
			return jval{}, false
		}
		if s, ok := get(mcp, "servers"); ok && s.val.kind() == kObj && !looksLikeServer(s.val) {
			return s.val.(jval), true
		}
		return mcp, true
	case "grok-cli":
		if _, ok := get(root, "mcpServers"); ok {
			return walk(root, "mcpServers")
		}
		return walk(root, "servers")
	case "generic":
		if _, ok := get(root, "mcpServers"); !ok {
			if _, ok := get(root, "servers"); ok {
				return walk(root, "servers")
			}
		}
	}
	return walk(root, "mcpServers")
}

// jsonSiteOf finds server name's command and args in a JSON store.
func jsonSiteOf(st Store, data []byte, name string) (*jsonSite, error) {
	d := &jdoc{src: blankJSONC(data)}
	root, ok := d.root()
	if !ok || root.kind() != kObj {
		return nil, refuse("no servers in the file")
	}
	servers, ok := jsonServerMap(st, root)
	if !ok {
		return nil, refuse("no servers in the file")
	}
	e, ok := get(servers, name)
	if !ok || e.val.kind() != kObj {
		return nil, refuse("no server %q in the file", name)
	}
	holder := e.val.(jval)
	site := &jsonSite{}
	cmdKey := "command"
	switch st.Agent {
	case "grok-cli":
		if t, ok := field(holder, "transport"); ok && t.val.kind() == kObj {
			holder = t.val.(jval)
		}
	case "Zed":
		if c, ok := field(holder, "command"); ok && c.val.kind() == kObj {
			holder, cmdKey = c.val.(jval), "path"
		}
	case "opencode":
		site.opencode = true
	}
	if site.cmd, ok = jlast(holder, cmdKey); !ok {
		return nil, refuse("server %q has no %s", name, cmdKey)
	}
	want := kStr
	if site.opencode {
		want = kArr
	}
	if site.cmd.val.kind() != want {
		return nil, refuse("server %q: %s is not what it should be", name, cmdKey)
	}
	if !site.opencode {
		site.args, site.hasArgs = jlast(holder, "args")
	}
	return site, nil
}

// wrapJSON puts server s (as Parse read it from data) behind airlock-mcp:
// the command becomes mcp and the args gain "--name", NAME, "--" and the
// original command in front. The original command's bytes move into the
// list as written, so unwrapJSON gives back the file byte for byte.
func wrapJSON(st Store, data []byte, s *server, mcp string) ([]byte, wrapRecord, error) {
	rec := wrapRecord{Name: s.Name}
	site, err := jsonSiteOf(st, data, s.Name)
	if err != nil {
		return nil, rec, err
	}
	c := site.cmd.val
	if site.opencode {
		els := jelems(c)
		if len(els) == 0 {
			return nil, rec, refuse("server %q has an empty command", s.Name)
		}
		words := append([]string{jsonQuote(mcp)}, wrapPrefix(s.Name, jsonQuote)...)
		out, err := applySplices(data, []splice{{els[0].off, els[0].off, strings.Join(words, ", ") + ", "}})
		return out, rec, err
	}
	list := strings.Join(append(wrapPrefix(s.Name, jsonQuote), string(data[c.off:c.end])), ", ")
	sp := []splice{{c.off, c.end, jsonQuote(mcp)}}
	a := site.args.val
	switch {
	case !site.hasArgs:
		rec.Args = argsAbsent
		sp = append(sp, splice{c.end, c.end, `, "args": [` + list + "]"})
	case a.kind() == kNull:
		rec.Args = argsNull
		sp = append(sp, splice{a.off, a.end, "[" + list + "]"})
	case a.kind() == kArr:
		if els := jelems(a); len(els) > 0 {
			sp = append(sp, splice{els[0].off, els[0].off, list + ", "})
		} else {
			sp = append(sp, splice{a.off + 1, a.off + 1, list})
		}
	default:
		return nil, rec, refuse("server %q: args is not a list", s.Name)
	}
	out, err := applySplices(data, sp)
	return out, rec, err
}

// unwrapJSON undoes wrapJSON for server s, which must read as wrapped: the
// word after "--" becomes the command again, as written, and the words
// before it leave the list. On a file wrapJSON produced, the result is the
// file before the wrap, byte for byte; on one edited since, only this
// entry's command and args change.
func unwrapJSON(st Store, data []byte, s *server, rec wrapRecord) ([]byte, error) {
	site, err := jsonSiteOf(st, data, s.Name)
	if err != nil {
		return nil, err
	}
	j := len(s.Args) - len(s.Inner) // the first word after "--"
	c := site.cmd.val
	if site.opencode {
		els := jelems(c)
		if len(els) != len(s.Args)+1 {
			return nil, refuse("server %q: command changed under the edit", s.Name)
		}
		return applySplices(data, []splice{{els[0].off, els[j+1].off, ""}})
	}
	a := site.args.val
	if !site.hasArgs || a.kind() != kArr {
		return nil, refuse("server %q: args is not a list", s.Name)
	}
	els := jelems(a)
	if len(els) != len(s.Args) {
		return nil, refuse("server %q: args changed under the edit", s.Name)
	}
	inner := string(data[els[j].off:els[j].end])
	if j+1 < len(els) {
		return applySplices(data, []splice{{c.off, c.end, inner}, {els[0].off, els[j+1].off, ""}})
	}
	switch {
	case rec.Args == argsAbsent && site.args.keyOff > c.end && string(data[c.end:site.args.keyOff]) == ", ":
		// The list wrapJSON added right after the command: take it out whole.
		return applySplices(data, []splice{{c.off, a.end, inner}})
	case rec.Args == argsNull:
		return applySplices(data, []splice{{c.off, c.end, inner}, {a.off, a.end, "null"}})
	}
	return applySplices(data, []splice{{c.off, c.end, inner}, {els[0].off, els[j].end, ""}})
}
