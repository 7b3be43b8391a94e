package conformance

import (
	"errors"
	"strings"
	"testing"

	"github.com/gour-dev/gour/ur"
)

// The cases of this file are the Unified Runtime CTS's urDeviceGetInfo
// tests: one sub-test per ur_device_info_t query, which passes when the
// device answers with a value of the query's kind that agrees with what
// else gour knows of the device, and skips, after checking the error is
// the typed unsupported one, when the device cannot answer.

// TestDeviceQueries asks every query of ur.DeviceQueries.
func TestDeviceQueries(t *testing.T) {
	forEachDevice(t, func(t *testing.T, f *Fixture) {
		for _, qi := range ur.DeviceQueries() {
			f.Run(t, qi.Name, func(t *testing.T) {
				v, err := f.Device.Query(qi.Query)
				if err != nil {
					if !errors.Is(err, ur.ErrUnsupportedFeature) || !errors.Is(err, ur.ErrUnsupportedEnumeration) {
						t.Fatalf("%s: %v, want a value or an unsupported error", qi.Query, err)
					}
					t.Skipf("unsupported: %v", err)
				}
				checkQueryValue(t, f, qi, v)
			})
		}
	})
}

// checkQueryValue checks a value's type against the query's kind and, for
// the queries gour knows otherwise, its value.
func checkQueryValue(t *testing.T, f *Fixture, qi ur.DeviceQueryInfo, v any) {
	t.Helper()
	info := f.Device.Info()
	switch qi.Kind {
	case ur.QueryUint32, ur.QueryEnum:
		if _, ok := v.(uint32); !ok {
			t.Fatalf("%s = %T, want uint32", qi.Query, v)
		}
	case ur.QueryUint64, ur.QueryFlags:
		if _, ok := v.(uint64); !ok {
			t.Fatalf("%s = %T, want uint64", qi.Query, v)
		}
	case ur.QueryBool:
		if _, ok := v.(bool); !ok {
			t.Fatalf("%s = %T, want bool", qi.Query, v)
		}
	case ur.QueryString:
		if _, ok := v.(string); !ok {
			t.Fatalf("%s = %T, want string", qi.Query, v)
		}
	case ur.QueryUint64s:
		if _, ok := v.([]uint64); !ok {
			t.Fatalf("%s = %T, want []uint64", qi.Query, v)
		}
	case ur.QueryUint32s:
		if _, ok := v.([]uint32); !ok {
			t.Fatalf("%s = %T, want []uint32", qi.Query, v)
		}
	case ur.QueryBytes:
		if _, ok := v.([]byte); !ok {
			t.Fatalf("%s = %T, want []byte", qi.Query, v)
		}
	}
	num := func() uint64 {
		switch x := v.(type) {
		case uint32:
			return uint64(x)
		case uint64:
			return x
		}
		return 0
	}
	positive := func() {
		if num() == 0 {
			t.Errorf("%s = 0, want > 0", qi.Query)
		}
	}
	equal := func(want uint64) {
		if num() != want {
			t.Errorf("%s = %d, DeviceInfo says %d", qi.Query, num(), want)
		}
	}
	switch qi.Query {
	case ur.DeviceInfoName:
		if v != info.Name {
			t.Errorf("NAME = %q, DeviceInfo.Name %q", v, info.Name)
		}
	case ur.DeviceInfoVendor, ur.DeviceInfoDriverVersion, ur.DeviceInfoVersion:
		if strings.TrimSpace(v.(string)) == "" {
			t.Errorf("%s is empty", qi.Query)
		}
	case ur.DeviceInfoVendorID:
		equal(uint64(info.VendorID))
	case ur.DeviceInfoMaxComputeUnits:
		equal(uint64(info.ComputeUnits))
	case ur.DeviceInfoMaxWorkGroupSize:
		equal(info.MaxWorkGroupSize)
	case ur.DeviceInfoGlobalMemSize:
		if f.Backend != "level_zero" { // Level Zero sums its memories
			equal(info.GlobalMemSize)
		}
		positive()
	case ur.DeviceInfoMaxMemAllocSize, ur.DeviceInfoLocalMemSize, ur.DeviceInfoMaxWorkItemDimensions,
		ur.DeviceInfoAddressBits, ur.DeviceInfoProfilingTimerResolution:
		positive()
	case ur.DeviceInfoMaxWorkItemSizes:
		s := v.([]uint64)
		if len(s) < 3 || s[0] != info.MaxWorkItemSizes[0] {
			t.Errorf("MAX_WORK_ITEM_SIZES = %v, DeviceInfo %v", s, info.MaxWorkItemSizes)
		}
	case ur.DeviceInfoType:
		want := map[ur.DeviceType]uint64{ur.DeviceTypeGPU: 3, ur.DeviceTypeCPU: 4, ur.DeviceTypeAccelerator: 5}[info.Type]
		if want != 0 {
			equal(want)
		}
	case ur.DeviceInfoAvailable:
		if v != true {
			t.Error("AVAILABLE is false for a device discovery listed")
		}
	case ur.DeviceInfoPlatform:
		if p, _ := v.(*ur.Platform); p != f.Device.Platform() {
			t.Errorf("PLATFORM = %v", v)
		}
	case ur.DeviceInfoParentDevice:
		if p, _ := v.(*ur.Device); p != f.Device.Parent() {
			t.Errorf("PARENT_DEVICE = %v, Parent %v", p, f.Device.Parent())
		}
	case ur.DeviceInfoUUID:
		if len(v.([]byte)) != 16 {
			t.Errorf("UUID has %d bytes, want 16", len(v.([]byte)))
		}
	case ur.DeviceInfoSingleFPConfig:
		// Every device that reports single precision rounds to nearest
		// (UR's bit 1); OpenCL requires infinities and NaNs too (bit 4).
		want := uint64(1 << 1)
		if f.Backend == "opencl" {
			want |= 1 << 4
		}
		if n := num(); n != 0 && n&want != want {
			t.Errorf("SINGLE_FP_CONFIG = %#x lacks ROUND_TO_NEAREST or INF_NAN: bits of another API?", n)
		}
	case ur.DeviceInfoGlobalMemFree:
		if num() > info.GlobalMemSize {
			t.Errorf("GLOBAL_MEM_FREE %d > GLOBAL_MEM_SIZE %d", num(), info.GlobalMemSize)
		}
	case ur.DeviceInfoMemBaseAddrAlign:
		if n := num(); n == 0 || n&(n-1) != 0 {
			t.Errorf("MEM_BASE_ADDR_ALIGN = %d, want a power of two", n)
		}
	case ur.DeviceInfoUSMDeviceSupport, ur.DeviceInfoUSMHostSupport, ur.DeviceInfoUSMSingleSharedSupport:
		has := map[ur.DeviceQuery]bool{ur.DeviceInfoUSMDeviceSupport: info.USM.Device,
			ur.DeviceInfoUSMHostSupport: info.USM.Host, ur.DeviceInfoUSMSingleSharedSupport: info.USM.Shared}[qi.Query]
		if has && num()&1 == 0 {
			t.Errorf("%s = %#x without ACCESS, but DeviceInfo.USM says %s", qi.Query, num(), info.USM)
		}
	}
}

// TestDeviceQueryBadInput: a number that is no query, a typed accessor of
// the wrong kind, a nil device.
func TestDeviceQueryBadInput(t *testing.T) {
	forEachDevice(t, func(t *testing.T, f *Fixture) {
		if _, err := f.Device.Query(ur.DeviceQuery(0x7fff_0000)); !errors.Is(err, ur.ErrInvalidEnumeration) {
			t.Errorf("unknown query: %v, want ErrInvalidEnumeration", err)
		}
		if _, err := f.Device.QueryString(ur.DeviceInfoMaxComputeUnits); !errors.Is(err, ur.ErrInvalidValue) {
			t.Errorf("QueryString(MAX_COMPUTE_UNITS): %v, want ErrInvalidValue", err)
		}
		if _, err := f.Device.QueryUint(ur.DeviceInfoName); !errors.Is(err, ur.ErrInvalidValue) {
			t.Errorf("QueryUint(NAME): %v, want ErrInvalidValue", err)
		}
		var nilDev *ur.Device
		if _, err := nilDev.Query(ur.DeviceInfoName); !errors.Is(err, ur.ErrInvalidNullHandle) {
			t.Errorf("nil device: %v, want ErrInvalidNullHandle", err)
		}
	})
}
