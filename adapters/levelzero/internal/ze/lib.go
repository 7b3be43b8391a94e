package ze

import (
	"fmt"

	"github.com/gour-dev/gour/internal/dl"
)

// Lib is the resolved Level Zero loader entry-point table. Fields hold C
// function addresses; optional entry points the loader lacks are zero. A
// Lib is read-only after Load, so its methods may be called from any
// goroutine (Level Zero's own rules still apply: a command list must not
// be appended to from two threads at once).
type Lib struct {
	lib *dl.Library

	// Driver (ze_api.h "driver" region).
	init                   uintptr
	initDrivers            uintptr // optional: spec 1.10, loader 1.18+
	driverGet              uintptr
	driverGetAPIVersion    uintptr
	driverGetProperties    uintptr
	driverGetExtensionProp uintptr

	// Device.
	deviceGet                       uintptr
	deviceGetProperties             uintptr
	deviceGetComputeProperties      uintptr
	deviceGetModuleProperties       uintptr
	deviceGetCommandQueueGroupProps uintptr
	deviceGetMemoryProperties       uintptr
	deviceGetMemoryAccessProps      uintptr
	deviceGetGlobalTimestamps       uintptr // optional: spec 1.1
	deviceGetSubDevices             uintptr // optional: the loader always has it; tests' loaders may not
	deviceCanAccessPeer             uintptr // optional, as deviceGetSubDevices

	// Context.
	contextCreateEx uintptr
	contextDestroy  uintptr

	// Command lists (immediate) and their commands.
	commandListCreateImmediate    uintptr
	commandListDestroy            uintptr
	commandListHostSynchronize    uintptr // optional: spec 1.6
	commandListAppendBarrier      uintptr
	commandListAppendMemoryCopy   uintptr
	commandListAppendMemoryFill   uintptr
	commandListAppendCopyRegion   uintptr
	commandListAppendPrefetch     uintptr
	commandListAppendMemAdvise    uintptr
	commandListAppendLaunchKernel uintptr
	commandListAppendSignalEvent  uintptr
	commandListAppendWaitOnEvents uintptr
	commandListAppendLaunchCoop   uintptr

	// Regular command lists, command queues and fences (command buffers).
	commandListCreate               uintptr
	commandListClose                uintptr
	commandListReset                uintptr
	commandQueueCreate              uintptr
	commandQueueDestroy             uintptr
	commandQueueExecuteCommandLists uintptr
	commandQueueSynchronize         uintptr
	fenceCreate                     uintptr
	fenceDestroy                    uintptr
	fenceHostSynchronize            uintptr
	fenceReset                      uintptr

	// Events.
	eventPoolCreate           uintptr
	eventPoolDestroy          uintptr
	eventCreate               uintptr
	eventDestroy              uintptr
	eventHostSynchronize      uintptr
	eventHostReset            uintptr
	eventQueryStatus          uintptr
	eventQueryKernelTimestamp uintptr

	// Memory.
	memAllocDevice        uintptr
	memAllocHost          uintptr
	memAllocShared        uintptr
	memFree               uintptr
	memGetAllocProperties uintptr
	memGetAddressRange    uintptr

	// Modules and kernels.
	moduleCreate             uintptr
	moduleDestroy            uintptr
	moduleDynamicLink        uintptr
	moduleBuildLogDestroy    uintptr
	moduleBuildLogGetString  uintptr
	moduleGetNativeBinary    uintptr
	moduleGetKernelNames     uintptr
	moduleGetGlobalPointer   uintptr
	kernelCreate             uintptr
	kernelDestroy            uintptr
	kernelSetGroupSize       uintptr
	kernelSuggestGroupSize   uintptr
	kernelSetArgumentValue   uintptr
	kernelGetProperties      uintptr
	kernelSetGlobalOffsetExp uintptr // optional: ZE_experimental_global_offset
	kernelSuggestMaxCoop     uintptr
}

// LibraryNames are the file names Load tries, in order: the versioned
// soname first, since the unversioned link only exists where the
// development package (libze-dev) is installed.
var LibraryNames = []string{"libze_loader.so.1", "libze_loader.so"}

// Load opens the Level Zero loader under one of LibraryNames and resolves
// every entry point. It fails, without panicking, when the library or a
// required function is missing. Each call returns a new table.
func Load() (*Lib, error) { return LoadFrom(LibraryNames...) }

// LoadFrom is Load with other library names, for tests of the missing
// library path.
func LoadFrom(names ...string) (*Lib, error) {
	lib, err := dl.Open(names...)
	if err != nil {
		return nil, fmt.Errorf("ze: Level Zero loader not available: %w", err)
	}
	l := &Lib{lib: lib}
	if err := lib.Resolve(l.symbols()); err != nil {
		_ = lib.Close()
		return nil, fmt.Errorf("ze: %w", err)
	}
	return l, nil
}

