package mcpproxy

import (
	"strings"
	"testing"
)

// DEFECT (found in review of issue 14): clip cut an id or a server line
// for a record (mcp_unsolicited, mcp_malformed) before the audit log
// masked it, so a token straddling the cut was kept in part, shapeless.
// A text past the bound is masked first.
func TestClipMasksBeforeCutting(t *testing.T) {
	tok := "ghp_" + "aB3dE5fG7hI9jK1lM3nO5pQ7rS9tU1vW3xY5"
	for _, n := range []int{40, 80} {
		s := `"` + strings.Repeat("a", n-30) + " " + tok + `"`
		if got := clip(s, n); strings.Contains(got, tok[4:16]) {
			t.Errorf("clip(%d) keeps part of the token: %q", n, got)
		}
	}
}
