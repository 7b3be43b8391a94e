package bundle

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/gour-dev/gour/ur"
)

// Device describes a device as Select needs it. DescribeDevice fills it
// from a *ur.Device; tests and tools can write one by hand.
type Device struct {
	Backend string // "opencl", "cuda", "level_zero"
	// Arch is what native images are matched against: "sm_90" on CUDA,
	// the device ID ("0x0bd5") on Level Zero, the device name on OpenCL.
	Arch string
	// IL lists the intermediate languages the device JIT-compiles:
	// "SPIR-V 1.2" (or OpenCL's "SPIR-V_1.2"), "PTX".
	IL []string
	// Aspects are the optional features the device has.
	Aspects Aspects
	// SubGroupSizes are the sub-group sizes the device supports; empty
	// when unknown, in which case images requiring one are not refused.
	SubGroupSizes []uint32
}

// String is "cuda:sm_90" or "opencl:<name>".
func (d Device) String() string { return Target{Backend: d.Backend, Arch: d.Arch}.String() }

// DescribeDevice describes d from what its adapter reports.
func DescribeDevice(d *ur.Device) Device { return DescribeInfo(d.Backend(), d.Info()) }

// DescribeInfo describes a device of backend from its properties:
//
//   - CUDA: Arch is the compute capability (LanguageVersion, "sm_90"); PTX;
//     fp64, 64-bit atomics and sub-groups (warps of 32) everywhere, fp16
//     from sm_53;
//   - OpenCL: Arch is the device name; IL from CL_DEVICE_IL_VERSION;
//     aspects from FP64, FP16 and the extensions (cl_khr_int64_base_atomics,
//     cl_khr_subgroups or cl_intel_subgroups);
//   - Level Zero: Arch is the device ID from the device version
//     ("..., device id 0x0bd5"); IL from the SPIR-V version the driver
//     takes; 64-bit atomics and sub-groups on every Level Zero device.
func DescribeInfo(backend string, info ur.DeviceInfo) Device {
	d := Device{Backend: backend, IL: strings.Fields(info.ILVersions)}
	if info.FP64 {
		d.Aspects |= AspectFP64
	}
	if info.FP16 {
		d.Aspects |= AspectFP16
	}
	ext := " " + info.Extensions + " "
	switch backend {
	case BackendCUDA:
		d.Arch = info.LanguageVersion
		d.Aspects |= AspectFP64 | AspectInt64Atomics | AspectSubGroups
		d.SubGroupSizes = []uint32{32}
	case BackendOpenCL:
		d.Arch = info.Name
		if strings.Contains(ext, " cl_khr_int64_base_atomics ") {
			d.Aspects |= AspectInt64Atomics
		}
		if strings.Contains(ext, " cl_khr_subgroups ") || strings.Contains(ext, " cl_intel_subgroups ") {
			d.Aspects |= AspectSubGroups
		}
	case BackendLevelZero:
		if _, id, ok := strings.Cut(info.DeviceVersion, "device id "); ok {
			d.Arch = strings.ToLower(strings.TrimSpace(id))
		}
		// ILVersions lists every SPIR-V version the driver takes, as
		// OpenCL's does ("SPIR-V_1.0 SPIR-V_1.1 ..."): d.IL has them.
		d.Aspects |= AspectInt64Atomics | AspectSubGroups
	}
	return d
}

// ilCaps is what a device's IL list says it takes.
type ilCaps struct {
	ptx   bool
	spirv uint32 // highest SPIR-V version, as in a module's header (0x00010200 for 1.2); 0 for none
}

func parseIL(list []string) ilCaps {
	var c ilCaps
	for _, s := range list {
		if strings.EqualFold(s, "PTX") {
			c.ptx = true
			continue
		}
		v, ok := strings.CutPrefix(s, "SPIR-V")
		if !ok {
			continue
		}
		v = strings.TrimLeft(v, "_ ")
		if ver, ok := parseVersion(v); ok {
			c.spirv = max(c.spirv, ver)
		}
	}
	return c
}

// parseVersion reads "1.2" as a SPIR-V header version word, 0x00010200.
func parseVersion(s string) (uint32, bool) {
	maj, min, ok := strings.Cut(s, ".")
	if !ok {
		return 0, false
	}
	a, err1 := strconv.ParseUint(maj, 10, 8)
	b, err2 := strconv.ParseUint(min, 10, 8)
	if err1 != nil || err2 != nil {
		return 0, false
	}
	return uint32(a)<<16 | uint32(b)<<8, true
}

// spirvVersionString formats a header version word: "1.2".
func spirvVersionString(v uint32) string { return fmt.Sprintf("%d.%d", v>>16&0xff, v>>8&0xff) }
