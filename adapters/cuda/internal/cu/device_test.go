package cu

import (
	"bytes"
	"math"
	"runtime"
	"strings"
	"testing"
	"unsafe"
)

// Tests in this file need a CUDA driver and a device; they skip without.

// axpyPTX is y[i] = a*x[i] + y[i] for i < n, written by hand so the tests
// need no compiler: (float a, float* x, float* y, unsigned n).
const axpyPTX = `.version 7.0
.target sm_52
.address_size 64

.visible .entry axpy(
	.param .f32 axpy_param_0,
	.param .u64 axpy_param_1,
	.param .u64 axpy_param_2,
	.param .u32 axpy_param_3
)
{
	.reg .pred %p<2>;
	.reg .f32 %f<5>;
	.reg .b32 %r<6>;
	.reg .b64 %rd<8>;

	ld.param.f32 %f1, [axpy_param_0];
	ld.param.u64 %rd1, [axpy_param_1];
	ld.param.u64 %rd2, [axpy_param_2];
	ld.param.u32 %r2, [axpy_param_3];
	mov.u32 %r3, %ctaid.x;
	mov.u32 %r4, %ntid.x;
	mov.u32 %r5, %tid.x;
	mad.lo.s32 %r1, %r3, %r4, %r5;
	setp.ge.u32 %p1, %r1, %r2;
	@%p1 bra DONE;
	cvta.to.global.u64 %rd3, %rd1;
	cvta.to.global.u64 %rd4, %rd2;
	mul.wide.u32 %rd5, %r1, 4;
	add.s64 %rd6, %rd3, %rd5;
	add.s64 %rd7, %rd4, %rd5;
	ld.global.f32 %f2, [%rd6];
	ld.global.f32 %f3, [%rd7];
	fma.rn.f32 %f4, %f1, %f2, %f3;
	st.global.f32 [%rd7], %f4;
DONE:
	ret;
}
`

// gpu is the first device with its primary context current on the test's
// locked OS thread.
type gpu struct {
	l   *Lib
	dev Device
	ctx Context
}

func setup(t *testing.T) *gpu {
	t.Helper()
	if testLoadErr != nil {
		t.Skipf("CUDA driver not available: %v", testLoadErr)
	}
	l := testLib
	if r := l.Init(0); r != Success {
		t.Skipf("cuInit: %v", r)
	}
	n, r := l.DeviceGetCount()
	if r != Success || n == 0 {
		t.Skipf("no CUDA device: %d, %v", n, r)
	}
	// The current context belongs to the OS thread.
	runtime.LockOSThread()
	t.Cleanup(runtime.UnlockOSThread)
	dev, r := l.DeviceGet(0)
	if r != Success {
		t.Fatalf("DeviceGet(0): %v", r)
	}
	ctx, r := l.DevicePrimaryCtxRetain(dev)
	if r != Success {
		t.Fatalf("DevicePrimaryCtxRetain: %v", r)
	}
	t.Cleanup(func() { l.DevicePrimaryCtxRelease(dev) })
	if r := l.CtxSetCurrent(ctx); r != Success {
		t.Fatalf("CtxSetCurrent: %v", r)
	}
	return &gpu{l: l, dev: dev, ctx: ctx}
}

func (g *gpu) alloc(t *testing.T, data []float32) DevicePtr {
	t.Helper()
	size := uintptr(len(data)) * 4
	p, r := g.l.MemAlloc(size)
	if r != Success {
		t.Fatalf("MemAlloc(%d): %v", size, r)
	}
	t.Cleanup(func() { g.l.MemFree(p) })
	if r := g.l.MemcpyHtoD(p, unsafe.Pointer(&data[0]), size); r != Success {
		t.Fatalf("MemcpyHtoD: %v", r)
	}
	return p
}

func (g *gpu) read(t *testing.T, p DevicePtr, n int) []float32 {
	t.Helper()
	out := make([]float32, n)
	if r := g.l.MemcpyDtoH(unsafe.Pointer(&out[0]), p, uintptr(n)*4); r != Success {
		t.Fatalf("MemcpyDtoH: %v", r)
	}
	return out
}

func (g *gpu) module(t *testing.T, image []byte) Module {
	t.Helper()
	m, info, errLog, r := g.l.ModuleLoadDataEx(image, true)
	if r != Success {
		t.Fatalf("ModuleLoadDataEx: %v\nerror log: %s", r, errLog)
	}
	if info != "" {
		t.Logf("JIT info log: %s", info)
	}
	t.Cleanup(func() { g.l.ModuleUnload(m) })
	return m
}

