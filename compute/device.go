package compute

import (
	"context"
	"errors"
	"fmt"
	"math/bits"
	"sync"
	"sync/atomic"

	"github.com/gour-dev/gour/blas"
	"github.com/gour-dev/gour/programmgr"
	"github.com/gour-dev/gour/ur"
)

// DeviceOptions configure a Device context made with NewDeviceFrom.
type DeviceOptions struct {
	// Manager builds and caches the context's kernels. nil: the Device
	// makes one from the environment (programmgr.Options{}), with the
	// process's persistent cache, and closes it at Release.
	Manager *programmgr.Manager
	// LocalSize is the work-group size of the package's launches, a
	// power of two; 0 picks 256, less where the device or a kernel
	// allows less.
	LocalSize int
	// Buffers makes arrays use ur.Mem buffers even where the device has
	// device USM.
	Buffers bool
	// BLAS is the backend of MatMul's package blas handle: "" takes the
	// device's vendor library where it loads (cuBLAS, CLBlast) and
	// blas's own kernels elsewhere; blas.BackendGour forces the own
	// kernels. A backend that cannot serve the device fails MatMul with
	// an error wrapping blas.ErrLibraryUnavailable.
	BLAS blas.Backend
	// ElementsPerThread is how many consecutive elements a work-item of
	// an expression's Transform computes, and a work-item of a
	// reduction's first pass reads at a time: 4 loads (and stores) them
	// as vectors (where every array is aligned to four elements, as the
	// package's are; one at a time otherwise), the way kernels reach a
	// GPU's memory bandwidth; 1 one. 0 picks 4 on a GPU, 1 elsewhere (a
	// CPU device vectorizes across work-items itself). A Func of
	// hand-written kernels always has one a work-item.
	ElementsPerThread int
}

// Device is the context of one gour device: arrays live in its memory and
// operations are kernels on its queue, built through the program manager
// (so built once per process, and loaded from gour's persistent cache in
// the next). Device kernels are OpenCL C on "opencl" devices, CUDA C on
// "cuda" devices, and OpenCL C compiled to SPIR-V on "level_zero" devices
// (by clang and llvm-spirv, found on PATH; without them a build gives an
// error wrapping ur.ErrUnsupportedFeature).
//
// Operations enqueue on one in-order queue and return without waiting for
// the device, except those that return a value to the host (Reduce, Dot,
// ToSlice, Host): the queue's order is what keeps an array's copies
// consistent. A Device may be used by several goroutines at once.
type Device struct {
	dev       *ur.Device
	ctx       *ur.Context
	q         *ur.Queue
	mgr       *programmgr.Manager
	pool      *ur.Pool
	ownCtx    bool // ctx and q are the Device's
	ownQueue  bool // q (not ctx) is the Device's: a task sequence's lane
	ownMgr    bool
	useUSM    bool
	backend   string
	local     uint64 // work-group size
	groups    uint64 // the first reduction pass's work-groups, at most
	perThread int    // DeviceOptions.ElementsPerThread, resolved: 1 or 4
	options   string // build options of the package's kernels
	// kernelCopy makes Copy run the copy kernel, not the driver's copy:
	// on a CPU device, where PoCL copies a buffer on one thread and the
	// kernel on all of them, at a multiple of the bandwidth
	// (docs/benchmarks.md, "Reductions and copies on a CPU device").
	kernelCopy bool

	kernels kernelTable

	gemm       gemmHandle // MatMul's BLAS handle on q
	fp16, fp64 bool

	released atomic.Bool
	launches atomic.Int64

	progress queueProgress
	partials partialsPool
}

// queueProgress tells fence whether q has work pending. enqueued counts
// the commands enqueued on q that return before they complete, each
// counted after its enqueue returned; settled is the largest count read
// before a call that waited for q (a blocking read or write, Finish)
// began: q is in order, so every command counted up to settled has
// completed. fence needs no marker when settled has caught up. shared:
// others may enqueue on q too (NewDeviceFrom's caller, or anyone given q
// by UR), unseen here, so fence always marks.
type queueProgress struct {
	enqueued atomic.Uint64
	settled  atomic.Uint64
	shared   atomic.Bool
}

