package policy

// Small exported doors into the policy's own normalisers, so the contracts
// package reads its file the way the policy reads its own: the same
// variables, the same percent-decoding. (Its load errors and "did you
// mean" are internal/yamldoc's, as the policy's are.)
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
