package shell

import "sync"

// modelledProgs are programs whose every operand's role the analyzer knows
// whatever their arguments: a path spelled in their words that no handler
// recorded is data (echo ~/.ssh/id_rsa prints a name, it opens nothing).
// Programs whose modelling depends on the arguments (git's subcommands, sh
// with -c, awk without system()) set cmdCtx.modelled in their handler. Built on first use, like fileProgs.
var modelledProgs = sync.OnceValue(func() map[string]bool {
	m := set(
		// text out: operands are data
		"echo", "printf", "true", "false", ":", "yes", "seq", "expr", "date", "sleep", "basename", "dirname",
		// tests and names: operands are expressions, names, numbers
		"test", "[", "[[", "exit", "return", "shift", "let", "which", "type", "whereis", "hash", "kill", "pkill",
		"killall", "pgrep", "id", "whoami", "uname", "hostname", "unset", "set", "shopt", "ulimit", "umask", "wait",
		"jobs", "fg", "bg", "disown", "getopts", "history", "help", "apropos", "alias", "cd", "pushd", "popd",
		"export", "declare", "typeset", "local", "readonly", "setenv", "printenv",
		// handlers that record every operand (paths, patterns, filters, runs)
		"grep", "egrep", "fgrep", "rg", "ag", "ack", "ack-grep", "jq", "yq", "gojq", "jaq", "tee", "uniq", "cp", "mv",
		"install", "ln", "link", "dd", "chmod", "chown", "chgrp", "chattr", "mknod", "tar", "zip", "unzip", "gzip",
		"base64", "gbase64", "xxd", "rev", "find", "eval", "trap", "source", ".", "watch", "script", "at", "batch",
		"crontab",
	)
	for name := range fileProgs() {
		m[name] = true
	}
	return m
})
