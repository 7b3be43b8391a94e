package programmgr

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"log/slog"
	"os"
	"strings"
	"testing"

	"github.com/gour-dev/gour/cache"
	"github.com/gour-dev/gour/internal/harness/testenv"
	"github.com/gour-dev/gour/programmgr/internal/clspirv"
	"github.com/gour-dev/gour/ur"
)

// The tests of OpenCL C images on Level Zero run on every selected Level
// Zero device, the test driver's included:
//
//	fake=$(mktemp -d)/libze_gour_fake.so
//	cc -shared -fPIC -O1 -o $fake adapters/levelzero/testdata/fakedriver/ze_fake_driver.c
//	ZE_ENABLE_ALT_DRIVERS=$fake ONEAPI_DEVICE_SELECTOR='level_zero:*' UR_REQUIRE_ADAPTERS=level_zero \
//	    go test -run LevelZero ./programmgr/
//
// They skip without a Level Zero device and without clang and llvm-spirv
// (failing under GOUR_REQUIRE_SPIRV_COMPILER=1).

// levelZeroContext returns a context on the first selected Level Zero
// device, released at cleanup, or skips.
func levelZeroContext(t *testing.T) (*ur.Context, *ur.Device) {
	t.Helper()
	testenv.CheckRequired(t)
	sys := testenv.System(t)
	for _, d := range sys.Devices {
		if d.Backend() != "level_zero" {
			continue
		}
		ctx, err := ur.NewContext(d)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { ctx.Release() })
		return ctx, d
	}
	t.Skipf("no Level Zero device: %s", testenv.Reasons(sys))
	return nil, nil
}

// needCompiler skips (or fails) without the toolchain.
func needCompiler(t *testing.T) {
	t.Helper()
	if _, err := clspirv.Find(nil); err != nil {
		if os.Getenv("GOUR_REQUIRE_SPIRV_COMPILER") == "1" {
			t.Fatalf("GOUR_REQUIRE_SPIRV_COMPILER=1: %v", err)
		}
		t.Skip(err)
	}
}

// spirvSource compiles only with VALUE 5 (a spec constant, so a -D
// definition) and GOUR_OPT (the caller's options): clang must get both.
// fill_u32 is a kernel the test driver runs.
const spirvSource = `#if VALUE != 5
#error VALUE is not 5
#endif
#ifndef GOUR_OPT
#error GOUR_OPT is not defined
#endif
__kernel void fill_u32(__global uint* out, uint v) { out[get_global_id(0)] = v + VALUE - 5; }
`

func spirvImage(t *testing.T) *Image {
	t.Helper()
	img, err := NewImage(ImageDesc{
		Format:        FormatOpenCLC,
		Bytes:         []byte(spirvSource),
		KernelNames:   []string{"fill_u32"},
		SpecConstants: []SpecConstant{{ID: 1, Name: "VALUE", Default: SpecInt32(5)}},
	})
	if err != nil {
		t.Fatal(err)
	}
	return img
}

// fillU32 runs fill_u32 over 16 work-items with v and checks the result.
func fillU32(t *testing.T, ctx *ur.Context, k *Kernel, v uint32) {
	t.Helper()
	q, err := ctx.NewQueue(k.Device(), ur.QueueProperties{})
	if err != nil {
		t.Fatal(err)
	}
	defer q.Release()
	u, err := ctx.AllocDevice(k.Device(), 64)
	if err != nil {
		t.Fatal(err)
	}
	defer u.Free()
	if err := q.Launch(k.UR(), ur.Range1D(16).WithLocal(16), ur.ArgPtr(u.Ptr()), ur.ArgOf(v)); err != nil {
		t.Fatal(err)
	}
	out := make([]byte, 64)
	if err := q.CopyFromPtr(out, u.Ptr()); err != nil {
		t.Fatal(err)
	}
	for i := range 16 {
		if got := binary.LittleEndian.Uint32(out[4*i:]); got != v {
			t.Fatalf("out[%d] = %d, want %d", i, got, v)
		}
	}
}

