package levelzero_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gour-dev/gour/adapters/levelzero"
	"github.com/gour-dev/gour/adapters/levelzero/internal/ze"
	"github.com/gour-dev/gour/bundle"
	"github.com/gour-dev/gour/programmgr"
	"github.com/gour-dev/gour/ur"
)

// envFakeDriver, in the child process of TestFakeDriver, names the fake
// driver the loader was told to load.
const envFakeDriver = "GOUR_ZE_FAKE_DRIVER"

// TestFakeDriver runs the adapter through the real Level Zero loader over
// a fake driver (testdata/fakedriver/ze_fake_driver.c) that checks every
// call it gets and runs the conformance kernels in C: discovery, device
// properties, contexts, immediate command lists, event pools, timestamps,
// memory, SPIR-V and native modules, build logs, specialization
// constants, kernels and launches, and the memory model (USM, pointer
// arguments, markers, pools, sub-buffers, region copies, native handles;
// fakememory_test.go) and the launch model (launches with arguments,
// queue properties and queries, kernel attributes, globals, command
// buffers; fakelaunch_test.go), images and samplers
// (fakeimage_test.go) and events shared with a child process
// (fakeipcevent_test.go), end to end, on a machine without Intel hardware. The loader's validation layer checks the parameters too.
//
// It compiles the driver with the C compiler against the system's
// level_zero/ze_ddi.h (Debian: libze-dev) and runs the tests in a child
// process, whose loader sees only the fake driver
// (ZE_ENABLE_ALT_DRIVERS).
func TestFakeDriver(t *testing.T) {
	if os.Getenv(envFakeDriver) != "" {
		t.Skip("in the child process")
	}
	lib := buildFakeDriver(t)
	cmd := exec.Command(os.Args[0], "-test.run=^TestFakeDriverChild$", "-test.v", "-test.count=1")
	cmd.Env = append(os.Environ(),
		envFakeDriver+"="+lib,
		"ZE_ENABLE_ALT_DRIVERS="+lib,
		"ZE_ENABLE_VALIDATION_LAYER=1",
		"ZE_ENABLE_PARAMETER_VALIDATION=1",
		ur.EnvDeviceSelector+"=level_zero:*",
	)
	out, err := cmd.CombinedOutput()
	if err != nil || !bytes.Contains(out, []byte("--- PASS: TestFakeDriverChild")) {
		t.Fatalf("child process over the fake driver failed: %v\n%s", err, out)
	}
	t.Logf("child process over the fake driver:\n%s", out)
}

// buildFakeDriver compiles the fake driver and returns its library's path;
// it skips the test where the loader, a C compiler or ze_ddi.h is missing,
// unless the loader is required (envRequireLoader).
func buildFakeDriver(t *testing.T) string {
	t.Helper()
	required := os.Getenv(envRequireLoader) == "1"
	skip := func(format string, args ...any) {
		t.Helper()
		if required {
			t.Fatalf(format+" (%s=1)", append(args, envRequireLoader)...)
		}
		t.Skipf(format, args...)
	}
	if l, err := ze.Load(); err != nil {
		skip("Level Zero loader not installed: %v", err)
	} else {
		l.Close()
	}
	cc := os.Getenv("CC")
	if cc == "" {
		cc = "cc"
	}
	if _, err := exec.LookPath(cc); err != nil {
		skip("no C compiler (%s) to build the fake driver: %v", cc, err)
	}
	lib := filepath.Join(t.TempDir(), "libze_gour_fake.so")
	build := exec.Command(cc, "-shared", "-fPIC", "-O1", "-Wall", "-o", lib, filepath.Join("testdata", "fakedriver", "ze_fake_driver.c"))
	if out, err := build.CombinedOutput(); err != nil {
		skip("building the fake driver (needs level_zero/ze_ddi.h, Debian: libze-dev): %v\n%s", err, out)
	}
	return lib
}

