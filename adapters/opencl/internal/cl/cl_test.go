package cl

import (
	"os"
	"strings"
	"testing"
	"unsafe"
)

const axpySource = `__kernel void axpy(float a, __global const float* x, __global float* y) {
	size_t i = get_global_id(0);
	y[i] = a*x[i] + y[i];
}
`

var (
	testLib     *Lib
	testLoadErr error
)

func TestMain(m *testing.M) {
	// PoCL's on-disk kernel cache would hide compiler behaviour between runs.
	os.Setenv("POCL_KERNEL_CACHE", "0")
	testLib, testLoadErr = Load()
	// The library stays loaded: unloading an ICD loader whose driver has
	// started threads is not safe.
	os.Exit(m.Run())
}

// env is one device with a context and an in-order queue.
type env struct {
	l *Lib
	p Platform
	d Device
	c Context
	q Queue
}

// setup picks a platform with a CPU device (else any device), or skips.
func setup(t *testing.T) *env {
	t.Helper()
	if testLoadErr != nil {
		t.Skipf("OpenCL loader not available: %v", testLoadErr)
	}
	l := testLib
	ps, s := l.PlatformIDs()
	if s != Success || len(ps) == 0 {
		t.Skipf("no OpenCL platform: %v", s)
	}
	e := &env{l: l}
	for _, typ := range []uint64{DeviceTypeCPU, DeviceTypeAll} {
		for _, p := range ps {
			if ds, s := l.DeviceIDs(p, typ); s == Success && len(ds) > 0 {
				e.p, e.d = p, ds[0]
				break
			}
		}
		if e.d != 0 {
			break
		}
	}
	if e.d == 0 {
		t.Skip("no OpenCL device")
	}
	e.c, s = l.CreateContext([]uintptr{ContextPlatform, uintptr(e.p)}, []Device{e.d})
	if s != Success {
		t.Fatalf("CreateContext: %v", s)
	}
	t.Cleanup(func() { l.ReleaseContext(e.c) })
	e.q, s = l.CreateCommandQueue(e.c, e.d, 0)
	if s != Success {
		t.Fatalf("CreateCommandQueue: %v", s)
	}
	t.Cleanup(func() { l.ReleaseCommandQueue(e.q) })
	return e
}

// build compiles source for the env's device, failing the test on error.
func (e *env) build(t *testing.T, source, options string) Program {
	t.Helper()
	p, s := e.l.CreateProgramWithSource(e.c, source)
	if s != Success {
		t.Fatalf("CreateProgramWithSource: %v", s)
	}
	t.Cleanup(func() { e.l.ReleaseProgram(p) })
	if s := e.l.BuildProgram(p, []Device{e.d}, options); s != Success {
		log, _ := e.l.ProgramBuildInfo(p, e.d, ProgramBuildLog)
		t.Fatalf("BuildProgram: %v\n%s", s, CString(log))
	}
	return p
}

func (e *env) kernel(t *testing.T, p Program, name string) Kernel {
	t.Helper()
	k, s := e.l.CreateKernel(p, name)
	if s != Success {
		t.Fatalf("CreateKernel(%q): %v", name, s)
	}
	t.Cleanup(func() { e.l.ReleaseKernel(k) })
	return k
}

func (e *env) buffer(t *testing.T, flags uint64, data []float32) Mem {
	t.Helper()
	m, s := e.l.CreateBuffer(e.c, flags|MemCopyHostPtr, uintptr(len(data))*4, unsafe.Pointer(&data[0]))
	if s != Success {
		t.Fatalf("CreateBuffer: %v", s)
	}
	t.Cleanup(func() { e.l.ReleaseMemObject(m) })
	return m
}

func (e *env) read(t *testing.T, m Mem, n int) []float32 {
	t.Helper()
	out := make([]float32, n)
	if s := e.l.EnqueueReadBuffer(e.q, m, true, 0, uintptr(n)*4, unsafe.Pointer(&out[0]), nil, nil); s != Success {
		t.Fatalf("EnqueueReadBuffer: %v", s)
	}
	return out
}

