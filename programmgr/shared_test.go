package programmgr

import (
	"context"
	"log/slog"
	"slices"
	"strings"
	"testing"

	"github.com/gour-dev/gour/cache"
	"github.com/gour-dev/gour/internal/harness/testenv"
	"github.com/gour-dev/gour/ur"
)

// identicalDevices returns two devices a binary cannot tell apart, and
// the format of the image to build for them: two devices of one class
// where discovery finds them (two identical GPUs: CUDA C on CUDA, OpenCL
// C on OpenCL), else two sub-devices of an OpenCL device that splits
// equally (PoCL's CPU device), released at cleanup.
func identicalDevices(t *testing.T) ([]*ur.Device, Format) {
	t.Helper()
	sys := testenv.System(t)
	for _, backend := range []string{"cuda", "opencl"} {
		var seen []*ur.Device
		for _, d := range sys.Devices {
			if d.Backend() != backend {
				continue
			}
			for _, s := range seen {
				if s.Platform() == d.Platform() && classOf(s) == classOf(d) {
					if backend == "cuda" {
						return []*ur.Device{s, d}, FormatCUDAC
					}
					return []*ur.Device{s, d}, FormatOpenCLC
				}
			}
			seen = append(seen, d)
		}
	}
	for _, d := range testenv.MustHaveDevice(t, "opencl") {
		units := d.Info().ComputeUnits
		if units < 2 || !slices.Contains(d.PartitionInfo().Kinds, ur.PartitionEqually) {
			continue
		}
		subs, err := d.Partition(ur.Partition{Kind: ur.PartitionEqually, Units: units / 2})
		if err != nil {
			t.Fatalf("Partition: %v", err)
		}
		for _, s := range subs {
			t.Cleanup(func() { s.Release() })
		}
		if len(subs) >= 2 {
			return subs[:2], FormatOpenCLC
		}
	}
	t.Skip("no two identical devices, and no OpenCL device that splits into two equal sub-devices")
	return nil, 0
}

// sharedImage is image(t, def, "k") in format: OpenCL C, or the same
// kernel in CUDA C.
func sharedImage(t *testing.T, format Format, def int32) *Image {
	t.Helper()
	if format == FormatOpenCLC {
		return image(t, def, "k")
	}
	img, err := NewImage(ImageDesc{
		Format:        FormatCUDAC,
		Bytes:         []byte(`extern "C" __global__ void k(int* out) { out[0] = VALUE; }`),
		KernelNames:   []string{"k"},
		SpecConstants: []SpecConstant{{ID: 1, Name: "VALUE", Default: SpecInt32(def)}},
	})
	if err != nil {
		t.Fatal(err)
	}
	return img
}

// Two identical devices of one context: a kernel asked for on each is
// one program built by one compile, with a kernel of its own per device,
// and the trace says so.
func TestSharedBuildIdenticalDevices(t *testing.T) {
	devs, format := identicalDevices(t)
	ctx, err := ur.NewContext(devs...)
	if err != nil {
		t.Fatal(err)
	}
	defer ctx.Release()
	rec := &testenv.LogRecorder{}
	m, err := newManager(ctx, Options{InMemCache: ptr(true), DiskCache: noDisk(t), Trace: ptr(TraceInMemCache), Logger: slog.New(rec)}, noEnv)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	img := sharedImage(t, format, 9)
	var kernels []*Kernel
	for round := range 2 {
		for _, d := range devs {
			k, err := m.GetKernel(context.Background(), img, "k", d, SpecValues{}, "")
			if err != nil {
				t.Fatal(err)
			}
			if k.Device() != d {
				t.Errorf("GetKernel on %v: a kernel of %v", d, k.Device())
			}
			if round == 0 {
				if got := runKernel(t, ctx, k); got != 9 {
					t.Errorf("kernel on device %d computed %d, want 9", len(kernels), got)
				}
				kernels = append(kernels, k)
			} else {
				k.Release()
			}
		}
	}
	if kernels[0] == kernels[1] || kernels[0].UR() == kernels[1].UR() {
		t.Errorf("the two devices share one kernel (kernels hold arguments)")
	}
	if kernels[0].Program() != kernels[1].Program() {
		t.Errorf("the two devices' kernels are of two programs")
	}
	if pd := kernels[0].Program().Devices(); !slices.Equal(pd, devs) {
		t.Errorf("the program is built for %v, want both devices", pd)
	}
	for _, k := range kernels {
		k.Release()
	}
	s := m.Stats()
	if s.Builds != 1 || s.Programs != 1 || s.Kernels != 2 {
		t.Errorf("%d builds, %d programs, %d kernels; want 1, 1, 2", s.Builds, s.Programs, s.Kernels)
	}
	// A program asked for on one device is the same entry.
	p, err := m.GetProgram(context.Background(), img, devs[1:], SpecValues{}, "")
	if err != nil {
		t.Fatal(err)
	}
	if p != kernels[0].Program() {
		t.Errorf("GetProgram on the second device: another program")
	}
	p.Release()
	msgs := strings.Join(rec.Messages(slog.LevelInfo), "\n")
	t.Logf("%s devices %s, trace:\n%s", devs[0].Backend(), deviceList(devs), msgs)
	for _, want := range []string{"programmgr: shared build", "programmgr: one compile for identical devices"} {
		if !strings.Contains(msgs, want) {
			t.Errorf("the trace has no %q:\n%s", want, msgs)
		}
	}
	m.checkInvariants(t)
}