// TestFakeDriverChild is the child process of TestFakeDriver.
func TestFakeDriverChild(t *testing.T) {
	if os.Getenv(envFakeDriver) == "" {
		t.Skip("runs as TestFakeDriver's child process")
	}
	sys, err := ur.Discover(ur.Config{ForceLoad: []string{levelzero.Name}})
	if err != nil {
		t.Fatal(err)
	}
	if len(sys.Devices) != 1 {
		t.Fatalf("%d devices over the fake driver (statuses %+v)", len(sys.Devices), sys.Statuses)
	}
	dev := sys.Devices[0]
	t.Logf("device: %s", dev)

	t.Run("DeviceInfo", func(t *testing.T) { fakeDeviceInfo(t, dev) })
	ctx, err := ur.NewContext(dev)
	if err != nil {
		t.Fatal(err)
	}
	defer ctx.Release()
	q, err := ctx.NewQueue(dev, ur.QueueProperties{Profiling: true})
	if err != nil {
		t.Fatal(err)
	}
	defer q.Release()
	t.Run("Memory", func(t *testing.T) { fakeMemory(t, ctx, q) })
	t.Run("MemoryInfo", func(t *testing.T) { fakeMemoryInfo(t, dev) })
	t.Run("USMAlloc", func(t *testing.T) { fakeUSMAlloc(t, ctx, dev) })
	t.Run("USMCommands", func(t *testing.T) { fakeUSMCommands(t, ctx, dev, q) })
	t.Run("Pool", func(t *testing.T) { fakePool(t, ctx, dev, q) })
	t.Run("CopyRect", func(t *testing.T) { fakeCopyRect(t, ctx, dev, q) })
	t.Run("Images", func(t *testing.T) { fakeImages(t, ctx, dev, q) })
	t.Run("IPCEvent", func(t *testing.T) { fakeIPCEvent(t, ctx, dev, q) })
	prog := fakeProgram(t, ctx, dev, "kernels_fp64.spv")
	defer prog.Release()
	t.Run("PointerLaunch", func(t *testing.T) { fakePointerLaunch(t, ctx, dev, q, prog) })
	t.Run("Markers", func(t *testing.T) { fakeMarkers(t, ctx, dev, q, prog) })
	t.Run("SubBuffer", func(t *testing.T) { fakeSubBuffer(t, ctx, q, prog) })
	t.Run("Native", func(t *testing.T) { fakeNative(t, ctx, dev, q, prog) })
	t.Run("Program", func(t *testing.T) { fakeProgramChecks(t, ctx, dev, q, prog) })
	t.Run("Launch", func(t *testing.T) { fakeLaunches(t, ctx, q, prog) })
	t.Run("Launch with arguments", func(t *testing.T) { fakeLaunchArgs(t, ctx, dev, prog) })
	t.Run("LaunchArgsPointer", func(t *testing.T) { fakeLaunchArgsPointer(t, ctx, dev, q, prog) })
	t.Run("OutOfOrder", func(t *testing.T) { fakeOutOfOrder(t, ctx, dev, prog) })
	t.Run("Priorities", func(t *testing.T) { fakePriorities(t, ctx, dev) })
	t.Run("QueueQueries", func(t *testing.T) { fakeQueueQueries(t, ctx, dev, prog) })
	t.Run("KernelAttributes", func(t *testing.T) { fakeKernelAttributes(t, ctx, dev, q, prog) })
	t.Run("ProgramGlobal", func(t *testing.T) { fakeProgramGlobal(t, dev, q, prog) })
	t.Run("CommandBuffer", func(t *testing.T) { fakeCommandBuffer(t, ctx, dev, q, prog) })
	t.Run("LaunchAllocatesNothing", func(t *testing.T) { fakeLaunchAllocs(t, ctx, dev, prog) })
	t.Run("Events", func(t *testing.T) { fakeEvents(t, ctx, dev, q, prog) })
	t.Run("BuildFailure", func(t *testing.T) { fakeBuildFailure(t, ctx, dev) })
	t.Run("Link", func(t *testing.T) { fakeLink(t, ctx) })
	t.Run("ObjectsOutliveContext", func(t *testing.T) { fakeOutlive(t, dev) })
	t.Run("Bundle", func(t *testing.T) { fakeBundle(t, ctx, dev, q) })
}

func must(t testing.TB, what string, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

func spirv(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "conformance", "testdata", "spirv", name))
	must(t, "reading the SPIR-V test data", err)
	return b
}

