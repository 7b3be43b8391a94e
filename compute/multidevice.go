package compute

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/gour-dev/gour/blas"
	"github.com/gour-dev/gour/programmgr"
	"github.com/gour-dev/gour/ur"
)

// MultiDeviceOptions configure a MultiDevice context.
type MultiDeviceOptions struct {
	// LocalSize, Buffers and BLAS are every device's, as in
	// DeviceOptions.
	LocalSize int
	Buffers   bool
	BLAS      blas.Backend
	// Separate makes one ur.Context (and program manager) per device
	// instead of one of all the devices. Devices of several platforms
	// get one per device whatever Separate says.
	Separate bool
}

// MultiDevice is a context of several gour devices: an array of it is
// split along its first axis into one part per device (rows lo to hi of
// device i, the rows shared out as evenly as they go, a device holding
// none where there are fewer rows than devices), or replicated, a whole
// copy on every device (FromSliceReplicated, ZerosReplicated: operands
// every device reads whole, as MatMul's b or a broadcast bias).
//
// An operation runs on every device at once: each device's part is
// computed by that device's Device context (Devices), its launches
// enqueued on its own in-order queue without waiting for the others';
// Reduce and Dot enqueue every part's reduction on its device, then
// read the partial results back and combine them in device order;
// ToSlice gathers the parts.
// The results are those of one Device: element-wise work is the same,
// sums differ by rounding as between any two contexts.
//
// An operation's arrays must fit its split: every array of the output's
// first axis is split (an input broadcast along that axis, of fewer
// dimensions or an extent of 1 there, is replicated), and a replicated
// output takes replicated inputs only; anything else is an ErrInvalid
// naming the array, before anything runs.
//
// A device that fails mid-operation makes the operation return a
// *DeviceError naming it (several failing: errors.Join of them); the
// other devices' work is done, and every part stays valid: the parts of
// the devices that succeeded hold the new values, the failing device's
// part its old ones (one Device's rule), readable through Array.Parts.
type MultiDevice struct {
	parts    []*Device
	ctxs     []*ur.Context // owned
	queues   []*ur.Queue   // owned
	mgrs     []*programmgr.Manager
	shared   bool // one ur.Context of every device
	released atomic.Bool
}

// NewMultiDevice returns a context of devs, at least one, each listed
// once: one ur.Context of them all where they share a platform (unless
// opts.Separate), with one program manager, so that devices of one kind
// share their builds; else one per device. Each device gets an in-order
// queue and a Device context (Devices); all are released with the
// MultiDevice.
func NewMultiDevice(devs []*ur.Device, opts MultiDeviceOptions) (*MultiDevice, error) {
	if len(devs) == 0 {
		return nil, fmt.Errorf("%w: NewMultiDevice of no devices", ErrInvalid)
	}
	samePlatform := true
	for i, d := range devs {
		if d == nil {
			return nil, fmt.Errorf("%w: device %d is nil", ErrInvalid, i)
		}
		if slices.Index(devs, d) < i {
			return nil, fmt.Errorf("%w: device %d (%s) is listed twice", ErrInvalid, i, d.Name())
		}
		if d.Platform() != devs[0].Platform() {
			samePlatform = false
		}
	}
	m := &MultiDevice{shared: samePlatform && !opts.Separate}
	dopts := DeviceOptions{LocalSize: opts.LocalSize, Buffers: opts.Buffers, BLAS: opts.BLAS}
	fail := func(err error) (*MultiDevice, error) {
		m.Release()
		return nil, err
	}
	var ctx *ur.Context
	if m.shared {
		c, err := ur.NewContext(devs...)
		if err != nil {
			return nil, err
		}
		m.ctxs = append(m.ctxs, c)
		mgr, err := programmgr.New(c, programmgr.Options{})
		if err != nil {
			return fail(err)
		}
		m.mgrs = append(m.mgrs, mgr)
		ctx, dopts.Manager = c, mgr
	}
	for _, dev := range devs {
		c := ctx
		if c == nil {
			var err error
			if c, err = ur.NewContext(dev); err != nil {
				return fail(err)
			}
			m.ctxs = append(m.ctxs, c)
		}
		q, err := c.NewQueue(dev, ur.QueueProperties{})
		if err != nil {
			return fail(err)
		}
		m.queues = append(m.queues, q)
		d, err := newDevice(q, dopts)
		if err != nil {
			return fail(err)
		}
		m.parts = append(m.parts, d)
	}
	return m, nil
}