// runAxpy sets the axpy arguments and runs it on n items, y = a*x + y.
func (e *env) runAxpy(t *testing.T, k Kernel, a float32, x, y Mem, n int) {
	t.Helper()
	l := e.l
	if s := l.SetKernelArg(k, 0, 4, unsafe.Pointer(&a)); s != Success {
		t.Fatalf("SetKernelArg(0): %v", s)
	}
	if s := l.SetKernelArg(k, 1, unsafe.Sizeof(x), unsafe.Pointer(&x)); s != Success {
		t.Fatalf("SetKernelArg(1): %v", s)
	}
	if s := l.SetKernelArg(k, 2, unsafe.Sizeof(y), unsafe.Pointer(&y)); s != Success {
		t.Fatalf("SetKernelArg(2): %v", s)
	}
	global := [1]uintptr{uintptr(n)}
	var ev Event
	if s := l.EnqueueNDRangeKernel(e.q, k, 1, nil, &global[0], nil, nil, &ev); s != Success {
		t.Fatalf("EnqueueNDRangeKernel: %v", s)
	}
	defer l.ReleaseEvent(ev)
	if s := l.WaitForEvents([]Event{ev}); s != Success {
		t.Fatalf("WaitForEvents: %v", s)
	}
	b, s := l.EventInfo(ev, EventCommandExecutionStatus)
	if s != Success || Int32(b) != Complete {
		t.Fatalf("execution status = %d, %v; want %d", Int32(b), s, Complete)
	}
}

func axpyInputs(n int) (x, y []float32) {
	x = make([]float32, n)
	y = make([]float32, n)
	for i := range x {
		x[i] = float32(i)
		y[i] = float32(3 * i)
	}
	return x, y
}

func checkAxpy(t *testing.T, a float32, x, y0, got []float32) {
	t.Helper()
	for i := range got {
		if want := a*x[i] + y0[i]; got[i] != want {
			t.Fatalf("y[%d] = %v, want %v", i, got[i], want)
		}
	}
}

func TestStatusName(t *testing.T) {
	for _, c := range []struct {
		s    Status
		want string
	}{
		{Success, "CL_SUCCESS"},
		{DeviceNotFound, "CL_DEVICE_NOT_FOUND"},
		{OutOfResources, "CL_OUT_OF_RESOURCES"},
		{BuildProgramFailure, "CL_BUILD_PROGRAM_FAILURE"},
		{InvalidKernelName, "CL_INVALID_KERNEL_NAME"},
		{InvalidSpecID, "CL_INVALID_SPEC_ID"},
		{MaxSizeRestrictionExceeded, "CL_MAX_SIZE_RESTRICTION_EXCEEDED"},
		{PlatformNotFoundKHR, "CL_PLATFORM_NOT_FOUND_KHR"},
		{Status(-46), "CL_INVALID_KERNEL_NAME"},
		{Status(-20), "CL_ERROR(-20)"},
		{Status(-1234), "CL_ERROR(-1234)"},
		{Status(7), "CL_ERROR(7)"},
	} {
		if got := c.s.Name(); got != c.want {
			t.Errorf("Status(%d).Name() = %q, want %q", int32(c.s), got, c.want)
		}
	}
	if BuildProgramFailure != -11 || InvalidKernelName != -46 || PlatformNotFoundKHR != -1001 {
		t.Error("status values drifted from cl.h")
	}
}

