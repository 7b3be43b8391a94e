package compute

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/gour-dev/gour/dtype"
	"github.com/gour-dev/gour/ur"
)

// axpySources is y = a*x + y over float32 (inputs x, y; parameter a).
var axpySources = map[string]string{
	"opencl": `__kernel void axpy(__global float* out, __global const float* x, __global const float* y, float a, ulong n) {
	size_t i = get_global_id(0);
	if (i < n) out[i] = a * x[i] + y[i];
}`,
	"cuda": `extern "C" __global__ void axpy(float* out, const float* x, const float* y, float a, unsigned long long n) {
	unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) out[i] = a * x[i] + y[i];
}`,
}

func axpyCPU(out []float32, ins [][]float32, p []float32, lo, hi int) {
	x, y, a := ins[0][lo:hi], ins[1][lo:hi], p[0]
	o := out[lo:hi]
	for i := range o {
		o[i] = a*x[i] + y[i]
	}
}

func newAxpy(t testing.TB, a float32) *SourceFunc[float32] {
	t.Helper()
	f, err := NewFunc("axpy", 2, axpyCPU, axpySources)
	if err != nil {
		t.Fatal(err)
	}
	return f.With(a)
}

func must[T any](t testing.TB) func(T, error) T {
	return func(v T, err error) T {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
}

func TestAxpyAllContexts(t *testing.T) {
	const n = 100_003 // not a multiple of any work-group size
	xs, ys := make([]float32, n), make([]float32, n)
	for i := range n {
		xs[i], ys[i] = float32(i%1000)/7, float32(i%13)
	}
	fn := newAxpy(t, 2.5)
	for _, ctx := range contexts(t) {
		t.Run(ctx.String(), func(t *testing.T) {
			x := must[*Array[float32]](t)(FromSlice(ctx, xs))
			y := must[*Array[float32]](t)(FromSlice(ctx, ys))
			defer x.Release()
			defer y.Release()
			if err := Transform(ctx, fn, y, x, y); err != nil {
				t.Fatal(err)
			}
			got := must[[]float32](t)(y.ToSlice())
			for i := range n {
				// One fused or unfused multiply-add: within an ulp or two.
				want := 2.5*xs[i] + ys[i]
				if d := math.Abs(float64(got[i] - want)); d > 1e-6*math.Abs(float64(want))+1e-6 {
					t.Fatalf("y[%d] = %v, want %v", i, got[i], want)
				}
			}
		})
	}
}

func testBuiltins[T Number](t *testing.T, ctx Context, gen func(i int) T, tol float64) {
	for _, n := range []int{0, 1, 7, 256, 1000, 70_001} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			data := make([]T, n)
			for i := range data {
				data[i] = gen(i)
			}
			a := must[*Array[T]](t)(FromSlice(ctx, data))
			defer a.Release()
			for _, op := range []ReduceOp[T]{Sum[T](), Prod[T](), Min[T](), Max[T]()} {
				got, err := Reduce(ctx, a, op)
				if err != nil {
					t.Fatalf("%s: %v", op.Name, err)
				}
				want := op.Identity
				for _, v := range data {
					want = op.Combine(want, v)
				}
				if !near(float64(got), float64(want), tol, n) {
					t.Errorf("%s over %d: got %v, want %v", op.Name, n, got, want)
				}
			}
			b := must[*Array[T]](t)(Zeros[T](ctx, n))
			defer b.Release()
			if err := Copy(ctx, b, a); err != nil {
				t.Fatal(err)
			}
			dot, err := Dot(ctx, a, b)
			if err != nil {
				t.Fatal(err)
			}
			var want T
			for _, v := range data {
				want += v * v
			}
			if !near(float64(dot), float64(want), tol, n) {
				t.Errorf("dot over %d: got %v, want %v", n, dot, want)
			}
			if err := Fill(ctx, b, 3); err != nil {
				t.Fatal(err)
			}
			got := must[[]T](t)(b.ToSlice())
			for i, v := range got {
				if v != 3 {
					t.Fatalf("after Fill(3): b[%d] = %v", i, v)
				}
			}
		})
	}
}

// near compares a reduction's result: exactly for integers (tol 0, which
// wrap alike everywhere), else within tol relative to the magnitude
// times sqrt(n), the growth of rounding errors of sums in another order.
func near(got, want, tol float64, n int) bool {
	if got == want || (math.IsNaN(got) && math.IsNaN(want)) {
		return true
	}
	if tol == 0 {
		return false
	}
	return math.Abs(got-want) <= tol*math.Max(1, math.Abs(want))*math.Sqrt(float64(max(n, 1)))
}