// Devices returns the Device context of each device, in the order given
// to NewMultiDevice: part i of a split array is an array of Devices()[i]
// (Array.Parts).
func (m *MultiDevice) Devices() []*Device {
	if m == nil {
		return nil
	}
	return slices.Clone(m.parts)
}

// SharedContext reports whether the devices share one ur.Context.
func (m *MultiDevice) SharedContext() bool { return m != nil && m.shared }

func (m *MultiDevice) String() string {
	if m == nil {
		return "multidevice(nil)"
	}
	s := make([]string, len(m.parts))
	for i, d := range m.parts {
		s[i] = d.String()
	}
	return "multidevice[" + strings.Join(s, ", ") + "]"
}

// Backend returns the devices' backend, the key of Func.Source; each
// device asks its own backend's source, so devices of several backends
// work, and Backend is then "mixed".
func (m *MultiDevice) Backend() string {
	if m == nil || len(m.parts) == 0 {
		return ""
	}
	b := m.parts[0].backend
	for _, d := range m.parts[1:] {
		if d.backend != b {
			return "mixed"
		}
	}
	return b
}

// Wait waits for every device's queue, all at once; a device's failure
// is a *DeviceError.
func (m *MultiDevice) Wait() error {
	if err := m.checkOpen(); err != nil {
		return err
	}
	return m.each("Wait", true, func(_ int, d *Device) error { return d.q.Finish() })
}

// Release releases every device's Device context, then the queues,
// program managers and contexts NewMultiDevice made. Arrays of the
// MultiDevice must be released first. A second Release is a no-op.
func (m *MultiDevice) Release() error {
	if m == nil || m.released.Swap(true) {
		return nil
	}
	var errs []error
	for i, d := range m.parts {
		if err := d.Release(); err != nil {
			errs = append(errs, &DeviceError{Index: i, Device: d.String(), Op: "Release", Err: err})
		}
	}
	for _, q := range m.queues {
		if err := q.Release(); err != nil && !errors.Is(err, ur.ErrInvalidQueue) {
			errs = append(errs, err)
		}
	}
	for _, g := range m.mgrs {
		errs = append(errs, g.Close())
	}
	for _, c := range m.ctxs {
		errs = append(errs, c.Release())
	}
	return errors.Join(errs...)
}

// DeviceError is the error of one device of a MultiDevice: the
// operation, the device's index and name, and the device's error, which
// it wraps (errors.Is(err, ur.ErrOutOfDeviceMemory) and the like hold).
type DeviceError struct {
	Op     string // the operation: "Transform", "Reduce", "ToSlice", ...
	Index  int    // the device's index in the MultiDevice
	Device string // the device's Device context, as its String
	Err    error
}

func (e *DeviceError) Error() string {
	return fmt.Sprintf("compute: %s on device %d %s: %v", e.Op, e.Index, e.Device, e.Err)
}

func (e *DeviceError) Unwrap() error { return e.Err }

// each runs f for every device, on the caller's goroutine in device
// order (f enqueues and returns: the devices run at once) or, with
// concurrent, on a goroutine per device (f waits for its device). Every
// device runs whatever the others do; the failures come back as
// *DeviceErrors, joined.
func (m *MultiDevice) each(op string, concurrent bool, f func(i int, d *Device) error) error {
	errs := make([]error, len(m.parts))
	if concurrent && len(m.parts) > 1 {
		var wg sync.WaitGroup
		for i, d := range m.parts {
			wg.Go(func() { errs[i] = f(i, d) })
		}
		wg.Wait()
	} else {
		for i, d := range m.parts {
			errs[i] = f(i, d)
		}
	}
	return m.deviceErrors(op, errs)
}

