package cu

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/gour-dev/gour/internal/dl"
	"github.com/gour-dev/gour/internal/nvlib"
)

var (
	testLib     *Lib
	testLoadErr error
)

func TestMain(m *testing.M) {
	testLib, testLoadErr = Load()
	// The library stays loaded: unloading a driver that has started threads
	// is not safe.
	os.Exit(m.Run())
}

// TestLoad checks that Load either works or fails with an error naming the
// libraries it tried, never panicking. On a machine without the driver
// (CI) it is the failure path that runs.
func TestLoad(t *testing.T) {
	if testLoadErr == nil {
		if testLib.LibraryName() == "" {
			t.Error("loaded library has no name")
		}
		t.Logf("loaded %s", testLib.LibraryName())
		return
	}
	for _, want := range nvlib.DriverNames {
		if !strings.Contains(testLoadErr.Error(), want) {
			t.Errorf("Load error %q does not name %s", testLoadErr, want)
		}
	}
	if testLib != nil {
		t.Error("Load returned a table with its error")
	}
	t.Logf("Load (expected without a driver): %v", testLoadErr)
}

func TestResultName(t *testing.T) {
	for _, c := range []struct {
		r    Result
		want string
	}{
		{Success, "CUDA_SUCCESS"},
		{InvalidValue, "CUDA_ERROR_INVALID_VALUE"},
		{OutOfMemory, "CUDA_ERROR_OUT_OF_MEMORY"},
		{NoDevice, "CUDA_ERROR_NO_DEVICE"},
		{InvalidPTX, "CUDA_ERROR_INVALID_PTX"},
		{UnsupportedPTXVersion, "CUDA_ERROR_UNSUPPORTED_PTX_VERSION"},
		{NotReady, "CUDA_ERROR_NOT_READY"},
		{LaunchFailed, "CUDA_ERROR_LAUNCH_FAILED"},
		{Unknown, "CUDA_ERROR_UNKNOWN"},
		{Result(218), "CUDA_ERROR_INVALID_PTX"},
		{Result(9), "CUDA_ERROR(9)"},
		{Result(-1), "CUDA_ERROR(-1)"},
		{Result(1000), "CUDA_ERROR(1000)"},
	} {
		if got := c.r.Name(); got != c.want {
			t.Errorf("Result(%d).Name() = %q, want %q", int32(c.r), got, c.want)
		}
		if got := c.r.String(); got != c.want {
			t.Errorf("Result(%d).String() = %q, want %q", int32(c.r), got, c.want)
		}
	}
	for r, name := range resultNames {
		if !strings.HasPrefix(name, "CUDA_ERROR_") && r != Success {
			t.Errorf("Result(%d) is named %q", int32(r), name)
		}
	}
}