func TestBuiltinsAllTypes(t *testing.T) {
	for _, ctx := range contexts(t) {
		t.Run(ctx.String(), func(t *testing.T) {
			r := rand.New(rand.NewPCG(1, 2))
			// Products of values near 1 stay finite; float sums of
			// positive values are compared within a relative 1e-6√n.
			t.Run("float32", func(t *testing.T) {
				testBuiltins(t, ctx, func(int) float32 { return 0.999 + float32(r.Float64())*0.002 }, 1e-6)
			})
			t.Run("float64", func(t *testing.T) {
				testBuiltins(t, ctx, func(int) float64 { return 0.999 + r.Float64()*0.002 }, 1e-14)
			})
			t.Run("int32", func(t *testing.T) { testBuiltins(t, ctx, func(i int) int32 { return int32(r.IntN(2001) - 1000) }, 0) })
			t.Run("uint32", func(t *testing.T) { testBuiltins(t, ctx, func(i int) uint32 { return uint32(r.IntN(1000)) }, 0) })
			t.Run("int64", func(t *testing.T) { testBuiltins(t, ctx, func(i int) int64 { return int64(r.IntN(2001) - 1000) }, 0) })
			t.Run("uint64", func(t *testing.T) { testBuiltins(t, ctx, func(i int) uint64 { return uint64(r.IntN(1 << 20)) }, 0) })
		})
	}
}

func TestErrorsTyped(t *testing.T) {
	for _, ctx := range contexts(t) {
		t.Run(ctx.String(), func(t *testing.T) {
			a := must[*Array[float32]](t)(Zeros[float32](ctx, 4, 3))
			b := must[*Array[float32]](t)(Zeros[float32](ctx, 3, 4))
			if err := Copy(ctx, a, b); !errors.Is(err, ErrShape) {
				t.Errorf("Copy of shapes %v, %v: %v, want ErrShape", a.Shape(), b.Shape(), err)
			}
			if _, err := FromSlice(ctx, []float32{1, 2, 3}, 2, 2); !errors.Is(err, ErrShape) {
				t.Errorf("FromSlice 3 elements as 2x2: %v", err)
			}
			if _, err := Zeros[int32](ctx, 2, -1); !errors.Is(err, ErrShape) {
				t.Errorf("Zeros(2,-1): %v", err)
			}
			if err := Transform(ctx, newAxpy(t, 1), a, a); !errors.Is(err, ErrInvalid) {
				t.Errorf("axpy with one input: %v", err)
			}
			if err := Transform[float32](ctx, nil, a, a); !errors.Is(err, ErrInvalid) {
				t.Errorf("nil Func: %v", err)
			}
			if _, err := Dot(ctx, a, nil); !errors.Is(err, ErrInvalid) {
				t.Errorf("Dot with nil: %v", err)
			}
			b.Release()
			if err := Fill(ctx, b, 1); !errors.Is(err, ErrReleased) {
				t.Errorf("Fill of a released array: %v", err)
			}
			if _, err := b.ToSlice(); !errors.Is(err, ErrReleased) {
				t.Errorf("ToSlice of a released array: %v", err)
			}
			if err := b.Release(); err != nil {
				t.Errorf("second Release: %v", err)
			}
			other := NewCPU(1)
			if err := Fill(other, a, 1); !errors.Is(err, ErrWrongContext) {
				t.Errorf("Fill with another context: %v", err)
			}
			c := must[*Array[float32]](t)(Zeros[float32](other, 4, 3))
			if err := Copy(ctx, a, c); !errors.Is(err, ErrWrongContext) {
				t.Errorf("Copy from another context's array: %v", err)
			}
			if _, err := Reduce(ctx, a, ReduceOp[float32]{Name: "bad name"}); !errors.Is(err, ErrInvalid) {
				t.Errorf("bad operator: %v", err)
			}
			a.Release()
		})
	}
}