func fakeDeviceInfo(t *testing.T, dev *ur.Device) {
	info := dev.Info()
	for _, c := range []struct {
		what      string
		got, want any
	}{
		{"type", info.Type, ur.DeviceTypeGPU},
		{"name", info.Name, "gour fake Level Zero GPU"},
		{"vendor id", info.VendorID, uint32(0x8086)},
		{"compute units (16 EUs × 4 subslices × 2 slices)", info.ComputeUnits, uint32(128)},
		{"clock", info.MaxClockMHz, uint32(2400)},
		{"global memory (two memories)", info.GlobalMemSize, uint64(2 << 30)},
		{"local memory", info.LocalMemSize, uint64(64 << 10)},
		{"max alloc", info.MaxMemAllocSize, uint64(1 << 30)},
		{"max work-group", info.MaxWorkGroupSize, uint64(1024)},
		{"driver version", info.DriverVersion, "1.3.28015"},
		{"IL versions", info.ILVersions, "SPIR-V_1.0 SPIR-V_1.1 SPIR-V_1.2"},
		{"fp64", info.FP64, true},
		{"profiling resolution (zeDeviceGetProperties 1.2: 12.5 MHz)", info.ProfilingResolutionNS, uint64(80)},
		{"UUID", info.UUID, "00010203-0405-0607-0809-0a0b0c0d0e0f"},
		{"platform", dev.Platform().Info().Name, "Intel(R) Level-Zero"},
	} {
		if c.got != c.want {
			t.Errorf("%s = %v, want %v", c.what, c.got, c.want)
		}
	}
	if !strings.Contains(dev.Platform().Info().Extensions, "ZE_experimental_global_offset") {
		t.Errorf("platform extensions %q", dev.Platform().Info().Extensions)
	}
}

func fakeMemory(t *testing.T, ctx *ur.Context, q *ur.Queue) {
	data := make([]byte, 4096)
	for i := range data {
		data[i] = byte(i * 7)
	}
	a, err := ctx.NewBufferFrom(ur.MemReadWrite, data)
	must(t, "NewBufferFrom", err)
	defer a.Release()
	b, err := ctx.NewBuffer(ur.MemReadWrite, 4096)
	must(t, "NewBuffer", err)
	defer b.Release()
	ev, err := q.EnqueueCopy(a, b, 16, 32, 1000)
	must(t, "EnqueueCopy", err)
	ev.Release()
	got := make([]byte, 1000)
	must(t, "ReadBuffer", q.ReadBuffer(b, 32, got))
	if !bytes.Equal(got, data[16:1016]) {
		t.Error("copy between buffers: data differs")
	}
	// A pattern the compute engine fills (4 bytes) and one it does not
	// (64 bytes: the adapter doubles device copies).
	for _, n := range []int{4, 64} {
		pattern := make([]byte, n)
		for i := range pattern {
			pattern[i] = byte(n + i)
		}
		ev, err := q.EnqueueFill(b, pattern, 256, 2048)
		must(t, "EnqueueFill", err)
		must(t, "Wait", ev.Wait(context.Background()))
		ev.Release()
		all := make([]byte, 4096)
		must(t, "ReadBuffer", q.ReadBuffer(b, 0, all))
		want := bytes.Repeat(pattern, 2048/n)
		if !bytes.Equal(all[256:256+2048], want) {
			t.Errorf("fill with a %d-byte pattern: data differs", n)
		}
		if bytes.Equal(all[256+2048:256+2048+n], pattern) {
			t.Errorf("fill with a %d-byte pattern wrote past its range", n)
		}
	}
	src := bytes.Repeat([]byte{9}, 100)
	ev, err = q.EnqueueWrite(a, 0, src)
	must(t, "EnqueueWrite", err)
	dst := make([]byte, 100)
	rev, err := q.EnqueueRead(a, 0, dst, ev)
	must(t, "EnqueueRead", err)
	must(t, "Wait", rev.Wait(context.Background()))
	ev.Release()
	rev.Release()
	if !bytes.Equal(dst, src) {
		t.Error("non-blocking write then read: data differs")
	}
}