func TestDecoders(t *testing.T) {
	if got := CString([]byte("pocl\x00\x00")); got != "pocl" {
		t.Errorf("CString = %q", got)
	}
	if got := CString(nil); got != "" {
		t.Errorf("CString(nil) = %q", got)
	}
	v64 := uint64(0x0102030405060708)
	b := unsafe.Slice((*byte)(unsafe.Pointer(&v64)), 8)
	if got := Uint64(b); got != v64 {
		t.Errorf("Uint64 = %#x", got)
	}
	v32 := uint32(0xdeadbeef)
	b32 := unsafe.Slice((*byte)(unsafe.Pointer(&v32)), 4)
	if Uint32(b32) != v32 || Uint64(b32) != uint64(v32) {
		t.Error("Uint32/Uint64 of a cl_uint")
	}
	ps := []uintptr{1, 2, 3}
	bp := unsafe.Slice((*byte)(unsafe.Pointer(&ps[0])), 3*ptrSize)
	if got := Uintptrs(append(bp, 9)); len(got) != 3 || got[2] != 3 {
		t.Errorf("Uintptrs = %v", got)
	}
	if Uintptr(bp) != 1 {
		t.Error("Uintptr")
	}
	// Short input never panics.
	if Uint32([]byte{1}) != 0 || Uint64(nil) != 0 || Uintptr([]byte{1}) != 0 || len(Uintptrs([]byte{1})) != 0 || Int32(nil) != 0 {
		t.Error("short input should decode to zero")
	}
}

// TestMissingOptional checks that absent optional entry points answer
// InvalidOperation instead of calling address zero.
func TestMissingOptional(t *testing.T) {
	var l Lib
	if l.HasIL() || l.HasSpecializationConstants() || l.HasQueueWithProperties() {
		t.Fatal("zero Lib reports optional entry points")
	}
	if _, s := l.CreateProgramWithIL(0, []byte{1, 2, 3, 4}); s != InvalidOperation {
		t.Errorf("CreateProgramWithIL = %v", s)
	}
	if s := l.SetProgramSpecializationConstant(0, 0, 0, nil); s != InvalidOperation {
		t.Errorf("SetProgramSpecializationConstant = %v", s)
	}
	if _, s := l.CreateCommandQueueWithProperties(0, 0, nil); s != InvalidOperation {
		t.Errorf("CreateCommandQueueWithProperties = %v", s)
	}
}

func TestInfo(t *testing.T) {
	e := setup(t)
	l := e.l
	for _, param := range []uint32{PlatformName, PlatformVendor, PlatformVersion, PlatformProfile} {
		b, s := l.PlatformInfo(e.p, param)
		if s != Success || CString(b) == "" {
			t.Errorf("PlatformInfo(%#x) = %q, %v", param, b, s)
		}
	}
	name, s := l.DeviceInfo(e.d, DeviceName)
	if s != Success || CString(name) == "" {
		t.Fatalf("DeviceName = %q, %v", name, s)
	}
	ver, _ := l.DeviceInfo(e.d, DeviceVersion)
	if !strings.HasPrefix(CString(ver), "OpenCL ") {
		t.Errorf("DeviceVersion = %q", CString(ver))
	}
	t.Logf("device %q, %q", CString(name), CString(ver))
	if b, s := l.DeviceInfo(e.d, DeviceType); s != Success || Uint64(b)&(DeviceTypeCPU|DeviceTypeGPU|DeviceTypeAccelerator|DeviceTypeCustom) == 0 {
		t.Errorf("DeviceType = %#x, %v", Uint64(b), s)
	}
	if b, s := l.DeviceInfo(e.d, DeviceMaxComputeUnits); s != Success || Uint32(b) == 0 {
		t.Errorf("DeviceMaxComputeUnits = %d, %v", Uint32(b), s)
	}
	if b, s := l.DeviceInfo(e.d, DeviceMaxWorkItemSizes); s != Success || len(Uintptrs(b)) < 3 {
		t.Errorf("DeviceMaxWorkItemSizes = %v, %v", Uintptrs(b), s)
	}
	if b, s := l.DeviceInfo(e.d, DeviceGlobalMemSize); s != Success || Uint64(b) == 0 {
		t.Errorf("DeviceGlobalMemSize = %d, %v", Uint64(b), s)
	}
	if b, s := l.DeviceInfo(e.d, DevicePlatform); s != Success || Platform(Uintptr(b)) != e.p {
		t.Errorf("DevicePlatform = %#x, %v; want %#x", Uintptr(b), s, e.p)
	}
	if b, s := l.DeviceInfo(e.d, DeviceAvailable); s != Success || Uint32(b) != True {
		t.Errorf("DeviceAvailable = %d, %v", Uint32(b), s)
	}
	if _, s := l.DeviceInfo(e.d, 0xFFFF); s != InvalidValue {
		t.Errorf("bad device param: %v, want %v", s, InvalidValue)
	}
	if s := l.RetainDevice(e.d); s != Success {
		t.Errorf("RetainDevice: %v", s)
	}
	if s := l.ReleaseDevice(e.d); s != Success {
		t.Errorf("ReleaseDevice: %v", s)
	}
	if b, s := l.ContextInfo(e.c, ContextDevices); s != Success || len(Uintptrs(b)) != 1 || Device(Uintptrs(b)[0]) != e.d {
		t.Errorf("ContextDevices = %v, %v", Uintptrs(b), s)
	}
	if b, s := l.QueueInfo(e.q, QueueDevice); s != Success || Device(Uintptr(b)) != e.d {
		t.Errorf("QueueDevice = %#x, %v", Uintptr(b), s)
	}
	// RetainContext/ReleaseContext balance out.
	if s := l.RetainContext(e.c); s != Success {
		t.Errorf("RetainContext: %v", s)
	}
	if b, _ := l.ContextInfo(e.c, ContextReferenceCount); Uint32(b) < 2 {
		t.Errorf("ContextReferenceCount = %d after retain", Uint32(b))
	}
	if s := l.ReleaseContext(e.c); s != Success {
		t.Errorf("ReleaseContext: %v", s)
	}
}

