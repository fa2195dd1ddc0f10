package shell

import (
	"strings"
)

// Destruction of shared state (MITRE ATT&CK T1485 Data Destruction, T1489
// Service Stop, T1562.008 Disable Cloud Logs, T1530/T1098 exposure): a call
// whose effect is on a server other people rely on, and that cannot be
// undone from this machine. It asks (remote-destroy): the same words on the
// developer's own machine — a database on localhost, a local branch, a kind
// cluster — stay allowed, and reading the same state stays allowed.
//
// The shapes, one function per program family:
//   - git push that deletes remote refs (--delete/-d, :ref), prunes them
//     (--prune), mirrors (--mirror), or force-rewrites (--force, -f, +ref,
//     --force-with-lease) a default or release branch or a tag. A forced
//     push of a feature branch stays allowed: it is what a rebase needs.
//     Every deletion asks, whatever the branch: a deleted remote ref is gone
//     for everyone who had not fetched it.
//   - a forge's CLI or REST API deleting a repository, a release, a ref or
//     branch protection, or transferring a repository (gh, glab, gh api -X
//     DELETE, an HTTP DELETE to any host that is not this machine).
//   - a database client pointed at a server that is not this machine with
//     DROP, TRUNCATE, or DELETE/UPDATE without WHERE; redis FLUSHALL/FLUSHDB
//     and bulk DEL; mongo drop()/dropDatabase(); dropdb, mysqladmin drop.
//   - cloud CLIs deleting data, keys, audit trails and detectors, or exposing
//     a bucket, snapshot or port to everyone (aws/gcloud/az/gsutil).
//   - cluster and infrastructure tools removing what they manage (helm
//     uninstall, kubectl scale to zero of everything, cdk destroy, terraform
//     state rm …).
//   - inside a remote shell (ssh HOST 'cmd', ansible -a 'cmd'): deleting a
//     system path, stopping services, pruning the container store.
//
// history-destroy: deleting the repository's .git (rm -r .git) loses every
// commit that was never pushed.

const (
	SignalRemoteDestroy  Signal = "remote-destroy"
	SignalHistoryDestroy Signal = "history-destroy"
)

func (w *walker) remoteDestroyed(c *cmdCtx) {
	w.signal(SignalRemoteDestroy, c.sc.detail())
}

// gitSub is the index of git's subcommand in argv, past -C DIR, -c K=V and
// the other global options.
func gitSub(argv []string) int {
	for i := 1; i < len(argv); i++ {
		a := argv[i]
		switch {
		case a == "-C" || a == "-c" || a == "--git-dir" || a == "--work-tree" || a == "--namespace":
			i++
		case strings.HasPrefix(a, "-"):
		default:
			return i
		}
	}
	return -1
}

func gitPushDestroy(w *walker, c *cmdCtx, argv []string) {
	k := gitSub(argv)
	if k < 0 || argv[k] != "push" {
		return
	}
	var del, force, tags bool
	var pos []string
	for i := k + 1; i < len(argv); i++ {
		a := argv[i]
		switch {
		case a == "--dry-run":
			return
		case a == "--delete":
			del = true
		case a == "--mirror" || a == "--prune":
			w.remoteDestroyed(c)
			return
		case a == "--force" || strings.HasPrefix(a, "--force-with-lease") || a == "--force-if-includes":
			force = true
		case a == "--tags":
			tags = true
		case a == "-o" || a == "--push-option" || a == "--repo" || a == "--receive-pack" || a == "--exec":
			i++
		case strings.HasPrefix(a, "--"):
		case strings.HasPrefix(a, "-") && len(a) > 1:
			for _, ch := range a[1:] {
				switch ch {
				case 'n':
					return
				case 'd':
					del = true
				case 'f':
					force = true
				}
			}
		default:
			pos = append(pos, a)
		}
	}
	if len(pos) == 0 {
		if force && tags {
			w.remoteDestroyed(c)
		}
		return
	}
	refs := pos[1:]
	if del && (len(refs) > 0 || c.xargs) {
		w.remoteDestroyed(c)
		return
	}
	for _, r := range refs {
		if len(r) > 1 && r[0] == ':' {
			w.remoteDestroyed(c) // an empty source deletes the destination
			return
		}
		plus := strings.HasPrefix(r, "+")
		if !force && !plus {
			continue
		}
		dst := strings.TrimPrefix(r, "+")
		if i := strings.LastIndexByte(dst, ':'); i >= 0 {
			dst = dst[i+1:]
		}
		if sharedRef(dst) {
			w.remoteDestroyed(c)
			return
		}
	}
	if force && tags {
		w.remoteDestroyed(c)
	}
}

