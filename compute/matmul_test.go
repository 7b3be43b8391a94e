package compute

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/gour-dev/gour/blas"
	"github.com/gour-dev/gour/ur"
)

// The tests of MatMul, ReduceAxis, broadcasting Transform and the
// half-precision element types: every context against a Go reference.

// matmulContexts is contexts plus, per device, a Device whose arrays are
// buffers (CLBlast takes those on OpenCL) and one forcing blas's own
// kernels.
func matmulContexts(t *testing.T) []Context {
	ctxs := contexts(t)
	for _, d := range deviceContexts(t) {
		for _, o := range []DeviceOptions{{Buffers: true, Manager: d.mgr}, {BLAS: blas.BackendGour, Manager: d.mgr}} {
			d2, err := NewDeviceFrom(d.q, o)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { d2.Release() })
			ctxs = append(ctxs, d2)
		}
	}
	return ctxs
}

func ctxName(ctx Context) string {
	if d, ok := ctx.(*Device); ok {
		return fmt.Sprintf("%v/usm=%v/blas=%q", d, d.useUSM, d.gemm.backend)
	}
	return ctx.String()
}

// refGemm is c = alpha·op(a)·op(b) + beta·c over float64, for the
// product's (batch, m, n, k) and the operands' batch strides.
func refGemm(a, b, c []float64, w *mmOp, alpha, beta float64) []float64 {
	out := slices.Clone(c)
	for p := range w.batch {
		for i := range w.m {
			for j := range w.n {
				s := 0.0
				for l := range w.k {
					var x, y float64
					if w.transA {
						x = a[p*w.sa+l*w.lda+i]
					} else {
						x = a[p*w.sa+i*w.lda+l]
					}
					if w.transB {
						y = b[p*w.sb+j*w.ldb+l]
					} else {
						y = b[p*w.sb+l*w.ldb+j]
					}
					s += x * y
				}
				o := p*w.m*w.n + i*w.n + j
				out[o] = alpha*s + beta*c[o]
			}
		}
	}
	return out
}

func randSlice(r *rand.Rand, n int) []float64 {
	s := make([]float64, n)
	for i := range s {
		s[i] = float64(r.IntN(17)-8) / 4 // exact in every type
	}
	return s
}

func conv[T Float](s []float64) []T {
	out := make([]T, len(s))
	for i, v := range s {
		out[i] = fromF32[T](float32(v))
		if _, ok := any(out[i]).(float64); ok {
			out[i] = T(v)
		}
	}
	return out
}

func back[T Float](s []T) []float64 {
	out := make([]float64, len(s))
	for i, v := range s {
		if f, ok := any(v).(float64); ok {
			out[i] = f
		} else {
			out[i] = float64(toF32One(v))
		}
	}
	return out
}

type mmCase struct {
	a, b, c []int
	o       MatMulOptions
}

var mmCases = []mmCase{
	{[]int{37, 19}, []int{19, 23}, []int{37, 23}, MatMulOptions{}},
	{[]int{19, 37}, []int{19, 23}, []int{37, 23}, MatMulOptions{TransA: true}},
	{[]int{37, 19}, []int{23, 19}, []int{37, 23}, MatMulOptions{TransB: true, Alpha: 0.5, Beta: -2}},
	{[]int{19, 37}, []int{23, 19}, []int{37, 23}, MatMulOptions{TransA: true, TransB: true, Beta: 1}},
	{[]int{3, 5, 7}, []int{3, 7, 4}, []int{3, 5, 4}, MatMulOptions{}},
	{[]int{3, 5, 7}, []int{7, 4}, []int{3, 5, 4}, MatMulOptions{}},                 // one product of 15 rows
	{[]int{3, 7, 5}, []int{7, 4}, []int{3, 5, 4}, MatMulOptions{TransA: true}},     // b broadcast
	{[]int{5, 7}, []int{3, 7, 4}, []int{3, 5, 4}, MatMulOptions{Beta: 0.25}},       // a broadcast
	{[]int{3, 5, 7}, []int{3, 4, 7}, []int{3, 5, 4}, MatMulOptions{TransB: true}},  // batched transpose
	{[]int{4, 0}, []int{0, 3}, []int{4, 3}, MatMulOptions{Beta: 2}},                // K = 0: c = beta·c
	{[]int{4, 0}, []int{0, 3}, []int{4, 3}, MatMulOptions{}},                       // K = 0: c = 0
	{[]int{0, 5}, []int{5, 3}, []int{0, 3}, MatMulOptions{}},                       // M = 0
	{[]int{1, 1}, []int{1, 1}, []int{1, 1}, MatMulOptions{Alpha: 3}},               // 1×1
	{[]int{2, 64, 70}, []int{2, 70, 65}, []int{2, 64, 65}, MatMulOptions{Beta: 1}}, // past a tile
}

