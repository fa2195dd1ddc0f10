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
		if old := clineScriptProgram(f.data, post); old != "" && staleHook(old, run.opt.HookPath) {
			// init's own script for an airlock-hook that moved: the
			// installed one takes its place
			if run.commit(st, f, want, f.mode, nil, nil, nil) {
				run.r.file(st.Path, st.Agent, actHookWired, base(st.Path)+": "+cmd+", moved from "+old)
			}
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

// clineScriptProgram is the airlock-hook a script init wrote runs ("" when
// data is not such a script, byte for byte).
func clineScriptProgram(data []byte, post bool) string {
	for _, l := range bytes.Split(data, []byte("\n")) {
		if rest, ok := bytes.CutPrefix(l, []byte("exec ")); ok {
			prog := firstWord(string(rest))
			if bytes.Equal(data, clineScript(prog, post)) {
				return prog
			}
			return ""
		}
	}
	return ""
}
