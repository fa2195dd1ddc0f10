package shell

import (
	"path"
	"strings"
	"sync"
)

// autorunWrite judges known text written into a file that runs by itself
// (a shell start-up file, a crontab, a git hook, an editor's or an
// interpreter's start-up file) by what it would run: echo 'cat
// ~/.ssh/id_rsa' >> ~/.bashrc reads the key at the next login.
func (w *walker) autorunWrite(abs, text string, sc *scope) {
	ns := sc.nested(nil)
	switch lang := autorunKind(abs); lang {
	case "":
	case "shell":
		w.extracted(text, ns)
	case "cron":
		for _, cmd := range cronCommands(text) {
			w.extracted(cmd, ns)
		}
	case "tmux":
		for _, line := range strings.Split(text, "\n") {
			if args := w.splitWords(line); len(args) > 0 {
				w.tmuxCommand(&cmdCtx{prog: "tmux", sc: ns}, args)
			}
		}
	case "vimrc":
		for _, line := range strings.Split(text, "\n") {
			line = strings.TrimSpace(line)
			if f := strings.Fields(line); len(f) > 3 && (f[0] == "au" || f[0] == "autocmd" || f[0] == "au!" || f[0] == "autocmd!") {
				line = strings.Join(f[3:], " ") // autocmd EVENT PATTERN CMD
			}
			w.langRuns("vim", argVal{s: line}, ns)
		}
	case "gdb", "sql":
		for _, line := range strings.Split(text, "\n") {
			w.langRuns(lang, argVal{s: line}, ns)
		}
	default:
		w.langRuns(lang, argVal{s: text}, ns)
	}
}

// shellStartup are the base names of files a shell sources by itself.
var shellStartup = set(".bashrc", ".bash_profile", ".bash_login", ".bash_logout", ".bash_aliases", ".profile", ".zshrc",
	".zshenv", ".zprofile", ".zlogin", ".zlogout", ".kshrc", ".mkshrc", ".cshrc", ".tcshrc", ".login", ".logout",
	".xprofile", ".xinitrc", ".xsession", ".xsessionrc", "config.fish", "bash.bashrc", "zshrc", "zshenv", "zprofile",
	"profile", "rc.local")

// startupLang are files other programs run at start, by base name, with
// the language their text is read in.
//
// Built on first use, as the option tables are: a process that
// analyses no shell command never builds it.
var startupLang = sync.OnceValue(func() map[string]string {
	return map[string]string{
		".tmux.conf": "tmux", "tmux.conf": "tmux", ".vimrc": "vimrc", ".exrc": "vimrc", "init.vim": "vimrc", ".gvimrc": "vimrc",
		"init.lua": "lua", ".gdbinit": "gdb", "gdbinit": "gdb", ".psqlrc": "sql", ".sqliterc": "sql", ".irbrc": "ruby",
		".pryrc": "ruby", "sitecustomize.py": "python", "usercustomize.py": "python", ".pythonrc": "python",
		".pythonrc.py": "python", "init.el": "elisp", ".emacs": "elisp", ".emacs.el": "elisp",
	}
})

// autorunKind says how a file that runs by itself is read: "shell" for
// shell start-up files, init scripts and git hooks, "cron" for crontabs,
// a language for other programs' start-up files, "" for any other file.
func autorunKind(abs string) string {
	base := path.Base(abs)
	dir := path.Dir(abs)
	if l, ok := startupLang()[base]; ok {
		return l
	}
	switch {
	case strings.HasSuffix(base, ".pth") && strings.Contains(dir, "-packages"):
		return "python" // import lines in a .pth file run at every start
	case shellStartup.has(base) && (base[0] == '.' || strings.HasPrefix(dir, "/etc") || strings.HasSuffix(dir, "/fish")):
		return "shell"
	case strings.HasPrefix(dir, "/etc/profile.d"), strings.HasPrefix(dir, "/etc/zsh"), strings.HasPrefix(dir, "/etc/init.d"),
		strings.HasPrefix(dir, "/etc/cron.hourly"), strings.HasPrefix(dir, "/etc/cron.daily"),
		strings.HasPrefix(dir, "/etc/cron.weekly"), strings.HasPrefix(dir, "/etc/cron.monthly"),
		strings.HasPrefix(dir, "/etc/update-motd.d"), strings.HasSuffix(dir, "/.bashrc.d"), strings.HasSuffix(dir, "/.zshrc.d"),
		strings.Contains(dir, "/.oh-my-zsh/custom"), strings.HasSuffix(dir, "/.git/hooks"), strings.HasSuffix(dir, "/.husky"):
		return "shell"
	case abs == "/etc/crontab", strings.HasPrefix(dir, "/etc/cron.d"), strings.HasPrefix(dir, "/var/spool/cron"):
		return "cron"
	}
	return ""
}

// rememberText records the known text of a file written in this program.
func (w *walker) rememberText(abs, text string, appendTo bool) {
	if w.fileTexts == nil {
		w.fileTexts = make(map[string]string, 2)
	}
	if appendTo {
		text = w.fileTexts[abs] + text
	}
	if len(text) > maxWord || len(w.fileTexts) >= 16 {
		return
	}
	w.fileTexts[abs] = text
}

// runProcTexts runs the known outputs of input process substitutions: a
// shell sourcing <(echo …) runs what echo printed.
func (w *walker) runProcTexts(sc *scope) {
	texts := w.procTexts
	w.procTexts = nil
	for _, t := range texts {
		w.extracted(t, sc.nested(nil))
	}
}