func TestDeviceInfo(t *testing.T) {
	g := setup(t)
	l := g.l
	v, r := l.DriverGetVersion()
	if r != Success || v < 11000 {
		t.Errorf("DriverGetVersion = %d, %v", v, r)
	}
	name, r := l.DeviceName(g.dev)
	if r != Success || name == "" {
		t.Errorf("DeviceName = %q, %v", name, r)
	}
	major, r1 := l.Attribute(DeviceAttributeComputeCapabilityMajor, g.dev)
	minor, r2 := l.Attribute(DeviceAttributeComputeCapabilityMinor, g.dev)
	if r1 != Success || r2 != Success || major < 3 {
		t.Errorf("compute capability = %d.%d (%v, %v)", major, minor, r1, r2)
	}
	if warp, r := l.Attribute(DeviceAttributeWarpSize, g.dev); r != Success || warp != 32 {
		t.Errorf("warp size = %d, %v", warp, r)
	}
	if tpb, r := l.Attribute(DeviceAttributeMaxThreadsPerBlock, g.dev); r != Success || tpb < 512 {
		t.Errorf("max threads per block = %d, %v", tpb, r)
	}
	sms, _ := l.Attribute(DeviceAttributeMultiprocessorCount, g.dev)
	total, r := l.DeviceTotalMem(g.dev)
	if r != Success || total < 1<<30 {
		t.Errorf("DeviceTotalMem = %d, %v", total, r)
	}
	free, total2, r := l.MemGetInfo()
	if r != Success || total2 == 0 || free > total2 {
		t.Errorf("MemGetInfo = %d/%d, %v", free, total2, r)
	}
	var uuid [16]byte
	if l.HasDeviceUUID() {
		uuid, r = l.DeviceGetUUID(g.dev)
		if r != Success || uuid == [16]byte{} {
			t.Errorf("DeviceGetUUID = %x, %v", uuid, r)
		}
	}
	bus, _ := l.Attribute(DeviceAttributePCIBusID, g.dev)
	t.Logf("driver %d, %s, sm_%d%d, %d SMs, %d MiB, PCI bus %#x, uuid %x", v, name, major, minor, sms, total>>20, bus, uuid)
	if cur, r := l.CtxGetCurrent(); r != Success || cur != g.ctx {
		t.Errorf("CtxGetCurrent = %#x, %v, want %#x", cur, r, g.ctx)
	}
	if r := l.CtxPushCurrent(g.ctx); r != Success {
		t.Fatalf("CtxPushCurrent: %v", r)
	}
	if popped, r := l.CtxPopCurrent(); r != Success || popped != g.ctx {
		t.Errorf("CtxPopCurrent = %#x, %v", popped, r)
	}
	if r := l.CtxSynchronize(); r != Success {
		t.Errorf("CtxSynchronize: %v", r)
	}
}

// TestErrorNamesMatchDriver compares every name this package knows with the
// driver's own cuGetErrorName.
func TestErrorNamesMatchDriver(t *testing.T) {
	if testLoadErr != nil {
		t.Skipf("CUDA driver not available: %v", testLoadErr)
	}
	l := testLib
	known := 0
	for code, want := range resultNames {
		got, r := l.GetErrorName(code)
		if r != Success {
			// An older driver does not know newer codes.
			t.Logf("driver does not name %s: %v", want, r)
			continue
		}
		known++
		if got != want {
			t.Errorf("cuGetErrorName(%d) = %q, this package says %q", int32(code), got, want)
		}
	}
	if known < 80 {
		t.Errorf("driver named only %d codes", known)
	}
	if _, r := l.GetErrorName(Result(12345)); r != InvalidValue {
		t.Errorf("cuGetErrorName(12345) = %v, want InvalidValue", r)
	}
	if l.HasErrorString() {
		s, r := l.GetErrorString(OutOfMemory)
		if r != Success || s == "" {
			t.Errorf("GetErrorString = %q, %v", s, r)
		}
	}
}

func axpyInputs(n int) (x, y []float32) {
	x, y = make([]float32, n), make([]float32, n)
	for i := range n {
		x[i] = float32(i)
		y[i] = float32(2 * i)
	}
	return x, y
}

