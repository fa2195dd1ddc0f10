package shell

import (
	"sync"
)

// What a program's arguments make it run, as a table (GTFOBins' "shell"
// and "command" functions are the public catalogue). Each row names one
// option or operand position and what its value is: shell text parsed
// recursively, a program's argv, a command line split into words, a file
// that runs, or code in a language whose commands are read out of it. The
// nested command gets the same analysis (paths, hosts, signals, its own
// nested runs) in the command's working directory.

// runKind is what a row's value is.
type runKind uint8

const (
	runShell  runKind = iota + 1 // shell text: parsed as a program run by sh -c
	runArgv                      // the word and all after it are a program and its arguments
	runWords                     // a command line split into words without a shell (a program path alone, too)
	runCommas                    // a program and arguments separated by commas (gcc -wrapper sh,-s)
	runFile                      // a file the program runs (a script, a package with install scripts)
	runLang                      // code in row.lang: the commands it runs are read out of it
)

// runRow is one place in a command line that runs something.
type runRow struct {
	at   string  // "-e", "--rsh": an option's value; "+": an operand starting with +; "1", "2": the Nth operand; "*": every operand; "@exec": the operand after the word exec
	key  string  // the value must begin with this (case-insensitive): "exec=", "ProxyCommand"; the rest is what runs
	kind runKind // what the value is
	lang string  // for runLang: vim, gdb, sql, make, cron, bang, tex, rpm, tcl, or an interpreter's language
	note string
}

// runSpec is how one program's arguments run other programs.
type runSpec struct {
	opts *optSpec // the options taking a value, for finding operands
	rows []runRow
	// by names the hand-written reader that applies the rows (wrappers.go,
	// runners.go, tools.go …); the rows then document it and the tests
	// hold it to them. "" means the table reader applies them.
	by string
}