func (l *Lib) symbols() []dl.Symbol {
	return []dl.Symbol{
		{Name: "zeInit", Addr: &l.init},
		{Name: "zeInitDrivers", Addr: &l.initDrivers, Optional: true},
		{Name: "zeDriverGet", Addr: &l.driverGet},
		{Name: "zeDriverGetApiVersion", Addr: &l.driverGetAPIVersion},
		{Name: "zeDriverGetProperties", Addr: &l.driverGetProperties},
		{Name: "zeDriverGetExtensionProperties", Addr: &l.driverGetExtensionProp},

		{Name: "zeDeviceGet", Addr: &l.deviceGet},
		{Name: "zeDeviceGetProperties", Addr: &l.deviceGetProperties},
		{Name: "zeDeviceGetComputeProperties", Addr: &l.deviceGetComputeProperties},
		{Name: "zeDeviceGetModuleProperties", Addr: &l.deviceGetModuleProperties},
		{Name: "zeDeviceGetCommandQueueGroupProperties", Addr: &l.deviceGetCommandQueueGroupProps},
		{Name: "zeDeviceGetMemoryProperties", Addr: &l.deviceGetMemoryProperties},
		{Name: "zeDeviceGetMemoryAccessProperties", Addr: &l.deviceGetMemoryAccessProps},
		{Name: "zeDeviceGetGlobalTimestamps", Addr: &l.deviceGetGlobalTimestamps, Optional: true},
		{Name: "zeDeviceGetSubDevices", Addr: &l.deviceGetSubDevices, Optional: true},
		{Name: "zeDeviceCanAccessPeer", Addr: &l.deviceCanAccessPeer, Optional: true},

		{Name: "zeContextCreateEx", Addr: &l.contextCreateEx},
		{Name: "zeContextDestroy", Addr: &l.contextDestroy},

		{Name: "zeCommandListCreateImmediate", Addr: &l.commandListCreateImmediate},
		{Name: "zeCommandListDestroy", Addr: &l.commandListDestroy},
		{Name: "zeCommandListHostSynchronize", Addr: &l.commandListHostSynchronize, Optional: true},
		{Name: "zeCommandListAppendBarrier", Addr: &l.commandListAppendBarrier},
		{Name: "zeCommandListAppendMemoryCopy", Addr: &l.commandListAppendMemoryCopy},
		{Name: "zeCommandListAppendMemoryFill", Addr: &l.commandListAppendMemoryFill},
		{Name: "zeCommandListAppendMemoryCopyRegion", Addr: &l.commandListAppendCopyRegion},
		{Name: "zeCommandListAppendMemoryPrefetch", Addr: &l.commandListAppendPrefetch},
		{Name: "zeCommandListAppendMemAdvise", Addr: &l.commandListAppendMemAdvise},
		{Name: "zeCommandListAppendLaunchKernel", Addr: &l.commandListAppendLaunchKernel},
		{Name: "zeCommandListAppendSignalEvent", Addr: &l.commandListAppendSignalEvent},
		{Name: "zeCommandListAppendWaitOnEvents", Addr: &l.commandListAppendWaitOnEvents},
		{Name: "zeCommandListAppendLaunchCooperativeKernel", Addr: &l.commandListAppendLaunchCoop},

		{Name: "zeCommandListCreate", Addr: &l.commandListCreate},
		{Name: "zeCommandListClose", Addr: &l.commandListClose},
		{Name: "zeCommandListReset", Addr: &l.commandListReset},
		{Name: "zeCommandQueueCreate", Addr: &l.commandQueueCreate},
		{Name: "zeCommandQueueDestroy", Addr: &l.commandQueueDestroy},
		{Name: "zeCommandQueueExecuteCommandLists", Addr: &l.commandQueueExecuteCommandLists},
		{Name: "zeCommandQueueSynchronize", Addr: &l.commandQueueSynchronize},
		{Name: "zeFenceCreate", Addr: &l.fenceCreate},
		{Name: "zeFenceDestroy", Addr: &l.fenceDestroy},
		{Name: "zeFenceHostSynchronize", Addr: &l.fenceHostSynchronize},
		{Name: "zeFenceReset", Addr: &l.fenceReset},

		{Name: "zeEventPoolCreate", Addr: &l.eventPoolCreate},
		{Name: "zeEventPoolDestroy", Addr: &l.eventPoolDestroy},
		{Name: "zeEventCreate", Addr: &l.eventCreate},
		{Name: "zeEventDestroy", Addr: &l.eventDestroy},
		{Name: "zeEventHostSynchronize", Addr: &l.eventHostSynchronize},
		{Name: "zeEventHostReset", Addr: &l.eventHostReset},
		{Name: "zeEventQueryStatus", Addr: &l.eventQueryStatus},
		{Name: "zeEventQueryKernelTimestamp", Addr: &l.eventQueryKernelTimestamp},

		{Name: "zeMemAllocDevice", Addr: &l.memAllocDevice},
		{Name: "zeMemAllocHost", Addr: &l.memAllocHost},
		{Name: "zeMemAllocShared", Addr: &l.memAllocShared},
		{Name: "zeMemFree", Addr: &l.memFree},
		{Name: "zeMemGetAllocProperties", Addr: &l.memGetAllocProperties},
		{Name: "zeMemGetAddressRange", Addr: &l.memGetAddressRange},

		{Name: "zeModuleCreate", Addr: &l.moduleCreate},
		{Name: "zeModuleDestroy", Addr: &l.moduleDestroy},
		{Name: "zeModuleDynamicLink", Addr: &l.moduleDynamicLink},
		{Name: "zeModuleBuildLogDestroy", Addr: &l.moduleBuildLogDestroy},
		{Name: "zeModuleBuildLogGetString", Addr: &l.moduleBuildLogGetString},
		{Name: "zeModuleGetNativeBinary", Addr: &l.moduleGetNativeBinary},
		{Name: "zeModuleGetKernelNames", Addr: &l.moduleGetKernelNames},
		{Name: "zeModuleGetGlobalPointer", Addr: &l.moduleGetGlobalPointer},
		{Name: "zeKernelCreate", Addr: &l.kernelCreate},
		{Name: "zeKernelDestroy", Addr: &l.kernelDestroy},
		{Name: "zeKernelSetGroupSize", Addr: &l.kernelSetGroupSize},
		{Name: "zeKernelSuggestGroupSize", Addr: &l.kernelSuggestGroupSize},
		{Name: "zeKernelSetArgumentValue", Addr: &l.kernelSetArgumentValue},
		{Name: "zeKernelGetProperties", Addr: &l.kernelGetProperties},
		{Name: "zeKernelSetGlobalOffsetExp", Addr: &l.kernelSetGlobalOffsetExp, Optional: true},
		{Name: "zeKernelSuggestMaxCooperativeGroupCount", Addr: &l.kernelSuggestMaxCoop},
	}
}