func TestPTXModuleLaunch(t *testing.T) {
	g := setup(t)
	l := g.l
	m := g.module(t, []byte(axpyPTX)) // no trailing NUL: the binding adds it
	fn, r := l.ModuleGetFunction(m, "axpy")
	if r != Success {
		t.Fatalf("ModuleGetFunction: %v", r)
	}
	if _, r := l.ModuleGetFunction(m, "nope"); r != NotFound {
		t.Errorf("ModuleGetFunction(nope) = %v, want NotFound", r)
	}
	if regs, r := l.FuncGetAttribute(FuncAttributeNumRegs, fn); r != Success || regs <= 0 {
		t.Errorf("NUM_REGS = %d, %v", regs, r)
	}
	// PTX_VERSION is the virtual architecture the PTX targets (.target
	// sm_52), not the PTX ISA version.
	if ptxv, r := l.FuncGetAttribute(FuncAttributePTXVersion, fn); r != Success || ptxv != 52 {
		t.Errorf("PTX_VERSION = %d, %v, want 52", ptxv, r)
	}
	if maxT, r := l.FuncGetAttribute(FuncAttributeMaxThreadsPerBlock, fn); r != Success || maxT < 256 {
		t.Errorf("MAX_THREADS_PER_BLOCK = %d, %v", maxT, r)
	}
	if r := l.FuncSetAttribute(fn, FuncAttributeMaxDynamicSharedSizeBytes, 1024); r != Success {
		t.Errorf("FuncSetAttribute: %v", r)
	}
	if l.HasFuncLoad() {
		if r := l.FuncLoad(fn); r != Success {
			t.Errorf("FuncLoad: %v", r)
		}
	}
	if l.HasFuncGetName() {
		if name, r := l.FuncGetName(fn); r != Success || name != "axpy" {
			t.Errorf("FuncGetName = %q, %v", name, r)
		}
	}
	if l.HasModuleEnumerateFunctions() {
		fns, r := l.ModuleFunctions(m)
		if r != Success || len(fns) != 1 {
			t.Errorf("ModuleFunctions = %v, %v", fns, r)
		}
	}
	if l.HasFuncGetParamInfo() {
		params, r := l.FuncParams(fn, 16)
		want := []ParamInfo{{0, 4}, {8, 8}, {16, 8}, {24, 4}}
		if r != Success || len(params) != len(want) {
			t.Errorf("FuncParams = %v, %v, want %v", params, r, want)
		} else {
			for i := range want {
				if params[i] != want[i] {
					t.Errorf("param %d = %+v, want %+v", i, params[i], want[i])
				}
			}
		}
	}
	if l.HasOccupancy() {
		grid, block, r := l.OccupancyMaxPotentialBlockSize(fn, 0, 0)
		if r != Success || grid <= 0 || block <= 0 {
			t.Errorf("OccupancyMaxPotentialBlockSize = %d, %d, %v", grid, block, r)
		}
	}

	const n = 1000
	x, y := axpyInputs(n)
	h := newLaunchState(g.alloc(t, x), g.alloc(t, y), n)
	s, r := l.StreamCreate(StreamNonBlocking)
	if r != Success {
		t.Fatalf("StreamCreate: %v", r)
	}
	defer l.StreamDestroy(s)
	if r := l.LaunchKernel(fn, (n+127)/128, 1, 1, 128, 1, 1, 0, s, &h.params[0], nil); r != Success {
		t.Fatalf("LaunchKernel: %v", r)
	}
	if r := l.StreamSynchronize(s); r != Success {
		t.Fatalf("StreamSynchronize: %v", r)
	}
	if r := l.StreamQuery(s); r != Success {
		t.Errorf("StreamQuery after synchronize = %v", r)
	}
	got := g.read(t, h.y, n)
	for i := range got {
		if want := 2*x[i] + y[i]; got[i] != want {
			t.Fatalf("y[%d] = %v, want %v", i, got[i], want)
		}
	}

	// Hot path on the real driver: no allocation per launch.
	if !raceEnabled {
		const runs = 50
		var bad Result
		allocs := testing.AllocsPerRun(runs, func() {
			if r := l.LaunchKernel(fn, (n+127)/128, 1, 1, 128, 1, 1, 0, s, &h.params[0], nil); r != Success {
				bad = r
			}
		})
		if bad != Success {
			t.Fatalf("LaunchKernel: %v", bad)
		}
		if allocs != 0 {
			t.Errorf("LaunchKernel: %v allocs per call, want 0", allocs)
		}
		l.StreamSynchronize(s)
		got = g.read(t, h.y, n)
		for i := range got {
			if want := (2+2*(runs+1))*x[i] + y[i]; got[i] != want {
				t.Fatalf("after %d more launches y[%d] = %v, want %v", runs+1, i, got[i], want)
			}
		}
	}
}

