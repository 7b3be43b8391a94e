package cli

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/gour-dev/gour/ur"
	"github.com/gour-dev/gour/ur/driver"
)

// Two fake adapters registered only in this test binary, which tests
// select with UR_ADAPTERS_FORCE_LOAD: one with a CPU device, one that never
// loads.
const (
	fakeName   = "cli_fake"
	brokenName = "cli_broken"
	fakeReason = "libfake.so.1: cannot open shared object file"
)

type fakeAdapter struct{}

func (fakeAdapter) Name() string { return fakeName }
func (fakeAdapter) Platforms() ([]driver.Platform, error) {
	return []driver.Platform{fakePlatform{}}, nil
}
func (fakeAdapter) NewContext([]driver.Device) (driver.Context, error) {
	return nil, driver.Errorf(driver.ResultUnsupportedFeature, "fake")
}

type fakePlatform struct{}

func (fakePlatform) Info() driver.PlatformInfo         { return driver.PlatformInfo{Name: "Fake Platform"} }
func (fakePlatform) Devices() ([]driver.Device, error) { return []driver.Device{fakeDevice{}}, nil }

type fakeDevice struct{}

func (fakeDevice) Info() (driver.DeviceInfo, error) {
	return driver.DeviceInfo{Type: driver.DeviceTypeCPU, Name: "Fake CPU"}, nil
}

func init() {
	driver.Register(fakeName, func() (driver.Adapter, error) { return fakeAdapter{}, nil })
	driver.Register(brokenName, func() (driver.Adapter, error) {
		return nil, driver.NotAvailable("%s: %s", brokenName, fakeReason)
	})
}

// useFakes makes discovery see only the fake adapters, with no selector.
func useFakes(t *testing.T) {
	t.Setenv(ur.EnvForceLoad, fakeName+","+brokenName)
	t.Setenv(ur.EnvDeviceSelector, "")
}

func newTestCommand() *Command {
	c := New("tool sub", "[flags]", "Tool sub does one thing.")
	c.Flags.Int("n", 4, "how many")
	c.DeviceFlag()
	return c
}

func TestParseHelpPrintsUsageToStdout(t *testing.T) {
	for _, arg := range []string{"-h", "--help", "-help"} {
		var stdout bytes.Buffer
		err := newTestCommand().Parse([]string{arg}, &stdout)
		if !errors.Is(err, ErrHelp) {
			t.Errorf("Parse(%s) = %v, want ErrHelp", arg, err)
		}
		for _, want := range []string{"usage: tool sub [flags]\n", "\nTool sub does one thing.\n", "\nflags:\n", "  -n int\n", "  -device SELECTOR\n"} {
			if !strings.Contains(stdout.String(), want) {
				t.Errorf("Parse(%s) printed no %q:\n%s", arg, want, stdout.String())
			}
		}
	}
}

func TestParseMisuseIsUsageError(t *testing.T) {
	for _, tc := range []struct {
		args []string
		msg  string
	}{
		{[]string{"-bogus"}, "flag provided but not defined: -bogus"},
		{[]string{"-n", "many"}, `invalid value "many" for flag -n`},
		{[]string{"-n", "3", "extra"}, `unexpected argument "extra"`},
	} {
		var stdout bytes.Buffer
		err := newTestCommand().Parse(tc.args, &stdout)
		var u *UsageError
		if !errors.As(err, &u) || u.Help != "tool sub" || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("Parse(%q) = %#v, want a *UsageError for 'tool sub' saying %q", tc.args, err, tc.msg)
		}
		if stdout.Len() != 0 {
			t.Errorf("Parse(%q) wrote %q to stdout", tc.args, stdout.String())
		}
	}
}

func TestExit(t *testing.T) {
	for _, tc := range []struct {
		err    error
		code   int
		stderr string
	}{
		{nil, ExitOK, ""},
		{ErrHelp, ExitOK, ""},
		{fmt.Errorf("wrapped: %w", ErrHelp), ExitOK, ""},
		{errors.New("it broke"), ExitFailure, "tool: it broke\n"},
		{Usagef("tool sub", "bad %s", "flag"), ExitUsage, "tool: bad flag\nrun 'tool sub -h' for usage\n"},
		{&UsageError{Err: errors.New("SOME_VAR: malformed")}, ExitUsage, "tool: SOME_VAR: malformed\n"},
		{&NoDeviceError{}, ExitFailure, "tool: no device: no adapter found one\n"},
	} {
		var stderr bytes.Buffer
		if code := Exit(&stderr, "tool", tc.err); code != tc.code || stderr.String() != tc.stderr {
			t.Errorf("Exit(%v) = %d, stderr %q; want %d, %q", tc.err, code, stderr.String(), tc.code, tc.stderr)
		}
	}
}

func TestSelectorPrecedence(t *testing.T) {
	t.Setenv(ur.EnvDeviceSelector, "")
	parsed := func(args ...string) Selector {
		t.Helper()
		c := newTestCommand()
		if err := c.Parse(args, &bytes.Buffer{}); err != nil {
			t.Fatal(err)
		}
		return c.Selector()
	}
	if got := parsed(); got != (Selector{}) {
		t.Errorf("no flag, no variable: %+v, want none", got)
	}
	if got, want := parsed("-device", "cuda:*"), (Selector{"cuda:*", FromDeviceFlag}); got != want {
		t.Errorf("-device: %+v, want %+v", got, want)
	}
	t.Setenv(ur.EnvDeviceSelector, "opencl:cpu")
	if got, want := parsed(), (Selector{"opencl:cpu", ur.EnvDeviceSelector}); got != want {
		t.Errorf("variable: %+v, want %+v", got, want)
	}
	if got, want := parsed("-device", "cuda:0"), (Selector{"cuda:0", FromDeviceFlag}); got != want {
		t.Errorf("-device over the variable: %+v, want %+v", got, want)
	}
	if got, want := (Selector{"cuda:0", FromDeviceFlag}).String(), `the selector "cuda:0" (the -device flag)`; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
}