// TestConstantValues spot-checks values against the CUDA 12.6 cuda.h (read
// from github.com/zspace/system.cuda-12.6, include/cuda.h: enums
// cudaError_enum, CUdevice_attribute_enum, CUfunction_attribute_enum,
// CUjit_option_enum, CUjitInputType_enum, CUevent_flags_enum,
// CUstream_flags_enum, CUctx_flags_enum).
func TestConstantValues(t *testing.T) {
	for _, c := range []struct {
		name      string
		got, want int64
	}{
		{"CUDA_SUCCESS", int64(Success), 0},
		{"CUDA_ERROR_INVALID_VALUE", int64(InvalidValue), 1},
		{"CUDA_ERROR_OUT_OF_MEMORY", int64(OutOfMemory), 2},
		{"CUDA_ERROR_NOT_INITIALIZED", int64(NotInitialized), 3},
		{"CUDA_ERROR_DEINITIALIZED", int64(Deinitialized), 4},
		{"CUDA_ERROR_STUB_LIBRARY", int64(StubLibrary), 34},
		{"CUDA_ERROR_NO_DEVICE", int64(NoDevice), 100},
		{"CUDA_ERROR_INVALID_DEVICE", int64(InvalidDevice), 101},
		{"CUDA_ERROR_INVALID_IMAGE", int64(InvalidImage), 200},
		{"CUDA_ERROR_INVALID_CONTEXT", int64(InvalidContext), 201},
		{"CUDA_ERROR_NO_BINARY_FOR_GPU", int64(NoBinaryForGPU), 209},
		{"CUDA_ERROR_INVALID_PTX", int64(InvalidPTX), 218},
		{"CUDA_ERROR_JIT_COMPILER_NOT_FOUND", int64(JITCompilerNotFound), 221},
		{"CUDA_ERROR_UNSUPPORTED_PTX_VERSION", int64(UnsupportedPTXVersion), 222},
		{"CUDA_ERROR_INVALID_SOURCE", int64(InvalidSource), 300},
		{"CUDA_ERROR_FILE_NOT_FOUND", int64(FileNotFound), 301},
		{"CUDA_ERROR_INVALID_HANDLE", int64(InvalidHandle), 400},
		{"CUDA_ERROR_NOT_FOUND", int64(NotFound), 500},
		{"CUDA_ERROR_NOT_READY", int64(NotReady), 600},
		{"CUDA_ERROR_ILLEGAL_ADDRESS", int64(IllegalAddress), 700},
		{"CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES", int64(LaunchOutOfResources), 701},
		{"CUDA_ERROR_LAUNCH_TIMEOUT", int64(LaunchTimeout), 702},
		{"CUDA_ERROR_INVALID_ADDRESS_SPACE", int64(InvalidAddressSpace), 717},
		{"CUDA_ERROR_LAUNCH_FAILED", int64(LaunchFailed), 719},
		{"CUDA_ERROR_NOT_PERMITTED", int64(NotPermitted), 800},
		{"CUDA_ERROR_NOT_SUPPORTED", int64(NotSupported), 801},
		{"CUDA_ERROR_UNKNOWN", int64(Unknown), 999},

		{"CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK", int64(DeviceAttributeMaxThreadsPerBlock), 1},
		{"CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X", int64(DeviceAttributeMaxBlockDimX), 2},
		{"CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z", int64(DeviceAttributeMaxBlockDimZ), 4},
		{"CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X", int64(DeviceAttributeMaxGridDimX), 5},
		{"CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z", int64(DeviceAttributeMaxGridDimZ), 7},
		{"CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK", int64(DeviceAttributeMaxSharedMemoryPerBlock), 8},
		{"CU_DEVICE_ATTRIBUTE_TOTAL_CONSTANT_MEMORY", int64(DeviceAttributeTotalConstantMemory), 9},
		{"CU_DEVICE_ATTRIBUTE_WARP_SIZE", int64(DeviceAttributeWarpSize), 10},
		{"CU_DEVICE_ATTRIBUTE_CLOCK_RATE", int64(DeviceAttributeClockRate), 13},
		{"CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT", int64(DeviceAttributeMultiprocessorCount), 16},
		{"CU_DEVICE_ATTRIBUTE_PCI_BUS_ID", int64(DeviceAttributePCIBusID), 33},
		{"CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID", int64(DeviceAttributePCIDomainID), 50},
		{"CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR", int64(DeviceAttributeComputeCapabilityMajor), 75},
		{"CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR", int64(DeviceAttributeComputeCapabilityMinor), 76},
		{"CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN", int64(DeviceAttributeMaxSharedMemoryPerBlockOptin), 97},

		{"CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK", int64(FuncAttributeMaxThreadsPerBlock), 0},
		{"CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES", int64(FuncAttributeSharedSizeBytes), 1},
		{"CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES", int64(FuncAttributeLocalSizeBytes), 3},
		{"CU_FUNC_ATTRIBUTE_NUM_REGS", int64(FuncAttributeNumRegs), 4},
		{"CU_FUNC_ATTRIBUTE_BINARY_VERSION", int64(FuncAttributeBinaryVersion), 6},
		{"CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES", int64(FuncAttributeMaxDynamicSharedSizeBytes), 8},

		{"CU_JIT_INFO_LOG_BUFFER", int64(JitInfoLogBuffer), 3},
		{"CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES", int64(JitInfoLogBufferSizeBytes), 4},
		{"CU_JIT_ERROR_LOG_BUFFER", int64(JitErrorLogBuffer), 5},
		{"CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES", int64(JitErrorLogBufferSizeBytes), 6},
		{"CU_JIT_OPTIMIZATION_LEVEL", int64(JitOptimizationLevel), 7},
		{"CU_JIT_TARGET_FROM_CUCONTEXT", int64(JitTargetFromCUContext), 8},
		{"CU_JIT_TARGET", int64(JitTarget), 9},
		{"CU_JIT_GENERATE_DEBUG_INFO", int64(JitGenerateDebugInfo), 11},
		{"CU_JIT_LOG_VERBOSE", int64(JitLogVerbose), 12},
		{"CU_JIT_GENERATE_LINE_INFO", int64(JitGenerateLineInfo), 13},
		{"CU_JIT_OVERRIDE_DIRECTIVE_VALUES", int64(JitOverrideDirectiveValues), 33},

		{"CU_JIT_INPUT_CUBIN", int64(JitInputCUBIN), 0},
		{"CU_JIT_INPUT_PTX", int64(JitInputPTX), 1},
		{"CU_JIT_INPUT_FATBINARY", int64(JitInputFatbinary), 2},
		{"CU_JIT_INPUT_OBJECT", int64(JitInputObject), 3},
		{"CU_JIT_INPUT_LIBRARY", int64(JitInputLibrary), 4},

		{"CU_EVENT_DEFAULT", EventDefault, 0},
		{"CU_EVENT_BLOCKING_SYNC", EventBlockingSync, 1},
		{"CU_EVENT_DISABLE_TIMING", EventDisableTiming, 2},
		{"CU_STREAM_NON_BLOCKING", StreamNonBlocking, 1},
		{"CU_STREAM_LEGACY", int64(StreamLegacy), 1},
		{"CU_STREAM_PER_THREAD", int64(StreamPerThread), 2},
		{"CU_CTX_SCHED_BLOCKING_SYNC", CtxSchedBlockingSync, 4},
		{"CU_CTX_LMEM_RESIZE_TO_MAX", CtxLmemResizeToMax, 0x10},
	} {
		if c.got != c.want {
			t.Errorf("%s = %d, want %d", c.name, c.got, c.want)
		}
	}
}

