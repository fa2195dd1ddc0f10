package policy

import (
	"testing"
)

// FuzzLoadPolicy: the loader never panics on any bytes, and whatever loads
// has a mode, a default and an ask_fallback that are real values.
func FuzzLoadPolicy(f *testing.F) {
	for _, s := range []string{
		"mode: guard\ndefault: allow\nrules: []\n",
		"rules:\n  - id: a\n    tool: Bash\n    command: {program: rm, flags: ['r|R'], args: ['/']}\n    action: block\n",
		"rules:\n  - id: a\n    path: {glob: ['${workspace}/**'], access: [read], except: ['**/.env']}\n    action: allow\n",
		"rules: []\ngrants:\n  - {tool: Read, match: '/x/**', expires: 2026-01-01}\noverrides:\n  - {forbid: secrets.ssh, reason: r}\n",
		"escalate: {high: block}\nrules: [{id: x, host: ['*.x.com'], action: ask}]\n",
		"{}", "", "- a", "rules: [", "rules:\n  - id: a\n    action: allow\n    text: '${nope}'\n",
	} {
		f.Add([]byte(s))
	}
	vars := Vars{Workspace: "/w", Home: "/h", Tmp: "/tmp", User: "u", AirlockHome: "/h/.airlock"}
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := parse(data, "fuzz.yaml", "policy", vars)
		if err != nil {
			return
		}
		if p.Mode < Observe || p.Mode > Enforce || p.Default < Allow || p.Default > Block || p.AskFallback < Allow || p.AskFallback > Block {
			t.Fatalf("loaded with impossible settings: %+v", p)
		}
		if len(p.Forbids) == 0 {
			t.Fatal("a loaded policy lost the built-in forbids")
		}
	})
}
