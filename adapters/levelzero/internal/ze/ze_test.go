package ze

import (
	"strings"
	"testing"
	"unsafe"

	"github.com/gour-dev/gour/internal/dl"
)

// TestLoadMissingLibrary runs the path of a machine without the loader:
// dlopen fails for every name, and the error names each of them.
func TestLoadMissingLibrary(t *testing.T) {
	names := []string{"libze_loader_gour_missing.so.1", "libze_loader_gour_missing.so"}
	l, err := LoadFrom(names...)
	if err == nil {
		l.Close()
		t.Fatal("LoadFrom of libraries that do not exist succeeded")
	}
	for _, n := range names {
		if !strings.Contains(err.Error(), n) {
			t.Errorf("error %q does not name %s", err, n)
		}
	}
	t.Logf("reported: %v", err)
}

// TestLoadAndInit needs only the loader (Debian: libze1), no driver and
// no device. Without a driver zeInit fails (the 1.8 loader answers
// ZE_RESULT_ERROR_UNINITIALIZED) or finds no driver; it never crashes.
func TestLoadAndInit(t *testing.T) {
	l, err := Load()
	if err != nil {
		t.Skipf("Level Zero loader not installed: %v", err)
	}
	t.Logf("loaded %s (zeInitDrivers %v, zeCommandListHostSynchronize %v, zeKernelSetGlobalOffsetExp %v)",
		l.LibraryName(), l.HasInitDrivers(), l.HasCommandListHostSynchronize(), l.HasKernelSetGlobalOffset())
	r := l.Init(0)
	t.Logf("zeInit(0) = %v", r)
	drivers, r2 := l.DriverGet()
	t.Logf("zeDriverGet: %d drivers, %v", len(drivers), r2)
	if r == Success && r2 == Success && len(drivers) > 0 {
		for _, d := range drivers {
			v, _ := l.DriverGetAPIVersion(d)
			devs, _ := l.DeviceGet(d)
			t.Logf("driver %#x: API %d.%d, %d devices", uintptr(d), v.Major(), v.Minor(), len(devs))
		}
	}
	if l.HasInitDrivers() {
		ds, r := l.InitDrivers(InitDriverTypeFlagGPU | InitDriverTypeFlagNPU)
		t.Logf("zeInitDrivers: %d drivers, %v", len(ds), r)
	} else if ds, r := l.InitDrivers(InitDriverTypeFlagGPU); r != NotSupported || ds != nil {
		t.Errorf("InitDrivers without zeInitDrivers = %v, %v; want NotSupported without a call", ds, r)
	}
}

func TestResultName(t *testing.T) {
	for _, c := range []struct {
		r    Result
		want string
	}{
		{Success, "ZE_RESULT_SUCCESS"},
		{ErrorUninitialized, "ZE_RESULT_ERROR_UNINITIALIZED"},
		{ErrorModuleBuildFailure, "ZE_RESULT_ERROR_MODULE_BUILD_FAILURE"},
		{ErrorInvalidNativeBinary, "ZE_RESULT_ERROR_INVALID_NATIVE_BINARY"},
		{Result(0x12345), "ze_result_t(0x12345)"},
	} {
		if got := c.r.Name(); got != c.want {
			t.Errorf("%#x.Name() = %q, want %q", uint32(c.r), got, c.want)
		}
	}
	if got := ErrorUninitialized.String(); got != "ZE_RESULT_ERROR_UNINITIALIZED (0x78000001)" {
		t.Errorf("String() = %q", got)
	}
}

func TestAPIVersion(t *testing.T) {
	v := MakeVersion(1, 12)
	if v != 0x1000c || v.Major() != 1 || v.Minor() != 12 {
		t.Errorf("MakeVersion(1, 12) = %#x (%d.%d)", uint32(v), v.Major(), v.Minor())
	}
}

func TestModuleConstants(t *testing.T) {
	if NewModuleConstants([]uint32{1}, nil) != nil {
		t.Error("mismatched lengths accepted")
	}
	c := NewModuleConstants([]uint32{7, 9}, [][]byte{{1}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10}})
	if c.NumConstants != 2 || c.PConstantIDs == nil || c.PConstantValues == nil {
		t.Fatalf("NewModuleConstants = %+v", c)
	}
}

// TestOptionalEntryPointNotCalled checks that a missing optional entry
// point gives NotSupported without a call.
func TestOptionalEntryPointNotCalled(t *testing.T) {
	var l Lib
	if r := l.KernelSetGlobalOffsetExp(0, 1, 2, 3); r != NotSupported {
		t.Errorf("KernelSetGlobalOffsetExp on an empty table = %v", r)
	}
	if r := l.CommandListHostSynchronize(0, 0); r != NotSupported {
		t.Errorf("CommandListHostSynchronize on an empty table = %v", r)
	}
}

// stubFunc returns libc's sched_yield, which ignores its arguments and
// returns 0, as a stand-in for every entry point.
func stubFunc(t testing.TB) uintptr {
	t.Helper()
	lib, err := dl.Open("libc.so.6")
	if err != nil {
		t.Skipf("libc.so.6 not loadable here: %v", err)
	}
	fn, err := lib.Lookup("sched_yield")
	if err != nil {
		t.Skip(err)
	}
	return fn
}

// TestHotCallsAllocateNothing checks that the launch-path calls (set
// argument, set group size, launch with the group count in the frame,
// event query) allocate nothing once the frame pool is warm.
func TestHotCallsAllocateNothing(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector makes sync.Pool drop items")
	}
	l := Stub(stubFunc(t))
	arg := new(uint64)
	allocs := testing.AllocsPerRun(100, func() {
		l.KernelSetArgumentValue(1, 0, 8, unsafe.Pointer(arg))
		l.KernelSetGroupSize(1, 64, 1, 1)
		l.CommandListAppendLaunchKernel(1, 2, GroupCount{GroupCountX: 16, GroupCountY: 1, GroupCountZ: 1}, 0, nil)
		l.EventQueryStatus(3)
	})
	if allocs != 0 {
		t.Errorf("hot-path calls allocate %.1f times per run", allocs)
	}
}
