package ur

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"

	"github.com/gour-dev/gour/trace"
	"github.com/gour-dev/gour/ur/driver"
)

// Environment variables read by discovery, as in the Unified Runtime and SYCL.
const (
	EnvForceLoad      = "UR_ADAPTERS_FORCE_LOAD"
	EnvDeviceSelector = "ONEAPI_DEVICE_SELECTOR"
)

// Config controls discovery. The zero value reads the environment; a field
// that is set wins over its environment variable.
type Config struct {
	// ForceLoad lists the only adapters to load, by name ("opencl") or by
	// Unified Runtime library name ("libur_adapter_opencl.so"). Nil reads
	// UR_ADAPTERS_FORCE_LOAD (comma-separated).
	ForceLoad []string
	// Selector filters devices as ONEAPI_DEVICE_SELECTOR does. Empty reads
	// the variable; "*:*" selects everything.
	Selector string
}

// AdapterStatus says whether one registered adapter loaded.
type AdapterStatus struct {
	Name string
	// Err is nil for a loaded adapter; otherwise it matches
	// ErrAdapterNotAvailable and says why (library missing, no device, ...).
	Err error
}

// System is the result of one discovery: the adapters that loaded and the
// devices the selector lets through.
type System struct {
	Adapters []*Adapter
	Statuses []AdapterStatus // every registered adapter, loaded or not
	Devices  []*Device       // selected devices, in adapter, platform, device order
	selector string          // the selector text that chose Devices
	// selectorFrom names where selector came from, for WhyNoDevice.
	selectorFrom string
}

// Discover loads the registered adapters and lists their devices. It fails
// only when a setting is malformed; a missing driver is reported in
// Statuses, never as an error.
func Discover(cfg Config) (rv *System, rerr error) {
	if t := trace.Active(); t != nil {
		tc := beginCall(t, "Discover")
		defer tc.end(&rerr)
	}

	names, err := adaptersToLoad(cfg)
	if err != nil {
		return nil, err
	}
	selText := cfg.Selector
	if selText == "" {
		selText = os.Getenv(EnvDeviceSelector)
	}
	sel, err := ParseSelector(selText)
	if err != nil {
		if cfg.Selector == "" {
			return nil, fmt.Errorf("%s: %w", EnvDeviceSelector, err)
		}
		return nil, err
	}
	sys := &System{selector: selText, selectorFrom: "Config.Selector"}
	if cfg.Selector == "" {
		sys.selectorFrom = EnvDeviceSelector
	}
	for _, name := range names {
		drv, err := openAdapter(name)
		if err != nil {
			sys.Statuses = append(sys.Statuses, AdapterStatus{Name: name, Err: err})
			continue
		}
		a, err := newAdapter(name, drv)
		if err != nil {
			sys.Statuses = append(sys.Statuses, AdapterStatus{Name: name, Err: err})
			continue
		}
		sys.Statuses = append(sys.Statuses, AdapterStatus{Name: name})
		sys.Adapters = append(sys.Adapters, a)
		for _, d := range a.devices() {
			if sel.Match(d) {
				sys.Devices = append(sys.Devices, d)
			}
		}
	}
	return sys, nil
}

// Devices discovers with the environment's settings and returns the
// selected devices.
func Devices() ([]*Device, error) {
	sys, err := Discover(Config{})
	if err != nil {
		return nil, err
	}
	return sys.Devices, nil
}

// DefaultDevice returns the device a SYCL default selector would pick among
// the selected ones: a GPU before an accelerator before a CPU, first found
// first. It fails with ErrDeviceNotFound, listing why each adapter is
// missing, when nothing is there.
func DefaultDevice() (*Device, error) {
	sys, err := Discover(Config{})
	if err != nil {
		return nil, err
	}
	return sys.DefaultDevice()
}

