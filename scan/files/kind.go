package files

import (
	"bytes"
	"encoding/json"
	"path"
	"strings"

	"github.com/agentairlock/airlock/scan"
)

// Kind says what a file is to an agent, which decides the scan.Context its
// text is weighed in.
type Kind string

// Kinds of file the static scanner tells apart.
const (
	kindSkill   Kind = "skill"        // SKILL.md, or markdown whose frontmatter makes it a skill
	kindCommand Kind = "command"      // .claude/commands, .claude/agents, other slash-command and subagent files
	kindRules   Kind = "rules"        // AGENTS.md, CLAUDE.md, GEMINI.md, .cursor/rules, .cursorrules, copilot instructions …
	kindConfig  Kind = "agent-config" // an agent's MCP servers or Claude Code settings (hooks)
	kindTools   Kind = "tools"        // a JSON snapshot of an MCP server's tool definitions
	kindScript  Kind = "skill-script" // code shipped inside a skill folder or run as a hook
	kindCode    Kind = "code"         // source code, tests, data files
	kindProse   Kind = "prose"        // READMEs, docs, other text
)

// Context is the weighting a kind of file gets.
func (k Kind) Context() scan.Context {
	switch k {
	case kindSkill, kindCommand, kindRules, kindTools:
		return scan.Instructions
	case kindConfig:
		return scan.Config
	case kindScript:
		return scan.Script
	case kindCode:
		return scan.Code
	}
	return scan.Prose
}

// rulesNames are files every agent of that family reads as standing
// instructions, wherever they sit in a project.
var rulesNames = map[string]bool{
	"agents.md": true, "agent.md": true, "claude.md": true, "claude.local.md": true, "gemini.md": true,
	".cursorrules": true, ".windsurfrules": true, ".clinerules": true, ".roorules": true,
	"copilot-instructions.md": true, ".goosehints": true, "agents.override.md": true,
}

// rulesDirs hold rule files: every file below one is KindRules.
var rulesDirs = [][]string{
	{".cursor", "rules"}, {".windsurf", "rules"}, {".clinerules"}, {".roo", "rules"},
	{".github", "instructions"}, {".github", "prompts"}, {".kiro", "steering"}, {".continue", "rules"},
	{".amazonq", "rules"}, {".trae", "rules"}, {".claude", "output-styles"},
}

// commandDirs hold slash commands, subagents and skills' own commands.
var commandDirs = [][]string{
	{".claude", "commands"}, {".claude", "agents"}, {".gemini", "commands"}, {".codex", "prompts"},
	{".opencode", "command"}, {".opencode", "agent"}, {".cursor", "commands"},
	{".github", "agents"}, {".github", "chatmodes"},
}

// codeExt are extensions read as code (weighted down) unless the file
// sits in a skill folder or a hooks folder, where it is a KindScript.
var codeExt = map[string]bool{
	".go": true, ".py": true, ".js": true, ".mjs": true, ".cjs": true, ".ts": true, ".tsx": true, ".jsx": true,
	".sh": true, ".bash": true, ".zsh": true, ".fish": true, ".ps1": true, ".psm1": true, ".bat": true, ".cmd": true,
	".rb": true, ".pl": true, ".php": true, ".rs": true, ".java": true, ".kt": true, ".swift": true, ".c": true,
	".h": true, ".cc": true, ".cpp": true, ".hpp": true, ".cs": true, ".lua": true, ".r": true, ".scala": true,
	".json": true, ".yaml": true, ".yml": true, ".toml": true, ".xml": true, ".ini": true, ".cfg": true, ".conf": true,
	".sql": true, ".mk": true, ".txtar": true, ".tf": true, ".nix": true,
}

// scriptExt are executable kinds of code: in a skill they are what the
// skill runs.
var scriptExt = map[string]bool{
	".py": true, ".js": true, ".mjs": true, ".cjs": true, ".ts": true, ".sh": true, ".bash": true, ".zsh": true,
	".fish": true, ".ps1": true, ".psm1": true, ".bat": true, ".cmd": true, ".rb": true, ".pl": true, ".php": true, "": true,
}

// Classify names a file's kind from its path (slash-separated, relative
// to wherever the walk began or absolute) and, for markdown, its
// frontmatter. inSkill says the file sits in a folder that holds a
// SKILL.md. isConfig is the agent-config test (setup's Recognize),
// passed in so the path rules live in one place.
func Classify(p string, head []byte, inSkill bool, isConfig func(string) bool) Kind {
	p = strings.ReplaceAll(p, "\\", "/")
	parts := strings.Split(p, "/")
	base := strings.ToLower(parts[len(parts)-1])
	dirs := parts[:len(parts)-1]
	ext := strings.ToLower(path.Ext(base))
	markdown := ext == ".md" || ext == ".mdc" || ext == ".markdown" || ext == ".txt" || ext == ""
	switch {
	case isConfig != nil && isConfig(p):
		return kindConfig
	case base == "skill.md":
		return kindSkill
	case rulesNames[base]:
		return kindRules
	case markdown && underAny(dirs, commandDirs):
		return kindCommand
	case ext == ".toml" && underAny(dirs, [][]string{{".gemini", "commands"}}):
		return kindCommand // Gemini CLI's commands are TOML prompts
	case markdown && underAny(dirs, rulesDirs):
		return kindRules
	case markdown && (inSkill || underAny(dirs, [][]string{{".claude", "skills"}})) && ext != ".txt" && ext != "":
		return kindSkill // a skill's own reference files are read with its authority
	}
	if ext == ".md" || ext == ".mdc" || ext == ".markdown" {
		if fm, ok := Frontmatter(head); ok && fm.IsSkill() {
			return kindSkill
		}
	}
	if ext == ".json" && looksLikeTools(head) {
		return kindTools
	}
	if scriptExt[ext] && ext != "" && (inSkill || underAny(dirs, [][]string{{".claude", "hooks"}})) {
		return kindScript
	}
	if ext == "" && inSkill && strings.HasPrefix(string(head), "#!") {
		return kindScript
	}
	if codeExt[ext] || isTest(base) || strings.HasPrefix(string(head), "#!") {
		return kindCode
	}
	return kindProse
}

// underAny reports whether dirs contains one of the sequences as
// consecutive, case-insensitive components.
func underAny(dirs []string, seqs [][]string) bool {
	for _, seq := range seqs {
		for i := 0; i+len(seq) <= len(dirs); i++ {
			match := true
			for j, s := range seq {
				if !strings.EqualFold(dirs[i+j], s) {
					match = false
					break
				}
			}
			if match {
				return true
			}
		}
	}
	return false
}

func isTest(base string) bool {
	return strings.Contains(base, "_test.") || strings.Contains(base, ".test.") || strings.Contains(base, ".spec.") ||
		strings.HasPrefix(base, "test_")
}

// looksLikeTools reports whether JSON text is a tools/list result or a
// JSON-RPC response carrying one: an object whose "tools" (or
// "result"."tools") is an array.
func looksLikeTools(head []byte) bool {
	if !bytes.Contains(head, []byte(`"tools"`)) {
		return false
	}
	var top struct {
		Tools  json.RawMessage `json:"tools"`
		Result struct {
			Tools json.RawMessage `json:"tools"`
		} `json:"result"`
	}
	if json.Unmarshal(head, &top) != nil {
		return false
	}
	isArray := func(r json.RawMessage) bool {
		t := bytes.TrimLeft(r, " \t\r\n")
		return len(t) > 0 && t[0] == '['
	}
	return isArray(top.Tools) || isArray(top.Result.Tools)
}
