package compute

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/gour-dev/gour/cache"
	"github.com/gour-dev/gour/internal/harness/testenv"
	"github.com/gour-dev/gour/programmgr"
	"github.com/gour-dev/gour/ur"
)

// The Level Zero tests run on every selected Level Zero device: a real
// one, or the test driver, which runs fill_f32, copy_f32 and
// reduce_sum_f32 (and no other kernel of this package) in C:
//
//	fake=$(mktemp -d)/libze_gour_fake.so
//	cc -shared -fPIC -O1 -o $fake adapters/levelzero/testdata/fakedriver/ze_fake_driver.c
//	ZE_ENABLE_ALT_DRIVERS=$fake ONEAPI_DEVICE_SELECTOR='level_zero:*' UR_REQUIRE_ADAPTERS=level_zero \
//	    go test -run LevelZero ./compute/
//
// They skip without a Level Zero device (failing where
// UR_REQUIRE_ADAPTERS names level_zero) and without clang and llvm-spirv
// (failing under GOUR_REQUIRE_SPIRV_COMPILER=1).

// envRequireSPIRVCompiler set to 1 turns a missing OpenCL C to SPIR-V
// toolchain from a skip into a failure.
const envRequireSPIRVCompiler = "GOUR_REQUIRE_SPIRV_COMPILER"

// levelZeroDevices returns the selected Level Zero devices, or skips.
func levelZeroDevices(t *testing.T) []*ur.Device {
	t.Helper()
	testenv.CheckRequired(t)
	sys := testenv.System(t)
	var out []*ur.Device
	for _, d := range sys.Devices {
		if d.Backend() == "level_zero" {
			out = append(out, d)
		}
	}
	if len(out) == 0 {
		t.Skipf("no Level Zero device: %s", testenv.Reasons(sys))
	}
	return out
}

// levelZeroDevice returns a Device context on dev with a manager of its
// own over disk, a persistent cache (nil: none), released at the end.
func levelZeroDevice(t *testing.T, dev *ur.Device, disk *cache.Cache) *Device {
	t.Helper()
	ctx, q := testenv.ContextQueue(t, dev)
	off := false
	opts := programmgr.Options{DiskCache: disk}
	if disk == nil {
		var err error
		opts.DiskCache, err = cache.Open(cache.Config{Persistent: &off})
		if err != nil {
			t.Fatal(err)
		}
	}
	mgr, err := programmgr.New(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	d, err := NewDeviceFrom(q, DeviceOptions{Manager: mgr})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := errors.Join(d.Release(), mgr.Close()); err != nil {
			t.Errorf("release: %v", err)
		}
	})
	return d
}

// skipWithoutCompiler skips (or fails) when err says the toolchain is
// missing.
func skipWithoutCompiler(t *testing.T, err error) {
	t.Helper()
	if errors.Is(err, ur.ErrUnsupportedFeature) && strings.Contains(err.Error(), "not installed") {
		if os.Getenv(envRequireSPIRVCompiler) == "1" {
			t.Fatalf("%s=1: %v", envRequireSPIRVCompiler, err)
		}
		t.Skipf("no OpenCL C to SPIR-V toolchain: %v", err)
	}
}

