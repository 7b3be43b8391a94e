package main

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/gour-dev/gour/cmd/internal/cli"
	"github.com/gour-dev/gour/internal/harness/testenv"
	"github.com/gour-dev/gour/ur"
	"github.com/gour-dev/gour/ur/driver"
)

// Two fake adapters registered only in this test binary: one with a device,
// one that never loads. Tests select them with UR_ADAPTERS_FORCE_LOAD, so
// the output does not depend on the machine.
const (
	fakeName   = "urinfo_fake"
	brokenName = "urinfo_broken"
	fakeReason = "libfake.so.1: cannot open shared object file"
)

var fakeInfo = driver.DeviceInfo{
	Type:                  driver.DeviceTypeGPU,
	Name:                  "Fake GPU",
	Vendor:                "gour",
	VendorID:              0x1234,
	DeviceVersion:         "Fake 1.0",
	DriverVersion:         "9.9",
	LanguageVersion:       "FakeC 1.0",
	ComputeUnits:          8,
	MaxClockMHz:           1500,
	GlobalMemSize:         8 << 30,
	LocalMemSize:          64 << 10,
	MaxMemAllocSize:       2 << 30,
	MaxWorkGroupSize:      1024,
	MaxWorkItemSizes:      [3]uint64{1024, 1024, 64},
	AddressBits:           64,
	FP64:                  true,
	FP16:                  false,
	ILVersions:            "SPIR-V_1.2",
	Extensions:            "fake_ext_a fake_ext_b",
	PreferredVectorWidths: [7]uint32{16, 8, 4, 2, 4, 2, 0},
	NativeVectorWidths:    [7]uint32{16, 8, 4, 2, 4, 2, 0},
	ProfilingResolutionNS: 1,
	MemBaseAddrAlign:      256,
	USM:                   driver.USMSupport{Device: true, Host: true, Via: "fake", Missing: "no migration"},
	Native:                0xdead0,
}

var fakePlatformInfo = driver.PlatformInfo{
	Name: "Fake Platform", Vendor: "gour", Version: "Fake 1.0", Profile: "FULL_PROFILE", Extensions: "fake_ext_a",
}

type fakeAdapter struct{}

func (fakeAdapter) Name() string { return fakeName }
func (fakeAdapter) Platforms() ([]driver.Platform, error) {
	return []driver.Platform{fakePlatform{}}, nil
}
func (fakeAdapter) NewContext([]driver.Device) (driver.Context, error) {
	return nil, driver.Errorf(driver.ResultUnsupportedFeature, "fake")
}

type fakePlatform struct{}

func (fakePlatform) Info() driver.PlatformInfo         { return fakePlatformInfo }
func (fakePlatform) Devices() ([]driver.Device, error) { return []driver.Device{fakeDevice{}}, nil }

type fakeDevice struct{}

func (fakeDevice) Info() (driver.DeviceInfo, error) { return fakeInfo, nil }
func (fakeDevice) FreeMemory() (free, total uint64, err error) {
	return 6 << 30, 8 << 30, nil
}

func init() {
	driver.Register(fakeName, func() (driver.Adapter, error) { return fakeAdapter{}, nil })
	driver.Register(brokenName, func() (driver.Adapter, error) {
		return nil, driver.NotAvailable("%s: %s", brokenName, fakeReason)
	})
}

// runUrinfo runs urinfo with args and returns its exit status and output.
func runUrinfo(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = run(args, &out, &errOut)
	return code, out.String(), errOut.String()
}

// useFakes makes discovery see only the fake adapters.
func useFakes(t *testing.T) {
	t.Setenv(ur.EnvForceLoad, fakeName+","+brokenName)
	t.Setenv(ur.EnvDeviceSelector, "")
}

const fakeLine = "[urinfo_fake:gpu][urinfo_fake:0] Fake Platform, Fake GPU Fake 1.0 [9.9]"

