package policy

import (
	"encoding/json"
	"testing"
	"time"
)

// TestAutorunRealisticLookAlikes: whole files as projects and dotfiles
// repositories hold them (oh-my-zsh and nvm in a .zshrc, vim-plug, tpm, a
// CI workflow that logs gh in with its token, lifecycle scripts that run
// prisma and husky, direnv loading .env.local) are allowed in the
// workspace.
func TestAutorunRealisticLookAlikes(t *testing.T) {
	zshrc := `export ZSH="$HOME/.oh-my-zsh"
ZSH_THEME="robbyrussell"
plugins=(git docker kubectl)
source $ZSH/oh-my-zsh.sh
[[ ! -f ~/.p10k.zsh ]] || source ~/.p10k.zsh
export NVM_DIR="$HOME/.nvm"
[ -s "$NVM_DIR/nvm.sh" ] && \. "$NVM_DIR/nvm.sh"
eval "$(pyenv init -)"
eval "$(/opt/homebrew/bin/brew shellenv)"
export PATH="$HOME/.local/bin:$HOME/go/bin:$PATH"
alias k=kubectl
alias gs='git status'
if command -v fzf >/dev/null; then source <(fzf --zsh); fi
export EDITOR=nvim
. "$HOME/.cargo/env"
`
	vimrc := `call plug#begin('~/.vim/plugged')
Plug 'tpope/vim-fugitive'
Plug 'junegunn/fzf', { 'do': { -> fzf#install() } }
call plug#end()
set number relativenumber
autocmd BufWritePre *.go :silent! GoFmt
nnoremap <leader>t :!go test ./...<CR>
let g:go_fmt_command = "goimports"
`
	tmux := "set -g prefix C-a\nset -g mouse on\nset -g @plugin 'tmux-plugins/tpm'\nrun '~/.tmux/plugins/tpm/tpm'\nbind r source-file ~/.tmux.conf\n"
	wf := "name: CI\non: [push]\njobs:\n  build:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: actions/checkout@v4\n      - uses: actions/setup-go@v5\n        with:\n          go-version: '1.22'\n      - run: go build ./...\n      - run: go test -race ./...\n      - name: lint\n        run: |\n          go vet ./...\n          gofmt -l . | tee /dev/stderr | (! read)\n      - run: echo \"${{ secrets.GITHUB_TOKEN }}\" | gh auth login --with-token\n"
	pkg := `{"name":"web","private":true,"scripts":{"dev":"next dev","build":"next build","start":"next start","lint":"next lint","test":"jest --coverage","postinstall":"prisma generate","prepare":"husky install","clean":"rm -rf .next node_modules/.cache","format":"prettier --write ."}}`
	gitcfg := "[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = false\n[remote \"origin\"]\n\turl = git@github.com:a/b.git\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n[branch \"main\"]\n\tremote = origin\n[alias]\n\tlg = log --graph\n\tup = !git pull --rebase && git push\n"
	dc := `{"name":"Go","image":"mcr.microsoft.com/devcontainers/go:1-1.22","features":{"ghcr.io/devcontainers/features/node:1":{}},"postCreateCommand":"go mod download && npm ci","customizations":{"vscode":{"extensions":["golang.go"]}}}`
	envrc := "use flake\ndotenv_if_exists .env.local\nexport DATABASE_URL=postgres://localhost/dev\nPATH_add bin\nsource_up\n"
	hook := "#!/bin/sh\n# husky\n. \"$(dirname -- \"$0\")/_/husky.sh\"\nnpx lint-staged\n"
	mise := "[tools]\nnode = \"20\"\n[env]\nNODE_ENV = \"development\"\n[tasks.build]\nrun = \"npm run build\"\n[tasks.lint]\nrun = [\"eslint .\", \"prettier --check .\"]\n[hooks]\nenter = \"echo entering\"\n"
	cron := "# m h dom mon dow command\n0 3 * * * cd /srv/app && ./backup.sh >> /var/log/backup.log 2>&1\n"
	cases := map[string]string{
		arWS + "/.zshrc": zshrc, arWS + "/.vimrc": vimrc, arWS + "/.tmux.conf": tmux, arWS + "/.github/workflows/ci.yml": wf,
		arWS + "/package.json": pkg, arWS + "/.git/config": gitcfg, arWS + "/.devcontainer/devcontainer.json": dc, arWS + "/.envrc": envrc,
		arWS + "/.husky/pre-commit": hook, arWS + "/mise.toml": mise, arWS + "/deploy/crontab": cron,
	}
	vars := Vars{Workspace: arWS, Home: arHome, Tmp: "/tmp", User: "dev", AirlockHome: arHome + "/.airlock"}
	p, err := LoadProfile("default", vars)
	if err != nil {
		t.Fatal(err)
	}
	env := CallEnv{Cwd: arWS, Home: arHome, User: "dev", NoResolve: true}
	for path, content := range cases {
		in, _ := json.Marshal(arWrite(path, content))
		v := p.Decide(Classify("Write", in, env), time.Now(), Stages{})
		if got := p.Effective(v.Decision, true); got != Allow {
			t.Errorf("%s: got %s, want allow (%s)", path, got, v.Decision.Explain())
		}
	}
}
