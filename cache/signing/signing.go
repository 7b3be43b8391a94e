package signing

import (
	"crypto/ed25519"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
)

// PublicKey is a named ed25519 public key, one a reader may trust.
type PublicKey struct {
	Name string
	Key  ed25519.PublicKey
}

// PrivateKey is a named ed25519 private key, the one a writer signs with.
type PrivateKey struct {
	Name string
	Key  ed25519.PrivateKey
}

// ErrBadKey is wrapped by every *KeyError.
var ErrBadKey = errors.New("signing: bad key")

// KeyError is a key that cannot be used: malformed text, or a file that
// is not safe to trust. Where names the file or, for text given
// directly, a shortened form of it.
type KeyError struct {
	Where string
	Why   string
}

func (e *KeyError) Error() string { return fmt.Sprintf("signing: key %s: %s", e.Where, e.Why) }

func (e *KeyError) Unwrap() error { return ErrBadKey }

// Generate makes a key pair named name.
func Generate(name string) (*PrivateKey, error) {
	if why := checkName(name); why != "" {
		return nil, &KeyError{Where: fmt.Sprintf("name %q", name), Why: why}
	}
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return nil, err
	}
	return &PrivateKey{Name: name, Key: priv}, nil
}

// Public returns the public half of k.
func (k *PrivateKey) Public() PublicKey {
	return PublicKey{Name: k.Name, Key: k.Key.Public().(ed25519.PublicKey)}
}

// Sign signs message.
func (k *PrivateKey) Sign(message []byte) []byte { return ed25519.Sign(k.Key, message) }

// String is the private key's text form: keep it secret.
func (k *PrivateKey) String() string { return k.Name + ":" + base64.StdEncoding.EncodeToString(k.Key) }

// String is the public key's text form, what a reader lists among the
// keys it trusts.
func (k PublicKey) String() string { return k.Name + ":" + base64.StdEncoding.EncodeToString(k.Key) }

// Fingerprint is a short form of the key bytes alone, for listings of
// values signed by a key nobody named: "ed25519:" and the first 16 hex
// digits of their SHA-256.
func (k PublicKey) Fingerprint() string { return Fingerprint(k.Key) }

// Fingerprint is PublicKey.Fingerprint of raw key bytes.
func Fingerprint(key []byte) string {
	sum := sha256.Sum256(key)
	return fmt.Sprintf("ed25519:%x", sum[:8])
}

// Verify reports whether sig is k's signature of message.
func (k PublicKey) Verify(message, sig []byte) bool {
	return len(k.Key) == ed25519.PublicKeySize && len(sig) == ed25519.SignatureSize && ed25519.Verify(k.Key, message, sig)
}

// ParsePublicKey reads a public key's text form, name:base64.
func ParsePublicKey(s string) (PublicKey, error) {
	name, key, err := parse(s, ed25519.PublicKeySize)
	if err != nil {
		return PublicKey{}, err
	}
	return PublicKey{Name: name, Key: ed25519.PublicKey(key)}, nil
}

// ParsePrivateKey reads a private key's text form, name:base64.
func ParsePrivateKey(s string) (*PrivateKey, error) {
	name, key, err := parse(s, ed25519.PrivateKeySize)
	if err != nil {
		return nil, err
	}
	priv := ed25519.PrivateKey(key)
	// The last 32 bytes are the public key: a pair that does not hold
	// together would sign values no one can verify.
	if !priv.Public().(ed25519.PublicKey).Equal(ed25519.NewKeyFromSeed(priv.Seed()).Public()) {
		return nil, &KeyError{Where: shorten(s), Why: "not an ed25519 private key: its public half does not match its seed"}
	}
	return &PrivateKey{Name: name, Key: priv}, nil
}

func parse(s string, size int) (string, []byte, error) {
	s = strings.TrimSpace(s)
	name, enc, ok := strings.Cut(s, ":")
	if !ok {
		return "", nil, &KeyError{Where: shorten(s), Why: "want name:base64"}
	}
	if why := checkName(name); why != "" {
		return "", nil, &KeyError{Where: shorten(s), Why: why}
	}
	key, err := base64.StdEncoding.DecodeString(enc)
	if err != nil {
		return "", nil, &KeyError{Where: shorten(s), Why: "the key is not standard base64"}
	}
	if len(key) != size {
		what := "public"
		if size == ed25519.PrivateKeySize {
			what = "private"
		}
		return "", nil, &KeyError{Where: shorten(s), Why: fmt.Sprintf("want the %d bytes of an ed25519 %s key, have %d", size, what, len(key))}
	}
	return name, key, nil
}

// checkName says why name cannot name a key ("" if it can): names go
// into logs and listings, so they are short and plain.
func checkName(name string) string {
	if name == "" || len(name) > 64 {
		return "want a name of 1 to 64 characters"
	}
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.') {
			return fmt.Sprintf("name %q: want letters, digits, '-', '_' and '.' only", name)
		}
	}
	return ""
}

// shorten keeps what errors say of a key's text short, and never shows
// more than its start: the text may be a private key.
func shorten(s string) string {
	if name, _, ok := strings.Cut(s, ":"); ok && checkName(name) == "" {
		return fmt.Sprintf("%q", name+":…")
	}
	return fmt.Sprintf("(text of %d bytes)", len(s))
}