// deviceErrors makes errs, device i's error at i, *DeviceErrors of op,
// joined.
func (m *MultiDevice) deviceErrors(op string, errs []error) error {
	for i, err := range errs {
		if err != nil {
			errs[i] = &DeviceError{Op: op, Index: i, Device: m.parts[i].String(), Err: err}
		}
	}
	return errors.Join(errs...)
}

// The engine of a MultiDevice splits work. run hands it every operation
// of an algorithm, written as for one device; exec checks how the work's
// arrays lie across the devices and runs the same work over each
// device's parts, on that device (each kind of work says how: onMulti).
// The parts are staged, run and marked written by their devices' own
// runs, so stage, ready and written have nothing to do here.

func (m *MultiDevice) eng() engine { return m }

func (m *MultiDevice) checkOpen() error {
	if m == nil {
		return fmt.Errorf("%w: nil *MultiDevice", ErrInvalid)
	}
	if m.released.Load() {
		return fmt.Errorf("%w: %v", ErrReleased, m)
	}
	return nil
}

func (m *MultiDevice) zeros(c *core) error { return m.split(c, false, true) }

func (m *MultiDevice) place(c *core, replicated bool) error { return m.split(c, replicated, false) }

func (m *MultiDevice) stage(*core, Access) error { return nil }
func (m *MultiDevice) written(*core)             {}
func (m *MultiDevice) ready(work) error          { return nil }
func (m *MultiDevice) exec(w work) error         { return w.onMulti(m) }

// fence waits for every device: a TaskSequence's invocation on a
// MultiDevice completes with it.
func (m *MultiDevice) fence() (*ur.Event, error) { return nil, m.Wait() }

// split makes c's parts: split along the first axis, or replicated (a
// scalar always is). The parts' host copies are slices of c.host, one
// buffer (replicas share it); with zero, each part is zeroed on its
// device instead.
func (m *MultiDevice) split(c *core, replicated, zero bool) error {
	k := len(m.parts)
	c.replicated = replicated || len(c.shape) == 0
	rows, row := 1, c.n
	if !c.replicated {
		rows = c.shape[0]
		row = 1
		for _, d := range c.shape[1:] {
			row *= d
		}
	}
	c.parts = make([]*core, k)
	c.offs = make([]int, k+1)
	for i, d := range m.parts {
		p := &core{ctx: d, et: c.et}
		if c.replicated {
			p.shape, p.n = slices.Clone(c.shape), c.n
		} else {
			lo, hi := i*rows/k, (i+1)*rows/k
			p.shape = append([]int{hi - lo}, c.shape[1:]...)
			p.n = (hi - lo) * row
			c.offs[i], c.offs[i+1] = lo*row, hi*row
		}
		c.parts[i] = p
	}
	if !zero {
		if err := c.shareHost(); err != nil {
			return err
		}
		for _, p := range c.parts {
			p.hostValid = true
		}
		return nil
	}
	for i, p := range c.parts {
		if err := m.parts[i].zeros(p); err != nil {
			c.releaseParts()
			return &DeviceError{Op: "Zeros", Index: i, Device: m.parts[i].String(), Err: err}
		}
	}
	return nil
}

// shareHost gives c a host buffer, if it has none, and its parts their
// slices of it; c.mu held (or c not yet shared).
func (c *core) shareHost() error {
	if c.host == nil {
		h, err := alignedBytes(int(c.bytes()))
		if err != nil {
			return err
		}
		c.host = h
	}
	size := c.et.size
	for i, p := range c.parts {
		if p.host != nil {
			continue
		}
		if c.replicated {
			p.host = c.host
		} else {
			p.host = c.host[c.offs[i]*size : c.offs[i+1]*size : c.offs[i+1]*size]
		}
	}
	return nil
}

