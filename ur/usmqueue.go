package ur

import (
	"unsafe"

	"github.com/gour-dev/gour/trace"
	"github.com/gour-dev/gour/ur/driver"
)

// USMAdvice is a hint about how a shared allocation will be used
// (Queue.EnqueueAdvise).
type USMAdvice = driver.USMAdvice

// Advice, as the Unified Runtime's ur_usm_advice_flags_t and CUDA's
// CUmem_advise.
const (
	AdviseReadMostly            = driver.AdviseReadMostly
	AdviseClearReadMostly       = driver.AdviseClearReadMostly
	AdvisePreferDevice          = driver.AdvisePreferDevice
	AdvisePreferHost            = driver.AdvisePreferHost
	AdviseAccessedByDevice      = driver.AdviseAccessedByDevice
	AdviseClearAccessedByDevice = driver.AdviseClearAccessedByDevice
)

// usmQueue enters q for a USM command and returns its adapter side; on
// nil error the caller must leave q.
func (q *Queue) usmQueue(op string) (driver.USMQueue, error) {
	if err := q.enter(op); err != nil {
		return nil, err
	}
	if uq, ok := q.drv.(driver.USMQueue); ok {
		return uq, nil
	}
	q.life.leave()
	return nil, newError(ErrUnsupportedFeature, op, q.adapter.name, "the %s adapter's queues have no USM commands", q.adapter.name)
}

// usmCommand is the shared body of the USM commands: it enters the queue,
// runs check (the command's own argument checks; nil for none), enters
// the pointers (each checked for size bytes) and the wait list, runs
// enqueue and shapes its answer. host, for a non-blocking copy from or to
// Go memory, is held until the command completes.
func (q *Queue) usmCommand(op string, ptrs []Ptr, size uint64, wait []*Event, host []byte, blocking bool,
	check func(adapter string) error,
	enqueue func(uq driver.USMQueue, dw []driver.Event, wantEvent bool) (driver.Event, error)) (*Event, error) {
	uq, err := q.usmQueue(op)
	if err != nil {
		return nil, err
	}
	defer q.life.leave()
	if check != nil {
		if err := check(q.adapter.name); err != nil {
			return nil, err
		}
	}
	names := [...]string{"the destination", "the source"}
	for i, p := range ptrs {
		name := names[min(i, 1)]
		if len(ptrs) == 1 {
			name = "the pointer"
		}
		if err := p.use(op, name, q.ctx, size); err != nil {
			leavePtrs(ptrs[:i])
			return nil, err
		}
	}
	defer leavePtrs(ptrs)
	dw, err := q.useWaitList(op, wait)
	if err != nil {
		return nil, err
	}
	defer leaveEvents(wait)
	ev, err := enqueue(uq, dw, !blocking)
	if blocking {
		host = nil
	}
	return q.finishEnqueue(op, ev, err, host)
}

func leavePtrs(ptrs []Ptr) {
	for _, p := range ptrs {
		p.u.life.leave()
	}
}

// EnqueueMemcpy copies size bytes from src to dst, both USM pointers of
// the queue's context, after the wait list (urEnqueueUSMMemcpy,
// cuMemcpyAsync). The ranges must not overlap.
func (q *Queue) EnqueueMemcpy(dst, src Ptr, size uint64, wait ...*Event) (rh *Event, rerr error) {
	const op = "Queue.EnqueueMemcpy"
	if t := trace.Active(); t != nil {
		tc := beginCall(t, op, q)
		tc.args.Uint("bytes", size)
		defer tc.endEventOf(q, &rh, &rerr)
	}

	check := func(adapter string) error {
		if size == 0 {
			return newError(ErrInvalidSize, op, adapter, "copy size is 0")
		}
		if dst.u == src.u && dst.u != nil && dst.off < src.off+size && src.off < dst.off+size {
			return newError(ErrOverlappingRegions, op, adapter, "source and destination ranges overlap")
		}
		return nil
	}
	ptrs := [2]Ptr{dst, src}
	return q.usmCommand(op, ptrs[:], size, wait, nil, false, check, func(uq driver.USMQueue, dw []driver.Event, want bool) (driver.Event, error) {
		return uq.USMCopy(dst.Addr(), src.Addr(), size, false, dw, want)
	})
}

// CopyToPtr copies src to dst and waits for the copy.
func (q *Queue) CopyToPtr(dst Ptr, src []byte) (rerr error) {
	const op = "Queue.CopyToPtr"
	if t := trace.Active(); t != nil {
		tc := beginCall(t, op, q)
		tc.args.Uint("bytes", uint64(len(src)))
		defer tc.end(&rerr)
	}

	_, err := q.hostCopy(op, dst, src, true, true, nil)
	return err
}

// CopyFromPtr copies len(dst) bytes from src into dst and waits for the
// copy.
func (q *Queue) CopyFromPtr(dst []byte, src Ptr) (rerr error) {
	const op = "Queue.CopyFromPtr"
	if t := trace.Active(); t != nil {
		tc := beginCall(t, op, q)
		tc.args.Uint("bytes", uint64(len(dst)))
		defer tc.end(&rerr)
	}

	_, err := q.hostCopy(op, src, dst, false, true, nil)
	return err
}

// EnqueueCopyToPtr starts copying src to dst after the wait list. The
// queue keeps src alive until the copy completes, so the garbage
// collector never takes it from under the device; src must not change
// until then. From page-locked memory (a USMHost allocation viewed with
// HostSlice, or a region of Context.RegisterHost) the copy overlaps other
// work; from ordinary Go memory most drivers stage it.
func (q *Queue) EnqueueCopyToPtr(dst Ptr, src []byte, wait ...*Event) (rh *Event, rerr error) {
	const op = "Queue.EnqueueCopyToPtr"
	if t := trace.Active(); t != nil {
		tc := beginCall(t, op, q)
		tc.args.Uint("bytes", uint64(len(src)))
		defer tc.endEventOf(q, &rh, &rerr)
	}

	return q.hostCopy(op, dst, src, true, false, wait)
}

