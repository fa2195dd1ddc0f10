package scan

import (
	"os"
	"strings"
	"testing"
)

// A typical tool: server-filesystem's read_text_file, the longest
// description of that server with a schema of three properties.
func BenchmarkToolTypical(b *testing.B) {
	raw := loadTools(b, "testdata/benign")["server-filesystem@2026.8.31.json#read_text_file"]
	if raw == nil {
		b.Fatal("read_text_file not in the corpus")
	}
	b.SetBytes(int64(len(raw)))
	b.ReportAllocs()
	for b.Loop() {
		Tool(raw)
	}
}

func BenchmarkToolPoisoned(b *testing.B) {
	raw, err := os.ReadFile("testdata/poisoned/add-important-sidenote.json")
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(raw)))
	b.ReportAllocs()
	for b.Loop() {
		Poisoned(Tool(raw))
	}
}

func BenchmarkToolsetEverything(b *testing.B) {
	tools := loadTools(b, "testdata/benign")
	var set [][]byte
	for name, raw := range tools {
		if len(name) > 17 && name[:17] == "server-everything" {
			set = append(set, raw)
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		for _, raw := range set {
			Tool(raw)
		}
	}
}

func BenchmarkTextSecurityReadme(b *testing.B) {
	raw, err := os.ReadFile("testdata/text/prose.med.security-readme.md")
	if err != nil {
		b.Fatal(err)
	}
	s := string(raw)
	b.SetBytes(int64(len(s)))
	b.ReportAllocs()
	for b.Loop() {
		Text(s, Prose)
	}
}

// A megabyte of candidate prefixes that never complete a match: the
// literal-prefix search must fall back to one linear pass, not try each.
func BenchmarkTextAdversarialMegabyte(b *testing.B) {
	s := strings.Repeat("curl when send x nc -x ", (1<<20)/23)
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		Text(s, Instructions)
	}
}
