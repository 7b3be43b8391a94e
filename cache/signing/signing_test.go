package signing

import (
	"encoding/base64"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestKeyRoundTrip(t *testing.T) {
	k, err := Generate("fleet-1")
	if err != nil {
		t.Fatal(err)
	}
	msg := []byte("entry")
	sig := k.Sign(msg)
	pub, err := ParsePublicKey(k.Public().String())
	if err != nil {
		t.Fatal(err)
	}
	if pub.Name != "fleet-1" || !pub.Verify(msg, sig) {
		t.Fatalf("parsed public key %v does not verify its pair's signature", pub)
	}
	if pub.Verify([]byte("entrY"), sig) {
		t.Fatal("a signature verified another message")
	}
	priv, err := ParsePrivateKey(k.String())
	if err != nil {
		t.Fatal(err)
	}
	if !priv.Key.Equal(k.Key) || priv.Name != k.Name {
		t.Fatal("private key changed through its text form")
	}
	if got := pub.Fingerprint(); !strings.HasPrefix(got, "ed25519:") || len(got) != len("ed25519:")+16 {
		t.Fatalf("fingerprint %q", got)
	}
}

func TestBadKeyText(t *testing.T) {
	k, _ := Generate("a")
	priv := k.String()
	// A bit of the public half flipped in the bytes, not in the text,
	// where a flipped character may be no base64 at all.
	name, enc, _ := strings.Cut(priv, ":")
	raw, err := base64.StdEncoding.DecodeString(enc)
	if err != nil {
		t.Fatal(err)
	}
	raw[len(raw)-1] ^= 1 // inside the public half: no longer the seed's
	broken := name + ":" + base64.StdEncoding.EncodeToString(raw)
	for _, tc := range []struct{ text, want string }{
		{"nokey", "want name:base64"},
		{":AAAA", "want a name"},
		{"bad name:AAAA", "want letters"},
		{"a:!!!", "not standard base64"},
		{"a:AAAA", "want the 32 bytes"},
		{priv, "want the 32 bytes"},
	} {
		_, err := ParsePublicKey(tc.text)
		var ke *KeyError
		if !errors.As(err, &ke) || !errors.Is(err, ErrBadKey) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ParsePublicKey(%q) = %v, want a *KeyError saying %q", tc.text, err, tc.want)
		}
	}
	if _, err := ParsePrivateKey(k.Public().String()); err == nil || !strings.Contains(err.Error(), "64 bytes") {
		t.Errorf("a public key read as private: %v", err)
	}
	if _, err := ParsePrivateKey(broken); err == nil || !strings.Contains(err.Error(), "does not match") {
		t.Errorf("a private key with a foreign public half: %v", err)
	}
	// Errors never show a private key's bytes.
	_, err = ParsePrivateKey("x y" + priv[1:])
	if err == nil || strings.Contains(err.Error(), priv[len(priv)-20:]) {
		t.Errorf("error shows the key: %v", err)
	}
}

func TestKeyFiles(t *testing.T) {
	dir := t.TempDir()
	k, _ := Generate("writer")
	path := filepath.Join(dir, "writer.key")
	if err := WriteKeyPair(path, k); err != nil {
		t.Fatal(err)
	}
	if err := WriteKeyPair(path, k); err == nil {
		t.Fatal("WriteKeyPair replaced a key file")
	}
	got, err := ReadPrivateKey(path)
	if err != nil || !got.Key.Equal(k.Key) {
		t.Fatalf("ReadPrivateKey: %v", err)
	}
	pubs, err := ReadPublicKeys(path + ".pub")
	if err != nil || len(pubs) != 1 || !pubs[0].Key.Equal(k.Public().Key) {
		t.Fatalf("ReadPublicKeys: %v %v", pubs, err)
	}

	// Modes: a private key others can read, a public key others can write.
	if err := os.Chmod(path, 0o640); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadPrivateKey(path); err == nil || !strings.Contains(err.Error(), "group or others may read") {
		t.Errorf("a private key of mode 0640 was read: %v", err)
	}
	if err := os.Chmod(path+".pub", 0o666); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadPublicKeys(path + ".pub"); err == nil || !strings.Contains(err.Error(), "group or others may write") {
		t.Errorf("a public key file of mode 0666 was read: %v", err)
	}
	if _, err := ReadPrivateKey(dir); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("a directory read as a key: %v", err)
	}
	if _, err := ReadPrivateKey(filepath.Join(dir, "none")); !errors.Is(err, ErrBadKey) {
		t.Errorf("a missing file: %v", err)
	}
}

func TestParseTrusted(t *testing.T) {
	dir := t.TempDir()
	a, _ := Generate("a")
	b, _ := Generate("b")
	c, _ := Generate("c")
	file := filepath.Join(dir, "trusted.pub")
	text := "# the fleet's keys\n" + b.Public().String() + "\n\n" + c.Public().String() + " # rotated in\n"
	if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	keys, err := ParseTrusted(a.Public().String() + ", " + file)
	if err != nil {
		t.Fatal(err)
	}
	if len(keys) != 3 || keys[0].Name != "a" || keys[1].Name != "b" || keys[2].Name != "c" {
		t.Fatalf("ParseTrusted = %v", keys)
	}
	if _, err := ParseTrusted("a:AAAA"); !errors.Is(err, ErrBadKey) {
		t.Errorf("a short key was trusted: %v", err)
	}
	bad := filepath.Join(dir, "bad.pub")
	if err := os.WriteFile(bad, []byte(a.Public().String()+"\nnot a key\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ParseTrusted(bad); err == nil || !strings.Contains(err.Error(), "bad.pub:2") {
		t.Errorf("a bad line is not named: %v", err)
	}
	empty := filepath.Join(dir, "empty.pub")
	if err := os.WriteFile(empty, []byte("# nothing\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ParseTrusted(empty); err == nil || !strings.Contains(err.Error(), "holds no key") {
		t.Errorf("an empty key file: %v", err)
	}
}