// kernelTable holds the kernels a Device found or built, by program and
// name; nil after Release.
type kernelTable struct {
	mu   sync.Mutex
	byID map[kernelID]*kernelEntry
}

// partialsPool keeps buffers of partialsSize bytes for reductions' partial
// results from one reduction for the next (takePartials): a buffer made
// and released for every Reduce cost NVIDIA's OpenCL a clCreateBuffer and
// a clReleaseMemObject each time.
type partialsPool struct {
	mu   sync.Mutex
	kept []*devMem
}

// partialsSize is the size of a reduction's buffer of partial results:
// one element, of at most 8 bytes, for each work-group of the first pass.
func (d *Device) partialsSize() uint64 { return d.groups * 8 }

// keptPartials bounds the buffers kept: one for each reduction running at
// once, up to this many.
const keptPartials = 4

// takePartials returns a buffer of partialsSize bytes: a kept one, or a
// new one.
func (d *Device) takePartials() (*devMem, error) {
	p := &d.partials
	p.mu.Lock()
	if n := len(p.kept); n > 0 {
		m := p.kept[n-1]
		p.kept = p.kept[:n-1]
		p.mu.Unlock()
		return m, nil
	}
	p.mu.Unlock()
	if d.backend == "opencl" && d.useUSM {
		// A buffer even where the arrays are USM: OpenCL's USM is often
		// SVM, whose read-back of the result NVIDIA's OpenCL makes
		// about 100 µs slower than a buffer's (docs/benchmarks.md,
		// "The layering redesign and Go kernels on the H100").
		return d.allocBuffer(d.partialsSize())
	}
	return d.allocDev(d.partialsSize())
}

// givePartials keeps m, taken from takePartials, for the next reduction,
// or frees it when enough are kept. The next reduction's commands go to
// the same in-order queue, so m may be given back while the passes that
// wrote it are pending, but not while a read of it is still to be
// enqueued (Reduce gives it back once its result is read).
func (d *Device) givePartials(m *devMem) error {
	p := &d.partials
	p.mu.Lock()
	if len(p.kept) < keptPartials && !d.released.Load() {
		p.kept = append(p.kept, m)
		p.mu.Unlock()
		return nil
	}
	p.mu.Unlock()
	return m.free()
}

// freePartials frees the kept buffers.
func (d *Device) freePartials() error {
	p := &d.partials
	p.mu.Lock()
	kept := p.kept
	p.kept = nil
	p.mu.Unlock()
	var errs []error
	for _, m := range kept {
		errs = append(errs, m.free())
	}
	return errors.Join(errs...)
}

// kernelID names a kernel: its program's key and its name.
type kernelID struct{ key, name string }

type kernelEntry struct {
	k     *programmgr.Kernel
	local uint64 // the work-group size for this kernel
}

// NewDevice returns a Device context of its own on dev: a ur.Context, an
// in-order queue and a program manager, all released with the Device.
func NewDevice(dev *ur.Device) (*Device, error) {
	if dev == nil {
		return nil, fmt.Errorf("%w: nil device", ErrInvalid)
	}
	ctx, err := ur.NewContext(dev)
	if err != nil {
		return nil, err
	}
	q, err := ctx.NewQueue(dev, ur.QueueProperties{})
	if err != nil {
		ctx.Release()
		return nil, err
	}
	d, err := newDevice(q, DeviceOptions{})
	if err != nil {
		q.Release()
		ctx.Release()
		return nil, err
	}
	d.ownCtx = true
	d.progress.shared.Store(false)
	return d, nil
}

// NewDeviceFrom returns a Device context on q, an in-order queue, and
// its ur.Context: both stay the caller's and must outlive the Device.
// Work the caller enqueues on q is ordered with the Device's.
func NewDeviceFrom(q *ur.Queue, opts DeviceOptions) (*Device, error) {
	if q == nil {
		return nil, fmt.Errorf("%w: nil queue", ErrInvalid)
	}
	return newDevice(q, opts)
}

