package policy

import (
	"os"
	"path/filepath"
	"testing"
)

// TestResolveFastAgreesWithWalk: the kernel shortcut and the portable walk
// give the same answer, or the shortcut declines.
func TestResolveFastAgreesWithWalk(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	mk := func(p string) {
		if err := os.MkdirAll(filepath.Join(root, p), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	ln := func(target, name string) {
		if err := os.Symlink(target, filepath.Join(root, name)); err != nil {
			t.Fatal(err)
		}
	}
	mk("home/.ssh")
	mk("ws/src")
	ln(filepath.Join(root, "home/.ssh"), "ws/keys")
	ln("../home", "ws/up")
	ln(filepath.Join(root, "home/.bashrc"), "ws/rc") // dangling: the write would create home/.bashrc
	ln("loop2", "ws/loop1")
	ln("loop1", "ws/loop2")
	if err := os.WriteFile(filepath.Join(root, "ws/src/a.go"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ in, want string }{
		{"ws/src/a.go", "ws/src/a.go"},
		{"ws/src/new.go", "ws/src/new.go"},
		{"ws/keys/id_rsa", "home/.ssh/id_rsa"},
		{"ws/keys", "home/.ssh"},
		{"ws/up/.ssh/config", "home/.ssh/config"},
		{"ws/rc", "home/.bashrc"},
		{"ws/new/dir/file", "ws/new/dir/file"},
		{"ws/src/a.go/x", "ws/src/a.go/x"},
		{"ws/keys/new/deeper", "home/.ssh/new/deeper"}, // a link, then what does not exist yet
		{"ws/up/.ssh", "home/.ssh"},
		{"ws/src/../keys/id_rsa", "home/.ssh/id_rsa"}, // unclean: the walk's
	} {
		in := filepath.Join(root, c.in)
		want := filepath.Join(root, c.want)
		if got := ResolveSymlinks(in); got != want {
			t.Errorf("ResolveSymlinks(%s) = %s, want %s", c.in, got, want)
		}
		if got, ok := resolveFast(in); ok && got != resolveWalk(in) {
			t.Errorf("resolveFast(%s) = %s, walk says %s", c.in, got, resolveWalk(in))
		}
		if got, ok := resolveProc(in); ok && got != resolveWalk(in) {
			t.Errorf("resolveProc(%s) = %s, walk says %s", c.in, got, resolveWalk(in))
		}
	}
	// a path with no link on its way is answered by one openat2, not declined
	for _, in := range []string{"ws/src/a.go", "ws/src/new.go", "ws/new/dir/file", "ws/src/a.go/x", "ws"} {
		in = filepath.Join(root, in)
		if got, ok := resolveFast(in); !ok || got != in {
			t.Errorf("resolveFast(%s) = %s, %v: want itself, answered", in, got, ok)
		}
	}
	loop := filepath.Join(root, "ws/loop1/x")
	if got := ResolveSymlinks(loop); got != loop {
		t.Errorf("a link loop resolved to %s", got)
	}
}

func BenchmarkResolveSymlinksExisting(b *testing.B) {
	dir := b.TempDir()
	deep := filepath.Join(dir, "home", "dev", "proj", "src", "components")
	if err := os.MkdirAll(deep, 0o755); err != nil {
		b.Fatal(err)
	}
	p := filepath.Join(deep, "App.tsx")
	b.Run("fast", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			ResolveSymlinks(p)
		}
	})
	b.Run("walk", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			resolveWalk(p)
		}
	})
}