func testMatMul[T Float](t *testing.T, ctx Context, tol float64, cases []mmCase) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, tc := range cases {
		w, err := matmulShapes(tc.c, tc.a, tc.b, tc.o)
		if err != nil {
			t.Fatal(err)
		}
		// the reference's strides over the operands as given (not the
		// merged batch)
		ref := *w
		if len(tc.a) == 3 {
			ref.batch, ref.m = tc.a[0], tc.c[1]
			ref.sa = tc.a[1] * tc.a[2]
		}
		n := func(s []int) int { return must[int](t)(shapeLen(s, 1)) }
		as, bs, cs := randSlice(r, n(tc.a)), randSlice(r, n(tc.b)), randSlice(r, n(tc.c))
		alpha := tc.o.Alpha
		if alpha == 0 {
			alpha = 1
		}
		want := refGemm(as, bs, cs, &ref, alpha, tc.o.Beta)
		a := must[*Array[T]](t)(FromSlice(ctx, conv[T](as), tc.a...))
		b := must[*Array[T]](t)(FromSlice(ctx, conv[T](bs), tc.b...))
		c := must[*Array[T]](t)(FromSlice(ctx, conv[T](cs), tc.c...))
		err = MatMulWith(ctx, c, a, b, tc.o)
		if err != nil {
			t.Fatalf("%s %v·%v→%v %+v: %v", typeOf[T]().suffix, tc.a, tc.b, tc.c, tc.o, err)
		}
		got := back(must[[]T](t)(c.ToSlice()))
		for i := range want {
			if math.Abs(got[i]-want[i]) > tol*(1+math.Abs(want[i])) {
				t.Fatalf("%s %v·%v→%v %+v: c[%d] = %v, want %v", typeOf[T]().suffix, tc.a, tc.b, tc.c, tc.o, i, got[i], want[i])
			}
		}
		a.Release()
		b.Release()
		c.Release()
	}
}

func TestMatMul(t *testing.T) {
	for _, ctx := range matmulContexts(t) {
		t.Run(ctxName(ctx), func(t *testing.T) {
			if d, ok := ctx.(*Device); ok && d.backend == "opencl" && !d.useUSM && d.gemm.backend == "" {
				// CLBlast (buffers on OpenCL) compiles a program per
				// routine, type and kernel variant, at run time: on PoCL
				// minutes for every case and type, 25 s for one: float32,
				// a transposed product with beta. blas's tests cover
				// CLBlast.
				testMatMul[float32](t, ctx, 1e-5, []mmCase{mmCases[2]})
				return
			}
			testMatMul[float32](t, ctx, 1e-5, mmCases)
			if d, ok := ctx.(*Device); !ok || d.fp64 {
				testMatMul[float64](t, ctx, 1e-12, mmCases)
			}
			// bfloat16 has 8 bits of mantissa: the products of the test's
			// quarters are exact, their sums rounded once when stored.
			testMatMul[BFloat16](t, ctx, 1.0/128, mmCases)
			if d, ok := ctx.(*Device); !ok || d.fp16 {
				testMatMul[Float16](t, ctx, 1.0/1024, mmCases)
			} else {
				testHalfUnsupported(t, d)
			}
		})
	}
}