func TestAxpy(t *testing.T) {
	e := setup(t)
	l := e.l
	const n = 1024
	p := e.build(t, axpySource, "-cl-kernel-arg-info")
	if b, s := l.ProgramInfo(p, ProgramNumKernels); s != Success || Uintptr(b) != 1 {
		t.Errorf("ProgramNumKernels = %d, %v", Uintptr(b), s)
	}
	if b, s := l.ProgramInfo(p, ProgramKernelNames); s != Success || CString(b) != "axpy" {
		t.Errorf("ProgramKernelNames = %q, %v", CString(b), s)
	}
	if b, s := l.ProgramBuildInfo(p, e.d, ProgramBuildStatus); s != Success || Int32(b) != BuildSuccess {
		t.Errorf("ProgramBuildStatus = %d, %v", Int32(b), s)
	}
	k := e.kernel(t, p, "axpy")
	if b, s := l.KernelInfo(k, KernelFunctionName); s != Success || CString(b) != "axpy" {
		t.Errorf("KernelFunctionName = %q, %v", CString(b), s)
	}
	if b, s := l.KernelInfo(k, KernelNumArgs); s != Success || Uint32(b) != 3 {
		t.Errorf("KernelNumArgs = %d, %v", Uint32(b), s)
	}
	if b, s := l.KernelWorkGroupInfo(k, e.d, KernelWorkGroupSize); s != Success || Uintptr(b) == 0 {
		t.Errorf("KernelWorkGroupSize = %d, %v", Uintptr(b), s)
	}
	if b, s := l.KernelArgInfo(k, 1, KernelArgName); s != Success || CString(b) != "x" {
		t.Errorf("KernelArgName(1) = %q, %v", CString(b), s)
	}
	if b, s := l.KernelArgInfo(k, 2, KernelArgAddressQualifier); s != Success || Uint32(b) != KernelArgAddressGlobal {
		t.Errorf("KernelArgAddressQualifier(2) = %#x, %v", Uint32(b), s)
	}
	if b, s := l.KernelArgInfo(k, 1, KernelArgTypeName); s != Success || !strings.HasPrefix(CString(b), "float") {
		t.Errorf("KernelArgTypeName(1) = %q, %v", CString(b), s)
	}

	x, y := axpyInputs(n)
	xb := e.buffer(t, MemReadOnly, x)
	yb := e.buffer(t, MemReadWrite, y)
	if b, s := l.MemInfo(xb, MemSize); s != Success || Uintptr(b) != n*4 {
		t.Errorf("MemSize = %d, %v", Uintptr(b), s)
	}
	if b, s := l.MemInfo(xb, MemFlags); s != Success || Uint64(b)&MemReadOnly == 0 {
		t.Errorf("MemFlags = %#x, %v", Uint64(b), s)
	}
	const a = 2.5
	e.runAxpy(t, k, a, xb, yb, n)
	checkAxpy(t, a, x, y, e.read(t, yb, n))
}

