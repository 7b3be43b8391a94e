package bench

import (
	_ "embed"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/gour-dev/gour/ur"
)

// Add1Source is the benchmark's kernel: y[i] += 1 over GlobalSize floats.
// launch.c reads the same file.
//
//go:embed add1.cl
var Add1Source string

// GlobalSize is the number of work-items per launch.
const GlobalSize = 1024

// PoCLPlatform is the name PoCL gives its OpenCL platform.
const PoCLPlatform = "Portable Computing Language"

// FirstPoCLCPU returns the first CPU device of a PoCL platform, the device
// launch.c picks, whatever ONEAPI_DEVICE_SELECTOR says.
func FirstPoCLCPU() (*ur.Device, error) {
	sys, err := ur.Discover(ur.Config{ForceLoad: []string{"opencl"}, Selector: "opencl:cpu"})
	if err != nil {
		return nil, err
	}
	for _, d := range sys.Devices {
		if strings.Contains(d.Platform().Info().Name, PoCLPlatform) {
			return d, nil
		}
	}
	for _, s := range sys.Statuses {
		if s.Err != nil {
			return nil, fmt.Errorf("no PoCL CPU device: %w", s.Err)
		}
	}
	return nil, errors.New("no PoCL CPU device")
}

// Launcher is the state of the benchmark: a queue, the add1 kernel and its
// buffer, on one device.
type Launcher struct {
	ctx      *ur.Context
	Queue    *ur.Queue
	Kernel   *ur.Kernel
	Buffer   *ur.Mem
	launches int // every launch so far, to check the result
}

// NewLauncher builds add1 on dev and allocates its buffer, zeroed.
func NewLauncher(dev *ur.Device) (*Launcher, error) {
	l := &Launcher{}
	var err error
	if l.ctx, err = ur.NewContext(dev); err != nil {
		return nil, err
	}
	if l.Queue, err = l.ctx.NewQueue(dev, ur.QueueProperties{}); err != nil {
		l.Close()
		return nil, err
	}
	prog, err := l.ctx.NewProgramFromSource(Add1Source)
	if err != nil {
		l.Close()
		return nil, err
	}
	defer prog.Release()
	if err := prog.Build(""); err != nil {
		l.Close()
		return nil, err
	}
	if l.Kernel, err = prog.NewKernel("add1"); err != nil {
		l.Close()
		return nil, err
	}
	if l.Buffer, err = l.ctx.NewBufferFrom(ur.MemReadWrite, make([]byte, 4*GlobalSize)); err != nil {
		l.Close()
		return nil, err
	}
	return l, nil
}

// Launch runs the timed sequence n times: set the buffer argument, launch
// over GlobalSize work-items with no event. It does not wait.
func (l *Launcher) Launch(n int) error {
	r := ur.Range1D(GlobalSize)
	for range n {
		if err := l.Kernel.SetArgMem(0, l.Buffer); err != nil {
			return err
		}
		if err := l.Queue.Launch(l.Kernel, r); err != nil {
			return err
		}
	}
	l.launches += n
	return nil
}

// Round times n launches and the Finish after them. It returns the
// nanoseconds per launch, and the same until the last launch returned
// (before Finish: what the host spends enqueueing).
func (l *Launcher) Round(n int) (total, enqueue float64, err error) {
	start := time.Now()
	if err := l.Launch(n); err != nil {
		return 0, 0, err
	}
	enqueued := time.Since(start)
	if err := l.Queue.Finish(); err != nil {
		return 0, 0, err
	}
	return float64(time.Since(start).Nanoseconds()) / float64(n), float64(enqueued.Nanoseconds()) / float64(n), nil
}

// Check reads the buffer back and verifies that every launch ran.
func (l *Launcher) Check() error {
	out := make([]float32, GlobalSize)
	if err := l.Queue.ReadBuffer(l.Buffer, 0, ur.AsBytes(out)); err != nil {
		return err
	}
	want := float32(l.launches)
	for i, v := range out {
		if v != want {
			return fmt.Errorf("y[%d] = %g, want %g: not every launch ran", i, v, want)
		}
	}
	return nil
}

// Close releases everything the launcher holds.
func (l *Launcher) Close() error {
	var errs []error
	if l.Buffer != nil {
		errs = append(errs, l.Buffer.Release())
	}
	if l.Kernel != nil {
		errs = append(errs, l.Kernel.Release())
	}
	if l.Queue != nil {
		errs = append(errs, l.Queue.Release())
	}
	if l.ctx != nil {
		errs = append(errs, l.ctx.Release())
	}
	return errors.Join(errs...)
}

// Median returns the median of xs (which it sorts).
func Median(xs []float64) float64 {
	slices.Sort(xs)
	n := len(xs)
	if n == 0 {
		return 0
	}
	if n%2 == 1 {
		return xs[n/2]
	}
	return (xs[n/2-1] + xs[n/2]) / 2
}