func newDevice(q *ur.Queue, opts DeviceOptions) (*Device, error) {
	dev, ctx := q.Device(), q.Context()
	if dev == nil || ctx == nil {
		return nil, fmt.Errorf("%w: queue without device or context (released?)", ErrInvalid)
	}
	info := dev.Info()
	d := &Device{dev: dev, ctx: ctx, q: q, backend: dev.Backend(), kernels: kernelTable{byID: map[kernelID]*kernelEntry{}},
		gemm: gemmHandle{backend: opts.BLAS}, fp16: info.FP16, fp64: info.FP64}
	d.progress.shared.Store(true) // the caller's queue, until NewDevice says it is the Device's own
	if opts.LocalSize < 0 || opts.LocalSize&(opts.LocalSize-1) != 0 {
		return nil, fmt.Errorf("%w: LocalSize %d is not a power of two", ErrInvalid, opts.LocalSize)
	}
	switch opts.ElementsPerThread {
	case 0:
		d.perThread = 1
		if info.Type == ur.DeviceTypeGPU {
			d.perThread = 4
		}
	case 1, 4:
		d.perThread = opts.ElementsPerThread
	default:
		return nil, fmt.Errorf("%w: ElementsPerThread %d: 0, 1 or 4", ErrInvalid, opts.ElementsPerThread)
	}
	d.local = 256
	if opts.LocalSize > 0 {
		d.local = uint64(opts.LocalSize)
	}
	if m := info.MaxWorkGroupSize; m > 0 && d.local > m {
		d.local = 1 << (bits.Len64(m) - 1)
	}
	// Enough groups to fill the device twice over (16 per compute unit,
	// which measured faster than 8: docs/benchmarks.md, "The compute
	// runtime on the H100"), few enough that the second pass is one small
	// group.
	d.groups = uint64(max(1, info.ComputeUnits)) * 16
	if info.Type == ur.DeviceTypeCPU {
		d.options = "-DCOMPUTE_BLOCKED" // see stridedLoop
		d.kernelCopy = true
	}
	d.mgr = opts.Manager
	if d.mgr == nil {
		m, err := programmgr.New(ctx, programmgr.Options{})
		if err != nil {
			return nil, err
		}
		d.mgr, d.ownMgr = m, true
	}
	d.useUSM = info.USM.Device && !opts.Buffers
	if d.useUSM {
		// A pool makes an allocation on the queue without a device
		// synchronisation; without one, device USM still works.
		// Blocks from plain allocations: a process's first allocation
		// from CUDA's stream-ordered pool costs more than everything else
		// in a warm start (docs/benchmarks.md, "The compute runtime on the
		// H100", "The first Transform").
		if p, err := ctx.NewPool(dev, ur.PoolOptions{ReleaseThreshold: 64 << 20, ContextAlloc: true}); err == nil {
			d.pool = p
		}
	}
	return d, nil
}

// newLane returns a Device on a new in-order queue of d's device and
// context, with d's program manager and options: a task sequence's lane.
// Its Release releases the queue, not the context or the manager.
func (d *Device) newLane() (*Device, error) {
	if err := d.checkOpen(); err != nil {
		return nil, err
	}
	q, err := d.ctx.NewQueue(d.dev, ur.QueueProperties{})
	if err != nil {
		return nil, err
	}
	lane, err := newDevice(q, DeviceOptions{Manager: d.mgr, LocalSize: int(d.local), Buffers: !d.useUSM, BLAS: d.gemm.backend, ElementsPerThread: d.perThread})
	if err != nil {
		return nil, errors.Join(err, q.Release())
	}
	lane.ownQueue = true
	lane.progress.shared.Store(false)
	return lane, nil
}

// UR returns the device, context and queue the Device works on: for
// launching kernels of one's own on arrays (Array.Arg), on q.
func (d *Device) UR() (*ur.Device, *ur.Context, *ur.Queue) {
	if d == nil {
		return nil, nil, nil
	}
	d.progress.shared.Store(true)
	return d.dev, d.ctx, d.q
}

// Manager returns the program manager building the Device's kernels.
func (d *Device) Manager() *programmgr.Manager {
	if d == nil {
		return nil
	}
	return d.mgr
}

// UsesUSM reports whether arrays live in device USM (else in ur.Mem
// buffers).
func (d *Device) UsesUSM() bool { return d != nil && d.useUSM }

