//go:build linux

package e2e

import (
	"debug/elf"
	"path/filepath"
	"testing"
)

// The binaries are static, built as install.sh builds them
// (CGO_ENABLED=0): go-landlock's syscall package links libcap's psx,
// whose C part would wrap pthread_create for the whole binary under cgo
// and make it load libc. No program interpreter, no shared library.
func TestSandboxBinariesAreStatic(t *testing.T) {
	for _, name := range []string{"airlock", "airlock-mcp", "airlock-hook"} {
		f, err := elf.Open(filepath.Join(bin, name))
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range f.Progs {
			if p.Type == elf.PT_INTERP || p.Type == elf.PT_DYNAMIC {
				t.Errorf("%s has a %v program header: it is not static", name, p.Type)
			}
		}
		libs, err := f.ImportedLibraries()
		if err != nil {
			t.Errorf("%s: %v", name, err)
		}
		if len(libs) > 0 {
			t.Errorf("%s needs shared libraries %v: it is not static", name, libs)
		}
		f.Close()
	}
}
