package gonumblas_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"

	_ "github.com/gour-dev/gour/adapters/all"
	gourblas "github.com/gour-dev/gour/blas"
	"github.com/gour-dev/gour/blas/gonumblas"
	"github.com/gour-dev/gour/internal/harness/testenv"
	"github.com/gour-dev/gour/ur"
)

// testDevice is an Implementation on one selected device and backend that sends
// every call with work to the device (both thresholds 0), shared by the
// tests: the device BLAS builds its kernels once per binary.
type testDevice struct {
	name string
	impl *gonumblas.Implementation
	ctx  *ur.Context
	q    *ur.Queue
}

var (
	devicesOnce sync.Once
	devicesList []*testDevice
	devicesErr  error
)

func TestMain(m *testing.M) {
	code := m.Run()
	for _, d := range devicesList {
		if err := d.close(); err != nil {
			fmt.Fprintf(os.Stderr, "%s: Close: %v\n", d.name, err)
			code = 1
		}
	}
	os.Exit(code)
}

// forced are the options the tests use: every call with work goes to the
// device.
func forced() gonumblas.Options {
	return gonumblas.Options{Level3Threshold: 0, Level2Threshold: 0}
}

// devices returns an Implementation per device the environment selects
// (ONEAPI_DEVICE_SELECTOR, UR_ADAPTERS_FORCE_LOAD) and per backend
// serving it: the vendor library, where one loads, and the own kernels. Without one the test
// skips, or fails where UR_REQUIRE_ADAPTERS says so.
func devices(t testing.TB) []*testDevice {
	t.Helper()
	devs := testenv.Devices(t)
	devicesOnce.Do(func() {
		for _, dev := range devs {
			// The backend New picks (the vendor library where it loads),
			// and gour's own kernels where that is another.
			opts := forced()
			for {
				d, err := openDevice(dev, opts)
				if err != nil {
					devicesErr = fmt.Errorf("%v (backend %q): %w", dev, opts.BLAS.Backend, err)
					return
				}
				devicesList = append(devicesList, d)
				if d.impl.Backend() == gourblas.BackendGour {
					break
				}
				opts.BLAS.Backend = gourblas.BackendGour
			}
			// Where the Implementation copies from the caller's slices
			// directly (a device sharing the host's memory), the own
			// kernels again, with every operand staged through
			// page-locked memory as on a discrete GPU.
			if !devicesList[len(devicesList)-1].staged() {
				d, err := openDevice(dev, opts)
				if err != nil {
					devicesErr = fmt.Errorf("%v (staged): %w", dev, err)
					return
				}
				if gonumblas.StageAll(d.impl) {
					d.name += "-staged"
					devicesList = append(devicesList, d)
				} else {
					d.close()
				}
			}
		}
	})
	if devicesErr != nil {
		t.Fatal(devicesErr)
	}
	return devicesList
}

func (d *testDevice) close() error {
	err := d.impl.Close()
	_ = d.q.Release()
	_ = d.ctx.Release()
	return err
}

// staged reports whether the Implementation stages its operands through
// page-locked memory by itself.
func (d *testDevice) staged() bool {
	info := d.q.Device().Info()
	return info.USM.Host && !info.HostUnifiedMemory
}

func openDevice(dev *ur.Device, opts gonumblas.Options) (*testDevice, error) {
	ctx, err := ur.NewContext(dev)
	if err != nil {
		return nil, err
	}
	q, err := ctx.NewQueue(dev, ur.QueueProperties{})
	if err != nil {
		_ = ctx.Release()
		return nil, err
	}
	impl, err := gonumblas.New(q, opts)
	if err == nil {
		// The tests send calls to the device from the first one on.
		if err = impl.WaitReady(context.Background()); err != nil {
			_ = impl.Close()
		}
	}
	if err != nil {
		_ = q.Release()
		_ = ctx.Release()
		return nil, err
	}
	name := strings.ReplaceAll(fmt.Sprintf("%s:%d-%s", dev.Backend(), dev.Index(), impl.Backend()), "/", "_")
	return &testDevice{name: name, impl: impl, ctx: ctx, q: q}, nil
}

// Which calls of a test reach the device.
type offload int

const (
	none offload = iota // no call: the routine is gonum's
	f32                 // float32 calls
	f64                 // float64 calls, on devices with double precision
)

// onDevices runs f on every device's Implementation, and fails if a call
// fell back to the host, or if no call reached the device where want
// says some should, or one did where want is none.
func onDevices(t *testing.T, want offload, f func(t *testing.T, impl *gonumblas.Implementation)) {
	for _, d := range devices(t) {
		t.Run(d.name, func(t *testing.T) {
			offloads := want == f32 || want == f64 && d.q.Device().Info().FP64
			before := d.impl.Stats()
			f(t, d.impl)
			after := d.impl.Stats()
			if n := after.Fallbacks - before.Fallbacks; n != 0 {
				t.Errorf("%d device calls failed and fell back to gonum", n)
			}
			if offloads && after.Device == before.Device {
				t.Errorf("no call reached the device (stats before %+v, after %+v)", before, after)
			}
			if strings.HasSuffix(d.name, "-staged") && !gonumblas.Pinned(d.impl) {
				t.Errorf("page-locked staging memory failed to allocate: the calls copied from Go memory")
			}
			if !offloads && after.Device != before.Device {
				t.Errorf("%d calls reached the device: want none", after.Device-before.Device)
			}
		})
	}
}
