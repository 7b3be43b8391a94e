package levelzero

import (
	"fmt"
	"strings"
	"sync"

	"github.com/gour-dev/gour/internal/dl"

	"github.com/gour-dev/gour/adapters/levelzero/internal/ze"
	"github.com/gour-dev/gour/ur/driver"
)

// Name is the backend name the adapter registers under.
const Name = "level_zero"

func init() { driver.Register(Name, Open) }

// vendorIntel is the PCI vendor id of Intel devices.
const vendorIntel = 0x8086

// inOrderAPIVersion is the first driver API version whose immediate
// command lists take ZE_COMMAND_QUEUE_FLAG_IN_ORDER (the 1.8 loader's
// headers, spec 1.4, do not define it; spec 1.9 does). Older drivers get a
// barrier between commands instead.
var inOrderAPIVersion = ze.MakeVersion(1, 9)

type adapter struct {
	ze        *ze.Lib
	platforms []driver.Platform
}

// platform is one Level Zero driver.
type platform struct {
	a       *adapter
	handle  ze.Driver
	api     ze.APIVersion
	version uint32 // ze_driver_properties_t.driverVersion
	info    driver.PlatformInfo
	devices []driver.Device
	// Driver features the adapter uses when present.
	inOrderLists  bool // ZE_COMMAND_QUEUE_FLAG_IN_ORDER
	moduleProgram bool // ZE_experimental_module_program (Link)
}

// device is one root device of a driver.
type device struct {
	p      *platform
	handle ze.Device
	info   driver.DeviceInfo

	computeOrdinal  uint32  // the command queue group with compute
	maxFillPattern  uintptr // of that group
	cooperative     bool    // that group runs cooperative kernels
	subGroupSizes   []uint32
	maxGroupSize    [3]uint32
	maxGroupCount   [3]uint32
	maxTotalGroup   uint32
	threadsPerEU    uint32
	hardwareThreads uint32 // EUs × threads per EU
	timerNS         uint64 // nanoseconds per timestamp tick, rounded
	timerHz         uint64 // ticks per second where the driver says (API 1.2+), else 0
	kernelTSBits    uint32 // valid bits of kernel timestamps

	// Sub-devices (subdevice.go): parent is set for one; subs are a root
	// device's, listed once, as the driver keeps them for its life.
	parent  *device
	subOnce sync.Once
	subs    []driver.Device
	subErr  error
}

// Open loads the Level Zero loader, initialises its drivers and lists their
// devices. A machine without the loader, or with the loader but no driver
// or device, gets driver.ErrNotAvailable with the reason and the loader's
// code.
func Open() (driver.Adapter, error) { return open(ze.LibraryNames) }

// open is Open over the given library names; tests pass names that do not
// exist to run the missing-loader path.
func open(libraryNames []string) (driver.Adapter, error) {
	lib, err := ze.LoadFrom(libraryNames...)
	if err != nil {
		return nil, driver.NotAvailable("%s: %v", Name, err)
	}
	// On failure the loader stays loaded: zeInit may have started loading
	// drivers, and unloading a library that did is not safe. ur discovery
	// opens an adapter once per process.
	drivers, err := initDrivers(lib)
	if err != nil {
		return nil, err
	}
	a := &adapter{ze: lib}
	var reasons []string
	for i, h := range drivers {
		p, err := a.openPlatform(h)
		if err != nil {
			reasons = append(reasons, fmt.Sprintf("driver %d: %v", i, err))
			continue
		}
		if len(p.devices) == 0 {
			reasons = append(reasons, fmt.Sprintf("driver %d: no device", i))
			continue
		}
		a.platforms = append(a.platforms, p)
	}
	if len(a.platforms) == 0 {
		return nil, driver.NotAvailable("%s: no driver/device (%d driver(s): %s)", Name, len(drivers), strings.Join(reasons, "; "))
	}
	return a, nil
}

