package policy

import (
	"path"
	"strings"
	"sync"

	"github.com/agentairlock/airlock/policy/shell"
)

// Files that run by themselves. A write to one of them (a shell start-up
// file, a git hook, a task definition, a lifecycle script …) is judged by
// what its content would run: the catalogue (profiles/autorun.yaml,
// compiled into autorun_gen.go) says which paths these are and how to find
// the commands in their text; each command is read by policy/shell and its
// facts join the call's, named "content of PATH (runs WHEN), runs: CMD",
// so the forbids that judge a Bash call judge the write. Where the file is
// (a home, the system) is the persist.* forbids' business, not this file's.

// autorunEntry is one catalogue entry.
type autorunEntry struct {
	ID      string
	OS      string // unix, linux, darwin, windows, any
	Format  string
	Keys    []string
	Planted bool
	Remote  bool // runs on another machine: the paths its commands name are not this one's
	Runs    string
	Attack  string
	globs   []PathPattern
}

// autorunFormats are the formats the extractors read (autorun_extract.go).
var autorunFormats = map[string]bool{
	"shell": true, "pwsh": true, "python": true, "ruby": true, "lua": true, "node": true, "r": true, "julia": true, "groovy": true,
	"pth": true, "vim": true, "elisp": true, "lines": true,
	"json-keys": true, "yaml-keys": true, "toml-keys": true, "ini-keys": true, "xml-options": true,
	"gitconfig": true, "gitattributes": true, "env-file": true, "ssh-config": true, "authorized-keys": true,
	"desktop": true, "systemd": true, "plist": true, "crontab": true, "any-exec": true, "lockfile": true, "makefile": true,
}

// SignalAutorunUntrusted: content of a file that runs by itself would run
// a program from a temp or hidden place or a fetched file, or it is a
// dependency's install script planted in place.
const signalAutorunUntrusted Signal = "autorun-untrusted"

// lookupAutorun returns the catalogue entry whose glob fits the absolute
// path p, or nil; the first in catalogue order when several do.
func lookupAutorun(p string) *autorunEntry {
	var all [4]*autorunEntry
	if es := lookupAutorunAll(p, all[:0]); len(es) > 0 {
		return es[0]
	}
	return nil
}

// lookupAutorunAll appends to dst every entry p fits (a devcontainer.json
// is both the host's initializeCommand and the container's commands), in
// catalogue order, at most cap(dst) when dst has room, else 8.
func lookupAutorunAll(p string, dst []*autorunEntry) []*autorunEntry {
	if p == "" {
		return dst
	}
	limit := cap(dst)
	if limit == 0 {
		limit = 8
	}
	fold := FoldPath(p)
	idx := autorunIndex()
	var hit [128]bool // entries found, by index (the catalogue is smaller; checked by a test)
	try := func(cands []int32) {
		for _, i := range cands {
			if int(i) < len(hit) && !hit[i] && matchAny(autorunCatalogue[i].globs, fold) {
				hit[i] = true
			}
		}
	}
	try(idx.always)
	for rest := fold; rest != ""; {
		seg := rest
		if i := strings.IndexByte(rest, '/'); i >= 0 {
			seg, rest = rest[:i], rest[i+1:]
		} else {
			rest = ""
		}
		if c, ok := idx.bySeg[seg]; ok {
			try(c)
		}
	}
	for i := range hit {
		if hit[i] && len(dst) < limit {
			dst = append(dst, &autorunCatalogue[i])
		}
	}
	return dst
}

// autorunIdx finds the entries a path may fit without trying every glob:
// each glob's last literal segment (a name without wildcards) must be one
// of the path's segments; a glob without one is always tried.
type autorunIdx struct {
	bySeg  map[string][]int32
	always []int32
}

// autorunIndex is built on the first lookup (a call that writes nothing
// never pays for it).
var autorunIndex = sync.OnceValue(func() autorunIdx {
	idx := autorunIdx{bySeg: make(map[string][]int32, 256)}
	add := func(list []int32, i int32) []int32 {
		if n := len(list); n > 0 && list[n-1] == i {
			return list
		}
		return append(list, i)
	}
	for i := range autorunCatalogue {
		for _, g := range autorunCatalogue[i].globs {
			key := ""
			for _, alt := range g.alts {
				k := lastLiteralSegment(alt)
				if k == "" || key != "" && k != key {
					key = ""
					break
				}
				key = k
			}
			if key == "" {
				idx.always = add(idx.always, int32(i))
				continue
			}
			idx.bySeg[key] = add(idx.bySeg[key], int32(i))
		}
	}
	return idx
})

