package programmgr

import (
	"context"
	"log/slog"
	"strings"
	"testing"

	"github.com/gour-dev/gour/bundle"
	"github.com/gour-dev/gour/internal/harness/testenv"
	"github.com/gour-dev/gour/ur"
)

// valueSpec is the bundle images' spec constant VALUE (ID 1), default def.
func valueSpec(def int32) []bundle.SpecConstant {
	return []bundle.SpecConstant{{ID: 1, Name: "VALUE", Kind: bundle.SpecInt, Default: SpecInt32(def)}}
}

// mustBundle makes a Bundle of images, failing the test on error.
func mustBundle(t testing.TB, images ...bundle.Image) *Bundle {
	t.Helper()
	for i := range images {
		im, err := bundle.NewImage(images[i])
		if err != nil {
			t.Fatalf("image %d: %v", i, err)
		}
		images[i] = im
	}
	data, err := (&bundle.Bundle{Images: images}).Marshal()
	if err != nil {
		t.Fatal(err)
	}
	b, err := NewBundle(data)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestBundleSelectCUDA: on described CUDA devices, the cubin of the
// device's architecture wins, then a cubin of an older minor, then PTX not
// newer than the device, then CUDA C; values other than the defaults skip
// every image built ahead of time.
func TestBundleSelectCUDA(t *testing.T) {
	ptx := "//\n.version 7.0\n.target sm_80\n.address_size 64\n.visible .entry k() { ret; }\n"
	cuda := func(arch string, format bundle.Format, code string) bundle.Image {
		return bundle.Image{Target: bundle.Target{Backend: bundle.BackendCUDA, Arch: arch}, Format: format,
			Kernels: []string{"k"}, Properties: bundle.Properties{SpecConstants: valueSpec(7)}, Code: []byte(code)}
	}
	b := mustBundle(t,
		cuda("sm_80", bundle.FormatNative, "cubin 80"),
		cuda("sm_90", bundle.FormatNative, "cubin 90"),
		cuda("compute_80", bundle.FormatPTX, ptx),
		cuda("", bundle.FormatCUDAC, `extern "C" __global__ void k(int* out) { out[0] = VALUE; }`),
	)
	all := bundle.AspectFP64 | bundle.AspectFP16 | bundle.AspectInt64Atomics | bundle.AspectSubGroups
	other := Spec(map[uint32][]byte{1: SpecInt32(40)})
	for _, c := range []struct {
		arch string
		spec SpecValues
		want int
		rank bundle.Rank
	}{
		{"sm_90", SpecValues{}, 1, bundle.RankExact},
		{"sm_86", SpecValues{}, 0, bundle.RankCompatible},
		{"sm_89", Spec(map[uint32][]byte{1: SpecInt32(7)}), 0, bundle.RankCompatible}, // the default, given
		{"sm_100", SpecValues{}, 2, bundle.RankIL},
		{"sm_75", SpecValues{}, 3, bundle.RankSource},
		{"sm_90", other, 3, bundle.RankSource},
	} {
		dev := bundle.Device{Backend: bundle.BackendCUDA, Arch: c.arch, IL: []string{"PTX"}, Aspects: all}
		img, sel, err := b.Select(dev, "k", c.spec)
		if err != nil {
			t.Errorf("%s, spec %s: %v", c.arch, c.spec, err)
			continue
		}
		if sel.Index != c.want || sel.Rank != c.rank || img != b.images[c.want] {
			t.Errorf("%s, spec %s: chose %s, want image %d (%s)", c.arch, c.spec, sel, c.want, c.rank)
		}
		if c.spec == other {
			for _, r := range sel.Rejected[:3] {
				if r.Reason != bundle.ReasonSpecConstant && r.Reason != bundle.ReasonArch {
					t.Errorf("%s with other values: %s", c.arch, r)
				}
			}
		}
	}
	_, _, err := b.Select(bundle.Device{Backend: bundle.BackendCUDA, Arch: "sm_90", Aspects: all}, "nope", SpecValues{})
	checkCode(t, err, ur.ErrInvalidKernelName)
}

// bundleFixture is a real OpenCL device (PoCL in CI) with a bundle of
// kernels k0, k1 (OpenCL C and a native binary of the device, VALUE = 7),
// kd (OpenCL C needing fp64) and a PTX image no OpenCL device takes.
type bundleFixture struct {
	ctx *ur.Context
	dev *ur.Device
	b   *Bundle
}

func newBundleFixture(t *testing.T) *bundleFixture {
	t.Helper()
	dev := testenv.MustHaveDevice(t, "opencl")[0]
	ctx, err := ur.NewContext(dev)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ctx.Release() })
	src := source("k0", "k1")
	p, err := ctx.NewProgramFromSource(src)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Release()
	if err := p.Build("-DVALUE=7"); err != nil {
		t.Fatal(err)
	}
	bins, err := p.Binaries()
	if err != nil {
		t.Fatal(err)
	}
	kernels := []string{"k0", "k1"}
	b := mustBundle(t,
		bundle.Image{Target: bundle.Target{Backend: bundle.BackendCUDA, Arch: "compute_80"}, Format: bundle.FormatPTX, Kernels: kernels,
			Code: []byte(".version 7.0\n.target sm_80\n.address_size 64\n")},
		bundle.Image{Target: bundle.Target{Backend: bundle.BackendOpenCL}, Format: bundle.FormatOpenCLC, Kernels: kernels,
			Properties: bundle.Properties{SpecConstants: valueSpec(7)}, Code: []byte(src)},
		bundle.Image{Target: bundle.Target{Backend: bundle.BackendOpenCL, Arch: dev.Info().Name}, Format: bundle.FormatNative, Kernels: kernels,
			Properties: bundle.Properties{SpecConstants: valueSpec(7)}, Code: bins[0]},
		bundle.Image{Target: bundle.Target{Backend: bundle.BackendOpenCL}, Format: bundle.FormatOpenCLC, Kernels: []string{"kd"},
			Properties: bundle.Properties{Aspects: bundle.AspectFP64},
			Code:       []byte("__kernel void kd(__global int* out) { double d = 2.5; out[0] = (int)(d * 2.0); }")},
	)
	return &bundleFixture{ctx: ctx, dev: dev, b: b}
}

