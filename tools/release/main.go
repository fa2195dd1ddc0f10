// Command release is .ci/release's helper: it signs SHA256SUMS with an
// ed25519 key and builds the .deb and .rpm of Airlock's three binaries
// with nfpm as a library. It lives in its own module (tools/) so that
// nfpm and what it links never enter the shipped binaries' module graph.
//
//	go run ./release sign -key PRIVKEY -in SHA256SUMS -out SHA256SUMS.sig
//	go run ./release zip -dir OUT -name DIR     (OUT/DIR.zip of OUT/DIR, for Windows)
//	go run ./release package -version V -arch amd64 -bin DIR -root REPO -out DIR
//
// The signature is the raw 64-byte ed25519 signature of the file's bytes,
// so a machine without Airlock checks it with OpenSSL (docs/install.md);
// the key is the PEM PKCS#8 file `airlock update keygen` writes.
package main

import (
	"archive/zip"
	"crypto/ed25519"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"flag"
	"fmt"
	iofs "io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/goreleaser/nfpm/v2"
	_ "github.com/goreleaser/nfpm/v2/deb" // registers the deb packager
	"github.com/goreleaser/nfpm/v2/files"
	_ "github.com/goreleaser/nfpm/v2/rpm" // registers the rpm packager
)

var binaries = []string{"airlock", "airlock-hook", "airlock-mcp"}

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: release sign|package [flags]")
		os.Exit(64)
	}
	var err error
	switch os.Args[1] {
	case "sign":
		err = runSign(os.Args[2:])
	case "package":
		err = runPackage(os.Args[2:])
	case "zip":
		err = runZip(os.Args[2:])
	default:
		err = fmt.Errorf("unknown command %q: sign or package", os.Args[1])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "release:", err)
		os.Exit(1)
	}
}

func runSign(args []string) error {
	fs := flag.NewFlagSet("sign", flag.ContinueOnError)
	key := fs.String("key", "", "ed25519 private key, PEM PKCS#8 (airlock update keygen)")
	in := fs.String("in", "", "file to sign")
	out := fs.String("out", "", "signature file to write (raw 64 bytes)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *key == "" || *in == "" || *out == "" {
		return errors.New("sign: -key, -in and -out are needed")
	}
	priv, err := readPrivateKey(*key)
	if err != nil {
		return err
	}
	data, err := os.ReadFile(*in)
	if err != nil {
		return err
	}
	sig := ed25519.Sign(priv, data)
	if err := os.WriteFile(*out, sig, 0o644); err != nil {
		return err
	}
	pub := priv.Public().(ed25519.PublicKey)
	pubDER, err := x509.MarshalPKIXPublicKey(pub)
	if err != nil {
		return err
	}
	// The public half in the PEM form openssl reads, for the docs' check;
	// a verifier trusts the key it was given, not this copy.
	return os.WriteFile(*out+".pub.pem", pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: pubDER}), 0o644)
}

// readPrivateKey reads an ed25519 private key in PEM PKCS#8, as
// `airlock update keygen` and `openssl genpkey -algorithm ed25519` write it.
func readPrivateKey(path string) (ed25519.PrivateKey, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	block, _ := pem.Decode(b)
	if block == nil || block.Type != "PRIVATE KEY" {
		return nil, fmt.Errorf("%s: not a PEM private key (write one with `airlock update keygen`)", path)
	}
	k, err := x509.ParsePKCS8PrivateKey(block.Bytes)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	priv, ok := k.(ed25519.PrivateKey)
	if !ok {
		return nil, fmt.Errorf("%s: not an ed25519 key", path)
	}
	return priv, nil
}

var releaseVersion = regexp.MustCompile(`^v?[0-9]+\.[0-9]+\.[0-9]+`)