func TestDefaultListsDevicesAndMissingAdapters(t *testing.T) {
	useFakes(t)
	code, out, errOut := runUrinfo(t)
	if code != 0 {
		t.Fatalf("exit %d, stderr:\n%s", code, errOut)
	}
	if out != fakeLine+"\n" {
		t.Errorf("stdout = %q, want %q", out, fakeLine+"\n")
	}
	wantErr := brokenName + ": not available: " + fakeReason + "\n"
	if errOut != wantErr {
		t.Errorf("stderr = %q, want %q", errOut, wantErr)
	}
}

func TestJSON(t *testing.T) {
	useFakes(t)
	code, out, errOut := runUrinfo(t, "--json")
	if code != 0 {
		t.Fatalf("exit %d, stderr:\n%s", code, errOut)
	}
	var got struct {
		Devices []struct {
			Backend  string
			Index    int
			String   string
			Platform map[string]any
			Info     map[string]any
			Memory   struct{ Free, Total uint64 }
		}
		Adapters []struct {
			Name      string
			Available bool
			Reason    string
		}
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, out)
	}
	if len(got.Devices) != 1 {
		t.Fatalf("got %d devices, want 1:\n%s", len(got.Devices), out)
	}
	d := got.Devices[0]
	if d.Backend != fakeName || d.Index != 0 || d.String != fakeLine {
		t.Errorf("device = %q %d %q", d.Backend, d.Index, d.String)
	}
	wantInfo := map[string]any{
		"type":                    "gpu",
		"name":                    "Fake GPU",
		"vendor_id":               float64(0x1234),
		"max_clock_mhz":           float64(1500),
		"global_mem_size":         float64(8 << 30),
		"max_work_group_size":     float64(1024),
		"max_work_item_sizes":     []any{float64(1024), float64(1024), float64(64)},
		"fp64":                    true,
		"fp16":                    false,
		"il_versions":             "SPIR-V_1.2",
		"profiling_resolution_ns": float64(1),
		"mem_base_addr_align":     float64(256),
		"usm":                     map[string]any{"device": true, "host": true, "shared": false, "via": "fake", "missing": "no migration"},
		"native":                  float64(0xdead0),
	}
	if d.Memory.Free != 6<<30 || d.Memory.Total != 8<<30 {
		t.Errorf("memory = %+v, want 6 GiB free of 8 GiB", d.Memory)
	}
	for k, want := range wantInfo {
		if !reflect.DeepEqual(d.Info[k], want) {
			t.Errorf("info[%q] = %#v, want %#v", k, d.Info[k], want)
		}
	}
	if n := reflect.TypeFor[ur.DeviceInfo]().NumField(); len(d.Info) != n {
		t.Errorf("info has %d keys, ur.DeviceInfo has %d fields", len(d.Info), n)
	}
	if d.Platform["name"] != "Fake Platform" || d.Platform["profile"] != "FULL_PROFILE" {
		t.Errorf("platform = %v", d.Platform)
	}
	if len(got.Adapters) != 2 {
		t.Fatalf("got %d adapters, want 2: %+v", len(got.Adapters), got.Adapters)
	}
	for _, a := range got.Adapters {
		switch a.Name {
		case fakeName:
			if !a.Available || a.Reason != "" {
				t.Errorf("%s: available=%v reason=%q", a.Name, a.Available, a.Reason)
			}
		case brokenName:
			if a.Available || a.Reason != fakeReason {
				t.Errorf("%s: available=%v reason=%q, want reason %q", a.Name, a.Available, a.Reason, fakeReason)
			}
		default:
			t.Errorf("unexpected adapter %q", a.Name)
		}
	}
}

