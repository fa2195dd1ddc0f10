package shell

import (
	"strings"
	"sync"
)

// envRuns are environment variables whose value a program runs: setting
// one for a command (PAGER='sh -c …' git log) or exporting it runs the
// value when the program reads it.
//
// Built on first use, as the option tables are: a process that
// analyses no shell command never builds it.
var envRuns = sync.OnceValue(func() map[string]runRow {
	return map[string]runRow{
		"GIT_SSH_COMMAND":       {kind: runShell, note: "git runs it instead of ssh"},
		"GIT_SSH":               {kind: runWords, note: "a program git runs instead of ssh"},
		"GIT_PAGER":             {kind: runShell, note: "git's pager"},
		"GIT_EDITOR":            {kind: runShell, note: "git's editor (commit, rebase -i)"},
		"GIT_SEQUENCE_EDITOR":   {kind: runShell, note: "git rebase -i's todo editor"},
		"GIT_EXTERNAL_DIFF":     {kind: runShell, note: "git diff runs it per file"},
		"GIT_ASKPASS":           {kind: runWords, note: "git runs it to ask for a password"},
		"SSH_ASKPASS":           {kind: runWords, note: "ssh runs it to ask for a passphrase"},
		"SUDO_ASKPASS":          {kind: runWords, note: "sudo -A runs it"},
		"GIT_PROXY_COMMAND":     {kind: runShell, note: "git runs it for git:// connections"},
		"RSYNC_RSH":             {kind: runShell, note: "rsync's remote shell"},
		"CVS_RSH":               {kind: runShell, note: "cvs's remote shell"},
		"PAGER":                 {kind: runShell, note: "man, git, systemctl, journalctl … page through it"},
		"MANPAGER":              {kind: runShell, note: "man's pager"},
		"SYSTEMD_PAGER":         {kind: runShell, note: "systemctl's and journalctl's pager"},
		"BAT_PAGER":             {kind: runShell, note: "bat's pager"},
		"AWS_PAGER":             {kind: runShell, note: "the aws CLI's pager"},
		"EDITOR":                {kind: runShell, note: "crontab -e, git, sudoedit … run it"},
		"VISUAL":                {kind: runShell, note: "as EDITOR"},
		"SUDO_EDITOR":           {kind: runShell, note: "sudoedit's editor"},
		"FCEDIT":                {kind: runShell, note: "bash's fc editor"},
		"LESSOPEN":              {kind: runShell, note: "less pipes each file through it (|CMD %s)"},
		"LESSCLOSE":             {kind: runShell, note: "less runs it after LESSOPEN"},
		"BROWSER":               {kind: runShell, note: "colon-separated commands xdg-open, python webbrowser … run"},
		"PROMPT_COMMAND":        {kind: runShell, note: "bash runs it before each prompt"},
		"BASH_ENV":              {kind: runFile, note: "bash sources it before a non-interactive script"},
		"ENV":                   {kind: runFile, note: "sh and interactive bash in POSIX mode source it"},
		"LD_PRELOAD":            {kind: runFile, note: "the dynamic loader loads it into every program"},
		"GIT_EXEC_PATH":         {kind: runFile, note: "git runs its subcommands from this directory"},
		"GIT_CONFIG_PARAMETERS": {kind: runShell, note: "'key'='value' pairs git reads as -c settings (read by gitConfigRun)"},
		"GIT_CONFIG_KEY_0":      {kind: runShell, note: "GIT_CONFIG_KEY_n/VALUE_n pairs are -c settings, any n (read by gitConfigRun)"},
		"DYLD_INSERT_LIBRARIES": {kind: runFile, note: "as LD_PRELOAD on macOS"},
	}
})

