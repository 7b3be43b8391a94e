package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/gour-dev/gour/gokernel"
	"github.com/gour-dev/gour/programmgr"
	"github.com/gour-dev/gour/ur"
)

// device is what the benchmark runs on: a context on one device, a
// profiling queue for the kernels' timing (timestamps recorded on the
// device), a plain queue for the launch cost, a program manager building
// the kernels of both languages, and the memory allocated.
type device struct {
	dev      *ur.Device
	ctx      *ur.Context
	q        *ur.Queue // profiling: the kernels' checks and timing
	lq       *ur.Queue // plain: the launch cost
	mgr      *programmgr.Manager
	deviceNS bool // q records device timestamps; else host time around Finish

	cImg *programmgr.Image
	cErr error // why the C kernels cannot run here, or nil

	goKernels map[string]*gokernel.Kernel
	cKernels  map[string]*programmgr.Kernel
	usm       []*ur.USM
	err       error // the first allocation or copy that failed
}

// newDevice sets up dev. The C image failing to build does not fail it:
// the C column then says why.
func newDevice(dev *ur.Device) (d *device, err error) {
	d = &device{dev: dev, goKernels: map[string]*gokernel.Kernel{}, cKernels: map[string]*programmgr.Kernel{}}
	defer func() {
		if err != nil {
			d.close()
		}
	}()
	if d.ctx, err = ur.NewContext(dev); err != nil {
		return nil, err
	}
	if d.q, err = d.ctx.NewQueue(dev, ur.QueueProperties{Profiling: true}); err != nil {
		return nil, err
	}
	if d.lq, err = d.ctx.NewQueue(dev, ur.QueueProperties{}); err != nil {
		return nil, err
	}
	if d.mgr, err = programmgr.New(d.ctx, programmgr.Options{}); err != nil {
		return nil, err
	}
	if ev, err := d.q.EnqueueTimestampRecording(true); err == nil {
		_, perr := ev.Profiling()
		d.deviceNS = perr == nil
		ev.Release()
	}
	if d.cImg, d.cErr = cImage(dev.Backend()); d.cErr == nil {
		var p *programmgr.Program
		if p, d.cErr = d.mgr.GetProgram(context.Background(), d.cImg, []*ur.Device{dev}, programmgr.SpecValues{}, ""); d.cErr == nil {
			p.Release()
		}
	}
	return d, nil
}

// close releases everything d holds.
func (d *device) close() {
	for _, k := range d.goKernels {
		k.Release()
	}
	for _, k := range d.cKernels {
		k.Release()
	}
	for _, u := range d.usm {
		u.Free()
	}
	if d.mgr != nil {
		d.mgr.Close()
	}
	for _, q := range []*ur.Queue{d.q, d.lq} {
		if q != nil {
			q.Release()
		}
	}
	if d.ctx != nil {
		d.ctx.Release()
	}
}

// timer names how d times kernels.
func (d *device) timer() string {
	if d.deviceNS {
		return "device timestamps around each round of launches"
	}
	return "host clock around each round of launches and a Finish"
}

// goKernel is the Go kernel called name, built once.
func (d *device) goKernel(name string) (*gokernel.Kernel, error) {
	if k := d.goKernels[name]; k != nil {
		return k, nil
	}
	k, err := kernels.Kernel(context.Background(), d.mgr, d.dev, name)
	if err != nil {
		return nil, err
	}
	d.goKernels[name] = k
	return k, nil
}

// cKernel is the C kernel called name, built once; d.cErr when the C
// kernels cannot run here.
func (d *device) cKernel(name string) (*ur.Kernel, error) {
	if d.cErr != nil {
		return nil, d.cErr
	}
	if k := d.cKernels[name]; k != nil {
		return k.UR(), nil
	}
	k, err := d.mgr.GetKernel(context.Background(), d.cImg, name, d.dev, programmgr.SpecValues{}, "")
	if err != nil {
		return nil, err
	}
	d.cKernels[name] = k
	return k.UR(), nil
}

// upload copies xs into new device memory. A failure is kept in d.err
// (and the pointer is nil), so that a case checks once after its
// allocations.
func (d *device) upload(xs []float32) ur.Ptr {
	p := d.alloc(len(xs))
	if d.err == nil {
		d.err = d.q.CopyToPtr(p, ur.AsBytes(xs))
	}
	return p
}

// alloc allocates n float32s of device memory, as upload.
func (d *device) alloc(n int) ur.Ptr {
	if d.err != nil {
		return ur.Ptr{}
	}
	u, err := d.ctx.AllocDevice(d.dev, uint64(4*max(n, 1)))
	if err != nil {
		d.err = err
		return ur.Ptr{}
	}
	d.usm = append(d.usm, u)
	return u.Ptr()
}

// read copies n float32s from p.
func (d *device) read(p ur.Ptr, n int) ([]float32, error) {
	xs := make([]float32, n)
	return xs, d.q.CopyFromPtr(ur.AsBytes(xs), p)
}

// poison fills n float32s at p with NaNs, so that an element a kernel
// fails to write fails the check.
func (d *device) poison(p ur.Ptr, n int) error {
	ev, err := d.q.EnqueueMemFill(p, []byte{0xff, 0xff, 0xff, 0xff}, uint64(4*n))
	if err != nil {
		return err
	}
	ev.Release()
	return d.q.Finish()
}

// timeRound returns the time per launch, in µs, of n launches of run on
// d.q, back to back: between timestamps recorded on the device before
// the first and after the last, or by the host clock from a Finished
// queue to the Finish after the last.
func (d *device) timeRound(n int, run func(*ur.Queue) error) (float64, error) {
	if !d.deviceNS {
		if err := d.q.Finish(); err != nil {
			return 0, err
		}
		start := time.Now()
		for range n {
			if err := run(d.q); err != nil {
				return 0, err
			}
		}
		err := d.q.Finish()
		return float64(time.Since(start).Nanoseconds()) / 1e3 / float64(n), err
	}
	start, err := d.q.EnqueueTimestampRecording(false)
	if err != nil {
		return 0, err
	}
	defer start.Release()
	for range n {
		if err := run(d.q); err != nil {
			return 0, err
		}
	}
	end, err := d.q.EnqueueTimestampRecording(true)
	if err != nil {
		return 0, err
	}
	defer end.Release()
	ps, err := start.Profiling()
	if err != nil {
		return 0, err
	}
	pe, err := end.Profiling()
	if err != nil {
		return 0, err
	}
	if pe.End < ps.End {
		return 0, errors.New("the device's timestamps went backwards")
	}
	return float64(pe.End-ps.End) / 1e3 / float64(n), nil
}

// String describes the device.
func (d *device) String() string {
	return fmt.Sprintf("%s (%s)", d.dev.Name(), d.dev.Backend())
}