func lastLiteralSegment(glob string) string {
	segs := strings.Split(glob, "/")
	for i := len(segs) - 1; i >= 0; i-- {
		if s := segs[i]; s != "" && !strings.ContainsAny(s, "*?{}") {
			return s
		}
	}
	return ""
}

// maxAutorunDepth bounds content that writes content (an .envrc whose
// command appends to ~/.bashrc is judged; what that line writes is not).
const maxAutorunDepth = 2

// autorunState is what the classifier keeps for the autorun check.
type autorunState struct {
	contents []autorunContent
	depth    int
	last     shell.Facts // the facts of the derived command being parsed
}

type autorunContent struct {
	arg      string
	text     string
	fragment bool // an Edit's new text: a piece of the file, not all of it
}

// autorunContentKeys are the fields of write tools that carry the text
// written: Write content, Edit and MultiEdit new_string, MCP write tools'
// content and edits' newText.
var autorunContentKeys = map[string]bool{"content": true, "new_string": true, "newtext": true, "new_text": true, "text": true, "new_source": true, "contents": true, "data": true}

// noteContent keeps a write tool's content for the autorun check.
//
// An MCP write tool names its content field as it likes (body, value,
// payload, a prose-named text): any of its strings that does not name a
// place may be what lands in the file, so each is kept, as a whole file
// (a server's own field is not known to be a piece of one).
func (c *classifier) noteContent(name, key, s string) {
	if c.kind != kindWrite || s == "" || len(c.autorun.contents) >= 64 {
		return
	}
	if !autorunContentKeys[key] {
		if !c.f.roles.mcp || strings.HasPrefix(name, "key:") || placeKey(key) {
			return
		}
		c.autorun.contents = append(c.autorun.contents, autorunContent{arg: name, text: s})
		return
	}
	c.autorun.contents = append(c.autorun.contents, autorunContent{arg: name, text: s, fragment: key != "content" && key != "contents" && key != "data"})
}

// autorunWrites judges the content of a write tool's call when its target
// is a file that runs by itself.
func (c *classifier) autorunWrites() {
	c.pathPlants()
	if c.kind != kindWrite || len(c.autorun.contents) == 0 || c.f.Primary == "" || c.f.TooLarge != "" {
		return
	}
	target := ExpandPath(c.f.Primary, c.env.Cwd, c.env.Home)
	var buf [4]*autorunEntry
	for _, e := range lookupAutorunAll(target, buf[:0]) {
		for _, ct := range c.autorun.contents {
			c.judgeContent(e, target, ct.text, ct.fragment)
		}
	}
}

// autorunShell judges what a shell command writes into files that run by
// themselves, and the settings it changes that name programs.
func (c *classifier) autorunShell(r *shell.Facts) {
	if c.autorun.depth > 0 {
		// runDerived reads the facts of the command it parsed
		defer func() { c.autorun.last = *r }()
	}
	if c.autorun.depth >= maxAutorunDepth {
		return
	}
	var buf [4]*autorunEntry
	for _, w := range r.Written {
		es := lookupAutorunAll(w.Path, buf[:0])
		if len(es) == 0 {
			continue
		}
		e := es[0]
		for _, more := range es[1:] {
			if w.Known && w.Text != "" {
				c.judgeContent(more, w.Path, w.Text, w.Append)
			}
		}
		if w.Fetched && !c.hasSignal(signalAutorunUntrusted) {
			c.f.Signals = append(c.f.Signals, signalFact{Signal: signalAutorunUntrusted,
				Detail: "a download written to " + c.tilde(w.Path) + ", which runs " + e.Runs, Arg: "written to " + c.tilde(w.Path)})
		}
		if w.Known && w.Text != "" {
			c.judgeContent(e, w.Path, w.Text, w.Append)
		}
		if w.From != "" && !w.Staged && untrustedPlace(w.From, trustedRoots{c.env.Home, c.env.Cwd, path.Dir(w.Path)}) && !c.hasSignal(signalAutorunUntrusted) {
			// staged in an earlier call, where nobody judged it as a file
			// that runs by itself
			c.f.Signals = append(c.f.Signals, signalFact{Signal: signalAutorunUntrusted,
				Detail: w.From + " copied to " + c.tilde(w.Path) + ", which runs " + e.Runs, Arg: "written to " + c.tilde(w.Path)})
		}
	}
	for _, sc := range r.Commands {
		if s, ok := settingWrite(sc.Argv); ok {
			c.judgeSetting(s, sc.Dir)
		}
	}
}

