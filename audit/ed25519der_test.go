package audit

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"strings"
	"testing"
)

// The hand-written ed25519 encodings are x509's, byte for byte, and read
// what x509 reads: an ed25519 key in, the same key out; any other key or a
// malformed one refused.
func TestEd25519DERIsX509s(t *testing.T) {
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	want8, err := x509.MarshalPKCS8PrivateKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	got8, err := marshalEd25519PKCS8(priv)
	if err != nil || !bytes.Equal(got8, want8) {
		t.Fatalf("PKCS#8: %x, %v; x509 writes %x", got8, err, want8)
	}
	wantPKIX, err := x509.MarshalPKIXPublicKey(pub)
	if err != nil {
		t.Fatal(err)
	}
	gotPKIX, err := marshalEd25519PKIX(pub)
	if err != nil || !bytes.Equal(gotPKIX, wantPKIX) {
		t.Fatalf("PKIX: %x, %v; x509 writes %x", gotPKIX, err, wantPKIX)
	}
	if k, err := parseEd25519PKCS8(want8); err != nil || !k.Equal(priv) {
		t.Fatalf("PKCS#8 read back: %v", err)
	}
	if k, err := parseEd25519PKIX(wantPKIX); err != nil || !k.Equal(pub) {
		t.Fatalf("PKIX read back: %v", err)
	}

	rk, err := rsa.GenerateKey(rand.Reader, 1024)
	if err != nil {
		t.Fatal(err)
	}
	ek, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		key  any
		pub  any
		want string
	}{
		{"rsa", rk, &rk.PublicKey, "*rsa."},
		{"ecdsa", ek, &ek.PublicKey, "*ecdsa."},
	} {
		der, err := x509.MarshalPKCS8PrivateKey(c.key)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := parseEd25519PKCS8(der); err == nil || !strings.Contains(err.Error(), c.want+"PrivateKey") {
			t.Errorf("%s private key: %v, want a refusal naming %sPrivateKey", c.name, err, c.want)
		}
		der, err = x509.MarshalPKIXPublicKey(c.pub)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := parseEd25519PKIX(der); err == nil || !strings.Contains(err.Error(), c.want+"PublicKey") {
			t.Errorf("%s public key: %v, want a refusal naming %sPublicKey", c.name, err, c.want)
		}
	}

	// malformed: truncated, trailing bytes, a wrong seed or key length
	bad := map[string][]byte{
		"truncated PKCS#8": want8[:len(want8)-1],
		"truncated PKIX":   wantPKIX[:len(wantPKIX)-1],
		"PKIX trailing":    append(append([]byte(nil), wantPKIX...), 0),
		"garbage":          []byte("not DER at all"),
	}
	short8 := append([]byte(nil), want8...)
	short8[1], short8[13], short8[15] = 0x2d, 0x21, 0x1f // a 31-byte seed
	bad["short seed"] = short8[:len(short8)-1]
	shortPKIX := append([]byte(nil), wantPKIX...)
	shortPKIX[1], shortPKIX[10] = 0x29, 0x20 // a 31-byte key
	bad["short key"] = shortPKIX[:len(shortPKIX)-1]
	for name, der := range bad {
		_, xerr := x509.ParsePKCS8PrivateKey(der)
		_, err := parseEd25519PKCS8(der)
		if err == nil || xerr == nil {
			t.Errorf("%s as PKCS#8: %v (x509: %v), want both refused", name, err, xerr)
		}
		_, xerr = x509.ParsePKIXPublicKey(der)
		_, err = parseEd25519PKIX(der)
		if err == nil || xerr == nil {
			t.Errorf("%s as PKIX: %v (x509: %v), want both refused", name, err, xerr)
		}
	}
}
