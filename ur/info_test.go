package ur_test

import (
	"errors"
	"testing"

	"github.com/gour-dev/gour/internal/harness/testenv"
	"github.com/gour-dev/gour/ur"
)

// TestDeviceQuery asks every device every query: each answers with a value
// of the query's kind or a typed unsupported error, never a zero value
// passed off as an answer, and the values agree with DeviceInfo.
func TestDeviceQuery(t *testing.T) {
	for _, d := range testenv.Devices(t) {
		t.Run(d.Backend()+"/"+d.Name(), func(t *testing.T) {
			answered := 0
			for _, r := range d.QueryAll() {
				if r.Err != nil {
					if !errors.Is(r.Err, ur.ErrUnsupportedFeature) || !errors.Is(r.Err, ur.ErrUnsupportedEnumeration) {
						t.Errorf("%s: %v, want an unsupported error", r.Query, r.Err)
					}
					continue
				}
				answered++
				if !kindMatches(r.Kind, r.Value) {
					t.Errorf("%s: %T for kind %s", r.Query, r.Value, r.Kind)
				}
			}
			t.Logf("%d of %d queries answered", answered, len(ur.DeviceQueries()))
			if answered < 40 {
				t.Errorf("only %d queries answered", answered)
			}
			info := d.Info()
			if n, err := d.QueryString(ur.DeviceInfoName); err != nil || n != info.Name {
				t.Errorf("NAME = %q, %v; want %q", n, err, info.Name)
			}
			if n, err := d.QueryUint(ur.DeviceInfoMaxComputeUnits); err != nil || n != uint64(info.ComputeUnits) {
				t.Errorf("MAX_COMPUTE_UNITS = %d, %v; want %d", n, err, info.ComputeUnits)
			}
			if n, err := d.QueryUint(ur.DeviceInfoGlobalMemSize); err != nil || n != info.GlobalMemSize {
				t.Errorf("GLOBAL_MEM_SIZE = %d, %v; want %d", n, err, info.GlobalMemSize)
			}
			if p, err := d.Query(ur.DeviceInfoPlatform); err != nil || p.(*ur.Platform) != d.Platform() {
				t.Errorf("PLATFORM = %v, %v", p, err)
			}
			if b, err := d.QueryBool(ur.DeviceInfoAvailable); err != nil || !b {
				t.Errorf("AVAILABLE = %v, %v", b, err)
			}
		})
	}
}

func kindMatches(k ur.QueryKind, v any) bool {
	switch k {
	case ur.QueryUint32, ur.QueryEnum:
		_, ok := v.(uint32)
		return ok
	case ur.QueryUint64, ur.QueryFlags:
		_, ok := v.(uint64)
		return ok
	case ur.QueryBool:
		_, ok := v.(bool)
		return ok
	case ur.QueryString:
		_, ok := v.(string)
		return ok
	case ur.QueryUint64s:
		_, ok := v.([]uint64)
		return ok
	case ur.QueryUint32s:
		_, ok := v.([]uint32)
		return ok
	case ur.QueryBytes:
		_, ok := v.([]byte)
		return ok
	case ur.QueryHandle:
		switch v.(type) {
		case *ur.Platform, *ur.Device:
			return true
		}
	}
	return false
}

// TestDeviceQueryBadInput: a number that is no query, a query of another
// kind for a typed accessor, a nil and a released device are typed
// errors.
func TestDeviceQueryBadInput(t *testing.T) {
	var nilDev *ur.Device
	if _, err := nilDev.Query(ur.DeviceInfoName); !errors.Is(err, ur.ErrInvalidNullHandle) {
		t.Errorf("nil device: %v", err)
	}
	devs := testenv.Devices(t)
	d := devs[0]
	if _, err := d.Query(ur.DeviceQuery(0x7777)); !errors.Is(err, ur.ErrInvalidEnumeration) {
		t.Errorf("unknown query: %v", err)
	}
	if _, err := d.QueryString(ur.DeviceInfoMaxComputeUnits); !errors.Is(err, ur.ErrInvalidValue) {
		t.Errorf("QueryString of a uint32: %v", err)
	}
	if _, err := d.QueryUint(ur.DeviceInfoName); !errors.Is(err, ur.ErrInvalidValue) {
		t.Errorf("QueryUint of a string: %v", err)
	}
	if _, err := d.QueryBool(ur.DeviceInfoName); !errors.Is(err, ur.ErrInvalidValue) {
		t.Errorf("QueryBool of a string: %v", err)
	}
	if _, err := d.Query(ur.DeviceInfoCompositeDevice); !errors.Is(err, ur.ErrUnsupportedFeature) {
		t.Errorf("COMPOSITE_DEVICE: %v", err)
	}
	if got := ur.DeviceInfoMaxComputeUnits.String(); got != "UR_DEVICE_INFO_MAX_COMPUTE_UNITS" {
		t.Errorf("String = %q", got)
	}
}