// TestZeroLibNeverPanics calls through a table with no entry points: every
// call answers NotSupported instead of jumping to address zero.
func TestZeroLibNeverPanics(t *testing.T) {
	var l Lib
	if l.HasErrorString() || l.HasDeviceUUID() || l.HasMemset2D() || l.HasModuleGetGlobal() ||
		l.HasModuleEnumerateFunctions() || l.HasFuncGetName() || l.HasFuncGetParamInfo() || l.HasFuncLoad() || l.HasOccupancy() {
		t.Error("zero Lib reports optional entry points")
	}
	var params [1]unsafe.Pointer
	for name, r := range map[string]Result{
		"Init":             l.Init(0),
		"LaunchKernel":     l.LaunchKernel(0, 1, 1, 1, 1, 1, 1, 0, 0, &params[0], nil),
		"MemsetD2D8Async":  l.MemsetD2D8Async(0, 0, 0, 0, 0, 0),
		"CtxSynchronize":   l.CtxSynchronize(),
		"StreamQuery":      l.StreamQuery(0),
		"ModuleUnload":     l.ModuleUnload(0),
		"FuncLoad":         l.FuncLoad(0),
		"EventRecord":      l.EventRecord(0, 0),
		"MemcpyDtoHAsync":  l.MemcpyDtoHAsync(nil, 0, 0, 0),
		"LinkDestroy":      l.LinkDestroy(0),
		"StreamWaitEvent":  l.StreamWaitEvent(0, 0, 0),
		"FuncSetAttribute": l.FuncSetAttribute(0, FuncAttributeMaxDynamicSharedSizeBytes, 0),
	} {
		if r != NotSupported {
			t.Errorf("%s on a zero Lib = %v, want %v", name, r, NotSupported)
		}
	}
	if _, r := l.GetErrorString(InvalidValue); r != NotSupported {
		t.Errorf("GetErrorString = %v", r)
	}
	if _, r := l.DeviceGetUUID(0); r != NotSupported {
		t.Errorf("DeviceGetUUID = %v", r)
	}
	if _, r := l.FuncGetName(0); r != NotSupported {
		t.Errorf("FuncGetName = %v", r)
	}
	if _, _, r := l.FuncGetParamInfo(0, 0); r != NotSupported {
		t.Errorf("FuncGetParamInfo = %v", r)
	}
	if _, r := l.ModuleFunctions(0); r != NotSupported {
		t.Errorf("ModuleFunctions = %v", r)
	}
	if _, _, r := l.OccupancyMaxPotentialBlockSize(0, 0, 0); r != NotSupported {
		t.Errorf("OccupancyMaxPotentialBlockSize = %v", r)
	}
	if _, _, r := l.Link([]LinkInput{{JitInputPTX, []byte("ptx"), "x"}}); r != NotSupported {
		t.Errorf("Link = %v", r)
	}
	// Argument checks answer before any call.
	if _, r := l.ModuleLoadData(nil); r != InvalidValue {
		t.Errorf("ModuleLoadData(nil) = %v", r)
	}
	if _, r := l.ModuleLoadDataWithOptions([]byte("x"), []JitOption{JitLogVerbose}, nil); r != InvalidValue {
		t.Errorf("ModuleLoadDataWithOptions with mismatched lists = %v", r)
	}
	if r := l.DeviceGetName(nil, 0); r != InvalidValue {
		t.Errorf("DeviceGetName(nil) = %v", r)
	}
}

