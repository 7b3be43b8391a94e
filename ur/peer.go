package ur

import (
	"context"

	"github.com/gour-dev/gour/trace"
	"github.com/gour-dev/gour/ur/driver"
)

// CopyPath says how a copy between the memory of two devices goes
// (Queue.PeerCopyPath, Queue.EnqueuePeerCopy).
type CopyPath uint8

// Copy paths.
const (
	// CopyDirect: one command over a direct path between the devices:
	// enabled peer access (NVLink, PCIe peer-to-peer), one device's own
	// memory, sub-devices of one device, or host memory.
	CopyDirect CopyPath = iota + 1
	// CopyDriver: one command that the driver carries through memory of
	// its own: devices without a direct path, or with one not enabled
	// (Device.EnablePeerAccess), in one context or through
	// cuMemcpyPeerAsync.
	CopyDriver
	// CopyStaged: gour stages the copy through host memory, pinned where
	// the source's context allocates USM host memory: a copy from the
	// source on a queue of its context, then one to the destination on a
	// queue of its context. For memory of two contexts of an adapter
	// without a copy between contexts (OpenCL, Level Zero); the call
	// returns once the data has arrived.
	CopyStaged
)

// String names the path: "direct", "driver", "staged".
func (p CopyPath) String() string {
	switch p {
	case CopyDirect:
		return "direct"
	case CopyDriver:
		return "driver"
	case CopyStaged:
		return "staged"
	}
	return "unknown"
}

// peerKey names an ordered pair of devices whose access was enabled.
type peerKey struct{ from, to driver.Device }

// PeerCopyPath says how EnqueuePeerCopy would copy from src to dst on q:
// the two pointers are of the adapter's contexts, one of them q's.
func (q *Queue) PeerCopyPath(dst, src Ptr) (rv CopyPath, rerr error) {
	const op = "Queue.PeerCopyPath"
	if t := trace.Active(); t != nil {
		tc := beginCall(t, op, q)
		defer tc.end(&rerr)
	}

	if err := q.enter(op); err != nil {
		return 0, err
	}
	defer q.life.leave()
	if err := q.checkPeerPtrs(op, dst, src, 0); err != nil {
		return 0, err
	}
	return q.peerPath(dst.u.ctx, dst.u.dev, src.u.ctx, src.u.dev), nil
}

// checkPeerPtrs checks two pointers for a copy between contexts of q's
// adapter, one of them q's; size 0 checks one byte.
func (q *Queue) checkPeerPtrs(op string, dst, src Ptr, size uint64) error {
	for _, p := range []struct {
		ptr  Ptr
		name string
	}{{dst, "the destination"}, {src, "the source"}} {
		if p.ptr.u == nil {
			return newError(ErrInvalidNullPointer, op, q.adapter.name, "%s is the nil Ptr", p.name)
		}
		if p.ptr.u.life.released() {
			return newError(ErrInvalidMemObject, op, q.adapter.name, "%s: the USM allocation at %#x was freed", p.name, p.ptr.u.addr)
		}
		if err := p.ptr.check(op, p.name, p.ptr.u.ctx, size); err != nil {
			return err
		}
		if err := q.sameAdapter(&p.ptr.u.object, "USM", ErrInvalidMemObject, op); err != nil {
			return err
		}
	}
	if dst.u.ctx != q.ctx && src.u.ctx != q.ctx {
		return newError(ErrInvalidContext, op, q.adapter.name, "neither pointer is of the queue's context")
	}
	return nil
}

// peerPath is the path of a copy between memory of dstDev in dstCtx and
// of srcDev in srcCtx (nil devices: host memory) on q.
func (q *Queue) peerPath(dstCtx *Context, dstDev *Device, srcCtx *Context, srcDev *Device) CopyPath {
	if dstCtx != srcCtx {
		if _, ok := q.drv.(driver.PeerCopyQueue); !ok {
			return CopyStaged
		}
	}
	if dstDev == nil || srcDev == nil || dstDev.drv == srcDev.drv {
		return CopyDirect
	}
	// The queue's device does the copy; the other one is its peer.
	from, to := q.device, dstDev
	if from.drv == dstDev.drv {
		to = srcDev
	}
	if from.drv != dstDev.drv && from.drv != srcDev.drv {
		from, to = srcDev, dstDev
	}
	pa, err := from.PeerAccess(to)
	if err != nil || !pa.Supported {
		return CopyDriver
	}
	if pa.NeedsEnable {
		_, fwd := q.adapter.peers.Load(peerKey{from.drv, to.drv})
		_, back := q.adapter.peers.Load(peerKey{to.drv, from.drv})
		if !fwd && !back {
			return CopyDriver
		}
	}
	return CopyDirect
}

