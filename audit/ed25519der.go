package audit

import (
	"crypto/ed25519"
	"encoding/asn1"
	"errors"
	"fmt"
)

// The ed25519 key encodings of RFC 8410, read and written here rather than
// with crypto/x509: x509 links the RSA, ECDSA, P-curve and DNS code and
// their package initialisation into every hook process, which signs with
// ed25519 at most (issue 16). The structures and checks are x509's
// (ParsePKCS8PrivateKey, ParsePKIXPublicKey and the Marshal functions,
// ed25519 case); ed25519der_test.go holds the two to the same bytes and
// the same answers.

var oidEd25519 = asn1.ObjectIdentifier{1, 3, 101, 112}

// keyAlgorithms names the other algorithms a PEM key file may hold, as
// the key type x509 would have returned.
var keyAlgorithms = []struct {
	oid  asn1.ObjectIdentifier
	name string
}{
	{asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 1, 1}, "*rsa"},
	{asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 1, 10}, "*rsa"},
	{asn1.ObjectIdentifier{1, 2, 840, 10045, 2, 1}, "*ecdsa"},
	{asn1.ObjectIdentifier{1, 3, 101, 110}, "*ecdh"},
	{asn1.ObjectIdentifier{1, 2, 840, 10040, 4, 1}, "*dsa"},
}

// otherKey is the error for a key of another algorithm: "it is a
// *rsa.PrivateKey key", as the %T of x509's answer read.
func otherKey(oid asn1.ObjectIdentifier, half string) error {
	for _, a := range keyAlgorithms {
		if a.oid.Equal(oid) {
			return fmt.Errorf("it is a %s.%s key", a.name, half)
		}
	}
	return fmt.Errorf("it is a key of algorithm %s, not ed25519", oid)
}

type algorithmIdentifier struct {
	Algorithm  asn1.ObjectIdentifier
	Parameters asn1.RawValue `asn1:"optional"`
}

type pkcs8Key struct {
	Version    int
	Algo       algorithmIdentifier
	PrivateKey []byte
	// optional attributes omitted (x509 ignores them too)
}

type pkixKey struct {
	Algorithm algorithmIdentifier
	PublicKey asn1.BitString
}

// parseEd25519PKCS8 reads a PKCS#8 DER private key that must be ed25519.
func parseEd25519PKCS8(der []byte) (ed25519.PrivateKey, error) {
	var k pkcs8Key
	if _, err := asn1.Unmarshal(der, &k); err != nil {
		return nil, err
	}
	if !k.Algo.Algorithm.Equal(oidEd25519) {
		return nil, otherKey(k.Algo.Algorithm, "PrivateKey")
	}
	if len(k.Algo.Parameters.FullBytes) != 0 {
		return nil, errors.New("x509: invalid Ed25519 private key parameters")
	}
	var seed []byte
	if _, err := asn1.Unmarshal(k.PrivateKey, &seed); err != nil {
		return nil, fmt.Errorf("x509: invalid Ed25519 private key: %v", err)
	}
	if len(seed) != ed25519.SeedSize {
		return nil, fmt.Errorf("x509: invalid Ed25519 private key length: %d", len(seed))
	}
	return ed25519.NewKeyFromSeed(seed), nil
}

// parseEd25519PKIX reads a PKIX DER public key that must be ed25519.
func parseEd25519PKIX(der []byte) (ed25519.PublicKey, error) {
	var k pkixKey
	rest, err := asn1.Unmarshal(der, &k)
	switch {
	case err != nil:
		return nil, err
	case len(rest) != 0:
		return nil, errors.New("x509: trailing data after ASN.1 of public-key")
	case !k.Algorithm.Algorithm.Equal(oidEd25519):
		return nil, otherKey(k.Algorithm.Algorithm, "PublicKey")
	case len(k.Algorithm.Parameters.FullBytes) != 0:
		return nil, errors.New("x509: Ed25519 key encoded with illegal parameters")
	}
	b := k.PublicKey.RightAlign()
	if len(b) != ed25519.PublicKeySize {
		return nil, errors.New("x509: wrong Ed25519 public key size")
	}
	return ed25519.PublicKey(b), nil
}

// marshalEd25519PKCS8 is x509.MarshalPKCS8PrivateKey of an ed25519 key.
func marshalEd25519PKCS8(priv ed25519.PrivateKey) ([]byte, error) {
	seed, err := asn1.Marshal(priv.Seed())
	if err != nil {
		return nil, err
	}
	return asn1.Marshal(pkcs8Key{Algo: algorithmIdentifier{Algorithm: oidEd25519}, PrivateKey: seed})
}

// marshalEd25519PKIX is x509.MarshalPKIXPublicKey of an ed25519 key.
func marshalEd25519PKIX(pub ed25519.PublicKey) ([]byte, error) {
	return asn1.Marshal(pkixKey{Algorithm: algorithmIdentifier{Algorithm: oidEd25519},
		PublicKey: asn1.BitString{Bytes: pub, BitLength: 8 * len(pub)}})
}
