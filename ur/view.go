package ur

import (
	"math/bits"
	"unsafe"

	"github.com/gour-dev/gour/trace"
	"github.com/gour-dev/gour/ur/driver"
)

// SubBuffer returns a view of size bytes of the buffer from offset: a
// buffer that kernels and commands take as any other, sharing the
// parent's memory (clCreateSubBuffer; a pointer into the allocation on
// CUDA and Level Zero). The view keeps the parent alive until the view is
// released. The offset must be a multiple of every device's
// MemBaseAddrAlign (ErrMisalignedSubBufferOffset names it); a view of a
// view is a view of the parent at the summed offset.
func (m *Mem) SubBuffer(offset, size uint64) (rh *Mem, rerr error) {
	const op = "Mem.SubBuffer"
	if t := trace.Active(); t != nil {
		tc := beginCall(t, op, m)
		tc.args.Uint("bytes", size)
		defer endNewOf(&tc, &rh, &rerr)
	}

	if err := m.enter(op); err != nil {
		return nil, err
	}
	defer m.life.leave()
	if err := m.notImage(op); err != nil {
		return nil, err
	}
	if err := m.checkRange(op, offset, size); err != nil {
		return nil, err
	}
	root, at := m, offset
	if m.parent != nil {
		root, at = m.parent, m.offset+offset
	}
	for _, d := range m.ctx.devices {
		if a := d.info.MemBaseAddrAlign; a > 1 && at%a != 0 {
			return nil, newError(ErrMisalignedSubBufferOffset, op, m.adapter.name,
				"offset %d is not a multiple of %s's base address alignment, %d bytes", at, d.Name(), a)
		}
	}
	sb, ok := root.drv.(driver.SubBufferMem)
	if !ok {
		return nil, newError(ErrUnsupportedFeature, op, m.adapter.name, "the %s adapter makes no sub-buffers", m.adapter.name)
	}
	if err := root.enter(op); err != nil { // held by the view
		return nil, err
	}
	drv, err := sb.NewSubBuffer(root.flags, at, size)
	if err != nil {
		root.life.leave()
		return nil, wrapError(err, op, m.adapter.name)
	}
	v := &Mem{object: object{adapter: m.adapter}, ctx: m.ctx, drv: drv, size: size, flags: root.flags, parent: root, offset: at}
	v.created("Mem")
	v.life.free = func() error {
		defer root.life.leave()
		return drv.Release()
	}
	return v, nil
}

// Parent returns the buffer a sub-buffer views, and its offset there; nil
// and 0 for a whole buffer.
func (m *Mem) Parent() (*Mem, uint64) {
	if m == nil {
		return nil, 0
	}
	return m.parent, m.offset
}

// Rect is a rectangular copy (EnqueueCopyRect): Region is {bytes per row,
// rows, slices}; the origins are {byte, row, slice} in each operand;
// pitches are in bytes, and a zero pitch means tightly packed (row pitch
// = Region[0], slice pitch = row pitch × Region[1]). A 2D copy has
// Region[2] = 1.
type Rect = driver.Rect

// RectOperand is one side of a rectangular copy: a buffer (OnBuffer), a
// USM pointer (OnPtr) or host memory (OnHost).
type RectOperand struct {
	mem  *Mem
	ptr  Ptr
	host []byte
}

// OnBuffer makes a buffer a side of a rectangular copy.
func OnBuffer(m *Mem) RectOperand { return RectOperand{mem: m} }

// OnPtr makes a USM pointer a side of a rectangular copy.
func OnPtr(p Ptr) RectOperand { return RectOperand{ptr: p} }

// OnHost makes host memory a side of a rectangular copy; the queue keeps
// it alive until the copy completes.
func OnHost(b []byte) RectOperand { return RectOperand{host: b} }

// CopyRect copies a rectangular region and waits for it.
func (q *Queue) CopyRect(dst, src RectOperand, r Rect) (rerr error) {
	const op = "Queue.CopyRect"
	if t := trace.Active(); t != nil {
		tc := beginCall(t, op, q)
		defer tc.end(&rerr)
	}

	_, err := q.copyRect(op, dst, src, r, true, nil)
	return err
}

// EnqueueCopyRect copies a rectangular region between buffers, USM
// pointers and host memory after the wait list (clEnqueueCopyBufferRect,
// cuMemcpy3DAsync, zeCommandListAppendMemoryCopyRegion): the strided copy
// of a tensor's slice. Every byte touched must lie inside its operand.
func (q *Queue) EnqueueCopyRect(dst, src RectOperand, r Rect, wait ...*Event) (rh *Event, rerr error) {
	const op = "Queue.EnqueueCopyRect"
	if t := trace.Active(); t != nil {
		tc := beginCall(t, op, q)
		defer tc.endEventOf(q, &rh, &rerr)
	}

	return q.copyRect(op, dst, src, r, false, wait)
}