func (c *core) releaseParts() error {
	var errs []error
	for i, p := range c.parts {
		p.mu.Lock()
		if !p.released {
			p.released = true
			p.host = nil
			p.hostValid, p.devValid = false, false
			if p.dev != nil {
				if err := p.dev.free(); err != nil {
					errs = append(errs, &DeviceError{Op: "Release", Index: i, Device: p.ctx.String(), Err: err})
				}
				p.dev = nil
			}
		}
		p.mu.Unlock()
	}
	return errors.Join(errs...)
}

// syncHostMulti makes the host copy of a MultiDevice array valid,
// c.mu held: every part's, downloaded at once; of a replicated array,
// the first valid replica's. It returns the devices' failures as
// *DeviceErrors.
func (c *core) syncHostMulti(op string) error {
	if c.released {
		return fmt.Errorf("%w: array", ErrReleased)
	}
	if err := c.shareHost(); err != nil {
		return err
	}
	m := c.ctx.(*MultiDevice)
	if c.replicated {
		if i := c.validReplica(); i >= 0 {
			p := c.parts[i]
			p.mu.Lock()
			defer p.mu.Unlock()
			if err := p.syncHostLocked(); err != nil {
				return &DeviceError{Op: op, Index: i, Device: m.parts[i].String(), Err: err}
			}
			return nil
		}
		return fmt.Errorf("%w: replicated array has no valid copy", ErrInvalid)
	}
	return m.each(op, true, func(i int, _ *Device) error {
		p := c.parts[i]
		p.mu.Lock()
		defer p.mu.Unlock()
		return p.syncHostLocked()
	})
}

// validReplica returns a replica holding the data: one whose host copy
// is valid, else one whose device copy is; -1 if none.
func (c *core) validReplica() int {
	dev := -1
	for i, p := range c.parts {
		p.mu.Lock()
		h, d := p.hostValid, p.devValid
		p.mu.Unlock()
		if h {
			return i
		}
		if d && dev < 0 {
			dev = i
		}
	}
	return dev
}