// Launches returns how many kernels the Device has launched.
func (d *Device) Launches() int64 {
	if d == nil {
		return 0
	}
	return d.launches.Load()
}

func (d *Device) String() string {
	if d == nil {
		return "device(nil)"
	}
	return fmt.Sprintf("device(%s:%d %s)", d.backend, d.dev.Index(), d.dev.Name())
}

// Backend returns the device's backend: "opencl", "cuda" or "level_zero".
func (d *Device) Backend() string {
	if d == nil {
		return ""
	}
	return d.backend
}

// Wait waits for everything enqueued on the Device's queue.
func (d *Device) Wait() error {
	if err := d.checkOpen(); err != nil {
		return err
	}
	return d.finish()
}

// Release waits for the queue, then releases the kernels, the pool, the
// manager (if the Device made it) and the context and queue (if
// NewDevice made them). Arrays of the Device must be released first.
// A second Release is a no-op.
func (d *Device) Release() error {
	if d == nil || d.released.Swap(true) {
		return nil
	}
	errs := []error{d.q.Finish(), d.closeBLAS(), d.freePartials()}
	d.kernels.mu.Lock()
	for _, e := range d.kernels.byID {
		errs = append(errs, e.k.Release())
	}
	d.kernels.byID = nil
	d.kernels.mu.Unlock()
	if d.pool != nil {
		errs = append(errs, d.pool.Release())
	}
	if d.ownMgr {
		errs = append(errs, d.mgr.Close())
	}
	switch {
	case d.ownCtx:
		errs = append(errs, d.q.Release(), d.ctx.Release())
	case d.ownQueue:
		errs = append(errs, d.q.Release())
	}
	return errors.Join(errs...)
}

func (d *Device) eng() engine { return d }

func (d *Device) checkOpen() error {
	if d == nil {
		return fmt.Errorf("%w: nil *Device", ErrInvalid)
	}
	if d.released.Load() {
		return fmt.Errorf("%w: %v", ErrReleased, d)
	}
	return nil
}

// devMem is an array's device storage: a USM device allocation where
// the device has device USM, else a buffer. Only this type and
// Device.allocDev know which.
type devMem struct {
	d      *Device
	usm    *ur.USM
	mem    *ur.Mem
	pooled bool // usm came from the Device's pool, on its queue
}

func (m *devMem) arg() ur.Arg {
	if m.usm != nil {
		return ur.ArgPtr(m.usm.Ptr())
	}
	return ur.ArgBuffer(m.mem)
}

func (d *Device) allocDev(size uint64) (*devMem, error) {
	if !d.useUSM {
		return d.allocBuffer(size)
	}
	if d.pool != nil {
		u, err := d.q.AllocAsync(d.pool, size)
		if err != nil {
			return nil, err
		}
		d.progress.enqueued.Add(1)
		return &devMem{d: d, usm: u, pooled: true}, nil
	}
	u, err := d.ctx.AllocDevice(d.dev, size)
	if err != nil {
		return nil, err
	}
	return &devMem{d: d, usm: u}, nil
}

// allocBuffer gives size bytes of buffer storage.
func (d *Device) allocBuffer(size uint64) (*devMem, error) {
	m, err := d.ctx.NewBuffer(ur.MemReadWrite, size)
	if err != nil {
		return nil, err
	}
	return &devMem{d: d, mem: m}, nil
}

// alignedTo reports whether m's storage starts at a multiple of b bytes:
// a buffer's does (OpenCL aligns a buffer to CL_DEVICE_MEM_BASE_ADDR_ALIGN,
// at least the size of a long16, 128 bytes).
func (m *devMem) alignedTo(b uint64) bool {
	return m.usm == nil || uint64(m.usm.Ptr().Addr())%b == 0
}

// free frees m after the work enqueued so far: a pooled allocation is
// freed in the queue's order, a buffer's release is deferred by the
// driver until its commands are done, and a plain USM allocation, which
// Free would free at once, after the queue has finished.
func (m *devMem) free() error {
	switch {
	case m.mem != nil:
		return m.mem.Release()
	case m.pooled:
		defer m.d.progress.enqueued.Add(1)
		return m.d.q.FreeAsync(m.usm)
	default:
		return errors.Join(m.d.finish(), m.usm.Free())
	}
}