func TestDiscoverNamesAMalformedSelectorsSource(t *testing.T) {
	useFakes(t)
	c := newTestCommand()
	if err := c.Parse([]string{"-device", "bogus"}, &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	_, _, err := c.Discover()
	var u *UsageError
	if !errors.As(err, &u) || u.Help != "tool sub" || !strings.HasPrefix(err.Error(), FromDeviceFlag+`: bad selector term "bogus"`) {
		t.Errorf("-device bogus: %v, want a *UsageError naming the flag and the term", err)
	}

	t.Setenv(ur.EnvDeviceSelector, "opencl:seven")
	c = newTestCommand()
	if err := c.Parse(nil, &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	_, _, err = c.Discover()
	if !errors.As(err, &u) || u.Help != "" || !strings.HasPrefix(err.Error(), ur.EnvDeviceSelector+`: bad selector term "opencl:seven"`) {
		t.Errorf("%s=opencl:seven: %v, want a *UsageError naming the variable, with no pointer to -h", ur.EnvDeviceSelector, err)
	}

	t.Setenv(ur.EnvDeviceSelector, "")
	t.Setenv(ur.EnvForceLoad, "no_such_adapter")
	_, _, err = c.Discover()
	if !errors.As(err, &u) || !strings.Contains(err.Error(), ur.EnvForceLoad) {
		t.Errorf("%s=no_such_adapter: %v, want a *UsageError naming the variable", ur.EnvForceLoad, err)
	}
}

func TestNoDevice(t *testing.T) {
	useFakes(t)
	discover := func(args ...string) (*ur.System, Selector) {
		t.Helper()
		c := newTestCommand()
		if err := c.Parse(args, &bytes.Buffer{}); err != nil {
			t.Fatal(err)
		}
		sys, sel, err := c.Discover()
		if err != nil {
			t.Fatal(err)
		}
		return sys, sel
	}
	sys, sel := discover("-device", "cuda:*")
	if len(sys.Devices) != 0 {
		t.Fatalf("cuda:* selected %v", sys.Devices)
	}
	for _, tc := range []struct {
		backend string
		want    string
	}{
		{"", `no device: the selector "cuda:*" (the -device flag) matches none of the devices found: cli_fake:0 (cpu)`},
		{fakeName, `no cli_fake device: the selector "cuda:*" (the -device flag) matches none of the devices found: cli_fake:0 (cpu)`},
		{brokenName, "no cli_broken device: the cli_broken adapter did not load: " + fakeReason},
		{"cuda", "no cuda device: the cuda adapter did not load: not among the adapters " + ur.EnvForceLoad + " loads"},
	} {
		err := NoDevice(sys, sel, tc.backend)
		if err.Error() != tc.want {
			t.Errorf("NoDevice(backend %q):\n got %s\nwant %s", tc.backend, err, tc.want)
		}
		if !errors.Is(err, ur.ErrDeviceNotFound) {
			t.Errorf("NoDevice(backend %q) does not match ur.ErrDeviceNotFound", tc.backend)
		}
	}

	t.Setenv(ur.EnvForceLoad, brokenName)
	sys, sel = discover()
	if got, want := NoDevice(sys, sel, "").Error(), "no device: no adapter found one"; got != want {
		t.Errorf("nothing loaded, no selector: %q, want %q", got, want)
	}
	t.Setenv(ur.EnvDeviceSelector, "opencl:cpu")
	sys, sel = discover()
	if got, want := NoDevice(sys, sel, "").Error(), `no device: no adapter found one for the selector "opencl:cpu" (ONEAPI_DEVICE_SELECTOR) to choose from`; got != want {
		t.Errorf("nothing loaded, a selector:\n got %s\nwant %s", got, want)
	}
}

func TestWriteAdapterFailures(t *testing.T) {
	useFakes(t)
	sys, err := ur.Discover(ur.Config{})
	if err != nil {
		t.Fatal(err)
	}
	var w bytes.Buffer
	WriteAdapterFailures(&w, sys)
	if want := brokenName + ": not available: " + fakeReason + "\n"; w.String() != want {
		t.Errorf("got %q, want %q", w.String(), want)
	}
}

func TestParseInterleaved(t *testing.T) {
	c := New("tool", "[flags] FILE...", "Tool does things.")
	v := c.Flags.Bool("v", false, "verbose")
	var out bytes.Buffer
	pos, err := c.ParseInterleaved([]string{"a", "-v", "b", "--", "-c"}, &out)
	if err != nil || !*v || strings.Join(pos, ",") != "a,b,-c" {
		t.Errorf("ParseInterleaved = %q, %v (v %v), want a, b, -c with -v set", pos, err, *v)
	}
	if _, err := c.ParseInterleaved([]string{"a", "-nope"}, &out); !errors.As(err, new(*UsageError)) {
		t.Errorf("a bad flag: %v, want a *UsageError", err)
	}
	out.Reset()
	if _, err := c.ParseInterleaved([]string{"a", "-h"}, &out); !errors.Is(err, ErrHelp) || !strings.Contains(out.String(), "Tool does things.") {
		t.Errorf("-h: %v, printed %q; want ErrHelp and the usage", err, out.String())
	}
}