// testHalfUnsupported: MatMul of float16 on a device without fp16 is an
// error naming the aspect, and c is as it was; storage works.
func testHalfUnsupported(t *testing.T, d *Device) {
	a := must[*Array[Float16]](t)(FromSlice(d, []Float16{F16(1), F16(2), F16(3), F16(4)}, 2, 2))
	c := must[*Array[Float16]](t)(FromSlice(d, []Float16{F16(9), F16(9), F16(9), F16(9)}, 2, 2))
	defer a.Release()
	defer c.Release()
	err := MatMul(d, c, a, a)
	var ae *AspectError
	if !errors.Is(err, ur.ErrUnsupportedFeature) || !errors.As(err, &ae) || ae.Aspect != "fp16" || !strings.Contains(err.Error(), "fp16") {
		t.Errorf("MatMul of float16 without fp16: %v, want an *AspectError naming fp16", err)
	}
	if got := must[[]Float16](t)(c.ToSlice()); got[0] != F16(9) || c.Transfers().Uploads != 0 {
		t.Errorf("c after the refused MatMul: %v, %d uploads", got, c.Transfers().Uploads)
	}
	if err := Copy(d, c, a); err != nil {
		t.Errorf("Copy of float16 without fp16: %v", err)
	}
}

func TestMatMulErrors(t *testing.T) {
	for _, ctx := range contexts(t) {
		t.Run(ctx.String(), func(t *testing.T) {
			nine := []float32{9, 9, 9, 9, 9, 9}
			a := must[*Array[float32]](t)(FromSlice(ctx, []float32{1, 2, 3, 4, 5, 6}, 2, 3))
			b := must[*Array[float32]](t)(FromSlice(ctx, []float32{1, 2, 3, 4, 5, 6}, 2, 3))
			c := must[*Array[float32]](t)(FromSlice(ctx, nine, 2, 3))
			defer a.Release()
			defer b.Release()
			defer c.Release()
			unchanged := func(what string) {
				t.Helper()
				if got := must[[]float32](t)(c.ToSlice()); !slices.Equal(got, nine) {
					t.Errorf("%s: c = %v, want it unchanged", what, got)
				}
			}
			shape := func(what string, err error, names ...string) {
				t.Helper()
				if !errors.Is(err, ErrShape) {
					t.Errorf("%s: %v, want ErrShape", what, err)
					return
				}
				for _, n := range names {
					if !strings.Contains(err.Error(), n) {
						t.Errorf("%s: %q does not name %s", what, err, n)
					}
				}
				unchanged(what)
			}
			shape("2×3 by 2×3", MatMul(ctx, c, a, b), "[2 3]")
			shape("2×3 by (3×2)ᵀ", MatMulWith(ctx, c, a, b, MatMulOptions{TransB: true}), "[2 3]", "[2 2]")
			x := must[*Array[float32]](t)(Zeros[float32](ctx, 4))
			defer x.Release()
			shape("a vector", MatMul(ctx, c, x, b), "[4]", "[2 3]")
			y := must[*Array[float32]](t)(Zeros[float32](ctx, 2, 3, 2))
			defer y.Release()
			z := must[*Array[float32]](t)(Zeros[float32](ctx, 3, 3, 2))
			defer z.Release()
			shape("batches 2 and 3", MatMulWith(ctx, c, y, z, MatMulOptions{TransB: true}), "[2 3 2]", "[3 3 2]")
			// A 2×3 by 3×2 product is 2×2, not c's 2×3.
			shape("c of the wrong shape", MatMulWith(ctx, c, a, b, MatMulOptions{TransB: true, Beta: 1}), "[2 3]", "[2 2]")
			if err := MatMulWith(ctx, c, c, b, MatMulOptions{TransB: true}); !errors.Is(err, ErrInvalid) && !errors.Is(err, ErrShape) {
				t.Errorf("c aliasing a: %v", err)
			}
			sq := must[*Array[float32]](t)(FromSlice(ctx, []float32{1, 2, 3, 4}, 2, 2))
			defer sq.Release()
			if err := MatMul(ctx, sq, sq, sq); !errors.Is(err, ErrInvalid) {
				t.Errorf("c aliasing a and b: %v, want ErrInvalid", err)
			}
			if err := MatMul(ctx, c, nil, b); !errors.Is(err, ErrInvalid) {
				t.Errorf("nil a: %v", err)
			}
			if err := MatMul[float32](ctx, nil, a, b); !errors.Is(err, ErrInvalid) {
				t.Errorf("nil c: %v", err)
			}
			other := NewCPU(1)
			o := must[*Array[float32]](t)(Zeros[float32](other, 3, 3))
			if err := MatMul(ctx, c, a, o); !errors.Is(err, ErrWrongContext) {
				t.Errorf("b of another context: %v", err)
			}
			unchanged("b of another context")
			r := must[*Array[float32]](t)(Zeros[float32](ctx, 3, 3))
			r.Release()
			if err := MatMul(ctx, c, a, r); !errors.Is(err, ErrReleased) {
				t.Errorf("released b: %v", err)
			}
			unchanged("released b")
			if err := MatMul(nil, c, a, b); !errors.Is(err, ErrInvalid) {
				t.Errorf("nil context: %v", err)
			}
			if d, ok := ctx.(*Device); ok && d.backend != "cuda" {
				// A backend that cannot serve the device: refused at the
				// first MatMul, before anything is staged.
				d2, err := NewDeviceFrom(d.q, DeviceOptions{BLAS: blas.BackendCUBLAS, Manager: d.mgr})
				if err != nil {
					t.Fatal(err)
				}
				defer d2.Release()
				x := must[*Array[float32]](t)(FromSlice(d2, []float32{1, 2, 3, 4}, 2, 2))
				y := must[*Array[float32]](t)(FromSlice(d2, []float32{9, 9, 9, 9}, 2, 2))
				if err := MatMul(d2, y, x, x); !errors.Is(err, blas.ErrLibraryUnavailable) {
					t.Errorf("MatMul with cuBLAS on %v: %v, want blas.ErrLibraryUnavailable", d, err)
				}
				if got := must[[]float32](t)(y.ToSlice()); got[0] != 9 || x.Transfers().Uploads != 0 {
					t.Errorf("after the refused MatMul: y %v, x uploaded %d times", got, x.Transfers().Uploads)
				}
				x.Release()
				y.Release()
			}
		})
	}
}