// initDrivers initialises the GPU drivers: with zeInitDrivers when the
// loader has it (spec 1.10), else, or when it finds none, with zeInit and
// zeDriverGet. Without a driver the reason names the loader's codes.
func initDrivers(lib *ze.Lib) ([]ze.Driver, error) {
	var why []string
	if lib.HasInitDrivers() {
		ds, r := lib.InitDrivers(ze.InitDriverTypeFlagGPU)
		if r == ze.Success && len(ds) > 0 {
			return ds, nil
		}
		why = append(why, fmt.Sprintf("zeInitDrivers: %v, %d drivers", r, len(ds)))
	} else {
		why = append(why, lib.LibraryName()+" has no zeInitDrivers")
	}
	if r := lib.Init(ze.InitFlagGPUOnly); r != ze.Success {
		why = append([]string{fmt.Sprintf("zeInit: %v", r)}, why...)
		return nil, driver.NotAvailable("%s: no driver/device (%s)", Name, strings.Join(why, "; "))
	}
	ds, r := lib.DriverGet()
	if r != ze.Success || len(ds) == 0 {
		why = append([]string{fmt.Sprintf("zeInit succeeded; zeDriverGet: %v, %d drivers", r, len(ds))}, why...)
		return nil, driver.NotAvailable("%s: no driver/device (%s)", Name, strings.Join(why, "; "))
	}
	return ds, nil
}

func (a *adapter) openPlatform(h ze.Driver) (*platform, error) {
	l := a.ze
	api, r := l.DriverGetAPIVersion(h)
	if err := check("zeDriverGetApiVersion", r); err != nil {
		return nil, err
	}
	props, r := l.DriverGetProperties(h)
	if err := check("zeDriverGetProperties", r); err != nil {
		return nil, err
	}
	exts, _ := l.DriverGetExtensionProperties(h)
	names := make([]string, 0, len(exts))
	p := &platform{a: a, handle: h, api: api, version: props.DriverVersion}
	for _, e := range exts {
		n := dl.BufString(e.Name[:])
		names = append(names, n)
		if n == "ZE_experimental_module_program" {
			p.moduleProgram = true
		}
	}
	p.inOrderLists = api >= inOrderAPIVersion
	devs, r := l.DeviceGet(h)
	if err := check("zeDeviceGet", r); err != nil {
		return nil, err
	}
	p.info = driver.PlatformInfo{
		Name:       "Level-Zero",
		Vendor:     "unknown",
		Version:    fmt.Sprintf("%d.%d", api.Major(), api.Minor()),
		Profile:    "FULL_PROFILE",
		Extensions: strings.Join(names, " "),
	}
	for _, dh := range devs {
		d, err := p.openDevice(dh)
		if err != nil {
			return nil, err
		}
		p.devices = append(p.devices, d)
	}
	if len(p.devices) > 0 {
		first := p.devices[0].(*device)
		p.info.Vendor = first.info.Vendor
		if first.info.VendorID == vendorIntel {
			p.info.Name = "Intel(R) Level-Zero"
		}
	}
	return p, nil
}

// driverVersionString formats ze_driver_properties_t.driverVersion as
// Intel's drivers encode it: major (8 bits), minor (8), build (16).
func driverVersionString(v uint32) string {
	return fmt.Sprintf("%d.%d.%d", v>>24, v>>16&0xff, v&0xffff)
}

