package opencl

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// poclBinary is the head of a PoCL 3.1 binary whose build directory is
// name: the magic, device id, version, kernel count and flags (32
// bytes), then the directory's name in a 41-byte field, then a body.
func poclBinary(name string) []byte {
	b := []byte(poclBinaryMagic)
	b = append(b, make([]byte, 24)...)
	field := make([]byte, 41)
	copy(field, name)
	b = append(b, field...)
	return append(b, "program.bc and the kernels' files"...)
}

func TestPoclOwnBuildDirs(t *testing.T) {
	root := t.TempDir()
	t.Setenv("POCL_CACHE_DIR", root)
	uncached := poclBinary("_UNCACHED_ab12CD")
	hashed := poclBinary("AB/CDEFGHIJKLMNOPABCDEFGHIJKLMNOPABCDEFG") // kernel cache on
	other := []byte("\x7fELF not a PoCL binary at all, _UNCACHED_ab12CD\x00")
	in := [][]byte{uncached, hashed, other, uncached}
	keep := make([][]byte, len(in))
	for i, b := range in {
		keep[i] = bytes.Clone(b)
	}

	out, made := poclOwnBuildDirs(in)
	for i := range in {
		if !bytes.Equal(in[i], keep[i]) {
			t.Fatalf("binary %d was changed in place", i)
		}
	}
	if len(made) != 2 {
		t.Fatalf("made %d directories, want 2 (one per uncached binary): %v", len(made), made)
	}
	if !bytes.Equal(out[1], hashed) || !bytes.Equal(out[2], other) {
		t.Errorf("a binary that names no uncached directory was changed")
	}
	var names []string
	for i, j := range []int{0, 3} {
		b := out[j]
		if len(b) != len(uncached) {
			t.Fatalf("binary %d: length %d, want %d", j, len(b), len(uncached))
		}
		at := poclUncachedName(b)
		if at < 0 {
			t.Fatalf("binary %d names no uncached directory after the rewrite", j)
		}
		name := string(b[at-len(poclUncached) : at+poclTempLen])
		if want := filepath.Join(root, name); made[i] != want {
			t.Errorf("binary %d names %s, the directory made is %s", j, want, made[i])
		}
		if st, err := os.Stat(made[i]); err != nil || !st.IsDir() {
			t.Errorf("directory %s: %v", made[i], err)
		}
		if !bytes.Equal(b[:at], uncached[:at]) || !bytes.Equal(b[at+poclTempLen:], uncached[at+poclTempLen:]) {
			t.Errorf("binary %d: bytes other than the directory's name changed", j)
		}
		names = append(names, name)
	}
	if names[0] == names[1] || strings.HasSuffix(names[0], "ab12CD") {
		t.Errorf("the directories are not new and distinct: %v", names)
	}
}

func TestPoclUncachedNameRefusesLookalikes(t *testing.T) {
	for _, tc := range []struct {
		what string
		bin  []byte
	}{
		{"empty", nil},
		{"magic only", []byte(poclBinaryMagic)},
		{"name cut short", []byte(poclBinaryMagic + "_UNCACHED_ab")},
		{"name not ended by NUL", append([]byte(poclBinaryMagic+"_UNCACHED_ab12CDx"), 0)},
		{"name with a slash", append([]byte(poclBinaryMagic+"_UNCACHED_ab/2CD"), 0)},
	} {
		if at := poclUncachedName(tc.bin); at >= 0 {
			t.Errorf("%s: found a name at %d", tc.what, at)
		}
	}
	if at := poclUncachedName(poclBinary("_UNCACHED_ab12CD")); at != len(poclBinaryMagic)+24+len(poclUncached) {
		t.Errorf("a PoCL 3.1 header: name at %d", at)
	}
}