// EnqueueCopyFromPtr starts copying len(dst) bytes from src into dst after
// the wait list; dst holds them once the returned event completes, and
// the queue keeps dst alive until then.
func (q *Queue) EnqueueCopyFromPtr(dst []byte, src Ptr, wait ...*Event) (rh *Event, rerr error) {
	const op = "Queue.EnqueueCopyFromPtr"
	if t := trace.Active(); t != nil {
		tc := beginCall(t, op, q)
		tc.args.Uint("bytes", uint64(len(dst)))
		defer tc.endEventOf(q, &rh, &rerr)
	}

	return q.hostCopy(op, src, dst, false, false, wait)
}

// hostCopy copies between host memory and a USM pointer.
func (q *Queue) hostCopy(op string, p Ptr, host []byte, toDevice, blocking bool, wait []*Event) (*Event, error) {
	check := func(adapter string) error {
		if len(host) == 0 {
			return newError(ErrInvalidSize, op, adapter, "copy size is 0")
		}
		return nil
	}
	size := uint64(len(host))
	var h uintptr
	if size > 0 {
		h = uintptr(unsafe.Pointer(&host[0]))
	}
	ptrs := [1]Ptr{p}
	return q.usmCommand(op, ptrs[:], size, wait, host, blocking, check, func(uq driver.USMQueue, dw []driver.Event, want bool) (driver.Event, error) {
		if toDevice {
			return uq.USMCopy(p.Addr(), h, size, blocking, dw, want)
		}
		return uq.USMCopy(h, p.Addr(), size, blocking, dw, want)
	})
}

// EnqueueMemFill repeats pattern over size bytes from p after the wait
// list (urEnqueueUSMFill). The pattern is 1, 2, 4, ..., 128 bytes long
// and divides size.
func (q *Queue) EnqueueMemFill(p Ptr, pattern []byte, size uint64, wait ...*Event) (rh *Event, rerr error) {
	const op = "Queue.EnqueueMemFill"
	if t := trace.Active(); t != nil {
		tc := beginCall(t, op, q)
		tc.args.Uint("bytes", size)
		defer tc.endEventOf(q, &rh, &rerr)
	}

	check := func(adapter string) error { return checkPattern(op, adapter, pattern, 0, size) }
	pat := append([]byte(nil), pattern...) // the caller may change pattern at once
	ptrs := [1]Ptr{p}
	return q.usmCommand(op, ptrs[:], size, wait, nil, false, check, func(uq driver.USMQueue, dw []driver.Event, want bool) (driver.Event, error) {
		return uq.USMFill(p.Addr(), pat, size, dw, want)
	})
}

// checkPattern validates a fill pattern against the offset and size it
// repeats over.
func checkPattern(op, adapter string, pattern []byte, offset, size uint64) error {
	n := uint64(len(pattern))
	if n == 0 || n > 128 || n&(n-1) != 0 {
		return newError(ErrInvalidValue, op, adapter, "pattern of %d bytes: want a power of two up to 128", n)
	}
	if size == 0 {
		return newError(ErrInvalidSize, op, adapter, "fill size is 0")
	}
	if offset%n != 0 || size%n != 0 {
		return newError(ErrInvalidSize, op, adapter, "offset %d and size %d must be multiples of the pattern size %d", offset, size, n)
	}
	return nil
}

// EnqueuePrefetch starts moving size bytes of shared memory from p to the
// queue's device (urEnqueueUSMPrefetch, cuMemPrefetchAsync); toHost moves
// them to the host instead. A prefetch is a hint: on memory that does not
// migrate it only orders the queue.
func (q *Queue) EnqueuePrefetch(p Ptr, size uint64, toHost bool, wait ...*Event) (rh *Event, rerr error) {
	const op = "Queue.EnqueuePrefetch"
	if t := trace.Active(); t != nil {
		tc := beginCall(t, op, q)
		tc.args.Uint("bytes", size)
		defer tc.endEventOf(q, &rh, &rerr)
	}

	ptrs := [1]Ptr{p}
	return q.usmCommand(op, ptrs[:], size, wait, nil, false, nil, func(uq driver.USMQueue, dw []driver.Event, want bool) (driver.Event, error) {
		return uq.USMPrefetch(p.Addr(), size, toHost, dw, want)
	})
}

// EnqueueAdvise gives the driver a hint about size bytes of shared memory
// from p (urEnqueueUSMAdvise, cuMemAdvise); "device" in the advice is the
// queue's device.
func (q *Queue) EnqueueAdvise(p Ptr, size uint64, advice USMAdvice) (rh *Event, rerr error) {
	const op = "Queue.EnqueueAdvise"
	if t := trace.Active(); t != nil {
		tc := beginCall(t, op, q)
		tc.args.Uint("bytes", size)
		defer tc.endEventOf(q, &rh, &rerr)
	}

	check := func(adapter string) error {
		if advice < AdviseReadMostly || advice > AdviseClearAccessedByDevice {
			return newError(ErrInvalidEnumeration, op, adapter, "advice %d", advice)
		}
		return nil
	}
	ptrs := [1]Ptr{p}
	return q.usmCommand(op, ptrs[:], size, nil, nil, false, check, func(uq driver.USMQueue, _ []driver.Event, want bool) (driver.Event, error) {
		return uq.USMAdvise(p.Addr(), size, advice, want)
	})
}
