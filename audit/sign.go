package audit

import (
	"crypto/ed25519"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/agentairlock/airlock/internal/regular"
	"github.com/agentairlock/airlock/internal/textsafe"
)

// Environment variables and files of record signing.
const (
	// SignEnv selects signing: unset or empty (off), "hmac" or "ed25519".
	SignEnv = "AIRLOCK_SIGN"
	// signKeyEnv is the path of the ed25519 private key (AIRLOCK_SIGN=ed25519).
	signKeyEnv = "AIRLOCK_SIGN_KEY"
	// verifyKeyEnv is the path of the ed25519 public key Verify checks with.
	verifyKeyEnv = "AIRLOCK_VERIFY_KEY"
	// signKeyFile is the HMAC key in the audit home (AIRLOCK_SIGN=hmac).
	signKeyFile = "audit.key"

	// File names GenerateEd25519 writes.
	signPrivFile = "airlock-sign.key"
	signPubFile  = "airlock-sign.pub"
)

// Signing modes (values of AIRLOCK_SIGN) and the alg member each writes.
const (
	signModeHMAC    = "hmac"
	signModeEd25519 = "ed25519"

	algHMAC    = "hmac-sha256"
	algEd25519 = "ed25519"
)

// Domain separation: a signature over a record can never be replayed as a
// signature over a checkpoint (or over anything a later version signs with
// the same key), because every signed message starts with a distinct tag.
const (
	recordSigDomain = "airlock-audit-record-v1\n"
	headSigDomain   = "airlock-audit-head-v1\n"
	ledgerSigDomain = "airlock-audit-ledger-v1\n"
)

// signer produces the sig member for a signing input. Sig is standard
// base64 (with padding) of the raw MAC or signature.
type signer interface {
	Alg() string
	Sign(msg []byte) (string, error)
}

// sigVerifier checks a sig member produced by the matching Signer.
type sigVerifier interface {
	Alg() string
	Verify(msg []byte, sig string) bool
}

// signConfig is the signing setup of one audit home.
//
// What signing protects, and what it does not:
//
//   - The hash chain alone detects edits by someone who does not bother to
//     recompute it. Anyone who can write audit.jsonl can recompute every h
//     and rewrite audit.head, so the chain alone proves nothing against a
//     deliberate attacker.
//   - AIRLOCK_SIGN=hmac signs every record's h and the checkpoint with a
//     random key kept in $AIRLOCK_HOME/audit.key (0600). It stops someone
//     who can edit the log but cannot read audit.key from forging, editing
//     or re-chaining records: a recomputed record has no valid sig. It does
//     NOT stop anyone who can read the key: the same OS user, which includes
//     the agent if it can read ~/.airlock. Airlock's forbids block the
//     agent's tools from reading it, but a process the agent starts outside
//     the gate (a script, a build step) runs as the same user and can read
//     the key and re-sign a rewritten log.
//   - AIRLOCK_SIGN=ed25519 signs with a private key (AIRLOCK_SIGN_KEY) and
//     verifies with the public key alone (AIRLOCK_VERIFY_KEY). Verification
//     needs no secret, so the public key can be pinned elsewhere (another
//     machine, a reviewer) and a copy of it cannot forge. The guarantee is
//     only as strong as the private key's placement: the appender reads it,
//     so while it is a file the agent's OS user can read, it is no stronger
//     than hmac against that user; keep it where the agent cannot read it.
//   - No signature detects a rollback: deleting the newest records together
//     with audit.head and putting back an older, validly signed audit.head.
//     Nor does it detect a chain fully recomputed by someone holding the
//     key. Only an external anchor (anchor.go), written where the agent
//     cannot rewrite it, detects those.
//
// Signatures cover RecordSigningInput(h) for each record (h already covers
// every other member, prev included) and HeadSigningInput(head) for the
// checkpoint. "No downgrade": when signing is configured, an unsigned
// record, a record with another alg, or a bad signature is a problem, never
// a silently skipped check (see CheckRecordSig).
type signConfig struct {
	Mode     string      // "", SignModeHMAC or SignModeEd25519
	Signer   signer      // nil when Mode is "" or (verify side) no private key was given
	Verifier sigVerifier // nil when Mode is "" or the key is absent
	KeyFile  string      // the file Verifier's key came from, for messages

	absent string // why Verifier is nil although Mode is set
}

