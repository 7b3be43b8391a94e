package signing

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"

	"github.com/gour-dev/gour/internal/fileowner"
)

// The most a key file may hold: a list of trusted keys is a few lines.
const maxKeyFile = 64 << 10

// ReadPrivateKey reads the private key in the file at path, refusing a
// file that is not this user's or that group or others can read or write.
func ReadPrivateKey(path string) (*PrivateKey, error) {
	b, err := readKeyFile(path, true)
	if err != nil {
		return nil, err
	}
	k, err := ParsePrivateKey(string(bytes.TrimSpace(b)))
	if err != nil {
		var ke *KeyError
		if errors.As(err, &ke) {
			ke.Where = path
		}
		return nil, err
	}
	return k, nil
}

// ReadPublicKeys reads the public keys in the file at path, one a line
// ('#' starts a comment), refusing a file that is neither this user's nor
// root's, or that group or others can write.
func ReadPublicKeys(path string) ([]PublicKey, error) {
	b, err := readKeyFile(path, false)
	if err != nil {
		return nil, err
	}
	var keys []PublicKey
	sc := bufio.NewScanner(bytes.NewReader(b))
	for n := 1; sc.Scan(); n++ {
		line, _, _ := strings.Cut(sc.Text(), "#")
		if line = strings.TrimSpace(line); line == "" {
			continue
		}
		k, err := ParsePublicKey(line)
		if err != nil {
			var ke *KeyError
			if errors.As(err, &ke) {
				return nil, &KeyError{Where: fmt.Sprintf("%s:%d", path, n), Why: ke.Why}
			}
			return nil, err
		}
		keys = append(keys, k)
	}
	if len(keys) == 0 {
		return nil, &KeyError{Where: path, Why: "holds no key"}
	}
	return keys, nil
}

// ParseTrusted reads a list of trusted keys: items separated by commas or
// white space, each a public key's text form or the path of a file of
// them (ReadPublicKeys).
func ParseTrusted(list string) ([]PublicKey, error) {
	var keys []PublicKey
	for _, item := range strings.FieldsFunc(list, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' || r == '\n' }) {
		if !isPath(item) {
			k, err := ParsePublicKey(item)
			if err != nil {
				return nil, err
			}
			keys = append(keys, k)
			continue
		}
		ks, err := ReadPublicKeys(item)
		if err != nil {
			return nil, err
		}
		keys = append(keys, ks...)
	}
	return keys, nil
}

// isPath tells a file's path from a key: a key has a colon, and a path
// that has one too starts with / or ./ (or ../).
func isPath(s string) bool {
	return !strings.Contains(s, ":") || strings.HasPrefix(s, "/") || strings.HasPrefix(s, "./") || strings.HasPrefix(s, "../")
}

// WriteKeyPair writes k to path (mode 0600) and its public key to
// path+".pub" (mode 0644); it refuses to replace either file.
func WriteKeyPair(path string, k *PrivateKey) error {
	if err := writeNew(path, k.String()+"\n", 0o600); err != nil {
		return err
	}
	if err := writeNew(path+".pub", k.Public().String()+"\n", 0o644); err != nil {
		os.Remove(path)
		return err
	}
	return nil
}

func writeNew(path, text string, perm fs.FileMode) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return err
	}
	_, err = f.WriteString(text)
	if serr := f.Sync(); err == nil {
		err = serr
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(path)
	}
	return err
}

// readKeyFile reads a key file after checking who may have written (and,
// for a private key, read) it.
func readKeyFile(path string, private bool) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, &KeyError{Where: path, Why: err.Error()}
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, &KeyError{Where: path, Why: err.Error()}
	}
	if why := unsafeFile(fi, private); why != "" {
		return nil, &KeyError{Where: path, Why: why}
	}
	b, err := io.ReadAll(io.LimitReader(f, maxKeyFile+1))
	if err != nil {
		return nil, &KeyError{Where: path, Why: err.Error()}
	}
	if len(b) > maxKeyFile {
		return nil, &KeyError{Where: path, Why: fmt.Sprintf("larger than %d bytes: not a key file", maxKeyFile)}
	}
	return b, nil
}

// unsafeFile says why a key file cannot be trusted ("" if it can).
func unsafeFile(fi fs.FileInfo, private bool) string {
	if !fi.Mode().IsRegular() {
		return "not a regular file"
	}
	uid, known := fileowner.Of(fi)
	me := fileowner.Me()
	perm := fi.Mode().Perm()
	switch {
	case private && known && uid != me:
		return fmt.Sprintf("owned by user %d, not by this user (%d)", uid, me)
	case private && perm&0o077 != 0:
		return fmt.Sprintf("mode %04o: group or others may read it; want 0600 (chmod 600)", perm)
	case !private && known && uid != me && uid != 0:
		return fmt.Sprintf("owned by user %d, neither this user (%d) nor root", uid, me)
	case !private && perm&0o022 != 0:
		return fmt.Sprintf("mode %04o: group or others may write it; want 0644 or stricter", perm)
	}
	return ""
}
