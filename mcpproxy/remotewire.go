package mcpproxy

import (
	"fmt"
	"net/http"
	"os"
	"sort"
	"strings"

	"github.com/agentairlock/airlock/mcpproxy/remote"
)

// headerEnvPrefix names the variables static headers reach the bridge
// in: AIRLOCK_MCP_HEADER_1="Authorization: Bearer …". A process's
// environment is its owner's to read; its command line is everyone's.
const headerEnvPrefix = "AIRLOCK_MCP_HEADER_"

// newRemote builds the HTTP upstream of airlock-mcp --url.
func newRemote(a args, o Options, maxMsg int64) (*remote.Conn, error) {
	headers, err := envHeaders(os.Environ())
	if err != nil {
		return nil, err
	}
	client := remote.NewHTTPClient()
	var auth remote.Authorizer
	if o.Log != nil {
		st := remote.Store{Home: o.Log.Home(), Name: a.name}
		auth, err = remote.NewAuthorizer(st, a.url, client)
		if err != nil {
			return nil, err
		}
		// where the server is, for airlock mcp login NAME and doctor
		if err := st.SaveServer(remote.Server{URL: a.url, Transport: a.transport}); err != nil {
			fmt.Fprintf(o.Stderr, "airlock-mcp: %v\n", err)
		}
	}
	var loginNeeded func()
	if o.Log != nil {
		st := remote.Store{Home: o.Log.Home(), Name: a.name}
		loginNeeded = func() {
			_ = st.MarkLoginNeeded()
		}
	}
	return remote.New(remote.Options{
		LoginNeeded: loginNeeded,
		Name:        a.name,
		URL:         a.url,
		Transport:   a.transport,
		Headers:     headers,
		Auth:        auth,
		HTTP:        client,
		MaxMessage:  maxMsg,
		Grace:       o.Grace,
	})
}

// envHeaders reads the static headers from the environment, in the
// variables' order.
func envHeaders(env []string) (http.Header, error) {
	h := http.Header{}
	var names []string
	vals := map[string]string{}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		if !strings.HasPrefix(k, headerEnvPrefix) {
			continue
		}
		names = append(names, k)
		vals[k] = v
	}
	sort.Strings(names)
	for _, k := range names {
		name, value, ok := strings.Cut(vals[k], ":")
		name = strings.TrimSpace(name)
		if !ok || name == "" || strings.ContainsAny(name, " \t\r\n") {
			return nil, fmt.Errorf("%s is not a header like \"Authorization: Bearer …\"", k)
		}
		value = strings.TrimSpace(value)
		if strings.ContainsAny(value, "\r\n") {
			return nil, fmt.Errorf("%s: a header value may not hold a line break", k)
		}
		h.Add(name, value)
	}
	return h, nil
}