func TestCImage(t *testing.T) {
	ptx := []byte(".version 7.0")
	got := cImage(ptx)
	if len(got) != len(ptx)+1 || got[len(got)-1] != 0 || string(got[:len(ptx)]) != string(ptx) {
		t.Errorf("cImage(PTX) = %q, want it NUL-terminated", got)
	}
	if len(ptx) != 12 {
		t.Error("cImage modified its input")
	}
	term := []byte(".version 7.0\x00")
	if got := cImage(term); &got[0] != &term[0] || len(got) != len(term) {
		t.Error("cImage copied an already NUL-terminated image")
	}
	elf := []byte("\x7fELF\x02\x01\x01")
	if got := cImage(elf); len(got) != len(elf) {
		t.Error("cImage appended to an ELF cubin")
	}
	fatbin := []byte{0x50, 0xed, 0x55, 0xba, 1, 0, 0x10, 0}
	if got := cImage(fatbin); len(got) != len(fatbin) {
		t.Error("cImage appended to a fatbin")
	}
	if got := cImage(nil); len(got) != 0 {
		t.Error("cImage(nil) not empty")
	}
}

func TestStringHelpers(t *testing.T) {
	if got := trimLog([]byte("ptxas error: bad\n\x00garbage")); got != "ptxas error: bad" {
		t.Errorf("trimLog = %q", got)
	}
	if got := trimLog(make([]byte, 16)); got != "" {
		t.Errorf("trimLog(zeros) = %q", got)
	}
	if got := dl.BufString([]byte("no nul")); got != "no nul" {
		t.Errorf("bufString = %q", got)
	}
	s := []byte("CUDA_ERROR_X\x00tail")
	if got := dl.GoString(unsafe.Pointer(&s[0])); got != "CUDA_ERROR_X" {
		t.Errorf("goString = %q", got)
	}
	if dl.GoString(nil) != "" {
		t.Error("dl.GoString(nil)")
	}
}

// fakeC resolves a libc function to stand in for a driver entry point, or
// skips. With CGO_ENABLED=0 no C can be compiled for a test, but libc's
// functions are real C functions with a C ABI.
func fakeC(t *testing.T, name string) uintptr {
	t.Helper()
	lib, err := dl.Open("libc.so.6")
	if err != nil {
		t.Skipf("libc.so.6 not loadable: %v", err)
	}
	addr, err := lib.Lookup(name)
	if err != nil {
		t.Skipf("libc: %v", err)
	}
	return addr
}

// launchState mimics what a caller keeps on the heap between launches.
type launchState struct {
	a      float32
	x, y   DevicePtr
	n      uint32
	params [4]unsafe.Pointer
}

func newLaunchState(x, y DevicePtr, n uint32) *launchState {
	h := &launchState{a: 2, x: x, y: y, n: n}
	h.params = [4]unsafe.Pointer{unsafe.Pointer(&h.a), unsafe.Pointer(&h.x), unsafe.Pointer(&h.y), unsafe.Pointer(&h.n)}
	return h
}

