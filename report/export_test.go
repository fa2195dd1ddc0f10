package report

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/agentairlock/airlock/audit"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./report -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file (go test ./report -update to accept):\n%s", name, got)
	}
}

func TestExportGoldens(t *testing.T) {
	for _, format := range Formats {
		t.Run(format, func(t *testing.T) {
			var out bytes.Buffer
			err := Export(&out, format, fileSource{path: "testdata/sample.jsonl"}, Filter{}, ExportOptions{Version: "1.2.3", Host: "devbox"})
			if err != nil {
				t.Fatal(err)
			}
			golden(t, "export."+format+".golden", out.Bytes())
		})
	}
}

func TestJSONLExportKeepsStoredBytes(t *testing.T) {
	want, err := os.ReadFile("testdata/sample.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := Export(&out, FormatJSONL, fileSource{path: "testdata/sample.jsonl"}, Filter{}, ExportOptions{}); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out.Bytes(), want) {
		t.Errorf("jsonl export is not the records as stored:\n got %s\nwant %s", out.Bytes(), want)
	}
}

func TestReportGoldens(t *testing.T) {
	entries, err := Collect(fileSource{path: "testdata/sample.jsonl"}, Filter{})
	if err != nil {
		t.Fatal(err)
	}
	s := Summarize(entries, Integrity{Status: audit.Intact, Records: len(entries), Strength: "only as strong as the directory's permissions: anyone who can write it can recompute the chain"}, Filter{})
	for name, render := range map[string]func(*bytes.Buffer) error{
		"report.txt.golden":  func(w *bytes.Buffer) error { return s.Text(w) },
		"report.md.golden":   func(w *bytes.Buffer) error { return s.Markdown(w) },
		"report.html.golden": func(w *bytes.Buffer) error { return s.HTML(w) },
	} {
		var w bytes.Buffer
		if err := render(&w); err != nil {
			t.Fatal(err)
		}
		golden(t, name, w.Bytes())
	}
}

func TestFilter(t *testing.T) {
	now := time.Date(2026, 2, 3, 12, 0, 0, 0, time.UTC)
	since := func(s string) time.Time {
		t.Helper()
		v, err := ParseSince(s, now)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	tests := []struct {
		name string
		f    Filter
		want int
	}{
		{"everything", Filter{}, 8},
		{"since 3d", Filter{Since: since("3d")}, 8},
		{"since 1d12h", Filter{Since: since("1d12h")}, 2},
		{"since a date", Filter{Since: since("2026-02-02")}, 2},
		{"session", Filter{Session: "s1"}, 3},
		{"tool glob", Filter{Tool: "mcp__*"}, 2},
		{"decision block", Filter{Decision: "block"}, 3},
		{"decision ask", Filter{Decision: "ask"}, 1},
	}
	for _, tt := range tests {
		got, err := Collect(fileSource{path: "testdata/sample.jsonl"}, tt.f)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != tt.want {
			t.Errorf("%s: %d records, want %d", tt.name, len(got), tt.want)
		}
	}
	for _, bad := range []string{"2x", "-3h", "d", "yesterday"} {
		if _, err := ParseSince(bad, now); err == nil {
			t.Errorf("ParseSince(%q) accepted", bad)
		}
	}
}

func TestMalformedLinesAreEntriesNotSkipped(t *testing.T) {
	long := bytes.Repeat([]byte("x"), 200<<10)
	data := append([]byte(`{"event":"decision","source":"hook","target":"`), long...)
	data = append(data, "\"}\nnot json\n{\"event\":\"outcome\",\"source\":\"hook\"}\n{\"torn"...)
	var got []Entry
	if err := eachLine(bytes.NewReader(data), "audit.jsonl", func(e Entry) error { got = append(got, e); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(got) != 4 || got[0].Err != nil || len(got[0].Record.Target) != len(long) || got[1].Err == nil || got[2].Err != nil || got[3].Err == nil {
		t.Fatalf("entries = %d, want long record, malformed, record, torn: %+v", len(got), got)
	}
	if got[3].Line != 4 {
		t.Errorf("torn line numbered %d, want 4", got[3].Line)
	}
}