// EnqueuePeerCopy copies size bytes from src to dst, USM memory of two
// devices, after the wait list, by the path PeerCopyPath says. The
// pointers may be of q's context (the devices of a context of several)
// or of two contexts of q's adapter, one of them q's, as CUDA's
// cuMemcpyPeerAsync copies between the contexts of two GPUs. Where the
// adapter has no copy between contexts, the copy is staged through host
// memory (CopyStaged): it waits for the wait list and the data on the
// host, and returns a marker of q.
func (q *Queue) EnqueuePeerCopy(dst, src Ptr, size uint64, wait ...*Event) (rh *Event, rerr error) {
	const op = "Queue.EnqueuePeerCopy"
	if t := trace.Active(); t != nil {
		tc := beginCall(t, op, q)
		tc.args.Uint("bytes", size)
		defer tc.endEventOf(q, &rh, &rerr)
	}

	if err := q.enter(op); err != nil {
		return nil, err
	}
	if size == 0 {
		q.life.leave()
		return nil, newError(ErrInvalidSize, op, q.adapter.name, "copy size is 0")
	}
	if err := q.checkPeerPtrs(op, dst, src, size); err != nil {
		q.life.leave()
		return nil, err
	}
	q.life.leave()
	if dst.u.ctx == q.ctx && src.u.ctx == q.ctx {
		return q.EnqueueMemcpy(dst, src, size, wait...)
	}
	if pq, ok := q.drv.(driver.PeerCopyQueue); ok {
		ptrs := [2]Ptr{dst, src}
		return q.peerCommand(op, ptrs[:], size, wait, func(dw []driver.Event) (driver.Event, error) {
			return pq.CopyPeer(dst.Addr(), dst.u.ctx.drv, devDrv(dst.u.dev), src.Addr(), src.u.ctx.drv, devDrv(src.u.dev), size, dw, true)
		})
	}
	return q.staged(op, dst.u.ctx, dst.u.dev, src.u.ctx, src.u.dev, size, wait,
		func(sq *Queue, host []byte) error { return sq.CopyFromPtr(host, src) },
		func(dq *Queue, host []byte) (*Event, error) { return dq.EnqueueCopyToPtr(dst, host) })
}

// EnqueuePeerCopyBuffer copies size bytes from src at srcOffset to dst at
// dstOffset, buffers of two contexts of q's adapter (one of them q's) or
// both of q's context, as EnqueuePeerCopy copies USM memory.
func (q *Queue) EnqueuePeerCopyBuffer(dst *Mem, dstOffset uint64, src *Mem, srcOffset, size uint64, wait ...*Event) (rh *Event, rerr error) {
	const op = "Queue.EnqueuePeerCopyBuffer"
	if t := trace.Active(); t != nil {
		tc := beginCall(t, op, q, dst, src)
		tc.args.Uint("bytes", size)
		defer tc.endEventOf(q, &rh, &rerr)
	}

	if err := q.enter(op); err != nil {
		return nil, err
	}
	err := q.checkPeerMems(op, dst, dstOffset, src, srcOffset, size)
	q.life.leave()
	if err != nil {
		return nil, err
	}
	if dst.ctx == q.ctx && src.ctx == q.ctx {
		return q.EnqueueCopy(src, dst, srcOffset, dstOffset, size, wait...)
	}
	if pq, ok := q.drv.(driver.PeerCopyQueue); ok {
		return q.peerBufferCommand(op, dst, src, size, wait, func(dw []driver.Event) (driver.Event, error) {
			return pq.CopyPeerBuffer(dst.drv, dstOffset, dst.ctx.drv, src.drv, srcOffset, src.ctx.drv, size, dw, true)
		})
	}
	return q.staged(op, dst.ctx, nil, src.ctx, nil, size, wait,
		func(sq *Queue, host []byte) error { return sq.ReadBuffer(src, srcOffset, host) },
		func(dq *Queue, host []byte) (*Event, error) { return dq.EnqueueWrite(dst, dstOffset, host) })
}

// checkPeerMems checks two buffers and their ranges for
// EnqueuePeerCopyBuffer.
func (q *Queue) checkPeerMems(op string, dst *Mem, dstOffset uint64, src *Mem, srcOffset, size uint64) error {
	if size == 0 {
		return newError(ErrInvalidSize, op, q.adapter.name, "copy size is 0")
	}
	for _, m := range []struct {
		m    *Mem
		off  uint64
		name string
	}{{dst, dstOffset, "the destination"}, {src, srcOffset, "the source"}} {
		if m.m == nil {
			return nilHandle("Mem", op)
		}
		if m.m.life.released() {
			return newError(ErrInvalidMemObject, op, q.adapter.name, "%s buffer was released", m.name)
		}
		if err := q.sameAdapter(&m.m.object, "Mem", ErrInvalidMemObject, op); err != nil {
			return err
		}
		if err := m.m.checkRange(op, m.off, size); err != nil {
			return err
		}
	}
	if dst.ctx != q.ctx && src.ctx != q.ctx {
		return newError(ErrInvalidContext, op, q.adapter.name, "neither buffer is of the queue's context")
	}
	if dst == src && dstOffset < srcOffset+size && srcOffset < dstOffset+size {
		return newError(ErrOverlappingRegions, op, q.adapter.name, "source and destination ranges overlap")
	}
	return nil
}

