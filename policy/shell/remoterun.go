package shell

import "strings"

// Runners that fetch a program and run it in one step: deno run URL,
// uvx --from URL, pipx run URL, uv run URL (npx and the package managers'
// dlx/exec are installsFromURL's). Each is curl | sh with a friendlier
// name (MITRE ATT&CK T1059, T1105): the code runs as it arrives, with no
// install step anyone reviews.

// runnerRegistries serve packages by name under a registry's own rules
// (deno.land/x, jsr.io, esm.sh's builds of npm packages): a module from
// one is what `npx pkg` is, not a stranger's script.
var runnerRegistries = set("deno.land", "jsr.io", "esm.sh")

// publicForges host source whose owner is named in the URL; an install
// (not a run) from one is a dependency taken from its source, as
// `pip install git+https://github.com/psf/requests` is (decided: stays
// allowed; the same spec handed to a runner still downloads and runs).
var publicForges = set("github.com", "gitlab.com", "bitbucket.org", "codeberg.org")

// remoteRun raises download-exec for a runner handed a URL or a VCS spec.
func (w *walker) remoteRun(c *cmdCtx) {
	argv := c.argv
	if len(argv) < 2 {
		return
	}
	from := 1
	switch c.prog {
	case "deno":
		switch argv[1].s {
		case "run", "x", "install", "compile", "serve", "test", "bench":
		default:
			return
		}
		from = 2
	case "uvx":
	case "pipx":
		if argv[1].s != "run" {
			return
		}
		from = 2
	case "uv":
		if argv[1].s != "run" && argv[1].s != "tool" {
			return
		}
		from = 2
	default:
		return
	}
	for _, a := range argv[from:] {
		s := a.s
		if _, v, ok := strings.Cut(s, "="); ok && strings.HasPrefix(s, "-") {
			s = v
		}
		if h, ok := remoteSpecHost(s); ok && !runnerRegistries.has(h) {
			w.signal(SignalDownloadExec, c.sc.detail())
			return
		}
	}
}

// remoteSpecHost returns the host of a URL or VCS spec (git+https://h/…,
// https://h/…, name @ https://h/…); ok is false for anything else.
func remoteSpecHost(s string) (string, bool) {
	s = strings.ToLower(strings.Trim(s, `"'`))
	if i := strings.Index(s, "@ "); i >= 0 {
		s = strings.TrimSpace(s[i+1:])
	}
	for _, p := range []string{"git+", "hg+", "svn+", "bzr+"} {
		s = strings.TrimPrefix(s, p)
	}
	if !strings.HasPrefix(s, "http://") && !strings.HasPrefix(s, "https://") && !strings.HasPrefix(s, "git://") && !strings.HasPrefix(s, "ssh://") {
		return "", false
	}
	h := urlHostOf(s)
	if i := strings.Index(h, "://"); i >= 0 {
		h = h[i+3:]
	}
	if i := strings.LastIndexByte(h, ':'); i >= 0 && !strings.HasSuffix(h, "]") {
		h = h[:i]
	}
	return h, h != ""
}

// forgeInstall: an install (not a run) from a public forge.
func forgeInstall(prog, sub, spec string) bool {
	switch prog {
	case "pip", "pip3":
	case "npm", "yarn", "pnpm", "bun":
		if sub != "install" && sub != "i" && sub != "add" {
			return false
		}
	default:
		return false
	}
	h, ok := remoteSpecHost(spec)
	return ok && publicForges.has(h)
}