// fakeProgram builds a SPIR-V file of the conformance suite with two
// specialization constants.
func fakeProgram(t *testing.T, ctx *ur.Context, dev *ur.Device, file string) *ur.Program {
	p, err := ctx.NewProgramFromIL(spirv(t, file))
	must(t, "NewProgramFromIL", err)
	must(t, "SetSpecConstant", p.SetSpecConstant(7, []byte{42, 0, 0, 0}))
	must(t, "SetSpecConstant", p.SetSpecConstant(9, []byte{1, 2, 3, 4}))
	must(t, "Build", p.Build("-ze-opt-level=2"))
	return p
}

func fakeProgramChecks(t *testing.T, ctx *ur.Context, dev *ur.Device, q *ur.Queue, p *ur.Program) {
	log, err := p.BuildLog(dev)
	must(t, "BuildLog", err)
	for _, want := range []string{`build flags "-ze-opt-level=2"`, "specialization constant 7 = 0x2a", "specialization constant 9 = 0x4030201"} {
		if !strings.Contains(log, want) {
			t.Errorf("the build log does not contain %q:\n%s", want, log)
		}
	}
	names, err := p.KernelNames()
	must(t, "KernelNames", err)
	want := []string{"axpy", "iota", "fill_u32", "add_one", "index2d", "index3d", "local_ids", "group_sum", "scale", "scalars", "axpy_f64"}
	slices.Sort(names)
	slices.Sort(want)
	if !slices.Equal(names, want) {
		t.Errorf("KernelNames = %q, want %q", names, want)
	}
	if _, err := p.NewKernel("no_such_kernel"); !errors.Is(err, ur.ErrInvalidKernelName) {
		t.Errorf("NewKernel(no_such_kernel) = %v, want ErrInvalidKernelName", err)
	}
	bins, err := p.Binaries()
	must(t, "Binaries", err)
	bp, err := ctx.NewProgramFromBinaries([]*ur.Device{dev}, bins)
	must(t, "NewProgramFromBinaries", err)
	defer bp.Release()
	must(t, "Build of the native binary", bp.Build(""))
	k, err := bp.NewKernel("iota")
	must(t, "NewKernel of the binary program", err)
	defer k.Release()
	checkIota(t, ctx, q, k, ur.Range1D(1000), 0)

	garbage, err := ctx.NewProgramFromBinaries([]*ur.Device{dev}, [][]byte{[]byte("not a native binary")})
	must(t, "NewProgramFromBinaries(garbage)", err)
	defer garbage.Release()
	if err := garbage.Build(""); !errors.Is(err, ur.ErrInvalidBinary) {
		t.Errorf("Build of a garbage binary = %v, want ErrInvalidBinary", err)
	}
	if _, err := ctx.NewProgramFromSource("__kernel void k() {}"); !errors.Is(err, ur.ErrUnsupportedFeature) {
		t.Errorf("NewProgramFromSource = %v, want ErrUnsupportedFeature", err)
	}
	if err := bp.SetSpecConstant(1, []byte{1}); !errors.Is(err, ur.ErrUnsupportedFeature) {
		t.Errorf("SetSpecConstant on a binary program = %v, want ErrUnsupportedFeature", err)
	}
}

// checkIota launches iota (out[i] = i) over r and checks the n = r.Global
// elements from offset.
func checkIota(t *testing.T, ctx *ur.Context, q *ur.Queue, k *ur.Kernel, r ur.NDRange, offset uint64) {
	t.Helper()
	n := r.Global[0]
	m, err := ctx.NewBuffer(ur.MemReadWrite, 4*(n+offset))
	must(t, "NewBuffer", err)
	defer m.Release()
	must(t, "SetArgMem", k.SetArgMem(0, m))
	must(t, "Launch", q.Launch(k, r))
	out := make([]uint32, n+offset)
	must(t, "ReadBuffer", q.ReadBuffer(m, 0, ur.AsBytes(out)))
	for i := offset; i < n+offset; i++ {
		if out[i] != uint32(i) {
			t.Fatalf("iota over %+v: out[%d] = %d", r, i, out[i])
		}
	}
}