func TestBadPTX(t *testing.T) {
	g := setup(t)
	bad := strings.Replace(axpyPTX, "fma.rn.f32 %f4, %f1, %f2, %f3;", "fma.rn.f32 %f4, %f1, %f2, %undefined;", 1)
	m, _, errLog, r := g.l.ModuleLoadDataEx([]byte(bad), true)
	if r == Success {
		g.l.ModuleUnload(m)
		t.Fatal("bad PTX loaded")
	}
	if r != InvalidPTX {
		t.Errorf("bad PTX: %v, want InvalidPTX", r)
	}
	if !strings.Contains(errLog, "undefined") {
		t.Errorf("error log does not mention the bad register: %q", errLog)
	}
	t.Logf("%v: %s", r, errLog)
	if _, r := g.l.ModuleLoadData([]byte("not an image")); r == Success {
		t.Error("garbage loaded")
	}
}

func TestLinkToCubin(t *testing.T) {
	g := setup(t)
	l := g.l
	cubin, errLog, r := l.Link([]LinkInput{{JitInputPTX, []byte(axpyPTX), "axpy.ptx"}}, JitOptionValue{JitOptimizationLevel, 3})
	if r != Success {
		t.Fatalf("Link: %v\n%s", r, errLog)
	}
	if !bytes.HasPrefix(cubin, []byte("\x7fELF")) {
		t.Fatalf("Link gave %d bytes that are not ELF", len(cubin))
	}
	m, r := l.ModuleLoadData(cubin)
	if r != Success {
		t.Fatalf("ModuleLoadData(cubin): %v", r)
	}
	defer l.ModuleUnload(m)
	fn, r := l.ModuleGetFunction(m, "axpy")
	if r != Success {
		t.Fatalf("ModuleGetFunction: %v", r)
	}
	major, _ := l.Attribute(DeviceAttributeComputeCapabilityMajor, g.dev)
	minor, _ := l.Attribute(DeviceAttributeComputeCapabilityMinor, g.dev)
	if bv, r := l.FuncGetAttribute(FuncAttributeBinaryVersion, fn); r != Success || bv != major*10+minor {
		t.Errorf("BINARY_VERSION = %d, %v, want %d", bv, r, major*10+minor)
	}
	bad := strings.Replace(axpyPTX, "ret;", "bogus;", 1)
	if _, errLog, r := l.Link([]LinkInput{{JitInputPTX, []byte(bad), "bad.ptx"}}); r == Success || errLog == "" {
		t.Errorf("Link(bad) = %v with log %q", r, errLog)
	} else {
		t.Logf("Link(bad): %v: %s", r, errLog)
	}
}

