package ask

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/agentairlock/airlock/internal/atomicfile"
	"github.com/agentairlock/airlock/internal/regular"
)

// A question on askd's screen is a person's approval waiting to happen, so
// askd shows only questions that prove they came from an Airlock process of
// this user: each carries an HMAC-SHA256, under a per-home key, over the
// question's exact bytes and a challenge askd chose for that connection
// (a question recorded on one connection is worth nothing on the next).
// askd proves itself the same way before it is told anything, and MACs its
// answer, so a process that took askd's name cannot read questions or
// answer them.
//
// The key is askd.key in the Airlock home, 0600, made on first use. The
// home is a built-in forbid (gate.airlock-home): the gate refuses a call
// that reads it and the kernel sandbox leaves it out of every grant, so a
// sandboxed process cannot read the key.

// keyName is the per-home key's file in the Airlock home.
const keyName = "askd.key"

const keySize = 32

// KeyPath is the file holding the per-home key that MACs askd's questions.
func KeyPath(home string) string { return filepath.Join(home, keyName) }

// loadKey reads the home's key, making it first when there is none.
func loadKey(home string) ([]byte, error) {
	path := KeyPath(home)
	key, err := readKey(path)
	if errors.Is(err, fs.ErrNotExist) {
		fresh := make([]byte, keySize)
		if _, err := rand.Read(fresh); err != nil {
			return nil, fmt.Errorf("make %s: %w", path, err)
		}
		// Create never replaces: when another process made the key first,
		// its key is the one read below
		if err := atomicfile.Create(path, fresh, 0o600); err != nil && !errors.Is(err, fs.ErrExist) {
			return nil, fmt.Errorf("make %s: %w", path, err)
		}
		key, err = readKey(path)
	}
	return key, err
}

func readKey(path string) ([]byte, error) {
	f, err := regular.OpenState(path, os.O_RDONLY, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	// a key someone else can read proves nothing
	if st.Mode().Perm()&0o077 != 0 {
		return nil, fmt.Errorf("%s is readable by others (mode %04o): remove it, airlock askd makes a new one", path, st.Mode().Perm())
	}
	key, err := regular.ReadAll(f, keySize+1)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if len(key) != keySize {
		return nil, fmt.Errorf("%s holds %d bytes, not a key of %d: remove it, airlock askd makes a new one", path, len(key), keySize)
	}
	return key, nil
}

// Labels keep each MAC to its own step: a hello's proof is never a
// question's or an answer's.
const (
	macHello    = "airlock askd hello v2"
	macQuestion = "airlock askd question v2"
	macAnswer   = "airlock askd answer v2"
)

// sum is the hex HMAC-SHA256 of label and parts, each part length-prefixed
// so no two different lists of parts give the same input.
func sum(key []byte, label string, parts ...[]byte) string {
	m := hmac.New(sha256.New, key)
	var n [8]byte
	for _, p := range append([][]byte{[]byte(label)}, parts...) {
		binary.BigEndian.PutUint64(n[:], uint64(len(p)))
		m.Write(n[:])
		m.Write(p)
	}
	return hex.EncodeToString(m.Sum(nil))
}

// verify says whether got is the MAC of label and parts, in constant time.
func verify(key []byte, got, label string, parts ...[]byte) bool {
	return got != "" && hmac.Equal([]byte(got), []byte(sum(key, label, parts...)))
}

// nonce is 16 random bytes, hex.
func nonce() (string, error) {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("random nonce: %w", err)
	}
	return hex.EncodeToString(b), nil
}
