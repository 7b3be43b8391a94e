package compute

import (
	"errors"
	"testing"

	"github.com/gour-dev/gour/ur"
)

func wantTransfers[T Number](t *testing.T, what string, a *Array[T], up, down int64) {
	t.Helper()
	if got := a.Transfers(); got != (Transfers{up, down}) {
		t.Errorf("%s: transfers %+v, want {Uploads:%d Downloads:%d}", what, got, up, down)
	}
}

// axpyArrays returns the data xs[i] = i and ys[i] = 1 of n elements and
// arrays x and y of them on ctx for axpy, released when t ends.
func axpyArrays(t *testing.T, ctx Context, n int) (xs, ys []float32, x, y *Array[float32]) {
	t.Helper()
	xs, ys = make([]float32, n), make([]float32, n)
	for i := range n {
		xs[i], ys[i] = float32(i), 1
	}
	x = must[*Array[float32]](t)(FromSlice(ctx, xs))
	t.Cleanup(func() { x.Release() })
	y = must[*Array[float32]](t)(FromSlice(ctx, ys))
	t.Cleanup(func() { y.Release() })
	return xs, ys, x, y
}

// testAccessModes checks that each operation makes the transfers its
// access modes need and no others.
func testAccessModes(t *testing.T, d *Device) {
	const n = 5000
	xs, ys, x, y := axpyArrays(t, d, n)
	axpy := newAxpy(t, 2)
	wantTransfers(t, "new arrays", x, 0, 0)

	// y = 2x + y: x In, y InOut (an input and the output).
	if err := Transform(d, axpy, y, x, y); err != nil {
		t.Fatal(err)
	}
	wantTransfers(t, "x after the first Transform", x, 1, 0)
	wantTransfers(t, "y after the first Transform", y, 1, 0)
	for range 5 {
		if err := Transform(d, axpy, y, x, y); err != nil {
			t.Fatal(err)
		}
	}
	wantTransfers(t, "x after repeated Transforms", x, 1, 0)
	wantTransfers(t, "y after repeated Transforms", y, 1, 0)

	got := must[[]float32](t)(y.ToSlice())
	if want := 12*xs[7] + 1; got[7] != want {
		t.Errorf("y[7] = %v, want %v", got[7], want)
	}
	wantTransfers(t, "y after ToSlice", y, 1, 1)
	must[[]float32](t)(y.ToSlice())
	wantTransfers(t, "y after a second ToSlice", y, 1, 1)
	// ToSlice leaves the device copy valid: reading y on the device
	// uploads nothing.
	if _, err := Reduce(d, y, Sum[float32]()); err != nil {
		t.Fatal(err)
	}
	wantTransfers(t, "y read on the device after ToSlice", y, 1, 1)

	// Out: the output is never uploaded, even with a valid host copy.
	z := must[*Array[float32]](t)(FromSlice(d, ys))
	defer z.Release()
	if err := Transform(d, axpy, z, x, y); err != nil {
		t.Fatal(err)
	}
	if err := Fill(d, z, 4); err != nil {
		t.Fatal(err)
	}
	wantTransfers(t, "z written twice as Out", z, 0, 0)
	zs := must[[]float32](t)(z.ToSlice())
	if zs[0] != 4 || zs[n-1] != 4 {
		t.Errorf("z after Fill(4): %v ... %v", zs[0], zs[n-1])
	}
	wantTransfers(t, "z after ToSlice", z, 0, 1)

	// Zeros on the device: no transfer until the host asks.
	w := must[*Array[float32]](t)(Zeros[float32](d, n))
	defer w.Release()
	if err := Copy(d, w, x); err != nil {
		t.Fatal(err)
	}
	wantTransfers(t, "w from Zeros then Copy", w, 0, 0)

	// Host hands out the host storage for writing: the device copy is
	// stale, so the next read on the device uploads again.
	h := must[[]float32](t)(x.Host())
	wantTransfers(t, "x after Host (host copy was valid)", x, 1, 0)
	h[0] = 100
	if err := Transform(d, axpy, y, x, y); err != nil {
		t.Fatal(err)
	}
	wantTransfers(t, "x after Host and a Transform", x, 2, 0)
	got = must[[]float32](t)(y.ToSlice())
	if want := 2*100 + 12*xs[0] + 1; got[0] != want {
		t.Errorf("y[0] = %v, want %v", got[0], want)
	}

	// Arg: a kernel of one's own gets the array prepared by mode.
	if _, err := w.Arg(InOut); err != nil {
		t.Fatal(err)
	}
	wantTransfers(t, "w after Arg(InOut), device valid", w, 0, 0)
	must[[]float32](t)(w.Host())
	if _, err := w.Arg(In); err != nil {
		t.Fatal(err)
	}
	wantTransfers(t, "w after Host (stale device copy) then Arg(In)", w, 1, 1)
	if _, err := w.Arg(0); !errors.Is(err, ErrInvalid) {
		t.Errorf("Arg(0): %v", err)
	}
}