func fakeLaunches(t *testing.T, ctx *ur.Context, q *ur.Queue, p *ur.Program) {
	k, err := p.NewKernel("iota")
	must(t, "NewKernel", err)
	defer k.Release()
	if k.NumArgs() != 1 {
		t.Errorf("iota NumArgs = %d", k.NumArgs())
	}
	checkIota(t, ctx, q, k, ur.Range1D(1000), 0) // suggested group size
	checkIota(t, ctx, q, k, ur.NDRange{Dims: 1, Global: [3]uint64{1024, 1, 1}, Local: [3]uint64{128, 1, 1}}, 0)
	checkIota(t, ctx, q, k, ur.NDRange{Dims: 1, Offset: [3]uint64{16, 0, 0}, Global: [3]uint64{256, 1, 1}}, 16)
	checkIota(t, ctx, q, k, ur.Range1D(1000), 0) // the offset is reset
	err = q.Launch(k, ur.NDRange{Dims: 1, Global: [3]uint64{1000, 1, 1}, Local: [3]uint64{64, 1, 1}})
	if !errors.Is(err, ur.ErrInvalidWorkGroupSize) {
		t.Errorf("global 1000, local 64: %v, want ErrInvalidWorkGroupSize", err)
	}
	if err := k.SetArgUint32(0, 1); !errors.Is(err, ur.ErrInvalidKernelArgumentSize) {
		t.Errorf("a 4-byte value for a pointer argument = %v, want ErrInvalidKernelArgumentSize", err)
	}

	// A __local argument and explicit work-groups.
	gs, err := p.NewKernel("group_sum")
	must(t, "NewKernel", err)
	defer gs.Release()
	in := make([]uint32, 1024)
	for i := range in {
		in[i] = uint32(i)
	}
	min, err := ctx.NewBufferFrom(ur.MemReadOnly, ur.AsBytes(in))
	must(t, "NewBufferFrom", err)
	defer min.Release()
	mout, err := ctx.NewBuffer(ur.MemWriteOnly, 4*16)
	must(t, "NewBuffer", err)
	defer mout.Release()
	must(t, "SetArgMem", gs.SetArgMem(0, min))
	must(t, "SetArgMem", gs.SetArgMem(1, mout))
	must(t, "SetArgLocal", gs.SetArgLocal(2, 4*64))
	must(t, "Launch", q.Launch(gs, ur.NDRange{Dims: 1, Global: [3]uint64{1024, 1, 1}, Local: [3]uint64{64, 1, 1}}))
	sums := make([]uint32, 16)
	must(t, "ReadBuffer", q.ReadBuffer(mout, 0, ur.AsBytes(sums)))
	for g, s := range sums {
		want := uint32(0)
		for i := 64 * g; i < 64*(g+1); i++ {
			want += uint32(i)
		}
		if s != want {
			t.Errorf("group_sum group %d = %d, want %d", g, s, want)
		}
	}

	// Every scalar type by value.
	sc, err := p.NewKernel("scalars")
	must(t, "NewKernel", err)
	defer sc.Release()
	out, err := ctx.NewBuffer(ur.MemWriteOnly, 8*8)
	must(t, "NewBuffer", err)
	defer out.Release()
	fout, err := ctx.NewBuffer(ur.MemWriteOnly, 4)
	must(t, "NewBuffer", err)
	defer fout.Release()
	must(t, "SetArgMem", sc.SetArgMem(0, out))
	must(t, "SetArgMem", sc.SetArgMem(1, fout))
	must(t, "char", sc.SetArgBytes(2, []byte{0xfe}))
	must(t, "uchar", sc.SetArgBytes(3, []byte{0xfe}))
	must(t, "short", sc.SetArgBytes(4, binary.LittleEndian.AppendUint16(nil, 0xfffd)))
	must(t, "ushort", sc.SetArgBytes(5, binary.LittleEndian.AppendUint16(nil, 0xfffd)))
	must(t, "int", sc.SetArgInt32(6, -4))
	must(t, "uint", sc.SetArgUint32(7, 4000000000))
	must(t, "long", sc.SetArgInt64(8, -5_000_000_000))
	must(t, "ulong", sc.SetArgUint64(9, 5_000_000_000))
	must(t, "float", sc.SetArgFloat32(10, 1.5))
	must(t, "Launch", q.Launch(sc, ur.Range1D(1)))
	longs := make([]int64, 8)
	must(t, "ReadBuffer", q.ReadBuffer(out, 0, ur.AsBytes(longs)))
	if want := []int64{-2, 254, -3, 65533, -4, 4000000000, -5_000_000_000, 5_000_000_000}; !slices.Equal(longs, want) {
		t.Errorf("scalars = %v, want %v", longs, want)
	}
	f := make([]float32, 1)
	must(t, "ReadBuffer", q.ReadBuffer(fout, 0, ur.AsBytes(f)))
	if f[0] != 1.5 {
		t.Errorf("float argument = %v", f[0])
	}

	// axpy_f64, a double by value.
	ax, err := p.NewKernel("axpy_f64")
	must(t, "NewKernel", err)
	defer ax.Release()
	x, err := ctx.NewBufferFrom(ur.MemReadOnly, ur.AsBytes([]float64{1, 2, 3, 4}))
	must(t, "NewBufferFrom", err)
	defer x.Release()
	y, err := ctx.NewBufferFrom(ur.MemReadWrite, ur.AsBytes([]float64{10, 20, 30, 40}))
	must(t, "NewBufferFrom", err)
	defer y.Release()
	must(t, "a", ax.SetArgFloat64(0, 0.5))
	must(t, "x", ax.SetArgMem(1, x))
	must(t, "y", ax.SetArgMem(2, y))
	must(t, "Launch", q.Launch(ax, ur.Range1D(4)))
	ys := make([]float64, 4)
	must(t, "ReadBuffer", q.ReadBuffer(y, 0, ur.AsBytes(ys)))
	if want := []float64{10.5, 21, 31.5, 42}; !slices.Equal(ys, want) {
		t.Errorf("axpy_f64 = %v, want %v", ys, want)
	}
	if math.IsNaN(ys[0]) {
		t.Error("NaN")
	}
}

