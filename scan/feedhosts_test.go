package scan

import (
	"reflect"
	"testing"
)

func TestCollectorHosts(t *testing.T) {
	f := &Feed{Indicators: []feedIndicator{
		{ID: "exfil.collector", Pattern: `(?:newsink\.example|Other-Sink\.example)\b`},
		{ID: "feed.sinks", Category: Exfiltration, Pattern: `(?:^|\.)grab\.example$`},
		{ID: "feed.more", Category: Exfiltration, Pattern: `drop\.example`},
		{ID: "feed.path", Category: Exfiltration, Pattern: `chat\.example/api/hooks`}, // a path: not a host
		{ID: "feed.class", Category: Exfiltration, Pattern: `sink[0-9]\.example`},     // a class: left to the scanner
		{ID: "feed.opt", Category: Exfiltration, Pattern: `\bacme-(?:drop|sink)(?:-free)?\.example\b`},
		{ID: "feed.rep", Category: Exfiltration, Pattern: `x+\.example`},  // a repeat: left to the scanner
		{ID: "feed.inj", Category: injection, Pattern: `ignore\.example`}, // not exfiltration
		{ID: "exfil.collector", Pattern: `(a\.example`},                   // does not parse
	}}
	got := f.CollectorHosts()
	want := []string{"acme-drop-free.example", "acme-drop.example", "acme-sink-free.example", "acme-sink.example", "drop.example", "grab.example", "newsink.example", "other-sink.example"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("CollectorHosts() = %q, want %q", got, want)
	}
	if (*Feed)(nil).CollectorHosts() != nil {
		t.Fatal("a nil feed has hosts")
	}
}
