package policy

import "gopkg.in/yaml.v3"

// Small exported doors into the policy's own normalisers, so the contracts
// package reads its file the way the policy reads its own: the same
// variables, the same percent-decoding, the same "did you mean" hints.
// Each one only forwards; the behaviour is documented where it lives.

// Expand replaces ${workspace}, ${home}, ${tmp}, ${user} and
// ${airlock_home} in s. ok is false when a referenced variable is empty
// (no workspace): a pattern built from it can never match. An unknown or
// unclosed variable is an error whose text says what to write.
func (v Vars) Expand(s string) (out string, ok bool, err error) {
	return v.expand(s)
}

// PercentDecode decodes %XX escapes to a fixpoint ("%252e" → "."), keeping
// invalid escapes as written. Unlike FoldText it neither case-folds nor
// NFKC-normalises: the result is still an exact spelling.
func PercentDecode(s string) string {
	return percentDecode(s)
}

// SuggestKey returns the entry of known within edit distance 2 of s (the
// policy loader's "did you mean"), or "".
func SuggestKey(s string, known []string) string {
	return nearest(s, known)
}

// YAMLKind names a YAML node's kind for an error message ("list",
// "mapping", "single value"), as the policy loader says it.
func YAMLKind(n *yaml.Node) string {
	return kindName(n)
}