func TestAccessModesUSM(t *testing.T) {
	for _, d := range deviceContexts(t) {
		t.Run(d.String(), func(t *testing.T) {
			if !d.UsesUSM() {
				t.Logf("%v has no device USM: arrays are buffers", d)
			}
			testAccessModes(t, d)
		})
	}
}

func TestAccessModesBuffers(t *testing.T) {
	for _, dd := range deviceContexts(t) {
		_, _, q := dd.UR()
		d, err := NewDeviceFrom(q, DeviceOptions{Buffers: true, Manager: dd.Manager()})
		if err != nil {
			t.Fatal(err)
		}
		if d.UsesUSM() {
			t.Fatal("Buffers: true, yet the arrays use USM")
		}
		t.Run(d.String(), func(t *testing.T) { testAccessModes(t, d) })
		if err := d.Release(); err != nil {
			t.Fatal(err)
		}
	}
}

func TestCPUNoTransfers(t *testing.T) {
	c := NewCPU(0)
	x := must[*Array[float32]](t)(FromSlice(c, []float32{1, 2, 3}))
	y := must[*Array[float32]](t)(Zeros[float32](c, 3))
	if err := Transform(c, newAxpy(t, 2), y, x, y); err != nil {
		t.Fatal(err)
	}
	got := must[[]float32](t)(y.ToSlice())
	if got[2] != 6 {
		t.Errorf("y = %v", got)
	}
	wantTransfers(t, "x", x, 0, 0)
	wantTransfers(t, "y", y, 0, 0)
	if _, err := x.Arg(In); !errors.Is(err, ErrWrongContext) {
		t.Errorf("Arg on a CPU array: %v", err)
	}
}

func TestUserReduceOps(t *testing.T) {
	ints := make([]int32, 12345)
	floats := make([]float32, 12345)
	for i := range ints {
		ints[i] = int32(i*2654435761) ^ int32(i)
		floats[i] = float32(i%1000-500) / 3
	}
	xor := ReduceOp[int32]{Name: "xor", Identity: 0, Combine: func(a, b int32) int32 { return a ^ b }, Expr: "a ^ b"}
	absmax := ReduceOp[float32]{Name: "absmax", Identity: 0, Combine: func(a, b float32) float32 {
		a, b = max(a, -a), max(b, -b)
		if b > a {
			return b
		}
		return a
	}, Expr: "fabs(b) > fabs(a) ? fabs(b) : fabs(a)"}
	var wantX int32
	for _, v := range ints {
		wantX ^= v
	}
	for _, ctx := range contexts(t) {
		t.Run(ctx.String(), func(t *testing.T) {
			a := must[*Array[int32]](t)(FromSlice(ctx, ints))
			defer a.Release()
			if got := must[int32](t)(Reduce(ctx, a, xor)); got != wantX {
				t.Errorf("xor = %d, want %d", got, wantX)
			}
			f := must[*Array[float32]](t)(FromSlice(ctx, floats))
			defer f.Release()
			if got := must[float32](t)(Reduce(ctx, f, absmax)); got != 500.0/3 {
				t.Errorf("absmax = %v, want %v", got, float32(500.0/3))
			}
			empty := must[*Array[int32]](t)(Zeros[int32](ctx, 0))
			if got := must[int32](t)(Reduce(ctx, empty, Min[int32]())); got != Min[int32]().Identity {
				t.Errorf("min of nothing = %d", got)
			}
			if ctx.Backend() != "cpu" {
				noExpr := ReduceOp[int32]{Name: "noexpr", Combine: xor.Combine}
				if _, err := Reduce(ctx, a, noExpr); !errors.Is(err, ur.ErrUnsupportedFeature) {
					t.Errorf("operator without Expr on a device: %v", err)
				}
			}
		})
	}
}

