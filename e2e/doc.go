// Package e2e runs Airlock's built binaries end to end: the hook against
// the whole corpus, fail-closed behaviour, concurrent appenders and the
// process-level benchmarks. It has no code outside its tests.
package e2e