// sharedRef: a branch others build on (the default, a release line) or a
// tag (a published version), or a ref the shell fills in later.
func sharedRef(r string) bool {
	r = strings.ToLower(r)
	if r == "" || strings.ContainsAny(r, "${}*") {
		return r != ""
	}
	if strings.HasPrefix(r, "refs/tags/") {
		return true
	}
	r = strings.TrimPrefix(r, "refs/heads/")
	switch r {
	case "main", "master", "trunk", "develop", "development", "dev", "production", "prod", "staging", "stable", "live",
		"gh-pages", "default", "release", "releases", "latest":
		return true
	}
	for _, p := range []string{"release/", "releases/", "release-", "stable/", "hotfix/", "support/"} {
		if strings.HasPrefix(r, p) {
			return true
		}
	}
	// v1.2.3, 1.2.3: a version tag
	t := strings.TrimPrefix(r, "v")
	return len(t) > 0 && t[0] >= '0' && t[0] <= '9' && strings.Contains(t, ".")
}

// forgeDestroy: gh and glab deleting repositories, releases and refs, and
// their REST passthrough (gh api, glab api).
func forgeDestroy(w *walker, c *cmdCtx, argv []string) {
	if len(argv) < 3 {
		return
	}
	switch argv[1] {
	case "repo", "release":
		if argv[2] == "delete" || argv[2] == "delete-asset" || argv[1] == "repo" && argv[2] == "archive" {
			w.remoteDestroyed(c)
		}
	case "api":
		m, path := forgeAPICall(argv)
		switch {
		case m == "DELETE" && !minorAPIPath(path):
			w.remoteDestroyed(c)
		case (m == "POST" || m == "PATCH" || m == "PUT") && (strings.HasSuffix(path, "/transfer") || strings.Contains(path, "/transfer?")):
			w.remoteDestroyed(c) // the repository leaves its owner
		}
	}
}

var forgeAPIValued = set("-X", "--method", "-f", "-F", "--field", "--raw-field", "-H", "--header", "--input", "-q", "--jq",
	"-t", "--template", "--hostname", "-p", "--preview", "--cache")

// forgeAPICall is the HTTP method and the endpoint of gh api / glab api.
// Fields (-f, -F, --input) turn the default GET into a POST.
func forgeAPICall(argv []string) (method, path string) {
	method = "GET"
	if _, ok := optValue(argv, "-f", "-F", "--field", "--raw-field", "--input"); ok {
		method = "POST"
	}
	if m, ok := optValue(argv, "-X", "--method"); ok {
		method = strings.ToUpper(m)
	}
	if p := positionals(argv, 2, forgeAPIValued); len(p) > 0 {
		path = strings.ToLower(p[0])
	}
	return method, path
}

// minorAPIPath: deletions that lose nothing anyone relies on (a cache, a
// reaction, a notification subscription).
func minorAPIPath(p string) bool {
	for _, s := range []string{"/caches", "/reactions/", "/subscription", "notifications/", "/labels/", "/assignees"} {
		if strings.Contains(p, s) {
			return true
		}
	}
	return false
}

