package ask

import (
	"context"
	"testing"
	"time"
)

// BenchmarkRemembered is what a retried call costs once a person has
// answered it: the shape and the lookup.
func BenchmarkRemembered(b *testing.B) {
	c, err := New(Options{Getenv: env("AIRLOCK_ASK_BACKEND", "desktop"),
		Desktop: func(context.Context, string, string, time.Duration) (Answer, bool, error) { return Allow, true, nil }})
	if err != nil {
		b.Fatal(err)
	}
	args := []byte(`{"path":"/home/ana/src/shop/CHANGELOG.md","content":"## 1.4.0\n- faster checkout\n"}`)
	c.Ask(context.Background(), Request{Tool: "mcp__files__write_file", Shape: Shape("mcp", "files", "mcp__files__write_file", args)})
	b.ReportAllocs()
	for b.Loop() {
		out := c.Ask(context.Background(), Request{Tool: "mcp__files__write_file", Shape: Shape("mcp", "files", "mcp__files__write_file", args)})
		if out.Answer != Allow {
			b.Fatal(out)
		}
	}
}
