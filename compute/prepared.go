package compute

import (
	"errors"
	"slices"

	"github.com/gour-dev/gour/trace"
	"github.com/gour-dev/gour/ur"
)

// Prepared launches. An element-wise operation's kernel keeps the
// ur.ArgLaunch of its last launch, and the next operation over the same
// range sets the arguments that changed and launches it. Where the
// adapter prepares launches (CUDA: ArgLaunch.Prepared), that launch is
// the driver's one call with its kernelParams table laid out, where
// Queue.LaunchArgs checks and lays out every argument again: 3.9 µs
// against 4.7 µs a launch on the H100 (docs/benchmarks.md, the launch
// model). Elsewhere the ArgLaunch would only add its own checks to
// LaunchArgs's, so a Device that finds its first ArgLaunch unprepared
// keeps to LaunchArgs. While a trace is recorded every Device does: a
// prepared launch has a host span only, and the queue's track in the
// trace would lose the kernels.
//
// An ArgLaunch holds the storage among its arguments: ur frees storage
// only once the last launch holding it has let go. So storage is parked
// before it is freed: devMem.preps counts the prepared launches whose
// arguments point into it, and parkPrepared sets those arguments to the
// Device's parking storage, a small allocation of its own, so that the
// free happens when asked and the prepared launch stays for the next
// operation.

// preparedLaunch is a kernel's prepared launch and what its arguments
// are.
type preparedLaunch struct {
	l             *ur.ArgLaunch
	global, local uint64
	// mems holds, per argument, the storage it points into, or nil for a
	// value (or storage parked).
	mems []*devMem
}

// Whether a Device prepares launches (Device.prepares).
const (
	prepareUnknown int32 = iota // until its first ArgLaunch says
	prepareYes
	prepareNo
)

// alwaysPrepare makes every Device keep prepared launches, whether or not
// the adapter prepares them: the tests' way to run this file's logic on
// adapters that do not (PoCL, the Level Zero test driver).
var alwaysPrepare bool

// launchPrepared launches e over global work-items in groups of local
// with args, mems[i] being the storage argument i points into (nil for a
// value), through e's prepared launch: made at the kernel's second
// launch, its changed arguments set after that. Where the Device does not
// prepare launches, a trace is recorded, or another goroutine is
// launching e, it is d.launch.
func (d *Device) launchPrepared(e *kernelEntry, global, local uint64, args []ur.Arg, mems []*devMem) error {
	if d.prepares.Load() == prepareNo || trace.Active() != nil || !e.prepMu.TryLock() {
		return d.launch(e, global, local, args)
	}
	defer e.prepMu.Unlock()
	p := e.prep
	if p != nil && (p.global != global || p.local != local || len(p.mems) != len(args)) {
		d.dropPrepared(e)
		p = nil
	}
	switch {
	case p == nil && !e.launched:
		// A kernel launched once may never be again: preparing costs
		// more than one launch.
		e.launched = true
		return d.launch(e, global, local, args)
	case p == nil:
		if p = d.prepare(e, global, local, args, mems); p == nil {
			return d.launch(e, global, local, args)
		}
	default:
		if err := p.set(args, mems); err != nil {
			d.dropPrepared(e)
			return d.launch(e, global, local, args)
		}
	}
	err := p.l.Launch()
	d.enqueued.Add(1)
	if err != nil {
		d.dropPrepared(e)
		return err
	}
	d.launches.Add(1)
	return nil
}

// prepare makes e's prepared launch, or returns nil where it cannot be
// made or the Device does not prepare launches. The caller holds
// e.prepMu.
func (d *Device) prepare(e *kernelEntry, global, local uint64, args []ur.Arg, mems []*devMem) *preparedLaunch {
	l, err := d.q.PrepareLaunchArgs(e.k.UR(), ur.Range1D(global).WithLocal(local), ur.LaunchProperties{}, args...)
	if err != nil {
		return nil // LaunchArgs makes the error
	}
	if !l.Prepared() && !alwaysPrepare {
		d.prepares.Store(prepareNo)
		l.Release()
		return nil
	}
	d.prepares.Store(prepareYes)
	p := &preparedLaunch{l: l, global: global, local: local, mems: slices.Clone(mems)}
	for _, m := range p.mems {
		if m != nil {
			m.preps.Add(1)
		}
	}
	d.prepMu.Lock()
	d.prepared = append(d.prepared, e)
	d.prepMu.Unlock()
	e.prep = p
	return p
}

// set gives p the arguments args: the storage of mems where it changed,
// every value (written into the launch's table, which costs less than
// comparing it).
func (p *preparedLaunch) set(args []ur.Arg, mems []*devMem) error {
	for i, m := range mems {
		if m != nil && m == p.mems[i] {
			continue
		}
		if err := p.l.SetArg(i, args[i]); err != nil {
			return err
		}
		if old := p.mems[i]; old != m {
			if old != nil {
				old.preps.Add(-1)
			}
			if m != nil {
				m.preps.Add(1)
			}
			p.mems[i] = m
		}
	}
	return nil
}

// dropPrepared releases e's prepared launch. The caller holds e.prepMu.
func (d *Device) dropPrepared(e *kernelEntry) error {
	p := e.prep
	if p == nil {
		return nil
	}
	e.prep = nil
	for _, m := range p.mems {
		if m != nil {
			m.preps.Add(-1)
		}
	}
	d.prepMu.Lock()
	if i := slices.Index(d.prepared, e); i >= 0 {
		d.prepared = slices.Delete(d.prepared, i, i+1)
	}
	d.prepMu.Unlock()
	return p.l.Release()
}

// preparedEntries is a copy of the entries with a prepared launch, to
// go through taking each one's lock without holding d.prepMu.
func (d *Device) preparedEntries() []*kernelEntry {
	d.prepMu.Lock()
	defer d.prepMu.Unlock()
	return slices.Clone(d.prepared)
}

// parkPrepared points the arguments of the Device's prepared launches
// that point into m at the parking storage instead, before m is freed;
// a launch whose argument cannot be moved is dropped.
func (d *Device) parkPrepared(m *devMem) error {
	var errs []error
	for _, e := range d.preparedEntries() {
		e.prepMu.Lock()
		if p := e.prep; p != nil && slices.Contains(p.mems, m) {
			if err := d.park(p, m); err != nil {
				errs = append(errs, d.dropPrepared(e))
			}
		}
		e.prepMu.Unlock()
	}
	return errors.Join(errs...)
}

// park sets p's arguments pointing into m to the parking storage, made on
// first use. The caller holds the entry's prepMu.
func (d *Device) park(p *preparedLaunch, m *devMem) error {
	d.parkingOnce.Do(func() { d.parking, d.parkingErr = d.allocDev(256) })
	if d.parkingErr != nil {
		return d.parkingErr
	}
	for i, pm := range p.mems {
		if pm != m {
			continue
		}
		if err := p.l.SetArg(i, d.parking.arg()); err != nil {
			return err
		}
		m.preps.Add(-1)
		p.mems[i] = nil
	}
	return nil
}

// releasePrepared releases every prepared launch and the parking storage,
// for Device.Release, after the queue has finished.
func (d *Device) releasePrepared() error {
	var errs []error
	for _, e := range d.preparedEntries() {
		e.prepMu.Lock()
		errs = append(errs, d.dropPrepared(e))
		e.prepMu.Unlock()
	}
	if d.parking != nil {
		errs = append(errs, d.parking.free())
	}
	return errors.Join(errs...)
}
