package ur

import (
	"errors"
	"strings"
	"testing"

	"github.com/gour-dev/gour/ur/driver"
)

// fakeDevices builds front-end devices without an adapter behind them.
func fakeDevices() []*Device {
	mk := func(backend string, typ DeviceType, index int) *Device {
		a := &Adapter{name: backend}
		a.object.adapter = a
		p := &Platform{object: object{adapter: a}, adapter: a}
		return &Device{object: object{adapter: a}, platform: p, info: driver.DeviceInfo{Type: typ, Name: backend + "-dev"}, index: index}
	}
	return []*Device{
		mk("opencl", DeviceTypeCPU, 0),
		mk("opencl", DeviceTypeGPU, 1),
		mk("cuda", DeviceTypeGPU, 0),
		mk("cuda", DeviceTypeGPU, 1),
		mk("level_zero", DeviceTypeGPU, 0),
	}
}

func TestSelectorMatch(t *testing.T) {
	tests := []struct {
		selector string
		want     string // one letter per fake device: y selected, n not
	}{
		{"", "yyyyy"},
		{"*:*", "yyyyy"},
		{"opencl:*", "yynnn"},
		{"opencl:cpu", "ynnnn"},
		{"opencl:gpu", "nynnn"},
		{"OPENCL:CPU", "ynnnn"},
		{"cuda:1", "nnnyn"},
		{"cuda:0,1", "nnyyn"},
		{"*:gpu", "nyyyy"},
		{"!level_zero:*", "yyyyn"},
		{"!opencl:*;!cuda:0", "nnnyy"},
		{"opencl:*;cuda:0", "yyynn"},
		{"*:gpu;!cuda:*", "nynny"},
		{"hip:*", "nnnnn"},
		{" opencl:cpu ; ", "ynnnn"},
	}
	devs := fakeDevices()
	for _, tt := range tests {
		sel, err := ParseSelector(tt.selector)
		if err != nil {
			t.Errorf("ParseSelector(%q): %v", tt.selector, err)
			continue
		}
		var got strings.Builder
		for _, d := range devs {
			if sel.Match(d) {
				got.WriteByte('y')
			} else {
				got.WriteByte('n')
			}
		}
		if got.String() != tt.want {
			t.Errorf("selector %q selects %s, want %s", tt.selector, got.String(), tt.want)
		}
	}
}

func TestParseSelectorErrorsNameTheTerm(t *testing.T) {
	for _, bad := range []string{"opencl", "opencl:", "vulkan:*", "opencl:tpu", "cuda:-1", "level_zero:0.1", "cuda:0;:gpu"} {
		_, err := ParseSelector(bad)
		if err == nil {
			t.Errorf("ParseSelector(%q) succeeded, want an error", bad)
			continue
		}
		if !strings.Contains(err.Error(), "bad selector term") {
			t.Errorf("ParseSelector(%q) = %v, want it to name the bad term", bad, err)
		}
	}
}

// An adapter registered from outside this module is a backend a selector
// can name.
func TestSelectorNamesRegisteredAdapter(t *testing.T) {
	if _, ok := driver.Opener("test_selector"); !ok {
		driver.Register("test_selector", func() (driver.Adapter, error) { return nil, driver.NotAvailable("test adapter") })
	}
	sel, err := ParseSelector("test_selector:0;!opencl:*")
	if err != nil {
		t.Fatalf("ParseSelector naming a registered adapter: %v", err)
	}
	for _, d := range fakeDevices() {
		if sel.Match(d) {
			t.Errorf("selector test_selector:0 matches %s %s", d.Backend(), d.info.Name)
		}
	}
	if _, err := ParseSelector("test_unregistered:0"); err == nil || !strings.Contains(err.Error(), "unknown backend") {
		t.Errorf("ParseSelector naming no registered adapter: %v, want unknown backend", err)
	}
}