// A nil *Device or *CPU is a context that gives ErrInvalid, not a panic,
// in every operation and accessor.
func TestNilContexts(t *testing.T) {
	cpu := NewCPU(2)
	a := must[*Array[float32]](t)(FromSlice(cpu, []float32{1, 2, 3}))
	f := newAxpy(t, 1)
	for _, ctx := range []Context{(*Device)(nil), (*CPU)(nil)} {
		t.Run(fmt.Sprintf("%T", ctx), func(t *testing.T) {
			check := func(what string, err error) {
				t.Helper()
				if !errors.Is(err, ErrInvalid) {
					t.Errorf("%s on a nil %T: %v, want ErrInvalid", what, ctx, err)
				}
			}
			check("Fill", Fill(ctx, a, 1))
			check("Copy", Copy(ctx, a, a))
			check("Transform", Transform(ctx, f, a, a, a))
			_, err := Reduce(ctx, a, Sum[float32]())
			check("Reduce", err)
			_, err = Dot(ctx, a, a)
			check("Dot", err)
			_, err = Zeros[float32](ctx, 3)
			check("Zeros", err)
			_, err = NewTaskSequence(ctx, func(context.Context, Context, int) (int, error) { return 0, nil }, 1)
			check("NewTaskSequence", err)
			if ctx.String() == "" || ctx.Release() != nil {
				t.Errorf("String or Release of a nil %T", ctx)
			}
		})
	}
	var d *Device
	if dev, _, _ := d.UR(); dev != nil || d.Manager() != nil || d.UsesUSM() || d.Launches() != 0 || d.Backend() != "" {
		t.Error("accessors of a nil *Device")
	}
	if err := d.Wait(); !errors.Is(err, ErrInvalid) {
		t.Errorf("Wait on a nil *Device: %v", err)
	}
	var s *TaskSequence[int, int]
	if err := s.Async(context.Background(), 1); !errors.Is(err, ErrInvalid) {
		t.Errorf("Async on a nil *TaskSequence: %v", err)
	}
	if _, err := s.Get(context.Background()); !errors.Is(err, ErrInvalid) {
		t.Errorf("Get on a nil *TaskSequence: %v", err)
	}
	if s.Release(context.Background()) != nil || s.Capacity() != 0 || s.Outstanding() != 0 {
		t.Error("Release, Capacity or Outstanding of a nil *TaskSequence")
	}
}

// A released Device gives ErrReleased before it builds anything, and an
// array of another context gives ErrWrongContext, even with a Func that
// has no source for the device.
func TestDeviceContextChecksFirst(t *testing.T) {
	cpu := NewCPU(2)
	onCPU := must[*Array[float32]](t)(FromSlice(cpu, []float32{1, 2, 3}))
	cpuOnly := must[*SourceFunc[float32]](t)(NewFunc("cpu_only", 1, func(out []float32, ins [][]float32, _ []float32, lo, hi int) {
		copy(out[lo:hi], ins[0][lo:hi])
	}, nil))
	for _, dd := range deviceContexts(t) {
		t.Run(devName(dd), func(t *testing.T) {
			if err := Fill(dd, onCPU, 1); !errors.Is(err, ErrWrongContext) {
				t.Errorf("Fill on %v of a CPU array: %v, want ErrWrongContext", dd, err)
			}
			if err := Transform(dd, cpuOnly, onCPU, onCPU); !errors.Is(err, ErrWrongContext) {
				t.Errorf("Transform on %v of CPU arrays: %v, want ErrWrongContext", dd, err)
			}

			// A Device with a manager of its own, which Release closes.
			_, _, q := dd.UR()
			d, err := NewDeviceFrom(q, DeviceOptions{})
			if err != nil {
				t.Fatal(err)
			}
			a := must[*Array[float32]](t)(FromSlice(d, []float32{1, 2, 3})) // host storage only
			if err := d.Release(); err != nil {
				t.Fatal(err)
			}
			check := func(what string, err error) {
				t.Helper()
				if !errors.Is(err, ErrReleased) {
					t.Errorf("%s on a released Device: %v, want ErrReleased", what, err)
				}
			}
			check("Fill", Fill(d, a, 1))
			check("Copy", Copy(d, a, a))
			check("Transform", Transform(d, newAxpy(t, 1), a, a, a))
			_, err = Reduce(d, a, Sum[float32]())
			check("Reduce", err)
			_, err = Zeros[float32](d, 3)
			check("Zeros", err)
			if got := must[[]float32](t)(a.ToSlice()); got[2] != 3 {
				t.Errorf("a = %v after failed operations, want [1 2 3]", got)
			}
			if err := a.Release(); err != nil {
				t.Errorf("Release of a host-only array of a released Device: %v", err)
			}
		})
	}
}

// A shape whose size in bytes overflows int, or that the host cannot
// allocate, is an error wrapping ErrShape, not a panic.
func TestHugeShapes(t *testing.T) {
	for _, ctx := range contexts(t) {
		t.Run(ctx.String(), func(t *testing.T) {
			for _, shape := range [][]int{{1 << 60}, {1 << 61}, {1 << 62}, {1 << 31, 1 << 31}} {
				if _, err := Zeros[float64](ctx, shape...); !errors.Is(err, ErrShape) {
					t.Errorf("Zeros[float64]%v: %v, want ErrShape", shape, err)
				}
				if _, err := FromSlice(ctx, []int32{1}, shape...); !errors.Is(err, ErrShape) {
					t.Errorf("FromSlice[int32]%v: %v, want ErrShape", shape, err)
				}
			}
		})
	}
	// 2^62 bytes fit an int but not Go's address space.
	if _, err := Zeros[float64](NewCPU(1), 1<<59); !errors.Is(err, ErrShape) {
		t.Errorf("Zeros[float64](1<<59) on the CPU: %v, want ErrShape", err)
	}
}