func (f *bundleFixture) manager(t *testing.T, opts Options) *Manager {
	t.Helper()
	if opts.InMemCache == nil {
		opts.InMemCache = ptr(true)
	}
	m, err := newManager(f.ctx, opts, noEnv)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	return m
}

// get is GetBundleKernel, run once on one work-item: it returns out[0].
func (f *bundleFixture) get(t *testing.T, m *Manager, name string, spec SpecValues) int32 {
	t.Helper()
	k, err := m.GetBundleKernel(context.Background(), f.b, name, f.dev, spec, "")
	if err != nil {
		t.Fatalf("GetBundleKernel(%s, %s): %v", name, spec, err)
	}
	defer k.Release()
	return runKernel(t, f.ctx, k)
}

func entries(t *testing.T, m *Manager) int {
	t.Helper()
	list, err := m.disk.List()
	if err != nil {
		t.Fatal(err)
	}
	return len(list)
}

// TestBundleOnOpenCL: the native binary of the device is chosen and
// loaded without storing it in the persistent cache; other spec-constant
// values build the OpenCL C image instead, which is stored; the trace says
// what was chosen and why the others were not.
func TestBundleOnOpenCL(t *testing.T) {
	f := newBundleFixture(t)
	var log syncBuffer
	m := f.manager(t, Options{DiskCache: openDiskAt(t, t.TempDir()), Trace: ptr(TraceBundleSelection),
		Logger: slog.New(slog.NewTextHandler(&log, nil))})

	img, sel, err := m.SelectImage(f.b, "k1", f.dev, SpecValues{})
	if err != nil {
		t.Fatal(err)
	}
	if sel.Index != 2 || sel.Rank != bundle.RankExact || img.Format() != FormatNative {
		t.Fatalf("k1 with the defaults: chose %s, want the native image 2", sel)
	}
	if got := f.get(t, m, "k1", SpecValues{}); got != 8 {
		t.Errorf("k1 from the native image computed %d, want 8", got)
	}
	if n := entries(t, m); n != 0 {
		t.Errorf("after a native hit the persistent cache holds %d entries, want 0: a native image is not stored again", n)
	}
	if s := m.Stats(); s.Builds != 1 || s.DiskHits != 0 {
		t.Errorf("native hit: %d builds, %d disk hits; want 1 (from the binary) and 0", s.Builds, s.DiskHits)
	}

	other := Spec(map[uint32][]byte{1: SpecInt32(40)})
	if got := f.get(t, m, "k1", other); got != 41 {
		t.Errorf("k1 with VALUE = 40 computed %d, want 41 (from source, not the binary built for 7)", got)
	}
	_, sel, _ = m.SelectImage(f.b, "k1", f.dev, other)
	if sel.Index != 1 || sel.Rank != bundle.RankSource {
		t.Errorf("k1 with VALUE = 40: chose %s, want the OpenCL C image 1", sel)
	}
	if n := entries(t, m); n != 1 {
		t.Errorf("after building from source the persistent cache holds %d entries, want 1", n)
	}

	trace := log.String()
	for _, want := range []string{
		`msg="programmgr: bundle image chosen" kernel=k1`,
		`chosen="image 2 (native opencl:` + f.dev.Info().Name + `): exact native match"`,
		`image 0 (ptx cuda:compute_80): for cuda, the device is opencl`,
		`image 1 (opencl-c opencl): usable (source compiled at run time), another image ranks higher`,
		`image 3 (opencl-c opencl): does not define kernel \"k1\"`,
		`chosen="image 1 (opencl-c opencl): source compiled at run time"`,
		`image 2 (native opencl:` + f.dev.Info().Name + `): built ahead of time for the default of specialization constant 1, which is given another value`,
	} {
		if !strings.Contains(trace, want) {
			t.Errorf("the trace lacks %q:\n%s", want, trace)
		}
	}
	if n := strings.Count(trace, "bundle image chosen"); n != 2 {
		t.Errorf("%d choices traced, want 2 (each request's choice is remembered)", n)
	}

	// A repeated request: the remembered choice, then the fast kernel cache.
	allocs := testing.AllocsPerRun(100, func() {
		k, err := m.GetBundleKernel(context.Background(), f.b, "k1", f.dev, SpecValues{}, "")
		if err != nil {
			t.Fatal(err)
		}
		k.Release()
	})
	if allocs != 0 {
		t.Errorf("a repeated GetBundleKernel allocates %v times, want 0", allocs)
	}
}

