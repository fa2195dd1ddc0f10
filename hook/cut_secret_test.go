package hook

import (
	"strings"
	"testing"
)

// DEFECT (found in review of issue 14): a failed tool's error was cut to
// maxOutcomeError before the audit log masked it, so a token straddling
// the cut was kept in part, shapeless. A text past the bound is masked
// first.
func TestCutTextMasksBeforeCutting(t *testing.T) {
	tok := "ghp_" + "aB3dE5fG7hI9jK1lM3nO5pQ7rS9tU1vW3xY5"
	s := "curl: (22) " + strings.Repeat("a", maxOutcomeError-30) + " " + tok
	if got := cutText(s, maxOutcomeError); strings.Contains(got, tok[4:16]) {
		t.Errorf("cutText keeps part of the token: %q", got)
	}
}