func (p *platform) openDevice(h ze.Device) (*device, error) {
	l := p.a.ze
	props, r := l.DeviceGetProperties(h)
	if err := check("zeDeviceGetProperties", r); err != nil {
		return nil, err
	}
	compute, r := l.DeviceGetComputeProperties(h)
	if err := check("zeDeviceGetComputeProperties", r); err != nil {
		return nil, err
	}
	module, r := l.DeviceGetModuleProperties(h)
	if err := check("zeDeviceGetModuleProperties", r); err != nil {
		return nil, err
	}
	groups, r := l.DeviceGetCommandQueueGroupProperties(h)
	if err := check("zeDeviceGetCommandQueueGroupProperties", r); err != nil {
		return nil, err
	}
	mems, r := l.DeviceGetMemoryProperties(h)
	if err := check("zeDeviceGetMemoryProperties", r); err != nil {
		return nil, err
	}
	d := &device{p: p, handle: h, computeOrdinal: ^uint32(0)}
	for i, g := range groups {
		if g.Flags&ze.CommandQueueGroupPropertyFlagCompute != 0 {
			d.computeOrdinal, d.maxFillPattern = uint32(i), g.MaxMemoryFillPatternSize
			d.cooperative = g.Flags&ze.CommandQueueGroupPropertyFlagCooperativeKernels != 0
			break
		}
	}
	if d.computeOrdinal == ^uint32(0) {
		return nil, driver.Errorf(driver.ResultDeviceNotAvailable, "device %q has no compute command queue group", dl.BufString(props.Name[:]))
	}
	var globalMem uint64
	for _, m := range mems {
		globalMem += m.TotalSize
	}
	eus := props.NumEUsPerSubslice * props.NumSubslicesPerSlice * props.NumSlices
	d.threadsPerEU = props.NumThreadsPerEU
	d.hardwareThreads = eus * props.NumThreadsPerEU
	d.maxGroupSize = [3]uint32{compute.MaxGroupSizeX, compute.MaxGroupSizeY, compute.MaxGroupSizeZ}
	d.maxGroupCount = [3]uint32{compute.MaxGroupCountX, compute.MaxGroupCountY, compute.MaxGroupCountZ}
	d.maxTotalGroup = compute.MaxTotalGroupSize
	d.subGroupSizes = append([]uint32(nil), compute.SubGroupSizes[:min(compute.NumSubGroupSizes, ze.SubgroupSizeCount)]...)
	d.timerNS = max(props.TimerResolution, 1)
	if p.api >= ze.MakeVersion(1, 2) {
		if hz, r := l.DeviceTimerFrequency(h); r == ze.Success && hz > 0 {
			d.timerHz = hz
			d.timerNS = max((1_000_000_000+hz/2)/hz, 1)
		}
	}
	d.kernelTSBits = props.KernelTimestampValidBits
	usm := usmSupport(l.DeviceGetMemoryAccessProperties(h))
	fp64 := module.FP64Flags != 0 || module.Flags&ze.DeviceModuleFlagFP64 != 0
	fp16 := module.FP16Flags != 0 || module.Flags&ze.DeviceModuleFlagFP16 != 0
	d.info = driver.DeviceInfo{
		Type:             deviceType(props.Type),
		Name:             dl.BufString(props.Name[:]),
		Vendor:           vendorName(props.VendorID),
		VendorID:         props.VendorID,
		DeviceVersion:    fmt.Sprintf("Level Zero %d.%d, device id %#04x", p.api.Major(), p.api.Minor(), props.DeviceID),
		DriverVersion:    driverVersionString(p.version),
		LanguageVersion:  spirvVersion(module.SpirvVersionSupported),
		ComputeUnits:     eus,
		MaxClockMHz:      props.CoreClockRate,
		GlobalMemSize:    globalMem,
		LocalMemSize:     uint64(compute.MaxSharedLocalMemory),
		MaxMemAllocSize:  props.MaxMemAllocSize,
		MaxWorkGroupSize: uint64(compute.MaxTotalGroupSize),
		MaxWorkItemSizes: [3]uint64{uint64(compute.MaxGroupSizeX), uint64(compute.MaxGroupSizeY), uint64(compute.MaxGroupSizeZ)},
		AddressBits:      64,
		FP64:             fp64,
		FP16:             fp16,
		ILVersions:       ilVersions(module.SpirvVersionSupported),
		Extensions:       p.info.Extensions,
		UUID:             uuidString(props.UUID.ID),
		// What Intel's Unified Runtime adapter reports for its GPUs.
		PreferredVectorWidths: [7]uint32{16, 8, 4, 1, 1, boolWidth(fp64, 1), boolWidth(fp16, 8)},
		NativeVectorWidths:    [7]uint32{16, 8, 4, 1, 1, boolWidth(fp64, 1), boolWidth(fp16, 8)},
		ProfilingResolutionNS: d.timerNS,
		// Intel's Unified Runtime adapter reports 8 bits: Level Zero
		// sets sub-buffers (pointers) at any byte.
		MemBaseAddrAlign: 1,
		// An integrated GPU, as a CPU device, uses the host's memory.
		HostUnifiedMemory: props.Flags&ze.DevicePropertyFlagIntegrated != 0 || props.Type == ze.DeviceTypeCPU,
		USM:               usm,
		Native:            uintptr(h),
	}
	return d, nil
}

