package shell

import (
	"path"
	"strings"
)

// autorunWrite judges known text written into a file that runs by itself
// (a shell start-up file, a crontab, a git hook) by what it would run:
// echo 'cat ~/.ssh/id_rsa' >> ~/.bashrc reads the key at the next login.
func (w *walker) autorunWrite(abs, text string, sc *scope) {
	switch autorunKind(abs) {
	case "shell":
		w.extracted(text, sc.nested(nil))
	case "cron":
		for _, cmd := range cronCommands(text) {
			w.extracted(cmd, sc.nested(nil))
		}
	}
}

// shellStartup are the base names of files a shell sources by itself.
var shellStartup = set(".bashrc", ".bash_profile", ".bash_login", ".bash_logout", ".profile", ".zshrc", ".zshenv",
	".zprofile", ".zlogin", ".zlogout", ".kshrc", ".mkshrc", ".cshrc", ".tcshrc", ".login", ".logout", ".xprofile",
	".xinitrc", ".xsession", ".xsessionrc", "config.fish", "bash.bashrc", "zshrc", "zshenv", "zprofile", "profile", "rc.local")

// autorunKind says how a file that runs by itself is read: "shell" for
// shell start-up files, init scripts and git hooks, "cron" for crontabs,
// "" for any other file.
func autorunKind(abs string) string {
	base := path.Base(abs)
	dir := path.Dir(abs)
	switch {
	case shellStartup[base] && (base[0] == '.' || strings.HasPrefix(dir, "/etc") || strings.HasSuffix(dir, "/fish")):
		return "shell"
	case strings.HasPrefix(dir, "/etc/profile.d"), strings.HasPrefix(dir, "/etc/zsh"), strings.HasPrefix(dir, "/etc/init.d"),
		strings.HasPrefix(dir, "/etc/cron.hourly"), strings.HasPrefix(dir, "/etc/cron.daily"),
		strings.HasPrefix(dir, "/etc/cron.weekly"), strings.HasPrefix(dir, "/etc/cron.monthly"),
		strings.HasSuffix(dir, "/.git/hooks"), strings.HasSuffix(dir, "/.husky"):
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