// TestLaunchKernelAllocsFakeC runs LaunchKernel's and LaunchKernelIn's
// calls through sched_yield, a C function that ignores its arguments and
// returns 0, to check the launch path allocates nothing without a GPU.
func TestLaunchKernelAllocsFakeC(t *testing.T) {
	yield := fakeC(t, "sched_yield")
	l := &Lib{launchKernel: yield, ctxSetCurrent: yield}
	h := newLaunchState(0, 0, 1)
	var bad Result
	allocs := testing.AllocsPerRun(100, func() {
		if r := l.LaunchKernel(1, 1, 1, 1, 64, 1, 1, 0, 0, &h.params[0], nil); r != Success {
			bad = r
		}
		if r := l.LaunchKernelIn(1, 1, 1, 1, 1, 64, 1, 1, 0, 0, &h.params[0], nil); r != Success {
			bad = r
		}
	})
	if bad != Success {
		t.Fatalf("launch through sched_yield = %v", bad)
	}
	if allocs != 0 {
		t.Errorf("LaunchKernel + LaunchKernelIn: %v allocs per call, want 0", allocs)
	}
}

// TestLaunchKernelInRelaunchesFakeC drives LaunchKernelIn's second try
// with libc standing in for the driver: the "launch" is access(path, F_OK),
// which fails until the "context" is made current by mkdir(path). The
// first launch fails, the context is set, and the launch made again
// succeeds; the next launch succeeds at once. A context that cannot be
// made current (mkdir under a missing directory) is reported as such.
func TestLaunchKernelInRelaunchesFakeC(t *testing.T) {
	l := &Lib{launchKernel: fakeC(t, "access"), ctxSetCurrent: fakeC(t, "mkdir")}
	dir := t.TempDir()
	path := dl.CString(filepath.Join(dir, "ctx"))
	handle := uintptr(unsafe.Pointer(&path[0])) // both the function and the context: the path
	h := newLaunchState(0, 0, 1)
	launch := func() Result {
		// gridX is access's mode: F_OK.
		return l.LaunchKernelIn(Context(handle), Function(handle), 0, 1, 1, 1, 1, 1, 0, 0, &h.params[0], nil)
	}
	if r := launch(); r != Success {
		t.Fatalf("first launch = %v, want Success after making the context current", r)
	}
	if _, err := os.Stat(filepath.Join(dir, "ctx")); err != nil {
		t.Fatalf("the context was not made current: %v", err)
	}
	if r := launch(); r != Success {
		t.Errorf("second launch = %v, want Success", r)
	}
	missing := dl.CString(filepath.Join(dir, "no", "ctx"))
	handle = uintptr(unsafe.Pointer(&missing[0]))
	if r := launch(); r == Success {
		t.Error("a launch whose context cannot be made current succeeded")
	}
	runtime.KeepAlive(path)
	runtime.KeepAlive(missing)
}

// TestOutputSlotFakeC checks the output-parameter path with time(3), which
// stores the current time through its first argument, the way
// cuDeviceTotalMem stores a size.
func TestOutputSlotFakeC(t *testing.T) {
	l := &Lib{deviceTotalMem: fakeC(t, "time")}
	before := time.Now().Unix()
	got, _ := l.DeviceTotalMem(0) // the "result" is the time too; ignore it
	after := time.Now().Unix()
	if int64(got) < before || int64(got) > after {
		t.Errorf("output slot = %d, want a time in [%d, %d]", got, before, after)
	}
}

// TestLaunchKernelNoHeapMoves builds the package with -gcflags=-m and checks
// that the compiler moves nothing to the heap in launch.go: LaunchKernel
// takes no address of a local.
func TestLaunchKernelNoHeapMoves(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the package")
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go tool not on PATH (a test binary copied to a machine without Go)")
	}
	cmd := exec.Command(goTool, "build", "-gcflags=-m", "-o", os.DevNull, ".")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go build -gcflags=-m: %v\n%s", err, out)
	}
	sawLaunch := false
	for _, line := range strings.Split(string(out), "\n") {
		if !strings.Contains(line, "launch.go:") {
			continue
		}
		sawLaunch = true
		if strings.Contains(line, "moved to heap") {
			t.Errorf("escape analysis: %s", line)
		}
	}
	if !sawLaunch {
		t.Errorf("no escape analysis output for launch.go:\n%s", out)
	}
}