// judgeContent extracts the commands text would run from a file at target
// and adds their facts.
func (c *classifier) judgeContent(e *autorunEntry, target, text string, fragment bool) {
	if strings.Contains(text, "orkspaceFolder}") || strings.Contains(text, "${workspaceRoot}") {
		text = editorVars(text, path.Dir(target))
	}
	cmds := extractAutorun(e, text, fragment)
	if len(cmds) == 0 {
		return
	}
	where := c.tilde(target)
	if e.Planted {
		c.f.Signals = append(c.f.Signals, signalFact{Signal: signalAutorunUntrusted,
			Detail: "a dependency's install script planted in " + where + ": " + clip(cmds[0].cmd, 80), Arg: "content of " + where})
	}
	dir := path.Dir(target)
	for _, x := range cmds {
		n := len(c.f.Paths)
		c.runDerived("content of "+where+" (runs "+e.Runs+")", x, dir)
		if e.Remote {
			c.f.Paths = c.f.Paths[:n]
		}
		if strings.Contains(x.cmd, "GHA_ALL_SECRETS") && !c.hasSignal(signalAutorunUntrusted) {
			c.f.Signals = append(c.f.Signals, signalFact{Signal: signalAutorunUntrusted,
				Detail: "every secret of the repository (toJSON(secrets)) handed to: " + clip(oneLine(x.cmd), 80), Arg: "content of " + where})
		}
	}
}

// runDerived parses one extracted command in dir and adds its facts,
// named after where it came from.
func (c *classifier) runDerived(from string, x autorunCmd, dir string) {
	label := from + ", runs: " + clip(oneLine(x.cmd), 100)
	save := c.env.Cwd
	c.env.Cwd = dir
	c.autorun.depth++
	n := len(c.f.Paths)
	c.autorun.last = shell.Facts{}
	c.shell(label, x.cmd)
	r := c.autorun.last
	c.autorun.depth--
	c.env.Cwd = save
	// code handed to an interpreter names paths it may read or write; a
	// file that runs later is judged by what it runs, so they count as reads
	for i := n; i < len(c.f.Paths); i++ {
		if c.f.Paths[i].Access == accessAny {
			c.f.Paths[i].Access = accessRead
		}
	}
	c.f.Paths = append(c.f.Paths[:n], dropLoadedEnv(c.f.Paths[n:], &r)...)
	c.derivedTrust(&r, label)
	if d, ok := untrustedRun(&r, x, trustedRoots{c.env.Home, c.env.Cwd, dir}); ok {
		c.f.Signals = append(c.f.Signals, signalFact{Signal: signalAutorunUntrusted, Detail: d, Arg: label})
	}
}

func oneLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexAny(s, "\r\n"); i >= 0 {
		s = strings.TrimSpace(s[:i]) + " …"
	}
	return s
}

// tilde writes p under the home as ~/….
func (c *classifier) tilde(p string) string {
	h := strings.TrimSuffix(c.env.Home, "/")
	if h != "" && strings.HasPrefix(p, h+"/") {
		return "~" + p[len(h):]
	}
	return p
}

// loaderVars are environment variables that make programs load or run
// a file they name.
var loaderVars = map[string]bool{
	"PATH": true, "NODE_OPTIONS": true, "LD_PRELOAD": true, "LD_LIBRARY_PATH": true, "DYLD_INSERT_LIBRARIES": true,
	"DYLD_LIBRARY_PATH": true, "PYTHONSTARTUP": true, "PYTHONPATH": true, "PYTHONHOME": true, "BASH_ENV": true, "ENV": true,
	"PERL5OPT": true, "PERL5LIB": true, "RUBYOPT": true, "RUBYLIB": true, "PROMPT_COMMAND": true, "ZDOTDIR": true,
	"GIT_SSH": true, "GIT_SSH_COMMAND": true, "GIT_EXEC_PATH": true, "GIT_ASKPASS": true, "SSH_ASKPASS": true,
	"EDITOR": true, "VISUAL": true, "PAGER": true, "BROWSER": true, "SHELL": true, "JAVA_TOOL_OPTIONS": true,
	"_JAVA_OPTIONS": true, "NODE_PATH": true, "npm_config_script_shell": true, "NPM_CONFIG_SCRIPT_SHELL": true,
}

