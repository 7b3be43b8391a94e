package ur

import (
	"sync"
	"unsafe"

	"github.com/gour-dev/gour/trace"
	"github.com/gour-dev/gour/ur/driver"
)

// USMKind says where a unified shared memory allocation lives: USMDevice,
// USMHost or USMShared.
type USMKind = driver.USMKind

// USM kinds, as the Unified Runtime's ur_usm_type_t.
const (
	USMUnknown = driver.USMUnknown
	USMDevice  = driver.USMDevice
	USMHost    = driver.USMHost
	USMShared  = driver.USMShared
)

// USMSupport says which USM kinds a device has and through what
// (DeviceInfo.USM).
type USMSupport = driver.USMSupport

// USMPointerInfo describes the allocation a pointer lies in, as the
// driver knows it (Context.PointerInfo).
type USMPointerInfo struct {
	Kind   USMKind
	Device *Device // nil for host allocations and unknown pointers
	Base   uintptr
	Size   uint64
}

// USM is one unified shared memory allocation: memory addressed by
// pointer, as in the Unified Runtime (urUSMDeviceAlloc and friends), CUDA
// (cuMemAlloc) and SYCL (malloc_device). Its pointer, or one into its
// middle (Ptr.Add), is a kernel argument (Kernel.SetArgPtr) and an
// operand of the queue's copy, fill, prefetch and advise commands.
//
// Free returns the memory once the commands still using it are done: on
// every adapter it waits (CUDA's cuMemFree does; OpenCL's blocking free,
// or for SVM every queue of the context; Level Zero's context's queues),
// so a free that comes early never lets the driver write into memory it
// has handed back. Using a freed allocation gives ErrInvalidMemObject,
// never a crash. Memory allocated on a queue (Queue.AllocAsync) is freed on
// that queue, in its order, by Free or Queue.FreeAsync.
type USM struct {
	object
	ctx  *Context
	kind USMKind
	dev  *Device // nil for host allocations
	addr uintptr
	size uint64
	// owned is false for a pointer another library allocated
	// (Context.WrapPointer): Free then forgets it without freeing.
	owned bool
	// pool and queue are set for memory allocated on a queue.
	pool  *Pool
	queue *Queue
}

// AllocDevice allocates size bytes of device memory on dev
// (urUSMDeviceAlloc, cuMemAlloc, zeMemAllocDevice, clDeviceMemAllocINTEL
// or coarse-grained SVM).
func (c *Context) AllocDevice(dev *Device, size uint64) (rh *USM, rerr error) {
	const op = "Context.AllocDevice"
	if t := trace.Active(); t != nil {
		tc := beginCall(t, op, c)
		tc.args.Uint("bytes", size)
		defer endNewOf(&tc, &rh, &rerr)
	}

	return c.alloc(op, USMDevice, dev, size, 0)
}

// AllocHost allocates size bytes of page-locked host memory that the
// context's devices read and write over the bus; copies from and to it
// are asynchronous (urUSMHostAlloc, cuMemHostAlloc).
func (c *Context) AllocHost(size uint64) (rh *USM, rerr error) {
	const op = "Context.AllocHost"
	if t := trace.Active(); t != nil {
		tc := beginCall(t, op, c)
		tc.args.Uint("bytes", size)
		defer endNewOf(&tc, &rh, &rerr)
	}

	return c.alloc(op, USMHost, nil, size, 0)
}

// AllocShared allocates size bytes of memory that migrates between the
// host and dev on use (urUSMSharedAlloc, cuMemAllocManaged).
func (c *Context) AllocShared(dev *Device, size uint64) (rh *USM, rerr error) {
	const op = "Context.AllocShared"
	if t := trace.Active(); t != nil {
		tc := beginCall(t, op, c)
		tc.args.Uint("bytes", size)
		defer endNewOf(&tc, &rh, &rerr)
	}

	return c.alloc(op, USMShared, dev, size, 0)
}

// Alloc allocates size bytes of kind on dev (nil for USMHost), aligned to
// alignment bytes (a power of two; 0 for the driver's default, at least
// the size of the largest scalar).
func (c *Context) Alloc(kind USMKind, dev *Device, size, alignment uint64) (rh *USM, rerr error) {
	const op = "Context.Alloc"
	if t := trace.Active(); t != nil {
		tc := beginCall(t, op, c)
		tc.args.Uint("bytes", size)
		defer endNewOf(&tc, &rh, &rerr)
	}

	return c.alloc(op, kind, dev, size, alignment)
}