func TestLevelZeroOpenCLC(t *testing.T) {
	ctx, dev := levelZeroContext(t)
	needCompiler(t)
	disk, err := cache.Open(cache.Config{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	var log bytes.Buffer
	m, err := newManager(ctx, Options{DiskCache: disk, Trace: ptr(TraceKernelCompiler), Logger: slog.New(slog.NewTextHandler(&log, nil))}, noEnv)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	img := spirvImage(t)
	bg := context.Background()

	k, err := m.GetKernel(bg, img, "fill_u32", dev, SpecValues{}, "-DGOUR_OPT")
	if err != nil {
		t.Fatalf("GetKernel: %v", err)
	}
	fillU32(t, ctx, k, 9)
	if p := k.Program(); p.Image() != img {
		t.Errorf("the program's image is %v, not the OpenCL C image", p.Image().ID())
	}
	k.Release()
	if !strings.Contains(log.String(), "OpenCL C to SPIR-V") || !strings.Contains(log.String(), "-DVALUE=5 -DGOUR_OPT") {
		t.Errorf("trace (SYCL_CACHE_TRACE=4) %q", log.String())
	}
	// In memory: the same kernel, no build.
	k, err = m.GetKernel(bg, img, "fill_u32", dev, SpecValues{}, "-DGOUR_OPT")
	if err != nil {
		t.Fatal(err)
	}
	k.Release()
	if s := m.Stats(); s.Builds != 1 || s.Hits != 1 {
		t.Errorf("stats %+v, want 1 build and 1 hit", s)
	}

	// A spec value that fails clang's #error: a build failure carrying
	// clang's diagnostic, remembered.
	bad := Spec(map[uint32][]byte{1: SpecInt32(6)})
	for range 2 {
		_, err = m.GetKernel(bg, img, "fill_u32", dev, bad, "-DGOUR_OPT")
		checkCode(t, err, ur.ErrProgramBuildFailure)
		if l := ur.BuildLogOf(err); !strings.Contains(l, "VALUE is not 5") || !strings.Contains(l, "-DVALUE=6") {
			t.Errorf("build log %q lacks clang's error or its command", l)
		}
	}
	if s := m.Stats(); s.Builds != 2 || s.Remembered != 1 {
		t.Errorf("after the failure twice: %d builds, %d remembered; want 2, 1", s.Builds, s.Remembered)
	}

	// A second manager over the same persistent cache loads the binary:
	// no build, no compiler run.
	m2, err := newManager(ctx, Options{DiskCache: disk}, noEnv)
	if err != nil {
		t.Fatal(err)
	}
	defer m2.Close()
	k, err = m2.GetKernel(bg, img, "fill_u32", dev, SpecValues{}, "-DGOUR_OPT")
	if err != nil {
		t.Fatal(err)
	}
	fillU32(t, ctx, k, 11)
	k.Release()
	if s := m2.Stats(); s.Builds != 0 || s.DiskHits != 1 {
		t.Errorf("second manager: %d builds, %d disk hits; want 0 and 1", s.Builds, s.DiskHits)
	}
	// Other clang options are another key: a build, not a disk hit.
	k, err = m2.GetKernel(bg, img, "fill_u32", dev, SpecValues{}, "-DGOUR_OPT=2")
	if err != nil {
		t.Fatal(err)
	}
	k.Release()
	if s := m2.Stats(); s.Builds != 1 || s.DiskHits != 1 {
		t.Errorf("other options: %d builds, %d disk hits; want 1 and 1", s.Builds, s.DiskHits)
	}
}

// TestLevelZeroDriverOptions: options clang does not take go to the
// driver alone; the test driver fails a build whose flags hold
// -gour-fake-build-error.
func TestLevelZeroDriverOptions(t *testing.T) {
	ctx, dev := levelZeroContext(t)
	needCompiler(t)
	if dev.Name() != "gour fake Level Zero GPU" {
		t.Skip("the test driver's build flag")
	}
	m, err := newManager(ctx, Options{DiskCache: noDisk(t)}, noEnv)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	_, err = m.GetKernel(context.Background(), spirvImage(t), "fill_u32", dev, SpecValues{}, "-DGOUR_OPT -gour-fake-build-error")
	checkCode(t, err, ur.ErrProgramBuildFailure)
	if l := ur.BuildLogOf(err); !strings.Contains(l, `build flags "-gour-fake-build-error"`) {
		t.Errorf("the driver's log %q: want the flag alone", l)
	}
}

// TestLevelZeroNoTools: without the translator, an OpenCL C image is
// ur.ErrUnsupportedFeature naming the tool, remembered like a driver
// error; other formats are not affected.
func TestLevelZeroNoTools(t *testing.T) {
	ctx, dev := levelZeroContext(t)
	t.Setenv(clspirv.EnvLLVMSPIRV, "gour-no-such-llvm-spirv")
	m, err := newManager(ctx, Options{DiskCache: noDisk(t)}, noEnv)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	_, err = m.GetKernel(context.Background(), spirvImage(t), "fill_u32", dev, SpecValues{}, "-DGOUR_OPT")
	checkCode(t, err, ur.ErrUnsupportedFeature)
	var me *clspirv.MissingToolError
	if !errors.As(err, &me) || me.Tool != "llvm-spirv" {
		t.Errorf("%v: want a *clspirv.MissingToolError for llvm-spirv", err)
	}
	for _, want := range []string{"gour-no-such-llvm-spirv", "GOUR_LLVM_SPIRV", "apt-get install"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%q does not say %q", err, want)
		}
	}
	// CUDA C is still refused as another backend's.
	cu, _ := NewImage(ImageDesc{Format: FormatCUDAC, Bytes: []byte("x")})
	_, err = m.GetProgram(context.Background(), cu, nil, SpecValues{}, "")
	checkCode(t, err, ur.ErrUnsupportedFeature)
	if s := m.Stats(); s.Builds != 0 {
		t.Errorf("%d builds", s.Builds)
	}
}
