package policy

import (
	"fmt"
	"testing"
)

// TestShapedFacts: globs, trees and names against the built-in forbids,
// through Classify and CheckForbids.
func TestShapedFacts(t *testing.T) {
	vars := Vars{Home: "/home/dev", Workspace: "/home/dev/proj", Tmp: "/tmp", User: "dev", AirlockHome: "/home/dev/.airlock"}
	p, err := LoadProfile("default", vars)
	if err != nil {
		t.Fatal(err)
	}
	env := CallEnv{Cwd: "/home/dev/proj", Home: "/home/dev", NoResolve: true}
	for _, c := range []struct {
		tool, input string
		rule        string // "" = no forbid; otherwise one forbid that can say it
	}{
		{"Bash", `cat ~/.ss?/id_*`, "secrets.ssh"},
		{"Bash", `cat ~/.ssh/*.pub`, ""},               // only public halves
		{"Bash", `cat ~/.ssh/id_*[!b]`, "secrets.ssh"}, // the private halves
		{"Bash", `cat ~/proj/*.md`, ""},
		{"Bash", `tar czf /tmp/h.tgz ~`, "secrets.ssh"},
		{"Bash", `tar czf /tmp/s.tgz -C ~/proj src`, ""},
		{"Bash", `grep -rn TODO .`, ""}, // workspace recursion: no **/.env is assumed there
		{"Bash", `grep -r TODO ~/.config/nvim`, ""},
		{"Bash", `zip -qr /tmp/c.zip ~/.config`, "secrets.gcloud"},
		{"Bash", `cp -r ~/.config/google-chrome /tmp/gc`, "secrets.browser"},
		{"Bash", `grep -r password /etc`, "secrets.system"},
		{"Bash", `ls -la ~/.ssh`, ""},
		{"Bash", `ssh-keygen -y -f ~/.ssh/id_ed25519`, ""},
		{"Bash", `cat ~/.ssh/id_ed25519.pub`, ""},
		{"Bash", `echo x >> ~/.ssh/id_ed25519.pub`, "secrets.ssh-public-write"},
		{"Bash", `touch .env`, ""},
		{"Bash", `cat .env*`, "secrets.dotenv"},
		{"Bash", `find ~ -name 'credentials' | xargs cat`, "secrets.aws"},
		{"Read", `/home/dev/.config/Slack/Cookies`, "secrets.browser"},
		{"Read", `/home/dev/.config/Code/User/settings.json`, ""},
		{"Grep", `{"pattern":"x","path":"/home/dev","glob":".aws/*"}`, "secrets.aws"},
		{"Grep", `{"pattern":"x","path":"/home/dev/proj/src","glob":"*.ts"}`, ""},
	} {
		var in []byte
		switch c.tool {
		case "Bash":
			in = []byte(fmt.Sprintf(`{"command":%q}`, c.input))
		case "Read":
			in = []byte(fmt.Sprintf(`{"file_path":%q}`, c.input))
		default:
			in = []byte(c.input)
		}
		d, hit := p.CheckForbids(Classify(c.tool, in, env))
		got := ""
		if hit {
			got = d.Rule
		}
		if c.rule == "" && got != "" || c.rule != "" && !hit {
			t.Errorf("%s %s: forbid %q, want %q", c.tool, c.input, got, c.rule)
		}
	}
}
