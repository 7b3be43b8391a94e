package levelzero

import (
	ctxpkg "context"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/gour-dev/gour/adapters/levelzero/internal/ze"
	"github.com/gour-dev/gour/internal/dl"
	"github.com/gour-dev/gour/ur/driver"
)

// TestOpenWithoutLoader runs the path of a machine without the loader:
// Open over library names that do not exist must fail with
// ErrNotAvailable, naming each library and dlopen's reason.
func TestOpenWithoutLoader(t *testing.T) {
	names := []string{"libze_loader_gour_hidden.so.1", "libze_loader_gour_hidden.so"}
	a, err := open(names)
	if err == nil {
		t.Fatalf("open(%q) found an adapter: %v", names, a)
	}
	if !errors.Is(err, driver.ErrNotAvailable) {
		t.Fatalf("open without the loader: %v, want ErrNotAvailable", err)
	}
	for _, want := range append(names, "level_zero: ", "not available", "cannot open shared object file") {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not contain %q", err, want)
		}
	}
	t.Logf("reported: %v", err)
}

func TestResultOf(t *testing.T) {
	for _, c := range []struct {
		ze   ze.Result
		want driver.Result
	}{
		{ze.Success, driver.ResultSuccess},
		{ze.ErrorOutOfDeviceMemory, driver.ResultOutOfDeviceMemory},
		{ze.ErrorOutOfHostMemory, driver.ResultOutOfHostMemory},
		{ze.ErrorModuleBuildFailure, driver.ResultProgramBuildFailure},
		{ze.ErrorModuleLinkFailure, driver.ResultProgramLinkFailure},
		{ze.ErrorInvalidKernelName, driver.ResultInvalidKernelName},
		{ze.ErrorInvalidNativeBinary, driver.ResultInvalidBinary},
		{ze.ErrorInvalidKernelArgumentIndex, driver.ResultInvalidKernelArgumentIndex},
		{ze.ErrorInvalidKernelArgumentSize, driver.ResultInvalidKernelArgumentSize},
		{ze.ErrorInvalidGroupSizeDimension, driver.ResultInvalidWorkGroupSize},
		{ze.ErrorInvalidModuleUnlinked, driver.ResultProgramUnlinked},
		{ze.ErrorUninitialized, driver.ResultUninitialized},
		{ze.ErrorUnsupportedFeature, driver.ResultUnsupportedFeature},
		{ze.ErrorDeviceLost, driver.ResultDeviceLost},
		{ze.Result(0x12345), driver.ResultUnknown},
	} {
		if got := resultOf(c.ze); got != c.want {
			t.Errorf("resultOf(%v) = %v, want %v", c.ze, got, c.want)
		}
	}
	err := zeError("zeModuleCreate", ze.ErrorModuleBuildFailure)
	if !errors.Is(err, driver.ResultProgramBuildFailure) || err.Native != 0x70000004 || err.NativeName != "ZE_RESULT_ERROR_MODULE_BUILD_FAILURE" {
		t.Errorf("zeError = %+v", err)
	}
}

func TestFormatting(t *testing.T) {
	if got := driverVersionString(0x01036d6f); got != "1.3.28015" {
		t.Errorf("driverVersionString = %q", got)
	}
	if got := ilVersions(ze.MakeVersion(1, 2)); got != "SPIR-V_1.0 SPIR-V_1.1 SPIR-V_1.2" {
		t.Errorf("ilVersions(1.2) = %q", got)
	}
	if got := ilVersions(0); got != "" {
		t.Errorf("ilVersions(0) = %q", got)
	}
	if got := spirvVersion(ze.MakeVersion(1, 4)); got != "SPIR-V 1.4" {
		t.Errorf("spirvVersion = %q", got)
	}
	id := [16]byte{0x86, 0x80, 0xa0, 0x56, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}
	if got := uuidString(id); got != "8680a056-0102-0304-0506-0708090a0b0c" {
		t.Errorf("uuidString = %q", got)
	}
	if deviceType(ze.DeviceTypeGPU) != driver.DeviceTypeGPU || deviceType(ze.DeviceTypeMCA) != driver.DeviceTypeOther {
		t.Error("deviceType")
	}
}

func TestTickDelta(t *testing.T) {
	for _, c := range []struct {
		base, ticks uint64
		bits        uint32
		want        uint64
	}{
		{100, 150, 32, 50},
		{0xffff_fff0, 0x10, 32, 0x20},   // the 32-bit kernel timestamp wrapped
		{0x1_ffff_fff0, 0x10, 32, 0x20}, // the reference has more bits than kernel timestamps
		{100, 150, 0, 50},               // no width reported
		{1 << 40, 1<<40 + 7, 64, 7},     // full width
	} {
		if got := tickDelta(c.base, c.ticks, c.bits); got != c.want {
			t.Errorf("tickDelta(%#x, %#x, %d) = %#x, want %#x", c.base, c.ticks, c.bits, got, c.want)
		}
	}
}