func TestDiscoverRejectsMalformedEnvironment(t *testing.T) {
	t.Setenv(EnvDeviceSelector, "opencl:tpu")
	_, err := Discover(Config{})
	if err == nil || !strings.Contains(err.Error(), EnvDeviceSelector) || !strings.Contains(err.Error(), "opencl:tpu") {
		t.Errorf("Discover with %s=opencl:tpu: %v, want an error naming the variable and the term", EnvDeviceSelector, err)
	}
	t.Setenv(EnvDeviceSelector, "")
	t.Setenv(EnvForceLoad, "opencl,vulkan")
	_, err = Discover(Config{})
	if err == nil || !strings.Contains(err.Error(), EnvForceLoad) || !strings.Contains(err.Error(), "vulkan") {
		t.Errorf("Discover with %s=opencl,vulkan: %v, want an error naming the variable and the term", EnvForceLoad, err)
	}
}

func TestAdapterNameOf(t *testing.T) {
	for in, want := range map[string]string{
		"opencl":                                "opencl",
		"CUDA":                                  "cuda",
		"libur_adapter_level_zero.so":           "level_zero",
		"/opt/ur/lib/libur_adapter_opencl.so.0": "opencl",
	} {
		if got := adapterNameOf(in); got != want {
			t.Errorf("adapterNameOf(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestForceLoadKeepsOrderAndDropsDuplicates(t *testing.T) {
	for _, name := range []string{"test_a", "test_b"} {
		if _, ok := driver.Opener(name); !ok {
			driver.Register(name, func() (driver.Adapter, error) { return nil, driver.NotAvailable("test adapter") })
		}
	}
	got, err := adaptersToLoad(Config{ForceLoad: []string{"test_b", "libur_adapter_test_a.so", "test_b"}})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(got, ",") != "test_b,test_a" {
		t.Errorf("adaptersToLoad = %v, want [test_b test_a]", got)
	}
	sys, err := Discover(Config{ForceLoad: []string{"test_a"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(sys.Adapters) != 0 || len(sys.Statuses) != 1 || sys.Statuses[0].Err == nil {
		t.Fatalf("Discover(test_a) = %+v, want one not-available status", sys.Statuses)
	}
	if !strings.Contains(sys.Statuses[0].Err.Error(), "test adapter") {
		t.Errorf("status %v does not carry the adapter's reason", sys.Statuses[0].Err)
	}
	if why := sys.WhyNoDevice(); !strings.Contains(why, "test adapter") {
		t.Errorf("WhyNoDevice() = %q, want the adapter's reason", why)
	}
}

func TestPanickingAdapterIsNotAvailable(t *testing.T) {
	if _, ok := driver.Opener("test_panics"); !ok {
		driver.Register("test_panics", func() (driver.Adapter, error) { panic("driver exploded") })
	}
	sys, err := Discover(Config{ForceLoad: []string{"test_panics"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(sys.Statuses) != 1 || !strings.Contains(sys.Statuses[0].Err.Error(), "driver exploded") {
		t.Fatalf("statuses = %+v, want the panic reported as not available", sys.Statuses)
	}
}

// noDevices is an adapter that loads and has no device.
type noDevices struct{}

func (noDevices) Name() string                          { return "test_no_devices" }
func (noDevices) Platforms() ([]driver.Platform, error) { return nil, nil }
func (noDevices) NewContext([]driver.Device) (driver.Context, error) {
	return nil, driver.Errorf(driver.ResultUnsupportedFeature, "no devices")
}

func TestWhyNoDeviceNamesWhereTheSelectorCameFrom(t *testing.T) {
	if _, ok := driver.Opener("test_no_devices"); !ok {
		driver.Register("test_no_devices", func() (driver.Adapter, error) { return noDevices{}, nil })
	}
	t.Setenv(EnvDeviceSelector, "opencl:cpu")
	for _, tc := range []struct{ selector, want string }{
		{"", `selector "opencl:cpu" (` + EnvDeviceSelector + `)`},
		{"cuda:*", `selector "cuda:*" (Config.Selector)`},
	} {
		sys, err := Discover(Config{ForceLoad: []string{"test_no_devices"}, Selector: tc.selector})
		if err != nil {
			t.Fatal(err)
		}
		if why := sys.WhyNoDevice(); !strings.Contains(why, tc.want) {
			t.Errorf("Config.Selector %q: WhyNoDevice() = %q, want it to name the %s", tc.selector, why, tc.want)
		}
		if _, err := sys.DefaultDevice(); !errors.Is(err, ErrDeviceNotFound) {
			t.Errorf("Config.Selector %q: DefaultDevice() = %v, want ErrDeviceNotFound", tc.selector, err)
		}
	}
}