// untrustedRun reports content whose command runs a program, loads a
// library or sources a file from a temp or hidden place.
func untrustedRun(r *shell.Facts, x autorunCmd, home trustedRoots) (string, bool) {
	for _, sc := range r.Commands {
		if len(sc.Argv) == 0 {
			continue
		}
		if p := sc.Argv[0]; untrustedPlace(p, home) {
			return "runs " + p + " (" + placeWord(p) + ")", true
		}
		prog := sc.Program()
		for i := 1; i < len(sc.Argv); i++ {
			a := sc.Argv[i]
			// source/. FILE, and the options that make node, python or ruby
			// load a file first
			load := (prog == "source" || prog == ".") && i == 1
			if v, ok := strings.CutPrefix(a, "--require="); ok {
				a, load = v, true
			} else if v, ok := strings.CutPrefix(a, "--import="); ok {
				a, load = v, true
			} else if (a == "--require" || a == "-r" || a == "--import" || a == "--loader" || a == "--preload") && i+1 < len(sc.Argv) {
				i++
				a, load = sc.Argv[i], true
			}
			if load && untrustedPlace(a, home) {
				return prog + " loads " + a + " (" + placeWord(a) + ")", true
			}
		}
	}
	for _, p := range r.Paths {
		if p.Access&accessExec != 0 && p.Access != accessAny && untrustedPlace(p.Path, home) {
			return "runs " + p.Path + " (" + placeWord(p.Path) + ")", true
		}
	}
	for _, e := range r.Env {
		k, v, _ := strings.Cut(e, "=")
		if !loaderVars[k] && !loaderVars[strings.ToUpper(k)] {
			continue
		}
		for _, part := range strings.FieldsFunc(v, func(r rune) bool { return r == ':' || r == ' ' || r == '=' || r == ';' }) {
			if untrustedPlace(part, home) {
				return k + " names " + part + " (" + placeWord(part) + ")", true
			}
		}
	}
	if x.value && x.cmd != "" {
		// a setting whose value is a program or file path
		for _, w := range strings.Fields(x.cmd) {
			if untrustedPlace(w, home) {
				return "names " + w + " (" + placeWord(w) + ")", true
			}
		}
	}
	return "", false
}

// untrustedPlace reports a path in a temp directory, or, outside the home
// and the call's directories, one with a hidden component that is no known
// tool's directory (/var/.x/run, /usr/local/.cache/p).
func untrustedPlace(p string, roots trustedRoots) bool {
	p = strings.Trim(p, "\"'")
	if p == "" || (p[0] != '/' && p[0] != '~' && !strings.HasPrefix(p, "$HOME")) {
		return false
	}
	for _, r := range roots {
		// the home and the places the call runs in are no stranger's,
		// wherever they are (a workspace checked out under /tmp), and their
		// dot-directories are the tools' (~/.p10k.zsh, ~/.nvm, .venv)
		if r != "" && r != "/" && (p == r || strings.HasPrefix(p, strings.TrimSuffix(r, "/")+"/")) {
			return false
		}
	}
	if isTempPlace(p) {
		return true
	}
	return hiddenPlace(p)
}

// trustedRoots are the home, the call's directory and the directory of
// the file that runs: a path under one is judged below it.
type trustedRoots [3]string

func isTempPlace(p string) bool {
	for _, d := range []string{"/tmp/", "/var/tmp/", "/dev/shm/", "/private/tmp/", "/private/var/tmp/", "/run/user/", "/var/folders/"} {
		if strings.HasPrefix(p, d) {
			return true
		}
	}
	return false
}

