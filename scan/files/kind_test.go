package files

import (
	"strings"
	"testing"
)

func TestClassify(t *testing.T) {
	skillFront := "---\nname: release-notes\ndescription: Write release notes from git history.\n---\n# Release notes\n"
	for _, c := range []struct {
		path    string
		head    string
		inSkill bool
		config  bool
		want    Kind
	}{
		{"skills/pdf/SKILL.md", "", false, false, kindSkill},
		{"notes/helper.md", skillFront, false, false, kindSkill},
		{"notes/plain.md", "---\ntitle: Notes\n---\n", false, false, kindProse},
		{".claude/skills/pdf/reference.md", "", true, false, kindSkill},
		{"AGENTS.md", "", false, false, kindRules},
		{"pkg/sub/CLAUDE.md", "", false, false, kindRules},
		{"GEMINI.md", "", false, false, kindRules},
		{".claude/commands/deploy.md", "", false, false, kindCommand},
		{".claude/agents/reviewer.md", "", false, false, kindCommand},
		{".cursor/rules/style.mdc", "", false, false, kindRules},
		{".cursorrules", "", false, false, kindRules},
		{".windsurfrules", "", false, false, kindRules},
		{".clinerules", "", false, false, kindRules},
		{".clinerules/01-style.md", "", false, false, kindRules},
		{".github/copilot-instructions.md", "", false, false, kindRules},
		{".github/instructions/go.instructions.md", "", false, false, kindRules},
		{`C:\work\.github\copilot-instructions.md`, "", false, false, kindRules},
		{".mcp.json", `{"mcpServers":{}}`, false, true, kindConfig},
		{"snapshots/tools.json", `{"tools": [ {"name":"x"} ]}`, false, false, kindTools},
		{"data/list.json", `{"items": []}`, false, false, kindCode},
		{"skills/pdf/scripts/run.py", "", true, false, kindScript},
		{"skills/pdf/scripts/run", "#!/bin/sh\n", true, false, kindScript},
		{".claude/hooks/notify.sh", "", false, false, kindScript},
		{"tools/run.py", "", false, false, kindCode},
		{"cmd/main.go", "", false, false, kindCode},
		{"scan/text_test.go", "", false, false, kindCode},
		{"README.md", "", false, false, kindProse},
		{"docs/ssh.md", "", false, false, kindProse},
		{"LICENSE", "", false, false, kindProse},
	} {
		got := Classify(c.path, []byte(c.head), c.inSkill, func(string) bool { return c.config })
		if got != c.want {
			t.Errorf("Classify(%q) = %s, want %s", c.path, got, c.want)
		}
	}
}

func TestFrontmatter(t *testing.T) {
	for _, c := range []struct {
		src       string
		ok, skill bool
		lines     int
		err       bool
	}{
		{"---\nname: a\ndescription: b\n---\nbody", true, true, 4, false},
		{"\xef\xbb\xbf---\r\nname: a\r\ndescription: >\r\n  folded\r\n  text\r\n---\r\n", true, true, 6, false},
		{"---\nname: a\nallowed-tools: [Bash, Read]\n...\n", true, false, 4, false},
		{"---\nname: [unclosed\n---\n", true, false, 3, true},
		{"no frontmatter\n---\n", false, false, 0, false},
		{"---\nname: a\n", false, false, 0, false},
		{"---", false, false, 0, false},
	} {
		fm, ok := Frontmatter([]byte(c.src))
		if ok != c.ok || fm.IsSkill() != c.skill || (ok && fm.Lines != c.lines) || (fm.Err != nil) != c.err {
			t.Errorf("Frontmatter(%q) = %+v ok=%v; want ok=%v skill=%v lines=%d err=%v", c.src, fm, ok, c.ok, c.skill, c.lines, c.err)
		}
	}
	fm, _ := Frontmatter([]byte("---\nname: a\nallowed-tools: [Bash, Read]\n---\n"))
	if got := fm.Fields["allowed-tools"]; got != "Bash, Read" {
		t.Errorf("allowed-tools = %q", got)
	}
	big := "---\n" + strings.Repeat("x: y\n", maxFrontmatter/4) + "---\n"
	if fm, ok := Frontmatter([]byte(big)); !ok || fm.Err == nil {
		t.Errorf("oversized frontmatter: ok=%v err=%v", ok, fm.Err)
	}
}

func FuzzFrontmatter(f *testing.F) {
	for _, s := range []string{
		"---\nname: a\ndescription: b\n---\nbody",
		"---\nname: &a [*a]\n---\n",
		"---\n? complex\n: key\n---\n",
		"---\nname: !!binary aGVsbG8=\ndescription: |\n  x\n---\n",
		"---\r\n---\r\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		fm, ok := Frontmatter(src)
		if !ok && (fm.Fields != nil || fm.Lines != 0) {
			t.Fatalf("no frontmatter but %+v", fm)
		}
		if ok && fm.Lines < 1 {
			t.Fatalf("frontmatter of %d lines", fm.Lines)
		}
	})
}