func TestCType(t *testing.T) {
	for _, c := range []struct{ got, want string }{
		{must[string](t)(CType[int64]("cuda")), "long long"},
		{must[string](t)(CType[uint32]("opencl")), "uint"},
		{must[string](t)(CType[float64]("cuda")), "double"},
	} {
		if c.got != c.want {
			t.Errorf("CType: %q, want %q", c.got, c.want)
		}
	}
	type meters float64
	if got := must[string](t)(CType[meters]("opencl")); got != "double" {
		t.Errorf("CType[meters]: %q", got)
	}
	if got := must[string](t)(CType[uint32]("level_zero")); got != "uint" { // OpenCL C
		t.Errorf("CType for level_zero: %q", got)
	}
	if _, err := CType[int32]("hip"); !errors.Is(err, ErrInvalid) {
		t.Errorf("CType for an unknown backend: %v", err)
	}
}

// TestLevelZeroSources: on Level Zero, a Device builds OpenCL C (which
// the program manager compiles to SPIR-V): a Func's "level_zero" source
// where it has one, else its "opencl" source; CUDA C alone is not enough.
func TestLevelZeroSources(t *testing.T) {
	f := newAxpy(t, 1)
	cl := must[string](t)(f.Source("opencl"))
	if got, err := deviceSource(f, "level_zero"); err != nil || got != cl {
		t.Errorf("a Func with OpenCL C on Level Zero: %q, %v; want its OpenCL C", got, err)
	}
	own, _ := NewFunc[float32]("k", 1, nil, map[string]string{"opencl": "A", "level_zero": "B"})
	if got, err := deviceSource(own, "level_zero"); err != nil || got != "B" {
		t.Errorf("a Func with a level_zero source: %q, %v", got, err)
	}
	cudaOnly, _ := NewFunc[float32]("k", 1, nil, map[string]string{"cuda": axpySources["cuda"]})
	if _, err := deviceSource(cudaOnly, "level_zero"); !errors.Is(err, ur.ErrUnsupportedFeature) {
		t.Errorf("a CUDA-only Func on Level Zero: %v", err)
	}
	// A Func of another package that knows no "level_zero" gives its
	// OpenCL C.
	other := sourceFunc(func(b string) (string, error) {
		if b == "opencl" {
			return "opencl source", nil
		}
		return "", errUnsupportedBackend(b)
	})
	if got, err := deviceSource(other, "level_zero"); err != nil || got != "opencl source" {
		t.Errorf("a Func without level_zero: %q, %v", got, err)
	}
	if _, err := deviceSource(f, "hip"); !errors.Is(err, ur.ErrUnsupportedFeature) {
		t.Errorf("an unknown backend: %v", err)
	}
	et := typeOf[float32]()
	lz, _ := builtinSource(et)("level_zero")
	if want, _ := builtinSource(et)("opencl"); lz != want {
		t.Error("the built-in program differs between OpenCL and Level Zero")
	}
	e, err := Expr[float32]("y = a*x + y", map[string]float32{"a": 2})
	if err != nil {
		t.Fatal(err)
	}
	if lz, want := must[string](t)(e.Source("level_zero")), must[string](t)(e.Source("opencl")); lz != want {
		t.Error("an Expr's Level Zero source is not its OpenCL C")
	}
	if ct, err := CType[float64]("level_zero"); err != nil || ct != "double" {
		t.Errorf("CType(level_zero) = %q, %v", ct, err)
	}
}