// TestLevelZeroArrays runs Zeros, Fill, Copy, ToSlice and Sum of float32
// on Level Zero, the kernels compiled from OpenCL C to SPIR-V, and checks
// the program manager built the package's program once and then served
// it from its caches: in memory, then from the persistent cache in a
// second manager.
func TestLevelZeroArrays(t *testing.T) {
	for _, dev := range levelZeroDevices(t) {
		t.Run(dev.Name(), func(t *testing.T) {
			disk, err := cache.Open(cache.Config{Dir: t.TempDir()})
			if err != nil {
				t.Fatal(err)
			}
			d := levelZeroDevice(t, dev, disk)
			const n = 10_007 // not a multiple of the work-group size
			a := must[*Array[float32]](t)(Zeros[float32](d, n))
			defer a.Release()
			b := must[*Array[float32]](t)(Zeros[float32](d, n))
			defer b.Release()
			if got := must[[]float32](t)(a.ToSlice()); len(got) != n || got[0] != 0 || got[n-1] != 0 {
				t.Fatalf("Zeros: %d elements, %v ... %v", len(got), got[0], got[n-1])
			}
			err = Fill(d, a, 1.5)
			skipWithoutCompiler(t, err)
			if err != nil {
				t.Fatal(err)
			}
			if err := Copy(d, b, a); err != nil {
				t.Fatal(err)
			}
			if err := Fill(d, a, -2); err != nil {
				t.Fatal(err)
			}
			ga, gb := must[[]float32](t)(a.ToSlice()), must[[]float32](t)(b.ToSlice())
			for i := range n {
				if ga[i] != -2 || gb[i] != 1.5 {
					t.Fatalf("a[%d] = %v, want -2; b[%d] = %v, want 1.5", i, ga[i], i, gb[i])
				}
			}
			// Sum: two passes of the reduction tree. Integers in float32
			// add exactly in any order.
			xs := make([]float32, 100_003)
			want := 0.0
			for i := range xs {
				xs[i] = float32(i % 17)
				want += float64(xs[i])
			}
			x := must[*Array[float32]](t)(FromSlice(d, xs))
			defer x.Release()
			sum, err := Reduce(d, x, Sum[float32]())
			if err != nil {
				t.Fatal(err)
			}
			if float64(sum) != want {
				t.Errorf("Sum = %v, want %v", sum, want)
			}
			s := d.Manager().Stats()
			if s.Builds != 1 || s.DiskHits != 0 {
				t.Errorf("first manager: %d builds, %d disk hits; want 1 build (the float32 program)", s.Builds, s.DiskHits)
			}
			// A second manager over the same persistent cache loads the
			// program built through SPIR-V, without compiling it again.
			d2 := levelZeroDevice(t, dev, disk)
			c := must[*Array[float32]](t)(Zeros[float32](d2, 3))
			defer c.Release()
			if err := Fill(d2, c, 7); err != nil {
				t.Fatal(err)
			}
			if got := must[[]float32](t)(c.ToSlice()); got[0] != 7 || got[2] != 7 {
				t.Errorf("second manager's Fill: %v", got)
			}
			if s := d2.Manager().Stats(); s.Builds != 0 || s.DiskHits != 1 {
				t.Errorf("second manager: %d builds, %d disk hits; want 0 and 1", s.Builds, s.DiskHits)
			}
		})
	}
}

// TestLevelZeroNoCompiler: without clang, a kernel on Level Zero is an
// error wrapping ur.ErrUnsupportedFeature that names the tool and how to
// install it; arrays without kernels still work.
func TestLevelZeroNoCompiler(t *testing.T) {
	devs := levelZeroDevices(t)
	t.Setenv("GOUR_CLANG", "gour-no-such-clang")
	d := levelZeroDevice(t, devs[0], nil)
	a := must[*Array[float32]](t)(FromSlice(d, []float32{1, 2, 3}))
	defer a.Release()
	err := Fill(d, a, 1)
	if !errors.Is(err, ur.ErrUnsupportedFeature) {
		t.Fatalf("Fill without clang: %v", err)
	}
	for _, want := range []string{"gour-no-such-clang", "GOUR_CLANG", "apt-get install clang-15 llvm-spirv-15"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%q does not say %q", err, want)
		}
	}
	// An array the failed Fill did not touch (Fill's output is
	// undefined after an error) still goes to the device and back.
	b := must[*Array[float32]](t)(FromSlice(d, []float32{1, 2, 3}))
	defer b.Release()
	if _, err := b.Arg(InOut); err != nil { // uploads; the host copy is stale after
		t.Fatal(err)
	}
	if got := must[[]float32](t)(b.ToSlice()); got[2] != 3 {
		t.Errorf("ToSlice: %v", got)
	}
}

