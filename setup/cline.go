package setup

import (
	"bytes"
)

// Cline runs, before and after each tool, the executable named after the
// event in its hooks folder (~/Documents/Cline/Hooks/PreToolUse …), one
// per event: init writes a two-line script there that runs airlock-hook
// --agent cline, and only where no hook of the user's is in the way.

// clineScript is the hook init writes for Cline.
func clineScript(hookPath string, post bool) []byte {
	return []byte("#!/bin/sh\n" +
		"# Written by airlock init: Cline runs this around each tool call and it hands the call to Airlock's gate.\n" +
		"# airlock uninstall removes it.\n" +
		"exec " + clineDialect.command(hookPath, post) + "\n")
}

func (run *initRun) clineHook(st Store) {
	if run.opt.GOOS == "windows" {
		run.r.file(st.Path, st.Agent, actLeftAlone, "Cline's hooks are not wired on Windows by airlock init: its tools are not gated")
		return
	}
	post := st.ID == "cline.user-post"
	want := clineScript(run.opt.HookPath, post)
	cmd := clineDialect.command(run.opt.HookPath, post)
	f := run.open(st)
	if f == nil {
		return
	}
	if f.exists {
		if bytes.Equal(f.data, want) {
			run.r.file(st.Path, st.Agent, actHookPresent, cmd)
			return
		}
		run.r.file(st.Path, st.Agent, actRefused, "Cline runs one program per event and this one is not what airlock init writes: have it run "+cmd+" (its output and exit code are Cline's answer), or move it aside and run airlock init again")
		return
	}
	if !run.commit(st, f, want, 0o700, nil, nil, nil) {
		return
	}
	run.r.file(st.Path, st.Agent, actHookWired, base(st.Path)+": "+cmd)
}
