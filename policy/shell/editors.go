package shell

import "strings"

// Programs that open a file in the user's editor: visudo, vipw and vigr
// (the account files), sudoedit and sudo -e, crontab -e, systemctl edit.
// The editor is a program the environment names, and it runs with that
// file as its last argument and the command's stdin: EDITOR='tee -a'
// visudo appends stdin to /etc/sudoers (GTFOBins' "sudo" and "crontab"
// entries; sudo's own manual names SUDO_EDITOR, VISUAL and EDITOR).

// noteEditor remembers an editor variable's value; SUDO_EDITOR wins over
// VISUAL, VISUAL over EDITOR, as sudoedit and visudo read them.
func (w *walker) noteEditor(name, val string) {
	rank := map[string]int{"EDITOR": 1, "VISUAL": 2, "SUDO_EDITOR": 3}
	r := rank[name]
	if r == 0 || strings.TrimSpace(val) == "" || r < rank[w.editorVar] {
		return
	}
	w.editor, w.editorVar = val, name
}

// editorRuns models the editor-opening programs; it reports whether c was
// one (the caller then has nothing more to read).
func (w *walker) editorRuns(c *cmdCtx) bool {
	var files []argVal
	has := func(flags ...string) bool {
		for _, a := range c.argv[1:] {
			for _, f := range flags {
				if a.s == f {
					return true
				}
			}
		}
		return false
	}
	switch c.prog {
	case "visudo":
		if has("-c", "--check", "-V", "--version", "-h", "--help") {
			return false
		}
		f := "/etc/sudoers"
		for i, a := range c.argv[1:] {
			if (a.s == "-f" || a.s == "--file") && i+2 < len(c.argv) {
				f = c.argv[i+2].s
			}
		}
		files = append(files, argVal{s: f})
	case "vipw", "vigr":
		f := map[string]string{"vipw": "/etc/passwd", "vigr": "/etc/group"}[c.prog]
		if has("-s", "--shadow") {
			f = map[string]string{"vipw": "/etc/shadow", "vigr": "/etc/gshadow"}[c.prog]
		}
		files = append(files, argVal{s: f})
	case "sudoedit":
		for _, a := range c.argv[1:] {
			if !strings.HasPrefix(a.s, "-") {
				w.argPath(a, c.sc, AccessRead|AccessWrite, true)
				files = append(files, a)
			}
		}
	case "crontab":
		if !has("-e") {
			return false
		}
		files = append(files, argVal{s: "/var/spool/cron/crontabs/" + w.user})
	case "systemctl":
		// systemctl edit [--user] [--full] UNIT: a drop-in (or the unit)
		if len(c.argv) < 3 || c.argv[1].s != "edit" && !(has("edit") && strings.HasPrefix(c.argv[1].s, "-")) {
			return false
		}
		dir := "/etc/systemd/system/"
		if has("--user") {
			dir = w.home + "/.config/systemd/user/"
		}
		for _, a := range c.argv[2:] {
			if !strings.HasPrefix(a.s, "-") && a.s != "edit" {
				files = append(files, argVal{s: dir + a.s + ".d/override.conf"})
			}
		}
	}
	if len(files) == 0 {
		return false
	}
	w.runEditor(files, c)
	return c.prog != "systemctl" && c.prog != "crontab"
}

// runEditor runs the editor the environment names on files, with the
// command's stdin.
func (w *walker) runEditor(files []argVal, c *cmdCtx) {
	if w.editor == "" || len(files) == 0 {
		return
	}
	words := w.splitWords(w.editor)
	if len(words) == 0 {
		return
	}
	w.classify(append(words, files...), c.sc, c.in)
}