// write copies src, the storage's size, to the device, in the queue's
// order.
func (m *devMem) write(src []byte) error {
	return m.d.waiting(func() error {
		if m.usm != nil {
			return m.d.q.CopyToPtr(m.usm.Ptr(), src)
		}
		return m.d.q.WriteBuffer(m.mem, 0, src)
	})
}

// read copies the storage into dst, its size, after the work enqueued so
// far.
func (m *devMem) read(dst []byte) error {
	return m.d.waiting(func() error {
		if m.usm != nil {
			return m.d.q.CopyFromPtr(dst, m.usm.Ptr())
		}
		return m.d.q.ReadBuffer(m.mem, 0, dst)
	})
}

// copyFrom copies size bytes of src into m with the driver's copy, in
// the queue's order: a copy engine's bandwidth, not a kernel's. ok is
// false where the two storages are not of one kind (never, within one
// Device).
func (m *devMem) copyFrom(src *devMem, size uint64) (ok bool, err error) {
	var ev *ur.Event
	switch {
	case m.usm != nil && src.usm != nil:
		ev, err = m.d.q.EnqueueMemcpy(m.usm.Ptr(), src.usm.Ptr(), size)
	case m.mem != nil && src.mem != nil:
		ev, err = m.d.q.EnqueueCopy(src.mem, m.mem, 0, 0, size)
	default:
		return false, nil
	}
	m.d.progress.enqueued.Add(1)
	if ev != nil {
		ev.Release() // the queue's order is what the next operation waits on
	}
	return true, err
}

// readAsync enqueues copying the storage into dst, its size, after the
// work enqueued so far; dst holds it once the event completes (the
// queue keeps dst alive until then).
func (m *devMem) readAsync(dst []byte) (*ur.Event, error) {
	defer m.d.progress.enqueued.Add(1)
	if m.usm != nil {
		return m.d.q.EnqueueCopyFromPtr(dst, m.usm.Ptr())
	}
	return m.d.q.EnqueueRead(m.mem, 0, dst)
}

// stage gives c device storage and, for In, uploads a stale device copy.
func (d *Device) stage(c *core, mode Access) error {
	if c.n == 0 {
		c.devValid = true // nothing to copy
		return nil
	}
	if c.dev == nil {
		m, err := d.allocDev(c.bytes())
		if err != nil {
			return err
		}
		c.dev = m
	}
	if mode&In != 0 && !c.devValid {
		if !c.hostValid {
			return fmt.Errorf("%w: array has no valid copy", ErrInvalid)
		}
		if err := c.dev.write(c.host); err != nil {
			return err
		}
		c.uploads.Add(1)
		c.devValid = true
	}
	return nil
}

// written leaves the device copy, which the operation wrote, the only
// valid one.
func (d *Device) written(c *core) { c.devValid, c.hostValid = true, false }

// ready finds or builds w's kernels; run checked the Device open.
func (d *Device) ready(w work) error { return w.kernels(d) }

// exec enqueues w.
func (d *Device) exec(w work) error { return w.onDevice(d) }

// place leaves the upload to the first operation that reads c.
func (d *Device) place(*core, bool) error { return nil }

// zeros gives c zeroed device storage with a fill command: no transfer.
func (d *Device) zeros(c *core) error {
	c.devValid = true
	if c.n == 0 {
		return nil
	}
	m, err := d.allocDev(c.bytes())
	if err != nil {
		return err
	}
	zero := make([]byte, c.et.size)
	var ev *ur.Event
	if m.usm != nil {
		ev, err = d.q.EnqueueMemFill(m.usm.Ptr(), zero, c.bytes())
	} else {
		ev, err = d.q.EnqueueFill(m.mem, zero, 0, c.bytes())
	}
	d.progress.enqueued.Add(1)
	if err != nil {
		m.free()
		return err
	}
	if ev != nil {
		ev.Release() // the in-order queue orders what comes next
	}
	c.dev = m
	return nil
}

