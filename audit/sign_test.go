package audit

import (
	"crypto/ed25519"
	"crypto/rand"
	"crypto/x509"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"sync"
	"testing"
)

// signEnv is a getenv over a fixed map.
func signEnv(kv ...string) func(string) string {
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return func(k string) string { return m[k] }
}

func signMustLoad(t *testing.T, home string, getenv func(string) string) signConfig {
	t.Helper()
	cfg, err := LoadSignConfig(home, getenv)
	if err != nil {
		t.Fatalf("LoadSignConfig: %v", err)
	}
	return cfg
}

func signTestH(i int) string {
	return ArgsDigest([]byte(fmt.Sprint("record ", i)))
}

// signEd25519Files writes a key pair generated in Go the way openssl
// writes it (PKCS#8 / PKIX PEM) and returns the paths.
func signEd25519Files(t *testing.T, dir string) (privPath, pubPath string) {
	t.Helper()
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	pk8, err := x509.MarshalPKCS8PrivateKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	pkix, err := x509.MarshalPKIXPublicKey(pub)
	if err != nil {
		t.Fatal(err)
	}
	privPath, pubPath = filepath.Join(dir, "priv.pem"), filepath.Join(dir, "pub.pem")
	if err := os.WriteFile(privPath, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: pk8}), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(pubPath, pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: pkix}), 0o644); err != nil {
		t.Fatal(err)
	}
	return privPath, pubPath
}

func TestSignRoundTripAndDomainSeparation(t *testing.T) {
	dir := t.TempDir()
	privPath, _ := signEd25519Files(t, dir)
	for _, tc := range []struct {
		name, mode string
		env        []string
	}{
		{"hmac", signModeHMAC, nil},
		{"ed25519", signModeEd25519, []string{signKeyEnv, privPath}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := signMustLoad(t, t.TempDir(), signEnv(append([]string{SignEnv, tc.mode}, tc.env...)...))
			h := signTestH(1)
			alg, sig, err := signRecord(cfg.Signer, h)
			if err != nil {
				t.Fatal(err)
			}
			if alg != cfg.Alg() {
				t.Fatalf("alg %q, want %q", alg, cfg.Alg())
			}
			if !cfg.Verifier.Verify(recordSigningInput(h), sig) {
				t.Fatal("a fresh record signature does not verify")
			}
			if cfg.Verifier.Verify(recordSigningInput(signTestH(2)), sig) {
				t.Fatal("a record signature verifies for another h")
			}
			if cfg.Verifier.Verify([]byte(h), sig) {
				t.Fatal("a record signature verifies without its domain tag")
			}
			head := Head{Count: 7, Last: h, At: "2026-11-29T10:43:49.123Z"}
			_, hsig, err := signHead(cfg.Signer, head)
			if err != nil {
				t.Fatal(err)
			}
			if k, p := checkHeadSig(cfg, head, alg, hsig); k != sigOK {
				t.Fatalf("checkpoint signature: %s: %s", k, p)
			}
			for _, edit := range []func(*Head){
				func(h *Head) { h.Count++ },
				func(h *Head) { h.Last = signTestH(2) },
				func(h *Head) { h.At = "2026-11-29T10:43:49.124Z" },
				func(h *Head) { *h = signHeadWithLedger(*h) },
			} {
				edited := head
				edit(&edited)
				if reflect.DeepEqual(edited, head) {
					continue // this Head has no such member
				}
				if k, _ := checkHeadSig(cfg, edited, alg, hsig); k != sigBad {
					t.Fatalf("checkpoint signature still verifies for %+v (%q)", edited, k)
				}
			}
			if k, _ := checkRecordSig(cfg, h, alg, hsig); k != sigBad {
				t.Fatalf("a checkpoint signature verifies as a record signature (%q)", k)
			}
			for _, bad := range []string{"", "!!!", sig[:len(sig)-4], sig + "AAAA"} {
				if cfg.Verifier.Verify(recordSigningInput(h), bad) {
					t.Fatalf("mangled signature %q verifies", bad)
				}
			}
		})
	}
}

// signHeadWithLedger sets a head's rotation members, which the signature
// must cover like the others.
func signHeadWithLedger(h Head) Head {
	b, _ := json.Marshal(h)
	var m map[string]any
	_ = json.Unmarshal(b, &m)
	m["segments"], m["ledger"] = 1, signTestH(5)
	b, _ = json.Marshal(m)
	var out Head
	_ = json.Unmarshal(b, &out)
	return out
}