func (c *Context) alloc(op string, kind USMKind, dev *Device, size, alignment uint64) (*USM, error) {
	if err := c.enter(op); err != nil {
		return nil, err
	}
	defer c.life.leave()
	usm, err := c.usmContext(op)
	if err != nil {
		return nil, err
	}
	if err := c.checkAlloc(op, kind, dev, size, alignment); err != nil {
		return nil, err
	}
	var ddev driver.Device
	if dev != nil {
		ddev = dev.drv
	}
	addr, err := usm.USMAlloc(kind, ddev, size, alignment)
	if err != nil {
		return nil, c.wrap(err, op)
	}
	return c.newUSM(kind, dev, addr, size, true), nil
}

// usmContext is the adapter's USM, or ErrUnsupportedFeature.
func (c *Context) usmContext(op string) (driver.USMContext, error) {
	if usm, ok := c.drv.(driver.USMContext); ok {
		return usm, nil
	}
	return nil, newError(ErrUnsupportedFeature, op, c.adapter.name, "the %s adapter has no unified shared memory", c.adapter.name)
}

// checkAlloc validates an allocation request against the devices.
func (c *Context) checkAlloc(op string, kind USMKind, dev *Device, size, alignment uint64) error {
	name := c.adapter.name
	switch kind {
	case USMHost:
		if dev != nil {
			return newError(ErrInvalidValue, op, name, "a host allocation takes no device")
		}
	case USMDevice, USMShared:
		if dev == nil {
			return newError(ErrInvalidNullHandle, op, name, "a %s allocation needs a device", kind)
		}
		if !c.hasDevice(dev) {
			return newError(ErrInvalidDevice, op, name, "device %q is not in the context", dev.Name())
		}
	default:
		return newError(ErrInvalidValue, op, name, "USM kind %d: want USMDevice, USMHost or USMShared", kind)
	}
	if size == 0 {
		return newError(ErrInvalidUSMSize, op, name, "allocation size is 0")
	}
	if alignment&(alignment-1) != 0 {
		return newError(ErrUnsupportedAlignment, op, name, "alignment %d is not a power of two", alignment)
	}
	devs := c.devices
	if dev != nil {
		devs = []*Device{dev}
	}
	for _, d := range devs {
		u := d.info.USM
		has := map[USMKind]bool{USMDevice: u.Device, USMHost: u.Host, USMShared: u.Shared}[kind]
		if !has {
			why := u.Missing
			if why == "" {
				why = "the driver does not offer it"
			}
			return newError(ErrUnsupportedFeature, op, name, "%s has no %s USM allocations: %s", d.Name(), kind, why)
		}
		if max := d.info.MaxMemAllocSize; kind == USMDevice && max != 0 && size > max {
			return newError(ErrInvalidUSMSize, op, name,
				"allocation of %d bytes exceeds the largest allocation of %s (%d bytes)", size, d.Name(), max)
		}
	}
	return nil
}

// newUSM makes the handle of an allocation and records it in the
// context, where FreePointer and PointerInfo find it.
func (c *Context) newUSM(kind USMKind, dev *Device, addr uintptr, size uint64, owned bool) *USM {
	u := &USM{object: object{adapter: c.adapter}, ctx: c, kind: kind, dev: dev, addr: addr, size: size, owned: owned}
	u.created("USM")
	u.life.free = u.free
	c.adapter.allocs.add(u)
	return u
}

// free returns the memory: to its pool on its queue, to the driver, or,
// for a wrapped pointer, nowhere.
func (u *USM) free() error {
	u.adapter.allocs.remove(u)
	switch {
	case u.queue != nil:
		return u.queue.freeToPool(u)
	case !u.owned:
		return nil
	}
	return u.ctx.drv.(driver.USMContext).USMFree(u.addr)
}

func (u *USM) enter(op string) error {
	if u == nil {
		return nilHandle("USM", op)
	}
	if !u.life.enter() {
		return newError(ErrInvalidMemObject, op, u.adapter.name, "the USM allocation at %#x was freed", u.addr)
	}
	return nil
}

// Free frees the allocation (see USM). A second Free gives
// ErrInvalidMemObject.
func (u *USM) Free() (rerr error) {
	const op = "USM.Free"
	if u == nil {
		return nilHandle("USM", op)
	}
	if t := trace.Active(); t != nil {
		defer traceRelease(t, op, &u.object, t.Now(), &rerr)
	}
	ok, err := u.life.release()
	if !ok {
		return newError(ErrInvalidMemObject, op, u.adapter.name, "the USM allocation at %#x was already freed", u.addr)
	}
	u.releasedNow()
	return wrapError(err, op, u.adapter.name)
}

// Ptr returns the pointer to the allocation's first byte.
func (u *USM) Ptr() Ptr { return Ptr{u: u} }

// Addr is the allocation's address; 0 for nil. Arithmetic on it is the
// caller's: Ptr.Add keeps the checks.
func (u *USM) Addr() uintptr {
	if u == nil {
		return 0
	}
	return u.addr
}

