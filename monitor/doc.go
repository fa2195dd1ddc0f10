// Package monitor owns the live view of the audit log: a follower that
// tails audit.jsonl as it grows and across rotations, checking that each
// new record links to the one before it, and the board (a bubbletea model)
// and plain printer that show what it finds.
//
// The monitor only reads. It never appends, repairs or rotates the log
// (that is the audit package's job, under its lock), and it never decides
// anything. Every string taken from a record is passed through
// textsafe.Escape before it reaches the terminal, so an agent cannot forge a
// line, hide text or drive the terminal through a tool name or a target.
//
// Memory stays bounded however large the log grows: the log is streamed
// once at start for counts, only the last records are kept in a ring, and a
// burst of appends between two polls is counted but not held.
package monitor