// repairReplicas gives every replica of c without a valid copy (its
// device failed an operation writing it) the data of one that has: the
// shared host copy, downloaded from a valid replica if need be.
func (c *core) repairReplicas() error {
	need := false
	for _, p := range c.parts {
		p.mu.Lock()
		need = need || (!p.hostValid && !p.devValid && !p.released)
		p.mu.Unlock()
	}
	if !need {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.syncHostMulti("repair"); err != nil {
		return err
	}
	for _, p := range c.parts {
		p.mu.Lock()
		if !p.devValid {
			p.hostValid = true
		}
		p.mu.Unlock()
	}
	return nil
}

// part returns part i of a as an array of its device.
func part[T Element](a *Array[T], i int) *Array[T] {
	return (*Array[T])(unsafe.Pointer(a.c.parts[i]))
}

// Parts returns an array of a MultiDevice context's parts, part i an
// array of the context's Devices()[i] holding rows Offsets()[i] on (or
// the whole array, replicated): usable with that Device's operations,
// and released with a. Nil for an array of another context.
func (a *Array[T]) Parts() []*Array[T] {
	if a == nil || a.c.parts == nil {
		return nil
	}
	out := make([]*Array[T], len(a.c.parts))
	for i := range out {
		out[i] = part(a, i)
	}
	return out
}

// Replicated reports whether the array is replicated on every device of
// its MultiDevice context.
func (a *Array[T]) Replicated() bool { return a != nil && a.c.replicated }

// FromSliceReplicated returns an array of m holding a copy of data, as
// FromSlice, replicated: every device holds all of it.
func FromSliceReplicated[T Element](m *MultiDevice, data []T, shape ...int) (*Array[T], error) {
	if m == nil {
		return nil, fmt.Errorf("%w: nil *MultiDevice", ErrInvalid)
	}
	return fromSlice(m, data, true, shape)
}

// ZerosReplicated returns an array of m of zeros, as Zeros, replicated:
// every device holds all of it.
func ZerosReplicated[T Element](m *MultiDevice, shape ...int) (*Array[T], error) {
	if m == nil {
		return nil, fmt.Errorf("%w: nil *MultiDevice", ErrInvalid)
	}
	a, err := newArray[T](m, shape)
	if err != nil {
		return nil, err
	}
	if err := m.split(&a.c, true, true); err != nil {
		return nil, err
	}
	return a, nil
}

// marg is one array of a multi-device operation: its core, its role in
// errors, and whether it must follow the output's split (an input of
// the output's first axis) or be replicated.
type marg struct {
	c    *core
	what string
	in   bool // an input: replicated inputs are repaired first
	rep  bool // must be replicated whatever its shape (MatMul's 2-D b)
	spl  bool // follows the output's split whatever its shape (ReduceAxis's input)
}

// checkMulti checks an operation's arrays on m: m is open, every array
// live, of m and split as the operation needs: with a split output,
// every array of the output's first axis (follows) split and the others
// replicated; with a replicated output, all replicated.
func checkMulti(m *MultiDevice, out *core, args []marg) error {
	if err := m.checkOpen(); err != nil {
		return err
	}
	for _, a := range args {
		if a.c == nil {
			return fmt.Errorf("%w: nil %s array", ErrInvalid, a.what)
		}
		if a.c.ctx != Context(m) {
			return fmt.Errorf("%w: %s array of %v used with %v", ErrWrongContext, a.what, a.c.ctx, m)
		}
		a.c.mu.Lock()
		released := a.c.released
		a.c.mu.Unlock()
		if released {
			return fmt.Errorf("%w: %s array", ErrReleased, a.what)
		}
	}
	for _, a := range args {
		if a.c == out {
			continue
		}
		follows := !out.replicated && !a.rep && (a.spl || len(a.c.shape) == len(out.shape) && len(out.shape) > 0 && a.c.shape[0] == out.shape[0])
		switch {
		case out.replicated && !a.c.replicated:
			return fmt.Errorf("%w: %s array %v is split across the devices, the output replicated: replicate it", ErrInvalid, a.what, a.c.shape)
		case !out.replicated && follows && a.c.replicated:
			return fmt.Errorf("%w: %s array %v is replicated; it follows the split output's first axis %v: split it", ErrInvalid, a.what, a.c.shape, out.shape)
		case !out.replicated && !follows && !a.c.replicated:
			return fmt.Errorf("%w: %s array %v is split across the devices but not along the output's first axis %v: replicate it", ErrInvalid, a.what, a.c.shape, out.shape)
		}
	}
	for _, a := range args {
		if a.in && a.c.replicated {
			if err := a.c.repairReplicas(); err != nil {
				return err
			}
		}
	}
	return nil
}

// runMulti runs f, an operation of one device, on every device's
// parts: enqueued in device order, the devices working at once. A
// replicated output whose device failed loses that replica (its
// device's copy no longer agrees with the others'), to be repaired
// from another before it is read.
func runMulti(m *MultiDevice, op string, out *core, f func(i int, d *Device) error) error {
	err := m.each(op, false, f)
	if err != nil && out != nil && out.replicated {
		var de *DeviceError
		for _, e := range unjoin(err) {
			if errors.As(e, &de) {
				p := out.parts[de.Index]
				p.mu.Lock()
				p.hostValid, p.devValid = false, false
				p.mu.Unlock()
			}
		}
	}
	return err
}

func unjoin(err error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	return []error{err}
}

// partWork is work that runs on a MultiDevice as the same work over each
// device's parts (splitRun).
type partWork interface {
	// layout returns the operation's name, its output and its arrays, as
	// checkMulti takes them.
	layout() (what string, out *core, args []marg)
	// onPart returns the work over part i of each of its arrays, with
	// their uses.
	onPart(i int) (work, []use, error)
}

// splitRun runs w on m: its arrays checked, then w over every device's
// parts on that device, the devices working at once.
func splitRun(m *MultiDevice, w partWork) error {
	what, out, args := w.layout()
	if err := checkMulti(m, out, args); err != nil {
		return err
	}
	return runMulti(m, what, out, func(i int, d *Device) error {
		pw, uses, err := w.onPart(i)
		if err != nil {
			return err
		}
		return run(d, pw, uses)
	})
}

// margsOf describes cores as arrays of an operation.
func margsOf(what string, in bool, cs ...*core) []marg {
	out := make([]marg, len(cs))
	for i, c := range cs {
		out[i] = marg{c: c, what: what, in: in}
	}
	return out
}

// partsOf returns part i of each of cs.
func partsOf(cs []*core, i int) []*core {
	out := make([]*core, len(cs))
	for k, c := range cs {
		out[k] = c.parts[i]
	}
	return out
}

// onMulti reduces every part on its device and combines the partial
// results in device order; a replicated array is reduced on its first
// device. It enqueues every device's passes first, in device order,
// then every read-back, and only then waits for them: the devices
// reduce at once, with no host round trip between. A reduction into an
// array (ReduceAxis along an axis that is the whole array) reduces each
// device's part into its part of the output.
func (op *redOp) onMulti(m *MultiDevice) error {
	what := "Reduce"
	if op.into != nil {
		what = "ReduceAxis"
	} else if op.b != nil {
		what = "Dot"
	}
	args := margsOf(what+" input", true, op.a)
	if op.b != nil {
		args = append(args, margsOf(what+" input", true, op.b)...)
	}
	out := op.a
	if op.into != nil {
		if !op.a.replicated && op.axis == 0 {
			return fmt.Errorf("%w: ReduceAxis along axis 0 of an array split along it across devices: Reduce it, or replicate it", ErrInvalid)
		}
		out = op.into
		args[0].spl = true // axis > 0: into keeps the input's first axis
		args = append(args, margsOf(what+" output", false, op.into)...)
	}
	if err := checkMulti(m, out, args); err != nil {
		return err
	}
	onPart := func(i int) (*redOp, []use) {
		p := *op
		p.n, p.a, p.deferred = op.a.parts[i].n, op.a.parts[i], op.into == nil
		p.k1, p.k2, p.k1v, p.res = nil, nil, nil, nil
		uses := []use{{p.a, In}}
		if op.b != nil {
			p.b = op.b.parts[i]
			uses = append(uses, use{p.b, In})
		}
		if op.into != nil {
			p.into = op.into.parts[i]
			uses = append(uses, use{p.into, Out})
		}
		return &p, uses
	}
	if op.into != nil {
		return runMulti(m, what, op.into, func(i int, d *Device) error {
			p, uses := onPart(i)
			return run(d, p, uses)
		})
	}
	k := len(m.parts)
	if op.a.replicated {
		k = 1
	}
	ops := make([]*redOp, k)
	errs := make([]error, k)
	for i, d := range m.parts[:k] {
		p, uses := onPart(i)
		ops[i], errs[i] = p, run(d, p, uses)
	}
	for i, p := range ops {
		if errs[i] == nil {
			errs[i] = p.readBack(true)
		}
	}
	for i, p := range ops {
		errs[i] = p.finish(errs[i])
	}
	if err := m.deviceErrors(what, errs); err != nil {
		return err
	}
	if k == 1 {
		op.res = ops[0].res
		return nil
	}
	res := make([][]byte, k)
	for i, p := range ops {
		res[i] = p.res
	}
	var err error
	op.res, err = op.fns.combine(res)
	return err
}