// Alg is the alg member records must carry under this configuration, "" if
// signing is off.
func (c signConfig) Alg() string {
	switch c.Mode {
	case signModeHMAC:
		return algHMAC
	case signModeEd25519:
		return algEd25519
	}
	return ""
}

// LoadSignConfig reads the signing configuration for an appender from
// getenv (os.Getenv in production). With AIRLOCK_SIGN=hmac it creates
// $AIRLOCK_HOME/audit.key on first use; with ed25519 it requires
// AIRLOCK_SIGN_KEY. Every error names the variable or file and the fix.
func LoadSignConfig(home string, getenv func(string) string) (signConfig, error) {
	mode, err := signMode(getenv)
	if err != nil || mode == "" {
		return signConfig{}, err
	}
	switch mode {
	case signModeHMAC:
		path := filepath.Join(home, signKeyFile)
		key, err := loadOrCreateHMACKey(path)
		if err != nil {
			return signConfig{}, err
		}
		h := hmacKey(key)
		return signConfig{Mode: mode, Signer: h, Verifier: h, KeyFile: path}, nil
	default: // SignModeEd25519
		path := getenv(signKeyEnv)
		if path == "" {
			return signConfig{}, fmt.Errorf("%s=%s needs %s, the path of the ed25519 private key (PEM PKCS#8, as written by `openssl genpkey -algorithm ed25519` or `airlock` key setup)", SignEnv, mode, signKeyEnv)
		}
		priv, err := loadEd25519Private(path)
		if err != nil {
			return signConfig{}, err
		}
		pub := priv.Public().(ed25519.PublicKey)
		cfg := signConfig{Mode: mode, Signer: ed25519Signer(priv), Verifier: ed25519Verifier(pub), KeyFile: path}
		if vpath := getenv(verifyKeyEnv); vpath != "" {
			vpub, err := loadEd25519Public(vpath)
			if err != nil {
				return signConfig{}, err
			}
			// Writing records that the configured verify key rejects would
			// only be discovered at the next verify.
			if !vpub.Equal(pub) {
				return signConfig{}, fmt.Errorf("%s (%s) is not the public key of %s (%s): point both at the same key pair", verifyKeyEnv, vpath, signKeyEnv, path)
			}
		}
		return cfg, nil
	}
}

// loadVerifyConfig reads the signing configuration for Verify. It never
// creates a key and never needs a private key: with ed25519 it uses
// AIRLOCK_VERIFY_KEY (falling back to the public half of AIRLOCK_SIGN_KEY).
// A key that is simply not there is not an error: Verifier is nil and
// CheckRecordSig reports every record as SigKeyAbsent.
func loadVerifyConfig(home string, getenv func(string) string) (signConfig, error) {
	mode, err := signMode(getenv)
	if err != nil || mode == "" {
		return signConfig{}, err
	}
	cfg := signConfig{Mode: mode}
	switch mode {
	case signModeHMAC:
		path := filepath.Join(home, signKeyFile)
		key, err := readHMACKey(path)
		if errors.Is(err, fs.ErrNotExist) {
			cfg.absent = fmt.Sprintf("%s=%s but %s does not exist", SignEnv, mode, path)
			return cfg, nil
		}
		if err != nil {
			return signConfig{}, err
		}
		cfg.Verifier, cfg.KeyFile = hmacKey(key), path
	default: // SignModeEd25519
		if path := getenv(verifyKeyEnv); path != "" {
			pub, err := loadEd25519Public(path)
			if err != nil {
				return signConfig{}, err
			}
			cfg.Verifier, cfg.KeyFile = ed25519Verifier(pub), path
		} else if path := getenv(signKeyEnv); path != "" {
			priv, err := loadEd25519Private(path)
			if err != nil {
				return signConfig{}, err
			}
			cfg.Verifier, cfg.KeyFile = ed25519Verifier(priv.Public().(ed25519.PublicKey)), path
		} else {
			cfg.absent = fmt.Sprintf("%s=%s but neither %s (public key) nor %s is set", SignEnv, mode, verifyKeyEnv, signKeyEnv)
		}
	}
	return cfg, nil
}