// TestLevelZeroEveryProgram builds the built-in program of every element
// type and an Expr's kernel on Level Zero: each goes through clang and
// llvm-spirv, and the driver takes the SPIR-V. The test driver runs none
// of these kernels but fill_f32, copy_f32 and reduce_sum_f32, so on it
// the kernel's creation fails (ur.ErrInvalidKernelName) after the build;
// on a real device the results are checked.
func TestLevelZeroEveryProgram(t *testing.T) {
	for _, dev := range levelZeroDevices(t) {
		t.Run(dev.Name(), func(t *testing.T) {
			d := levelZeroDevice(t, dev, nil)
			fake := dev.Name() == "gour fake Level Zero GPU"
			check := func(what string, err error, run func() bool) {
				t.Helper()
				skipWithoutCompiler(t, err)
				switch {
				case fake && errors.Is(err, ur.ErrInvalidKernelName):
				case err != nil:
					t.Errorf("%s: %v", what, err)
				case !fake && !run():
					t.Errorf("%s: wrong result", what)
				}
			}
			levelZeroFill[float64](t, d, check)
			levelZeroFill[int32](t, d, check)
			levelZeroFill[uint32](t, d, check)
			levelZeroFill[int64](t, d, check)
			levelZeroFill[uint64](t, d, check)
			for _, e := range []struct {
				src    string
				params map[string]float32
			}{{"y = a*x + y", map[string]float32{"a": 2}}, {"y = min(x, y) / 2", nil}} {
				src := e.src
				f, err := Expr(src, e.params)
				if err != nil {
					t.Fatal(err)
				}
				x := must[*Array[float32]](t)(FromSlice(d, []float32{1, 2, 3, 4}))
				y := must[*Array[float32]](t)(FromSlice(d, []float32{4, 3, 2, 1}))
				err = Transform(d, f, y, x, y)
				check(src, err, func() bool {
					got := must[[]float32](t)(y.ToSlice())
					return len(got) == 4 && got[0] != 4
				})
				x.Release()
				y.Release()
			}
			// Every program built; on the test driver only the kernels'
			// creation failed.
			if s := d.Manager().Stats(); s.Builds != 7 || (!fake && s.Failures != 0) {
				t.Errorf("%d builds, %d failures; want 7 builds (5 types, 2 expressions)", s.Builds, s.Failures)
			}
		})
	}
}

// levelZeroFill fills an array of T and sums it: the built-in program of T.
func levelZeroFill[T Number](t *testing.T, d *Device, check func(string, error, func() bool)) {
	t.Helper()
	a := must[*Array[T]](t)(Zeros[T](d, 1000))
	defer a.Release()
	what := "Fill and Sum of " + typeOf[T]().suffix
	var err error
	if d.dev.Name() == "gour fake Level Zero GPU" {
		// fill_u32 is a conformance kernel there, of another signature:
		// create reduce_sum_T, which it does not know, for every T.
		_, err = Reduce(d, a, Sum[T]())
	} else {
		err = Fill(d, a, 3)
	}
	check(what, err, func() bool {
		sum, err := Reduce(d, a, Sum[T]())
		return err == nil && sum == 3000
	})
}

// TestLevelZeroMatMul multiplies through package blas's own kernels on
// Level Zero, built from OpenCL C to SPIR-V by the Device's program
// manager. The test driver builds the module but runs none of blas's
// kernels: there the kernel's creation fails (ur.ErrInvalidKernelName)
// after the build, and c keeps its data; on a real device the product is
// checked.
func TestLevelZeroMatMul(t *testing.T) {
	for _, dev := range levelZeroDevices(t) {
		t.Run(dev.Name(), func(t *testing.T) {
			d := levelZeroDevice(t, dev, nil)
			fake := dev.Name() == "gour fake Level Zero GPU"
			a := must[*Array[float32]](t)(FromSlice(d, []float32{1, 2, 3, 4, 5, 6}, 2, 3))
			defer a.Release()
			b := must[*Array[float32]](t)(FromSlice(d, []float32{1, 0, 0, 1, 1, 1}, 3, 2))
			defer b.Release()
			c := must[*Array[float32]](t)(FromSlice(d, []float32{9, 9, 9, 9}, 2, 2))
			defer c.Release()
			err := MatMul(d, c, a, b)
			skipWithoutCompiler(t, err)
			got := must[[]float32](t)(c.ToSlice())
			switch {
			case fake && errors.Is(err, ur.ErrInvalidKernelName):
				if got[0] != 9 || got[3] != 9 {
					t.Errorf("c after the failed MatMul: %v", got)
				}
			case err != nil:
				t.Fatal(err)
			case fake:
				t.Errorf("MatMul ran on the test driver: %v", got)
			case got[0] != 4 || got[1] != 5 || got[2] != 10 || got[3] != 11:
				t.Errorf("MatMul: %v, want [4 5 10 11]", got)
			}
			if s := d.Manager().Stats(); s.Builds != 1 {
				t.Errorf("%d builds, want 1 (blas's float32 program, through the Device's manager)", s.Builds)
			}
		})
	}
}

