package compute

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/gour-dev/gour/compute/expr"
	"github.com/gour-dev/gour/ur"
)

// One expression, y = a*x + y in place and a clamp of two arrays, gives
// the same results on the CPU and on every device.
func TestExprTransform(t *testing.T) {
	const n = 10_001
	xs, ys := make([]float32, n), make([]float32, n)
	for i := range xs {
		xs[i], ys[i] = float32(i%97)-48, float32(i%13)
	}
	axpy, err := Expr[float32]("y = a*x + y", map[string]float32{"a": 2})
	if err != nil {
		t.Fatal(err)
	}
	if got := axpy.Arrays(); len(got) != 2 || got[0] != "x" || got[1] != "y" {
		t.Fatalf("Arrays() = %v, want [x y]", got)
	}
	clampFn, err := Expr[float32]("out = clamp(x, -lim, lim) + sqrt(abs(y))", map[string]float32{"lim": 10})
	if err != nil {
		t.Fatal(err)
	}
	for _, ctx := range contexts(t) {
		t.Run(ctx.String(), func(t *testing.T) {
			x, err := FromSlice(ctx, xs)
			if err != nil {
				t.Fatal(err)
			}
			defer x.Release()
			y, err := FromSlice(ctx, ys)
			if err != nil {
				t.Fatal(err)
			}
			defer y.Release()
			for range 3 {
				if err := Transform(ctx, axpy, y, x, y); err != nil {
					t.Fatal(err)
				}
			}
			got, err := y.ToSlice()
			if err != nil {
				t.Fatal(err)
			}
			for i, v := range got {
				if want := ys[i] + 6*xs[i]; v != want {
					t.Fatalf("y[%d] = %v after three axpys, want %v", i, v, want)
				}
			}
			out, err := Zeros[float32](ctx, n)
			if err != nil {
				t.Fatal(err)
			}
			defer out.Release()
			if err := Transform(ctx, clampFn, out, x, y); err != nil {
				t.Fatal(err)
			}
			if got, err = out.ToSlice(); err != nil {
				t.Fatal(err)
			}
			for i, v := range got {
				want := float32(math.Max(-10, math.Min(10, float64(xs[i])))) + float32(math.Sqrt(math.Abs(float64(ys[i]+6*xs[i]))))
				if math.Abs(float64(v-want)) > 1e-5*math.Max(1, math.Abs(float64(want))) {
					t.Fatalf("out[%d] = %v, want %v", i, v, want)
				}
			}
		})
	}
}

// Integer expressions run as integers, and parameters change with With
// without a new kernel.
func TestExprIntegersAndWith(t *testing.T) {
	f, err := Expr[int32]("out = x % m + k", map[string]int32{"m": 7, "k": 0})
	if err != nil {
		t.Fatal(err)
	}
	g, err := f.With(map[string]int32{"k": 100})
	if err != nil {
		t.Fatal(err)
	}
	if g.Key() != f.Key() {
		t.Errorf("With changed the key: %q and %q", f.Key(), g.Key())
	}
	if _, err := f.With(map[string]int32{"nope": 1}); !errors.Is(err, ErrInvalid) {
		t.Errorf("With an unknown parameter: %v, want ErrInvalid", err)
	}
	xs := []int32{-9, 0, 5, 13, 700}
	for _, ctx := range contexts(t) {
		t.Run(ctx.String(), func(t *testing.T) {
			x, err := FromSlice(ctx, xs)
			if err != nil {
				t.Fatal(err)
			}
			defer x.Release()
			out, err := Zeros[int32](ctx, len(xs))
			if err != nil {
				t.Fatal(err)
			}
			defer out.Release()
			if err := Transform(ctx, g, out, x); err != nil {
				t.Fatal(err)
			}
			got, err := out.ToSlice()
			if err != nil {
				t.Fatal(err)
			}
			for i, v := range got {
				if want := xs[i]%7 + 100; v != want {
					t.Errorf("out[%d] = %d, want %d", i, v, want)
				}
			}
		})
	}
}