func TestBufferOps(t *testing.T) {
	e := setup(t)
	l := e.l
	const n = 256
	src := make([]float32, n)
	a, s := l.CreateBuffer(e.c, MemReadWrite, n*4, nil)
	if s != Success {
		t.Fatalf("CreateBuffer: %v", s)
	}
	defer l.ReleaseMemObject(a)
	b := e.buffer(t, MemReadWrite, src)
	pattern := float32(7)
	var fill Event
	if s := l.EnqueueFillBuffer(e.q, a, unsafe.Pointer(&pattern), 4, 0, n*4, nil, &fill); s != Success {
		t.Fatalf("EnqueueFillBuffer: %v", s)
	}
	defer l.ReleaseEvent(fill)
	// The copy waits on the fill through a wait list.
	if s := l.EnqueueCopyBuffer(e.q, a, b, 0, 0, n*4, []Event{fill}, nil); s != Success {
		t.Fatalf("EnqueueCopyBuffer: %v", s)
	}
	half := []float32{1, 2, 3, 4}
	if s := l.EnqueueWriteBuffer(e.q, b, true, 8*4, 4*4, unsafe.Pointer(&half[0]), nil, nil); s != Success {
		t.Fatalf("EnqueueWriteBuffer: %v", s)
	}
	if s := l.Flush(e.q); s != Success {
		t.Fatalf("Flush: %v", s)
	}
	if s := l.Finish(e.q); s != Success {
		t.Fatalf("Finish: %v", s)
	}
	got := e.read(t, b, n)
	for i, v := range got {
		want := float32(7)
		if i >= 8 && i < 12 {
			want = half[i-8]
		}
		if v != want {
			t.Fatalf("b[%d] = %v, want %v", i, v, want)
		}
	}
	if s := l.EnqueueReadBuffer(e.q, b, true, 0, 4, nil, nil, nil); s == Success {
		t.Error("read into NULL succeeded")
	}
}

func TestBuildFailure(t *testing.T) {
	e := setup(t)
	l := e.l
	p, s := l.CreateProgramWithSource(e.c, "__kernel void broken(__global float* y) { y[0] = ; }")
	if s != Success {
		t.Fatalf("CreateProgramWithSource: %v", s)
	}
	defer l.ReleaseProgram(p)
	if s := l.BuildProgram(p, nil, ""); s != BuildProgramFailure {
		t.Fatalf("BuildProgram = %v, want %v", s, BuildProgramFailure)
	}
	b, s := l.ProgramBuildInfo(p, e.d, ProgramBuildLog)
	if s != Success || strings.TrimSpace(CString(b)) == "" {
		t.Fatalf("build log = %q, %v", CString(b), s)
	}
	if b, _ := l.ProgramBuildInfo(p, e.d, ProgramBuildStatus); Int32(b) != BuildError {
		t.Errorf("ProgramBuildStatus = %d, want %d", Int32(b), BuildError)
	}
}

func TestWrongKernelName(t *testing.T) {
	e := setup(t)
	p := e.build(t, axpySource, "")
	k, s := e.l.CreateKernel(p, "nope")
	if s != InvalidKernelName || k != 0 {
		t.Fatalf("CreateKernel = %#x, %v; want 0, %v", k, s, InvalidKernelName)
	}
}

