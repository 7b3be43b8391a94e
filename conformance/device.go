package conformance

import (
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/gour-dev/gour/ur"
	"github.com/gour-dev/gour/ur/driver"
)

// TestDeviceInfo checks that every field a device must report is there and
// sane.
func TestDeviceInfo(t *testing.T) {
	forEachDevice(t, func(t *testing.T, f *Fixture) {
		info := f.Device.Info()
		nonEmpty := func(name, v string) func(t *testing.T) {
			return func(t *testing.T) {
				if strings.TrimSpace(v) == "" {
					t.Errorf("%s is empty", name)
				}
			}
		}
		positive := func(name string, v uint64) func(t *testing.T) {
			return func(t *testing.T) {
				if v == 0 {
					t.Errorf("%s = 0, want > 0", name)
				}
			}
		}
		rows := []struct {
			name string
			fn   func(t *testing.T)
		}{
			{"Name", nonEmpty("Name", info.Name)},
			{"Vendor", nonEmpty("Vendor", info.Vendor)},
			{"DeviceVersion", nonEmpty("DeviceVersion", info.DeviceVersion)},
			{"DriverVersion", nonEmpty("DriverVersion", info.DriverVersion)},
			{"LanguageVersion", nonEmpty("LanguageVersion", info.LanguageVersion)},
			{"ComputeUnits", positive("ComputeUnits", uint64(info.ComputeUnits))},
			{"GlobalMemSize", positive("GlobalMemSize", info.GlobalMemSize)},
			{"LocalMemSize", positive("LocalMemSize", info.LocalMemSize)},
			{"MaxWorkGroupSize", positive("MaxWorkGroupSize", info.MaxWorkGroupSize)},
			{"MaxMemAllocSize", func(t *testing.T) {
				if info.MaxMemAllocSize == 0 || info.MaxMemAllocSize > info.GlobalMemSize {
					t.Errorf("MaxMemAllocSize = %d, want in (0, GlobalMemSize=%d]", info.MaxMemAllocSize, info.GlobalMemSize)
				}
			}},
			{"MaxWorkItemSizes", func(t *testing.T) {
				for i, n := range info.MaxWorkItemSizes {
					if n == 0 {
						t.Errorf("MaxWorkItemSizes[%d] = 0 (%v)", i, info.MaxWorkItemSizes)
					}
				}
				if info.MaxWorkItemSizes[0] > info.MaxWorkGroupSize*1024 {
					t.Errorf("MaxWorkItemSizes %v implausible for MaxWorkGroupSize %d", info.MaxWorkItemSizes, info.MaxWorkGroupSize)
				}
			}},
			{"AddressBits", func(t *testing.T) {
				if info.AddressBits != 32 && info.AddressBits != 64 {
					t.Errorf("AddressBits = %d, want 32 or 64", info.AddressBits)
				}
			}},
			{"Type", func(t *testing.T) {
				switch info.Type {
				case ur.DeviceTypeCPU, ur.DeviceTypeGPU, ur.DeviceTypeAccelerator, ur.DeviceTypeOther:
				default:
					t.Errorf("Type = %d, not a known device type", info.Type)
				}
				if f.Device.Type() != info.Type {
					t.Errorf("Device.Type() = %v, Info().Type = %v", f.Device.Type(), info.Type)
				}
			}},
			{"Native", func(t *testing.T) {
				if f.Backend == "cuda" {
					// A CUdevice is the device's ordinal, so the first
					// device's handle is 0.
					if info.Native > 1<<16 {
						t.Errorf("Native handle %#x is not a CUdevice ordinal", info.Native)
					}
					return
				}
				if info.Native == 0 {
					t.Errorf("Native handle is 0")
				}
			}},
			{"NameMatches", func(t *testing.T) {
				if f.Device.Name() != info.Name {
					t.Errorf("Device.Name() = %q, Info().Name = %q", f.Device.Name(), info.Name)
				}
			}},
			{"Backend", func(t *testing.T) {
				if !slices.Contains(driver.Registered(), f.Device.Backend()) {
					t.Errorf("Backend() = %q, not the name of a registered adapter (%v)", f.Device.Backend(), driver.Registered())
				}
			}},
			{"FP64MatchesExtensions", func(t *testing.T) {
				if !strings.Contains(info.Extensions, "cl_khr_") {
					t.Skipf("the device lists no OpenCL extension (cl_khr_*): the check is OpenCL's")
				}
				if has := strings.Contains(info.Extensions, "cl_khr_fp64"); has != info.FP64 {
					t.Errorf("FP64 = %v but cl_khr_fp64 in extensions = %v", info.FP64, has)
				}
			}},
		}
		for _, r := range rows {
			f.Run(t, r.name, r.fn)
		}
	})
}

var deviceStringRE = regexp.MustCompile(`^\[([a-z_]+):(cpu|gpu|fpga|other)\]\[([a-z_]+):(\d+)\] .+, .+ \[.*\]$`)

func TestDeviceString(t *testing.T) {
	forEachDevice(t, func(t *testing.T, f *Fixture) {
		s := f.Device.String()
		m := deviceStringRE.FindStringSubmatch(s)
		if m == nil {
			t.Fatalf("String() = %q, want the sycl-ls form [opencl:cpu][opencl:0] Platform, Device Version [Driver]", s)
		}
		if m[1] != f.Backend || m[3] != f.Backend || m[2] != f.Device.Type().String() {
			t.Errorf("String() = %q: backend or type wrong (want %s, %s)", s, f.Backend, f.Device.Type())
		}
		if !strings.Contains(s, f.Device.Name()) || !strings.Contains(s, f.Device.Platform().Info().Name) {
			t.Errorf("String() = %q does not name the device %q and platform %q", s, f.Device.Name(), f.Device.Platform().Info().Name)
		}
	})
}
