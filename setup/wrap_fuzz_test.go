package setup

import (
	"bytes"
	"errors"
	"reflect"
	"testing"
)

// The wrap fuzzers feed the splice editors any file Parse reads without
// error. For every stdio server in it: the wrap must succeed (JSON) or
// refuse with a reason (TOML, YAML: forms it cannot place exactly), a wrap
// must read back as airlock-mcp --name NAME -- <the original command line>
// with nothing else in the file changed (wrapServer checks that itself),
// and unwrapping must give the server back — in JSON, the original bytes.

func mcpStores(stores []Store) []Store {
	var out []Store
	for _, st := range stores {
		if st.Kind == kindMCP && st.ID != "claude-code.user-mcp" {
			out = append(out, st)
		}
	}
	return out
}

// fuzzWrap runs the round trip on every stdio server of data.
func fuzzWrap(t *testing.T, st Store, data []byte, exact bool) {
	if len(data) > 64<<10 {
		return
	}
	cfg, err := Parse(st, data)
	if err != nil {
		return
	}
	for _, s := range cfg.Servers {
		if s.Command == "" || s.Wrapped || s.Project != "" || serverByName(cfg, s.Name) == nil {
			continue
		}
		out, rec, err := wrapServer(st, data, cfg, s.Name, "/opt/air lock/airlock-mcp")
		if err != nil {
			if exact || !errors.Is(err, errRefused) {
				t.Fatalf("wrap %q: %v", s.Name, err)
			}
			continue
		}
		cfg2, err := Parse(st, out)
		if err != nil {
			t.Fatalf("wrapped file does not parse: %v", err)
		}
		w := serverByName(cfg2, s.Name)
		if w == nil || !w.Wrapped || w.WrapName != s.Name || !reflect.DeepEqual(w.Inner, argvOf(&s)) {
			t.Fatalf("server %q after wrap: %+v", s.Name, w)
		}
		back, ok, err := unwrapServer(st, out, cfg2, rec)
		if err != nil || !ok {
			t.Fatalf("unwrap %q: %v %v", s.Name, ok, err)
		}
		if exact && !bytes.Equal(back, data) {
			t.Fatalf("unwrap of %q did not give the file back:\n got %q\nwant %q", s.Name, back, data)
		}
		cfg3, err := Parse(st, back)
		if err != nil {
			t.Fatalf("unwrapped file does not parse: %v", err)
		}
		if u := serverByName(cfg3, s.Name); u == nil || !sameServer(s, *u, false) {
			t.Fatalf("server %q after unwrap: %+v, want %+v", s.Name, u, s)
		}
	}
}

func FuzzWrapJSONC(f *testing.F) {
	stores := mcpStores(fuzzJSONStores)
	addFixtureSeeds(f, stores, formatJSON, formatJSONC)
	f.Add(uint8(0), []byte(`{"mcpServers": {"a": {"command": "x", "args": null}, "a": {"command": "y"}}}`))
	f.Add(uint8(2), []byte("{\"servers\": {\"p\": {\"command\": \"n\\u0070x\", \"args\": [,],}}}"))
	f.Fuzz(func(t *testing.T, which uint8, data []byte) {
		fuzzWrap(t, stores[int(which)%len(stores)], data, true)
	})
}

func FuzzWrapTOML(f *testing.F) {
	addFixtureSeeds(f, fuzzTOMLStores, formatTOML)
	f.Add(uint8(0), []byte("[mcp_servers]\na = { command = \"x\" }\nb.command = 'y'\nb.args = []\n"))
	f.Fuzz(func(t *testing.T, which uint8, data []byte) {
		fuzzWrap(t, fuzzTOMLStores[int(which)%len(fuzzTOMLStores)], data, false)
	})
}

func FuzzWrapYAML(f *testing.F) {
	addFixtureSeeds(f, fuzzYAMLStores, formatYAML)
	f.Add(uint8(0), []byte("mcpServers:\n- {name: a, command: x}\n- name: b\n  command: 'y'\n  args:\n  - 1\n"))
	f.Fuzz(func(t *testing.T, which uint8, data []byte) {
		fuzzWrap(t, fuzzYAMLStores[int(which)%len(fuzzYAMLStores)], data, false)
	})
}