func TestProgramBinaries(t *testing.T) {
	e := setup(t)
	l := e.l
	p := e.build(t, axpySource, "")
	bins, s := l.ProgramBinaries(p)
	if s != Success || len(bins) != 1 || len(bins[0]) == 0 {
		t.Fatalf("ProgramBinaries = %d binaries, %v", len(bins), s)
	}
	p2, binStatus, s := l.CreateProgramWithBinary(e.c, []Device{e.d}, bins)
	if s != Success || len(binStatus) != 1 || binStatus[0] != Success {
		t.Fatalf("CreateProgramWithBinary = %v, %v", binStatus, s)
	}
	defer l.ReleaseProgram(p2)
	if s := l.BuildProgram(p2, []Device{e.d}, ""); s != Success {
		t.Fatalf("BuildProgram(binary): %v", s)
	}
	k := e.kernel(t, p2, "axpy")
	x, y := axpyInputs(64)
	xb, yb := e.buffer(t, MemReadOnly, x), e.buffer(t, MemReadWrite, y)
	e.runAxpy(t, k, -1, xb, yb, 64)
	checkAxpy(t, -1, x, y, e.read(t, yb, 64))

	if _, _, s := l.CreateProgramWithBinary(e.c, []Device{e.d}, nil); s != InvalidValue {
		t.Errorf("mismatched lists: %v", s)
	}
	if _, st, s := l.CreateProgramWithBinary(e.c, []Device{e.d}, [][]byte{nil}); s == Success {
		t.Errorf("empty binary accepted: %v", st)
	}
}

func TestCompileLink(t *testing.T) {
	e := setup(t)
	l := e.l
	if b, _ := l.DeviceInfo(e.d, DeviceLinkerAvailable); Uint32(b) != True {
		t.Skip("device has no linker")
	}
	obj, s := l.CreateProgramWithSource(e.c, axpySource)
	if s != Success {
		t.Fatalf("CreateProgramWithSource: %v", s)
	}
	defer l.ReleaseProgram(obj)
	if s := l.CompileProgram(obj, []Device{e.d}, ""); s != Success {
		log, _ := l.ProgramBuildInfo(obj, e.d, ProgramBuildLog)
		t.Fatalf("CompileProgram: %v\n%s", s, CString(log))
	}
	if b, _ := l.ProgramBuildInfo(obj, e.d, ProgramBinaryType); Uint32(b) != ProgramBinaryTypeCompiledObject {
		t.Errorf("ProgramBinaryType = %d", Uint32(b))
	}
	exe, s := l.LinkProgram(e.c, []Device{e.d}, "", []Program{obj})
	if s != Success {
		t.Fatalf("LinkProgram: %v", s)
	}
	defer l.ReleaseProgram(exe)
	k := e.kernel(t, exe, "axpy")
	x, y := axpyInputs(32)
	xb, yb := e.buffer(t, MemReadOnly, x), e.buffer(t, MemReadWrite, y)
	e.runAxpy(t, k, 3, xb, yb, 32)
	checkAxpy(t, 3, x, y, e.read(t, yb, 32))
	if _, s := l.LinkProgram(e.c, []Device{e.d}, "", nil); s == Success {
		t.Error("linking nothing succeeded")
	}
}

func TestProfiling(t *testing.T) {
	e := setup(t)
	l := e.l
	var q Queue
	var s Status
	if l.HasQueueWithProperties() {
		q, s = l.CreateCommandQueueWithProperties(e.c, e.d, []uint64{QueueProperties, QueueProfilingEnable})
	} else {
		q, s = l.CreateCommandQueue(e.c, e.d, QueueProfilingEnable)
	}
	if s != Success {
		t.Fatalf("create profiling queue: %v", s)
	}
	defer l.ReleaseCommandQueue(q)
	if b, _ := l.QueueInfo(q, QueueProperties); Uint64(b)&QueueProfilingEnable == 0 {
		t.Errorf("QueueProperties = %#x", Uint64(b))
	}
	buf, s := l.CreateBuffer(e.c, MemReadWrite, 1<<16, nil)
	if s != Success {
		t.Fatalf("CreateBuffer: %v", s)
	}
	defer l.ReleaseMemObject(buf)
	pattern := uint32(0xabcdabcd)
	var ev Event
	if s := l.EnqueueFillBuffer(q, buf, unsafe.Pointer(&pattern), 4, 0, 1<<16, nil, &ev); s != Success {
		t.Fatalf("EnqueueFillBuffer: %v", s)
	}
	defer l.ReleaseEvent(ev)
	if s := l.WaitForEvents([]Event{ev}); s != Success {
		t.Fatalf("WaitForEvents: %v", s)
	}
	if b, s := l.EventInfo(ev, EventCommandQueue); s != Success || Queue(Uintptr(b)) != q {
		t.Errorf("EventCommandQueue = %#x, %v", Uintptr(b), s)
	}
	var ts [4]uint64
	for i, param := range []uint32{ProfilingCommandQueued, ProfilingCommandSubmit, ProfilingCommandStart, ProfilingCommandEnd} {
		b, s := l.EventProfilingInfo(ev, param)
		if s != Success {
			t.Fatalf("EventProfilingInfo(%#x): %v", param, s)
		}
		ts[i] = Uint64(b)
	}
	if ts[0] == 0 || ts[0] > ts[1] || ts[1] > ts[2] || ts[2] > ts[3] {
		t.Errorf("profiling timestamps out of order: %v", ts)
	}
	if s := l.WaitForEvents(nil); s != InvalidValue {
		t.Errorf("WaitForEvents(nil) = %v, want %v", s, InvalidValue)
	}
}