func (q *Queue) copyRect(op string, dst, src RectOperand, r Rect, blocking bool, wait []*Event) (*Event, error) {
	if err := q.enter(op); err != nil {
		return nil, err
	}
	defer q.life.leave()
	if dst.host != nil && src.host != nil {
		return nil, newError(ErrInvalidValue, op, q.adapter.name, "both sides are host memory: copy them in Go")
	}
	if r.Region[0] == 0 || r.Region[1] == 0 || r.Region[2] == 0 {
		return nil, newError(ErrInvalidSize, op, q.adapter.name, "region %v has a zero extent", r.Region)
	}
	r.SrcRowPitch, r.SrcSlicePitch = packedPitches(r.Region, r.SrcRowPitch, r.SrcSlicePitch)
	r.DstRowPitch, r.DstSlicePitch = packedPitches(r.Region, r.DstRowPitch, r.DstSlicePitch)
	dspan, err := rectSpan(op, q.adapter.name, "destination", r.Region, r.DstOrigin, r.DstRowPitch, r.DstSlicePitch)
	if err != nil {
		return nil, err
	}
	sspan, err := rectSpan(op, q.adapter.name, "source", r.Region, r.SrcOrigin, r.SrcRowPitch, r.SrcSlicePitch)
	if err != nil {
		return nil, err
	}
	if dst.mem != nil && dst.mem == src.mem && dspan[0] < sspan[1] && sspan[0] < dspan[1] {
		return nil, newError(ErrOverlappingRegions, op, q.adapter.name, "source and destination lie in one buffer and their spans overlap")
	}
	var dops [2]driver.RectOperand
	var hosts []byte
	for i, side := range [2]struct {
		name string
		o    RectOperand
		span [2]uint64
	}{{"destination", dst, dspan}, {"source", src, sspan}} {
		o, name := side.o, side.name
		end := side.span[1]
		switch {
		case o.mem != nil:
			if err := q.useBuffer(op, o.mem); err != nil {
				return nil, err
			}
			defer o.mem.life.leave()
			if end > o.mem.size {
				return nil, newError(ErrInvalidSize, op, q.adapter.name, "the %s region ends at byte %d, past the end of the %d-byte buffer", name, end, o.mem.size)
			}
			dops[i].Mem = o.mem.drv
		case !o.ptr.IsNil():
			if err := o.ptr.use(op, "the "+name, q.ctx, end); err != nil {
				return nil, err
			}
			defer o.ptr.u.life.leave()
			dops[i].Ptr = o.ptr.Addr()
		case len(o.host) > 0:
			if end > uint64(len(o.host)) {
				return nil, newError(ErrInvalidSize, op, q.adapter.name, "the %s region ends at byte %d, past the end of the %d-byte host slice", name, end, len(o.host))
			}
			dops[i].Ptr = uintptr(unsafe.Pointer(&o.host[0]))
			hosts = o.host
		default:
			return nil, newError(ErrInvalidNullPointer, op, q.adapter.name, "the %s is neither a buffer, a pointer nor host memory", name)
		}
	}
	rq, ok := q.drv.(driver.RectQueue)
	if !ok {
		return nil, newError(ErrUnsupportedFeature, op, q.adapter.name, "the %s adapter's queues have no rectangular copies", q.adapter.name)
	}
	dw, err := q.useWaitList(op, wait)
	if err != nil {
		return nil, err
	}
	defer leaveEvents(wait)
	ev, err := rq.CopyRect(dops[0], dops[1], r, blocking, dw, !blocking)
	if blocking {
		hosts = nil
	}
	return q.finishEnqueue(op, ev, err, hosts)
}

// spanOffset is x + y*row + z*slice, and false when it overflows.
func spanOffset(x, y, z, row, slice uint64) (uint64, bool) {
	hi1, a := bits.Mul64(y, row)
	hi2, b := bits.Mul64(z, slice)
	s, c1 := bits.Add64(x, a, 0)
	s, c2 := bits.Add64(s, b, 0)
	return s, hi1|hi2|c1|c2 == 0
}

// packedPitches fills zero pitches with those of a tightly packed region.
func packedPitches(region [3]uint64, row, slice uint64) (uint64, uint64) {
	if row == 0 {
		row = region[0]
	}
	if slice == 0 {
		slice = row * region[1]
	}
	return row, slice
}

// rectSpan checks one side's pitches and returns the first and one past
// the last byte the region touches there.
func rectSpan(op, adapter, name string, region, origin [3]uint64, row, slice uint64) ([2]uint64, error) {
	if row < region[0] {
		return [2]uint64{}, newError(ErrInvalidValue, op, adapter, "%s row pitch %d is less than the row of %d bytes", name, row, region[0])
	}
	if region[2] > 1 && slice < row*region[1] {
		return [2]uint64{}, newError(ErrInvalidValue, op, adapter, "%s slice pitch %d is less than %d rows of pitch %d", name, slice, region[1], row)
	}
	first, ok1 := spanOffset(origin[0], origin[1], origin[2], row, slice)
	extent, ok2 := spanOffset(region[0], region[1]-1, region[2]-1, row, slice)
	last, carry := bits.Add64(first, extent, 0)
	if !ok1 || !ok2 || carry != 0 {
		return [2]uint64{}, newError(ErrInvalidSize, op, adapter, "%s region overflows 64 bits: origin %v, pitches %d and %d", name, origin, row, slice)
	}
	return [2]uint64{first, last}, nil
}