func TestTicksToNS(t *testing.T) {
	d := &device{timerNS: 83, timerHz: 12_000_000} // 83.33 ns per tick
	if got := d.ticksToNS(12_000_000); got != 1_000_000_000 {
		t.Errorf("12e6 ticks at 12 MHz = %d ns", got)
	}
	if got := d.ticksToNS(1 << 40); got != 91625968981333 {
		t.Errorf("2^40 ticks at 12 MHz = %d ns", got)
	}
	d.timerHz = 0
	if got := d.ticksToNS(3); got != 249 {
		t.Errorf("3 ticks at 83 ns = %d", got)
	}
}

func TestLargestDivisor(t *testing.T) {
	for _, c := range []struct{ n, limit, want uint32 }{
		{1000, 256, 250}, {1024, 256, 256}, {7, 256, 7}, {1031, 256, 1}, {96, 64, 48}, {5, 1, 1},
	} {
		if got := largestDivisor(c.n, c.limit); got != c.want {
			t.Errorf("largestDivisor(%d, %d) = %d, want %d", c.n, c.limit, got, c.want)
		}
	}
}

// spirvHeader is a SPIR-V module header: magic, version 1.0, generator,
// bound, schema. Not a module a driver would build.
var spirvHeader = []byte{0x03, 0x02, 0x23, 0x07, 0x00, 0x00, 0x01, 0x00, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0}

func TestIsSPIRV(t *testing.T) {
	big := []byte{0x07, 0x23, 0x02, 0x03, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0}
	for _, c := range []struct {
		il   []byte
		want bool
	}{
		{spirvHeader, true},
		{big, true},
		{spirvHeader[:16], false},
		{append(append([]byte{}, spirvHeader...), 0), false},
		{[]byte(".version 7.0\n.target sm_52\n"), false},
	} {
		if got := isSPIRV(c.il); got != c.want {
			t.Errorf("isSPIRV(% x) = %v", c.il, got)
		}
	}
	if b, err := os.ReadFile("../../conformance/testdata/spirv/kernels.spv"); err != nil || !isSPIRV(b) {
		t.Errorf("the conformance SPIR-V (%v) is not recognised", err)
	}
}

// stubLib returns a binding whose every entry point is libc's
// sched_yield: each call succeeds and leaves its outputs zero, so the
// adapter's own logic runs without a driver.
func stubLib(t testing.TB) *ze.Lib {
	t.Helper()
	lib, err := dl.Open("libc.so.6")
	if err != nil {
		t.Skipf("libc.so.6 not loadable here: %v", err)
	}
	fn, err := lib.Lookup("sched_yield")
	if err != nil {
		t.Skip(err)
	}
	return ze.Stub(fn)
}

// stubDevice returns a device of a stub driver with the limits of a
// typical Intel GPU.
func stubDevice(t testing.TB) *device {
	a := &adapter{ze: stubLib(t)}
	p := &platform{a: a, handle: 1, api: ze.MakeVersion(1, 4)}
	d := &device{
		p: p, handle: 2, maxFillPattern: 16,
		maxGroupSize: [3]uint32{1024, 1024, 1024}, maxGroupCount: [3]uint32{1 << 30, 1 << 30, 1 << 30},
		maxTotalGroup: 1024, timerNS: 52, kernelTSBits: 32,
		info: driver.DeviceInfo{Name: "stub GPU"},
	}
	p.devices = []driver.Device{d}
	a.platforms = []driver.Platform{p}
	return d
}

func stubContext(t testing.TB) (*context, *device) {
	d := stubDevice(t)
	dc, err := d.p.a.NewContext([]driver.Device{d})
	if err != nil {
		t.Fatal(err)
	}
	return dc.(*context), d
}

