package policy

import (
	"os"
	"path"
	"path/filepath"
	"runtime"
	"testing"
)

func TestExpandPath(t *testing.T) {
	const cwd, home = "/work/proj", "/home/u"
	tests := []struct {
		raw, cwd, home, want string
	}{
		{"", cwd, home, ""},
		{"/etc/passwd", cwd, home, "/etc/passwd"},
		{"/etc/../etc//./passwd/", cwd, home, "/etc/passwd"},
		{"//etc/passwd", cwd, home, "/etc/passwd"},
		{"/", cwd, home, "/"},
		// Home prefixes.
		{"~", cwd, home, "/home/u"},
		{"~/", cwd, home, "/home/u"},
		{"~/.ssh/id_rsa", cwd, home, "/home/u/.ssh/id_rsa"},
		{"~/../../etc/passwd", cwd, home, "/etc/passwd"},
		{"$HOME", cwd, home, "/home/u"},
		{"$HOME/.aws/credentials", cwd, home, "/home/u/.aws/credentials"},
		{"${HOME}", cwd, home, "/home/u"},
		{"${HOME}/.aws", cwd, home, "/home/u/.aws"},
		{"$home/.ssh", cwd, home, "/home/u/.ssh"},
		{"${home}/.ssh", cwd, home, "/home/u/.ssh"},
		{"$HOMEDIR/x", cwd, home, "/work/proj/$HOMEDIR/x"},
		{"${HOME}x", cwd, home, "/work/proj/${HOME}x"},
		{"%USERPROFILE%\\.ssh\\id_rsa", cwd, home, "/home/u/.ssh/id_rsa"},
		{"%userprofile%/.ssh", cwd, home, "/home/u/.ssh"},
		{"%HOME%\\x", cwd, home, "/home/u/x"},
		{"~/x", cwd, "/home/u/", "/home/u/x"},
		{"~/x", cwd, "C:\\Users\\u", "C:/Users/u/x"},
		{"~/x", cwd, "", "~/x"},
		{"$HOME/x", cwd, "", "$HOME/x"},
		// ~user is left alone (but cleaned).
		{"~root/.ssh", cwd, home, "~root/.ssh"},
		{"~root/../x", cwd, home, "x"},
		// file:// URLs.
		{"file:///etc/passwd", cwd, home, "/etc/passwd"},
		{"FILE:///etc/passwd", cwd, home, "/etc/passwd"},
		{"file://localhost/etc/passwd", cwd, home, "/etc/passwd"},
		{"file://server", cwd, home, "/"},
		{"file:///etc/pass%77d?x#y", cwd, home, "/etc/passwd"},
		{"file:///C:/Windows/win.ini", cwd, home, "C:/Windows/win.ini"},
		{"file:///c|/x", cwd, home, "c:/x"},
		// Drives.
		{"C:\\x\\y", cwd, home, "C:/x/y"},
		{"C:/x/../y", cwd, home, "C:/y"},
		{"c:\\x\\..\\..\\..", cwd, home, "c:/"},
		{"C:", cwd, home, "C:/"},
		{"x", "C:\\work", home, "C:/work/x"},
		{"..\\x", "C:\\work", home, "C:/x"},
		{"a\\b", "C:\\work", home, "C:/work/a/b"},
		// Relative paths.
		{"x", cwd, home, "/work/proj/x"},
		{"./x/../y", cwd, home, "/work/proj/y"},
		{"../../../../etc/passwd", cwd, home, "/etc/passwd"},
		{".", cwd, home, "/work/proj"},
		{"x", "", home, "/x"},
		{"x", "rel", home, "/rel/x"},
		{"x", "~/proj", home, "/home/u/proj/x"},
		{"x", "~other", home, "/x"},
		{"a\\b", cwd, home, "/work/proj/a\\b"},
		{"C:foo", cwd, home, "/work/proj/C:foo"},
	}
	for _, tt := range tests {
		if got := ExpandPath(tt.raw, tt.cwd, tt.home); got != tt.want {
			t.Errorf("ExpandPath(%q, %q, %q) = %q, want %q", tt.raw, tt.cwd, tt.home, got, tt.want)
		}
	}
}