func signMode(getenv func(string) string) (string, error) {
	switch m := getenv(SignEnv); m {
	case "", signModeHMAC, signModeEd25519:
		return m, nil
	default:
		return "", fmt.Errorf("%s=%q is not a signing mode: use %q, %q, or leave it unset", SignEnv, m, signModeHMAC, signModeEd25519)
	}
}

// recordSigningInput is the message signed for a record: the domain tag
// "airlock-audit-record-v1\n" followed by the record's h (64 hex digits).
// h covers every other member, so the signature covers the whole record
// and, through prev, its place in the chain.
func recordSigningInput(h string) []byte {
	return []byte(recordSigDomain + h)
}

// headSigningInput is the message signed for the checkpoint: the domain
// tag "airlock-audit-head-v1\n" followed by the canonical encoding of head
// without its h, sig and alg members. Like a record's h, it covers every
// member audit.head has now (count, last, at, segments, ledger) and any a
// later version adds, so no field can be changed or moved without breaking
// the signature.
func headSigningInput(head Head) ([]byte, error) {
	raw, err := json.Marshal(head)
	if err != nil {
		return nil, fmt.Errorf("checkpoint signing input: %w", err)
	}
	m, err := decodeObject(raw)
	if err != nil {
		return nil, fmt.Errorf("checkpoint signing input: %w", err)
	}
	for _, k := range excludedFromHash {
		delete(m, k)
	}
	return appendCanonical([]byte(headSigDomain), m, 0)
}

// signRecord returns the alg and sig members for a record whose h is h.
func signRecord(s signer, h string) (alg, sig string, err error) {
	if !isHexDigest(h) {
		return "", "", fmt.Errorf("sign record: h %q is not a sha256 hex digest", h)
	}
	sig, err = s.Sign(recordSigningInput(h))
	if err != nil {
		return "", "", fmt.Errorf("sign record: %w", err)
	}
	return s.Alg(), sig, nil
}

// ledgerSigningInput is the message signed for a line of the ledger
// (audit.chain): the domain tag "airlock-audit-ledger-v1\n" followed by
// the line's h. Like a record's, h covers every other member.
func ledgerSigningInput(h string) []byte {
	return []byte(ledgerSigDomain + h)
}

// signLedger returns the alg and sig members for a ledger line whose h is h.
func signLedger(s signer, h string) (alg, sig string, err error) {
	if !isHexDigest(h) {
		return "", "", fmt.Errorf("sign ledger line: h %q is not a sha256 hex digest", h)
	}
	sig, err = s.Sign(ledgerSigningInput(h))
	if err != nil {
		return "", "", fmt.Errorf("sign ledger line: %w", err)
	}
	return s.Alg(), sig, nil
}

// checkLedgerSig is CheckRecordSig for a line of the ledger.
func checkLedgerSig(cfg signConfig, h, alg, sig string) (kind, problem string) {
	return checkSig(cfg, "ledger line", ledgerSigningInput(h), alg, sig)
}

// signStartDetail is the Detail of the sign_start record a signing
// appender writes: "sign=hmac" or "sign=ed25519".
func signStartDetail(mode string) string {
	return "sign=" + mode
}