// fakeLaunchAllocs checks, through ur and the real loader, that a launch
// without events makes no Go allocation.
func fakeLaunchAllocs(t *testing.T, ctx *ur.Context, dev *ur.Device, p *ur.Program) {
	if levelzero.RaceEnabled {
		t.Skip("the race detector makes sync.Pool drop items")
	}
	q, err := ctx.NewQueue(dev, ur.QueueProperties{})
	must(t, "NewQueue", err)
	defer q.Release()
	k, err := p.NewKernel("fill_u32")
	must(t, "NewKernel", err)
	defer k.Release()
	m, err := ctx.NewBuffer(ur.MemReadWrite, 4*256)
	must(t, "NewBuffer", err)
	defer m.Release()
	must(t, "SetArgMem", k.SetArgMem(0, m))
	must(t, "SetArgUint32", k.SetArgUint32(1, 7))
	r := ur.NDRange{Dims: 1, Global: [3]uint64{256, 1, 1}, Local: [3]uint64{64, 1, 1}}
	must(t, "Launch", q.Launch(k, r))
	allocs := testing.AllocsPerRun(100, func() {
		if err := q.Launch(k, r); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Errorf("ur.Queue.Launch on Level Zero allocates %.1f times per call", allocs)
	}
	// A launch with its arguments borrows a pooled kernel handle and
	// allocates nothing either, buffer and value arguments included.
	args := []ur.Arg{ur.ArgBuffer(m), ur.ArgOf(uint32(9))}
	must(t, "Launch with arguments", q.Launch(k, r, args...))
	allocs = testing.AllocsPerRun(100, func() {
		if err := q.Launch(k, r, args...); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Errorf("ur.Queue.Launch on Level Zero allocates %.1f times per call", allocs)
	}
	must(t, "Finish", q.Finish())
}

func fakeEvents(t *testing.T, ctx *ur.Context, dev *ur.Device, q *ur.Queue, p *ur.Program) {
	k, err := p.NewKernel("add_one")
	must(t, "NewKernel", err)
	defer k.Release()
	m, err := ctx.NewBufferFrom(ur.MemReadWrite, make([]byte, 4*256))
	must(t, "NewBufferFrom", err)
	defer m.Release()
	must(t, "SetArgMem", k.SetArgMem(0, m))
	q2, err := ctx.NewQueue(dev, ur.QueueProperties{})
	must(t, "NewQueue", err)
	defer q2.Release()
	e1, err := q.EnqueueLaunch(k, ur.Range1D(256), ur.LaunchOptions{})
	must(t, "EnqueueLaunch", err)
	defer e1.Release()
	e2, err := q2.EnqueueLaunch(k, ur.Range1D(256), ur.LaunchOptions{Wait: []*ur.Event{e1}}) // waits across queues
	must(t, "EnqueueLaunch with a wait list", err)
	defer e2.Release()
	must(t, "WaitAll", ur.WaitAll(context.Background(), e1, e2))
	if st, err := e1.Status(); err != nil || st != ur.EventComplete {
		t.Errorf("Status = %v, %v", st, err)
	}
	prof, err := e1.Profiling()
	must(t, "Profiling", err)
	if prof.Start == 0 || prof.End < prof.Start || prof.Queued > prof.Start {
		t.Errorf("profiling times %+v", prof)
	}
	if _, err := e2.Profiling(); !errors.Is(err, ur.ErrProfilingInfoNotAvailable) {
		t.Errorf("Profiling on a queue without it = %v", err)
	}
	out := make([]uint32, 256)
	must(t, "ReadBuffer", q.ReadBuffer(m, 0, ur.AsBytes(out)))
	if out[0] != 2 || out[255] != 2 {
		t.Errorf("two add_one launches gave %d, %d", out[0], out[255])
	}
}

func fakeBuildFailure(t *testing.T, ctx *ur.Context, dev *ur.Device) {
	p, err := ctx.NewProgramFromIL(spirv(t, "invalid.spv"))
	must(t, "NewProgramFromIL(invalid.spv)", err)
	defer p.Release()
	err = p.Build("")
	if !errors.Is(err, ur.ErrProgramBuildFailure) {
		t.Fatalf("Build(invalid.spv) = %v, want ErrProgramBuildFailure", err)
	}
	if log := ur.BuildLogOf(err); !strings.Contains(log, "gour_undeclared_identifier") {
		t.Errorf("the error's build log does not name gour_undeclared_identifier:\n%s", log)
	}
	if log, _ := p.BuildLog(dev); !strings.Contains(log, "gour_undeclared_identifier") {
		t.Errorf("BuildLog does not name gour_undeclared_identifier:\n%s", log)
	}
	p2, err := ctx.NewProgramFromIL(spirv(t, "kernels.spv"))
	must(t, "NewProgramFromIL", err)
	defer p2.Release()
	if err := p2.Build("-gour-fake-build-error"); !errors.Is(err, ur.ErrProgramBuildFailure) || !strings.Contains(ur.BuildLogOf(err), "asked for a build error") {
		t.Errorf("Build with a failing flag = %v (log %q)", err, ur.BuildLogOf(err))
	}
	if _, err := ctx.NewProgramFromIL([]byte("not SPIR-V at all, no magic")); !errors.Is(err, ur.ErrInvalidBinary) {
		t.Errorf("NewProgramFromIL(garbage) = %v, want ErrInvalidBinary", err)
	}
}

func fakeLink(t *testing.T, ctx *ur.Context) {
	lib, err := ctx.NewProgramFromIL(spirv(t, "link_lib.spv"))
	must(t, "NewProgramFromIL", err)
	defer lib.Release()
	must(t, "Compile", lib.Compile(""))
	one, err := ctx.Link("", []*ur.Program{lib})
	must(t, "Link of one program", err)
	one.Release()
	main, err := ctx.NewProgramFromIL(spirv(t, "link_main.spv"))
	must(t, "NewProgramFromIL", err)
	defer main.Release()
	must(t, "Compile", main.Compile(""))
	// The fake driver has no ZE_experimental_module_program.
	if _, err := ctx.Link("", []*ur.Program{main, lib}); !errors.Is(err, ur.ErrUnsupportedFeature) {
		t.Errorf("Link of two programs = %v, want ErrUnsupportedFeature", err)
	}
	if _, err := ctx.Link("", []*ur.Program{main}); !errors.Is(err, ur.ErrProgramBuildFailure) {
		t.Errorf("Link of a program with an unresolved import = %v, want a build failure", err)
	}
}

// fakeOutlive releases a context before its queue and buffer, which must
// keep working (the Level Zero context goes with the last of them).
func fakeOutlive(t *testing.T, dev *ur.Device) {
	ctx, err := ur.NewContext(dev)
	must(t, "NewContext", err)
	q, err := ctx.NewQueue(dev, ur.QueueProperties{})
	must(t, "NewQueue", err)
	m, err := ctx.NewBuffer(ur.MemReadWrite, 64)
	must(t, "NewBuffer", err)
	must(t, "Context.Release", ctx.Release())
	src := bytes.Repeat([]byte{5}, 64)
	must(t, "WriteBuffer", q.WriteBuffer(m, 0, src))
	got := make([]byte, 64)
	must(t, "ReadBuffer", q.ReadBuffer(m, 0, got))
	if !bytes.Equal(got, src) {
		t.Error("round trip after Context.Release: data differs")
	}
	must(t, "Mem.Release", m.Release())
	must(t, "Queue.Release", q.Release())
}

// fakeBundle chooses images of an offload bundle for the Level Zero device
// of the test driver, as described from its properties: a native binary
// for its device ID first, else the SPIR-V (a native binary for another
// device is passed over), and builds and runs the SPIR-V through the
// program manager.
func fakeBundle(t *testing.T, ctx *ur.Context, dev *ur.Device, q *ur.Queue) {
	il := spirv(t, "kernels.spv")
	a, err := bundle.Analyze(bundle.FormatSPIRV, il)
	must(t, "bundle.Analyze", err)
	var kernels []string
	for _, k := range a.Kernels {
		kernels = append(kernels, k.Name)
	}
	desc := bundle.DescribeDevice(dev)
	if desc.Backend != bundle.BackendLevelZero || !strings.HasPrefix(desc.Arch, "0x") {
		t.Fatalf("the device is described as %+v: want level_zero and its device ID", desc)
	}
	spv := bundle.Image{Format: bundle.FormatSPIRV, Kernels: kernels,
		Properties: bundle.Properties{SpecConstants: a.SpecConstants}, Code: il}
	native := func(arch string) bundle.Image {
		return bundle.Image{Target: bundle.Target{Backend: bundle.BackendLevelZero, Arch: arch},
			Format: bundle.FormatNative, Kernels: kernels, Code: []byte("a native module for " + arch)}
	}
	other := "0x0bd5"
	if desc.Arch == other {
		other = "0x0bd6"
	}
	req := bundle.Request{Kernels: []string{"iota"}}

	s, err := bundle.Select([]bundle.Image{spv, native(other), native(desc.Arch)}, desc, req)
	must(t, "bundle.Select", err)
	if s.Index != 2 || s.Rank != bundle.RankExact {
		t.Errorf("with a native binary for the device: chose image %d (%v), want 2 (exact native match)", s.Index, s.Rank)
	}
	s, err = bundle.Select([]bundle.Image{native(other), spv}, desc, req)
	must(t, "bundle.Select", err)
	if s.Index != 1 || s.Rank != bundle.RankIL {
		t.Errorf("with a native binary for another device: chose image %d (%v), want 1 (IL)", s.Index, s.Rank)
	}
	if len(s.Rejected) != 1 || s.Rejected[0].Reason != bundle.ReasonArch {
		t.Errorf("the other device's binary rejected as %+v, want another architecture", s.Rejected)
	}

	data, err := (&bundle.Bundle{Images: []bundle.Image{native(other), spv}}).Marshal()
	must(t, "Bundle.Marshal", err)
	b, err := programmgr.NewBundle(data)
	must(t, "programmgr.NewBundle", err)
	m, err := programmgr.New(ctx, programmgr.Options{})
	must(t, "programmgr.New", err)
	defer m.Close()
	k, err := m.GetBundleKernel(context.Background(), b, "iota", dev, programmgr.SpecValues{}, "")
	must(t, "GetBundleKernel", err)
	defer k.Release()
	k.Lock()
	defer k.Unlock()
	checkIota(t, ctx, q, k.UR(), ur.Range1D(64), 0)
}
