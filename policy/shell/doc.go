// Package shell reads bash command text into facts: the simple commands it
// would run (wrappers, sh -c strings, eval and substitutions unwrapped), the
// paths it would touch and how, the hosts it would reach, the environment it
// sets, code it hands to interpreters, and behaviours recognised from data
// flow (download-exec, reverse shells, fork bombs). Parse is the entry point;
// HiddenEffect serves grants by command.
//
// The package never runs anything, never reads the file system and never
// looks at the process environment (TestNoFileSystem holds it to that). How
// each program treats its arguments is table data: fileProgs for programs
// whose operands are files, interps for interpreters, programRuns for what
// a program's options and operands make it run (GTFOBins' catalogue), with
// envRuns and gitExecKeys for the variables and git settings a program
// runs; each entry with a note of what it does with its arguments. The
// commands interpreter code, sed and awk scripts, vim, gdb, make, cron and
// SQL-client text run are read out of their literals (coderuns.go). A
// Command is Modelled when every operand's role is known, so a path merely
// spelled in it (echo ~/.netrc) is text, not a read.
package shell