// signHead returns the alg and sig members for a checkpoint (head's own
// alg and sig, if it has them, are ignored).
func signHead(s signer, head Head) (alg, sig string, err error) {
	msg, err := headSigningInput(head)
	if err != nil {
		return "", "", err
	}
	sig, err = s.Sign(msg)
	if err != nil {
		return "", "", fmt.Errorf("sign checkpoint: %w", err)
	}
	return s.Alg(), sig, nil
}

// Kinds of signature problems returned by CheckRecordSig and CheckHeadSig.
const (
	sigOK        = ""
	sigUnsigned  = "unsigned"      // no sig/alg (stripped, or written before signing was on), or half of them
	sigWrongAlg  = "wrong-alg"     // signed with another algorithm than configured
	sigBad       = "bad-signature" // does not verify with the configured key
	sigKeyAbsent = "key-absent"    // signing is configured but the key to verify with is not available
)

// checkRecordSig checks the alg and sig members of a record whose claimed
// h is h (pass "" for absent members). It returns SigOK and "" when the
// record is fine or signing is off; otherwise a kind and a message that
// says what is wrong with "the record" (the caller prefixes the line).
// Signed records under a configuration without signing are not checked.
func checkRecordSig(cfg signConfig, h, alg, sig string) (kind, problem string) {
	return checkSig(cfg, "record", recordSigningInput(h), alg, sig)
}

// checkHeadSig is CheckRecordSig for the checkpoint, with head as read
// from audit.head (its alg and sig members, if any, are ignored: pass them
// as alg and sig).
func checkHeadSig(cfg signConfig, head Head, alg, sig string) (kind, problem string) {
	msg, err := headSigningInput(head)
	if err != nil {
		return sigBad, fmt.Sprintf("the checkpoint's signature cannot be checked: %v", err)
	}
	return checkSig(cfg, "checkpoint", msg, alg, sig)
}

func checkSig(cfg signConfig, what string, msg []byte, alg, sig string) (string, string) {
	want := cfg.Alg()
	switch {
	case want == "":
		return sigOK, ""
	case alg == "" && sig == "":
		return sigUnsigned, fmt.Sprintf("the %s is unsigned but %s=%s: its signature was stripped, or it was written before signing was turned on", what, SignEnv, cfg.Mode)
	case alg == "" || sig == "":
		return sigUnsigned, fmt.Sprintf("the %s has only half a signature (alg %q, sig %q): part of it was stripped", what, alg, sigShort(sig))
	case alg != want:
		return sigWrongAlg, fmt.Sprintf("the %s is signed with %q but %s=%s expects %q", what, alg, SignEnv, cfg.Mode, want)
	case cfg.Verifier == nil:
		why := cfg.absent
		if why == "" {
			why = "no verification key was loaded"
		}
		return sigKeyAbsent, fmt.Sprintf("key absent: the %s's signature cannot be checked: %s", what, why)
	case !cfg.Verifier.Verify(msg, sig):
		return sigBad, fmt.Sprintf("the %s's signature does not verify with %s: it was forged, or signed with another key", what, textsafe.Escape(cfg.KeyFile))
	}
	return sigOK, ""
}

func sigShort(s string) string {
	if len(s) > 16 {
		return s[:16] + "…"
	}
	return s
}

// signLine adds alg and sig members to a canonical record line (as
// encodeRecord makes it) and returns the new canonical line. h does not
// change: sig and alg are excluded from it.
func signLine(s signer, line []byte) ([]byte, error) {
	m, err := decodeObject(line)
	if err != nil {
		return nil, fmt.Errorf("sign record: %w", err)
	}
	h, _ := m["h"].(string)
	alg, sig, err := signRecord(s, h)
	if err != nil {
		return nil, err
	}
	m["alg"], m["sig"] = alg, sig
	out, err := appendCanonical(nil, m, 0)
	if err != nil {
		return nil, fmt.Errorf("sign record: %w", err)
	}
	return out, nil
}