func devDrv(d *Device) driver.Device {
	if d == nil {
		return nil
	}
	return d.drv
}

// peerCommand enters q, the pointers and the wait list around one
// adapter command between contexts.
func (q *Queue) peerCommand(op string, ptrs []Ptr, size uint64, wait []*Event, enqueue func(dw []driver.Event) (driver.Event, error)) (*Event, error) {
	if err := q.enter(op); err != nil {
		return nil, err
	}
	defer q.life.leave()
	for i, p := range ptrs {
		if err := p.use(op, "a pointer", p.u.ctx, size); err != nil {
			leavePtrs(ptrs[:i])
			return nil, err
		}
	}
	defer leavePtrs(ptrs)
	return q.enqueueAfter(op, wait, enqueue)
}

// enqueueAfter enters the wait list around enqueue, and finishes the
// command for op.
func (q *Queue) enqueueAfter(op string, wait []*Event, enqueue func(dw []driver.Event) (driver.Event, error)) (*Event, error) {
	dw, err := q.useWaitList(op, wait)
	if err != nil {
		return nil, err
	}
	defer leaveEvents(wait)
	ev, err := enqueue(dw)
	return q.finishEnqueue(op, ev, err, nil)
}

// peerBufferCommand is peerCommand for two buffers.
func (q *Queue) peerBufferCommand(op string, dst, src *Mem, size uint64, wait []*Event, enqueue func(dw []driver.Event) (driver.Event, error)) (*Event, error) {
	if err := q.enter(op); err != nil {
		return nil, err
	}
	defer q.life.leave()
	if err := dst.enter(op); err != nil {
		return nil, err
	}
	defer dst.life.leave()
	if err := src.enter(op); err != nil {
		return nil, err
	}
	defer src.life.leave()
	return q.enqueueAfter(op, wait, enqueue)
}

// staged copies size bytes through host memory: read on a queue of
// srcCtx (q where it is q's context), then write on a queue of dstCtx.
// It waits for the wait list on the host first: events of q's context
// cannot order the other context's queue. When the write is q's, its
// event is the copy's, and the staging memory is freed once it
// completes; otherwise the write is waited for and the event is a marker
// of q.
func (q *Queue) staged(op string, dstCtx *Context, dstDev *Device, srcCtx *Context, srcDev *Device, size uint64, wait []*Event,
	read func(sq *Queue, host []byte) error, write func(dq *Queue, host []byte) (*Event, error)) (*Event, error) {
	for i, e := range wait {
		if err := e.Wait(context.Background()); err != nil {
			return nil, newError(ErrInvalidEventWaitList, op, q.adapter.name, "wait list entry %d: %v", i, err)
		}
	}
	sq, releaseSrc, err := q.queueIn(srcCtx, srcDev)
	if err != nil {
		return nil, q.ctx.wrap(err, op)
	}
	defer releaseSrc()
	dq, releaseDst, err := q.queueIn(dstCtx, dstDev)
	if err != nil {
		return nil, q.ctx.wrap(err, op)
	}
	defer releaseDst()
	host, freeHost := stagingMemory(srcCtx, size)
	if err := read(sq, host); err != nil {
		freeHost()
		return nil, err
	}
	ev, err := write(dq, host)
	if err != nil {
		freeHost()
		return nil, err
	}
	if dq == q {
		if ev.OnComplete(func(EventStatus, error) { freeHost() }) != nil {
			ev.Wait(context.Background())
			freeHost()
		}
		return ev, nil
	}
	err = ev.Wait(context.Background())
	ev.Release()
	freeHost()
	if err != nil {
		return nil, q.ctx.wrap(err, op)
	}
	return q.marker(op, nil, false)
}

// queueIn is q where ctx is q's context, else a new queue of ctx on dev
// (the context's first device for nil), released by the function
// returned.
func (q *Queue) queueIn(ctx *Context, dev *Device) (*Queue, func(), error) {
	if ctx == q.ctx {
		return q, func() {}, nil
	}
	if dev == nil {
		dev = ctx.devices[0]
	}
	nq, err := ctx.NewQueue(dev, QueueProperties{})
	if err != nil {
		return nil, nil, err
	}
	return nq, func() { nq.Release() }, nil
}

// stagingMemory is size bytes of host memory for a staged copy: a USM
// host allocation of ctx, which copies from ctx's devices take without a
// bounce, where ctx has one; Go memory elsewhere.
func stagingMemory(ctx *Context, size uint64) ([]byte, func()) {
	if ctx.devices[0].info.USM.Host {
		if u, err := ctx.AllocHost(size); err == nil {
			if b, err := HostSlice[byte](u); err == nil {
				return b, func() { u.Free() }
			}
			u.Free()
		}
	}
	return make([]byte, size), func() {}
}