// LibraryName returns the file name the loader was opened under.
func (l *Lib) LibraryName() string { return l.lib.Name }

// Close unloads the library. No method may be called afterwards, nor may
// any object created through it be used. Long-lived programs keep the
// loader loaded: unloading a driver that has started threads is not safe.
func (l *Lib) Close() error {
	if l == nil || l.lib == nil {
		return nil
	}
	return l.lib.Close()
}

// HasInitDrivers reports whether the loader exports zeInitDrivers
// (spec 1.10).
func (l *Lib) HasInitDrivers() bool { return l.initDrivers != 0 }

// HasCommandListHostSynchronize reports whether the loader exports
// zeCommandListHostSynchronize (spec 1.6).
func (l *Lib) HasCommandListHostSynchronize() bool { return l.commandListHostSynchronize != 0 }

// HasGlobalTimestamps reports whether the loader exports
// zeDeviceGetGlobalTimestamps.
func (l *Lib) HasGlobalTimestamps() bool { return l.deviceGetGlobalTimestamps != 0 }

// HasKernelSetGlobalOffset reports whether the loader exports
// zeKernelSetGlobalOffsetExp. The driver may still answer
// ErrorUnsupportedFeature when it lacks ZE_experimental_global_offset.
func (l *Lib) HasKernelSetGlobalOffset() bool { return l.kernelSetGlobalOffsetExp != 0 }

// call calls fn with f's arguments and returns its result and the output
// slots. A zero fn (an optional entry point the loader lacks) gives
// NotSupported without a call.
func call(f *dl.Frame, fn uintptr) (r Result, out [4]uint64) {
	if fn == 0 {
		f.Release()
		return NotSupported, out
	}
	r1, out, _ := f.Call(fn)
	return result(r1), out
}

// result converts a ze_result_t return register: only the low 32 bits are
// defined by the C ABI.
func result(r uintptr) Result { return Result(uint32(r)) }

// call1 runs a function of one handle, such as zeContextDestroy.
func call1(fn, h uintptr) Result {
	f := dl.NewFrame()
	f.Args[0] = h
	r, _ := call(f, fn)
	return r
}

// Stub returns a table whose every entry point, optional ones included,
// is the C function at fn, for tests of the adapter's logic on machines
// without a driver: with a function that ignores its arguments and
// returns 0 (libc's sched_yield), every call succeeds and leaves its
// outputs zero. It opens no library.
func Stub(fn uintptr) *Lib {
	l := &Lib{lib: &dl.Library{Name: "stub"}}
	for _, s := range l.symbols() {
		*s.Addr = fn
	}
	return l
}
