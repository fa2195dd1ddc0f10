package mcpproxy

import (
	"strings"
	"testing"
)

// DEFECT (found in review of issue 14): a client batch of elements the
// proxy refuses with id null (a number, an object whose id no client
// could match) got one refusal per element, each some 150 bytes for an
// element of two: a batch under the 64 MiB cap made about 5 GB of answers,
// joined into one more copy — far past the "about twice the message in
// flight" the cap promises. Answers with id null cannot be told apart by
// the client, so a batch carries each distinct one once.
func TestClientBatchOfRefusalsIsNotAmplified(t *testing.T) {
	for name, el := range map[string]string{
		"numbers":            "1",
		"unusable ids":       `{"method":"a","id":{}}`,
		"numbers and arrays": `1,[]`,
	} {
		t.Run(name, func(t *testing.T) {
			fp := newFuzzProxy(t)
			line := "[" + strings.TrimSuffix(strings.Repeat(el+",", 20000), ",") + "]\n"
			if err := fp.p.fromClient(line); err != nil {
				t.Fatal(err)
			}
			if out := fp.toClient.Len(); out > 2*len(line) {
				t.Fatalf("a batch of %d bytes was answered with %d bytes (×%d)", len(line), out, out/len(line))
			}
			got := lines(fp.toClient)
			if len(got) != 1 || !strings.HasPrefix(got[0], "[") || !strings.Contains(got[0], `"id":null`) {
				t.Fatalf("want one batch of refusals, got %d lines: %.200q", len(got), got)
			}
		})
	}
	// refusals with ids are each kept: the client matches them
	fp := newFuzzProxy(t)
	if err := fp.p.fromClient(`[{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{}},{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{}},1,2]` + "\n"); err != nil {
		t.Fatal(err)
	}
	got := lines(fp.toClient)
	if len(got) != 1 || strings.Count(got[0], `"id":1,`) != 1 || strings.Count(got[0], `"id":2,`) != 1 || strings.Count(got[0], `"id":null`) != 1 {
		t.Fatalf("%q", got)
	}
}
