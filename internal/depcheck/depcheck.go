// Package depcheck backs the dependency tests of the binaries (what a
// binary links, by `go list -deps`, against what it must never link) and
// holds the import-direction test: the arrows docs/architecture.md's
// "Rooms and arrows" table names are the only ones between the project's
// packages (ParseRooms, List, Check). Tests only: no binary imports it.
package depcheck

import (
	"fmt"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// Deps lists the packages pkg (an import path or a ./relative directory)
// links, itself included, as `go list -deps` prints them for dir.
func Deps(dir, pkg string) ([]string, error) {
	cmd := exec.Command("go", "list", "-deps", pkg)
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		var stderr string
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = strings.TrimSpace(string(ee.Stderr))
		}
		return nil, fmt.Errorf("go list -deps %s: %w (%s); the dependency test needs the go command on PATH", pkg, err, stderr)
	}
	return strings.Fields(string(out)), nil
}

// Banned returns the packages in deps that match a banned entry: the
// package itself or one under it ("charm.land/bubbletea/v2" matches
// "charm.land/bubbletea/v2/internal"). An entry ending in "=" matches that
// package alone, not the packages under it.
func Banned(deps, banned []string) []string {
	var hits []string
	for _, d := range deps {
		for _, b := range banned {
			exact, only := strings.CutSuffix(b, "=")
			if d == exact || (!only && strings.HasPrefix(d, b+"/")) {
				hits = append(hits, d)
				break
			}
		}
	}
	slices.Sort(hits)
	return hits
}

// Refuse fails t when the package under test (the test's own folder, as
// `go test` runs it) links any of banned, naming each hit. The dependency
// tests of the binaries and of scan are this one call.
func Refuse(t testing.TB, banned []string) {
	t.Helper()
	deps, err := Deps(".", ".")
	if err != nil {
		t.Fatal(err)
	}
	if bad := Banned(deps, banned); len(bad) > 0 {
		t.Fatalf("%s links %q, which it must not (go list -deps shows which import brings each in)", deps[len(deps)-1], bad)
	}
}