func TestAsyncMemoryAndEvents(t *testing.T) {
	g := setup(t)
	l := g.l
	s, r := l.StreamCreate(StreamDefault)
	if r != Success {
		t.Fatalf("StreamCreate: %v", r)
	}
	defer l.StreamDestroy(s)
	start, r := l.EventCreate(EventDefault)
	if r != Success {
		t.Fatalf("EventCreate: %v", r)
	}
	defer l.EventDestroy(start)
	end, r := l.EventCreate(EventBlockingSync)
	if r != Success {
		t.Fatalf("EventCreate: %v", r)
	}
	defer l.EventDestroy(end)

	const n = 1 << 16
	a, r := l.MemAlloc(4 * n)
	if r != Success {
		t.Fatalf("MemAlloc: %v", r)
	}
	defer l.MemFree(a)
	b, r := l.MemAlloc(4 * n)
	if r != Success {
		t.Fatalf("MemAlloc: %v", r)
	}
	defer l.MemFree(b)

	if r := l.EventRecord(start, s); r != Success {
		t.Fatalf("EventRecord: %v", r)
	}
	checks := []struct {
		name string
		r    Result
	}{
		{"MemsetD32Async", l.MemsetD32Async(a, math.Float32bits(1.5), n, s)},
		{"MemsetD16Async", l.MemsetD16Async(a, 0xBEEF, 2, s)},          // first 4 bytes
		{"MemsetD8Async", l.MemsetD8Async(a+4, 0x11, 4, s)},            // next 4 bytes
		{"MemcpyDtoDAsync", l.MemcpyDtoDAsync(b, a, 4*n, s)},           // b = a
		{"MemsetD32Async(tail)", l.MemsetD32Async(b+4*(n-1), 7, 1, s)}, // last value
	}
	for _, c := range checks {
		if c.r != Success {
			t.Fatalf("%s: %v", c.name, c.r)
		}
	}
	host := make([]uint32, n)
	if r := l.MemcpyDtoHAsync(unsafe.Pointer(&host[0]), b, 4*n, s); r != Success {
		t.Fatalf("MemcpyDtoHAsync: %v", r)
	}
	if r := l.EventRecord(end, s); r != Success {
		t.Fatalf("EventRecord: %v", r)
	}
	if r := l.EventSynchronize(end); r != Success {
		t.Fatalf("EventSynchronize: %v", r)
	}
	if r := l.EventQuery(end); r != Success {
		t.Errorf("EventQuery after synchronize = %v", r)
	}
	ms, r := l.EventElapsedTime(start, end)
	if r != Success || ms < 0 || ms > 10000 {
		t.Errorf("EventElapsedTime = %v ms, %v", ms, r)
	}
	t.Logf("memsets and copies of %d KiB: %.3f ms", 4*n>>10, ms)
	if host[0] != 0xBEEFBEEF || host[1] != 0x11111111 || host[2] != math.Float32bits(1.5) || host[n-1] != 7 {
		t.Errorf("memory = %#x %#x %#x ... %#x", host[0], host[1], host[2], host[n-1])
	}

	// Another stream waits for an event of the first.
	s2, r := l.StreamCreate(StreamNonBlocking)
	if r != Success {
		t.Fatalf("StreamCreate: %v", r)
	}
	defer l.StreamDestroy(s2)
	src := make([]uint32, n)
	for i := range src {
		src[i] = uint32(i)
	}
	if r := l.MemcpyHtoDAsync(a, unsafe.Pointer(&src[0]), 4*n, s); r != Success {
		t.Fatalf("MemcpyHtoDAsync: %v", r)
	}
	l.EventRecord(end, s)
	if r := l.StreamWaitEvent(s2, end, EventWaitDefault); r != Success {
		t.Fatalf("StreamWaitEvent: %v", r)
	}
	back := make([]uint32, n)
	if r := l.MemcpyDtoHAsync(unsafe.Pointer(&back[0]), a, 4*n, s2); r != Success {
		t.Fatalf("MemcpyDtoHAsync: %v", r)
	}
	if r := l.StreamSynchronize(s2); r != Success {
		t.Fatalf("StreamSynchronize: %v", r)
	}
	runtime.KeepAlive(src)
	for i := range back {
		if back[i] != uint32(i) {
			t.Fatalf("back[%d] = %d", i, back[i])
		}
	}

	if l.HasMemset2D() {
		// 4 rows of 8 bytes, 64 bytes apart.
		if r := l.MemsetD2D8Async(b, 64, 0xAB, 8, 4, s); r != Success {
			t.Fatalf("MemsetD2D8Async: %v", r)
		}
		row := make([]byte, 256)
		l.MemcpyDtoHAsync(unsafe.Pointer(&row[0]), b, 256, s)
		l.StreamSynchronize(s)
		if row[0] != 0xAB || row[7] != 0xAB || row[8] == 0xAB || row[64] != 0xAB || row[3*64+7] != 0xAB {
			t.Errorf("MemsetD2D8Async rows = % x", row[:72])
		}
	}
}

func TestHotPathAllocations(t *testing.T) {
	if raceEnabled {
		t.Skip("sync.Pool drops items at random under the race detector")
	}
	g := setup(t)
	l := g.l
	s, r := l.StreamCreate(StreamNonBlocking)
	if r != Success {
		t.Fatalf("StreamCreate: %v", r)
	}
	defer l.StreamDestroy(s)
	e, _ := l.EventCreate(EventDisableTiming)
	defer l.EventDestroy(e)
	p, _ := l.MemAlloc(4096)
	defer l.MemFree(p)
	host := make([]byte, 4096)
	for name, fn := range map[string]func() Result{
		"MemsetD32Async":    func() Result { return l.MemsetD32Async(p, 1, 1024, s) },
		"MemcpyHtoDAsync":   func() Result { return l.MemcpyHtoDAsync(p, unsafe.Pointer(&host[0]), 4096, s) },
		"MemcpyDtoHAsync":   func() Result { return l.MemcpyDtoHAsync(unsafe.Pointer(&host[0]), p, 4096, s) },
		"EventRecord":       func() Result { return l.EventRecord(e, s) },
		"StreamSynchronize": func() Result { return l.StreamSynchronize(s) },
		"EventQuery":        func() Result { l.EventQuery(e); return Success },
		"StreamQuery":       func() Result { l.StreamQuery(s); return Success },
		"MemAlloc+Free": func() Result {
			q, r := l.MemAlloc(256)
			if r != Success {
				return r
			}
			return l.MemFree(q)
		},
	} {
		var bad Result
		allocs := testing.AllocsPerRun(50, func() {
			if r := fn(); r != Success {
				bad = r
			}
		})
		if bad != Success {
			t.Errorf("%s: %v", name, bad)
		}
		if allocs != 0 {
			t.Errorf("%s: %v allocs per call, want 0", name, allocs)
		}
	}
	l.StreamSynchronize(s)
}