// knownDotDirs are dot-named places where tools keep their programs and
// scripts; a program under any other hidden name is hidden.
var knownDotDirs = []string{
	".local", ".cargo", ".rustup", ".nvm", ".fnm", ".volta", ".pyenv", ".rbenv", ".jenv", ".goenv", ".nodenv", ".asdf", ".sdkman",
	".bun", ".deno", ".config", ".cache", ".venv", ".git", ".githooks", ".husky", ".yarn", ".npm", ".npm-global", ".pnpm", ".gem",
	".go", ".oh-my-zsh", ".zsh", ".zinit", ".zplug", ".antigen", ".fzf", ".vim", ".emacs.d", ".tmux", ".direnv", ".mise", ".nix-profile",
	".cabal", ".ghcup", ".dotnet", ".linuxbrew", ".krew", ".poetry", ".pixi", ".rye", ".conda", ".opam", ".docker", ".vscode",
	".idea", ".devcontainer", ".github", ".tox", ".nox", ".bashrc", ".bash", ".profile", ".iterm2", ".orbstack", ".rd", ".kube",
	".terraform.d", ".tfenv", ".pub-cache", ".gradle", ".m2", ".sbt", ".ivy2", ".juliaup", ".julia", ".elan", ".wasmtime", ".wasmer",
	".foundry", ".moon", ".proto", ".bashrc.d", ".zshrc", ".zshenv", ".ssh", ".gnupg",
}

// hiddenPlace: a component that starts with a dot (not . or ..) and is
// not a known tool's place.
func hiddenPlace(p string) bool {
	for _, part := range strings.Split(p, "/") {
		if len(part) < 2 || part[0] != '.' || part == ".." {
			continue
		}
		known := false
		for _, k := range knownDotDirs {
			if part == k || strings.HasPrefix(part, k+".") || strings.HasPrefix(part, k+"-") || strings.HasPrefix(part, k+"_") {
				known = true
				break
			}
		}
		if !known {
			return true
		}
	}
	return false
}

func placeWord(p string) string {
	if isTempPlace(strings.Trim(p, "\"'")) {
		return "a temp directory anyone can write"
	}
	return "a hidden place"
}

// editorVars puts the project's directory for the editors' own variables
// (${workspaceFolder}, devcontainer's ${localWorkspaceFolder}), so a
// program inside the project is seen inside it.
func editorVars(text, dir string) string {
	root := dir
	switch path.Base(dir) {
	case ".vscode", ".devcontainer", ".idea", ".cursor":
		root = path.Dir(dir)
	}
	return strings.NewReplacer("${workspaceFolder}", root, "${workspaceRoot}", root, "${localWorkspaceFolder}", root,
		"${containerWorkspaceFolder}", root).Replace(text)
}

func (c *classifier) hasSignal(sig Signal) bool {
	for _, s := range c.f.Signals {
		if s.Signal == sig {
			return true
		}
	}
	return false
}

// envLoaders are direnv's and the shells' ways to load a .env file into
// the environment of the shell that runs the file: what they are for,
// not a read of the secrets into anyone's view.
var envLoaders = map[string]bool{"dotenv": true, "dotenv_if_exists": true, "source_env": true, "source_env_if_exists": true, "watch_file": true, "source": true, ".": true}

// dropLoadedEnv removes the reads of .env files that a loader command of
// r names (dotenv .env.local in an .envrc).
func dropLoadedEnv(paths []PathFact, r *shell.Facts) []PathFact {
	loaded := map[string]bool{}
	for _, sc := range r.Commands {
		if !envLoaders[sc.Program()] {
			continue
		}
		for _, a := range sc.Argv[1:] {
			if b := path.Base(a); strings.HasPrefix(b, ".env") {
				loaded[b] = true
			}
		}
		if len(sc.Argv) == 1 && strings.HasPrefix(sc.Program(), "dotenv") {
			loaded[".env"] = true
		}
	}
	if len(loaded) == 0 {
		return paths
	}
	out := paths[:0]
	for _, p := range paths {
		b := path.Base(p.Raw)
		if p.Access == accessRead && loaded[b] {
			continue
		}
		out = append(out, p)
	}
	return out
}

// SignalPathPlant: a write puts a program named like a common command in a
// directory that comes before the real one on PATH (T1574.007).
const signalPathPlant Signal = "path-plant"