// TestLevelZeroBroadcastAndAxis builds an Expr's broadcast kernel and a
// reduction along an axis through SPIR-V (the test driver runs neither:
// the kernels' creation fails there after the build).
func TestLevelZeroBroadcastAndAxis(t *testing.T) {
	for _, dev := range levelZeroDevices(t) {
		t.Run(dev.Name(), func(t *testing.T) {
			d := levelZeroDevice(t, dev, nil)
			fake := dev.Name() == "gour fake Level Zero GPU"
			x := must[*Array[float32]](t)(FromSlice(d, []float32{1, 2, 3, 4, 5, 6}, 2, 3))
			defer x.Release()
			b := must[*Array[float32]](t)(FromSlice(d, []float32{10, 20, 30}, 3))
			defer b.Release()
			out := must[*Array[float32]](t)(Zeros[float32](d, 2, 3))
			defer out.Release()
			rows := must[*Array[float32]](t)(Zeros[float32](d, 2, 1))
			defer rows.Release()
			add := must[*ExprFunc[float32]](t)(Expr[float32]("o = b + x", nil))
			for _, c := range []struct {
				what string
				err  func() error
				want []float32
				arr  *Array[float32]
			}{
				{"x + a bias row", func() error { return Transform(d, add, out, b, x) }, []float32{11, 22, 33, 14, 25, 36}, out},
				{"row sums", func() error { return ReduceAxis(d, rows, x, 1, Sum[float32]()) }, []float32{6, 15}, rows},
			} {
				err := c.err()
				skipWithoutCompiler(t, err)
				switch {
				case fake && errors.Is(err, ur.ErrInvalidKernelName):
				case err != nil:
					t.Errorf("%s: %v", c.what, err)
				case !fake:
					if got := must[[]float32](t)(c.arr.ToSlice()); !slices.Equal(got, c.want) {
						t.Errorf("%s: %v, want %v", c.what, got, c.want)
					}
				}
			}
			if s := d.Manager().Stats(); s.Builds != 2 {
				t.Errorf("%d builds, want 2", s.Builds)
			}
		})
	}
}

// TestLevelZeroMultiDevice runs Fill, Copy and Sum split over the tiles
// of a Level Zero device (its sub-devices by affinity domain), in one
// context per tile and in one context of both, whose program manager
// builds the package's program once for the two.
func TestLevelZeroMultiDevice(t *testing.T) {
	for _, dev := range levelZeroDevices(t) {
		for _, separate := range []bool{true, false} {
			t.Run(fmt.Sprintf("%s/separate=%v", dev.Name(), separate), func(t *testing.T) {
				levelZeroMulti(t, dev, separate)
			})
		}
	}
}

func levelZeroMulti(t *testing.T, dev *ur.Device, separate bool) {
	subs, err := dev.Partition(ur.Partition{Kind: ur.PartitionByAffinityDomain, Domain: ur.AffinityNextPartitionable})
	if err != nil || len(subs) < 2 {
		t.Skipf("device does not split into tiles: %d sub-devices, %v", len(subs), err)
	}
	for _, s := range subs {
		defer s.Release()
	}
	m, err := NewMultiDevice(subs, MultiDeviceOptions{Separate: separate})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := m.Release(); err != nil {
			t.Errorf("Release: %v", err)
		}
	}()
	const n = 10_007
	a := must[*Array[float32]](t)(Zeros[float32](m, n))
	defer a.Release()
	b := must[*Array[float32]](t)(Zeros[float32](m, n))
	defer b.Release()
	err = Fill(m, a, 1.5)
	skipWithoutCompiler(t, err)
	if err != nil {
		t.Fatal(err)
	}
	if err := Copy(m, b, a); err != nil {
		t.Fatal(err)
	}
	if got := must[[]float32](t)(b.ToSlice()); got[0] != 1.5 || got[n-1] != 1.5 {
		t.Fatalf("Copy over the tiles: %v ... %v", got[0], got[n-1])
	}
	if sum := must[float32](t)(Reduce(m, b, Sum[float32]())); sum != 1.5*n {
		t.Errorf("Sum over the tiles = %v, want %v", sum, 1.5*n)
	}
}