// programRuns is the table, keyed by progName. Built on first use.
var programRuns = sync.OnceValue(func() map[string]*runSpec {
	shellOpt := func(at, note string) runRow { return runRow{at: at, kind: runShell, note: note} }
	argvAt := func(at, note string) runRow { return runRow{at: at, kind: runArgv, note: note} }
	words := func(at, note string) runRow { return runRow{at: at, kind: runWords, note: note} }
	lang := func(at, l, note string) runRow { return runRow{at: at, kind: runLang, lang: l, note: note} }
	file := func(at, note string) runRow { return runRow{at: at, kind: runFile, note: note} }
	hand := func(by string, rows ...runRow) *runSpec { return &runSpec{by: by, rows: rows} }
	m := map[string]*runSpec{
		// ---- wrappers (dispatch.go, wrappers.go, runners.go) ----
		"sudo":        hand("wrappers.go sudo", argvAt("1", "the command; -s/-i with none read a shell from stdin"), shellOpt("-s", "sudo -s CMD runs CMD through the shell")),
		"doas":        hand("dispatch.go", argvAt("1", "the command after -u USER")),
		"pkexec":      hand("dispatch.go", argvAt("1", "the command after --user")),
		"su":          hand("wrappers.go su", shellOpt("-c", "-c/--command/--session-command CMD; alone it reads a shell from stdin")),
		"runuser":     hand("wrappers.go su", shellOpt("-c", "as su"), argvAt("@-u", "runuser -u USER CMD…")),
		"env":         hand("wrappers.go env", argvAt("1", "after NAME=VALUE words; -S splits a string into the command")),
		"nice":        hand("dispatch.go", argvAt("1", "after -n N / -N")),
		"nohup":       hand("dispatch.go", argvAt("1", "the command")),
		"setsid":      hand("dispatch.go", argvAt("1", "the command")),
		"timeout":     hand("dispatch.go", argvAt("2", "after the duration")),
		"stdbuf":      hand("dispatch.go", argvAt("1", "after -i/-o/-e MODE")),
		"chrt":        hand("dispatch.go", argvAt("2", "after the priority")),
		"ionice":      hand("dispatch.go", argvAt("1", "after -c/-n; -p PID runs nothing")),
		"taskset":     hand("dispatch.go", argvAt("2", "after the mask")),
		"chroot":      hand("dispatch.go", argvAt("2", "after NEWROOT, which is read and run from")),
		"unshare":     hand("dispatch.go", argvAt("1", "after the namespace options")),
		"nsenter":     hand("dispatch.go", argvAt("1", "after the namespace options")),
		"flock":       hand("wrappers.go flock", shellOpt("-c", "-c/--command CMD"), argvAt("2", "flock LOCKFILE CMD…")),
		"strace":      hand("dispatch.go", argvAt("1", "the traced command; -o FILE is written")),
		"ltrace":      hand("dispatch.go", argvAt("1", "the traced command")),
		"time":        hand("dispatch.go", argvAt("1", "the timed command; -o FILE is written")),
		"command":     hand("dispatch.go", argvAt("1", "the command; -v/-V run nothing")),
		"exec":        hand("dispatch.go", argvAt("1", "the command replacing the shell; -a NAME")),
		"builtin":     hand("dispatch.go", argvAt("1", "the builtin")),
		"eval":        hand("dispatch.go", shellOpt("*", "the words joined are shell text, run in this shell")),
		"busybox":     hand("dispatch.go", argvAt("1", "busybox APPLET ARGS…")),
		"toybox":      hand("dispatch.go", argvAt("1", "toybox APPLET ARGS…")),
		"xargs":       hand("runners.go xargs", argvAt("1", "the command, with stdin's words appended (known text is appended as words)")),
		"parallel":    hand("runners.go parallel", shellOpt("*", "the command template before ::: is shell text")),
		"watch":       hand("runners.go watch", shellOpt("*", "the words joined are shell text; -x runs them as argv")),
		"script":      hand("runners.go script", shellOpt("-c", "-c/--command CMD")),
		"at":          hand("runners.go at", shellOpt("stdin", "the job is shell text on stdin; -f FILE runs FILE")),
		"batch":       hand("runners.go at", shellOpt("stdin", "as at")),
		"systemd-run": hand("dispatch.go", argvAt("1", "the unit's command after the options")),
		"npx":         hand("runners.go npx", shellOpt("-c", "-c/--call CMD"), argvAt("1", "the package binary")),
		"uv":          hand("runners.go runWrapper", argvAt("@run", "uv run CMD…")),
		"poetry":      hand("runners.go runWrapper", argvAt("@run", "poetry run CMD…")),
		"bundle":      hand("runners.go runWrapper", argvAt("@exec", "bundle exec CMD…")),
		"pnpm":        hand("runners.go runWrapper", argvAt("@exec", "pnpm exec CMD…")),
		"sshpass":     hand("dispatch.go", argvAt("1", "the ssh command after -p/-f/-e")),
		"find":        hand("tools.go find", argvAt("-exec", "-exec/-execdir/-ok/-okdir CMD… ; or +")),
		"sh":          hand("shells.go shell", shellOpt("-c", "-c STRING; a script operand runs; none reads stdin")),
		"trap":        hand("shells.go trap", shellOpt("1", "the handler is shell text")),
		"cmd":         hand("shells.go winCmd", shellOpt("/c", "/c and /k STRING")),
		"tar":         hand("archive.go tar", runRow{at: "--checkpoint-action", key: "exec=", kind: runShell, note: "exec=CMD at each checkpoint"}, shellOpt("--to-command", "each member is piped to CMD"), shellOpt("-I", "-I/--use-compress-program PROG"), shellOpt("-F", "-F/--info-script/--new-volume-script"), shellOpt("--rsh-command", "remote shell for host:archive")),
		"zip":         hand("archive.go zip", shellOpt("-TT", "-TT/--unzip-command CMD tests the archive")),
		"rsync":       hand("remote.go remoteCopy", shellOpt("-e", "-e/--rsh CMD is the remote shell")),
		"scp":         hand("remote.go remoteCopy", words("-S", "-S PROGRAM is the ssh"), runRow{at: "-o", key: "ProxyCommand", kind: runShell, note: "ssh options"}),
		"sftp":        hand("remote.go remoteCopy", words("-S", "-S PROGRAM is the ssh"), runRow{at: "-o", key: "ProxyCommand", kind: runShell, note: "ssh options"}),
		"ssh":         hand("remote.go ssh", runRow{at: "-o", key: "ProxyCommand", kind: runShell, note: "also LocalCommand (with PermitLocalCommand), KnownHostsCommand, RemoteCommand"}, shellOpt("2", "the remote command, run in the remote home")),
		"socat":       hand("remote.go socat", runRow{at: "*", key: "EXEC:", kind: runShell, note: "EXEC:/SYSTEM: addresses run a command"}),
		"nc":          hand("remote.go netcat", words("-e", "-e/--exec PROG"), shellOpt("-c", "-c/--sh-exec CMD")),
		"rg":          hand("edit.go grep", words("--pre", "--pre COMMAND preprocesses each file")),
		"git":         hand("tools.go git", runRow{at: "-c", key: "core.pager=", kind: runShell, note: "-c KEY=VALUE: the keys in gitExecKeys run their value"}, shellOpt("--upload-pack", "clone/fetch/ls-remote -u/--upload-pack CMD")),
		"vim":         hand("tools.go vim", lang("-c", "vim", "-c CMD / +CMD / --cmd CMD are ex commands: :!cmd, :call system()")),
		"awk":         hand("shells.go awk", lang("1", "awk", "the program: system(), print | \"cmd\", \"cmd\" | getline")),
		"sed":         hand("edit.go sed", lang("-e", "sed", "the script: the e command and s///e run shell text, w writes")),
		"python":      hand("interp.go", lang("-c", "python", "os.system, subprocess.*, pty.spawn, os.exec* literals")),
		"perl":        hand("interp.go", lang("-e", "perl", "system, exec, backticks, qx{}, pipe opens")),
		"ruby":        hand("interp.go", lang("-e", "ruby", "system, exec, spawn, backticks, %x(), IO.popen")),
		"node":        hand("interp.go", lang("-e", "node", "child_process exec/execSync/execFile/spawn")),
		"php":         hand("interp.go", lang("-r", "php", "system, exec, shell_exec, passthru, popen, proc_open, backticks")),
		"lua":         hand("interp.go", lang("-e", "lua", "os.execute, io.popen")),

		// ---- the table reader ----
		"less":              {opts: &optSpec{short: "bhjkoOpPtTxyz#", long: set("log-file", "LOG-FILE", "pattern", "tag", "tabs", "shift", "prompt")}, rows: []runRow{lang("+", "bang", "+!CMD: a start-up command; ! runs shell text")}},
		"man":               {opts: &optSpec{short: "PHCMLmSsep", long: set("pager", "html", "config-file", "manpath", "locale", "systems", "sections", "preprocessor")}, rows: []runRow{shellOpt("-P", "-P/--pager PAGER is shell text"), shellOpt("--pager", "as -P"), shellOpt("-H", "-H/--html=BROWSER is shell text"), shellOpt("--html", "as -H")}},
		"gdb":               {opts: &optSpec{oneDash: true, long: set("ex", "eval-command", "iex", "init-eval-command", "x", "command", "ix", "init-command", "p", "pid", "cd", "d", "directory", "s", "symbols", "e", "exec", "se", "c", "core", "data-directory")}, rows: []runRow{lang("-ex", "gdb", "-ex/--eval-command CMD: !CMD, shell CMD, python CODE, call system(\"…\")"), lang("-eval-command", "gdb", "as -ex"), lang("-iex", "gdb", "as -ex, before the inferior loads"), lang("-init-eval-command", "gdb", "as -iex"), file("-x", "-x FILE runs gdb commands from FILE"), argvAt("--args", "--args PROG ARGS… is the inferior")}},
		"ed":                {rows: []runRow{lang("stdin", "bang", "ed commands on stdin: !CMD runs shell text")}},
		"tmux":              {opts: &optSpec{short: "cfLSTtsnxyeFNdlpPw"}, rows: []runRow{shellOpt("-c", "tmux -c CMD runs CMD through the default shell"), shellOpt("@new-session", "new-session/new/new-window/split-window/respawn-*/run-shell/display-popup SHELL-COMMAND"), lang("@send-keys", "keys", "send-keys/send KEYS types into a pane's shell")}},
		"screen":            {opts: &optSpec{short: "cSehpTtXxrdmRD"}, rows: []runRow{argvAt("1", "screen [-dmS NAME] CMD ARGS…"), lang("-X", "screen", "-X stuff TEXT types into the window's shell; -X exec/screen CMD runs it")}},
		"crontab":           {rows: []runRow{lang("stdin", "cron", "crontab - (or no file) installs the table on stdin: each line's command runs on schedule")}},
		"make":              {opts: &optSpec{short: "CfIjloWE", long: set("directory", "file", "makefile", "include-dir", "jobs", "load-average", "old-file", "assume-old", "what-if", "new-file", "assume-new", "eval")}, rows: []runRow{lang("--eval", "make", "--eval TEXT: a makefile fragment whose recipes and $(shell) run"), lang("-E", "make", "as --eval"), runRow{at: "-f", kind: runFile, note: "-f/--file/--makefile FILE: its recipes run"}, runRow{at: "--file", kind: runFile, note: "as -f"}, runRow{at: "--makefile", kind: runFile, note: "as -f"}, runRow{at: "*", key: "SHELL=", kind: runWords, note: "SHELL=PROG runs every recipe"}, lang("stdin", "make", "-f - reads the makefile from stdin")}},
		"cmake":             {rows: []runRow{argvAt("@env", "cmake -E env [NAME=VALUE…] CMD…"), argvAt("@time", "cmake -E time CMD…"), file("-P", "-P SCRIPT runs a cmake script")}},
		"npm":               {opts: &optSpec{short: "wpc", long: set("workspace", "package", "prefix", "call")}, rows: []runRow{shellOpt("-c", "npm exec -c/--call CMD"), shellOpt("--call", "as -c"), words("--script-shell", "--script-shell=PROG runs every package script"), argvAt("@exec", "npm exec [--] CMD…"), argvAt("@x", "npm x CMD…")}},
		"yarn":              {rows: []runRow{argvAt("@exec", "yarn exec CMD…"), argvAt("@dlx", "yarn dlx PKG…")}},
		"cabal":             {rows: []runRow{argvAt("@exec", "cabal exec -- CMD…")}},
		"dpkg":              {opts: &optSpec{long: set("admindir", "instdir", "root")}, rows: []runRow{file("-i", "dpkg -i PKG.deb runs the package's maintainer scripts as root")}},
		"rpm":               {rows: []runRow{lang("--eval", "rpm", "--eval EXPR: %(CMD) runs shell text, %{lua:…} runs lua"), lang("-E", "rpm", "as --eval")}},
		"apt":               {opts: &optSpec{short: "oct"}, rows: aptRows},
		"apt-get":           {opts: &optSpec{short: "oct"}, rows: aptRows},
		"openvpn":           {rows: []runRow{words("--up", "--up CMD runs after the device opens (with --script-security 2)"), words("--down", "--down CMD"), words("--route-up", "--route-up CMD"), words("--ipchange", "--ipchange CMD"), words("--client-connect", "--client-connect CMD"), words("--tls-verify", "--tls-verify CMD"), words("--auth-user-pass-verify", "--auth-user-pass-verify CMD METHOD"), words("--learn-address", "--learn-address CMD")}},
		"certbot":           {rows: []runRow{shellOpt("--pre-hook", "--pre-hook CMD"), shellOpt("--post-hook", "--post-hook CMD"), shellOpt("--deploy-hook", "--deploy-hook CMD"), shellOpt("--manual-auth-hook", "--manual-auth-hook CMD"), shellOpt("--manual-cleanup-hook", "--manual-cleanup-hook CMD")}},
		"aria2c":            {rows: []runRow{words("--on-download-complete", "--on-download-complete PROG"), words("--on-download-error", "--on-download-error PROG"), words("--on-download-start", "--on-download-start PROG"), words("--on-download-stop", "--on-download-stop PROG"), words("--on-bt-download-complete", "--on-bt-download-complete PROG")}},
		"wget":              {rows: []runRow{words("--use-askpass", "--use-askpass=PROG prints the password")}},
		"scrot":             {opts: &optSpec{short: "eqdtcfF"}, rows: []runRow{shellOpt("-e", "-e/--exec CMD runs on the shot")}},
		"xdotool":           {rows: []runRow{argvAt("@exec", "xdotool exec CMD…")}},
		"sort":              {rows: []runRow{words("--compress-program", "--compress-program=PROG compresses temporaries")}},
		"split":             {opts: &optSpec{short: "lbCnat", long: set("lines", "bytes", "line-bytes", "number", "suffix-length", "additional-suffix", "separator", "filter")}, rows: []runRow{shellOpt("--filter", "--filter=CMD: each piece is piped to CMD")}},
		"nano":              {opts: &optSpec{short: "TXoQrYsEJ"}, rows: []runRow{words("-s", "-s/--speller PROG runs on ^T")}},
		"mail":              {rows: []runRow{lang("--exec", "bang", "--exec/-E CMD: !CMD runs shell text"), lang("-E", "bang", "as --exec")}},
		"lftp":              {rows: []runRow{lang("-c", "bang", "-c CMDS: !CMD runs shell text"), lang("-e", "bang", "as -c, then interactive")}},
		"dc":                {rows: []runRow{lang("-e", "bang", "-e EXPR: !CMD runs shell text"), lang("--expression", "bang", "as -e")}},
		"sqlite3":           {opts: &optSpec{long: set("cmd", "init", "separator", "newline", "nullvalue", "vfs")}, rows: []runRow{lang("-cmd", "sql", "-cmd '.shell CMD' / '.system CMD'"), lang("2", "sql", "SQL or dot-commands after the database: .shell, .system, .once |CMD")}},
		"mysql":             {rows: []runRow{lang("-e", "sql", "-e/--execute '\\! CMD' or 'system CMD' runs shell text"), lang("--execute", "sql", "as -e")}},
		"psql":              {rows: []runRow{lang("-c", "sql", "-c/--command '\\! CMD' runs shell text; \\o |CMD pipes output"), lang("--command", "sql", "as -c")}},
		"gcc":               {rows: []runRow{{at: "-wrapper", kind: runCommas, note: "-wrapper PROG,ARGS runs each compiler pass under PROG"}}},
		"cc":                {rows: []runRow{{at: "-wrapper", kind: runCommas, note: "as gcc"}}},
		"clang":             {rows: []runRow{{at: "-wrapper", kind: runCommas, note: "as gcc"}}},
		"latex":             {rows: []runRow{lang("*", "tex", "\\write18{CMD} in the source on the command line runs shell text (--shell-escape)")}},
		"pdflatex":          {rows: []runRow{lang("*", "tex", "as latex")}},
		"xelatex":           {rows: []runRow{lang("*", "tex", "as latex")}},
		"lualatex":          {rows: []runRow{lang("*", "tex", "as latex")}},
		"tex":               {rows: []runRow{lang("*", "tex", "as latex")}},
		"hyperfine":         {opts: &optSpec{short: "wmMrpcSnLP", long: set("warmup", "min-runs", "max-runs", "runs", "prepare", "cleanup", "shell", "command-name", "parameter-scan", "parameter-list", "export-json", "export-csv", "export-markdown", "output", "setup", "conclude")}, rows: []runRow{shellOpt("*", "each operand is a benchmarked shell command"), shellOpt("--prepare", "--prepare CMD"), shellOpt("-p", "as --prepare"), shellOpt("--setup", "--setup CMD"), shellOpt("--cleanup", "--cleanup CMD"), shellOpt("-c", "as --cleanup"), shellOpt("--conclude", "--conclude CMD")}},
		"pee":               {rows: []runRow{shellOpt("*", "each operand is a shell command fed stdin")}},
		"entr":              {opts: &optSpec{}, rows: []runRow{argvAt("1", "entr CMD… on each change; -s runs it through $SHELL")}},
		"watchexec":         {opts: &optSpec{short: "ewifdp", long: set("exts", "watch", "ignore", "filter", "debounce", "shell", "signal", "project-origin", "workdir", "env", "on-busy-update", "delay-run", "poll")}, rows: []runRow{argvAt("1", "watchexec [--] CMD… runs through the shell on each change")}},
		"nodemon":           {rows: []runRow{shellOpt("--exec", "--exec/-x CMD runs on each change"), shellOpt("-x", "as --exec")}},
		"logsave":           {rows: []runRow{argvAt("2", "logsave LOGFILE CMD…; LOGFILE is written")}},
		"setarch":           {rows: []runRow{argvAt("2", "setarch ARCH CMD…")}},
		"linux32":           {rows: []runRow{argvAt("1", "linux32 CMD…")}},
		"linux64":           {rows: []runRow{argvAt("1", "linux64 CMD…")}},
		"choom":             {opts: &optSpec{short: "pn", long: set("pid", "adjust")}, rows: []runRow{argvAt("1", "choom -n N CMD…")}},
		"softlimit":         {opts: &optSpec{short: "msdlafcorpt"}, rows: []runRow{argvAt("1", "softlimit OPTS CMD…")}},
		"valgrind":          {rows: []runRow{argvAt("1", "valgrind [--tool=…] CMD…")}},
		"perf":              {opts: &optSpec{short: "eopCcGt", long: set("event", "output", "pid", "cpu", "cgroup", "tid", "repeat")}, rows: []runRow{argvAt("@stat", "perf stat CMD…"), argvAt("@record", "perf record CMD…"), argvAt("@trace", "perf trace CMD…")}},
		"cpulimit":          {opts: &optSpec{short: "lpe", long: set("limit", "pid", "exe")}, rows: []runRow{argvAt("1", "cpulimit -l N [-f] CMD…")}},
		"start-stop-daemon": {opts: &optSpec{short: "xanpuUcNPkrsRdg", long: set("exec", "startas", "name", "pidfile", "user", "chuid", "nicelevel", "procsched", "iosched", "signal", "retry", "chdir", "group", "umask", "output")}, rows: []runRow{words("-x", "-x/--exec PROG is started"), words("--exec", "as -x"), words("--startas", "--startas PROG"), words("-a", "as --startas")}},
		"grc":               {rows: []runRow{argvAt("1", "grc [--pty] CMD…")}},
		"torify":            {rows: []runRow{argvAt("1", "torify CMD…")}},
		"chronic":           {rows: []runRow{argvAt("1", "chronic CMD… (moreutils)")}},
		"ifne":              {rows: []runRow{argvAt("1", "ifne CMD… when stdin is not empty")}},
		"lckdo":             {rows: []runRow{argvAt("2", "lckdo LOCKFILE CMD…")}},
		"faketime":          {rows: []runRow{argvAt("2", "faketime TIMESPEC CMD…")}},
		"numactl":           {opts: &optSpec{short: "iNpmCP", long: set("interleave", "cpunodebind", "preferred", "membind", "physcpubind")}, rows: []runRow{argvAt("1", "numactl OPTS CMD…")}},
		"prlimit":           {opts: &optSpec{short: "po", long: set("pid", "output")}, rows: []runRow{argvAt("1", "prlimit --LIMIT=N CMD…")}},
		"setpriv":           {rows: []runRow{argvAt("1", "setpriv OPTS CMD…")}},
		"cgexec":            {opts: &optSpec{short: "g"}, rows: []runRow{argvAt("1", "cgexec -g CTRL:PATH CMD…")}},
		"chpst":             {opts: &optSpec{short: "ugUebnlmdofcpr"}, rows: []runRow{argvAt("1", "chpst OPTS CMD… (runit)")}},
		"runcon":            {rows: []runRow{argvAt("2", "runcon CONTEXT CMD…")}},
		"sandbox-exec":      {opts: &optSpec{short: "fpnD"}, rows: []runRow{argvAt("1", "sandbox-exec -f PROFILE CMD…")}},
		"ssh-agent":         {opts: &optSpec{short: "aEPt"}, rows: []runRow{argvAt("1", "ssh-agent CMD… runs CMD with the agent")}},
		"dbus-launch":       {rows: []runRow{argvAt("1", "dbus-launch CMD…")}},
		"tsp":               {rows: []runRow{argvAt("1", "tsp CMD… queues CMD (task spooler)")}},
		"daemonize":         {opts: &optSpec{short: "acepolu"}, rows: []runRow{argvAt("1", "daemonize OPTS PROG ARGS…")}},
		"dtach":             {rows: []runRow{argvAt("2", "dtach -c SOCKET CMD…")}},
		"abduco":            {rows: []runRow{argvAt("2", "abduco -c NAME CMD…")}},
		"ip":                {rows: []runRow{{at: "@exec", kind: runArgv, lang: "skip1", note: "ip netns exec NAME CMD…"}}},
		"expect":            {rows: []runRow{lang("-c", "tcl", "-c CODE: spawn and exec run programs")}},
		"capsh":             {rows: []runRow{argvAt("--", "capsh … -- ARGS… runs bash ARGS… (-- -c CMD)")}},
		"multitime":         {opts: &optSpec{short: "n"}, rows: []runRow{argvAt("1", "multitime -n N CMD…")}},
		"gem":               {rows: []runRow{words("-e", "gem open -e EDITOR GEM runs EDITOR")}},
		"rake":              {rows: []runRow{lang("-p", "ruby", "-p/-e CODE is ruby"), lang("-e", "ruby", "as -p")}},
		"octave":            {rows: []runRow{lang("--eval", "octave", "--eval CODE: system(\"…\")")}},
		"octave-cli":        {rows: []runRow{lang("--eval", "octave", "as octave")}},
		"slsh":              {rows: []runRow{lang("-e", "slsh", "-e CODE: system(\"…\")")}},
		"ghc":               {rows: []runRow{lang("-e", "haskell", "-e EXPR: callCommand \"…\"")}},
		"ghci":              {rows: []runRow{lang("-e", "haskell", "as ghc")}},
		"jrunscript":        {rows: []runRow{lang("-e", "java", "-e CODE: exec(\"…\")")}},
		"nmap":              {rows: []runRow{{at: "--script", kind: runFile, note: "--script=FILE.nse runs lua (a path; names are categories)"}}},
		"ssh-keygen":        {rows: []runRow{file("-D", "-D LIB loads a PKCS#11 library into ssh-keygen")}},
		"go":                {rows: []runRow{words("-exec", "go test/run -exec PROG runs the binaries under PROG"), words("-toolexec", "go build -toolexec PROG runs every tool under PROG")}},
		"tcpdump":           {opts: &optSpec{short: "icwWsCGrFEyTBjJMm"}, rows: []runRow{words("-z", "-z PROG runs on each rotated -w file")}},
	}
	for _, rs := range m {
		if rs.by == "" {
			rs.opts = withRowOpts(rs.opts, rs.rows)
		}
	}
	return m
})

// aptRows are apt's -o hooks: each runs its value through the shell.
var aptRows = []runRow{
	{at: "-o", key: "APT::Update::Pre-Invoke", kind: runShell, note: "-o APT::Update::Pre-Invoke::=CMD before apt update"},
	{at: "-o", key: "APT::Update::Post-Invoke", kind: runShell, note: "after apt update"},
	{at: "-o", key: "APT::Update::Post-Invoke-Success", kind: runShell, note: "after a successful update"},
	{at: "-o", key: "DPkg::Pre-Invoke", kind: runShell, note: "before dpkg runs"},
	{at: "-o", key: "DPkg::Post-Invoke", kind: runShell, note: "after dpkg runs"},
	{at: "-o", key: "DPkg::Pre-Install-Pkgs", kind: runShell, note: "with the packages to install"},
}