// TestReduceAxis reduces every axis of a 3-D array, without and with
// keepdims, with Sum, Max and a user's operator, against Go.
func TestReduceAxis(t *testing.T) {
	shape := []int{5, 7, 3}
	n := 5 * 7 * 3
	xs := make([]int32, n)
	fs := make([]float32, n)
	for i := range xs {
		xs[i] = int32((i*37)%23 - 11)
		fs[i] = float32(xs[i]) / 8
	}
	for _, ctx := range contexts(t) {
		t.Run(ctx.String(), func(t *testing.T) {
			x := must[*Array[int32]](t)(FromSlice(ctx, xs, shape...))
			f := must[*Array[float32]](t)(FromSlice(ctx, fs, shape...))
			defer x.Release()
			defer f.Release()
			bor := ReduceOp[int32]{Name: "bor", Identity: 0, Combine: func(a, b int32) int32 { return a | b }, Expr: "a | b"}
			for axis := -3; axis < 3; axis++ {
				ax := (axis + 3) % 3
				for _, keep := range []bool{false, true} {
					os := dropAxis(shape, ax)
					if keep {
						os = keepAxis(shape, ax)
					}
					for _, op := range []ReduceOp[int32]{Sum[int32](), Max[int32](), bor} {
						out := must[*Array[int32]](t)(Zeros[int32](ctx, os...))
						if err := ReduceAxis(ctx, out, x, axis, op); err != nil {
							t.Fatalf("axis %d %s: %v", axis, op.Name, err)
						}
						got := must[[]int32](t)(out.ToSlice())
						want := refAxis(xs, shape, ax, op.Identity, op.Combine)
						if !slices.Equal(got, want) {
							t.Errorf("axis %d keep %v %s: %v, want %v", axis, keep, op.Name, got, want)
						}
						out.Release()
					}
					out := must[*Array[float32]](t)(Zeros[float32](ctx, os...))
					if err := ReduceAxis(ctx, out, f, axis, Sum[float32]()); err != nil {
						t.Fatal(err)
					}
					got := must[[]float32](t)(out.ToSlice())
					want := refAxis(fs, shape, ax, 0, func(a, b float32) float32 { return a + b })
					if !slices.Equal(got, want) { // eighths add exactly
						t.Errorf("float32 axis %d: %v, want %v", axis, got, want)
					}
					out.Release()
				}
			}
			// Few results along a long axis: on a device, in chunks.
			const rows = 1000
			cs := make([]float32, rows*3)
			for i := range cs {
				cs[i] = float32((i*7)%19-9) / 8
			}
			col := must[*Array[float32]](t)(FromSlice(ctx, cs, rows, 3))
			defer col.Release()
			for _, op := range []ReduceOp[float32]{Sum[float32](), Max[float32]()} {
				sums := must[*Array[float32]](t)(Zeros[float32](ctx, 1, 3))
				if err := ReduceAxis(ctx, sums, col, 0, op); err != nil {
					t.Fatal(err)
				}
				want := refAxis(cs, []int{rows, 3}, 0, op.Identity, op.Combine)
				if got := must[[]float32](t)(sums.ToSlice()); !slices.Equal(got, want) { // eighths add exactly
					t.Errorf("column %s of [%d 3]: %v, want %v", op.Name, rows, got, want)
				}
				sums.Release()
			}
			if d, ok := ctx.(*Device); ok {
				if c := axisChunks(3, rows, d.groups*d.local); c <= 1 {
					t.Errorf("[%d 3] along axis 0: %d chunks on %v; the test wants the chunked path", rows, c, d)
				}
			}
			// An empty axis gives the identity.
			e := must[*Array[float32]](t)(Zeros[float32](ctx, 3, 0))
			defer e.Release()
			m := must[*Array[float32]](t)(Zeros[float32](ctx, 3))
			defer m.Release()
			if err := ReduceAxis(ctx, m, e, 1, Max[float32]()); err != nil {
				t.Fatal(err)
			}
			if got := must[[]float32](t)(m.ToSlice()); !math.IsInf(float64(got[0]), -1) {
				t.Errorf("max of an empty axis: %v", got)
			}
			// Errors: nothing written.
			o := must[*Array[int32]](t)(FromSlice(ctx, []int32{4, 4, 4, 4, 4}, 5))
			defer o.Release()
			for _, c := range []struct {
				axis int
				want error
			}{{1, ErrShape}, {3, ErrShape}, {-4, ErrShape}} {
				err := ReduceAxis(ctx, o, x, c.axis, Sum[int32]())
				if !errors.Is(err, c.want) {
					t.Errorf("axis %d into [5]: %v, want %v", c.axis, err, c.want)
				} else if c.axis == 1 && (!strings.Contains(err.Error(), "[5 7 3]") || !strings.Contains(err.Error(), "[5]")) {
					t.Errorf("%q does not name both shapes", err)
				}
			}
			if err := ReduceAxis(ctx, o, nil, 0, Sum[int32]()); !errors.Is(err, ErrInvalid) {
				t.Errorf("nil input: %v", err)
			}
			if err := ReduceAxis(ctx, o, must[*Array[int32]](t)(Zeros[int32](NewCPU(1), 2, 5)), 0, Sum[int32]()); !errors.Is(err, ErrWrongContext) {
				t.Errorf("input of another context: %v", err)
			}
			gone := must[*Array[int32]](t)(Zeros[int32](ctx, 2, 5))
			gone.Release()
			if err := ReduceAxis(ctx, o, gone, 0, Sum[int32]()); !errors.Is(err, ErrReleased) {
				t.Errorf("released input: %v", err)
			}
			if got := must[[]int32](t)(o.ToSlice()); !slices.Equal(got, []int32{4, 4, 4, 4, 4}) {
				t.Errorf("output after the refused calls: %v", got)
			}
		})
	}
}