func TestProgramInputs(t *testing.T) {
	c, d := stubContext(t)
	if _, err := c.NewProgramFromSource("__kernel void k() {}"); !errors.Is(err, driver.ResultUnsupportedFeature) {
		t.Errorf("NewProgramFromSource = %v, want UNSUPPORTED_FEATURE", err)
	}
	if _, err := c.NewProgramFromIL([]byte(".version 7.0\n.target sm_90\n.address_size 64\n")); !errors.Is(err, driver.ResultInvalidBinary) {
		t.Errorf("NewProgramFromIL(PTX) = %v, want INVALID_BINARY", err)
	}
	dp, err := c.NewProgramFromIL(spirvHeader)
	if err != nil {
		t.Fatal(err)
	}
	p := dp.(*program)
	if err := p.SetSpecConstant(3, []byte{1, 0, 0, 0}); err != nil {
		t.Fatal(err)
	}
	if err := p.SetSpecConstant(5, []byte{1}); err != nil {
		t.Fatal(err)
	}
	if err := p.SetSpecConstant(3, []byte{7, 0, 0, 0}); err != nil {
		t.Fatal(err)
	}
	if len(p.specIDs) != 2 || p.specVals[0][0] != 7 {
		t.Errorf("recorded constants %v = %v, want ids 3, 5 with 3 replaced", p.specIDs, p.specVals)
	}
	if cs := p.constants(); cs == nil || cs.NumConstants != 2 {
		t.Errorf("constants() = %+v", cs)
	}
	p.modules[0] = 1 // as if built
	if err := p.SetSpecConstant(3, []byte{1}); !errors.Is(err, driver.ResultInvalidOperation) {
		t.Errorf("SetSpecConstant after Build = %v, want INVALID_OPERATION", err)
	}
	p.modules[0] = 0
	db, err := c.NewProgramFromBinaries([]driver.Device{d}, [][]byte{{1, 2, 3}})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.SetSpecConstant(1, []byte{1}); !errors.Is(err, driver.ResultUnsupportedFeature) {
		t.Errorf("SetSpecConstant on a binary program = %v, want UNSUPPORTED_FEATURE", err)
	}
	if err := db.Compile(nil, ""); !errors.Is(err, driver.ResultInvalidOperation) {
		t.Errorf("Compile of a binary program = %v, want INVALID_OPERATION", err)
	}
	if _, err := c.Link(nil, []driver.Program{dp}, ""); !errors.Is(err, driver.ResultInvalidProgram) {
		t.Errorf("Link of an uncompiled program = %v, want INVALID_PROGRAM", err)
	}
	if err := dp.Compile(nil, "-cl-fast-relaxed-math"); err != nil {
		t.Fatal(err)
	}
	other, _ := c.NewProgramFromIL(spirvHeader)
	other.Compile(nil, "")
	if _, err := c.Link(nil, []driver.Program{dp, other}, ""); !errors.Is(err, driver.ResultUnsupportedFeature) {
		t.Errorf("Link of two programs without ZE_experimental_module_program = %v, want UNSUPPORTED_FEATURE", err)
	}
	// The stub's zeModuleCreate succeeds with a null module: Build runs
	// through, passing the constants, and the program stays unbuilt.
	if err := dp.Build(nil, "-ze-opt-disable"); err != nil {
		t.Errorf("Build with the stub: %v", err)
	}
	if _, err := dp.NewKernel("iota"); !errors.Is(err, driver.ResultInvalidProgramExecutable) {
		t.Errorf("NewKernel of an unbuilt program = %v, want INVALID_PROGRAM_EXECUTABLE", err)
	}
}

// stubKernel returns a kernel of numArgs arguments on d, as NewKernel
// would make it from a built module.
func stubKernel(c *context, numArgs uint32) *kernel {
	p := c.newProgram(fromIL, c.devices)
	p.modules[0] = 1
	k := &kernel{p: p, name: "k", numArgs: numArgs,
		perDev: []kernelDev{{handle: 5, props: &ze.KernelProperties{NumKernelArgs: numArgs, MaxSubgroupSize: 16}}},
		set:    make([]bool, numArgs), memArgs: make([]uintptr, numArgs)}
	p.refs.Add(1)
	return k
}