// A bad expression is ErrInvalid carrying expr's error, with its position.
func TestExprErrors(t *testing.T) {
	for _, src := range []string{"", "y = ", "y = a*x +", "y = sqrt(x, x)", "y = x % 2.5"} {
		_, err := Expr[float32](src, map[string]float32{"a": 1})
		var e *expr.Error
		if !errors.Is(err, ErrInvalid) || !errors.As(err, &e) {
			t.Errorf("Expr(%q) = %v, want ErrInvalid wrapping an *expr.Error", src, err)
		}
	}
	f, err := Expr[float32]("y = x", nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Source("hip"); !errors.Is(err, ur.ErrUnsupportedFeature) {
		t.Errorf("Source(hip): %v", err)
	}
	if lz, cl := must[string](t)(f.Source("level_zero")), must[string](t)(f.Source("opencl")); lz != cl {
		t.Error("Source(level_zero) is not the OpenCL C, which Level Zero gets compiled to SPIR-V")
	}
}

// Signed integer arithmetic wraps on every context: a device compiler,
// for which signed overflow is undefined, must not fold x + 1 > x to
// true.
func TestExprIntegerWrap(t *testing.T) {
	testExprIntegerWrap(t, []int32{math.MaxInt32, math.MinInt32, 5, -1, 0})
	testExprIntegerWrap(t, []int64{math.MaxInt64, math.MinInt64, 5, -1, 0})
}

func testExprIntegerWrap[T int32 | int64](t *testing.T, xs []T) {
	ctxs := contexts(t)
	for _, tc := range []struct {
		src  string
		want func(x T) T
	}{
		{"y = x + 1 > x ? 1 : 0", func(x T) T {
			if x+1 > x {
				return 1
			}
			return 0
		}},
		{"y = -x < 0 ? 1 : 0", func(x T) T {
			if -x < 0 {
				return 1
			}
			return 0
		}},
		{"y = x * 2 / 2", func(x T) T { return x * 2 / 2 }},
		{"y = x*x - 3*x", func(x T) T { return x*x - 3*x }},
	} {
		f, err := Expr[T](tc.src, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, ctx := range ctxs {
			t.Run(fmt.Sprintf("%T/%s/%s", xs[0], tc.src, ctx), func(t *testing.T) {
				x := must[*Array[T]](t)(FromSlice(ctx, xs))
				defer x.Release()
				y := must[*Array[T]](t)(Zeros[T](ctx, len(xs)))
				defer y.Release()
				if err := Transform(ctx, f, y, x); err != nil {
					t.Fatal(err)
				}
				got := must[[]T](t)(y.ToSlice())
				for i, v := range got {
					if w := tc.want(xs[i]); v != w {
						t.Errorf("x = %d: y = %d, want %d", xs[i], v, w)
					}
				}
			})
		}
	}
}

// A chain of 4096 terms, the longest expr takes, builds and runs on every
// context: the kernels write it flat, within the device compilers'
// nesting limits.
func TestExprLongChain(t *testing.T) {
	f, err := Expr[int32]("y = x"+strings.Repeat(" - x", 2048)+strings.Repeat(" + x*a", 2047), map[string]int32{"a": 3})
	if err != nil {
		t.Fatal(err)
	}
	xs := []int32{1, -2, math.MaxInt32}
	for _, ctx := range contexts(t) {
		t.Run(ctx.String(), func(t *testing.T) {
			x := must[*Array[int32]](t)(FromSlice(ctx, xs))
			defer x.Release()
			y := must[*Array[int32]](t)(Zeros[int32](ctx, len(xs)))
			defer y.Release()
			if err := Transform(ctx, f, y, x); err != nil {
				t.Fatal(err)
			}
			for i, v := range must[[]int32](t)(y.ToSlice()) {
				if want := xs[i] * (1 - 2048 + 3*2047); v != want { // wraps for MaxInt32
					t.Errorf("x = %d: y = %d, want %d", xs[i], v, want)
				}
			}
		})
	}
}