// With the persistent cache on, the identical devices' binaries are one
// entry; a new manager (a new process) loads it without compiling.
func TestSharedBuildOneDiskEntry(t *testing.T) {
	devs, format := identicalDevices(t)
	ctx, err := ur.NewContext(devs...)
	if err != nil {
		t.Fatal(err)
	}
	defer ctx.Release()
	dir := t.TempDir()
	open := func() *cache.Cache {
		c, err := cache.Open(cache.Config{Persistent: ptr(true), Dir: dir, Getenv: noEnv})
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	img := sharedImage(t, format, 4)
	for run, wantBuilds := range []int64{1, 0} {
		m, err := newManager(ctx, Options{InMemCache: ptr(true), DiskCache: open()}, noEnv)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range devs {
			k, err := m.GetKernel(context.Background(), img, "k", d, SpecValues{}, "")
			if err != nil {
				t.Fatal(err)
			}
			if got := runKernel(t, ctx, k); got != 4 {
				t.Errorf("run %d: kernel computed %d, want 4", run, got)
			}
			k.Release()
		}
		if s := m.Stats(); s.Builds != wantBuilds {
			t.Errorf("run %d: %d builds, want %d", run, s.Builds, wantBuilds)
		}
		m.Close()
	}
	st, err := open().Stats()
	if err != nil {
		t.Fatal(err)
	}
	if st.Entries != 1 {
		t.Errorf("%d disk entries for two identical devices, want 1", st.Entries)
	}
}

// Devices that differ in anything a binary depends on are never of one
// class, and the difference is named.
func TestDeviceClassDiffers(t *testing.T) {
	a := deviceClass{Backend: "cuda", Name: "NVIDIA H100 80GB HBM3", LanguageVersion: "sm_90", FP64: true}
	b := a
	if a.diff(b) != "" || a.hash() != b.hash() {
		t.Errorf("equal classes differ: %q, %s vs %s", a.diff(b), a.hash(), b.hash())
	}
	for _, change := range []struct {
		field string
		set   func(*deviceClass)
	}{
		{"LanguageVersion", func(c *deviceClass) { c.LanguageVersion = "sm_80" }},
		{"DriverVersion", func(c *deviceClass) { c.DriverVersion = "CUDA 12.9" }},
		{"FP64", func(c *deviceClass) { c.FP64 = false }},
		{"Extensions", func(c *deviceClass) { c.Extensions = "cl_khr_fp16" }},
	} {
		c := a
		change.set(&c)
		if got := a.diff(c); got != change.field {
			t.Errorf("diff after changing %s = %q", change.field, got)
		}
		if a.hash() == c.hash() {
			t.Errorf("classes differing in %s hash alike", change.field)
		}
	}
}