// The key file is made once, however many appenders start at the same
// moment: every one of them must sign with the key on disk.
func TestSignHMACKeyCreatedOnceConcurrently(t *testing.T) {
	home := t.TempDir()
	const n = 32
	sigs := make([]string, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			cfg, err := LoadSignConfig(home, signEnv(SignEnv, signModeHMAC))
			if err != nil {
				errs[i] = err
				return
			}
			sigs[i], errs[i] = cfg.Signer.Sign([]byte("x"))
		}()
	}
	close(start)
	wg.Wait()
	for i := range n {
		if errs[i] != nil {
			t.Fatalf("goroutine %d: %v", i, errs[i])
		}
		if sigs[i] != sigs[0] {
			t.Fatalf("goroutine %d signs with another key than goroutine 0", i)
		}
	}
	signCheckKeyFile(t, filepath.Join(home, signKeyFile))
}

func signCheckKeyFile(t *testing.T, path string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if s := strings.TrimSuffix(string(b), "\n"); !isHexDigest(s) {
		t.Fatalf("key file holds %q, want 64 hex digits and a newline", b)
	}
	if runtime.GOOS != "windows" {
		st, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if st.Mode().Perm() != 0o600 {
			t.Fatalf("key file mode %04o, want 0600", st.Mode().Perm())
		}
	}
	left, _ := filepath.Glob(filepath.Join(filepath.Dir(path), ".*tmp*"))
	if len(left) > 0 {
		t.Fatalf("temporary files left behind: %v", left)
	}
}

const signHelperEnv = "AIRLOCK_AUDIT_TEST_SIGN_HOME"

// TestSignKeyHelperProcess is not a test: the cross-process key test runs
// the test binary as children that execute it.
func TestSignKeyHelperProcess(t *testing.T) {
	home := os.Getenv(signHelperEnv)
	if home == "" {
		t.Skip("helper process for TestSignHMACKeyCreatedOnceAcrossProcesses")
	}
	cfg, err := LoadSignConfig(home, signEnv(SignEnv, signModeHMAC))
	if err != nil {
		t.Fatal(err)
	}
	sig, err := cfg.Signer.Sign([]byte("x"))
	if err != nil {
		t.Fatal(err)
	}
	fmt.Println("SIG=" + sig)
}

func TestSignHMACKeyCreatedOnceAcrossProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns processes")
	}
	home := t.TempDir()
	const procs = 6
	cmds := make([]*exec.Cmd, procs)
	outs := make([]*strings.Builder, procs)
	for p := range procs {
		cmd := exec.Command(os.Args[0], "-test.run=^TestSignKeyHelperProcess$", "-test.count=1", "-test.v")
		cmd.Env = append(os.Environ(), signHelperEnv+"="+home)
		outs[p] = new(strings.Builder)
		cmd.Stdout, cmd.Stderr = outs[p], outs[p]
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds[p] = cmd
	}
	var first string
	for p, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Fatalf("child %d: %v\n%s", p, err, outs[p])
		}
		_, rest, ok := strings.Cut(outs[p].String(), "SIG=")
		if !ok {
			t.Fatalf("child %d printed no signature:\n%s", p, outs[p])
		}
		sig, _, _ := strings.Cut(rest, "\n")
		if p == 0 {
			first = sig
		} else if sig != first {
			t.Fatalf("child %d signs with another key than child 0", p)
		}
	}
	signCheckKeyFile(t, filepath.Join(home, signKeyFile))
}

