package scan

import "strings"

// nativeTools are the names of the agents' own tools. An MCP tool named
// like one is shown to the model, by a client that lists MCP tools under
// their own names, as the agent's Read or Bash: calls meant for the
// built-in go to the server, outside the agent's permission rules. Claude
// Code's names are matched exactly (a tool called "read" is a common,
// honest name); its compound names, which no honest tool spells by
// accident, in any case.
var nativeTools = []string{
	"Agent", "AskUserQuestion", "Bash", "BashOutput", "Edit", "ExitPlanMode", "Glob", "Grep", "KillShell", "LS",
	"MultiEdit", "NotebookEdit", "NotebookRead", "Read", "Skill", "SlashCommand", "Task", "TodoWrite",
	"ToolSearch", "WebFetch", "WebSearch", "Write",
}

// NativeToolName reports the agent tool a name impersonates, if any.
func NativeToolName(name string) (string, bool) {
	for _, n := range nativeTools {
		if name == n {
			return n, true
		}
		if len(n) > 5 && strings.ContainsAny(n[1:], "ABCDEFGHIJKLMNOPQRSTUVWXYZ") && strings.EqualFold(name, n) {
			return n, true
		}
	}
	return "", false
}
