package contracts

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentairlock/airlock/policy"
)

var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

func TestObserveRecordsToolsPathsHostsShell(t *testing.T) {
	w := newWorld(t)
	ah := t.TempDir()
	calls := []struct{ tool, input string }{
		{"read_file", `{"path":"` + w.ws + `/src/a.go"}`},
		{"list_directory", `{"path":"` + w.ws + `/src"}`},
		{"fetch", `{"url":"https://API.GitHub.com./x"}`},
		{"run_command", `{"command":"ls"}`},
	}
	for i, c := range calls {
		if err := Observe(ah, "my.server", c.tool, w.facts("my.server", c.tool, c.input), t0.Add(time.Duration(i)*time.Minute)); err != nil {
			t.Fatal(err)
		}
	}
	fps, err := Footprints(ah)
	if err != nil {
		t.Fatal(err)
	}
	fp := fps["my_server"]
	if fp == nil {
		t.Fatalf("no footprint under Claude Code's name: %v", fps)
	}
	ws := filepath.ToSlash(w.ws)
	want := footprint{
		Tools: []string{"fetch", "list_directory", "read_file", "run_command"},
		Paths: []string{ws + "/src/", ws + "/src/a.go"},
		Hosts: []string{"api.github.com"},
		Shell: true, Calls: 4, First: t0, Last: t0.Add(3 * time.Minute),
	}
	if fmt.Sprint(*fp) != fmt.Sprint(want) {
		t.Fatalf("footprint\n got %+v\nwant %+v", *fp, want)
	}
	st, err := os.Stat(filepath.Join(ah, footprintsName))
	if err != nil {
		t.Fatal(err)
	}
	if m := st.Mode().Perm(); m != 0o600 && os.PathSeparator == '/' {
		t.Fatalf("footprints.json mode %v, want 0600", m)
	}
}

func TestObserveRecordsEverySpellingOfASymlinkedPath(t *testing.T) {
	w := newWorld(t)
	ah := t.TempDir()
	if err := Observe(ah, "fs", "read_file", w.facts("fs", "read_file", `{"path":"`+w.ws+`/link/secret.txt"}`), t0); err != nil {
		t.Fatal(err)
	}
	fps, _ := Footprints(ah)
	got := strings.Join(fps["fs"].Paths, " ")
	for _, p := range []string{w.ws + "/link/secret.txt", w.out + "/secret.txt"} {
		if !strings.Contains(got, filepath.ToSlash(p)) {
			t.Errorf("footprint %s misses %s", got, p)
		}
	}
}

// TestConcurrentObserveLosesNoCall: goroutines each open the lock file,
// so they exclude each other as separate processes would.
func TestConcurrentObserveLosesNoCall(t *testing.T) {
	ah := t.TempDir()
	const workers, each = 8, 25
	var wg sync.WaitGroup
	errs := make(chan error, workers*each)
	for g := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				f := policy.Classify("mcp__fs__read_file", []byte(fmt.Sprintf(`{"path":"/w/g%d/f%d"}`, g, i)), policy.CallEnv{Cwd: "/w", NoResolve: true})
				if err := Observe(ah, "fs", "read_file", f, t0); err != nil {
					errs <- err
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	fps, err := Footprints(ah)
	if err != nil {
		t.Fatal(err)
	}
	if fp := fps["fs"]; fp.Calls != workers*each || len(fp.Paths) != workers*each {
		t.Fatalf("calls %d paths %d, want %d each", fp.Calls, len(fp.Paths), workers*each)
	}
}

func TestFootprintBoundsMarkTruncation(t *testing.T) {
	fp := &footprint{}
	for i := range maxPaths + 5 {
		p := fmt.Sprintf("/w/f%05d", i)
		fp.merge("read_file", &policy.Facts{Paths: []policy.PathFact{{Raw: p, Path: p, Resolved: p}}}, "/h", t0)
	}
	if len(fp.Paths) != maxPaths || !fp.PathsTruncated || !fp.Truncated() || fp.Calls != maxPaths+5 {
		t.Fatalf("paths %d truncated %v calls %d", len(fp.Paths), fp.PathsTruncated, fp.Calls)
	}
	for i := range maxHosts + 1 {
		fp.merge("fetch", &policy.Facts{Hosts: []policy.HostFact{{Host: fmt.Sprintf("h%d.example", i)}}}, "/h", t0)
	}
	if len(fp.Hosts) != maxHosts || !fp.HostsTruncated {
		t.Fatalf("hosts %d truncated %v", len(fp.Hosts), fp.HostsTruncated)
	}
}

func TestObserveRefusesACorruptFootprintsFile(t *testing.T) {
	ah := t.TempDir()
	file := filepath.Join(ah, footprintsName)
	if err := os.WriteFile(file, []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := Observe(ah, "fs", "read_file", &policy.Facts{}, t0); err == nil || !strings.Contains(err.Error(), "delete the file") {
		t.Fatalf("want an error saying how to recover, got %v", err)
	}
	if data, _ := os.ReadFile(file); string(data) != "{not json" {
		t.Fatal("a corrupt footprints file was overwritten")
	}
}

func TestFootprintsJSONShape(t *testing.T) {
	ah := t.TempDir()
	if err := Observe(ah, "fs", "read_file", &policy.Facts{}, t0); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(filepath.Join(ah, footprintsName))
	var raw map[string]any
	if err := json.Unmarshal(data, &raw); err != nil || raw["version"] != float64(1) {
		t.Fatalf("footprints.json: %s (%v)", data, err)
	}
}
