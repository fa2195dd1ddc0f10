package policy

import "strings"

// makefileCommands reads a makefile as make would run it: the text is
// handed to `make --eval`, whose reader in policy/shell (runlang.go's
// makeRecipes) yields the recipe lines and the $(shell …) calls, so a
// recipe is judged as the same line typed into Bash. GNU make's `VAR !=
// CMD` runs CMD when the makefile is read; it is added as a command of
// its own. Make's own $(VAR) references stay as the shell would see them
// ($(CC) reads as a substitution whose program is unknown, which adds
// nothing a forbid matches).
func makefileCommands(l *cmdList, text string) {
	l.add("make --eval "+shQuote(text), false)
	for _, line := range lines(text) {
		if strings.HasPrefix(line, "\t") {
			continue
		}
		if _, cmd, ok := strings.Cut(line, "!="); ok && strings.TrimSpace(cmd) != "" {
			l.add(strings.TrimSpace(cmd), false)
		}
	}
}
