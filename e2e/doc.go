// Package e2e runs Airlock's built binaries end to end: the hook against
// the whole corpus, fail-closed behaviour, concurrent appenders and the
// process-level benchmarks. It has no code outside its tests, and the
// tests are Unix-only (they drive processes, ptys and FIFOs; CI runs them
// on Linux, and the Linux-only ones say so in their file names).
package e2e