// httpDelete: an HTTP DELETE to a host that is not this machine (a forge's
// REST API, a search cluster's index, an object store).
func httpDelete(w *walker, c *cmdCtx, argv []string) {
	m := ""
	switch c.prog {
	case "curl":
		m, _ = optValue(argv, "-X", "--request")
	case "wget":
		m, _ = optValue(argv, "--method")
	default: // httpie, xh: the method is the first operand
		if p := positionals(argv, 1, nil); len(p) > 1 {
			m = p[0]
		}
	}
	if !strings.EqualFold(m, "DELETE") {
		return
	}
	for _, a := range argv[1:] {
		h := urlHostName(a)
		if h == "" && c.prog != "curl" && c.prog != "wget" && strings.Contains(a, ".") && !strings.HasPrefix(a, "-") && !strings.Contains(a, "=") {
			h = a // httpie: example.org/path
			if i := strings.IndexByte(h, '/'); i >= 0 {
				h = h[:i]
			}
		}
		if h != "" && !localHost(h) {
			w.remoteDestroyed(c)
			return
		}
	}
}

// ---- databases

// sqlDestroy: a SQL client with a destructive statement against a server
// that is not this machine.
func sqlDestroy(w *walker, c *cmdCtx, argv []string) {
	var stmts []string
	host := ""
	hostSet := false
	switch c.prog {
	case "psql", "pgcli":
		stmts = optValues(argv, "-c", "--command")
		if h, ok := optValue(argv, "-h", "--host"); ok {
			host, hostSet = h, true
		}
		for _, a := range append(positionals(argv, 1, set("-c", "--command", "-h", "--host", "-U", "--username", "-p", "--port", "-f", "--file", "-v", "--set", "-o", "--output", "-P", "--pset", "-F", "-R", "-T")), optValues(argv, "-d", "--dbname")...) {
			if h := urlHostName(a); h != "" {
				host, hostSet = h, true
			} else if strings.Contains(a, "host=") {
				_, v, _ := strings.Cut(a, "host=")
				host, hostSet = strings.Fields(v + " ")[0], true
			}
		}
		if !hostSet {
			host, hostSet = w.envValue("PGHOST")
		}
	case "mysql", "mariadb", "mycli":
		stmts = optValues(argv, "-e", "--execute")
		if h, ok := optValue(argv, "-h", "--host"); ok {
			host, hostSet = h, true
		} else {
			host, hostSet = w.envValue("MYSQL_HOST")
		}
	case "clickhouse-client", "clickhouse":
		stmts = optValues(argv, "-q", "--query")
		if h, ok := optValue(argv, "-h", "--host"); ok {
			host, hostSet = h, true
		}
	case "cqlsh":
		stmts = optValues(argv, "-e", "--execute")
		if p := positionals(argv, 1, set("-e", "--execute", "-u", "--username", "-p", "--password", "-k", "--keyspace", "-f", "--file", "--cqlshrc", "--request-timeout", "--connect-timeout", "--cqlversion", "--encoding")); len(p) > 0 {
			host, hostSet = p[0], true
		}
	case "sqlcmd":
		stmts = optValues(argv, "-Q", "-q")
		if h, ok := optValue(argv, "-S"); ok {
			host, hostSet = h, true
			if i := strings.IndexAny(host, `,\`); i >= 0 {
				host = host[:i]
			}
			host = strings.TrimPrefix(strings.TrimPrefix(host, "tcp:"), "np:")
		}
	case "cockroach":
		stmts = optValues(argv, "-e", "--execute")
		if u, ok := optValue(argv, "--url"); ok {
			host, hostSet = urlHostName(u), true
		} else if h, ok := optValue(argv, "--host"); ok {
			host, hostSet = h, true
		}
	}
	if !w.remoteServer(host, hostSet) {
		return
	}
	for _, s := range stmts {
		if destructiveSQL(s) {
			w.remoteDestroyed(c)
			return
		}
	}
}

// remoteServer: the server a client talks to is not this machine. Inside a
// remote shell (ssh HOST 'psql …') the client's default is that host.
func (w *walker) remoteServer(host string, given bool) bool {
	if !given || host == "" {
		return w.remoteDepth > 0
	}
	if strings.HasPrefix(host, "$") {
		return true // filled in later: not known to be local
	}
	return !localHost(host) || w.remoteDepth > 0 && !strings.HasPrefix(host, "/")
}

// envValue is the value of an environment variable this command line set
// (PGHOST=db.example psql …).
func (w *walker) envValue(name string) (string, bool) {
	for _, e := range w.res.Env {
		if strings.HasPrefix(e, name+"=") {
			return e[len(name)+1:], true
		}
	}
	return "", false
}

// destructiveSQL: a statement that drops, truncates, or deletes or updates
// every row. String literals and comments are skipped, so a query that
// searches for the words ("… ILIKE '%drop table%'") is not one.
func destructiveSQL(s string) bool {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		ch := s[i]
		switch {
		case ch == '\'':
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				i = len(s)
				continue
			}
			i += j + 1
			b.WriteString(" '' ")
		case ch == '-' && i+1 < len(s) && s[i+1] == '-':
			j := strings.IndexByte(s[i:], '\n')
			if j < 0 {
				i = len(s)
				continue
			}
			i += j
		case ch == '/' && i+1 < len(s) && s[i+1] == '*':
			j := strings.Index(s[i+2:], "*/")
			if j < 0 {
				i = len(s)
				continue
			}
			i += j + 3
		default:
			b.WriteByte(ch)
		}
	}
	for _, st := range strings.Split(strings.ToUpper(b.String()), ";") {
		f := strings.Fields(st)
		if len(f) == 0 {
			continue
		}
		where := false
		for _, x := range f {
			if x == "WHERE" {
				where = true
			}
		}
		switch f[0] {
		case "DROP", "TRUNCATE":
			return true
		case "DELETE", "UPDATE":
			if !where {
				return true
			}
		case "ALTER":
			for _, x := range f[1:] {
				if x == "DROP" {
					return true
				}
			}
		}
	}
	return false
}

// mongoDestroy: mongosh --eval with a drop or an unfiltered delete, on a
// server that is not this machine.
func mongoDestroy(w *walker, c *cmdCtx, argv []string) {
	host, given := optValue(argv, "--host")
	if u, ok := optValue(argv, "--uri"); ok {
		host, given = urlHostName(u), true
	}
	for _, p := range positionals(argv, 1, set("--eval", "--host", "--port", "-u", "--username", "-p", "--password", "--authenticationDatabase", "--file", "-f", "--uri")) {
		if h := urlHostName(p); h != "" {
			host, given = h, true
		} else if i := strings.IndexByte(p, '/'); i > 0 && strings.Contains(p[:i], ".") {
			host, given = p[:i], true // host[:port]/db
		}
	}
	if !w.remoteServer(host, given) {
		return
	}
	for _, js := range optValues(argv, "--eval") {
		if destructiveMongo(js) {
			w.remoteDestroyed(c)
			return
		}
	}
}

func destructiveMongo(js string) bool {
	s := strings.ReplaceAll(strings.ToLower(js), " ", "")
	for _, m := range []string{".dropdatabase(", ".drop(", "deletemany({})", ".remove({})", "deletemany()", ".dropuser(", ".dropallusers("} {
		if strings.Contains(s, m) {
			return true
		}
	}
	return false
}

// redisDestroy: FLUSHALL, FLUSHDB, or DEL/UNLINK fed by xargs, on a server
// that is not this machine.
func redisDestroy(w *walker, c *cmdCtx, argv []string) {
	host, given := optValue(argv, "-h")
	if u, ok := optValue(argv, "-u"); ok {
		host, given = urlHostName(u), true
	}
	if !w.remoteServer(host, given) {
		return
	}
	for _, a := range positionals(argv, 1, set("-h", "-p", "-s", "-a", "-u", "-n", "-r", "-i", "-d", "--user", "--pass", "--pattern", "--eval", "--count", "--cacert", "--cert", "--key", "--sni")) {
		switch strings.ToLower(a) {
		case "flushall", "flushdb", "shutdown":
			w.remoteDestroyed(c)
			return
		case "del", "unlink":
			if c.xargs {
				w.remoteDestroyed(c)
				return
			}
		}
	}
}

// dropdbDestroy: dropdb -h HOST DB.
func dropdbDestroy(w *walker, c *cmdCtx, argv []string) {
	host, given := optValue(argv, "-h", "--host")
	if !given {
		host, given = w.envValue("PGHOST")
	}
	if w.remoteServer(host, given) {
		w.remoteDestroyed(c)
	}
}

// mysqladminDestroy: mysqladmin -h HOST drop DB.
func mysqladminDestroy(w *walker, c *cmdCtx, argv []string) {
	host, given := optValue(argv, "-h", "--host")
	if !hasAnyArg(argv, "drop") || !w.remoteServer(host, given) {
		return
	}
	w.remoteDestroyed(c)
}

// ---- remote shells

// remoteLocalDestroy: inside ssh HOST '…' (or ansible -a '…'), a command
// that wipes a system path, stops a service or prunes the container store
// on that host.
func remoteLocalDestroy(w *walker, c *cmdCtx, argv []string) {
	if w.remoteDepth == 0 {
		return
	}
	switch c.prog {
	case "rm":
		rec := false
		for _, a := range argv[1:] {
			if a == "--recursive" || len(a) > 1 && a[0] == '-' && a[1] != '-' && strings.ContainsAny(a, "rR") {
				rec = true
			}
		}
		if !rec {
			return
		}
		for _, a := range positionals(argv, 1, nil) {
			if strings.HasPrefix(a, "/") && !strings.HasPrefix(a, "/tmp/") && !strings.HasPrefix(a, "/var/tmp/") {
				w.remoteDestroyed(c)
				return
			}
		}
	case "systemctl":
		if hasAnyArg(argv, "stop", "disable", "mask", "kill", "poweroff", "halt", "reboot") {
			w.remoteDestroyed(c)
		}
	case "docker", "podman":
		if len(argv) > 2 && (argv[1] == "system" || argv[1] == "volume") && argv[2] == "prune" {
			w.remoteDestroyed(c)
		}
	}
}

// ansibleDestroy: an ad-hoc ansible command (-m shell/command/raw -a
// 'CMD') is a remote shell on every host of the inventory.
func (w *walker) ansibleDestroy(c *cmdCtx, argv []string) {
	m, _ := optValue(argv, "-m", "--module-name")
	switch m {
	case "shell", "command", "raw", "ansible.builtin.shell", "ansible.builtin.command", "ansible.builtin.raw", "":
	default:
		return
	}
	a, ok := optValue(argv, "-a", "--args")
	if !ok || a == "" {
		return
	}
	w.remoteDepth++
	sc := w.sub(c.sc)
	w.nestedProgram(a, sc, nil)
	w.remoteDepth--
}

// historyDestroy: rm -r of a repository's .git directory.
func historyDestroy(w *walker, c *cmdCtx, argv []string) {
	rec := false
	for _, a := range argv[1:] {
		if a == "--recursive" || len(a) > 1 && a[0] == '-' && a[1] != '-' && strings.ContainsAny(a, "rR") {
			rec = true
		}
	}
	if !rec {
		return
	}
	for _, a := range positionals(argv, 1, nil) {
		a = strings.TrimSuffix(a, "/")
		if a == ".git" || strings.HasSuffix(a, "/.git") {
			w.signal(SignalHistoryDestroy, c.sc.detail())
			return
		}
	}
}