// Size is the allocation's size in bytes; 0 for nil.
func (u *USM) Size() uint64 {
	if u == nil {
		return 0
	}
	return u.size
}

// Kind says where the memory lives; USMUnknown for nil.
func (u *USM) Kind() USMKind {
	if u == nil {
		return USMUnknown
	}
	return u.kind
}

// Device is the allocation's device; nil for host memory.
func (u *USM) Device() *Device {
	if u == nil {
		return nil
	}
	return u.dev
}

// Context is the context the memory was allocated in.
func (u *USM) Context() *Context {
	if u == nil {
		return nil
	}
	return u.ctx
}

// Ptr is a pointer into a USM allocation: the allocation and a byte
// offset in it. Its zero value is the nil pointer, which commands refuse.
// A Ptr stays checked: commands and kernel arguments given one whose
// allocation was freed, or a range past its end, fail with a typed error.
type Ptr struct {
	u   *USM
	off uint64
}

// Add returns p advanced by n bytes. A pointer past the allocation's end
// is refused by the command it is given to, not here, so that Add can be
// chained.
func (p Ptr) Add(n uint64) Ptr { return Ptr{p.u, p.off + n} }

// Addr is the pointer's address; 0 for the nil pointer.
func (p Ptr) Addr() uintptr {
	if p.u == nil {
		return 0
	}
	return p.u.addr + uintptr(p.off)
}

// Offset is the pointer's byte offset in its allocation.
func (p Ptr) Offset() uint64 { return p.off }

// USM is the allocation the pointer points into; nil for the nil pointer.
func (p Ptr) USM() *USM { return p.u }

// IsNil reports whether p is the zero Ptr.
func (p Ptr) IsNil() bool { return p.u == nil }

// Check reports whether p can be given to a command of ctx that touches
// size bytes from it (size 0: at least one byte), as gour's own commands
// check their pointers: an error wrapping ErrInvalidNullPointer for the
// nil Ptr, one for a freed allocation, ErrInvalidContext for one of
// another context, ErrInvalidSize for a range past its end. It is for
// layers above gour that hand raw addresses to a vendor library (a BLAS,
// a collective), which cannot tell a freed pointer from a live one; the
// allocation may still be freed after Check returns, as with any use of
// memory shared between goroutines.
func (p Ptr) Check(ctx *Context, size uint64) error {
	const op = "Ptr.Check"
	if err := ctx.enter(op); err != nil {
		return err
	}
	defer ctx.life.leave()
	if err := p.use(op, "pointer", ctx, size); err != nil {
		return err
	}
	p.u.life.leave()
	return nil
}

// use enters p's allocation for a command of ctx touching size bytes from
// p (size 0: at least one byte); on nil error the caller must leave it.
func (p Ptr) use(op, name string, ctx *Context, size uint64) error {
	if p.u == nil {
		return newError(ErrInvalidNullPointer, op, ctx.adapter.name, "%s is the nil Ptr", name)
	}
	if err := p.u.enter(op); err != nil {
		return err
	}
	if err := p.check(op, name, ctx, size); err != nil {
		p.u.life.leave()
		return err
	}
	return nil
}

func (p Ptr) check(op, name string, ctx *Context, size uint64) error {
	u := p.u
	if u.ctx != ctx {
		if u.adapter != ctx.adapter && u.adapter.drv != ctx.adapter.drv {
			return newError(ErrInvalidMemObject, op, ctx.adapter.name, "%s belongs to adapter %s", name, u.adapter.name)
		}
		return newError(ErrInvalidContext, op, ctx.adapter.name, "%s points into an allocation of another context", name)
	}
	if size == 0 {
		size = 1
	}
	if p.off >= u.size || size > u.size-p.off {
		return newError(ErrInvalidSize, op, ctx.adapter.name,
			"%s: %d bytes at offset %d run past the end of the %d-byte allocation at %#x", name, size, p.off, u.size, u.addr)
	}
	return nil
}

// HostSlice views a host or shared allocation as a []T for the host to
// read and write, without copying. The slice is valid until the
// allocation is freed; touching it after Free is a use after free that Go
// cannot catch. Device memory gives ErrInvalidMemObject: copy it instead.
func HostSlice[T Scalar](u *USM) ([]T, error) {
	const op = "HostSlice"
	if err := u.enter(op); err != nil {
		return nil, err
	}
	defer u.life.leave()
	if u.kind != USMHost && u.kind != USMShared {
		return nil, newError(ErrInvalidMemObject, op, u.adapter.name, "a %s allocation is not host-accessible: copy it to host memory", u.kind)
	}
	var zero T
	n := u.size / uint64(unsafe.Sizeof(zero))
	if n == 0 {
		return nil, nil
	}
	// The memory is the driver's, not Go's: read the address as a
	// pointer without the uintptr conversion vet flags for Go memory.
	base := *(*unsafe.Pointer)(unsafe.Pointer(&u.addr))
	return unsafe.Slice((*T)(base), n), nil
}