// lineSig returns the alg and sig members of a canonical line ("" when
// absent). It walks the top-level members with the canonical parser, so it
// only accepts lines parseCanonical accepts; Verify's decode path reads
// m["alg"] and m["sig"] instead.
func lineSig(line []byte) (alg, sig string, err error) {
	var p canonParser
	p.b = line
	if len(line) < 2 || line[0] != '{' {
		return "", "", errNotCanonical
	}
	if string(line) == "{}" {
		return "", "", nil
	}
	for i := 1; ; {
		key, next, err := p.key(i, true)
		if err != nil {
			return "", "", err
		}
		if next >= len(line) || line[next] != ':' {
			return "", "", errNotCanonical
		}
		vstart := next + 1
		if i, err = p.value(vstart, 1); err != nil {
			return "", "", err
		}
		if k := string(key); k == "alg" || k == "sig" {
			val := line[vstart:i]
			if len(val) < 2 || val[0] != '"' {
				return "", "", fmt.Errorf("member %s is not a string", k)
			}
			if k == "alg" {
				alg = stringValue(val[1 : len(val)-1])
			} else {
				sig = stringValue(val[1 : len(val)-1])
			}
		}
		if i >= len(line) {
			return "", "", errNotCanonical
		}
		switch line[i] {
		case ',':
			i++
		case '}':
			return alg, sig, nil
		default:
			return "", "", errNotCanonical
		}
	}
}

// hmacKey signs with HMAC-SHA256.
type hmacKey []byte

func (hmacKey) Alg() string { return algHMAC }

func (k hmacKey) Sign(msg []byte) (string, error) {
	m := hmac.New(sha256.New, k)
	m.Write(msg)
	return base64.StdEncoding.EncodeToString(m.Sum(nil)), nil
}

func (k hmacKey) Verify(msg []byte, sig string) bool {
	got, err := base64.StdEncoding.Strict().DecodeString(sig)
	if err != nil {
		return false
	}
	m := hmac.New(sha256.New, k)
	m.Write(msg)
	return hmac.Equal(got, m.Sum(nil))
}

type ed25519Signer ed25519.PrivateKey

func (ed25519Signer) Alg() string { return algEd25519 }

func (k ed25519Signer) Sign(msg []byte) (string, error) {
	return base64.StdEncoding.EncodeToString(ed25519.Sign(ed25519.PrivateKey(k), msg)), nil
}

type ed25519Verifier ed25519.PublicKey

func (ed25519Verifier) Alg() string { return algEd25519 }

func (k ed25519Verifier) Verify(msg []byte, sig string) bool {
	raw, err := base64.StdEncoding.Strict().DecodeString(sig)
	if err != nil || len(raw) != ed25519.SignatureSize {
		return false
	}
	return ed25519.Verify(ed25519.PublicKey(k), msg, raw)
}

// The HMAC key file holds 64 lower-case hex digits (32 random bytes) and a
// newline; surrounding white space is ignored when reading. Hex rather than
// raw bytes so it can be inspected, copied and backed up as text.
const hmacKeyLen = 32

func loadOrCreateHMACKey(path string) ([]byte, error) {
	key, err := readHMACKey(path)
	if !errors.Is(err, fs.ErrNotExist) {
		return key, err
	}
	fresh := make([]byte, hmacKeyLen)
	if _, err := rand.Read(fresh); err != nil {
		return nil, fmt.Errorf("create %s: %w", path, err)
	}
	if _, err := createExclusive(path, []byte(hex.EncodeToString(fresh)+"\n"), 0o600); err != nil {
		return nil, fmt.Errorf("create %s: %w", path, err)
	}
	// Read back whichever key won the race, so every process signs with
	// the one on disk.
	return readHMACKey(path)
}

