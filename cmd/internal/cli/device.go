package cli

import (
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/gour-dev/gour/ur"
)

// FromDeviceFlag is the Selector.From of a selector given with -device.
const FromDeviceFlag = "the -device flag"

// Selector is a device selector in the syntax of ONEAPI_DEVICE_SELECTOR
// and where it came from, so that a message about it can name both.
type Selector struct {
	Text string // "" selects every device
	From string // FromDeviceFlag or ur.EnvDeviceSelector; "" with no Text
}

// String is the selector as messages name it: `the selector "cuda:*" (the
// -device flag)`.
func (s Selector) String() string {
	if s.Text == "" {
		return "no selector (every device)"
	}
	return fmt.Sprintf("the selector %q (%s)", s.Text, s.From)
}

// DeviceFlag adds -device SELECTOR to the command: the devices it may use,
// in the syntax of ONEAPI_DEVICE_SELECTOR, which the flag overrides.
func (c *Command) DeviceFlag() {
	c.device = c.Flags.String("device", "",
		"use only the devices `SELECTOR` lets through, in "+ur.EnvDeviceSelector+"'s syntax\n(opencl:cpu, cuda:0, *:gpu, !level_zero:*); overrides that variable")
}

// Selector is the selector in force after Parse: -device when given, else
// ONEAPI_DEVICE_SELECTOR when set, else none.
func (c *Command) Selector() Selector {
	if c.device != nil && *c.device != "" {
		return Selector{Text: *c.device, From: FromDeviceFlag}
	}
	if v := os.Getenv(ur.EnvDeviceSelector); v != "" {
		return Selector{Text: v, From: ur.EnvDeviceSelector}
	}
	return Selector{}
}

// Discover discovers with the command's selector. A malformed selector or
// UR_ADAPTERS_FORCE_LOAD is a *UsageError naming where it came from.
func (c *Command) Discover() (*ur.System, Selector, error) {
	sel := c.Selector()
	if _, err := ur.ParseSelector(sel.Text); err != nil {
		help := ""
		if sel.From == FromDeviceFlag {
			help = c.Name
		}
		return nil, sel, &UsageError{Err: fmt.Errorf("%s: %w", sel.From, err), Help: help}
	}
	text := sel.Text
	if text == "" {
		text = "*:*" // an empty Config.Selector would read the variable
	}
	sys, err := ur.Discover(ur.Config{Selector: text})
	if err != nil {
		// The selector parsed, so the problem is UR_ADAPTERS_FORCE_LOAD,
		// which the error names.
		return nil, sel, &UsageError{Err: err}
	}
	return sys, sel, nil
}

// NoDeviceError is the failure of a command that found no device to use.
// errors.Is(err, ur.ErrDeviceNotFound) holds for it.
type NoDeviceError struct {
	Backend  string   // the backend the command needs, "" for any
	Selector Selector // the selector in force
	// Found lists the devices (of Backend) the loaded adapters found and
	// the selector left out, as "opencl:0 (cpu)".
	Found []string
	// Reason says why Backend's adapter did not load; "" when it loaded or
	// no backend is needed.
	Reason string
}

// NoDevice returns the *NoDeviceError of sys, where nothing (of backend,
// when not "") was selected by sel.
func NoDevice(sys *ur.System, sel Selector, backend string) *NoDeviceError {
	e := &NoDeviceError{Backend: backend, Selector: sel}
	for _, a := range sys.Adapters {
		if backend != "" && a.Name() != backend {
			continue
		}
		for _, p := range a.Platforms() {
			for _, d := range p.Devices() {
				e.Found = append(e.Found, fmt.Sprintf("%s:%d (%s)", d.Backend(), d.Index(), d.Type()))
			}
		}
	}
	if backend == "" || slices.ContainsFunc(sys.Adapters, func(a *ur.Adapter) bool { return a.Name() == backend }) {
		return e
	}
	e.Reason = "not among the adapters " + ur.EnvForceLoad + " loads"
	for _, st := range sys.Statuses {
		if st.Name == backend && st.Err != nil {
			e.Reason = AdapterReason(st)
		}
	}
	return e
}

func (e *NoDeviceError) Error() string {
	what := "no device"
	if e.Backend != "" {
		what = "no " + e.Backend + " device"
	}
	switch {
	case e.Reason != "":
		return fmt.Sprintf("%s: the %s adapter did not load: %s", what, e.Backend, e.Reason)
	case len(e.Found) > 0:
		return fmt.Sprintf("%s: %s matches none of the devices found: %s", what, e.Selector, strings.Join(e.Found, ", "))
	case e.Backend != "":
		return fmt.Sprintf("%s: the %s adapter found none", what, e.Backend)
	case e.Selector.Text != "":
		return fmt.Sprintf("%s: no adapter found one for %s to choose from", what, e.Selector)
	default:
		return what + ": no adapter found one"
	}
}

// Unwrap makes errors.Is(err, ur.ErrDeviceNotFound) hold.
func (e *NoDeviceError) Unwrap() error { return ur.ErrDeviceNotFound }

// AdapterReason is why an adapter did not load, without what its status
// line already says ("adapter not available", the adapter's name).
func AdapterReason(st ur.AdapterStatus) string {
	if st.Err == nil {
		return ""
	}
	msg := strings.TrimPrefix(st.Err.Error(), ur.ErrAdapterNotAvailable.Error()+": ")
	return strings.TrimPrefix(msg, st.Name+": ")
}

// WriteAdapterFailures writes one line per adapter that did not load:
// "cuda: not available: <reason>".
func WriteAdapterFailures(w io.Writer, sys *ur.System) {
	for _, st := range sys.Statuses {
		if st.Err != nil {
			fmt.Fprintf(w, "%s: not available: %s\n", st.Name, AdapterReason(st))
		}
	}
}
