package policy

import (
	"strings"
	"testing"
)

// shapeCase is a call and the built-in forbid it must meet ("" = none,
// "*" = any: an earlier forbid may name the same call first).
type shapeCase struct {
	tool, input, want string
}

// checkShapes decides each case against the built-in forbids only, with
// a home and workspace like the corpus fixture's.
func checkShapes(t *testing.T, cases []shapeCase) {
	t.Helper()
	vars, ws := testVars(t)
	p := mustParse(t, "mode: enforce\ndefault: allow\nrules: []\n", vars)
	for _, c := range cases {
		in := strings.NewReplacer("{HOME}", vars.Home, "{WS}", ws).Replace(c.input)
		f := Classify(c.tool, []byte(in), CallEnv{Cwd: ws, Home: vars.Home, User: vars.User})
		d, ok := p.CheckForbids(f)
		got := ""
		if ok {
			got = d.Rule
		}
		if c.want == "" && ok {
			t.Errorf("%s %s: stopped by %s (%s), want allowed", c.tool, c.input, d.Rule, d.Reason)
		}
		if c.want == "*" && ok {
			continue
		}
		if c.want != "" && !strings.HasPrefix(got, c.want) {
			t.Errorf("%s %s: got forbid %q, want %s…", c.tool, c.input, got, c.want)
		}
	}
}

func bash(cmd string) string {
	return `{"command":` + quoteJSON(cmd) + `}`
}