// envRun analyses what a program would run from one environment
// assignment.
func (w *walker) envRun(name, val string, sc *scope) {
	if n, isKV := gitConfigEnvIndex(name); isKV {
		w.gitConfigEnv(n, sc)
		return
	}
	r, ok := envRuns()[name]
	if !ok || sc == nil || strings.TrimSpace(val) == "" {
		return
	}
	if name == "GIT_CONFIG_PARAMETERS" {
		// 'core.pager'='cmd' 'alias.x'='!cmd'
		for _, kv := range w.splitWords(strings.ReplaceAll(val, "'='", "=")) {
			if k, v, ok := strings.Cut(kv.s, "="); ok {
				w.gitConfigRun(k, argVal{s: v}, sc)
			}
		}
		return
	}
	if r.kind == runFile && !pathLike(val) && val != "<(…)" {
		return // ENV=production names no file
	}
	c := &cmdCtx{sc: sc}
	switch name {
	case "LESSOPEN", "LESSCLOSE":
		val = strings.TrimLeft(strings.TrimSpace(val), "|-")
		val = strings.ReplaceAll(val, "%s", "")
	case "BROWSER":
		for _, b := range strings.Split(val, ":") {
			w.runValue(r, argVal{s: strings.ReplaceAll(b, "%s", "")}, c)
		}
		return
	case "LD_PRELOAD", "DYLD_INSERT_LIBRARIES":
		for _, lib := range strings.FieldsFunc(val, func(r rune) bool { return r == ':' || r == ' ' }) {
			w.runValue(r, argVal{s: lib}, c)
		}
		return
	}
	w.runValue(r, argVal{s: val}, c)
}

// gitExecKeys are git configuration keys whose value git runs. A key is
// "section.name", or "section.*.name" for any subsection, or "section.*"
// for any name.
//
// Built on first use, as the option tables are: a process that
// analyses no shell command never builds it.
var gitExecKeys = sync.OnceValue(func() map[string]runRow {
	return map[string]runRow{
		"core.pager":                 {kind: runShell, note: "the pager for every paging command"},
		"core.sshcommand":            {kind: runShell, note: "runs instead of ssh"},
		"core.editor":                {kind: runShell, note: "commit, tag, rebase -i run it"},
		"core.askpass":               {kind: runWords, note: "asked for passwords"},
		"core.fsmonitor":             {kind: runShell, note: "runs on every status (a hook)"},
		"core.gitproxy":              {kind: runShell, note: "runs for git:// connections"},
		"core.hookspath":             {kind: runFile, note: "the hooks in this directory run"},
		"init.templatedir":           {kind: runFile, note: "hooks copied from it into new repositories run"},
		"sequence.editor":            {kind: runShell, note: "rebase -i's todo editor"},
		"diff.external":              {kind: runShell, note: "git diff runs it per file"},
		"diff.*.textconv":            {kind: runShell, note: "converts files before diffing"},
		"diff.*.command":             {kind: runShell, note: "a diff driver"},
		"merge.*.driver":             {kind: runShell, note: "a merge driver"},
		"filter.*.clean":             {kind: runShell, note: "runs on add"},
		"filter.*.smudge":            {kind: runShell, note: "runs on checkout"},
		"filter.*.process":           {kind: runShell, note: "a long-running filter"},
		"gpg.program":                {kind: runWords, note: "signs and verifies"},
		"gpg.ssh.program":            {kind: runWords, note: "signs with ssh keys"},
		"gpg.x509.program":           {kind: runWords, note: "signs with x509"},
		"uploadpack.packobjectshook": {kind: runShell, note: "runs on fetch from this repository"},
		"credential.helper":          {kind: runShell, note: "!CMD is shell text; a path runs"},
		"credential.*.helper":        {kind: runShell, note: "as credential.helper"},
		"alias.*":                    {kind: runShell, note: "!CMD aliases are shell text"},
		"pager.*":                    {kind: runShell, note: "the pager of one command"},
		"browser.*.cmd":              {kind: runShell, note: "git web--browse runs it"},
		"web.browser":                {kind: runWords, note: "git web--browse runs it"},
		"man.*.cmd":                  {kind: runShell, note: "git help runs it"},
		"difftool.*.cmd":             {kind: runShell, note: "git difftool runs it"},
		"mergetool.*.cmd":            {kind: runShell, note: "git mergetool runs it"},
		"remote.*.uploadpack":        {kind: runShell, note: "runs for fetch"},
		"remote.*.receivepack":       {kind: runShell, note: "runs for push"},
		"sendemail.sendmailcmd":      {kind: runShell, note: "git send-email runs it"},
		"sendemail.smtpserver":       {kind: runWords, note: "a path is a sendmail-like program"},
	}
})