func refAxis[T Number](xs []T, shape []int, axis int, ident T, f func(a, b T) T) []T {
	outer, inner := 1, 1
	for _, d := range shape[:axis] {
		outer *= d
	}
	for _, d := range shape[axis+1:] {
		inner *= d
	}
	out := make([]T, outer*inner)
	for o := range outer {
		for j := range inner {
			acc := ident
			for k := range shape[axis] {
				acc = f(acc, xs[(o*shape[axis]+k)*inner+j])
			}
			out[o*inner+j] = acc
		}
	}
	return out
}

// TestTransformBroadcast adds and scales with inputs broadcast NumPy's
// way, with an Expr (strided kernel) and a NewFunc (inputs expanded).
func TestTransformBroadcast(t *testing.T) {
	const N, H = 33, 17
	xs := make([]float32, N*H)
	for i := range xs {
		xs[i] = float32(i%29) - 14
	}
	row := make([]float32, H)
	for i := range row {
		row[i] = float32(i) / 4
	}
	col := make([]float32, N)
	for i := range col {
		col[i] = float32(i%5) - 2
	}
	add, err := Expr[float32]("out = x + b", nil)
	if err != nil {
		t.Fatal(err)
	}
	fma, err := Expr("out = b*x + a", map[string]float32{"a": 1})
	if err != nil {
		t.Fatal(err)
	}
	axpy := newAxpy(t, 2) // out = 2*x + y, hand-written
	for _, ctx := range contexts(t) {
		t.Run(ctx.String(), func(t *testing.T) {
			x := must[*Array[float32]](t)(FromSlice(ctx, xs, N, H))
			defer x.Release()
			out := must[*Array[float32]](t)(Zeros[float32](ctx, N, H))
			defer out.Release()
			check := func(what string, want func(i, j int) float32) {
				t.Helper()
				got := must[[]float32](t)(out.ToSlice())
				for i := range N {
					for j := range H {
						if w := want(i, j); got[i*H+j] != w {
							t.Fatalf("%s: out[%d,%d] = %v, want %v", what, i, j, got[i*H+j], w)
						}
					}
				}
			}
			for _, shape := range [][]int{{H}, {1, H}} {
				b := must[*Array[float32]](t)(FromSlice(ctx, row, shape...))
				if err := Transform(ctx, add, out, b, x); err != nil { // Arrays sorted: b, x
					t.Fatal(err)
				}
				check(fmt.Sprintf("x + row %v", shape), func(i, j int) float32 { return xs[i*H+j] + row[j] })
				if err := Transform(ctx, axpy, out, b, x); err != nil {
					t.Fatal(err)
				}
				check(fmt.Sprintf("2·row %v + x (NewFunc)", shape), func(i, j int) float32 { return 2*row[j] + xs[i*H+j] })
				b.Release()
			}
			c := must[*Array[float32]](t)(FromSlice(ctx, col, N, 1))
			defer c.Release()
			if err := Transform(ctx, fma, out, c, x); err != nil { // b = c, x = x
				t.Fatal(err)
			}
			check("col·x + 1", func(i, j int) float32 { return col[i]*xs[i*H+j] + 1 })
			s := must[*Array[float32]](t)(FromSlice(ctx, []float32{3}, []int{}...))
			defer s.Release()
			if err := Transform(ctx, add, out, s, x); err != nil {
				t.Fatal(err)
			}
			check("x + scalar", func(i, j int) float32 { return xs[i*H+j] + 3 })
			// both inputs broadcast: an outer sum, col + row
			r := must[*Array[float32]](t)(FromSlice(ctx, row, 1, H))
			defer r.Release()
			if err := Transform(ctx, add, out, c, r); err != nil {
				t.Fatal(err)
			}
			check("col + row", func(i, j int) float32 { return col[i] + row[j] })
			// in place, out an input: x += row
			y := must[*Array[float32]](t)(FromSlice(ctx, xs, N, H))
			defer y.Release()
			if err := Transform(ctx, add, y, r, y); err != nil {
				t.Fatal(err)
			}
			if got := must[[]float32](t)(y.ToSlice()); got[H+1] != xs[H+1]+row[1] {
				t.Errorf("in place: %v", got[H+1])
			}
			// 3-D, the middle axis broadcast
			z := must[*Array[float32]](t)(FromSlice(ctx, xs[:3*4*5], 3, 4, 5))
			defer z.Release()
			m := must[*Array[float32]](t)(FromSlice(ctx, xs[:3*5], 3, 1, 5))
			defer m.Release()
			o3 := must[*Array[float32]](t)(Zeros[float32](ctx, 3, 4, 5))
			defer o3.Release()
			if err := Transform(ctx, add, o3, m, z); err != nil {
				t.Fatal(err)
			}
			got := must[[]float32](t)(o3.ToSlice())
			for i := range 3 {
				for j := range 4 {
					for k := range 5 {
						if w := xs[(i*4+j)*5+k] + xs[i*5+k]; got[(i*4+j)*5+k] != w {
							t.Fatalf("3-D: [%d,%d,%d] = %v, want %v", i, j, k, got[(i*4+j)*5+k], w)
						}
					}
				}
			}
			// Errors: no broadcast to out, out never broadcast; nothing
			// written.
			Fill(ctx, out, 5)
			bad := must[*Array[float32]](t)(Zeros[float32](ctx, H+1))
			defer bad.Release()
			err := Transform(ctx, add, out, bad, x)
			if !errors.Is(err, ErrShape) || !strings.Contains(err.Error(), fmt.Sprint([]int{H + 1})) || !strings.Contains(err.Error(), fmt.Sprint([]int{N, H})) {
				t.Errorf("row of %d: %v, want ErrShape naming both shapes", H+1, err)
			}
			small := must[*Array[float32]](t)(Zeros[float32](ctx, H))
			defer small.Release()
			if err := Transform(ctx, add, small, small, x); !errors.Is(err, ErrShape) {
				t.Errorf("output smaller than an input: %v", err)
			}
			gone := must[*Array[float32]](t)(Zeros[float32](ctx, H))
			gone.Release()
			if err := Transform(ctx, add, out, gone, x); !errors.Is(err, ErrReleased) {
				t.Errorf("released broadcast input: %v", err)
			}
			foreign := must[*Array[float32]](t)(Zeros[float32](NewCPU(1), H))
			if err := Transform(ctx, add, out, foreign, x); !errors.Is(err, ErrWrongContext) {
				t.Errorf("broadcast input of another context: %v", err)
			}
			if err := Transform(ctx, add, out, nil, x); !errors.Is(err, ErrInvalid) {
				t.Errorf("nil input: %v", err)
			}
			check("after the refused calls", func(int, int) float32 { return 5 })
		})
	}
}

