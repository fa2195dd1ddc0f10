package shell

import (
	"strings"
)

// SignalPackageSource: a package manager's source of packages pointed at
// another host, or its checksum check switched off (pkgsource.go).
const SignalPackageSource Signal = "package-source"

// publicRegistries are the hosts the package managers fetch from by
// default; a source setting that names one of them (or a loopback
// registry such as a local verdaccio) redirects nothing.
var publicRegistries = set("registry.npmjs.org", "registry.yarnpkg.com", "pypi.org", "pypi.python.org",
	"files.pythonhosted.org", "proxy.golang.org", "sum.golang.org", "rubygems.org", "index.rubygems.org",
	"crates.io", "index.crates.io", "static.crates.io", "api.nuget.org", "repo.maven.apache.org", "repo1.maven.org",
	"conda.anaconda.org", "repo.anaconda.com", "jsr.io", "registry.bower.io", "repo.packagist.org", "packagist.org",
	// the build tools' own distributions, which their wrappers download and run
	"services.gradle.org", "downloads.gradle.org")

// packageSource records a setting of where a package manager gets its
// packages (the registry, index or proxy it downloads code from and runs
// at install) that names another host, and a switch that turns its
// checksum database off: every later install then runs what that host
// serves. The table is the managers' own documented setting names:
//
//	npm|pnpm|yarn|bun config set registry|@scope:registry|npmRegistryServer URL, npm set …
//	npm|pnpm|yarn|bun install|add|i --registry URL
//	pip|pip3|uv pip install|download|wheel --index-url|-i|--extra-index-url|--find-links|-f URL
//	pip|pip3|uv config set *.index-url|*.extra-index-url|*.trusted-host|*.find-links URL
//	go env -w GOPROXY=URL GOSUMDB=off GONOSUMDB=… GONOSUMCHECK=… GOINSECURE=… GOFLAGS=-insecure
//	gem sources --add|-a URL, gem install --source|-s URL, cargo install --git|--index URL
//	bundle config [set] mirror.* URL
//	poetry source add NAME URL, conda config --add channels URL, conda config --set channel_alias URL
//	nuget sources add -Source URL, dotnet nuget add source URL
func (w *walker) packageSource(c *cmdCtx) {
	argv := c.argv
	if len(argv) < 3 {
		return
	}
	words := make([]string, 0, len(argv)-1)
	for _, a := range argv[1:] {
		words = append(words, a.s)
	}
	hit := false
	switch c.prog {
	case "npm", "pnpm", "yarn", "bun":
		hit = npmSource(words)
	case "pip", "pip3", "uv":
		if words[0] == "install" || words[0] == "download" || words[0] == "wheel" || c.prog == "uv" && words[0] == "pip" {
			hit = optionSource(words[1:], pipSourceOpts...)
		} else if k, v, ok := configSet(words); ok {
			hit = anySuffix(strings.ToLower(k), "index-url", "extra-index-url", "trusted-host", "find-links") && foreignSource(v, true)
		}
	case "go":
		if words[0] == "env" {
			for _, s := range words[1:] {
				if k, v, ok := strings.Cut(s, "="); ok && goSourceSetting(k, v) {
					hit = true
				}
			}
		}
	case "gem":
		hit = (words[0] == "sources" || words[0] == "install" || words[0] == "update") && optionSource(words[1:], "--add", "-a", "--source", "-s")
	case "cargo":
		hit = words[0] == "install" && optionSource(words[1:], "--git", "--index")
	case "bundle", "bundler":
		for i, s := range words {
			if strings.HasPrefix(strings.ToLower(s), "mirror.") && i+1 < len(words) && foreignSource(words[i+1], false) {
				hit = true
			}
		}
	case "poetry":
		hit = len(words) >= 4 && words[0] == "source" && words[1] == "add" && anyForeign(words[2:])
	case "conda", "mamba", "micromamba":
		// conda config --add|--append|--prepend channels URL, --set channel_alias URL
		if words[0] == "config" {
			for i := 1; i+2 < len(words); i++ {
				switch words[i] {
				case "--add", "--append", "--prepend", "--set":
					k := strings.ToLower(words[i+1])
					hit = hit || (k == "channels" || k == "default_channels" || k == "channel_alias") && foreignSource(words[i+2], false)
				}
			}
		}
	case "nuget", "nuget.exe":
		hit = strings.EqualFold(words[0], "sources") && anyForeign(words[1:])
	case "dotnet":
		hit = len(words) >= 3 && words[0] == "nuget" && words[1] == "add" && words[2] == "source" && anyForeign(words[3:])
	}
	if hit {
		w.signal(SignalPackageSource, c.sc.detail())
	}
}

