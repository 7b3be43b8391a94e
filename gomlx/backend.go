package gomlx

import (
	"fmt"
	"strings"
	"sync"
	"sync/atomic"

	gc "github.com/gomlx/compute"
	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/compute/notimplemented"
	"github.com/pkg/errors"

	_ "github.com/gour-dev/gour/adapters/all" // every adapter: OpenCL, CUDA, Level Zero
	"github.com/gour-dev/gour/compute"
	"github.com/gour-dev/gour/ur"
)

// BackendName is the name the backend is registered under: GOMLX_BACKEND=gour.
const BackendName = "gour"

func init() {
	gc.Register(BackendName, New)
}

// Backend is a GoMLX compute.Backend on one gour device: its buffers are
// compute.Arrays in the device's memory, and its executables run on the
// device's in-order queue.
type Backend struct {
	dev    *ur.Device
	ctx    *compute.Device
	fp64   bool
	caps   gc.Capabilities
	config string

	finalized atomic.Bool
	// live counts the executions and transfers in flight, so that Finalize
	// waits for them.
	live sync.WaitGroup
	mu   sync.Mutex // guards Finalize against new work starting

	kernels kernelCache

	// tracked is the storage of live buffers and executables' constants,
	// released by Finalize.
	trackMu sync.Mutex
	tracked map[store]bool
}

// track records st as held by a buffer or an executable.
func (b *Backend) track(st store) {
	b.trackMu.Lock()
	defer b.trackMu.Unlock()
	if b.tracked == nil {
		b.tracked = map[store]bool{}
	}
	b.tracked[st] = true
}

// untrack forgets st, reporting whether it was tracked (so that it is
// released once: by its holder, or by Finalize).
func (b *Backend) untrack(st store) bool {
	b.trackMu.Lock()
	defer b.trackMu.Unlock()
	if !b.tracked[st] {
		return false
	}
	delete(b.tracked, st)
	return true
}

var _ gc.Backend = (*Backend)(nil)

// New makes a Backend from a configuration string: "" (ur.DefaultDevice),
// "device=SELECTOR" or just "SELECTOR", where SELECTOR is a gour device
// selector in the grammar of ONEAPI_DEVICE_SELECTOR ("cuda:0",
// "opencl:cpu", "level_zero:gpu"): the first device it selects is used.
// It is the constructor registered for GoMLX as "gour".
func New(config string) (gc.Backend, error) {
	sel := strings.TrimSpace(config)
	for _, kv := range strings.Split(sel, ",") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(kv), "device="); ok {
			sel = v
		}
	}
	var dev *ur.Device
	var err error
	if sel == "" {
		dev, err = ur.DefaultDevice()
	} else {
		dev, err = selectDevice(sel)
	}
	if err != nil {
		return nil, errors.Wrapf(err, "gour backend %q", config)
	}
	return NewOnDevice(dev, config)
}

func selectDevice(sel string) (*ur.Device, error) {
	s, err := ur.ParseSelector(sel)
	if err != nil {
		return nil, err
	}
	devs, err := ur.Devices()
	if err != nil {
		return nil, err
	}
	for _, d := range devs {
		if s.Match(d) {
			return d, nil
		}
	}
	return nil, fmt.Errorf("no gour device matches %q (%d devices found)", sel, len(devs))
}

// NewOnDevice makes a Backend on dev, with a compute.Device context of its
// own; config is what Description reports.
func NewOnDevice(dev *ur.Device, config string) (*Backend, error) {
	ctx, err := compute.NewDevice(dev)
	if err != nil {
		return nil, errors.Wrapf(err, "gour backend on %v", dev)
	}
	b := &Backend{dev: dev, ctx: ctx, fp64: dev.Info().FP64, config: config}
	b.caps = capabilities(b.fp64)
	return b, nil
}

// Name implements compute.Backend.
func (b *Backend) Name() string { return BackendName }

// String implements compute.Backend.
func (b *Backend) String() string { return BackendName }

// Description implements compute.Backend.
func (b *Backend) Description() string {
	return fmt.Sprintf("gour on %s", b.dev)
}

// NumDevices implements compute.Backend: a Backend drives one device.
func (b *Backend) NumDevices() int { return 1 }

// DeviceDescription implements compute.Backend.
func (b *Backend) DeviceDescription(deviceNum gc.DeviceNum) string {
	if deviceNum != 0 {
		return fmt.Sprintf("no device %d (the gour backend drives one device)", deviceNum)
	}
	return b.dev.String()
}

// Capabilities implements compute.Backend.
func (b *Backend) Capabilities() gc.Capabilities { return b.caps.Clone() }

// Device returns the compute.Device context the backend runs on.
func (b *Backend) Device() *compute.Device { return b.ctx }

// Finalize implements compute.Backend: it waits for the work in flight,
// then releases the kernels and the device context (and with it every
// array still alive).
func (b *Backend) Finalize() {
	b.mu.Lock()
	if b.finalized.Swap(true) {
		b.mu.Unlock()
		return
	}
	b.mu.Unlock()
	b.live.Wait()
	b.trackMu.Lock()
	for st := range b.tracked {
		_ = st.release()
	}
	b.tracked = nil
	b.trackMu.Unlock()
	b.kernels.release()
	_ = b.ctx.Release()
}

// IsFinalized implements compute.Backend.
func (b *Backend) IsFinalized() bool { return b.finalized.Load() }

// enter registers work in flight; it fails once the backend is finalized.
// The caller calls b.live.Done() when the work is over.
func (b *Backend) enter() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.finalized.Load() {
		return errors.Wrapf(gc.ErrBackendFinalized, "gour backend")
	}
	b.live.Add(1)
	return nil
}

// Builder implements compute.Backend.
func (b *Backend) Builder(name string) gc.Builder { return b.newBuilder(name) }

func (b *Backend) newBuilder(name string) *Builder {
	bl := &Builder{backend: b, name: name}
	bl.main = &Function{builder: bl, name: gc.MainName,
		Function: notimplemented.Function{ErrFn: func(op gc.OpType) error {
			return notImplemented("operation %s", op)
		}}}
	return bl
}

// supportedDType reports whether the backend stores and computes dt.
func (b *Backend) supportedDType(dt dtypes.DType) bool {
	return b.caps.DTypes[dt]
}

func (b *Backend) checkDType(dt dtypes.DType) error {
	if !b.supportedDType(dt) {
		return errors.Wrapf(gc.ErrNotImplemented, "gour backend: dtype %s is not supported", dt)
	}
	return nil
}