// TestHalfArrays: float16 and bfloat16 arrays are made, filled, copied
// and read back on every context, with no arithmetic (no fp16 needed).
func TestHalfArrays(t *testing.T) {
	if F16(1.5).Float32() != 1.5 || BF16(-2.5).Float32() != -2.5 || F16(65504).Float32() != 65504 {
		t.Fatal("conversions")
	}
	if s := fmt.Sprint(F16(0.25)); s != "0.25" {
		t.Errorf("Float16 prints %q", s)
	}
	for _, ctx := range contexts(t) {
		t.Run(ctx.String(), func(t *testing.T) {
			testHalfArray(t, ctx, F16)
			testHalfArray(t, ctx, BF16)
		})
	}
}

func testHalfArray[T Float16 | BFloat16](t *testing.T, ctx Context, conv func(float32) T) {
	const n = 1001
	xs := make([]T, n)
	for i := range xs {
		xs[i] = conv(float32(i%100) / 8)
	}
	a := must[*Array[T]](t)(FromSlice(ctx, xs))
	defer a.Release()
	b := must[*Array[T]](t)(Zeros[T](ctx, n))
	defer b.Release()
	if got := must[[]T](t)(b.ToSlice()); got[n-1] != 0 {
		t.Errorf("Zeros: %v", got[n-1])
	}
	if err := Copy(ctx, b, a); err != nil {
		t.Fatal(err)
	}
	if got := must[[]T](t)(b.ToSlice()); !slices.Equal(got, xs) {
		t.Errorf("Copy: %v ... ", got[:4])
	}
	if err := Fill(ctx, a, conv(-0.75)); err != nil {
		t.Fatal(err)
	}
	got := must[[]T](t)(a.ToSlice())
	if got[0] != conv(-0.75) || got[n-1] != conv(-0.75) {
		t.Errorf("Fill: %v", got[n-1])
	}
}