func readHMACKey(path string) ([]byte, error) {
	b, err := readSecretFile(path, "HMAC key", openRegular) // in the home: never through a link
	if err != nil {
		return nil, err
	}
	s := strings.TrimSpace(string(b))
	key, err := hex.DecodeString(s)
	if err != nil || len(key) != hmacKeyLen {
		return nil, fmt.Errorf("HMAC key %s must hold %d hex digits (%d random bytes); delete it to have a new one made, which makes the records it signed unverifiable", path, 2*hmacKeyLen, hmacKeyLen)
	}
	return key, nil
}

// readSecretFile reads a small key file, refusing one that group or others
// can access: a key anyone can read protects nothing. open never blocks on
// a FIFO.
func readSecretFile(path, what string, open func(string, int, os.FileMode) (*os.File, error)) ([]byte, error) {
	f, err := open(path, os.O_RDONLY, 0)
	if err != nil {
		return nil, fmt.Errorf("open %s %s: %w", what, path, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("stat %s %s: %w", what, path, err)
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s %s is not a regular file", what, path)
	}
	if err := checkSecretMode(path, what, st.Mode()); err != nil {
		return nil, err
	}
	b, err := io.ReadAll(io.LimitReader(f, 64<<10))
	if err != nil {
		return nil, fmt.Errorf("read %s %s: %w", what, path, err)
	}
	return b, nil
}

// checkSecretMode refuses group/other permission bits. Windows has no such
// bits (os reports 0666 for every writable file), so it is skipped there.
func checkSecretMode(path, what string, mode fs.FileMode) error {
	if runtime.GOOS == "windows" || mode.Perm()&0o077 == 0 {
		return nil
	}
	return fmt.Errorf("%s %s is accessible by group or others (mode %04o): run chmod 600 %s", what, path, mode.Perm(), path)
}

// createExclusive creates path with content and mode perm if it does not
// exist, atomically: the content is written to a temporary file (created
// O_EXCL by os.CreateTemp) that is then hard-linked to path, which fails if
// path exists. So two processes never make two keys, and no reader ever
// sees a half-written one. It reports whether this call created path. On
// file systems without hard links it falls back to an O_EXCL create of
// path itself.
func createExclusive(path string, content []byte, perm fs.FileMode) (bool, error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	tmp, err := os.CreateTemp(dir, "."+base+".tmp*")
	if err != nil {
		return false, err
	}
	name := tmp.Name()
	defer os.Remove(name)
	_, err = tmp.Write(content)
	if err == nil {
		err = tmp.Chmod(perm)
	}
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return false, err
	}
	err = os.Link(name, path)
	if err == nil {
		return true, nil
	}
	if errors.Is(err, fs.ErrExist) {
		return false, nil
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if errors.Is(err, fs.ErrExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	_, err = f.Write(content)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err == nil, err
}

// loadEd25519Private reads a private key: PEM "PRIVATE KEY" (PKCS#8, what
// `openssl genpkey -algorithm ed25519` writes), or hex of the 32-byte seed
// or of the 64-byte seed+public key.
func loadEd25519Private(path string) (ed25519.PrivateKey, error) {
	b, err := readSecretFile(path, signKeyEnv+" private key", regular.Open) // the user's path, links and all
	if err != nil {
		return nil, err
	}
	fail := func(why string) error {
		return fmt.Errorf("%s %s: %s; expected an ed25519 private key in PEM PKCS#8 (`openssl genpkey -algorithm ed25519 -out %s`) or hex of its 32-byte seed", signKeyEnv, path, why, path)
	}
	if blk, _ := pem.Decode(b); blk != nil {
		if blk.Type != "PRIVATE KEY" {
			return nil, fail(fmt.Sprintf("PEM block is %q, not \"PRIVATE KEY\"", blk.Type))
		}
		priv, err := parseEd25519PKCS8(blk.Bytes)
		if err != nil {
			return nil, fail(err.Error())
		}
		return priv, nil
	}
	raw, err := hex.DecodeString(strings.TrimSpace(string(b)))
	if err != nil {
		return nil, fail("neither PEM nor hex")
	}
	switch len(raw) {
	case ed25519.SeedSize:
		return ed25519.NewKeyFromSeed(raw), nil
	case ed25519.PrivateKeySize:
		priv := ed25519.NewKeyFromSeed(raw[:ed25519.SeedSize])
		if !priv.Public().(ed25519.PublicKey).Equal(ed25519.PublicKey(raw[ed25519.SeedSize:])) {
			return nil, fail("its public half does not belong to its seed")
		}
		return priv, nil
	}
	return nil, fail(fmt.Sprintf("hex of %d bytes", len(raw)))
}

// loadEd25519Public reads a public key: PEM "PUBLIC KEY" (PKIX, what
// `openssl pkey -pubout` writes) or hex of the 32-byte key. It need not be
// secret, so its permissions are not checked.
func loadEd25519Public(path string) (ed25519.PublicKey, error) {
	// bounded and regular: every hook reads it, and /dev/zero never ends
	b, err := readRegular(path, 64<<10)
	if err != nil {
		return nil, fmt.Errorf("read %s %s: %w", verifyKeyEnv, path, err)
	}
	fail := func(why string) error {
		return fmt.Errorf("%s %s: %s; expected an ed25519 public key in PEM (`openssl pkey -in private.pem -pubout -out %s`) or hex of its 32 bytes", verifyKeyEnv, path, why, path)
	}
	if blk, _ := pem.Decode(b); blk != nil {
		if blk.Type != "PUBLIC KEY" {
			return nil, fail(fmt.Sprintf("PEM block is %q, not \"PUBLIC KEY\"", blk.Type))
		}
		pub, err := parseEd25519PKIX(blk.Bytes)
		if err != nil {
			return nil, fail(err.Error())
		}
		return pub, nil
	}
	raw, err := hex.DecodeString(strings.TrimSpace(string(b)))
	if err != nil || len(raw) != ed25519.PublicKeySize {
		return nil, fail("neither PEM nor hex of 32 bytes")
	}
	return ed25519.PublicKey(raw), nil
}

// GenerateEd25519 writes a new key pair into dir: SignPrivFile (PEM PKCS#8,
// 0600) and SignPubFile (PEM PKIX, 0644). It refuses to overwrite either.
// Move the private key where the agent cannot read it and point
// AIRLOCK_SIGN_KEY at it; give verifiers the public key.
func GenerateEd25519(dir string) (privPath, pubPath string, err error) {
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return "", "", fmt.Errorf("generate ed25519 key: %w", err)
	}
	pk8, err := marshalEd25519PKCS8(priv)
	if err != nil {
		return "", "", fmt.Errorf("encode ed25519 private key: %w", err)
	}
	pkix, err := marshalEd25519PKIX(pub)
	if err != nil {
		return "", "", fmt.Errorf("encode ed25519 public key: %w", err)
	}
	privPath, pubPath = filepath.Join(dir, signPrivFile), filepath.Join(dir, signPubFile)
	if _, err := os.Lstat(pubPath); err == nil {
		return "", "", fmt.Errorf("%s already exists: remove it or choose another directory", pubPath)
	}
	made, err := createExclusive(privPath, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: pk8}), 0o600)
	if err == nil && !made {
		err = fmt.Errorf("%s already exists: remove it or choose another directory", privPath)
	}
	if err != nil {
		return "", "", fmt.Errorf("write private key: %w", err)
	}
	made, err = createExclusive(pubPath, pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: pkix}), 0o644)
	if err == nil && !made {
		err = fmt.Errorf("%s already exists", pubPath)
	}
	if err != nil {
		_ = os.Remove(privPath) // a private key without its public half is useless
		return "", "", fmt.Errorf("write public key: %w", err)
	}
	return privPath, pubPath, nil
}
