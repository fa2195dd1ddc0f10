package main

import (
	"crypto/ed25519"
	"crypto/rand"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentairlock/airlock/scan"
	"github.com/urfave/cli/v2"
)

func runUpdateKeygen(c *cli.Context) error {
	dir := c.String("out")
	if dir == "-" {
		// - is stdout for a file; keygen writes two, one of them private
		return exitWith(64, "airlock update keygen: --out names a directory for two key files, not stdout: name a directory (a private key is never printed)")
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return exitWith(1, "airlock update keygen: %v", err)
	}
	privPath, pubPath := filepath.Join(dir, feedPrivFile), filepath.Join(dir, feedPubFile)
	for _, p := range []string{privPath, pubPath} {
		if _, err := os.Lstat(p); err == nil {
			return exitWith(1, "airlock update keygen: %s already exists: remove it or choose another directory (--out DIR)", p)
		}
	}
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return exitWith(1, "airlock update keygen: %v", err)
	}
	pk8, err := x509.MarshalPKCS8PrivateKey(priv)
	if err != nil {
		return exitWith(1, "airlock update keygen: %v", err)
	}
	line := base64.StdEncoding.EncodeToString(pub)
	if err := writeFeedKey(privPath, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: pk8}), 0o600); err != nil {
		return exitWith(1, "airlock update keygen: %v", err)
	}
	if err := writeFeedKey(pubPath, []byte(line+"\n"), 0o644); err != nil {
		_ = os.Remove(privPath) // a private key without its public half is of no use
		return exitWith(1, "airlock update keygen: %v", err)
	}
	w := c.App.Writer
	fmt.Fprintf(w, "wrote %s (private: keep it where you sign, never on the machines that install the feed)\n", privPath)
	fmt.Fprintf(w, "wrote %s (key id %s)\n", pubPath, scan.FeedKeyID(pub))
	fmt.Fprintf(w, "trust it where feeds are installed:\n%s=%s\n", scan.FeedKeyEnv, line)
	return nil
}

// writeFeedKey creates path with data, refusing to replace anything.
func writeFeedKey(path string, data []byte, mode os.FileMode) error {
	fh, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if err != nil {
		return err
	}
	if _, err := fh.Write(data); err != nil {
		fh.Close()
		os.Remove(path)
		return err
	}
	return fh.Close()
}

func runUpdateSign(c *cli.Context) error {
	if c.NArg() != 1 || c.String("key") == "" {
		return exitWith(64, "airlock update sign: usage: airlock update sign FEED --key PRIVKEY [-o OUT]")
	}
	in, out := c.Args().First(), c.String("o")
	if out == "" {
		out = strings.TrimSuffix(in, ".json") + ".signed.json"
	}
	priv, err := readFeedPrivateKey(c.String("key"))
	if err != nil {
		return exitWith(1, "airlock update sign: %v", err)
	}
	payload, err := readFeedInput(in, scan.MaxFeedBytes)
	if err != nil {
		return exitWith(1, "airlock update sign: %v", err)
	}
	env, err := scan.SignFeed(payload, priv)
	if err != nil {
		return exitWith(1, "airlock update sign: %s: %v", in, err)
	}
	o := output{cmd: "airlock update sign", flag: "-o", path: out, force: c.Bool("force"), newMode: 0o644}
	if err := o.write(c.App.Writer, env); err != nil || out == "-" {
		return err
	}
	fmt.Fprintf(c.App.Writer, "signed %s with key %s: %s\n", in, scan.FeedKeyID(priv.Public().(ed25519.PublicKey)), out)
	return nil
}

// readFeedPrivateKey reads an ed25519 private key in PEM PKCS#8, as keygen
// (and `openssl genpkey -algorithm ed25519`) writes it.
func readFeedPrivateKey(path string) (ed25519.PrivateKey, error) {
	b, err := readFeedInput(path, 64<<10)
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