func runPackage(args []string) error {
	fs := flag.NewFlagSet("package", flag.ContinueOnError)
	version := fs.String("version", "", "release version (git describe)")
	arch := fs.String("arch", "amd64", "GOARCH of the binaries")
	bin := fs.String("bin", "", "directory holding the three linux binaries")
	root := fs.String("root", ".", "the repository (README.md, LICENSE, docs/)")
	out := fs.String("out", "", "directory the packages are written to")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *version == "" || *bin == "" || *out == "" {
		return errors.New("package: -version, -bin and -out are needed")
	}
	contents := files.Contents{
		{Destination: "/etc/airlock", Type: files.TypeDir, FileInfo: &files.ContentFileInfo{Owner: "root", Group: "root", Mode: 0o755}},
		{Source: filepath.Join(*root, "README.md"), Destination: "/usr/share/doc/airlock/README.md"},
		{Source: filepath.Join(*root, "CHANGELOG.md"), Destination: "/usr/share/doc/airlock/CHANGELOG.md"},
		{Source: filepath.Join(*root, "LICENSE"), Destination: "/usr/share/doc/airlock/LICENSE"},
		{Source: filepath.Join(*root, "docs"), Destination: "/usr/share/doc/airlock/docs", Type: files.TypeTree},
	}
	for _, b := range binaries {
		contents = append(contents, &files.Content{
			Source: filepath.Join(*bin, b), Destination: "/usr/bin/" + b,
			FileInfo: &files.ContentFileInfo{Owner: "root", Group: "root", Mode: 0o755},
		})
	}
	info := &nfpm.Info{
		Name:        "airlock",
		Arch:        *arch,
		Platform:    "linux",
		Version:     *version,
		Maintainer:  "Airlock maintainers",
		Description: "A runtime firewall for AI coding agents: hooks, an MCP proxy and a chained audit log.",
		Homepage:    "https://github.com/agentairlock/airlock",
		License:     "see /usr/share/doc/airlock/LICENSE",
		Section:     "devel",
		Priority:    "optional",
		MTime:       mtime(),
		Overridables: nfpm.Overridables{
			Contents: contents,
			RPM:      nfpm.RPM{Summary: "A runtime firewall for AI coding agents", Group: "Development/Tools"},
			// gzip at its default level: level 9 (nfpm's default for a .deb) costs
			// half again the time for a package 0.3% smaller
			Deb: nfpm.Deb{Compression: "gzip:6"},
		},
	}
	if !releaseVersion.MatchString(*version) {
		// Not a tag (a hash from git describe --always): a version dpkg
		// and rpm order below any release, the hash kept as metadata.
		info.Version, info.VersionMetadata = "0.0.0", "git."+strings.TrimPrefix(*version, "v")
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		return err
	}
	for _, format := range []string{"deb", "rpm"} {
		if err := build(info, format, *out); err != nil {
			return fmt.Errorf("%s: %w", format, err)
		}
	}
	return nil
}

// mtime is SOURCE_DATE_EPOCH when set, so two builds of one commit give
// the same packages; else now.
func mtime() time.Time {
	if s := os.Getenv("SOURCE_DATE_EPOCH"); s != "" {
		var sec int64
		if _, err := fmt.Sscan(s, &sec); err == nil {
			return time.Unix(sec, 0).UTC()
		}
	}
	return time.Now().UTC().Truncate(time.Second)
}

func build(base *nfpm.Info, format, out string) error {
	pkgr, err := nfpm.Get(format)
	if err != nil {
		return err
	}
	info := *base
	info.Contents = nil
	for _, c := range base.Contents { // PrepareForPackager rewrites them
		cp := *c
		if c.FileInfo != nil {
			fi := *c.FileInfo
			cp.FileInfo = &fi
		}
		info.Contents = append(info.Contents, &cp)
	}
	in := nfpm.WithDefaults(&info)
	if err := nfpm.PrepareForPackager(in, format); err != nil {
		return err
	}
	name := filepath.Join(out, pkgr.ConventionalFileName(in))
	fh, err := os.Create(name)
	if err != nil {
		return err
	}
	if err := pkgr.Package(in, fh); err != nil {
		fh.Close()
		os.Remove(name)
		return err
	}
	if err := fh.Close(); err != nil {
		return err
	}
	fmt.Println("wrote", name)
	return nil
}

func runZip(args []string) error {
	fs := flag.NewFlagSet("zip", flag.ContinueOnError)
	dir := fs.String("dir", "", "the directory holding NAME")
	name := fs.String("name", "", "the directory to zip, written as NAME.zip beside it")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *dir == "" || *name == "" {
		return errors.New("zip: -dir and -name are needed")
	}
	fh, err := os.Create(filepath.Join(*dir, *name+".zip"))
	if err != nil {
		return err
	}
	zw := zip.NewWriter(fh)
	err = filepath.WalkDir(filepath.Join(*dir, *name), func(p string, d iofs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(*dir, p)
		if err != nil {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		w, err := zw.CreateHeader(&zip.FileHeader{Name: filepath.ToSlash(rel), Method: zip.Deflate, Modified: mtime()})
		if err != nil {
			return err
		}
		_, err = w.Write(data)
		return err
	})
	if err == nil {
		err = zw.Close()
	}
	if cerr := fh.Close(); err == nil {
		err = cerr
	}
	return err
}
