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
// whose operands are files, interps for interpreters, each entry with a note
// of what it does with its arguments.
package shell