func TestSignRefusesKeyReadableByOthers(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("Windows files have no group/other permission bits")
	}
	home := t.TempDir()
	keyPath := filepath.Join(home, signKeyFile)
	privPath, _ := signEd25519Files(t, t.TempDir())
	for _, tc := range []struct {
		name string
		path string
		load func() error
	}{
		{"hmac appender", keyPath, func() error {
			_, err := LoadSignConfig(home, signEnv(SignEnv, signModeHMAC))
			return err
		}},
		{"hmac verifier", keyPath, func() error {
			_, err := loadVerifyConfig(home, signEnv(SignEnv, signModeHMAC))
			return err
		}},
		{"ed25519 private key", privPath, func() error {
			_, err := LoadSignConfig(home, signEnv(SignEnv, signModeEd25519, signKeyEnv, privPath))
			return err
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := os.Stat(tc.path); err != nil {
				if err := os.WriteFile(tc.path, []byte(strings.Repeat("ab", 32)+"\n"), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			for _, mode := range []os.FileMode{0o640, 0o604, 0o660} {
				if err := os.Chmod(tc.path, mode); err != nil {
					t.Fatal(err)
				}
				err := tc.load()
				if err == nil || !strings.Contains(err.Error(), tc.path) || !strings.Contains(err.Error(), "chmod 600") {
					t.Fatalf("mode %04o: error %v, want one naming %s and chmod 600", mode, err, tc.path)
				}
			}
			if err := os.Chmod(tc.path, 0o600); err != nil {
				t.Fatal(err)
			}
			if err := tc.load(); err != nil {
				t.Fatalf("mode 0600 refused: %v", err)
			}
		})
	}
}

// Verify needs only the public key: the private key is nowhere in its
// environment.
func TestSignEd25519VerifiesWithPublicKeyOnly(t *testing.T) {
	dir := t.TempDir()
	privPath, pubPath := signEd25519Files(t, dir)
	genPriv, genPub, err := GenerateEd25519(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	seed := filepath.Join(dir, "seed.hex")
	priv, err := loadEd25519Private(privPath)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(seed, []byte(hex.EncodeToString(priv.Seed())+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ name, priv, pub string }{
		{"PKCS#8 PEM", privPath, pubPath},
		{"GenerateEd25519", genPriv, genPub},
		{"hex seed", seed, pubPath},
	} {
		t.Run(tc.name, func(t *testing.T) {
			home := t.TempDir()
			signer := signMustLoad(t, home, signEnv(SignEnv, signModeEd25519, signKeyEnv, tc.priv, verifyKeyEnv, tc.pub))
			h := signTestH(3)
			alg, sig, err := signRecord(signer.Signer, h)
			if err != nil {
				t.Fatal(err)
			}
			vcfg, err := loadVerifyConfig(home, signEnv(SignEnv, signModeEd25519, verifyKeyEnv, tc.pub))
			if err != nil {
				t.Fatal(err)
			}
			if vcfg.Signer != nil {
				t.Fatal("the verify configuration holds a signer")
			}
			if k, p := checkRecordSig(vcfg, h, alg, sig); k != sigOK {
				t.Fatalf("%s: %s", k, p)
			}
		})
	}
	if _, _, err := GenerateEd25519(filepath.Dir(genPriv)); err == nil {
		t.Fatal("GenerateEd25519 overwrote an existing key pair")
	}
}

func TestSignConfigErrorsNameTheFix(t *testing.T) {
	dir := t.TempDir()
	privPath, pubPath := signEd25519Files(t, dir)
	otherPriv, _ := signEd25519Files(t, t.TempDir())
	garbage := filepath.Join(dir, "garbage")
	if err := os.WriteFile(garbage, []byte("not a key\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	pubBytes, err := os.ReadFile(pubPath)
	if err != nil {
		t.Fatal(err)
	}
	pubAsPriv := filepath.Join(dir, "pub-0600.pem")
	if err := os.WriteFile(pubAsPriv, pubBytes, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		env  []string
		want string
	}{
		{"unknown mode", []string{SignEnv, "rsa"}, `AIRLOCK_SIGN="rsa" is not a signing mode`},
		{"ed25519 without key", []string{SignEnv, signModeEd25519}, signKeyEnv},
		{"missing key file", []string{SignEnv, signModeEd25519, signKeyEnv, filepath.Join(dir, "nope")}, filepath.Join(dir, "nope")},
		{"garbage key", []string{SignEnv, signModeEd25519, signKeyEnv, garbage}, "openssl genpkey"},
		{"public key as private", []string{SignEnv, signModeEd25519, signKeyEnv, pubAsPriv}, "PRIVATE KEY"},
		{"mismatched pair", []string{SignEnv, signModeEd25519, signKeyEnv, otherPriv, verifyKeyEnv, pubPath}, "is not the public key of"},
		{"private key as public", []string{SignEnv, signModeEd25519, signKeyEnv, privPath, verifyKeyEnv, privPath}, "PUBLIC KEY"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := LoadSignConfig(t.TempDir(), signEnv(tc.env...))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
	cfg, err := LoadSignConfig(t.TempDir(), signEnv())
	if err != nil || cfg.Mode != "" || cfg.Signer != nil {
		t.Fatalf("unset AIRLOCK_SIGN: %+v, %v", cfg, err)
	}
}

// The no-downgrade rule: once signing is configured, nothing about a
// record's signature is silently accepted.
func TestSignCheckRecordSigNoDowngrade(t *testing.T) {
	homeA, homeB := t.TempDir(), t.TempDir()
	env := signEnv(SignEnv, signModeHMAC)
	a := signMustLoad(t, homeA, env)
	b := signMustLoad(t, homeB, env)
	privPath, _ := signEd25519Files(t, t.TempDir())
	ed := signMustLoad(t, t.TempDir(), signEnv(SignEnv, signModeEd25519, signKeyEnv, privPath))
	h := signTestH(9)
	_, sigA, _ := signRecord(a.Signer, h)
	_, sigB, _ := signRecord(b.Signer, h)
	_, sigEd, _ := signRecord(ed.Signer, h)
	absent, err := loadVerifyConfig(t.TempDir(), env) // a home without audit.key
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name     string
		cfg      signConfig
		alg, sig string
		want     string
	}{
		{"signed", a, algHMAC, sigA, sigOK},
		{"signing off ignores signatures", signConfig{}, algHMAC, "junk", sigOK},
		{"signing off, unsigned", signConfig{}, "", "", sigOK},
		{"unsigned", a, "", "", sigUnsigned},
		{"sig stripped, alg left", a, algHMAC, "", sigUnsigned},
		{"alg stripped, sig left", a, "", sigA, sigUnsigned},
		{"another home's key", a, algHMAC, sigB, sigBad},
		{"not base64", a, algHMAC, "%%%", sigBad},
		{"ed25519 sig under hmac", a, algEd25519, sigEd, sigWrongAlg},
		{"hmac sig under ed25519", ed, algHMAC, sigA, sigWrongAlg},
		{"hmac sig relabelled ed25519", ed, algEd25519, sigA, sigBad},
		{"key absent", absent, algHMAC, sigA, sigKeyAbsent},
		{"key absent, unsigned", absent, "", "", sigUnsigned},
	} {
		t.Run(tc.name, func(t *testing.T) {
			kind, problem := checkRecordSig(tc.cfg, h, tc.alg, tc.sig)
			if kind != tc.want {
				t.Fatalf("kind %q (%s), want %q", kind, problem, tc.want)
			}
			if (kind == sigOK) != (problem == "") {
				t.Fatalf("kind %q with problem %q", kind, problem)
			}
		})
	}
	if _, p := checkRecordSig(absent, h, algHMAC, sigA); !strings.Contains(p, "key absent") || !strings.Contains(p, signKeyFile) {
		t.Fatalf("key-absent problem %q does not say the key is absent and which", p)
	}
}

// Signing a line adds alg and sig without changing h, and the line stays
// canonical, so Verify's fast path hashes it as before.
func TestSignLineKeepsHashAndCanonicalForm(t *testing.T) {
	cfg := signMustLoad(t, t.TempDir(), signEnv(SignEnv, signModeHMAC))
	line, rec, err := encodeRecord(Record{Time: "2026-11-29T10:43:49.123Z", Event: "decision", Source: "hook", Tool: "Bash", Reason: "a \"quoted\" <reason>"}, Genesis)
	if err != nil {
		t.Fatal(err)
	}
	signed, err := signLine(cfg.Signer, line)
	if err != nil {
		t.Fatal(err)
	}
	var p canonParser
	var f lineFields
	if err := p.parseCanonical(signed, &f); err != nil {
		t.Fatalf("signed line is not canonical: %v\n%s", err, signed)
	}
	if got := hex.EncodeToString(f.hashed[:]); got != rec.H || string(f.h) != rec.H {
		t.Fatalf("signing changed the hash: content %s, h %s, want %s", got, f.h, rec.H)
	}
	alg, sig, err := lineSig(signed)
	if err != nil {
		t.Fatal(err)
	}
	if k, pr := checkRecordSig(cfg, rec.H, alg, sig); k != sigOK {
		t.Fatalf("%s: %s", k, pr)
	}
	alg, sig, err = lineSig(line) // the same record with its signature stripped
	if err != nil || alg != "" || sig != "" {
		t.Fatalf("unsigned line: alg %q sig %q err %v", alg, sig, err)
	}
	if k, _ := checkRecordSig(cfg, rec.H, alg, sig); k != sigUnsigned {
		t.Fatalf("stripped signature: kind %q, want %q", k, sigUnsigned)
	}
	for _, bad := range []string{`{"alg":1,"h":"x"}`, `{"h":"x","sig":null}`, `{"h":"x" }`, `[]`} {
		if _, _, err := lineSig([]byte(bad)); err == nil {
			t.Errorf("lineSig(%s) accepted", bad)
		}
	}
}