// usmSupport reads zeDeviceGetMemoryAccessProperties: a kind of
// allocation whose capabilities are zero is one the device lacks. Shared
// allocations are single-device ones, which is what USMAlloc makes. A
// failing query leaves the device usable, without USM.
func usmSupport(p *ze.DeviceMemoryAccessProperties, r ze.Result) driver.USMSupport {
	if r != ze.Success {
		return driver.USMSupport{Missing: fmt.Sprintf("zeDeviceGetMemoryAccessProperties: %v", r)}
	}
	u := driver.USMSupport{
		Device: p.DeviceAllocCapabilities != 0,
		Host:   p.HostAllocCapabilities != 0,
		Shared: p.SharedSingleDeviceAllocCapabilities != 0,
	}
	var missing []string
	for _, k := range []struct {
		has  bool
		name string
	}{{u.Device, "device"}, {u.Host, "host"}, {u.Shared, "shared"}} {
		if !k.has {
			missing = append(missing, k.name)
		}
	}
	if u.Device || u.Host || u.Shared {
		u.Via = "level_zero"
	}
	if len(missing) > 0 {
		u.Missing = "zeDeviceGetMemoryAccessProperties reports no " + strings.Join(missing, ", ") + " allocation capabilities"
	}
	return u
}

func deviceType(t ze.DeviceType) driver.DeviceType {
	switch t {
	case ze.DeviceTypeGPU:
		return driver.DeviceTypeGPU
	case ze.DeviceTypeCPU:
		return driver.DeviceTypeCPU
	case ze.DeviceTypeFPGA, ze.DeviceTypeVPU:
		return driver.DeviceTypeAccelerator
	}
	return driver.DeviceTypeOther
}

func vendorName(id uint32) string {
	if id == vendorIntel {
		return "Intel(R) Corporation"
	}
	return fmt.Sprintf("vendor %#04x", id)
}

// spirvVersion formats a ZE_MAKE_VERSION SPIR-V version: "SPIR-V 1.4".
func spirvVersion(v ze.APIVersion) string {
	if v == 0 {
		return ""
	}
	return fmt.Sprintf("SPIR-V %d.%d", v.Major(), v.Minor())
}

// ilVersions lists every SPIR-V version up to the supported one, as
// OpenCL's CL_DEVICE_IL_VERSION does: "SPIR-V_1.0 SPIR-V_1.1 ...".
func ilVersions(v ze.APIVersion) string {
	if v.Major() != 1 {
		if v == 0 {
			return ""
		}
		return fmt.Sprintf("SPIR-V_%d.%d", v.Major(), v.Minor())
	}
	var out []string
	for minor := uint32(0); minor <= v.Minor(); minor++ {
		out = append(out, fmt.Sprintf("SPIR-V_1.%d", minor))
	}
	return strings.Join(out, " ")
}

func uuidString(id [16]byte) string {
	if id == [16]byte{} {
		return ""
	}
	return fmt.Sprintf("%x-%x-%x-%x-%x", id[0:4], id[4:6], id[6:8], id[8:10], id[10:16])
}

func boolWidth(ok bool, w uint32) uint32 {
	if ok {
		return w
	}
	return 0
}

func (a *adapter) Name() string                          { return Name }
func (a *adapter) Platforms() ([]driver.Platform, error) { return a.platforms, nil }
func (p *platform) Info() driver.PlatformInfo            { return p.info }
func (p *platform) Devices() ([]driver.Device, error)    { return p.devices, nil }
func (d *device) Info() (driver.DeviceInfo, error)       { return d.info, nil }