func TestJSONKeepsFieldOrder(t *testing.T) {
	b, err := json.Marshal(structFields(fakePlatformInfo))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"name":"Fake Platform","vendor":"gour","version":"Fake 1.0","profile":"FULL_PROFILE","extensions":"fake_ext_a"}`
	if string(b) != want {
		t.Errorf("got  %s\nwant %s", b, want)
	}
}

func TestJSONNoDevice(t *testing.T) {
	useFakes(t)
	t.Setenv(ur.EnvForceLoad, brokenName)
	code, out, errOut := runUrinfo(t, "--json")
	if code != cli.ExitFailure {
		t.Errorf("exit %d, want %d", code, cli.ExitFailure)
	}
	// The report all the same, with an empty list, not null, so that
	// consumers need no special case.
	if !strings.Contains(out, `"devices": []`) || !strings.Contains(out, fakeReason) {
		t.Errorf("no empty device list and adapter reason in:\n%s", out)
	}
	// The reason is in the JSON; standard error has only the failure.
	if want := "urinfo: no device: no adapter found one\n"; errOut != want {
		t.Errorf("stderr = %q, want %q", errOut, want)
	}
}

func TestVerbose(t *testing.T) {
	useFakes(t)
	code, out, errOut := runUrinfo(t, "--verbose")
	if code != 0 {
		t.Fatalf("exit %d, stderr:\n%s", code, errOut)
	}
	// The broken adapter's reason is in the report: once, not on stderr too.
	if errOut != "" {
		t.Errorf("stderr = %q, want nothing", errOut)
	}
	if n := strings.Count(out, fakeReason); n != 1 {
		t.Errorf("the adapter's reason is printed %d times, want once:\n%s", n, out)
	}
	for _, want := range []string{
		fakeLine + "\n",
		"  platform:\n    name: Fake Platform\n",
		"    type: gpu\n",
		"    global_mem_size: 8589934592 (8.0 GiB)\n",
		"    max_work_group_size: 1024\n",
		"    max_work_item_sizes: [1024 1024 64]\n",
		"    fp64: true\n",
		"    native: 0xdead0\n",
		"    usm: device host (via fake); missing: no migration\n",
		"  memory: 6.0 GiB free of 8.0 GiB\n",
		"    vendor_id: 4660 (0x1234)\n",
		"    preferred_vector_widths: char=16 short=8 int=4 long=2 float=4 double=2 half=0\n",
		"  " + fakeName + ": loaded\n",
		"  " + brokenName + ": not available: " + fakeReason + "\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("verbose output lacks %q:\n%s", want, out)
		}
	}
	for _, f := range reflect.VisibleFields(reflect.TypeFor[ur.DeviceInfo]()) {
		if !strings.Contains(out, "    "+snakeCase(f.Name)+":") {
			t.Errorf("verbose output lacks field %s", f.Name)
		}
	}
}

func TestBadEnvironment(t *testing.T) {
	for _, tc := range []struct{ name, value string }{
		{ur.EnvDeviceSelector, "bogus"},
		{ur.EnvDeviceSelector, "opencl:seven"},
		{ur.EnvForceLoad, "no_such_adapter"},
	} {
		t.Run(tc.name+"="+tc.value, func(t *testing.T) {
			t.Setenv(ur.EnvForceLoad, "")
			t.Setenv(ur.EnvDeviceSelector, "")
			t.Setenv(tc.name, tc.value)
			code, out, errOut := runUrinfo(t)
			if code != cli.ExitUsage {
				t.Errorf("exit %d, want %d", code, cli.ExitUsage)
			}
			if out != "" {
				t.Errorf("stdout = %q, want nothing", out)
			}
			if !strings.Contains(errOut, tc.name) {
				t.Errorf("stderr %q does not name %s", errOut, tc.name)
			}
		})
	}
}

func TestSelectorFiltersDevices(t *testing.T) {
	useFakes(t)
	// The fake GPU is the only device: *:gpu keeps it, *:cpu and cuda:*
	// leave none, which is a failure naming the selector and its source.
	for _, tc := range []struct {
		env  string
		args []string
		code int
		out  string
		err  string // the last line of stderr
	}{
		{"", []string{"--device", "*:gpu"}, cli.ExitOK, fakeLine + "\n", ""},
		{"*:gpu", nil, cli.ExitOK, fakeLine + "\n", ""},
		{"", []string{"--device", "cuda:*"}, cli.ExitFailure, "",
			`urinfo: no device: the selector "cuda:*" (the -device flag) matches none of the devices found: urinfo_fake:0 (gpu)`},
		{"cuda:*", nil, cli.ExitFailure, "",
			`urinfo: no device: the selector "cuda:*" (ONEAPI_DEVICE_SELECTOR) matches none of the devices found: urinfo_fake:0 (gpu)`},
		// The flag wins over the variable, both ways.
		{"*:gpu", []string{"-device", "*:cpu"}, cli.ExitFailure, "",
			`urinfo: no device: the selector "*:cpu" (the -device flag) matches none of the devices found: urinfo_fake:0 (gpu)`},
		{"*:cpu", []string{"-device", "*:gpu"}, cli.ExitOK, fakeLine + "\n", ""},
	} {
		t.Run(tc.env+" "+strings.Join(tc.args, " "), func(t *testing.T) {
			t.Setenv(ur.EnvDeviceSelector, tc.env)
			code, out, errOut := runUrinfo(t, tc.args...)
			if code != tc.code || out != tc.out {
				t.Errorf("exit %d, stdout %q; want %d, %q", code, out, tc.code, tc.out)
			}
			lines := strings.Split(strings.TrimSuffix(errOut, "\n"), "\n")
			if tc.err != "" && lines[len(lines)-1] != tc.err {
				t.Errorf("stderr:\n%s\nwant it to end with\n%s", errOut, tc.err)
			}
			if !strings.HasPrefix(errOut, brokenName+": not available: "+fakeReason+"\n") {
				t.Errorf("stderr does not start with the broken adapter's line:\n%s", errOut)
			}
		})
	}
}

func TestFlags(t *testing.T) {
	useFakes(t)
	for _, tc := range []struct {
		args []string
		code int
		out  string // substring of stdout
		err  string // substring of stderr
	}{
		{[]string{"--bogus"}, cli.ExitUsage, "", "urinfo: flag provided but not defined: -bogus\nrun 'urinfo -h' for usage\n"},
		{[]string{"--verbose", "--json"}, cli.ExitUsage, "", "urinfo: --verbose and --json cannot be used together\n"},
		{[]string{"extra"}, cli.ExitUsage, "", `urinfo: unexpected argument "extra"`},
		{[]string{"--device", "opencl:seven"}, cli.ExitUsage, "", `urinfo: the -device flag: bad selector term "opencl:seven"`},
		{[]string{"-h"}, cli.ExitOK, "usage: urinfo [--device SELECTOR] [--verbose | --json]\n", ""},
		{[]string{"--help"}, cli.ExitOK, "\nflags:\n", ""},
		{[]string{"-json=false"}, cli.ExitOK, fakeLine, ""},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			code, out, errOut := runUrinfo(t, tc.args...)
			if code != tc.code {
				t.Errorf("exit %d, want %d (stderr %q)", code, tc.code, errOut)
			}
			if !strings.Contains(out, tc.out) {
				t.Errorf("stdout %q lacks %q", out, tc.out)
			}
			if !strings.Contains(errOut, tc.err) {
				t.Errorf("stderr %q lacks %q", errOut, tc.err)
			}
			if code != cli.ExitOK && out != "" {
				t.Errorf("misuse printed %q on stdout", out)
			}
		})
	}
}

func TestSnakeCase(t *testing.T) {
	for in, want := range map[string]string{
		"MaxWorkGroupSize":      "max_work_group_size",
		"FP64":                  "fp64",
		"ILVersions":            "il_versions",
		"VendorID":              "vendor_id",
		"MaxClockMHz":           "max_clock_mhz",
		"ProfilingResolutionNS": "profiling_resolution_ns",
		"Native":                "native",
	} {
		if got := snakeCase(in); got != want {
			t.Errorf("snakeCase(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestRealDevices runs urinfo against the drivers of this machine: its lines
// must be the OpenCL devices discovery selects.
func TestRealDevices(t *testing.T) {
	devs := testenv.MustHaveDevice(t, "opencl")
	// Leave the fake adapters out; keep the environment's selector, which
	// testenv applied too.
	t.Setenv(ur.EnvForceLoad, "opencl")
	code, out, errOut := runUrinfo(t)
	if code != 0 {
		t.Fatalf("exit %d, stderr:\n%s", code, errOut)
	}
	var want strings.Builder
	for _, d := range devs {
		want.WriteString(d.String() + "\n")
	}
	if out != want.String() {
		t.Errorf("stdout:\n%s\nwant:\n%s", out, want.String())
	}

	code, out, errOut = runUrinfo(t, "--json")
	if code != 0 {
		t.Fatalf("--json: exit %d, stderr:\n%s", code, errOut)
	}
	var rep struct {
		Devices []struct{ Backend, String string }
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("--json output is not JSON: %v", err)
	}
	if len(rep.Devices) != len(devs) {
		t.Fatalf("--json lists %d devices, want %d", len(rep.Devices), len(devs))
	}
	for i, d := range rep.Devices {
		if d.Backend != "opencl" || d.String != devs[i].String() {
			t.Errorf("device %d = %q %q, want opencl %q", i, d.Backend, d.String, devs[i].String())
		}
	}

	// Each OpenCL device reports CLBlast, loaded or not and why.
	code, out, errOut = runUrinfo(t, "--verbose")
	if code != 0 {
		t.Fatalf("--verbose: exit %d, stderr:\n%s", code, errOut)
	}
	if n := strings.Count(out, "  blas:\n    clblast: "); n != len(devs) {
		t.Errorf("--verbose reports CLBlast for %d devices, want %d:\n%s", n, len(devs), out)
	}
}

// TestQueries: --json and --verbose carry the Unified Runtime's device
// queries, answered ones with their values and the rest listed as
// unsupported, never as zero.
func TestQueries(t *testing.T) {
	useFakes(t)
	code, out, errOut := runUrinfo(t, "--json")
	if code != 0 {
		t.Fatalf("exit %d, stderr:\n%s", code, errOut)
	}
	var got struct {
		Devices []struct {
			Queries     map[string]any `json:"queries"`
			Unsupported []string       `json:"unsupported_queries"`
		}
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil || len(got.Devices) != 1 {
		t.Fatalf("%v:\n%s", err, out)
	}
	d := got.Devices[0]
	for k, want := range map[string]any{
		"NAME":              "Fake GPU",
		"MAX_COMPUTE_UNITS": float64(8),
		"GLOBAL_MEM_FREE":   float64(6 << 30),
		"PLATFORM":          "Fake Platform",
		"USM_POOL_SUPPORT":  true,
	} {
		if !reflect.DeepEqual(d.Queries[k], want) {
			t.Errorf("queries[%q] = %#v, want %#v", k, d.Queries[k], want)
		}
	}
	if len(d.Queries)+len(d.Unsupported) != len(ur.DeviceQueries()) {
		t.Errorf("%d answered + %d unsupported != %d queries", len(d.Queries), len(d.Unsupported), len(ur.DeviceQueries()))
	}
	unsupported := strings.Join(d.Unsupported, " ")
	if !strings.Contains(unsupported, "IMAGE2D_MAX_WIDTH") || strings.Contains(unsupported, "NAME ") {
		t.Errorf("unsupported: %s", unsupported)
	}
	code, out, _ = runUrinfo(t, "--verbose")
	if code != 0 || !strings.Contains(out, "  queries:\n") || !strings.Contains(out, "    MAX_COMPUTE_UNITS: 8\n") ||
		!strings.Contains(out, "  unsupported queries: ") {
		t.Errorf("--verbose:\n%s", out)
	}
}