// DefaultDevice is the package's DefaultDevice among the devices of this
// discovery, for a program that discovers with its own Config.
func (s *System) DefaultDevice() (*Device, error) {
	if s == nil {
		return nil, nilHandle("System", "DefaultDevice")
	}
	if len(s.Devices) == 0 {
		return nil, newError(ErrDeviceNotFound, "DefaultDevice", "", "no device selected: %s", s.WhyNoDevice())
	}
	rank := map[DeviceType]int{DeviceTypeGPU: 0, DeviceTypeAccelerator: 1, DeviceTypeCPU: 2, DeviceTypeOther: 3}
	best := s.Devices[0]
	for _, d := range s.Devices[1:] {
		if rank[d.info.Type] < rank[best.info.Type] {
			best = d
		}
	}
	return best, nil
}

// WhyNoDevice says why discovery selected no device: the reason of every
// adapter that did not load, and the selector when adapters loaded.
func (s *System) WhyNoDevice() string {
	if s == nil {
		return "no discovery was made (the System is nil)"
	}
	var why []string
	for _, st := range s.Statuses {
		if st.Err != nil {
			why = append(why, st.Err.Error())
		}
	}
	if len(s.Adapters) > 0 {
		why = append(why, fmt.Sprintf("the %d loaded adapter(s) have no device the selector %q (%s) lets through", len(s.Adapters), s.selector, s.selectorFrom))
	}
	if len(why) == 0 {
		return "no adapter is registered (import github.com/gour-dev/gour/adapters/all)"
	}
	return strings.Join(why, "; ")
}

// adaptersToLoad applies UR_ADAPTERS_FORCE_LOAD to the registered names.
func adaptersToLoad(cfg Config) ([]string, error) {
	registered := driver.Registered()
	force := cfg.ForceLoad
	fromEnv := false
	if force == nil {
		if v := os.Getenv(EnvForceLoad); v != "" {
			force = strings.Split(v, ",")
			fromEnv = true
		}
	}
	if force == nil {
		return registered, nil
	}
	var names []string
	for _, term := range force {
		name := adapterNameOf(strings.TrimSpace(term))
		if !slices.Contains(registered, name) && !knownBackends[name] {
			err := fmt.Errorf("unknown adapter %q", term)
			if fromEnv {
				err = fmt.Errorf("%s: %w", EnvForceLoad, err)
			}
			return nil, err
		}
		if !slices.Contains(names, name) {
			names = append(names, name)
		}
	}
	return names, nil
}

// adapterNameOf maps "libur_adapter_opencl.so.0" or a path to it to
// "opencl"; a plain name passes through.
func adapterNameOf(term string) string {
	base := term[strings.LastIndexByte(term, '/')+1:]
	if rest, ok := strings.CutPrefix(base, "libur_adapter_"); ok {
		if i := strings.Index(rest, ".so"); i >= 0 {
			rest = rest[:i]
		}
		return rest
	}
	return strings.ToLower(term)
}

// Opened adapters are kept for the life of the process, as a driver library
// once loaded stays loaded; a failure is kept too, so its reason is stable.
var (
	openMu sync.Mutex
	opened = map[string]openResult{}
)

type openResult struct {
	drv driver.Adapter
	err error
}

func openAdapter(name string) (driver.Adapter, error) {
	openMu.Lock()
	defer openMu.Unlock()
	if r, ok := opened[name]; ok {
		return r.drv, r.err
	}
	open, ok := driver.Opener(name)
	if !ok {
		// Not memoised: the adapter may still register (tests do).
		return nil, driver.NotAvailable("%s: adapter not built into this program (import github.com/gour-dev/gour/adapters/all)", name)
	}
	drv, err := safeOpen(name, open)
	opened[name] = openResult{drv, err}
	return drv, err
}

// safeOpen turns a panicking adapter into a not-available one, so that one
// broken driver never takes the process down.
func safeOpen(name string, open driver.OpenFunc) (drv driver.Adapter, err error) {
	defer func() {
		if p := recover(); p != nil {
			drv, err = nil, driver.NotAvailable("%s: adapter panicked while opening: %v", name, p)
		}
	}()
	drv, err = open()
	if err == nil && drv == nil {
		err = driver.NotAvailable("%s: adapter returned no adapter", name)
	}
	return drv, err
}
