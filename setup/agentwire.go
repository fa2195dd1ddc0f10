package setup

import (
	"os"
	"path/filepath"
)

// wiredStores are the hook files init writes for an agent it finds, with
// how many directories up from the file the agent's own directory is:
// init wires an agent only when that directory exists (the agent is
// installed for this user), and never makes it.
var wiredStores = map[string]int{
	"codex.user-hooks":    1, // $CODEX_HOME
	"cursor.user-hooks":   1, // ~/.cursor
	"windsurf.user-hooks": 1, // ~/.codeium/windsurf
	"copilot.user-hooks":  2, // ~/.copilot (COPILOT_HOME)
	"cline.user-pre":      2, // ~/Documents/Cline
	"cline.user-post":     2,
	"gemini.user":         1, // ~/.gemini
}

// agentDir is the directory of the agent whose hook file st is ("" for
// a store init does not wire).
func agentDir(st Store) string {
	up, ok := wiredStores[st.ID]
	if !ok {
		return ""
	}
	dir := st.Path
	for range up {
		dir = filepath.Dir(dir)
	}
	return dir
}

// agentInstalled says the agent whose file st is has its directory here.
func agentInstalled(st Store) bool {
	dir := agentDir(st)
	fi, err := os.Stat(dir)
	return dir != "" && err == nil && fi.IsDir()
}

// agentHooks wires airlock-hook into one agent's hook file, when the agent
// is installed. For Codex it then works out the trust config.toml must
// record for Codex to run them.
func (run *initRun) agentHooks(st Store) {
	if !agentInstalled(st) {
		return
	}
	if st.Format == formatScript {
		run.clineHook(st)
		return
	}
	out, ok := run.hooks(st)
	if ok && st.ID == "codex.user-hooks" {
		run.codexTrust = codexTrust(st.Path, out, run.opt.HookPath)
	}
}

// extraEdit says init edits st's file besides wrapping its servers, even
// when the file does not exist yet.
func (run *initRun) extraEdit(st Store) bool {
	return st.ID == "gemini.user" && agentInstalled(st) || st.ID == "codex.user" && len(run.codexTrust) > 0
}

// extras makes init's other edits to a store's file after its servers are
// wrapped: Gemini CLI's hooks in its settings.json, Codex's trust of the
// hooks init wired in config.toml. It returns the bytes, what it recorded,
// and the lines to report after the servers'.
func (run *initRun) extras(st Store, f *fileState, data []byte) ([]byte, []hookRecord, []trustRecord, []line) {
	var after []line
	note := func(action, detail string) {
		after = append(after, line{Path: st.Path, Agent: st.Agent, Action: action, Detail: detail})
	}
	switch {
	case st.ID == "gemini.user" && agentInstalled(st):
		src := data
		if !f.exists {
			src = nil
		}
		out, recs, err := wireHooks(st, src, run.opt.HookPath)
		switch {
		case err != nil:
			note(actRefused, "hooks not wired: "+err.Error())
		case len(recs) > 0:
			note(actHookWired, wiredDetail(recs))
			return out, recs, nil, after
		default:
			note(actHookPresent, geminiDialect.command(run.opt.HookPath, false))
		}
	case st.ID == "codex.user" && len(run.codexTrust) > 0:
		out, recs, notes, err := trustCodex(data, run.codexTrust)
		for _, n := range notes {
			note(actTrustMissing, n+"; "+codexTrustStep)
		}
		switch {
		case err != nil:
			note(actTrustMissing, err.Error()+"; "+codexTrustStep)
		case len(recs) > 0:
			note(actHookTrusted, "recorded in hooks.state, as /hooks in Codex does: Codex skips a hook nobody trusted")
			return out, nil, recs, after
		default:
			note(actTrustPresent, "")
		}
	}
	return data, nil, nil, after
}

// codexTrustStep is what a person does when init cannot record Codex's
// trust itself.
const codexTrustStep = "until it is trusted Codex skips airlock-hook and its tools run ungated: open Codex, type /hooks and trust the airlock-hook hooks"