func TestCPUFuncPanicIsError(t *testing.T) {
	c := NewCPU(4)
	bad, err := NewFunc("bad", 1, func(out []float32, ins [][]float32, _ []float32, lo, hi int) {
		_ = ins[3] // a bug in the user's function
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	a := must[*Array[float32]](t)(Zeros[float32](c, 1<<16))
	if err := ForEach(c, bad, a); err == nil {
		t.Fatal("a panicking CPU function gave no error")
	}
	noCPU, _ := NewFunc[float32]("nocpu", 1, nil, axpySources)
	if err := ForEach(c, noCPU, a); !errors.Is(err, ur.ErrUnsupportedFeature) {
		t.Errorf("a Func without a CPU function on the CPU: %v", err)
	}
}

// TestSmallWorkGroups reduces with work-groups of 4, so that the first
// pass has more groups than the second pass's group has work-items and
// the second pass strides too, as on a GPU with hundreds of groups.
func TestSmallWorkGroups(t *testing.T) {
	for _, dd := range deviceContexts(t) {
		_, _, q := dd.UR()
		d, err := NewDeviceFrom(q, DeviceOptions{LocalSize: 4, Manager: dd.Manager()})
		if err != nil {
			t.Fatal(err)
		}
		defer d.Release()
		if _, err := NewDeviceFrom(q, DeviceOptions{LocalSize: 3}); !errors.Is(err, ErrInvalid) {
			t.Errorf("LocalSize 3: %v", err)
		}
		for _, n := range []int{1, 5, 63, 100_000} {
			data := make([]int64, n)
			var sum, maxv int64
			for i := range data {
				data[i] = int64(i*7919%10007) - 5000
				sum += data[i]
				if i == 0 || data[i] > maxv {
					maxv = data[i]
				}
			}
			a := must[*Array[int64]](t)(FromSlice(d, data))
			if got := must[int64](t)(Reduce(d, a, Sum[int64]())); got != sum {
				t.Errorf("n=%d: sum %d, want %d", n, got, sum)
			}
			if got := must[int64](t)(Reduce(d, a, Max[int64]())); got != maxv {
				t.Errorf("n=%d: max %d, want %d", n, got, maxv)
			}
			if got := must[int64](t)(Dot(d, a, a)); n == 5 && got != data[0]*data[0]+data[1]*data[1]+data[2]*data[2]+data[3]*data[3]+data[4]*data[4] {
				t.Errorf("n=5: dot %d", got)
			}
			a.Release()
		}
	}
}

// A Transform whose kernel does not build fails before its arrays change
// state: the output keeps its host data, nothing is uploaded, and the
// next good Transform gives the right result.
func TestFailedBuildLeavesArrays(t *testing.T) {
	bad, err := NewFunc("axpy", 2, axpyCPU, map[string]string{
		"opencl": "__kernel void axpy(__global float* out) { this is not OpenCL C }",
		"cuda":   `extern "C" __global__ void axpy(float* out) { this is not CUDA C }`,
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range deviceContexts(t) {
		t.Run(devName(d), func(t *testing.T) {
			_, _, x, y := axpyArrays(t, d, 1000)
			if err := Transform(d, bad.With(2), y, x, y); !errors.Is(err, ur.ErrProgramBuildFailure) {
				t.Fatalf("Transform with a kernel that does not build: %v, want ErrProgramBuildFailure", err)
			}
			wantTransfers(t, "x after the failed Transform", x, 0, 0)
			wantTransfers(t, "y after the failed Transform", y, 0, 0)
			got := must[[]float32](t)(y.ToSlice())
			for i, v := range got {
				if v != 1 {
					t.Fatalf("y[%d] = %v after a failed Transform, want its old value 1", i, v)
				}
			}
			if err := Transform(d, newAxpy(t, 2), y, x, y); err != nil {
				t.Fatal(err)
			}
			got = must[[]float32](t)(y.ToSlice())
			for i, v := range got {
				if want := 2*float32(i) + 1; v != want {
					t.Fatalf("y[%d] = %v after a good Transform, want %v", i, v, want)
				}
			}
		})
	}
}

// A Transform whose kernel builds but does not launch (it takes one
// argument fewer than Transform passes) leaves its arrays as they were:
// the output's host copy stays valid, with its old data.
func TestFailedLaunchLeavesArrays(t *testing.T) {
	// The kernels write nothing: should a driver launch them anyway, no
	// memory is touched.
	short, err := NewFunc("too_few", 2, axpyCPU, map[string]string{
		"opencl": "__kernel void too_few(__global float* out, __global const float* x, __global const float* y, float a) {}",
		"cuda":   `extern "C" __global__ void too_few(float* out, const float* x, const float* y, float a) {}`,
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range deviceContexts(t) {
		t.Run(devName(d), func(t *testing.T) {
			const n = 1000
			_, _, x, y := axpyArrays(t, d, n)
			zs := make([]float32, n)
			for i := range zs {
				zs[i] = 7
			}
			z := must[*Array[float32]](t)(FromSlice(d, zs))
			defer z.Release()
			err := Transform(d, short.With(2), y, x, y) // y InOut
			if err == nil {
				t.Skipf("%v launches a kernel with one argument too few", d)
			}
			if !errors.Is(err, ur.ErrInvalidKernelArgs) {
				t.Fatalf("Transform with a kernel of too few arguments: %v, want ErrInvalidKernelArgs", err)
			}
			if err := Transform(d, short.With(2), z, x, y); !errors.Is(err, ur.ErrInvalidKernelArgs) { // z Out
				t.Fatalf("Transform into z: %v, want ErrInvalidKernelArgs", err)
			}
			for _, c := range []struct {
				name string
				a    *Array[float32]
				want float32
			}{{"y", y, 1}, {"z", z, 7}} {
				got := must[[]float32](t)(c.a.ToSlice())
				for i, v := range got {
					if v != c.want {
						t.Fatalf("%s[%d] = %v after a failed launch, want its old value %v", c.name, i, v, c.want)
					}
				}
				wantTransfers(t, c.name+" after the failed launches and ToSlice (no download: the host copy is valid)", c.a, int64(map[string]int{"y": 1}[c.name]), 0)
			}
		})
	}
}

// An operation with a bad array changes none of its arrays: y, both an
// input and the output, is neither uploaded nor marked written when a
// later input has been released.
func TestFailedCheckLeavesArrays(t *testing.T) {
	for _, d := range deviceContexts(t) {
		t.Run(devName(d), func(t *testing.T) {
			y := must[*Array[float32]](t)(FromSlice(d, []float32{1, 2, 3}))
			x := must[*Array[float32]](t)(FromSlice(d, []float32{4, 5, 6}))
			defer y.Release()
			x.Release()
			if err := Transform(d, newAxpy(t, 2), y, y, x); !errors.Is(err, ErrReleased) {
				t.Fatalf("Transform with a released input: %v, want ErrReleased", err)
			}
			wantTransfers(t, "y after the failed Transform", y, 0, 0)
			if got := must[[]float32](t)(y.ToSlice()); got[0] != 1 || got[1] != 2 || got[2] != 3 {
				t.Errorf("y = %v, want [1 2 3]", got)
			}
			wantTransfers(t, "y after ToSlice", y, 0, 0)
		})
	}
}

// A reduction whose kernels cannot be made (no Expr, an Expr that does
// not build) fails before uploading its input.
func TestFailedReduceNoTransfer(t *testing.T) {
	sum := func(a, b int32) int32 { return a + b }
	for _, d := range deviceContexts(t) {
		t.Run(devName(d), func(t *testing.T) {
			a := must[*Array[int32]](t)(FromSlice(d, []int32{1, 2, 3, 4}))
			defer a.Release()
			if _, err := Reduce(d, a, ReduceOp[int32]{Name: "noexpr", Combine: sum}); !errors.Is(err, ur.ErrUnsupportedFeature) {
				t.Errorf("operator without Expr: %v, want ErrUnsupportedFeature", err)
			}
			wantTransfers(t, "a after a Reduce without Expr", a, 0, 0)
			if _, err := Reduce(d, a, ReduceOp[int32]{Name: "badexpr", Combine: sum, Expr: "a +* b"}); !errors.Is(err, ur.ErrProgramBuildFailure) {
				t.Errorf("operator whose Expr does not build: %v, want ErrProgramBuildFailure", err)
			}
			if _, err := Dot(d, a, a); err != nil {
				t.Fatal(err)
			}
			wantTransfers(t, "a after a failed build and a Dot", a, 1, 0)
			if got := must[int32](t)(Reduce(d, a, ReduceOp[int32]{Name: "plus", Combine: sum, Expr: "a + b"})); got != 10 {
				t.Errorf("sum = %d, want 10", got)
			}
		})
	}
}