// TestTransformAllocatesNothing: the same-shape fast path of a device
// Transform allocates nothing, broadcasting in the package or not.
func TestTransformAllocatesNothing(t *testing.T) {
	if raceEnabled {
		t.Skip("-race: sync.Pool drops items at random")
	}
	for _, d := range deviceContexts(t) {
		x := must[*Array[float32]](t)(FromSlice(d, make([]float32, 1024)))
		defer x.Release()
		y := must[*Array[float32]](t)(FromSlice(d, make([]float32, 1024)))
		defer y.Release()
		f := must[*ExprFunc[float32]](t)(Expr[float32]("y = a*x + y", map[string]float32{"a": 2}))
		if err := Transform(d, f, y, x, y); err != nil {
			t.Fatal(err)
		}
		if n := testing.AllocsPerRun(100, func() {
			if err := Transform(d, f, y, x, y); err != nil {
				t.Fatal(err)
			}
		}); n != 0 {
			t.Errorf("%v: %v allocations per Transform, want 0", d, n)
		}
		d.Wait()
	}
}

// TestReduceAxisWholeArray: an axis that is the whole array (a 1-D array,
// or every other extent 1) reduces as Reduce does, at one group and at
// many, and its result stays on a device: nothing is read back until
// asked for, and a Transform can use it at once.
func TestReduceAxisWholeArray(t *testing.T) {
	for _, ctx := range contexts(t) {
		t.Run(ctx.String(), func(t *testing.T) {
			for _, n := range []int{1, 3, 1000, 1 << 20} {
				xs := make([]int32, n)
				for i := range xs {
					xs[i] = int32((i*37)%23 - 11)
				}
				x := must[*Array[int32]](t)(FromSlice(ctx, xs, 1, n, 1))
				for _, op := range []ReduceOp[int32]{Sum[int32](), Max[int32](), Min[int32]()} {
					want := must[int32](t)(Reduce(ctx, x, op))
					for _, shape := range [][]int{{1, 1}, {1, 1, 1}} {
						out := must[*Array[int32]](t)(Zeros[int32](ctx, shape...))
						if err := ReduceAxis(ctx, out, x, 1, op); err != nil {
							t.Fatalf("n %d %s: %v", n, op.Name, err)
						}
						if d, ok := ctx.(*Device); ok && out.Transfers().Downloads != 0 {
							t.Errorf("n %d %s on %v: the result was read back", n, op.Name, d)
						}
						if got := must[[]int32](t)(out.ToSlice()); got[0] != want {
							t.Errorf("n %d %s %v: %d, want %d", n, op.Name, shape, got[0], want)
						}
						out.Release()
					}
				}
				x.Release()
			}
			// The sum of a 1-D array, then used on the device: y = x - sum.
			fs := []float32{1, 2, 3, 4, 5, 6, 7, 8, 9}
			f := must[*Array[float32]](t)(FromSlice(ctx, fs))
			defer f.Release()
			s := must[*Array[float32]](t)(Zeros[float32](ctx, 1))
			defer s.Release()
			if err := ReduceAxis(ctx, s, f, 0, Sum[float32]()); err != nil {
				t.Fatal(err)
			}
			centre := must[*ExprFunc[float32]](t)(Expr[float32]("y = x - s", nil))
			y := must[*Array[float32]](t)(Zeros[float32](ctx, len(fs)))
			defer y.Release()
			if err := Transform(ctx, centre, y, s, f); err != nil { // inputs in the names' order: s, x
				t.Fatal(err)
			}
			got := must[[]float32](t)(y.ToSlice())
			for i, v := range got {
				if v != fs[i]-45 {
					t.Fatalf("x - sum: %v", got)
				}
			}
		})
	}
}
