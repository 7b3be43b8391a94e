package compute

import (
	"errors"
	"fmt"
	"testing"

	"github.com/gour-dev/gour/internal/harness/testenv"
	"github.com/gour-dev/gour/ur"
)

// TestElementsPerThread runs expressions' Transforms on Devices computing
// four elements a work-item (the GPU default, forced here on every
// device) and one, on USM and on buffers, at sizes with and without a
// tail past the last whole four, for float32, int32 and float64, and
// checks every element against the CPU's.
func TestElementsPerThread(t *testing.T) {
	testenv.CheckRequired(t)
	for _, dev := range testenv.System(t).Devices {
		if dev.Backend() != "opencl" && dev.Backend() != "cuda" {
			continue
		}
		for _, opts := range []DeviceOptions{{ElementsPerThread: 4}, {ElementsPerThread: 4, Buffers: true}, {ElementsPerThread: 1}} {
			t.Run(fmt.Sprintf("%s/%d-buffers=%v", dev.Name(), opts.ElementsPerThread, opts.Buffers), func(t *testing.T) {
				q := queueOf(t, dev)
				d, err := NewDeviceFrom(q, opts)
				if err != nil {
					t.Fatal(err)
				}
				defer d.Release()
				if d.perThread != opts.ElementsPerThread {
					t.Fatalf("perThread %d, want %d", d.perThread, opts.ElementsPerThread)
				}
				for _, n := range []int{1, 3, 4, 1000, 4099} {
					checkVec4[float32](t, d, "y = a*x + y", n)
					checkVec4[int32](t, d, "let t = x*x; y = t > 10 ? t - y : a*y + x", n)
					if d.fp64 {
						checkVec4[float64](t, d, "y = fma(a, x, y) / 2", n)
					}
					checkReduce4[float32](t, d, n)
					checkReduce4[int32](t, d, n)
				}
				d.kernels.mu.Lock()
				vec := 0
				for id := range d.kernels.byID {
					if id.name == exprVec4Kernel {
						vec++
					}
				}
				d.kernels.mu.Unlock()
				if (vec > 0) != (opts.ElementsPerThread == 4) {
					t.Errorf("%d four-a-work-item kernels built with ElementsPerThread %d", vec, opts.ElementsPerThread)
				}
				d.kernels.mu.Lock()
				red4 := 0
				for id := range d.kernels.byID {
					if id.name == "reduce4_sum_f32" || id.name == "dot4_sum_i32" {
						red4++
					}
				}
				d.kernels.mu.Unlock()
				if (red4 == 2) != (opts.ElementsPerThread == 4) {
					t.Errorf("%d of reduce4_sum_f32, dot4_sum_i32 built with ElementsPerThread %d", red4, opts.ElementsPerThread)
				}
			})
		}
	}
	if _, err := NewDeviceFrom(queueOf(t, testenv.System(t).Devices[0]), DeviceOptions{ElementsPerThread: 3}); !errors.Is(err, ErrInvalid) {
		t.Errorf("ElementsPerThread 3: %v, want ErrInvalid", err)
	}
}

func checkVec4[T int32 | float32 | float64](t *testing.T, d *Device, src string, n int) {
	t.Helper()
	f, err := Expr[T](src, map[string]T{"a": 3})
	if err != nil {
		t.Fatal(err)
	}
	xs, ys := make([]T, n), make([]T, n)
	for i := range n {
		xs[i], ys[i] = T(i%13-6), T(i%5)
	}
	cpu := NewCPU(1)
	want := transformOn(t, cpu, f, xs, ys)
	got := transformOn(t, d, f, xs, ys)
	for i := range n {
		if got[i] != want[i] {
			t.Fatalf("%s over %d elements on %v: element %d = %v, want %v", src, n, d, i, got[i], want[i])
		}
	}
}

func transformOn[T int32 | float32 | float64](t *testing.T, ctx Context, f Func[T], xs, ys []T) []T {
	t.Helper()
	x := must[*Array[T]](t)(FromSlice(ctx, xs))
	defer x.Release()
	y := must[*Array[T]](t)(FromSlice(ctx, ys))
	defer y.Release()
	if err := Transform(ctx, f, y, x, y); err != nil {
		t.Fatal(err)
	}
	return must[[]T](t)(y.ToSlice())
}

// checkReduce4 checks Reduce (Sum, Max) and Dot on d against the CPU's,
// over values whose sums are exact in float32.
func checkReduce4[T int32 | float32](t *testing.T, d *Device, n int) {
	t.Helper()
	xs, ys := make([]T, n), make([]T, n)
	for i := range n {
		xs[i], ys[i] = T(i%13-6), T(i%5)
	}
	xs[n-1] = 100 // the last element: past the last whole four where n%4 != 0
	want, got := reductions(t, NewCPU(1), xs, ys), reductions(t, d, xs, ys)
	if got != want {
		t.Errorf("%T over %d on %v: sum, max, dot %v; want %v", xs[0], n, d, got, want)
	}
}

// reductions returns the Sum and Max of xs and the Dot of xs and ys on
// ctx.
func reductions[T int32 | float32](t *testing.T, ctx Context, xs, ys []T) [3]T {
	t.Helper()
	x := must[*Array[T]](t)(FromSlice(ctx, xs))
	defer x.Release()
	y := must[*Array[T]](t)(FromSlice(ctx, ys))
	defer y.Release()
	return [3]T{must[T](t)(Reduce(ctx, x, Sum[T]())), must[T](t)(Reduce(ctx, x, Max[T]())), must[T](t)(Dot(ctx, x, y))}
}

// TestTransformFourAllocatesNoMore: an expression's Transform on a
// Device of four elements a work-item, its kernel built, allocates no
// more than one of one element a work-item: the kernel's program is the
// ExprFunc's, made once.
func TestTransformFourAllocatesNoMore(t *testing.T) {
	if raceEnabled {
		t.Skip("-race: sync.Pool drops items at random")
	}
	testenv.CheckRequired(t)
	f := must[*ExprFunc[float32]](t)(Expr[float32]("y = a*x + y", map[string]float32{"a": 2}))
	for _, dev := range testenv.System(t).Devices {
		if dev.Backend() != "opencl" && dev.Backend() != "cuda" {
			continue
		}
		allocs := map[int]float64{}
		for _, per := range []int{1, 4} {
			d := must[*Device](t)(NewDeviceFrom(queueOf(t, dev), DeviceOptions{ElementsPerThread: per}))
			x := must[*Array[float32]](t)(FromSlice(d, make([]float32, 4096)))
			y := must[*Array[float32]](t)(FromSlice(d, make([]float32, 4096)))
			if err := Transform(d, f, y, x, y); err != nil { // builds
				t.Fatal(err)
			}
			allocs[per] = testing.AllocsPerRun(50, func() {
				if err := Transform(d, f, y, x, y); err != nil {
					t.Fatal(err)
				}
			})
			must[[]float32](t)(y.ToSlice())
			x.Release()
			y.Release()
			if err := d.Release(); err != nil {
				t.Fatal(err)
			}
		}
		t.Logf("%s: allocations a Transform: %v", dev.Name(), allocs)
		if allocs[4] > allocs[1] {
			t.Errorf("%s: a Transform allocates %v times with four elements a work-item, %v with one", dev.Name(), allocs[4], allocs[1])
		}
	}
}

// queueOf is an in-order queue of dev in a context of its own, both
// released when the test ends.
func queueOf(t *testing.T, dev *ur.Device) *ur.Queue {
	_, q := testenv.ContextQueue(t, dev)
	return q
}
