// Package devreq says which devices a run of tests uses and which it must
// have: discovery with the environment's settings, once per
// process; why an adapter has no selected device; and the adapters that
// UR_REQUIRE_ADAPTERS names, whose absence fails a run instead of
// skipping it.
//
// It answers with values and errors, never through a *testing.T, so that
// the conformance suite, which programs run outside go test (urcompare's
// child processes), can use it; internal/testenv, imported only by
// _test.go files, turns its answers into skips and failures.
package devreq

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"

	"github.com/gour-dev/gour/ur"
	"github.com/gour-dev/gour/ur/driver"
)

// EnvRequireAdapters names the adapters whose absence fails a run instead
// of skipping it.
const EnvRequireAdapters = "UR_REQUIRE_ADAPTERS"

// RequiredAdapters returns the adapters named in UR_REQUIRE_ADAPTERS.
func RequiredAdapters() []string {
	return ParseRequiredAdapters(os.Getenv(EnvRequireAdapters))
}

// ParseRequiredAdapters parses a UR_REQUIRE_ADAPTERS value: adapter names
// separated by commas, case-insensitive, blanks and empty entries ignored,
// duplicates dropped, in the order given. A Unified Runtime library name
// ("libur_adapter_opencl.so") stands for its adapter, as in
// UR_ADAPTERS_FORCE_LOAD.
func ParseRequiredAdapters(value string) []string {
	var names []string
	for _, term := range strings.Split(value, ",") {
		name := adapterName(strings.TrimSpace(term))
		if name != "" && !slices.Contains(names, name) {
			names = append(names, name)
		}
	}
	return names
}

// adapterName maps "libur_adapter_opencl.so.0" or a path to it to
// "opencl"; a plain name passes through, lower-cased.
func adapterName(term string) string {
	base := term[strings.LastIndexByte(term, '/')+1:]
	if rest, ok := strings.CutPrefix(base, "libur_adapter_"); ok {
		if i := strings.Index(rest, ".so"); i >= 0 {
			rest = rest[:i]
		}
		base = rest
	} else {
		base = term
	}
	return strings.ToLower(base)
}

// IsRequired reports whether UR_REQUIRE_ADAPTERS names the adapter.
func IsRequired(name string) bool {
	return slices.Contains(RequiredAdapters(), strings.ToLower(name))
}

// discover is discovery with the environment's settings, run once.
var discover = sync.OnceValues(func() (*ur.System, error) { return ur.Discover(ur.Config{}) })

// System returns the result of discovery with the environment's settings,
// run once per process, so that every user in a process sees the same
// devices. Its error is a malformed setting (UR_ADAPTERS_FORCE_LOAD,
// ONEAPI_DEVICE_SELECTOR): a mistake in the command, not a missing driver.
func System() (*ur.System, error) { return discover() }

// AdapterProblem says why the adapter is not usable in sys: not
// registered, left out by UR_ADAPTERS_FORCE_LOAD, or failed to load (the
// adapter's own reason). It returns nil for a loaded adapter.
func AdapterProblem(sys *ur.System, name string) error {
	name = strings.ToLower(name)
	for _, s := range sys.Statuses {
		if s.Name == name {
			if s.Err != nil {
				return fmt.Errorf("adapter %q is not available: %w", name, s.Err)
			}
			return nil
		}
	}
	registered := driver.Registered()
	if !slices.Contains(registered, name) {
		return fmt.Errorf("adapter %q is not registered in this binary (registered: %s): %w",
			name, listOrNone(registered), ur.ErrAdapterNotAvailable)
	}
	return fmt.Errorf("adapter %q was not loaded (%s=%q): %w",
		name, ur.EnvForceLoad, os.Getenv(ur.EnvForceLoad), ur.ErrAdapterNotAvailable)
}

// DeviceProblem says why the adapter has no selected device in sys, or
// returns nil when it has at least one.
func DeviceProblem(sys *ur.System, name string) error {
	if err := AdapterProblem(sys, name); err != nil {
		return err
	}
	name = strings.ToLower(name)
	for _, d := range sys.Devices {
		if d.Backend() == name {
			return nil
		}
	}
	total := 0
	for _, a := range sys.Adapters {
		if a.Name() == name {
			for _, p := range a.Platforms() {
				total += len(p.Devices())
			}
		}
	}
	if total == 0 {
		return fmt.Errorf("adapter %q loaded but has no device", name)
	}
	return fmt.Errorf("adapter %q has %d device(s) but %s=%q selects none of them",
		name, total, ur.EnvDeviceSelector, os.Getenv(ur.EnvDeviceSelector))
}

// Select returns the selected devices of the adapters named, of every
// loaded adapter for none, and tells the two ways of having none apart:
//
//   - err, a failure: an adapter that must have a device has none. With
//     adapters named, each one must when require is set, and those of
//     them that UR_REQUIRE_ADAPTERS names must anyway; with none named,
//     every adapter UR_REQUIRE_ADAPTERS names must, whatever else there is.
//   - no devices and why, a reason to skip: nothing else is wrong but
//     there is nothing to run on.
func Select(sys *ur.System, adapters []string, require bool) (devs []*ur.Device, why string, err error) {
	var missing problems // the required adapters'
	if len(adapters) == 0 {
		for _, name := range RequiredAdapters() {
			if err := DeviceProblem(sys, name); err != nil {
				missing = append(missing, fmt.Errorf("%w (required by %s)", err, EnvRequireAdapters))
			}
		}
		if len(missing) > 0 {
			return nil, "", missing
		}
		if len(sys.Devices) == 0 {
			return nil, "no device selected: " + Reasons(sys), nil
		}
		return slices.Clone(sys.Devices), "", nil
	}
	var reasons []string
	for _, name := range adapters {
		if err := DeviceProblem(sys, name); err != nil {
			switch {
			case IsRequired(name):
				missing = append(missing, fmt.Errorf("%w (required by %s)", err, EnvRequireAdapters))
			case require:
				missing = append(missing, fmt.Errorf("%w (required)", err))
			default:
				reasons = append(reasons, err.Error())
			}
			continue
		}
		for _, d := range sys.Devices {
			if d.Backend() == strings.ToLower(name) {
				devs = append(devs, d)
			}
		}
	}
	if len(missing) > 0 {
		return nil, "", missing
	}
	if len(devs) == 0 {
		return nil, fmt.Sprintf("no device of %s: %s", strings.Join(adapters, ", "), strings.Join(reasons, "; ")), nil
	}
	return devs, "", nil
}

// problems is Select's failure: every required adapter's problem, on one
// line.
type problems []error

func (p problems) Error() string {
	s := make([]string, len(p))
	for i, err := range p {
		s[i] = err.Error()
	}
	return strings.Join(s, "; ")
}

func (p problems) Unwrap() []error { return p }

// Reasons summarises, one entry per registered adapter, why it has no
// selected device, for skip messages.
func Reasons(sys *ur.System) string {
	var why []string
	for _, s := range sys.Statuses {
		if err := DeviceProblem(sys, s.Name); err != nil {
			why = append(why, err.Error())
		}
	}
	if len(sys.Statuses) == 0 {
		why = append(why, fmt.Sprintf("no adapter registered or loaded (registered: %s; %s=%q)",
			listOrNone(driver.Registered()), ur.EnvForceLoad, os.Getenv(ur.EnvForceLoad)))
	}
	if len(why) == 0 {
		return "no adapter reported a problem"
	}
	return strings.Join(why, "; ")
}

func listOrNone(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}