// TestStubQueue runs queues, buffers, events and launches over the stub
// binding: the adapter's bookkeeping, not the driver's work.
func TestStubQueue(t *testing.T) {
	c, d := stubContext(t)
	dq, err := c.NewQueue(d, driver.QueueProperties{Profiling: true})
	if err != nil {
		t.Fatal(err)
	}
	q := dq.(*queue)
	m, err := c.NewBuffer(driver.MemReadWrite, 4096, make([]byte, 4096))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := q.WriteBuffer(m, true, 0, make([]byte, 64), nil, false); err != nil {
		t.Fatal(err)
	}
	dst := make([]byte, 64)
	ev, err := q.ReadBuffer(m, false, 64, dst, nil, true)
	if err != nil || ev == nil {
		t.Fatalf("ReadBuffer: %v, %v", ev, err)
	}
	if e := ev.(*event); &e.keep[0] != &dst[0] {
		t.Error("the event does not keep the destination of a non-blocking read")
	}
	if st, err := ev.Status(); err != nil || st != driver.EventComplete {
		t.Errorf("Status = %v, %v", st, err)
	}
	if _, err := ev.Profiling(); err != nil {
		t.Errorf("Profiling: %v", err)
	}
	ctx, cancel := ctxpkg.WithCancel(ctxpkg.Background())
	if err := ev.Wait(ctx); err != nil {
		t.Errorf("Wait: %v", err)
	}
	cancel()
	if err := ev.Release(); err != nil {
		t.Errorf("event Release: %v", err)
	}
	// A pattern the compute engine takes, and one it does not (doubling
	// copies), with events.
	for _, n := range []int{4, 64} {
		ev, err := q.FillBuffer(m, make([]byte, n), 0, 4096, nil, true)
		if err != nil || ev == nil {
			t.Fatalf("FillBuffer(%d-byte pattern): %v, %v", n, ev, err)
		}
		if len(ev.(*event).keep) != n {
			t.Errorf("FillBuffer(%d-byte pattern) does not keep the pattern", n)
		}
		ev.Release()
	}
	if len(c.timed.free) != eventPoolSize {
		t.Errorf("%d of %d event slots free after every event was released", len(c.timed.free), eventPoolSize)
	}

	k := stubKernel(c, 2)
	if err := k.SetArgMem(0, m); err != nil {
		t.Fatal(err)
	}
	if _, err := q.Launch(k, driver.NDRange{Dims: 1, Global: [3]uint64{1000, 1, 1}}, nil, false); !errors.Is(err, driver.ResultInvalidKernelArgs) {
		t.Errorf("Launch with an argument unset = %v, want INVALID_KERNEL_ARGS", err)
	}
	if err := k.SetArgValue(1, []byte{1, 2, 3, 4}); err != nil {
		t.Fatal(err)
	}
	if err := k.SetArgValue(2, []byte{1}); !errors.Is(err, driver.ResultInvalidKernelArgumentIndex) {
		t.Errorf("SetArgValue(2) of a 2-argument kernel = %v", err)
	}
	for _, c := range []struct {
		name string
		r    driver.NDRange
		want error
	}{
		{"suggested", driver.NDRange{Dims: 1, Global: [3]uint64{1000, 1, 1}}, nil},
		{"local", driver.NDRange{Dims: 2, Global: [3]uint64{64, 64, 1}, Local: [3]uint64{16, 16, 1}}, nil},
		{"notDivisible", driver.NDRange{Dims: 1, Global: [3]uint64{1000, 1, 1}, Local: [3]uint64{64, 1, 1}}, driver.ResultInvalidWorkGroupSize},
		{"tooLarge", driver.NDRange{Dims: 2, Global: [3]uint64{2048, 2048, 1}, Local: [3]uint64{64, 32, 1}}, driver.ResultInvalidWorkGroupSize},
		{"offset", driver.NDRange{Dims: 1, Offset: [3]uint64{8, 0, 0}, Global: [3]uint64{1000, 1, 1}}, nil},
		{"zeroGlobal", driver.NDRange{Dims: 1, Global: [3]uint64{0, 1, 1}}, driver.ResultInvalidGlobalWidthDimension},
	} {
		_, err := q.Launch(k, c.r, nil, false)
		if c.want == nil && err != nil || c.want != nil && !errors.Is(err, c.want) {
			t.Errorf("Launch %s: %v, want %v", c.name, err, c.want)
		}
	}
	kd := &k.perDev[0]
	if kd.groupSize != [3]uint32{1, 1, 1} || kd.offset != [3]uint32{8, 0, 0} {
		// The stub suggests nothing (zero), so the suggestion becomes 1.
		t.Errorf("after the launches: group size %v, offset %v", kd.groupSize, kd.offset)
	}
	ev, err = q.Launch(k, driver.NDRange{Dims: 1, Global: [3]uint64{1000, 1, 1}}, []driver.Event{}, true)
	if err != nil || ev == nil {
		t.Fatalf("Launch with an event: %v, %v", ev, err)
	}
	ev.Release()
	if err := q.Finish(); err != nil {
		t.Fatal(err)
	}
	if err := k.Release(); err != nil {
		t.Error(err)
	}
	if err := m.Release(); err != nil {
		t.Error(err)
	}
	if err := q.Release(); err != nil {
		t.Error(err)
	}
	if err := c.Release(); err != nil {
		t.Error(err)
	}
}

// TestLaunchAllocatesNothing checks the hot path: a launch without wait
// list or event, with unchanged sizes, makes no Go allocation.
func TestLaunchAllocatesNothing(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector makes sync.Pool drop items")
	}
	c, d := stubContext(t)
	dq, err := c.NewQueue(d, driver.QueueProperties{})
	if err != nil {
		t.Fatal(err)
	}
	k := stubKernel(c, 1)
	k.SetArgValue(0, []byte{1, 2, 3, 4})
	r := driver.NDRange{Dims: 1, Global: [3]uint64{1 << 20, 1, 1}, Local: [3]uint64{256, 1, 1}}
	allocs := testing.AllocsPerRun(200, func() {
		if _, err := dq.Launch(k, r, nil, false); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Errorf("Launch allocates %.1f times per call", allocs)
	}
}