// TestBundleWithoutFP64: a device without fp64 runs the bundle's other
// kernels; asking for the fp64 one is an error naming the aspect.
func TestBundleWithoutFP64(t *testing.T) {
	f := newBundleFixture(t)
	m := f.manager(t, Options{DiskCache: noDisk(t)})
	m.describeDevice = func(d *ur.Device) bundle.Device {
		desc := bundle.DescribeDevice(d)
		desc.Aspects &^= bundle.AspectFP64
		return desc
	}
	if got := f.get(t, m, "k0", SpecValues{}); got != 7 {
		t.Errorf("k0 computed %d, want 7", got)
	}
	_, err := m.GetBundleKernel(context.Background(), f.b, "kd", f.dev, SpecValues{}, "")
	checkCode(t, err, ur.ErrUnsupportedFeature)
	if e := err.(*ur.Error); e.Op != "programmgr.GetBundleKernel" || !strings.Contains(e.Message, `kernel "kd" needs fp64, which device`) {
		t.Errorf("the error says %q (op %s); want it to name kd and fp64", e.Message, e.Op)
	}

	full := f.manager(t, Options{DiskCache: noDisk(t)})
	if got := f.get(t, full, "kd", SpecValues{}); got != 5 {
		t.Errorf("kd on the device with fp64 computed %d, want 5", got)
	}
}

// TestBundleMisuse: every bad request is a typed error, without building.
func TestBundleMisuse(t *testing.T) {
	f := newBundleFixture(t)
	m := f.manager(t, Options{DiskCache: noDisk(t)})
	ctx := context.Background()
	_, err := m.GetBundleKernel(ctx, nil, "k0", f.dev, SpecValues{}, "")
	checkCode(t, err, ur.ErrInvalidNullPointer)
	_, err = m.GetBundleKernel(ctx, f.b, "k0", nil, SpecValues{}, "")
	checkCode(t, err, ur.ErrInvalidNullHandle)
	_, err = m.GetBundleKernel(ctx, f.b, "missing", f.dev, SpecValues{}, "")
	checkCode(t, err, ur.ErrInvalidKernelName)
	if !strings.Contains(err.Error(), "the bundle defines k0, k1, kd") {
		t.Errorf("the error does not list the bundle's kernels: %v", err)
	}
	_, err = m.GetBundleKernel(ctx, f.b, "k0", f.dev, Spec(map[uint32][]byte{9: SpecInt32(1)}), "")
	checkCode(t, err, ur.ErrInvalidSpecID)
	if s := m.Stats(); s.Builds != 0 {
		t.Errorf("%d builds for bad requests, want 0", s.Builds)
	}
	if _, err := NewBundle([]byte("not a bundle")); ur.ResultOf(err) != ur.ErrInvalidBinary {
		t.Errorf("NewBundle(garbage) = %v, want ErrInvalidBinary", err)
	}
	if _, err := FromBundle(&bundle.Bundle{}); ur.ResultOf(err) != ur.ErrInvalidValue {
		t.Errorf("FromBundle(empty) = %v, want ErrInvalidValue", err)
	}
}