func TestFoldText(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", ""},
		{"/x/.ssh/config", "/x/.ssh/config"},
		{"/X/.SSH/Config", "/x/.ssh/config"},
		{"/x/%2essh/config", "/x/.ssh/config"},
		{"/x/%2Essh/config", "/x/.ssh/config"},
		{"/x/%252essh/config", "/x/.ssh/config"},
		{"/x/%25252essh/config", "/x/.ssh/config"},
		{"/x/%%32%65ssh/config", "/x/.ssh/config"},
		{"/x/．ssh/config", "/x/.ssh/config"},
		{"/x/%EF%BC%8Essh/config", "/x/.ssh/config"},
		{"\\x\\.SSH\\config", "/x/.ssh/config"},
		{"/x%5c.ssh%5Cconfig", "/x/.ssh/config"},
		{"/x／.ssh＼config", "/x/.ssh/config"},
		{"ＲＭ －ＲＦ", "rm -rf"},
		{"/ｅｔｃ/ｐａｓｓｗｄ", "/etc/passwd"},
		{"/etc/pass\u0301wd", "/etc/pas\u015bwd"}, // NFKC composes s + U+0301 into ś
		{"/x/%zz/%4", "/x/%zz/%4"},
		{"100%", "100%"},
		{"%", "%"},
		{"%%", "%%"},
		{"%2", "%2"},
		{"%41%42", "ab"},
		{"%2541", "a"},
		{"ǅ", "dž"}, // NFKC splits the digraph, then lowercase
		{"K", "k"},  // KELVIN SIGN
		{"ÉCOLE", "école"},
		{"\xff/X", "\ufffd/x"},
	}
	for _, tt := range tests {
		if got := FoldText(tt.in); got != tt.want {
			t.Errorf("FoldText(%q) = %q, want %q", tt.in, got, tt.want)
		}
		if got := FoldText(FoldText(tt.in)); got != tt.want {
			t.Errorf("FoldText(FoldText(%q)) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestFoldTextNoAlloc(t *testing.T) {
	for _, in := range []string{"/home/u/.ssh/id_rsa", "rm -rf /", "/x/naïve/café"} {
		if n := testing.AllocsPerRun(100, func() { FoldText(in) }); n != 0 {
			t.Errorf("FoldText(%q): %v allocs, want 0", in, n)
		}
	}
}

func TestFoldPath(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", ""},
		{"/etc/passwd", "/etc/passwd"},
		{"/srv/notes/%2e%2e/%2e%2e/etc/passwd", "/etc/passwd"},
		{"/srv/notes/%252e%252e/%252E%252E/etc/passwd", "/etc/passwd"},
		{"/srv/notes/．．/．．/etc/passwd", "/etc/passwd"},
		{"/srv/notes%2f..%2f..%2fetc%2fpasswd", "/etc/passwd"},
		{"\\srv\\notes\\..\\..\\etc\\passwd", "/etc/passwd"},
		{"/x/%2essh/config", "/x/.ssh/config"},
		{"/x/．SSH/config", "/x/.ssh/config"},
		{"/Home/U/.SSH/", "/home/u/.ssh"},
		{"/x//y/./z/", "/x/y/z"},
		{"/%2e", "/"},
		{"/..", "/"},
		{"a/../..", ".."},
	}
	for _, tt := range tests {
		if got := FoldPath(tt.in); got != tt.want {
			t.Errorf("FoldPath(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestPercentDecode(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", ""},
		{"abc", "abc"},
		{"%41", "A"},
		{"%2541", "A"},
		{"%252541", "A"},
		{"%%341", "A"},
		{"%2%35", "%"},
		{"%4%31", "A"},
		{"%zz", "%zz"},
		{"%4", "%4"},
		{"a%", "a%"},
		{"%00", "\x00"},
		{"%ff", "\xff"},
	}
	for _, tt := range tests {
		got := percentDecode(tt.in)
		if got != tt.want {
			t.Errorf("percentDecode(%q) = %q, want %q", tt.in, got, tt.want)
		}
		if again := percentDecode(got); again != got {
			t.Errorf("percentDecode not a fixpoint on %q: %q → %q", tt.in, got, again)
		}
	}
}

func TestResolveSymlinks(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symlinks need privileges on Windows")
	}
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	dir = filepath.ToSlash(dir)
	mk := func(p string) {
		t.Helper()
		if err := os.MkdirAll(p, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	link := func(target, name string) {
		t.Helper()
		if err := os.Symlink(target, name); err != nil {
			t.Fatal(err)
		}
	}
	real := dir + "/real"
	mk(real + "/sub")
	if err := os.WriteFile(real+"/sub/file", nil, 0o644); err != nil {
		t.Fatal(err)
	}
	link(real, dir+"/abs")                 // absolute target
	link("real/sub", dir+"/rel")           // relative target
	link("../../real", dir+"/real/sub/up") // relative with ..
	link(dir+"/abs", dir+"/chain")         // link to a link
	link(dir+"/loop1", dir+"/loop2")       // a loop
	link(dir+"/loop2", dir+"/loop1")       //
	link(dir+"/nowhere", dir+"/dangling")  // dangling
	link("sub/file", real+"/filelink")

	tests := []struct{ in, want string }{
		{dir + "/real/sub/file", real + "/sub/file"},
		{dir + "/abs/sub/file", real + "/sub/file"},
		{dir + "/abs/sub/new/deeper", real + "/sub/new/deeper"},
		{dir + "/rel/file", real + "/sub/file"},
		{dir + "/rel/newfile", real + "/sub/newfile"},
		{dir + "/real/sub/up/sub/file", real + "/sub/file"},
		{dir + "/chain/sub", real + "/sub"},
		{dir + "/chain/x/../sub", real + "/sub"},
		{dir + "/abs/filelink", real + "/sub/file"},
		{dir + "/dangling/x", dir + "/nowhere/x"},
		{dir + "/real/sub/file/x", real + "/sub/file/x"},
		{dir + "/missing/a/b", dir + "/missing/a/b"},
		{dir + "/loop1/x", dir + "/loop1/x"}, // gives up: returned unchanged
		{"/nonexistent-airlock-test/x", "/nonexistent-airlock-test/x"},
		{"relative/path", "relative/path"},
		{"", ""},
		{"/", "/"},
	}
	for _, tt := range tests {
		if got := ResolveSymlinks(tt.in); got != tt.want {
			t.Errorf("ResolveSymlinks(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	// Agreement with filepath.EvalSymlinks where the whole path exists.
	for _, p := range []string{dir + "/abs/sub/file", dir + "/rel", dir + "/chain", dir + "/real/sub/up"} {
		want, err := filepath.EvalSymlinks(p)
		if err != nil {
			t.Fatal(err)
		}
		if got := ResolveSymlinks(p); got != filepath.ToSlash(want) {
			t.Errorf("ResolveSymlinks(%q) = %q, EvalSymlinks = %q", p, got, want)
		}
	}
}

// FuzzFoldPath checks that FoldPath and FoldText never panic and are
// idempotent, and that ExpandPath always returns a clean path.
func FuzzFoldPath(f *testing.F) {
	for _, s := range []string{
		"/srv/notes/%2e%2e/%2e%2e/etc/passwd", "/x/%252essh/config", "/x/．ssh/config",
		"\\x\\.SSH\\config", "%EF%BC%85%32%65", "~/x", "file:///C:/x", "ǅ\u0301%", "\xff%c3%28",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p := FoldPath(s)
		if p2 := FoldPath(p); p2 != p {
			t.Fatalf("FoldPath not idempotent: %q → %q → %q", s, p, p2)
		}
		ft := FoldText(s)
		if ft2 := FoldText(ft); ft2 != ft {
			t.Fatalf("FoldText not idempotent: %q → %q → %q", s, ft, ft2)
		}
		e := ExpandPath(s, "/work", "/home/u")
		if _, _, drive := splitDrive(e); s != "" && !drive && e != path.Clean(e) {
			t.Fatalf("ExpandPath(%q) = %q, not clean", s, e)
		}
	})
}

func BenchmarkFoldPath(b *testing.B) {
	for _, bc := range []struct{ name, in string }{
		{"ascii", "/home/user/project/src/main.go"},
		{"ascii_upper", "/Users/User/Project/Src/Main.go"},
		{"percent", "/srv/notes/%2e%2e/%2e%2e/etc/passwd"},
		{"nonascii_normal", "/home/user/café/naïve.txt"},
		{"nonascii_fullwidth", "/x/．ssh/config"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				FoldPath(bc.in)
			}
		})
	}
}

func BenchmarkExpandPath(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		ExpandPath("~/.ssh/id_rsa", "/work", "/home/u")
		ExpandPath("/etc/passwd", "/work", "/home/u")
		ExpandPath("src/main.go", "/work", "/home/u")
	}
}

func BenchmarkResolveSymlinks(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		ResolveSymlinks("/nonexistent-airlock-bench/x/y")
	}
}
