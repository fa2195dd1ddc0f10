package yamldoc

import (
	"fmt"
	"strings"
	"testing"
)

// hostileOverlays are files at the 256 KiB bound of a repository overlay,
// each shaped to cost the checker the most: a repository nobody has read
// writes them, and the hook parses its overlay on every call.
func hostileOverlays() []struct{ name, doc string } {
	const n = 256 << 10
	fill := func(head, unit, tail string) string {
		var b strings.Builder
		b.WriteString(head)
		for i := 0; b.Len() < n-len(tail)-len(unit); i++ {
			b.WriteString(strings.ReplaceAll(unit, "%d", fmt.Sprint(i)))
		}
		b.WriteString(tail)
		return b.String()
	}
	return []struct{ name, doc string }{
		{"rules", fill("rules:\n", "  - {id: r%d, tool: Bash, action: block}\n", "")},
		{"keys", fill("", "k%d: 1\n", "")},
		{"repeated-keys", fill("", "a: 1\n", "")},
		{"aliases", fill("x: &a [1]\ny:\n", "  - *a\n", "")},
		{"flow-mapping-one-line", fill("a: {", "k%d: 1, ", "z: 1}\n")},
		{"tab-on-last-line", fill("rules:\n", "  - {id: r%d, tool: Bash, action: block}\n", "\t- x\n")},
		{"quote-open-on-last-line", fill("", "k%d: v\n", "z: 'x\n")},
		{"bracket-open-on-first-line", fill("a: [\n", " x%d,\n", "")},
		{"bracket-open-after-comments", fill("", "# c%d\n", "a: [\n")},
		{"nested-flow", "a: " + strings.Repeat("[", 9000)},
	}
}

// BenchmarkParseHostileOverlay is what each shape costs Parse, the line
// search of a syntax error included.
func BenchmarkParseHostileOverlay(b *testing.B) {
	for _, tc := range hostileOverlays() {
		data := []byte(tc.doc)
		b.Run(tc.name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				Parse(data)
			}
		})
	}
}