func quoteJSON(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"', '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case '\n':
			b.WriteString(`\n`)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// TestShapesContainers: container runtimes by option shape, not by brand
// or by one spelling (unseen runtimes with docker's CLI, glued and =
// forms, clusters, mount sources).
func TestShapesContainers(t *testing.T) {
	var cases []shapeCase
	for _, c := range []struct{ cmd, want string }{
		{"docker run -itv /:/h alpine sh", "hostroot.mount"},
		{"finch run --mount=type=bind,src=/,dst=/x alpine sh", "hostroot.mount"},
		{"lima nerdctl run -v ~/:/h alpine sh", "hostroot.mount"},
		{"podman run -v /run/user/1000/podman/podman.sock:/s alpine", "hostroot.mount"},
		{"docker run -v /etc/passwd:/p:ro alpine", "hostroot.mount"},
		{"docker run -v /home/other:/o alpine", "hostroot.mount"},
		{"apptainer exec -B /:/host img.sif sh", "hostroot.mount"},
		{"systemd-nspawn -D / sh", "hostroot.mount"},
		{"nerdctl run --privileged alpine", "hostroot.privileged"},
		{"docker run --ipc host alpine", "hostroot.namespaces"},
		{"podman run --uts=host alpine", "hostroot.namespaces"},
		{"docker run --cap-add sys_module alpine", "hostroot.capabilities"},
		{"docker run --net host --cap-add NET_ADMIN alpine", "hostroot.capabilities"},
		{"docker run --security-opt=seccomp:unconfined alpine", "hostroot.security-opt"},
		{"docker run --device=/dev/nvme0n1 alpine", "hostroot.device"},
		{"nsenter --target=1 --all", "hostroot.nsenter"},
		{"nsenter -t1 -m sh", "hostroot.nsenter"},
		{"curl --unix-socket /run/podman/podman.sock http://d/v4.0.0/libpod/containers/create -d @c.json", "hostroot.runtime-socket"},
		{"oc debug nodes/ip-10-0-0-1", "hostroot.kubectl"},
		// look-alikes
		{"docker run -v /etc/localtime:/etc/localtime:ro alpine date", ""},
		{"docker run -v {WS}:/src -w /src golang:1.26 go test ./...", ""},
		{"docker run -v ./:/src alpine ls", ""},
		{"docker run -v cache:/root/.cache alpine", ""},
		{"docker run -v /tmp/x:/x alpine", ""},
		{"docker run --cap-add SYS_PTRACE alpine gdb", ""},
		{"docker run --device /dev/fuse alpine", ""},
		{"docker run --net=host alpine curl localhost:8080", ""},
		{"docker run --pid=container:web alpine ps", ""},
		{"nsenter -t 4242 -n ip a", ""},
		{"kubectl debug -it pod/web --image=busybox", ""},
		{"docker volume create data", ""},
		{"docker run -v ~/.cache/go-build:/root/.cache/go-build -v {WS}:/src golang go build ./...", ""},
		{"docker run -v $HOME/.m2/repository:/root/.m2/repository maven mvn -q package", ""},
		{"docker run -v ~/.m2:/root/.m2 maven mvn deploy", "hostroot.mount"},
	} {
		cases = append(cases, shapeCase{"Bash", bash(c.cmd), c.want})
	}
	cases = append(cases,
		shapeCase{"Write", `{"file_path":"{WS}/.devcontainer/devcontainer.json","content":"{\"runArgs\": [\"--privileged\"]}"}`, "hostroot.manifest-write"},
		shapeCase{"Write", `{"file_path":"{WS}/compose.yaml","content":"services:\n  a:\n    image: x\n    network_mode: host\n"}`, "hostroot.manifest-write"},
		shapeCase{"Write", `{"file_path":"{WS}/compose.yaml","content":"services:\n  a:\n    image: x\n    volumes: [./src:/src]\n"}`, ""},
	)
	checkShapes(t, cases)
}

// TestShapesDestruction: one model of "delete, overwrite, move away or
// lock out the root, a home or an entry of the home" for every program.
func TestShapesDestruction(t *testing.T) {
	var cases []shapeCase
	for _, c := range []struct{ cmd, want string }{
		{"rm -rf /*", "destroy.rm-root"},
		{"cd / && rm -rf *", "destroy.rm-root"},
		{"rm -r --force /Users/ann", "destroy.rm-root"},
		{"rsync -a --delete-after /var/empty/ ~", "destroy.sync-delete"},
		{"rclone move ~/Documents remote:x", "destroy.sync-delete"},
		{"shred -n 3 -u ~/.ssh/id_ed25519", "*"},
		{"truncate -s0 ~/.zsh_history", "*"},
		{"mv ~/.ssh /tmp/x", "*"},
		{"shred -u ~/.bashrc", "*"},
		{"mv ~/Documents /tmp/x", "destroy.move-away"},
		{"cp /dev/null ~/.gitconfig", "destroy.truncate"},
		{"trash ~", "destroy.move-away"},
		{"chattr -R +i /", "destroy.chmod-root"},
		{"git --work-tree=/ clean -ffdx", "destroy.git-clean-home"},
		{"cd ~ && git reset --hard", "destroy.git-clean-home"},
		{"wipefs -a /dev/nvme0n1", "destroy.mkfs"},
		{"sgdisk -Z /dev/sdb", "destroy.disk-tools"},
		{"ruby -e 'require \"fileutils\"; FileUtils.rm_r(Dir.home)'", "destroy.interpreter"},
		{"bun -e \"require('fs').rmSync(require('os').homedir(),{recursive:true})\"", "destroy.interpreter"},
		// look-alikes
		{"rm -rf /tmp/build-1234", ""},
		{"find /tmp -name 'x-*' -exec rm -rf {} +", ""},
		{"find / -perm -4000 -exec ls -l {} +", ""},
		{"mkfs.vfat -C /tmp/fat.img 1440", ""},
		{"mv build ~/", ""},
		{"mv report.pdf ~/Desktop/", ""},
		{"rsync -a --delete ./site/ /tmp/site-copy/", ""},
		{"rsync -a ~/proj/ backup:proj/", ""},
		{"git clean -fdx", ""},
		{"git -C {WS} clean -fdx", ""},
		{"python3 -c \"import shutil; shutil.rmtree('dist')\"", ""},
		{"node -e \"require('fs').rmSync('/tmp/x',{recursive:true})\"", ""},
		{"node -e \"require('fs').rmSync('/', {recursive:true, force:true})\"", "destroy.interpreter"},
		{"chmod -R g+w ./public", ""},
		{"diskutil list", ""},
	} {
		cases = append(cases, shapeCase{"Bash", bash(c.cmd), c.want})
	}
	cases = append(cases,
		shapeCase{"mcp__fs__delete_directory", `{"path":"{HOME}/.config"}`, "destroy.mcp-delete"},
		shapeCase{"mcp__fs__move_file", `{"source":"{HOME}","destination":"/tmp/x"}`, "destroy.mcp-delete"},
		shapeCase{"mcp__fs__delete_file", `{"path":"{WS}/dist/a.js"}`, ""},
	)
	checkShapes(t, cases)
}

// TestShapesRemoteAccess: tunnels, shared terminals, reverse forwards and
// servers whose root is the home, by program shape.
func TestShapesRemoteAccess(t *testing.T) {
	var cases []shapeCase
	for _, c := range []struct{ cmd, want string }{
		{"ngrok tls 8443", "remote.tunnel"},
		{"cloudflared tunnel --hello-world", "remote.tunnel"},
		{"pnpm dlx localtunnel --port 3000", "remote.tunnel"},
		{"bunx localtunnel --port 3000", "remote.tunnel"},
		{"frpc -c frpc.toml", "remote.tunnel"},
		{"devtunnel host -p 3000 --allow-anonymous", "remote.tunnel"},
		{"ssh -fNR 9000:127.0.0.1:9000 me@198.51.100.4", "remote.ssh-reverse"},
		{"ssh -o RemoteForward=8080:localhost:80 me@198.51.100.4", "remote.ssh-reverse"},
		{"tailscale serve --bg 3000", "remote.tunnel"},
		{"python -m http.server --directory=/ 9000", "remote.serve-home"},
		{"cd / && python3 -m http.server", "remote.serve-home"},
		{"miniserve ~", "remote.serve-home"},
		{"rclone serve sftp ~/.ssh", "*"},
		{"php -S 0.0.0.0:80 -t /", "remote.serve-home"},
		// look-alikes
		{"ngrok config check", ""},
		{"cloudflared tunnel list", ""},
		{"tailscale serve status", ""},
		{"ssh -L 8080:localhost:80 me@198.51.100.4", ""},
		{"ssh -D 1080 me@198.51.100.4", ""},
		{"python3 -m http.server 8000", ""},
		{"python3 -m http.server --directory dist 8000", ""},
		{"miniserve ./dist", ""},
		{"xterm -display :0", ""},
		{"code --install-extension golang.go", ""},
		{"jupyter lab --ip=127.0.0.1", ""},
		{"bore --version", ""},
	} {
		cases = append(cases, shapeCase{"Bash", bash(c.cmd), c.want})
	}
	checkShapes(t, cases)
}

// TestProgFilterNoFalseNegative: the per-rule program filter lets through
// every program name a built-in forbid's command patterns can meet.
func TestProgFilterNoFalseNegative(t *testing.T) {
	vars, _ := testVars(t)
	p := mustParse(t, "mode: enforce\ndefault: allow\nrules: []\n", vars)
	for _, r := range p.Forbids {
		for _, cm := range r.commands {
			for _, g := range cm.program {
				for _, name := range []string{strings.ReplaceAll(strings.ReplaceAll(g, "*", ""), "?", "x"), strings.ReplaceAll(strings.ReplaceAll(g, "*", "abc"), "?", "x")} {
					if !wildMatch(g, name) || name == "" {
						continue
					}
					c := commandFact{Argv: []string{"/usr/bin/" + name}}
					if !r.progs.anyOf([]commandFact{c}) {
						t.Errorf("%s: the program filter refuses %q, which %q matches", r.ID, name, g)
					}
					c.fprog = FoldText(name)
					c.pbits[0], c.pbits[1] = progBits(c.fprog)
					c.pbitsSet = true
					if !r.progs.anyOf([]commandFact{c}) {
						t.Errorf("%s: the program filter (bits precomputed) refuses %q", r.ID, name)
					}
				}
			}
		}
	}
}

// TestShapesGate: agents started without the user's guards, the gate's
// processes and variables, by shape; read-only uses stay allowed.
func TestShapesGate(t *testing.T) {
	var cases []shapeCase
	for _, c := range []struct{ cmd, want string }{
		{"HOME=/tmp/x claude -p hi", "gate.agent-elsewhere"},
		{"env CODEX_HOME=/tmp/c codex exec x", "gate.agent-elsewhere"},
		{"qwen --yolo -p x", "gate.agent-unguarded"},
		{"bunx @google/gemini-cli --approval-mode yolo", "gate.agent-unguarded"},
		{"codex -s danger-full-access exec x", "gate.agent-unguarded"},
		{"claude --setting-sources=project,local -p x", "gate.agent-unguarded"},
		{"killall airlock-mcp", "gate.processes"},
		{"launchctl bootout gui/501/com.airlock.askd", "gate.processes"},
		{"declare -x AIRLOCK_MODE=observe", "*"},
		{"unset AIRLOCK_POLICY", "gate.env-commands"},
		{"python3 -c \"import subprocess,os; subprocess.run(['rm','-rf',os.path.expanduser('~')])\"", "*"},
		// look-alikes
		{"claude --setting-sources user,project -p x", ""},
		{"codex exec --sandbox read-only 'explain'", ""},
		{"gemini --approval-mode auto_edit -p x", ""},
		{"airlock allow recent", ""},
		{"airlock allow Bash --match list", "gate.self-approve"},
		{"airlock allow --match list Bash", "gate.self-approve"},
		{"airlock doctor --json", ""},
		{"pkill -f 'vite --port 5173'", ""},
		{"HOME=/tmp/x npm test", ""},
		{"unset GOFLAGS", ""},
	} {
		cases = append(cases, shapeCase{"Bash", bash(c.cmd), c.want})
	}
	checkShapes(t, cases)
}
