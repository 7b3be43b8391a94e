package ur

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/gour-dev/gour/ur/driver"
)

// Selector filters devices with the grammar of ONEAPI_DEVICE_SELECTOR:
// terms separated by ';', each "[!]backend:device[,device...]" where
// backend is a name or '*' and device is '*', a type (cpu, gpu, fpga) or
// an index among the backend's devices. Without positive terms every device
// is a candidate; '!' terms then remove devices.
type Selector struct {
	accept, reject []selectorTerm
}

type selectorTerm struct {
	backend string // "" matches every backend
	devices []deviceFilter
}

type deviceFilter struct {
	any   bool
	typ   DeviceType
	index int // -1 when typ or any is used
}

// knownBackends are the backend names of ONEAPI_DEVICE_SELECTOR, valid in
// a selector even where gour has no such adapter (hip:*, native_cpu:*
// select nothing). An adapter registered under another name, from outside
// this module, is a backend too: isBackend.
var knownBackends = map[string]bool{"level_zero": true, "opencl": true, "cuda": true, "hip": true, "native_cpu": true}

// isBackend reports whether a selector may name the backend: a known one,
// or the name of a registered adapter.
func isBackend(name string) bool {
	if knownBackends[name] {
		return true
	}
	_, registered := driver.Opener(name)
	return registered
}

// ParseSelector parses a selector; the empty string selects every device.
// Errors name the offending term.
func ParseSelector(text string) (Selector, error) {
	var sel Selector
	for _, raw := range strings.Split(text, ";") {
		term := strings.ToLower(strings.TrimSpace(raw))
		if term == "" {
			continue
		}
		negate := strings.HasPrefix(term, "!")
		term = strings.TrimPrefix(term, "!")
		backend, devices, ok := strings.Cut(term, ":")
		if !ok || devices == "" {
			return Selector{}, fmt.Errorf("bad selector term %q: want backend:devices, e.g. opencl:cpu", raw)
		}
		t := selectorTerm{backend: backend}
		if backend == "*" {
			t.backend = ""
		} else if !isBackend(backend) {
			return Selector{}, fmt.Errorf("bad selector term %q: unknown backend %q", raw, backend)
		}
		for _, d := range strings.Split(devices, ",") {
			f, err := parseDeviceFilter(strings.TrimSpace(d))
			if err != nil {
				return Selector{}, fmt.Errorf("bad selector term %q: %v", raw, err)
			}
			t.devices = append(t.devices, f)
		}
		if negate {
			sel.reject = append(sel.reject, t)
		} else {
			sel.accept = append(sel.accept, t)
		}
	}
	return sel, nil
}

func parseDeviceFilter(s string) (deviceFilter, error) {
	switch s {
	case "*":
		return deviceFilter{any: true, index: -1}, nil
	case "cpu":
		return deviceFilter{typ: DeviceTypeCPU, index: -1}, nil
	case "gpu":
		return deviceFilter{typ: DeviceTypeGPU, index: -1}, nil
	case "fpga", "acc":
		return deviceFilter{typ: DeviceTypeAccelerator, index: -1}, nil
	}
	if strings.Contains(s, ".") {
		return deviceFilter{}, fmt.Errorf("sub-device %q is not supported", s)
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		return deviceFilter{}, fmt.Errorf("device %q is not *, cpu, gpu, fpga or an index", s)
	}
	return deviceFilter{index: n}, nil
}

// Match reports whether the selector lets the device through.
func (s Selector) Match(d *Device) bool {
	ok := len(s.accept) == 0
	for _, t := range s.accept {
		if t.match(d) {
			ok = true
			break
		}
	}
	for _, t := range s.reject {
		if t.match(d) {
			return false
		}
	}
	return ok
}

func (t selectorTerm) match(d *Device) bool {
	if t.backend != "" && t.backend != d.Backend() {
		return false
	}
	for _, f := range t.devices {
		switch {
		case f.any, f.index == d.index, f.index < 0 && f.typ == d.info.Type:
			return true
		}
	}
	return false
}