// pathPlantNames are commands a planted namesake would stand in for.
var pathPlantNames = map[string]bool{
	"git": true, "ls": true, "sudo": true, "su": true, "ssh": true, "scp": true, "sftp": true, "python": true,
	"python3": true, "pip": true, "pip3": true, "node": true, "npm": true, "npx": true, "yarn": true, "pnpm": true,
	"bun": true, "deno": true, "go": true, "cargo": true, "rustc": true, "gcc": true, "cc": true, "clang": true,
	"make": true, "cmake": true, "curl": true, "wget": true, "cat": true, "cp": true, "mv": true, "rm": true,
	"grep": true, "sed": true, "awk": true, "find": true, "bash": true, "sh": true, "zsh": true, "fish": true,
	"dash": true, "env": true, "id": true, "whoami": true, "ps": true, "top": true, "kill": true, "docker": true,
	"podman": true, "kubectl": true, "gh": true, "code": true, "vim": true, "nvim": true, "vi": true, "nano": true,
	"emacs": true, "less": true, "more": true, "man": true, "tar": true, "unzip": true, "gpg": true, "gpg2": true,
	"ssh-agent": true, "ssh-add": true, "passwd": true, "chmod": true, "chown": true, "systemctl": true, "java": true,
	"ruby": true, "perl": true, "php": true, "open": true, "xdg-open": true, "pbcopy": true, "pbpaste": true, "aws": true,
	"gcloud": true, "az": true, "terraform": true, "helm": true, "mkdir": true, "touch": true, "echo": true,
	"printf": true, "head": true, "tail": true, "which": true, "tee": true, "xargs": true, "claude": true, "codex": true,
	"gemini": true, "airlock": true, "uv": true, "uvx": true, "pipx": true, "poetry": true, "mvn": true, "gradle": true,
	"dotnet": true, "tmux": true, "screen": true, "login": true, "doas": true, "pkexec": true, "op": true,
	"security": true, "keychain": true,
}

// pathDirSuffixes are the directories of the user's tools that shells put
// first on PATH; pathDirs the system's that come before /usr/bin.
var (
	pathDirSuffixes = []string{"/.local/bin", "/.cargo/bin", "/go/bin", "/.npm-global/bin", "/.yarn/bin", "/.bun/bin", "/.deno/bin",
		"/.volta/bin", "/.pyenv/shims", "/.rbenv/shims", "/.asdf/shims", "/.local/share/mise/shims"}
	pathDirs = map[string]bool{"/usr/local/bin": true, "/usr/local/sbin": true, "/opt/homebrew/bin": true, "/opt/homebrew/sbin": true,
		"/opt/local/bin": true, "/snap/bin": true, "/root/bin": true}
)

// pathPlant reports a folded absolute path that plants a common command
// in a directory early on PATH; home is the user's home, folded.
func pathPlant(fold, home string) bool {
	i := strings.LastIndexByte(fold, '/')
	if i <= 0 {
		return false
	}
	dir, name := fold[:i], strings.TrimSuffix(fold[i+1:], ".exe")
	if !pathPlantNames[name] {
		return false
	}
	if pathDirs[dir] || home != "" && dir == home+"/bin" {
		return true
	}
	if rest, ok := strings.CutSuffix(dir, "/bin"); ok {
		// another user's ~/bin: /home/x/bin, /users/x/bin
		if j := strings.LastIndexByte(rest, '/'); j >= 0 && (rest[:j] == "/home" || rest[:j] == "/users" || strings.HasSuffix(rest[:j], ":/users")) {
			return true
		}
	}
	for _, s := range pathDirSuffixes {
		if strings.HasSuffix(dir, s) {
			return true
		}
	}
	return false
}

// pathPlants raises path-plant for the call's writes.
func (c *classifier) pathPlants() {
	home := FoldPath(c.env.Home)
	for i := range c.f.Paths {
		p := &c.f.Paths[i]
		if p.Access&accessWrite == 0 {
			continue
		}
		abs := p.Path
		if abs == "" {
			abs = ExpandPath(p.Raw, c.env.Cwd, c.env.Home)
		}
		if fold := FoldPath(abs); pathPlant(fold, home) {
			c.f.Signals = append(c.f.Signals, signalFact{Signal: signalPathPlant, Detail: abs, Arg: p.Arg})
			return
		}
	}
}
