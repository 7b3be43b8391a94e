package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// gokernel -check passes on the test kernels' generated file, finds a
// stale one, and a kernel outside the subset is refused with its place,
// nothing written.
func TestGenerateAndCheck(t *testing.T) {
	src := filepath.Join("..", "..", "gokernel", "internal", "testkernels")
	var out, errOut bytes.Buffer
	if code := run([]string{"-check", "-var", "Module", "-o", filepath.Join(src, "zz_kernels.go"), filepath.Join(src, "kernels.go")}, &out, &errOut); code != 0 {
		t.Fatalf("-check of the committed file: exit %d: %s", code, errOut.String())
	}
	if code := run([]string{"-check", "-var", "Subgroups", "-o", filepath.Join(src, "zz_subgroups.go"), filepath.Join(src, "subgroups.go")}, &out, &errOut); code != 0 {
		t.Fatalf("-check of the committed subgroup kernels: exit %d: %s", code, errOut.String())
	}
	dir := t.TempDir()
	kernels, err := os.ReadFile(filepath.Join(src, "kernels.go"))
	if err != nil {
		t.Fatal(err)
	}
	in, gen := filepath.Join(dir, "kernels.go"), filepath.Join(dir, "zz_kernels.go")
	if err := os.WriteFile(in, kernels, 0o600); err != nil {
		t.Fatal(err)
	}
	if code := run([]string{"-o", gen, in}, &out, &errOut); code != 0 {
		t.Fatalf("generate: exit %d: %s", code, errOut.String())
	}
	if err := os.WriteFile(in, append(kernels, "\n// an edit\n"...), 0o600); err != nil {
		t.Fatal(err)
	}
	errOut.Reset()
	if code := run([]string{"-check", "-o", gen, in}, &out, &errOut); code != 1 || !strings.Contains(errOut.String(), "stale") {
		t.Errorf("-check after an edit: exit %d: %s", code, errOut.String())
	}
	bad := filepath.Join(dir, "bad.go")
	os.WriteFile(bad, []byte("package k\n\nimport \"github.com/gour-dev/gour/gokernel/kern\"\n\nfunc K(it kern.Item, x []float32) {\n\tgo func() {}()\n}\n"), 0o600)
	errOut.Reset()
	badOut := filepath.Join(dir, "bad_gen.go")
	if code := run([]string{"-o", badOut, bad}, &out, &errOut); code != 1 || !strings.Contains(errOut.String(), "bad.go:6:") {
		t.Errorf("a goroutine in a kernel: exit %d: %s", code, errOut.String())
	}
	if _, err := os.Stat(badOut); !os.IsNotExist(err) {
		t.Errorf("a refused kernel wrote %s", badOut)
	}
	if code := run(nil, &out, &errOut); code != 2 {
		t.Errorf("no files: exit %d, want 2", code)
	}
}