// gitExecKey returns the row for a git configuration key.
func gitExecKey(key string) (runRow, bool) {
	k := strings.ToLower(key)
	if r, ok := gitExecKeys()[k]; ok {
		return r, true
	}
	first := strings.IndexByte(k, '.')
	last := strings.LastIndexByte(k, '.')
	if first < 0 {
		return runRow{}, false
	}
	if r, ok := gitExecKeys()[k[:first]+".*"]; ok {
		return r, true
	}
	if last > first {
		if r, ok := gitExecKeys()[k[:first]+".*"+k[last:]]; ok {
			return r, true
		}
	}
	return runRow{}, false
}

// gitConfigRun analyses a git configuration value that git would run
// (git -c KEY=VALUE, git config KEY VALUE).
func (w *walker) gitConfigRun(key string, val argVal, sc *scope) {
	r, ok := gitExecKey(key)
	if !ok {
		return
	}
	k := strings.ToLower(key)
	switch {
	case strings.HasPrefix(k, "alias."), strings.Contains(k, "credential"):
		s := strings.TrimSpace(val.s)
		if rest, bang := strings.CutPrefix(s, "!"); bang {
			val.s = rest
		} else if strings.HasPrefix(k, "alias.") || !strings.HasPrefix(s, "/") {
			return // a git alias, or a git-credential-NAME helper
		}
	}
	w.runValue(r, val, &cmdCtx{sc: sc})
}

// gitModelled are the git subcommands whose operands the walker reads
// completely: refs, names and messages are data (git commit -m "…" names
// no file it opens), pathspecs and directories are recorded.
var gitModelled = set("commit", "tag", "log", "show", "status", "diff", "branch", "switch", "checkout", "restore", "rm",
	"mv", "add", "push", "pull", "fetch", "clone", "init", "stash", "reset", "rebase", "merge", "cherry-pick", "revert",
	"config", "remote", "ls-remote", "blame", "grep", "describe", "rev-parse", "shortlog", "submodule", "bisect",
	"worktree", "notes", "reflog", "ls-files", "ls-tree", "cat-file", "rev-list", "am", "apply")