// pipSourceOpts are pip's options that name where packages come from.
var pipSourceOpts = []string{"--index-url", "-i", "--extra-index-url", "--find-links", "-f", "--default-index", "--index"}

// sourceOpt says whether s is an option whose value is a package source
// (packageSource judges it; it is no package to install).
func sourceOpt(s string) bool {
	if k, _, ok := strings.Cut(s, "="); ok {
		s = k
	}
	switch s {
	case "--registry", "--source", "--index-url", "-i", "--extra-index-url", "--find-links", "-f", "--default-index", "--index", "--trusted-host":
		return true
	}
	return false
}

// npmSource: a registry setting or option of the npm family.
func npmSource(words []string) bool {
	if k, v, ok := configSet(words); ok {
		k = strings.ToLower(k)
		return (k == "registry" || strings.HasSuffix(k, ":registry") || strings.HasSuffix(k, "npmregistryserver")) && foreignSource(v, true)
	}
	switch words[0] {
	case "install", "i", "add", "ci", "update", "up", "exec", "x", "dlx", "publish":
		return optionSource(words[1:], "--registry")
	}
	return false
}

// configSet reads `config set KEY VALUE`, `config set KEY=VALUE` and npm's
// `set KEY VALUE`, with options anywhere.
func configSet(words []string) (key, val string, ok bool) {
	var pos []string
	for _, s := range words {
		if !strings.HasPrefix(s, "-") {
			pos = append(pos, s)
		}
	}
	switch {
	case len(pos) >= 3 && (pos[0] == "config" || pos[0] == "c") && pos[1] == "set":
		pos = pos[2:]
	case len(pos) >= 2 && pos[0] == "set":
		pos = pos[1:]
	default:
		return "", "", false
	}
	if k, v, found := strings.Cut(pos[0], "="); found {
		return k, v, true
	}
	if len(pos) < 2 {
		return "", "", false
	}
	return pos[0], pos[1], true
}

// optionSource: one of the options (as "--opt VALUE" or "--opt=VALUE")
// names a foreign source.
func optionSource(words []string, opts ...string) bool {
	for i, s := range words {
		for _, o := range opts {
			if s == o && i+1 < len(words) && foreignSource(words[i+1], false) {
				return true
			}
			if v, ok := strings.CutPrefix(s, o+"="); ok && len(o) > 2 && foreignSource(v, false) {
				return true
			}
		}
	}
	return false
}

func anyForeign(words []string) bool {
	for _, s := range words {
		if foreignSource(s, false) {
			return true
		}
	}
	return false
}

// goSourceSetting: a go env -w setting that moves the module source or
// drops the checksum check.
func goSourceSetting(k, v string) bool {
	switch strings.ToUpper(k) {
	case "GOPROXY":
		for _, p := range strings.FieldsFunc(v, func(r rune) bool { return r == ',' || r == '|' }) {
			if p != "direct" && p != "off" && foreignSource(p, true) {
				return true
			}
		}
	case "GOSUMDB":
		return v == "off" || v != "" && !strings.HasPrefix(v, "sum.golang.org")
	case "GONOSUMDB", "GONOSUMCHECK", "GOINSECURE":
		return v != ""
	case "GOFLAGS":
		return strings.Contains(v, "-insecure")
	}
	return false
}

// foreignSource: s names a host that is not a public registry or a
// loopback one. bare: a host without a scheme counts (pip's trusted-host).
func foreignSource(s string, bare bool) bool {
	s = strings.Trim(s, `"'`)
	h := urlHostOf(s)
	if h == "" {
		if !bare || s == "" || strings.ContainsAny(s, " /$") || !strings.Contains(s, ".") {
			return false
		}
		h = s
	} else if i := strings.Index(h, "://"); i >= 0 {
		h = h[i+3:]
	}
	if strings.HasPrefix(h, "[") {
		if i := strings.IndexByte(h, ']'); i > 0 {
			h = h[1:i]
		}
	} else if i := strings.IndexByte(h, ':'); i >= 0 && strings.Count(h, ":") == 1 {
		h = h[:i]
	}
	h = strings.ToLower(h)
	if h == "" || h == "localhost" || strings.HasSuffix(h, ".localhost") || strings.HasPrefix(h, "127.") || h == "::1" {
		return false
	}
	return !publicRegistries.has(h)
}

func anySuffix(s string, suffixes ...string) bool {
	for _, x := range suffixes {
		if strings.HasSuffix(s, x) {
			return true
		}
	}
	return false
}

// ForeignPackageSource says whether the URL u points a package download at a
// host other than a public registry or a loopback one (a lockfile's pinned
// URL, policy/autorun_extract.go).
func ForeignPackageSource(u string) bool { return foreignSource(u, false) }
