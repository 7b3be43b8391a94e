package expr_test

import (
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"

	_ "github.com/gour-dev/gour/adapters/all"
	"github.com/gour-dev/gour/compute/expr"
	"github.com/gour-dev/gour/internal/harness/testenv"
	"github.com/gour-dev/gour/ur"
)

// openCLQueue returns a context and a queue on the first OpenCL device,
// released at the test's end; it skips without one, unless
// UR_REQUIRE_ADAPTERS names opencl.
func openCLQueue(t *testing.T) (*ur.Context, *ur.Queue) {
	t.Helper()
	dev := testenv.MustHaveDevice(t, "opencl")[0]
	ctx, err := ur.NewContext(dev)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ctx.Release() })
	q, err := ctx.NewQueue(dev, ur.QueueProperties{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { q.Release() })
	return ctx, q
}

// TestOpenCL builds the generated OpenCL C on the first OpenCL device
// (PoCL here) and compares its results with the evaluator's. It skips
// without one, unless UR_REQUIRE_ADAPTERS names opencl.
func TestOpenCL(t *testing.T) {
	ctx, q := openCLQueue(t)

	f32 := map[string]expr.Type{"x": expr.Float32, "y": expr.Float32}
	for _, tc := range []struct {
		src string
		sig expr.Signature
	}{
		{"out = a*x + y", expr.Signature{Out: expr.Float32, Arrays: f32, Params: map[string]expr.Type{"a": expr.Float32}}},
		{"r = x > 0 ? x : 0.1*x", expr.Signature{Out: expr.Float32, Arrays: f32}},
		{"z = sqrt(x*x + y*y) + clamp(x, -1, 1) + exp(min(x, 3)) - floor(y)", expr.Signature{Out: expr.Float32, Arrays: f32}},
		{"let t = x*x; o = t > 10 && y != 0 ? pow(abs(x), 1.5) : fma(t, y, 1)", expr.Signature{Out: expr.Float64,
			Arrays: map[string]expr.Type{"x": expr.Float64, "y": expr.Float32}}},
		{"o = i / j + i % j + abs(i) + max(i, j) + clamp(j, -3, 3) + int32(i < j)", expr.Signature{Out: expr.Int32,
			Arrays: map[string]expr.Type{"i": expr.Int32, "j": expr.Int32}}},
		{"o = u / 3 + float64(k) * 0.5 + b", expr.Signature{Out: expr.Float64,
			Arrays: map[string]expr.Type{"u": expr.Uint32, "k": expr.Int64}, Params: map[string]expr.Type{"b": expr.Uint64}}},
	} {
		t.Run(tc.src, func(t *testing.T) {
			c, err := expr.Compile(tc.src, tc.sig)
			if err != nil {
				t.Fatal(err)
			}
			runOnDevice(t, ctx, q, c)
		})
	}
}

func runOnDevice(t *testing.T, ctx *ur.Context, q *ur.Queue, c *expr.Compiled) {
	const n = 1000
	arrays := make([]any, len(c.Arrays()))
	for i, at := range c.ArrayTypes() {
		arrays[i] = testSlice(at, n, i)
	}
	params := make([]any, len(c.Params()))
	for i, pt := range c.ParamTypes() {
		params[i] = elemOf(testSlice(pt, 1, 5), 0)
	}
	runOnDeviceWith(t, ctx, q, c, n, arrays, params)
}

// TestOpenCLIntegerWrap checks that signed arithmetic in the generated
// kernels wraps as on the CPU, at the edges where C's is undefined and a
// compiler folds x + 1 > x to true.
func TestOpenCLIntegerWrap(t *testing.T) {
	ctx, q := openCLQueue(t)
	for _, tc := range []struct {
		typ expr.Type
		x   any
	}{
		{expr.Int32, []int32{math.MaxInt32, math.MinInt32, 5, -1, 0, math.MaxInt32 / 2, math.MinInt32 + 1}},
		{expr.Int64, []int64{math.MaxInt64, math.MinInt64, 5, -1, 0, math.MaxInt64 / 2, math.MinInt64 + 1}},
	} {
		for _, src := range []string{
			"y = x + 1 > x ? 1 : 0",
			"y = x - 1 < x ? 1 : 0",
			"y = -x < 0 ? 1 : 0",
			"y = x * 2 / 2",
			"y = -x",
			"y = x*x - (x + x)*3",
			"y = -(x - k) + k*x",
		} {
			t.Run(tc.typ.String()+"/"+src, func(t *testing.T) {
				c, err := expr.Compile(src, expr.Signature{Out: tc.typ,
					Arrays: map[string]expr.Type{"x": tc.typ}, Params: map[string]expr.Type{"k": tc.typ}})
				if err != nil {
					t.Fatal(err)
				}
				var params []any
				if len(c.Params()) == 1 {
					params = []any{elemOf(tc.x, 0)} // the type's maximum
				}
				runOnDeviceWith(t, ctx, q, c, reflect.ValueOf(tc.x).Len(), []any{tc.x}, params)
			})
		}
	}
}

// TestOpenCLLongChain builds chains of 4096 terms, the most the checker
// takes, which only build because the kernel writes them flat.
func TestOpenCLLongChain(t *testing.T) {
	ctx, q := openCLQueue(t)
	for _, typ := range []expr.Type{expr.Float32, expr.Int32} {
		c, err := expr.Compile("y = x"+strings.Repeat(" - x", 2048)+strings.Repeat(" + x*a", 2047), expr.Signature{Out: typ,
			Arrays: map[string]expr.Type{"x": typ}, Params: map[string]expr.Type{"a": typ}})
		if err != nil {
			t.Fatal(err)
		}
		runOnDevice(t, ctx, q, c)
	}
}