// gitRuns analyses what a git subcommand's arguments run: git config KEY
// VALUE for the keys in gitExecKeys (it runs later), rebase --exec,
// submodule foreach, bisect run, filter-branch's filters, difftool
// --extcmd, grep --open-files-in-pager, push --receive-pack, ext:: remotes.
func (w *walker) gitRuns(gc *cmdCtx, sub string) {
	argv := gc.argv
	shellRow := runRow{kind: runShell}
	switch sub {
	case "config":
		var ops []argVal
		for k := 1; k < len(argv); k++ {
			s := argv[k].s
			switch {
			case s == "--file" || s == "-f":
				if k+1 < len(argv) {
					k++
					w.argPath(argv[k], gc.sc, accR, true) // git config -f FILE -l prints it
				}
			case strings.HasPrefix(s, "--file="):
				w.argPath(argVal{s: s[len("--file="):], dyn: argv[k].dyn}, gc.sc, accR, true)
			case s == "--blob" || s == "--type" || s == "--default" || s == "--comment" || s == "--value":
				k++
			case strings.HasPrefix(s, "-"):
			case (s == "set" || s == "add" || s == "--add") && len(ops) == 0:
			default:
				ops = append(ops, argv[k])
			}
		}
		if len(ops) >= 2 {
			w.gitConfigRun(ops[0].s, ops[1], gc.sc)
		}
	case "submodule":
		for k := 1; k < len(argv); k++ {
			if argv[k].s == "foreach" {
				rest := argv[k+1:]
				for len(rest) > 0 && strings.HasPrefix(rest[0].s, "-") {
					rest = rest[1:]
				}
				w.runValue(shellRow, joinArgs(rest), gc)
				return
			}
		}
	case "tag", "notes":
		for k := 1; k < len(argv); k++ {
			if (argv[k].s == "-F" || argv[k].s == "--file") && k+1 < len(argv) {
				w.argPath(argv[k+1], gc.sc, accR, true)
			} else if f, ok := strings.CutPrefix(argv[k].s, "--file="); ok {
				w.argPath(argVal{s: f, dyn: argv[k].dyn}, gc.sc, accR, true)
			}
		}
	case "bisect":
		if len(argv) > 2 && argv[1].s == "run" {
			w.classify(argv[2:], gc.sc, flow{})
		}
	}
	for k := 1; k < len(argv); k++ {
		s := argv[k].s
		name, val, eq := strings.Cut(s, "=")
		switch name {
		case "--exec", "-x", "--tree-filter", "--index-filter", "--msg-filter", "--env-filter", "--commit-filter",
			"--parent-filter", "--tag-name-filter", "--extcmd", "--open-files-in-pager", "-O", "--receive-pack",
			"--upload-pack", "--sendmail-cmd":
			if name == "-x" && sub != "rebase" && sub != "difftool" || name == "-O" && sub != "grep" {
				continue
			}
			if sub == "clone" && name == "--upload-pack" {
				continue // read by git()
			}
			v := argVal{s: val, dyn: argv[k].dyn, dl: argv[k].dl}
			if !eq {
				if k+1 >= len(argv) {
					continue
				}
				k++
				v = argv[k]
			}
			w.runValue(shellRow, v, gc)
		default:
			if rest, ok := strings.CutPrefix(s, "ext::"); ok {
				// git's ext transport runs the command: words split at
				// spaces, "% " a space inside a word, "%%" a percent
				if args := extArgv(rest, argv[k].dyn); len(args) > 0 {
					w.classify(args, gc.sc, flow{})
				}
			}
		}
	}
}

// extArgv splits a git ext:: command into its words.
func extArgv(s string, dyn bool) []argVal {
	var out []argVal
	var b strings.Builder
	for i := 0; i < len(s) && len(out) < maxCodeArgv; i++ {
		switch {
		case s[i] == '%' && i+1 < len(s):
			i++
			b.WriteByte(s[i])
		case s[i] == ' ':
			if b.Len() > 0 {
				out = append(out, argVal{s: b.String(), dyn: dyn})
				b.Reset()
			}
		default:
			b.WriteByte(s[i])
		}
	}
	if b.Len() > 0 {
		out = append(out, argVal{s: b.String(), dyn: dyn})
	}
	return out
}

// gitConfigEnvIndex reports GIT_CONFIG_KEY_n and GIT_CONFIG_VALUE_n and
// returns n.
func gitConfigEnvIndex(name string) (string, bool) {
	for _, p := range []string{"GIT_CONFIG_KEY_", "GIT_CONFIG_VALUE_"} {
		if n, ok := strings.CutPrefix(name, p); ok && isDigits(n) {
			return n, true
		}
	}
	return "", false
}

// gitConfigEnv pairs GIT_CONFIG_KEY_n with GIT_CONFIG_VALUE_n once both are
// set, and analyses the setting.
func (w *walker) gitConfigEnv(n string, sc *scope) {
	if sc == nil {
		return
	}
	key, val, haveKey, haveVal := "", "", false, false
	for _, e := range w.res.Env {
		k, v, _ := strings.Cut(e, "=")
		switch k {
		case "GIT_CONFIG_KEY_" + n:
			key, haveKey = v, true
		case "GIT_CONFIG_VALUE_" + n:
			val, haveVal = v, true
		}
	}
	if haveKey && haveVal {
		w.gitConfigRun(key, argVal{s: val}, sc)
	}
}
