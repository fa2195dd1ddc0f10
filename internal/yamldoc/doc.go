// Package yamldoc parses the YAML files a person (or a repository
// nobody has read) writes for Airlock — the policy, a repository overlay,
// the contracts file — strictly, and says what is wrong with them on the
// line a person would point at.
//
// yaml.v3 alone is not strict enough for a gate's configuration:
//
//   - A key written twice in one mapping is refused when yaml.v3 decodes
//     into a Go value, but a caller that walks the yaml.Node tree itself
//     (as the policy loader does, to keep every line) sees both and keeps
//     whichever it reads last: one appended `mode: observe` switched the
//     gate off. Parse refuses a repeated key at every level, naming both
//     lines and the key's path.
//   - A merge key (`<<: *defaults`) lets a key written beside it replace
//     a merged one silently, so a reader of the file cannot tell which
//     value is in force: refused.
//   - yaml.Unmarshal reads the first document and ignores the rest, so a
//     `---` followed by more settings is silently dropped: a second
//     document is refused.
//   - yaml.v3's syntax errors name the line where the construct around
//     the problem starts, counted from 0 for some errors and from 1 for
//     others, and sometimes no line at all. Parse finds the first line at
//     which the document cannot be valid and reports that line once,
//     with what to fix.
//
// # What a loader reports
//
// Every problem found in a file is a Problem: its line (and column where
// yaml.v3 gives one), what is wrong, and what to write instead. A loader
// collects them in a Problems, so that a person fixes the whole file in
// one go, and returns Problems.Err: a *LoadError naming the file, with
// one line per problem in the one form every loader prints,
//
//	FILE:LINE: MESSAGE: FIX
//
// What a message quotes from the file is bounded and escaped: the file
// may be an overlay from a repository nobody has read, written to forge
// lines of a message or to flood it.
//
// Suggest is the one "did you mean": a misspelt key, a mistyped value.
//
// yamldoc never reads a file itself and knows no schema: the loaders
// (policy, contracts) own theirs and name what they expect.
package yamldoc