// A panic while the CPU context sets up an operation or combines a
// reduction's partial results is returned as an error, like one in a
// chunk.
func TestCPUPanicsOutsideChunks(t *testing.T) {
	c := NewCPU(1)
	op := &ewOp{n: 10, cpu: setupPanics{}}
	if err := run(c, op, nil); err == nil || !strings.Contains(err.Error(), "setup") {
		t.Errorf("a panic in an operation's setup: %v", err)
	}
	a := must[*Array[int32]](t)(FromSlice(c, []int32{1, 2, 3}))
	calls := 0 // one chunk: three calls for the elements, the fourth combines the partials
	op2 := ReduceOp[int32]{Name: "late", Combine: func(x, y int32) int32 {
		if calls++; calls > 3 {
			panic("combining partials")
		}
		return x + y
	}}
	if _, err := Reduce(c, a, op2); err == nil || !strings.Contains(err.Error(), "combining partials") {
		t.Errorf("a panic combining partials: %v", err)
	}
}

// setupPanics is a CPU body that panics making the body.
type setupPanics struct{}

func (setupPanics) body(*ewOp) func(lo, hi int) { panic("setup") }

// A nil pointer of the package's Funcs is a nil Func: ErrInvalid, not a
// panic in its methods.
func TestNilFuncs(t *testing.T) {
	c := NewCPU(1)
	a := must[*Array[float32]](t)(FromSlice(c, []float32{1, 2}))
	var sf *SourceFunc[float32]
	var ef *ExprFunc[float32]
	for _, fn := range []Func[float32]{sf, ef, sf.With(1)} {
		if err := Transform(c, fn, a, a); !errors.Is(err, ErrInvalid) {
			t.Errorf("Transform with a nil %T: %v, want ErrInvalid", fn, err)
		}
	}
	if _, err := ef.With(map[string]float32{"a": 1}); !errors.Is(err, ErrInvalid) {
		t.Errorf("With on a nil *ExprFunc: %v", err)
	}
}

// Transform asks its Func for Inputs on every call: an ExprFunc answers
// without copying its array names.
func TestExprFuncInputsAllocatesNothing(t *testing.T) {
	f := must[*ExprFunc[float32]](t)(Expr[float32]("y = a*x + y", map[string]float32{"a": 2}))
	n := 0
	if allocs := testing.AllocsPerRun(100, func() { n = f.Inputs() }); allocs != 0 || n != 2 {
		t.Errorf("Inputs() = %d with %v allocations, want 2 with none", n, allocs)
	}
}

// Copy takes the driver's copy on a GPU and the copy kernel on a CPU
// device (PoCL's buffer copy runs on one thread), with the same result,
// whether the arrays are USM or buffers.
func TestCopyPath(t *testing.T) {
	forDevicesBothStorages(t, func(t *testing.T, d *Device) {
		const n = 1 << 16
		data := make([]int32, n)
		for i := range data {
			data[i] = int32(i*7 - n)
		}
		a := must[*Array[int32]](t)(FromSlice(d, data))
		defer a.Release()
		b := must[*Array[int32]](t)(Zeros[int32](d, n))
		defer b.Release()
		if err := d.Wait(); err != nil {
			t.Fatal(err)
		}
		before := d.launches.Load()
		if err := Copy(d, b, a); err != nil {
			t.Fatal(err)
		}
		launched := d.launches.Load() - before
		cpu := d.dev.Info().Type == ur.DeviceTypeCPU
		if want := map[bool]int64{true: 1, false: 0}[cpu]; launched != want {
			t.Errorf("a CPU device (%v): Copy launched %d kernels, want %d", cpu, launched, want)
		}
		got := must[[]int32](t)(b.ToSlice())
		for i := range got {
			if got[i] != data[i] {
				t.Fatalf("b[%d] = %d after Copy, want %d", i, got[i], data[i])
			}
		}
	})
}

func TestArrayDType(t *testing.T) {
	cpu := NewCPU(1)
	defer cpu.Release()
	type meters float64
	f32 := must[*Array[float32]](t)(Zeros[float32](cpu, 1))
	m := must[*Array[meters]](t)(Zeros[meters](cpu, 1))
	u := must[*Array[uint32]](t)(Zeros[uint32](cpu, 1))
	bf := must[*Array[BFloat16]](t)(Zeros[BFloat16](cpu, 1))
	defer func() { _ = errors.Join(f32.Release(), m.Release(), u.Release(), bf.Release()) }()
	for _, c := range []struct{ got, want dtype.Type }{
		{f32.DType(), dtype.Float32}, {m.DType(), dtype.Float64}, {u.DType(), dtype.Uint32}, {bf.DType(), dtype.BFloat16},
	} {
		if c.got != c.want {
			t.Errorf("DType = %v, want %v", c.got, c.want)
		}
	}
}
