package setup

import (
	"bytes"
	"errors"
	"testing"
)

// fuzzWrapRemote runs the remote round trip on every remote server of
// data that init would wrap: the rewrite reads as the bridge to the
// server's URL with every other server unchanged (wrapRemote checks it),
// no header value reaches the command line, and unwrapping gives the
// file back byte for byte (JSON) or the server back (TOML).
func fuzzWrapRemote(t *testing.T, st Store, data []byte, exact bool) {
	if len(data) > 64<<10 {
		return
	}
	cfg, err := Parse(st, data)
	if err != nil {
		return
	}
	for _, s := range cfg.Servers {
		if !s.Remote || remoteWhyNot(st, s) != "" || serverByName(cfg, s.Name) == nil {
			continue
		}
		out, rec, err := wrapRemote(st, data, cfg, &s, "/opt/air lock/airlock-mcp")
		if err != nil {
			if !errors.Is(err, errRefused) {
				t.Fatalf("wrap %q: %v", s.Name, err)
			}
			continue
		}
		cfg2, err := Parse(st, out)
		if err != nil {
			t.Fatalf("wrapped file does not parse: %v", err)
		}
		w := serverByName(cfg2, s.Name)
		if w == nil || !readsAsBridge(s, *w) {
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
		if u := serverByName(cfg3, s.Name); u == nil || !u.Remote || u.URL != s.URL {
			t.Fatalf("server %q after unwrap: %+v, want %+v", s.Name, u, s)
		}
	}
}

func FuzzWrapRemoteJSON(f *testing.F) {
	var stores []Store
	for _, st := range mcpStores(fuzzJSONStores) {
		if remoteStores[st.Agent] {
			stores = append(stores, st)
		}
	}
	if len(stores) == 0 {
		f.Fatal("no JSON store of an agent whose remote entries init rewrites")
	}
	addFixtureSeeds(f, stores, formatJSON, formatJSONC)
	f.Add(uint8(0), []byte(`{"mcpServers": {"a": {"type": "http", "url": "https://x/mcp", "headers": {"Authorization": "Bearer ${T}"}, "timeout": 5}, "b": {"command": "y"}}}`))
	f.Add(uint8(1), []byte("{\"mcpServers\": {\"s\": {\"url\": \"https://x/sse\", /* c */ \"type\": \"sse\",}}}"))
	f.Fuzz(func(t *testing.T, which uint8, data []byte) {
		fuzzWrapRemote(t, stores[int(which)%len(stores)], data, true)
	})
}

func FuzzWrapRemoteTOML(f *testing.F) {
	var stores []Store
	for _, st := range fuzzTOMLStores {
		if st.Agent == "Codex CLI" {
			stores = append(stores, st)
		}
	}
	if len(stores) == 0 {
		f.Fatal("no Codex store among the TOML fuzz stores")
	}
	addFixtureSeeds(f, stores, formatTOML)
	f.Add(uint8(0), []byte("[mcp_servers.g]\nurl = \"https://x/mcp\"\nbearer_token_env_var = \"T\"\nhttp_headers = { \"X\" = \"y\" }\n"))
	f.Fuzz(func(t *testing.T, which uint8, data []byte) {
		fuzzWrapRemote(t, stores[int(which)%len(stores)], data, false)
	})
}
