package expr_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/gour-dev/gour/compute/expr"
	"github.com/gour-dev/gour/internal/harness/testenv"
)

// cudaShim lets a C++ compiler build the generated CUDA C as host code:
// the kernel is then called once per thread of a grid, on the CPU. It is
// how the four-a-thread kernel's indexing, aligned loads and tail are
// checked where there is no GPU.
const cudaShim = `#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
struct gx_dim { unsigned x, y, z; };
static gx_dim blockIdx, blockDim, threadIdx;
#define __global__
#define __device__
#define __forceinline__ inline
#define __align__(n) alignas(n)
static inline float rsqrtf(float x) { return 1 / sqrtf(x); }
static inline double rsqrt(double x) { return 1 / sqrt(x); }
static void *gx_load(const char *path, size_t size) {
	void *p = aligned_alloc(64, size + 64);
	FILE *f = fopen(path, "rb");
	if (!f || fread(p, 1, size, f) != size) { perror(path); exit(2); }
	fclose(f);
	return p;
}
`

// TestCUDAVec4OnHost builds CUDAVec4's kernels with the C++ compiler
// through cudaShim and runs them over grids whose sizes leave a tail
// (n not a multiple of 4, nor of the block) and none, comparing every
// element with the evaluator's.
func TestCUDAVec4OnHost(t *testing.T) {
	compiler := testenv.CXX(t)
	f32 := map[string]expr.Type{"x": expr.Float32, "y": expr.Float32}
	for _, tc := range []struct {
		src string
		sig expr.Signature
	}{
		{"out = a*x + y", expr.Signature{Out: expr.Float32, Arrays: f32, Params: map[string]expr.Type{"a": expr.Float32}}},
		{"let t = x*x; o = t > 10 ? sqrt(t) : fma(t, y, 1)", expr.Signature{Out: expr.Float32, Arrays: f32}},
		{"o = i / j + max(i, j) + int32(i < j)", expr.Signature{Out: expr.Int32,
			Arrays: map[string]expr.Type{"i": expr.Int32, "j": expr.Int32}}},
		{"o = u / 3 + float64(k) * 0.5 + b", expr.Signature{Out: expr.Float64,
			Arrays: map[string]expr.Type{"u": expr.Uint32, "k": expr.Int64}, Params: map[string]expr.Type{"b": expr.Uint64}}},
	} {
		for _, n := range []int{1000, 1027, 3} {
			t.Run(fmt.Sprintf("%s/%d", tc.src, n), func(t *testing.T) {
				c, err := expr.Compile(tc.src, tc.sig)
				if err != nil {
					t.Fatal(err)
				}
				runCUDAOnHost(t, compiler, c, n)
			})
		}
	}
}

func runCUDAOnHost(t *testing.T, compiler string, c *expr.Compiled, n int) {
	dir := t.TempDir()
	arrays := make([]any, len(c.Arrays()))
	var main strings.Builder
	fmt.Fprintf(&main, "int main() {\n\tconst size_t n = %d;\n", n)
	call := []string{"(" + cType(c.Out()) + "*)out"}
	for i, at := range c.ArrayTypes() {
		arrays[i] = testSlice(at, n, i)
		path := filepath.Join(dir, fmt.Sprintf("in%d", i))
		if err := os.WriteFile(path, asBytes(arrays[i]), 0o600); err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&main, "\tvoid *in%d = gx_load(%q, %d);\n", i, path, len(asBytes(arrays[i])))
		call = append(call, fmt.Sprintf("(const %s*)in%d", cType(at), i))
	}
	params := make([]any, len(c.Params()))
	for i, pt := range c.ParamTypes() {
		params[i] = elemOf(testSlice(pt, 1, 5), 0)
		call = append(call, cLiteral(params[i]))
	}
	call = append(call, "n")
	want := newSlice(c.Out(), n)
	ev, err := c.Evaluator()
	if err != nil {
		t.Fatal(err)
	}
	if err := ev.Run(want, arrays, params, 0, n); err != nil {
		t.Fatal(err)
	}
	size := len(asBytes(want))
	outPath := filepath.Join(dir, "out")
	fmt.Fprintf(&main, "\tvoid *out = aligned_alloc(64, %d + 64);\n", size)
	fmt.Fprintf(&main, "\tblockDim.x = 32;\n\tconst unsigned blocks = ((n + 3) / 4 + 31) / 32;\n")
	fmt.Fprintf(&main, "\tfor (blockIdx.x = 0; blockIdx.x < blocks; blockIdx.x++)\n\t\tfor (threadIdx.x = 0; threadIdx.x < 32; threadIdx.x++)\n\t\t\tk(%s);\n", strings.Join(call, ", "))
	fmt.Fprintf(&main, "\tFILE *f = fopen(%q, \"wb\");\n\tif (!f || fwrite(out, 1, %d, f) != %d) return 2;\n\treturn fclose(f) != 0;\n}\n", outPath, size, size)
	src := cudaShim + c.CUDAVec4("k") + main.String()
	srcPath, bin := filepath.Join(dir, "k.cpp"), filepath.Join(dir, "k")
	if err := os.WriteFile(srcPath, []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(compiler, "-std=c++17", "-O1", "-Wno-unknown-pragmas", "-o", bin, srcPath).CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s\n%s", err, out, src)
	}
	if out, err := exec.Command(bin).CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	raw, err := os.ReadFile(outPath)
	if err != nil {
		t.Fatal(err)
	}
	got := newSlice(c.Out(), n)
	copy(asBytes(got), raw)
	for i := range n {
		if g, w := elemOf(got, i), elemOf(want, i); !close(g, w) {
			t.Fatalf("%s: element %d of %d: CUDA C on the host %v, evaluator %v\n%s", c, i, n, g, w, c.CUDAVec4("k"))
		}
	}
}

func cType(t expr.Type) string {
	return map[expr.Type]string{expr.Float32: "float", expr.Float64: "double", expr.Int32: "int", expr.Uint32: "unsigned int",
		expr.Int64: "long long", expr.Uint64: "unsigned long long"}[t]
}

func cLiteral(v any) string {
	switch x := v.(type) {
	case float32:
		return strconv.FormatFloat(float64(x), 'x', -1, 32) + "f"
	case float64:
		return strconv.FormatFloat(x, 'x', -1, 64)
	case int32:
		return fmt.Sprintf("(int)%d", x)
	case uint32:
		return fmt.Sprintf("%du", x)
	case int64:
		return fmt.Sprintf("%dLL", x)
	case uint64:
		return fmt.Sprintf("%dULL", x)
	}
	panic(fmt.Sprintf("no C literal for %T", v))
}
