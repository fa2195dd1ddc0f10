package audit

import (
	"bytes"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

const (
	maskTestToken = "ghp_gNSWPH8prVqsUeQCtDR3zzX6hqo35uwZqxZO"
	maskTestPass  = "hunter2-Pa55"
)

// secretRecord carries secrets in every text field a caller fills.
func secretRecord() Record {
	return Record{
		Event:      "decision",
		Source:     "hook",
		Session:    "s-" + maskTestToken,
		Tool:       "mcp__gh__" + maskTestToken,
		Decision:   "allow",
		Effective:  "allow",
		Rule:       "grants.net",
		Reason:     "matches grant net for https://ci:" + maskTestPass + "@build.internal/",
		Target:     `curl -H "Authorization: Bearer ` + maskTestToken + `" https://api.github.com/user`,
		Detail:     "payload_digests=sha256:00112233445566778899aabbccddeeff; key AKIAEXDGE3HDKEATCIYJ",
		Mode:       "guard",
		Asked:      "human " + maskTestToken,
		ArgsDigest: ArgsDigest([]byte(`{"command":"x"}`)),
	}
}

// TestAppendMasksSecrets: a secret in any text field of a record never
// reaches audit.jsonl; the chain is computed over the masked text (verify
// says intact); the digest and chain fields are left alone; the caller's
// record keeps what it held.
func TestAppendMasksSecrets(t *testing.T) {
	home := filepath.Join(t.TempDir(), "airlock")
	l, err := Open(home)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	in := []Record{testRecord(1), secretRecord(), testRecord(2)}
	orig := append([]Record(nil), in...)
	out, err := l.AppendAll(in)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(in, orig) {
		t.Errorf("AppendAll changed the caller's records")
	}
	log := bytes.Join(readLines(t, home), []byte{'\n'})
	for _, leak := range []string{maskTestToken, maskTestPass, "AKIAEXDGE3HDKEATCIYJ"} {
		if bytes.Contains(log, []byte(leak)) {
			t.Errorf("audit.jsonl holds %q:\n%s", leak, log)
		}
	}
	w := out[1]
	for name, f := range map[string]string{"session": w.Session, "tool": w.Tool, "target": w.Target, "asked": w.Asked} {
		if !strings.Contains(f, "[masked github-token sha256:") {
			t.Errorf("%s not masked: %q", name, f)
		}
	}
	if !strings.Contains(w.Reason, "https://ci:[masked url-password]@build.internal/") {
		t.Errorf("reason: %q", w.Reason)
	}
	if !strings.Contains(w.Detail, "[masked aws-access-key-id") || !strings.HasPrefix(w.Detail, "payload_digests=sha256:00112233445566778899aabbccddeeff;") {
		t.Errorf("detail: %q", w.Detail)
	}
	if w.ArgsDigest != orig[1].ArgsDigest {
		t.Errorf("args_digest changed: %q", w.ArgsDigest)
	}
	// the records without a secret are written as they were
	if out[0].Target != orig[0].Target || out[2].Reason != orig[2].Reason {
		t.Errorf("a clean record changed: %+v", out[0])
	}
	// the chain is over the masked text
	requireIntact(t, mustVerify(t, home), 4)
	if !bytes.Contains(log, []byte(`"h":"`+w.H+`"`)) {
		t.Errorf("the returned record's h is not the one written")
	}
}

// TestMaskRecordsCleanAllocatesNothing: the common case (no secret) costs
// the prefilter only and hands back the caller's slice.
func TestMaskRecordsCleanAllocatesNothing(t *testing.T) {
	rs := []Record{testRecord(1), testRecord(2)}
	if got := maskRecords(rs); &got[0] != &rs[0] {
		t.Errorf("clean records were copied")
	}
	if n := testing.AllocsPerRun(100, func() { maskRecords(rs) }); n != 0 {
		t.Errorf("masking clean records allocates %v times", n)
	}
}

// BenchmarkMaskRecord: the cost Append adds per record, with no secret and
// with a token in the target.
func BenchmarkMaskRecord(b *testing.B) {
	clean := testRecord(1)
	clean.Target = "go test ./... && git status --short && git log --oneline -5"
	clean.Reason = "matches grant build: go toolchain in the workspace"
	withSecret := clean
	withSecret.Target = `curl -sS -H "Authorization: Bearer ` + maskTestToken + `" https://api.github.com/user`
	for _, c := range []struct {
		name string
		r    Record
	}{{"clean", clean}, {"secret", withSecret}} {
		b.Run(c.name, func(b *testing.B) {
			maskRecord(c.r) // compile the table outside the timing
			b.ReportAllocs()
			for b.Loop() {
				maskRecord(c.r)
			}
		})
	}
}

// TestSignedAppendMasksSecrets: under AIRLOCK_SIGN=hmac the signature
// covers the masked record, and the log verifies.
func TestSignedAppendMasksSecrets(t *testing.T) {
	home := filepath.Join(t.TempDir(), "airlock")
	env := signEnv(SignEnv, signModeHMAC)
	l, err := OpenWith(home, Options{Getenv: env})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	w, err := l.Append(secretRecord())
	if err != nil {
		t.Fatal(err)
	}
	if w.Sig == "" || strings.Contains(w.Target, maskTestToken) {
		t.Fatalf("want a signed, masked record, got %+v", w)
	}
	rep, err := VerifyWith(home, VerifyOptions{Getenv: env})
	if err != nil {
		t.Fatal(err)
	}
	requireIntact(t, rep, 3) // audit_start, sign_start, the record
}
