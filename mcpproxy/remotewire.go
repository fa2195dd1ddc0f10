package mcpproxy

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/agentairlock/airlock/mcpproxy/remote"
	"github.com/agentairlock/airlock/policy"
)

// headerEnvPrefix names the variables static headers reach the bridge
// in: AIRLOCK_MCP_HEADER_1="Authorization: Bearer …". A process's
// environment is its owner's to read; its command line is everyone's.
const headerEnvPrefix = "AIRLOCK_MCP_HEADER_"

// urlQueryEnv carries --url's query (airlock init moves it there:
// servers take keys in it, and a command line is every local user's to
// read).
const urlQueryEnv = "AIRLOCK_MCP_URL_QUERY"

// urlWithEnvQuery is --url with the query from AIRLOCK_MCP_URL_QUERY; a
// --url that has a query of its own too is refused (which one is meant?).
func urlWithEnvQuery(u, query string) (string, error) {
	if query == "" {
		return u, nil
	}
	if strings.ContainsAny(query, "#\r\n ") {
		return "", fmt.Errorf("%s is not a URL query", urlQueryEnv)
	}
	if strings.Contains(u, "?") {
		return "", fmt.Errorf("--url has a query and %s gives another: keep one", urlQueryEnv)
	}
	if i := strings.IndexByte(u, '#'); i >= 0 {
		return u[:i] + "?" + query + u[i:], nil
	}
	return u + "?" + query, nil
}

// newRemote builds the HTTP upstream of airlock-mcp --url.
func newRemote(a args, o Options, maxMsg int64) (*remote.Conn, error) {
	headers, err := envHeaders(os.Environ())
	if err != nil {
		return nil, err
	}
	var pol *policy.Policy
	if o.Gate != nil {
		pol = o.Gate.Policy
	}
	scheme := "https"
	if u, err := url.Parse(a.url); err == nil && u.Scheme != "" {
		scheme = u.Scheme
	}
	client := remote.NewGuardedHTTPClient(remoteGuard(pol, scheme))
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
		var once sync.Once
		loginNeeded = func() {
			_ = st.MarkLoginNeeded()
			once.Do(func() {
				fmt.Fprintf(o.Stderr, "airlock-mcp: the remote server %q needs a login: run airlock mcp login %s\n", a.name, a.name)
			})
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

// remoteGuard judges each address the bridge dials (and a proxy from its
// environment) with the policy's host rules, as the sandbox's egress
// proxy judges the addresses a name resolved to: --url's name had its
// verdict, default and catch-all rules included, so here only a forbid, a
// budget, or a rule naming this very address refuses (a policy that
// allows mcp.example.com and blocks every other fetch must not refuse the
// address mcp.example.com resolves to, while 169.254.169.254 behind an
// innocent or rebinding name is refused). nil without a policy.
func remoteGuard(pol *policy.Policy, scheme string) remote.Guard {
	if pol == nil {
		return nil
	}
	return func(host string, port int) (err error) {
		defer func() {
			if r := recover(); r != nil {
				err = fmt.Errorf("refused by the policy: Airlock failed while deciding (%v)", r)
			}
		}()
		input, err := json.Marshal(map[string]string{"url": scheme + "://" + net.JoinHostPort(host, strconv.Itoa(port)) + "/"})
		if err != nil {
			return err
		}
		f := policy.Classify("WebFetch", input, policy.CallEnv{NoResolve: true})
		v := pol.Decide(f, time.Now(), policy.Stages{})
		d := v.Decision
		if v.Effective == policy.Allow || (d.Source != policy.FromForbid && d.Source != policy.FromBudget && d.Target != host) {
			return nil
		}
		return fmt.Errorf("%s is refused by the policy: %s", host, d.Explain())
	}
}

// envHeaders reads the static headers from the environment, in the
// variables' order: AIRLOCK_MCP_HEADER_n="Name: value";
// AIRLOCK_MCP_HEADER_ENV_n="Name: VAR" and AIRLOCK_MCP_BEARER_ENV=VAR take
// the value from the variable VAR (Codex passes variables through by name
// and expands none). No value is ever quoted in an error.
func envHeaders(env []string) (http.Header, error) {
	h := http.Header{}
	var names []string
	vals := map[string]string{}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		vals[k] = v
		if strings.HasPrefix(k, headerEnvPrefix) {
			names = append(names, k)
		}
	}
	sort.Strings(names)
	for _, k := range names {
		name, value, ok := strings.Cut(vals[k], ":")
		name = strings.TrimSpace(name)
		if !ok || name == "" || strings.ContainsAny(name, " \t\r\n") {
			return nil, fmt.Errorf("%s is not a header like \"Authorization: Bearer …\"", k)
		}
		value = strings.TrimSpace(value)
		if strings.HasPrefix(k, headerEnvPrefix+"ENV_") {
			v, set := vals[value]
			if !set || v == "" {
				return nil, fmt.Errorf("%s takes the %s header from $%s, which is not set (the agent's config must pass it through)", k, name, value)
			}
			value = v
		}
		if strings.ContainsAny(value, "\r\n") {
			return nil, fmt.Errorf("%s: a header value may not hold a line break", k)
		}
		h.Add(name, value)
	}
	if v := vals["AIRLOCK_MCP_BEARER_ENV"]; v != "" {
		tok, set := vals[v]
		if !set || tok == "" || strings.ContainsAny(tok, "\r\n") {
			return nil, fmt.Errorf("AIRLOCK_MCP_BEARER_ENV names $%s, which is not set (the agent's config must pass it through)", v)
		}
		h.Set("Authorization", "Bearer "+tok)
	}
	return h, nil
}
