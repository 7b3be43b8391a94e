package compute

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/gour-dev/gour/internal/harness/testenv"
)

// cudaSyntaxShim declares what the CUDA C of the package's built-in
// programs takes from CUDA, so that a host C++ compiler can check the
// generated source where there is no NVRTC: the kernels are not run.
const cudaSyntaxShim = `#include <cstddef>
struct gx_dim { unsigned x, y, z; };
static gx_dim blockIdx, blockDim, threadIdx, gridDim;
#define __global__
#define __device__
#define __forceinline__ inline
#define __shared__
#define __align__(n) alignas(n)
static inline void __syncthreads() {}
`

// TestBuiltinCUDASyntax compiles the CUDA C of every element type's
// built-in program (fill, copy, expand, the reductions and their
// four-a-load first passes) with the host's C++ compiler, syntax only,
// through cudaSyntaxShim: a generator's slip (a template argument, a
// missing cast) fails here and not first on a GPU machine.
func TestBuiltinCUDASyntax(t *testing.T) {
	cxx := testenv.CXX(t)
	for _, et := range []*elemType{typeF32, typeF64, typeI32, typeU32, typeI64, typeU64, typeF16, typeBF16} {
		src, err := builtinSource(et)("cuda")
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(t.TempDir(), et.suffix+".cpp")
		if err := os.WriteFile(path, []byte(cudaSyntaxShim+src), 0o600); err != nil {
			t.Fatal(err)
		}
		if out, err := exec.Command(cxx, "-std=c++17", "-fsyntax-only", "-Wno-unknown-pragmas", path).CombinedOutput(); err != nil {
			t.Errorf("%s: %v\n%s", et.suffix, err, out)
		}
	}
}
