package expr

import (
	"errors"
	"math/rand/v2"
	"strings"
	"testing"
)

// FuzzCompile compiles any input against a signature the fuzzer picks:
// nothing may panic, an error must be an *Error, and a function that
// compiles must generate kernels of the documented shape, read back from
// its canonical form as itself, and evaluate as the reference does.
func FuzzCompile(f *testing.F) {
	for _, s := range []string{
		"out = a*x + y", "z = sqrt(x*x + y*y)", "r = x > 0 ? x : 0.1*x", "y = fma(a, x, y)",
		"o = clamp(x, -1, 1)", "o = x % 3", "o = -x / 0", "let t = x*x; o = t + t", "o = 0x10 + 1e-3",
		"o = (x < y) && !(a >= b) ? pow(x, 2) : min(a, b)", "o = float32(x) + uint64(a)", "o = x ==", "o = (((x",
		"o = 1/0", "o = sqrt(-1.0)", "o = int32(1e30)", "o = 4294967296 + x", "", "o", "o = x y",
	} {
		f.Add(s, uint8(0))
		f.Add(s, uint8(0x2a))
	}
	f.Fuzz(func(t *testing.T, src string, types uint8) {
		sig := Signature{Out: allTypes[types%6],
			Arrays: map[string]Type{"x": allTypes[(types/6)%6], "y": Float32},
			Params: map[string]Type{"a": allTypes[(types/36)%6], "b": Int32}}
		c, err := Compile(src, sig)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) || e.Pos.Line < 1 || e.Pos.Col < 1 || e.Pos.Offset > len(src) {
				t.Fatalf("%q: error %#v", src, err)
			}
			return
		}
		for _, k := range []string{c.OpenCL("k"), c.CUDA("k")} {
			if !strings.Contains(k, "gx_out[gx_i] = ") || strings.Count(k, "(") != strings.Count(k, ")") {
				t.Fatalf("%q: malformed kernel\n%s", src, k)
			}
		}
		again, err := Compile(c.String(), sig)
		if err != nil {
			t.Fatalf("%q: canonical form %q does not compile: %v", src, c.String(), err)
		}
		if again.Key() != c.Key() {
			t.Fatalf("%q: canonical form changes the key:\n%s\n%s", src, c.Key(), again.Key())
		}
		r := rand.New(rand.NewPCG(uint64(len(src)), uint64(types)))
		checkAgainstReference(t, c, r, 1+r.IntN(1100))
	})
}