// PointerInfo describes the allocation addr lies in, as the driver knows
// it: memory gour allocated, memory another library allocated through
// the same driver, or, with Kind USMUnknown, memory the driver does not
// know (ordinary host memory).
func (c *Context) PointerInfo(addr uintptr) (rv USMPointerInfo, rerr error) {
	const op = "Context.PointerInfo"
	if t := trace.Active(); t != nil {
		tc := beginCall(t, op, c)
		defer tc.end(&rerr)
	}

	if err := c.enter(op); err != nil {
		return USMPointerInfo{}, err
	}
	defer c.life.leave()
	usm, err := c.usmContext(op)
	if err != nil {
		return USMPointerInfo{}, err
	}
	if addr == 0 {
		return USMPointerInfo{}, newError(ErrInvalidNullPointer, op, c.adapter.name, "address is 0")
	}
	info, err := usm.USMPointerInfo(addr)
	if err != nil {
		return USMPointerInfo{}, wrapError(err, op, c.adapter.name)
	}
	out := USMPointerInfo{Kind: info.Kind, Base: info.Base, Size: info.Size}
	for _, d := range c.devices {
		if info.Device != nil && d.drv == info.Device {
			out.Device = d
		}
	}
	return out, nil
}

// FreePointer frees the allocation that starts at addr, as the Unified
// Runtime's urUSMFree does: for callers that keep addresses rather than
// *USM. An address that is not the start of a live allocation of this
// context gives ErrInvalidMemObject (or ErrInvalidContext when it is one
// of another context of the adapter) and frees nothing.
func (c *Context) FreePointer(addr uintptr) (rerr error) {
	const op = "Context.FreePointer"
	if t := trace.Active(); t != nil {
		tc := beginCall(t, op, c)
		defer tc.end(&rerr)
	}

	if err := c.enter(op); err != nil {
		return err
	}
	defer c.life.leave()
	if u := c.adapter.allocs.find(addr); u != nil {
		if u.ctx != c {
			return newError(ErrInvalidContext, op, c.adapter.name, "%#x was allocated in another context", addr)
		}
		return u.Free()
	}
	return newError(ErrInvalidMemObject, op, c.adapter.name, "%#x is not the start of a live allocation of this context", addr)
}

// WrapPointer makes a USM handle of size bytes at addr, memory another
// library allocated through this context's driver (a CUdeviceptr from
// cuBLAS, a pointer from zeMemAllocDevice, an SVM or Intel USM pointer),
// so that gour's commands and kernels can use it. gour never frees it:
// Free forgets the handle, and the other library keeps the memory alive
// while gour uses it. The driver's pointer query must know the memory.
func (c *Context) WrapPointer(addr uintptr, size uint64) (rh *USM, rerr error) {
	const op = "Context.WrapPointer"
	if t := trace.Active(); t != nil {
		tc := beginCall(t, op, c)
		tc.args.Uint("bytes", size)
		defer endNewOf(&tc, &rh, &rerr)
	}

	if err := c.enter(op); err != nil {
		return nil, err
	}
	defer c.life.leave()
	info, err := c.PointerInfo(addr)
	if err != nil {
		return nil, err
	}
	if info.Kind == USMUnknown {
		return nil, newError(ErrInvalidValue, op, c.adapter.name, "the driver does not know the memory at %#x", addr)
	}
	if size == 0 {
		return nil, newError(ErrInvalidUSMSize, op, c.adapter.name, "size is 0")
	}
	if info.Size != 0 && (addr < info.Base || uint64(addr-info.Base)+size > info.Size) {
		return nil, newError(ErrInvalidUSMSize, op, c.adapter.name,
			"%d bytes at %#x run past the end of the driver's allocation (%d bytes at %#x)", size, addr, info.Size, info.Base)
	}
	return c.newUSM(info.Kind, info.Device, addr, size, false), nil
}

// allocTable records the live allocations of an adapter's contexts by
// base address, for Context.FreePointer; one table rather than one per
// context, so that an allocation costs one insertion and a pointer of
// another context is told from a stranger.
type allocTable struct {
	mu sync.Mutex
	m  map[uintptr]*USM
}

func (t *allocTable) add(u *USM) {
	t.mu.Lock()
	if t.m == nil {
		t.m = make(map[uintptr]*USM)
	}
	t.m[u.addr] = u
	t.mu.Unlock()
}

func (t *allocTable) remove(u *USM) {
	t.mu.Lock()
	if t.m[u.addr] == u {
		delete(t.m, u.addr)
	}
	t.mu.Unlock()
}

func (t *allocTable) find(addr uintptr) *USM {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.m[addr]
}
