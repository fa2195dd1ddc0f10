package shell

import "strings"

// Effects on state that is not this machine's: what a call destroys on a
// shared server, publishes to a registry, grants on an account, installs
// under a borrowed name. Each is a table from a program to the shape of its
// arguments that has the effect (remote_destroy.go, publish.go, grants.go,
// typosquat.go, capture.go); the forbids in profiles/forbids.yaml name the
// signals, so a new program is one row, not a new rule.

// effectFn judges one command whose program is known; argv is its words.
type effectFn func(w *walker, c *cmdCtx, argv []string)

// effects runs the handlers of c's program. One map lookup for every
// command; nothing is built per call.
func (w *walker) effects(c *cmdCtx) {
	fns := effectTable[c.prog]
	if len(fns) == 0 {
		if c.prog == "ansible" { // walks its -a text: outside the table, which the walker's functions cannot be in
			w.ansibleDestroy(c, argStrings(c.argv))
		}
		return
	}
	argv := argStrings(c.argv)
	if hasAnyArg(argv, "--help") {
		return // help text changes nothing
	}
	for _, f := range fns {
		f(w, c, argv)
	}
}

// localHost: a host name or address that is this machine (or a Unix socket
// path): a database or an API there is the developer's own.
func localHost(h string) bool {
	h = strings.ToLower(strings.Trim(h, `"' `))
	if h == "" || strings.HasPrefix(h, "/") || strings.HasPrefix(h, "@") {
		return true // no host: the client's default socket; a path: a Unix socket
	}
	if strings.HasPrefix(h, "[") {
		if i := strings.IndexByte(h, ']'); i > 0 {
			h = h[1:i]
		}
	} else if strings.Count(h, ":") == 1 {
		h = h[:strings.IndexByte(h, ':')]
	}
	switch {
	case h == "localhost", strings.HasSuffix(h, ".localhost"), strings.HasPrefix(h, "127."), h == "::1", h == "0.0.0.0",
		h == "host.docker.internal", h == "unix", strings.HasPrefix(h, "unix:"):
		return true
	}
	return false
}

// urlHostName is the host of a URL without scheme, user or port ("" when
// s is no URL).
func urlHostName(s string) string {
	u := urlHostOf(s)
	if u == "" {
		return ""
	}
	return u[strings.Index(u, "://")+3:]
}

// optValue finds the value of any of names (-X V, -XV for one-letter
// names, --name=V, --name V); ok is false when none is given.
func optValue(argv []string, names ...string) (string, bool) {
	for i := 1; i < len(argv); i++ {
		a := argv[i]
		for _, n := range names {
			switch {
			case a == n:
				if i+1 < len(argv) {
					return argv[i+1], true
				}
			case len(n) == 2 && n[0] == '-' && strings.HasPrefix(a, n) && len(a) > 2 && a[1] != '-':
				return strings.TrimPrefix(a[2:], "="), true
			case strings.HasPrefix(n, "--") && strings.HasPrefix(a, n+"="):
				return a[len(n)+1:], true
			}
		}
	}
	return "", false
}

// optValues is every value of the options in names.
func optValues(argv []string, names ...string) []string {
	var out []string
	for i := 1; i < len(argv); i++ {
		a := argv[i]
		for _, n := range names {
			switch {
			case a == n:
				if i+1 < len(argv) {
					out = append(out, argv[i+1])
				}
			case strings.HasPrefix(n, "--") && strings.HasPrefix(a, n+"="):
				out = append(out, a[len(n)+1:])
			case len(n) == 2 && n[0] == '-' && strings.HasPrefix(a, n) && len(a) > 2 && a[1] != '-':
				out = append(out, strings.TrimPrefix(a[2:], "="))
			}
		}
	}
	return out
}

// positionals is argv[from:] without options and the values of the
// options in valued (names with their dashes).
func positionals(argv []string, from int, valued *nameSet) []string {
	var out []string
	for i := from; i < len(argv); i++ {
		a := argv[i]
		if a == "--" {
			return append(out, argv[i+1:]...)
		}
		if len(a) > 1 && a[0] == '-' {
			if !strings.Contains(a, "=") && valued != nil && valued.has(a) {
				i++
			}
			continue
		}
		out = append(out, a)
	}
	return out
}

// effectTable: the programs whose effects are modelled here.
var effectTable = map[string][]effectFn{
	// remote_destroy.go
	"git": {gitPushDestroy}, "gh": {forgeDestroy, forgeGrant, forgePublish}, "glab": {forgeDestroy, forgeGrant, forgePublish},
	"curl": {httpDelete, httpGrant}, "wget": {httpDelete}, "http": {httpDelete}, "https": {httpDelete}, "xh": {httpDelete}, "xhs": {httpDelete},
	"psql": {sqlDestroy}, "pgcli": {sqlDestroy}, "mysql": {sqlDestroy}, "mariadb": {sqlDestroy}, "mycli": {sqlDestroy},
	"clickhouse-client": {sqlDestroy}, "clickhouse": {sqlDestroy}, "cqlsh": {sqlDestroy}, "sqlcmd": {sqlDestroy}, "cockroach": {sqlDestroy},
	"mongosh": {mongoDestroy}, "mongo": {mongoDestroy},
	"redis-cli": {redisDestroy}, "valkey-cli": {redisDestroy}, "keydb-cli": {redisDestroy},
	"dropdb": {dropdbDestroy}, "mysqladmin": {mysqladminDestroy},
	"aws": {awsDestroy}, "gcloud": {gcloudDestroy}, "gsutil": {gsutilExpose}, "az": {azDestroy},
	"kubectl": {kubeDestroy}, "oc": {kubeDestroy}, "helm": {helmDestroy},
	"cdk": {iacDestroy}, "terraform": {iacDestroy}, "tofu": {iacDestroy}, "pulumi": {iacDestroy}, "sam": {iacDestroy},
	"serverless": {iacDestroy}, "sls": {iacDestroy}, "eksctl": {iacDestroy}, "doctl": {iacDestroy}, "flyctl": {iacDestroy},
	"fly": {iacDestroy}, "heroku": {iacDestroy}, "vercel": {iacDestroy}, "netlify": {iacDestroy},
	"rm": {historyDestroy, remoteLocalDestroy}, "systemctl": {remoteLocalDestroy}, "docker": {remoteLocalDestroy, containerPublish},
	"podman": {remoteLocalDestroy, containerPublish},
	// publish.go
	"npm": {npmPublish, typosquatInstall}, "pnpm": {npmPublish, typosquatInstall}, "yarn": {npmPublish, typosquatInstall},
	"bun": {npmPublish, typosquatInstall}, "pip": {typosquatInstall}, "pip3": {typosquatInstall}, "pipx": {typosquatInstall}, "rye": {typosquatInstall}, "twine": {pyPublish},
	"uv": {pyPublish, typosquatInstall}, "poetry": {pyPublish, typosquatInstall}, "flit": {pyPublish}, "hatch": {pyPublish}, "pdm": {pyPublish, typosquatInstall},
	"cargo": {cargoPublish}, "gem": {gemPublish}, "dotnet": {nugetPublish}, "nuget": {nugetPublish}, "vsce": {extPublish},
	"ovsx": {extPublish}, "jsr": {jsrPublish}, "deno": {jsrPublish}, "nerdctl": {containerPublish}, "buildah": {containerPublish},
	"skopeo": {containerPublish}, "crane": {containerPublish}, "pod": {podPublish}, "mix": {mixPublish},
}
