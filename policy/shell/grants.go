package shell

import "strings"

// Access added to a forge account or repository (MITRE ATT&CK T1098.004
// SSH Authorized Keys on a forge account, T1098.001 Additional Cloud
// Credentials): whoever holds the key, the scope, the runner or the webhook
// gets in later, after the session. It asks (access-grant): a key, a deploy
// key or a GPG key added from anywhere but the user's own ~/.ssh or
// ~/.gnupg, a token's scopes widened (gh auth refresh -s), a webhook or a
// self-hosted runner registered, the workflow token made writable, a
// repository secret set. The account manipulations that block
// (persist.account-access: gh api POST …/keys, IAM policies) stay blocks;
// listing keys, hooks and secrets stays allowed.

const SignalAccessGrant Signal = "access-grant"

func (w *walker) granted(c *cmdCtx) { w.signal(SignalAccessGrant, c.sc.detail()) }

var ghKeyValued = set("-t", "--title", "-R", "--repo", "--type", "-b", "--body", "-f", "--env-file", "-e", "--env", "-o", "--org", "-a", "--app", "-h", "--hostname", "-s", "--scopes", "-v", "--visibility", "--repos")

// forgeGrant: gh / glab.
func forgeGrant(w *walker, c *cmdCtx, argv []string) {
	p := positionals(argv, 1, ghKeyValued)
	if len(p) < 2 {
		return
	}
	switch {
	case (p[0] == "ssh-key" || p[0] == "gpg-key") && p[1] == "add",
		p[0] == "repo" && p[1] == "deploy-key" && len(p) > 2 && p[2] == "add",
		p[0] == "deploy-key" && p[1] == "add":
		key := ""
		if p[0] == "repo" && len(p) > 3 {
			key = p[3]
		} else if p[0] != "repo" && len(p) > 2 {
			key = p[2]
		}
		if !w.ownKeyFile(key) {
			w.granted(c)
		}
	case p[0] == "auth" && p[1] == "refresh":
		if _, ok := optValue(argv, "-s", "--scopes"); ok {
			w.granted(c)
		}
	case p[0] == "secret" && p[1] == "set":
		w.granted(c)
	case p[0] == "api":
		m, path := forgeAPICall(argv)
		if m == "GET" || m == "HEAD" {
			return
		}
		path = strings.TrimPrefix(path, "/")
		switch {
		case strings.HasSuffix(path, "/hooks") || strings.Contains(path, "/hooks/") && m == "PATCH",
			strings.Contains(path, "/actions/runners/registration-token"), strings.Contains(path, "/actions/runners/jit"),
			strings.Contains(path, "/actions/permissions") && m == "PUT",
			strings.Contains(path, "/actions/secrets/") && m == "PUT",
			strings.HasSuffix(path, "/user/keys") || path == "user/keys" || strings.HasSuffix(path, "/deploy_keys"):
			w.granted(c)
		}
	}
}

// ownKeyFile: a public key from the user's own ~/.ssh or ~/.gnupg is
// theirs to register (a laptop's key added to GitHub); a key from a temp
// directory, stdin or the network is someone's.
func (w *walker) ownKeyFile(p string) bool {
	if p == "" || p == "-" || w.home == "" {
		return false
	}
	for _, d := range []string{"/.ssh/", "/.gnupg/"} {
		if strings.HasPrefix(p, strings.TrimSuffix(w.home, "/")+d) {
			return true
		}
	}
	return false
}

// httpGrant: curl POSTing a key to a forge's account API (GitLab
// /user/keys, GitHub /user/keys, deploy keys, hooks).
func httpGrant(w *walker, c *cmdCtx, argv []string) {
	post := false
	if m, ok := optValue(argv, "-X", "--request"); ok {
		post = strings.EqualFold(m, "POST") || strings.EqualFold(m, "PUT")
	} else if _, ok := optValue(argv, "-d", "--data", "--data-raw", "--data-urlencode", "-F", "--form", "--json"); ok {
		post = true
	}
	if !post {
		return
	}
	for _, a := range argv[1:] {
		if urlHostName(a) == "" {
			continue
		}
		l := strings.ToLower(a)
		if i := strings.IndexAny(l, "?#"); i >= 0 {
			l = l[:i]
		}
		for _, s := range []string{"/user/keys", "/user/gpg_keys", "/deploy_keys", "/keys", "/hooks", "/collaborators/", "/members", "/runners/registration-token", "/user/ssh_signing_keys"} {
			if strings.HasSuffix(l, s) || strings.Contains(l, s+"/") {
				w.granted(c)
				return
			}
		}
	}
}
