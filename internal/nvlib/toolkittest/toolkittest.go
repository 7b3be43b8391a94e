// Package toolkittest builds stand-ins for the CUDA toolkit's libraries
// from C sources, so that the bindings' calls run through internal/dl on
// a machine without a toolkit.
package toolkittest

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/gour-dev/gour/internal/nvlib"
)

// StandIn compiles the C file src into a shared library called soname in
// a temporary directory and returns a Library that names only that file,
// for the binding's loader. It skips the test where there is no C
// compiler and fails it where the source does not build.
func StandIn(t testing.TB, src, soname string) nvlib.Library {
	t.Helper()
	cc, err := exec.LookPath("cc")
	if err != nil {
		t.Skip("no C compiler to build the stand-in library")
	}
	if _, err := os.Stat(src); err != nil {
		t.Fatalf("stand-in library source: %v (run a test binary from its package's directory)", err)
	}
	so := filepath.Join(t.TempDir(), soname)
	if out, err := exec.Command(cc, "-shared", "-fPIC", "-o", so, src).CombinedOutput(); err != nil {
		t.Fatalf("building the stand-in library %s: %v\n%s", src, err, out)
	}
	return nvlib.Library{Name: "stand-in " + soname, Base: so}
}