// TestIL checks the optional IL entry point answers without crashing; the
// device may not accept any IL.
func TestIL(t *testing.T) {
	e := setup(t)
	if !e.l.HasIL() {
		t.Skip("loader has no clCreateProgramWithIL")
	}
	b, _ := e.l.DeviceInfo(e.d, DeviceILVersion)
	if CString(b) != "" {
		t.Skipf("device accepts IL %q; no sample module here", CString(b))
	}
	p, s := e.l.CreateProgramWithIL(e.c, []byte{0x03, 0x02, 0x23, 0x07, 0, 0, 0, 0})
	if s == Success {
		e.l.ReleaseProgram(p)
		t.Fatal("device without IL support accepted an IL program")
	}
	t.Logf("CreateProgramWithIL on a device without IL: %v", s)
}

// hotState mimics what a caller keeps on the heap between launches.
type hotState struct {
	a      float32
	x, y   Mem
	global [3]uintptr
}

func TestHotPathAllocations(t *testing.T) {
	e := setup(t)
	l := e.l
	const n = 1024
	p := e.build(t, axpySource, "")
	k := e.kernel(t, p, "axpy")
	x, y := axpyInputs(n)
	h := &hotState{a: 1, x: e.buffer(t, MemReadOnly, x), y: e.buffer(t, MemReadWrite, y), global: [3]uintptr{n, 1, 1}}
	if s := l.SetKernelArg(k, 0, 4, unsafe.Pointer(&h.a)); s != Success {
		t.Fatalf("SetKernelArg(0): %v", s)
	}
	if s := l.SetKernelArg(k, 2, unsafe.Sizeof(h.y), unsafe.Pointer(&h.y)); s != Success {
		t.Fatalf("SetKernelArg(2): %v", s)
	}

	var bad Status
	allocs := testing.AllocsPerRun(100, func() {
		if s := l.SetKernelArg(k, 1, unsafe.Sizeof(h.x), unsafe.Pointer(&h.x)); s != Success {
			bad = s
		}
	})
	if bad != Success {
		t.Fatalf("SetKernelArg: %v", bad)
	}
	if allocs != 0 {
		t.Errorf("SetKernelArg: %v allocs per call, want 0", allocs)
	}

	const runs = 50
	allocs = testing.AllocsPerRun(runs, func() {
		if s := l.EnqueueNDRangeKernel(e.q, k, 1, nil, &h.global[0], nil, nil, nil); s != Success {
			bad = s
		}
	})
	if bad != Success {
		t.Fatalf("EnqueueNDRangeKernel: %v", bad)
	}
	if allocs != 0 {
		t.Errorf("EnqueueNDRangeKernel: %v allocs per call, want 0", allocs)
	}
	if s := l.Finish(e.q); s != Success {
		t.Fatalf("Finish: %v", s)
	}
	// AllocsPerRun ran the launch runs+1 times: y = y0 + (runs+1)*x.
	got := e.read(t, h.y, n)
	for i := range got {
		if want := y[i] + (runs+1)*x[i]; got[i] != want {
			t.Fatalf("y[%d] = %v, want %v", i, got[i], want)
		}
	}
}