// runOnDeviceWith runs c's kernel and its four-a-work-item kernel on the
// device over n elements of arrays with params and compares every
// element with the evaluator's.
func runOnDeviceWith(t *testing.T, ctx *ur.Context, q *ur.Queue, c *expr.Compiled, n int, arrays, params []any) {
	t.Helper()
	runKernel(t, ctx, q, c, c.OpenCL("gx_test"), n, n, arrays, params)
	runKernel(t, ctx, q, c, c.OpenCLVec4("gx_test"), (n+3)/4, n, arrays, params)
}

// runKernel runs the kernel gx_test of src over items work-items.
func runKernel(t *testing.T, ctx *ur.Context, q *ur.Queue, c *expr.Compiled, src string, items, n int, arrays, params []any) {
	t.Helper()
	prog, err := ctx.NewProgramFromSource(src)
	if err != nil {
		t.Fatal(err)
	}
	defer prog.Release()
	if err := prog.Build(""); err != nil {
		t.Fatalf("%v\n%s\n%s", err, ur.BuildLogOf(err), src)
	}
	k, err := prog.NewKernel("gx_test")
	if err != nil {
		t.Fatal(err)
	}
	defer k.Release()

	want := newSlice(c.Out(), n)
	ev, err := c.Evaluator()
	if err != nil {
		t.Fatal(err)
	}
	if err := ev.Run(want, arrays, params, 0, n); err != nil {
		t.Fatal(err)
	}

	outMem, err := ctx.NewBuffer(ur.MemReadWrite, uint64(len(asBytes(want))))
	if err != nil {
		t.Fatal(err)
	}
	defer outMem.Release()
	errs := []error{k.SetArgMem(0, outMem)}
	for i, a := range arrays {
		m, err := ctx.NewBufferFrom(ur.MemReadOnly, asBytes(a))
		if err != nil {
			t.Fatal(err)
		}
		defer m.Release()
		errs = append(errs, k.SetArgMem(1+i, m))
	}
	for i, p := range params {
		at := 1 + len(arrays) + i
		switch v := p.(type) {
		case float32:
			errs = append(errs, k.SetArgFloat32(at, v))
		case float64:
			errs = append(errs, k.SetArgFloat64(at, v))
		case int32:
			errs = append(errs, k.SetArgInt32(at, v))
		case uint32:
			errs = append(errs, k.SetArgUint32(at, v))
		case int64:
			errs = append(errs, k.SetArgInt64(at, v))
		case uint64:
			errs = append(errs, k.SetArgUint64(at, v))
		}
	}
	errs = append(errs, k.SetArgUint64(1+len(arrays)+len(params), uint64(n)))
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	if err := q.Launch(k, ur.Range1D(uint64(items))); err != nil {
		t.Fatal(err)
	}
	got := newSlice(c.Out(), n)
	if err := q.ReadBuffer(outMem, 0, asBytes(got)); err != nil {
		t.Fatal(err)
	}
	for i := range n {
		g, w := elemOf(got, i), elemOf(want, i)
		if !close(g, w) {
			t.Fatalf("%s: element %d: device %v, evaluator %v\n%s", c, i, g, w, src)
		}
	}
}

// close allows floats the few ulps a device's math functions and fused
// multiply-adds may differ by; integers must be equal.
func close(a, b any) bool {
	switch x := a.(type) {
	case float32:
		y := b.(float32)
		return x == y || math.Abs(float64(x-y)) <= 1e-5*math.Max(1, math.Abs(float64(y))) || x != x && y != y
	case float64:
		y := b.(float64)
		return x == y || math.Abs(x-y) <= 1e-12*math.Max(1, math.Abs(y)) || x != x && y != y
	}
	return a == b
}

func testSlice(t expr.Type, n, seed int) any {
	s := newSlice(t, n)
	for i := range n {
		v := float64((i*7+seed*13)%41-20) * 0.75
		switch a := s.(type) {
		case []float32:
			a[i] = float32(v)
		case []float64:
			a[i] = v
		case []int32:
			a[i] = int32(v)
		case []uint32:
			a[i] = uint32(math.Abs(v))
		case []int64:
			a[i] = int64(v)
		case []uint64:
			a[i] = uint64(math.Abs(v))
		}
	}
	return s
}

func newSlice(t expr.Type, n int) any {
	switch t {
	case expr.Float32:
		return make([]float32, n)
	case expr.Float64:
		return make([]float64, n)
	case expr.Int32:
		return make([]int32, n)
	case expr.Uint32:
		return make([]uint32, n)
	case expr.Int64:
		return make([]int64, n)
	}
	return make([]uint64, n)
}

func elemOf(s any, i int) any {
	switch a := s.(type) {
	case []float32:
		return a[i]
	case []float64:
		return a[i]
	case []int32:
		return a[i]
	case []uint32:
		return a[i]
	case []int64:
		return a[i]
	}
	return s.([]uint64)[i]
}

func asBytes(s any) []byte {
	switch a := s.(type) {
	case []float32:
		return ur.AsBytes(a)
	case []float64:
		return ur.AsBytes(a)
	case []int32:
		return ur.AsBytes(a)
	case []uint32:
		return ur.AsBytes(a)
	case []int64:
		return ur.AsBytes(a)
	}
	return ur.AsBytes(s.([]uint64))
}