// fence returns a marker after the work enqueued so far, or nil where
// that work has completed already: a task sequence's invocation that
// ended by reading a result back needs no marker to wait on.
func (d *Device) fence() (*ur.Event, error) {
	if !d.progress.shared.Load() && d.progress.settled.Load() >= d.progress.enqueued.Load() {
		return nil, nil
	}
	return d.q.EnqueueMarker()
}

// waiting runs call, which waits for q (a blocking read or write, in the
// queue's order), and marks the commands counted before it began
// complete once it succeeded.
func (d *Device) waiting(call func() error) error {
	n := d.progress.enqueued.Load()
	if err := call(); err != nil {
		return err
	}
	for {
		s := d.progress.settled.Load()
		if s >= n || d.progress.settled.CompareAndSwap(s, n) {
			return nil
		}
	}
}

// finish waits for q.
func (d *Device) finish() error { return d.waiting(d.q.Finish) }

// kernel returns the kernel name of the program that source makes,
// building it through the manager the first time key is asked for.
func (d *Device) kernel(s *kernelSrc, name string) (*kernelEntry, error) {
	id := kernelID{s.key, name}
	d.kernels.mu.Lock()
	e, ok := d.kernels.byID[id]
	d.kernels.mu.Unlock()
	if ok {
		return e, nil
	}
	src, err := deviceSource(s.source, d.backend)
	if err != nil {
		return nil, err
	}
	desc := programmgr.ImageDesc{
		Format:       programmgr.FormatOpenCLC,
		Bytes:        []byte(src),
		Requirements: programmgr.Requirements{FP64: s.fp64},
	}
	if d.backend == "cuda" {
		desc.Format = programmgr.FormatCUDAC
	}
	img, err := programmgr.NewImage(desc)
	if err != nil {
		return nil, err
	}
	k, err := d.mgr.GetKernel(context.Background(), img, name, d.dev, programmgr.SpecValues{}, d.options)
	if err != nil {
		if d.released.Load() { // the manager closed under the build
			return nil, fmt.Errorf("%w: %v", ErrReleased, d)
		}
		return nil, err
	}
	e = &kernelEntry{k: k, local: d.local}
	if info, err := k.UR().Info(d.dev); err == nil && info.WorkGroupSize > 0 && info.WorkGroupSize < e.local {
		e.local = 1 << (bits.Len64(info.WorkGroupSize) - 1)
	}
	d.kernels.mu.Lock()
	defer d.kernels.mu.Unlock()
	if d.kernels.byID == nil { // released meanwhile
		k.Release()
		return nil, fmt.Errorf("%w: %v", ErrReleased, d)
	}
	if old, ok := d.kernels.byID[id]; ok { // built by another goroutine meanwhile
		k.Release()
		return old, nil
	}
	d.kernels.byID[id] = e
	return e, nil
}

func (d *Device) launch(e *kernelEntry, global, local uint64, args []ur.Arg) error {
	r := ur.Range1D(global).WithLocal(local)
	err := d.q.Launch(e.k.UR(), r, args...)
	d.progress.enqueued.Add(1)
	if err != nil {
		return err
	}
	d.launches.Add(1)
	return nil
}

func roundUp(n, m uint64) uint64 { return (n + m - 1) / m * m }

// deviceSource returns the kernel source for a backend: OpenCL C for
// "opencl", CUDA C for "cuda", and OpenCL C for "level_zero", which the
// program manager compiles to SPIR-V: the source's "level_zero" source
// where it has one, else its "opencl" source, so that a Func written for
// OpenCL runs on Level Zero as it is.
func deviceSource(source sourcer, backend string) (string, error) {
	switch backend {
	case "opencl", "cuda":
		return source.Source(backend)
	case "level_zero":
		src, err := source.Source(backend)
		if errors.Is(err, ur.ErrUnsupportedFeature) {
			return source.Source("opencl")
		}
		return src, err
	}
	return "", errUnsupportedBackend(backend)
}

func errUnsupportedBackend(backend string) error {
	return fmt.Errorf("compute: the %q backend takes no OpenCL C or CUDA C kernels: %w", backend, ur.ErrUnsupportedFeature)
}
