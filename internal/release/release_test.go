package release

import (
	"bufio"
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"debug/elf"
	"encoding/hex"
	"encoding/pem"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

var binaries = []string{"airlock", "airlock-hook", "airlock-mcp"}

// TestReleaseLinuxAMD64 runs .ci/release for linux/amd64 (the other five
// targets are the same commands with other GOOS/GOARCH; building them all
// would triple .ci/run's time) and checks what it wrote: every file in
// SHA256SUMS with its sum, the signature under the key it was given, and
// what the .deb and the .rpm hold, read with dpkg-deb and rpm themselves.
func TestReleaseLinuxAMD64(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip(".ci/release and the package tools run on Linux (CI's machine)")
	}
	for _, tool := range []string{"dpkg-deb", "rpm", "openssl", "tar"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("%s is needed to check the packages: apt-get install %s (.ci/apt-deps installs it)", tool, map[string]string{"dpkg-deb": "dpkg", "rpm": "rpm", "openssl": "openssl", "tar": "tar"}[tool])
		}
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	pk8, err := x509.MarshalPKCS8PrivateKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	key := filepath.Join(tmp, "release.key") // the PEM PKCS#8 `airlock update keygen` writes
	if err := os.WriteFile(key, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: pk8}), 0o600); err != nil {
		t.Fatal(err)
	}
	dist := filepath.Join(tmp, "dist")
	cmd := exec.Command(filepath.Join(root, ".ci/release"), "--key", key, "--out", dist, "--version", "v1.2.3", "--targets", "linux/amd64")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf(".ci/release: %v\n%s", err, out)
	}

	// SHA256SUMS: the archive and both packages, each sum right.
	sums, err := os.ReadFile(filepath.Join(dist, "SHA256SUMS"))
	if err != nil {
		t.Fatal(err)
	}
	listed := map[string]bool{}
	sc := bufio.NewScanner(bytes.NewReader(sums))
	for sc.Scan() {
		sum, name, ok := strings.Cut(sc.Text(), "  ")
		if !ok {
			t.Fatalf("SHA256SUMS line %q is not `SUM  NAME`", sc.Text())
		}
		data, err := os.ReadFile(filepath.Join(dist, name))
		if err != nil {
			t.Fatal(err)
		}
		got := sha256.Sum256(data)
		if hex.EncodeToString(got[:]) != sum {
			t.Errorf("SHA256SUMS: %s has sum %x, listed %s", name, got, sum)
		}
		listed[name] = true
	}
	deb, rpm, tgz := "airlock_1.2.3_amd64.deb", "airlock-1.2.3-1.x86_64.rpm", "airlock_v1.2.3_linux_amd64.tar.gz"
	for _, want := range []string{deb, rpm, tgz} {
		if !listed[want] {
			t.Errorf("SHA256SUMS does not list %s: %s", want, sums)
		}
	}
	if len(listed) != 3 {
		t.Errorf("SHA256SUMS lists %d files, want 3: %s", len(listed), sums)
	}

	// The signature: ed25519 over SHA256SUMS's bytes, under our key, and
	// checkable with openssl as docs/install.md says.
	sig, err := os.ReadFile(filepath.Join(dist, "SHA256SUMS.sig"))
	if err != nil {
		t.Fatal(err)
	}
	if !ed25519.Verify(pub, sums, sig) {
		t.Fatal("SHA256SUMS.sig does not verify under the release key")
	}
	if ed25519.Verify(pub, append(append([]byte(nil), sums...), '\n'), sig) {
		t.Fatal("the signature verifies a changed SHA256SUMS")
	}
	pubDER, err := x509.MarshalPKIXPublicKey(pub)
	if err != nil {
		t.Fatal(err)
	}
	pubPEM := filepath.Join(tmp, "release.pub.pem")
	if err := os.WriteFile(pubPEM, pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: pubDER}), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("openssl", "pkeyutl", "-verify", "-pubin", "-inkey", pubPEM, "-rawin",
		"-in", filepath.Join(dist, "SHA256SUMS"), "-sigfile", filepath.Join(dist, "SHA256SUMS.sig")).CombinedOutput(); err != nil {
		t.Fatalf("openssl does not verify SHA256SUMS.sig: %v\n%s", err, out)
	}

	// The .deb: its control fields and its files, owner and mode.
	info := run(t, "dpkg-deb", "-I", filepath.Join(dist, deb))
	for _, want := range []string{"Package: airlock", "Version: 1.2.3", "Architecture: amd64"} {
		if !strings.Contains(info, want) {
			t.Errorf("dpkg-deb -I: no %q in\n%s", want, info)
		}
	}
	debFiles := map[string]string{} // path -> "mode owner"
	for line := range strings.Lines(run(t, "dpkg-deb", "-c", filepath.Join(dist, deb))) {
		f := strings.Fields(line)
		if len(f) >= 6 {
			debFiles[strings.TrimSuffix(strings.TrimPrefix(f[len(f)-1], "."), "/")] = f[0] + " " + f[1]
		}
	}
	wantFiles := map[string]string{
		"/etc/airlock":                         "drwxr-xr-x root/root",
		"/usr/share/doc/airlock/README.md":     "-rw-r--r-- root/root",
		"/usr/share/doc/airlock/LICENSE":       "-rw-r--r-- root/root",
		"/usr/share/doc/airlock/docs/fleet.md": "-rw-r--r-- root/root",
	}
	for _, b := range binaries {
		wantFiles["/usr/bin/"+b] = "-rwxr-xr-x root/root"
	}
	for p, want := range wantFiles {
		if got := debFiles[p]; got != want {
			t.Errorf("dpkg-deb -c: %s is %q, want %q", p, got, want)
		}
	}

	// The .rpm: the same files, owner and mode.
	rpmFiles := map[string]string{}
	for line := range strings.Lines(run(t, "rpm", "-qp", "--qf", `[%{FILEMODES:perms} %{FILEUSERNAME}/%{FILEGROUPNAME} %{FILENAMES}\n]`, filepath.Join(dist, rpm))) {
		if f := strings.Fields(line); len(f) == 3 {
			rpmFiles[f[2]] = f[0] + " " + f[1]
		}
	}
	list := run(t, "rpm", "-qpl", filepath.Join(dist, rpm))
	for p, want := range wantFiles {
		if got := rpmFiles[p]; got != want {
			t.Errorf("rpm: %s is %q, want %q", p, got, want)
		}
		if !strings.Contains(list, p+"\n") {
			t.Errorf("rpm -qpl does not list %s", p)
		}
	}

	// The binaries are static: no interpreter, no shared library.
	x := filepath.Join(tmp, "x")
	run(t, "dpkg-deb", "-x", filepath.Join(dist, deb), x)
	for _, b := range binaries {
		assertStatic(t, filepath.Join(x, "usr/bin", b))
	}
	xt := filepath.Join(tmp, "xt")
	if err := os.Mkdir(xt, 0o755); err != nil {
		t.Fatal(err)
	}
	run(t, "tar", "-C", xt, "-xzf", filepath.Join(dist, tgz))
	for _, b := range binaries {
		assertStatic(t, filepath.Join(xt, "airlock_v1.2.3_linux_amd64", b))
	}
}

func assertStatic(t *testing.T, path string) {
	t.Helper()
	f, err := elf.Open(path)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	defer f.Close()
	if f.Machine != elf.EM_X86_64 {
		t.Errorf("%s: machine %v, want x86-64", path, f.Machine)
	}
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP || p.Type == elf.PT_DYNAMIC {
			t.Errorf("%s: has a %v program header: not static", path, p.Type)
		}
	}
	if libs, _ := f.ImportedLibraries(); len(libs) > 0 {
		t.Errorf("%s: links %v: not static", path, libs)
	}
	if f.Section(".debug_info") != nil || f.Section(".symtab") != nil {
		t.Errorf("%s: has symbols or debug info: not built with -s -w", path)
	}
}

func run(t *testing.T, name string, args ...string) string {
	t.Helper()
	out, err := exec.Command(name, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return string(out)
}
