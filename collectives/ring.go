package collectives

import (
	"encoding/binary"
	"fmt"
	"sync"
	"unsafe"

	"github.com/gour-dev/gour/dtype"
	"github.com/gour-dev/gour/ur"
)

// The ring: collectives over host-staged copies, for devices without
// NCCL. Each operation copies its input from the device (after the
// queue's earlier work), runs the textbook ring algorithms over a
// transport (ring all-reduce = reduce-scatter + all-gather, n-1 steps
// each, every rank sending to the next and receiving from the previous),
// reduces on the host and copies the result back, waiting for it. Every
// message carries a header that describes the whole operation, so ranks
// that disagree find out on their first message.

// header describes an operation in each of its messages.
type header struct {
	kind  kind
	dt    dtype.Type
	op    Op
	root  int32 // the root; for Send and Recv, the receiving rank
	count uint64
}

const headerSize = 16

func (h header) put(b []byte) {
	b[0], b[1], b[2], b[3] = byte(h.kind), byte(h.dt), byte(h.op), 0
	binary.LittleEndian.PutUint32(b[4:], uint32(h.root))
	binary.LittleEndian.PutUint64(b[8:], h.count)
}

func getHeader(b []byte) header {
	return header{kind: kind(b[0]), dt: dtype.Type(b[1]), op: Op(b[2]),
		root: int32(binary.LittleEndian.Uint32(b[4:])), count: binary.LittleEndian.Uint64(b[8:])}
}

func (h header) String() string {
	s := fmt.Sprintf("%v of %d %v", h.kind, h.count, h.dt)
	if h.op != 0 {
		s += " (" + h.op.String() + ")"
	}
	switch h.kind {
	case kBroadcast, kReduce:
		s += fmt.Sprintf(" to root %d", h.root)
	case kSend:
		s += fmt.Sprintf(" to rank %d", h.root)
	}
	return s
}

// describe is the header of o as rank sends it.
func describe(o *call) header {
	h := header{kind: o.kind, dt: o.dt, root: int32(o.root), count: uint64(o.count)}
	switch o.kind {
	case kAllReduce, kReduce, kReduceScatter:
		h.op = o.op
	}
	switch o.kind {
	case kAllReduce, kAllGather, kReduceScatter:
		h.root = 0
	}
	return h
}

// ringBackend is one rank of the ring.
type ringBackend struct {
	rank, n int
	t       transport
	mu      sync.Mutex
	failed  error
}

func (b *ringBackend) name() string { return "ring" }

func (b *ringBackend) err() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.failed
}

// fail records the communicator's first failure and aborts the transport,
// so that peers waiting on this rank learn at once.
func (b *ringBackend) fail(err error) {
	b.mu.Lock()
	first := b.failed == nil
	if first {
		b.failed = err
	}
	b.mu.Unlock()
	if first {
		b.t.close(fmt.Errorf("rank %d failed: %w", b.rank, err))
	}
}

func (b *ringBackend) abort() error {
	b.fail(&Error{Op: "Abort", Rank: b.rank, Backend: "ring", Kind: ErrAborted, Message: "aborted"})
	return nil
}

func (b *ringBackend) close() error {
	b.fail(&Error{Op: "Close", Rank: b.rank, Backend: "ring", Kind: ErrAborted, Message: "closed"})
	return nil
}

func (b *ringBackend) run(c *Communicator, o *call) error {
	if err := b.err(); err != nil {
		return &Error{Op: o.kind.String(), Rank: b.rank, Backend: "ring", Kind: ErrAborted, Message: "the communicator failed earlier", Err: err}
	}
	if err := b.exec(c.q, o); err != nil {
		b.fail(err)
		return err
	}
	return nil
}

// opError shapes a failure within an operation.
func (b *ringBackend) opError(o *call, err error) error {
	if e, ok := err.(*Error); ok {
		return e
	}
	kind := ErrBackend
	switch ur.ResultOf(err) {
	case ur.ErrInvalidMemObject, ur.ErrInvalidContext, ur.ErrInvalidSize, ur.ErrInvalidNullPointer:
		kind = ErrInvalidPointer
	}
	return &Error{Op: o.kind.String(), Rank: b.rank, Backend: "ring", Kind: kind, Err: err}
}

func (b *ringBackend) send(o *call, to int, h header, payload []byte) error {
	msg := make([]byte, headerSize+len(payload))
	h.put(msg)
	copy(msg[headerSize:], payload)
	if err := b.t.send(to, msg); err != nil {
		return b.transportError(o, to, err)
	}
	return nil
}

// recv receives from rank from the next message of an operation whose
// header should be want, and its payload of size bytes.
func (b *ringBackend) recv(o *call, from int, want header, size int) ([]byte, error) {
	msg, err := b.t.recv(from)
	if err != nil {
		return nil, b.transportError(o, from, err)
	}
	if len(msg) < headerSize {
		return nil, &Error{Op: o.kind.String(), Rank: b.rank, Backend: "ring", Kind: ErrBackend, Message: fmt.Sprintf("a %d-byte message from rank %d", len(msg), from)}
	}
	if got := getHeader(msg); got != want {
		return nil, &Error{Op: o.kind.String(), Rank: b.rank, Backend: "ring", Kind: ErrMismatch,
			Message: fmt.Sprintf("rank %d called %v, rank %d %v", from, got, b.rank, want)}
	}
	if len(msg)-headerSize != size {
		return nil, &Error{Op: o.kind.String(), Rank: b.rank, Backend: "ring", Kind: ErrMismatch,
			Message: fmt.Sprintf("rank %d sent %d bytes, rank %d expected %d", from, len(msg)-headerSize, b.rank, size)}
	}
	return msg[headerSize:], nil
}

func (b *ringBackend) transportError(o *call, peer int, err error) error {
	kind := ErrAborted
	if te, ok := err.(timeoutError); ok && te.Timeout() {
		kind = ErrTimeout
	}
	return &Error{Op: o.kind.String(), Rank: b.rank, Backend: "ring", Kind: kind, Message: fmt.Sprintf("with rank %d", peer), Err: err}
}

// timeoutError is what net errors and the mailbox's timeout satisfy.
type timeoutError interface{ Timeout() bool }

// span is the byte range of block i of n blocks of count elements.
func span(i, n, count, es int) (int, int) {
	return i * count / n * es, (i + 1) * count / n * es
}

func mod(a, n int) int { return ((a % n) + n) % n }

// exec runs o on this rank.
func (b *ringBackend) exec(q *ur.Queue, o *call) error {
	es, n, r, count := o.dt.Size(), b.n, b.rank, o.count
	h := describe(o)
	fromDevice := func(p ur.Ptr, size int) ([]byte, error) {
		buf := make([]byte, size)
		if size > 0 {
			if err := q.CopyFromPtr(buf, p); err != nil {
				return nil, b.opError(o, err)
			}
		}
		return buf, nil
	}
	toDevice := func(p ur.Ptr, buf []byte) error {
		if len(buf) == 0 {
			return nil
		}
		if err := q.CopyToPtr(p, buf); err != nil {
			return b.opError(o, err)
		}
		return nil
	}
	switch o.kind {
	case kAllReduce:
		buf, err := fromDevice(o.send, count*es)
		if err != nil {
			return err
		}
		blk := func(i int) []byte { lo, hi := span(i, n, count, es); return buf[lo:hi] }
		if err := b.reduceScatter(o, h, blk); err != nil {
			return err
		}
		if o.op == Avg {
			scale(blk(r), o.dt, n)
		}
		if err := b.allGather(o, h, blk); err != nil {
			return err
		}
		return toDevice(o.recv, buf)
	case kReduceScatter:
		buf, err := fromDevice(o.send, count*n*es)
		if err != nil {
			return err
		}
		blk := func(i int) []byte { return buf[i*count*es : (i+1)*count*es] }
		if err := b.reduceScatter(o, h, blk); err != nil {
			return err
		}
		if o.op == Avg {
			scale(blk(r), o.dt, n)
		}
		return toDevice(o.recv, blk(r))
	case kAllGather:
		buf := make([]byte, count*n*es)
		blk := func(i int) []byte { return buf[i*count*es : (i+1)*count*es] }
		if count > 0 {
			if err := q.CopyFromPtr(blk(r), o.send); err != nil {
				return b.opError(o, err)
			}
		}
		if err := b.allGather(o, h, blk); err != nil {
			return err
		}
		return toDevice(o.recv, buf)
	case kBroadcast:
		if r == o.root {
			buf, err := fromDevice(o.send, count*es)
			if err != nil {
				return err
			}
			for p := range n {
				if p != r {
					if err := b.send(o, p, h, buf); err != nil {
						return err
					}
				}
			}
			return toDevice(o.recv, buf)
		}
		buf, err := b.recv(o, o.root, h, count*es)
		if err != nil {
			return err
		}
		return toDevice(o.recv, buf)
	case kReduce:
		buf, err := fromDevice(o.send, count*es)
		if err != nil {
			return err
		}
		if r != o.root {
			return b.send(o, o.root, h, buf)
		}
		for p := range n {
			if p == r {
				continue
			}
			in, err := b.recv(o, p, h, count*es)
			if err != nil {
				return err
			}
			reduce(buf, in, o.dt, o.op)
		}
		if o.op == Avg {
			scale(buf, o.dt, n)
		}
		return toDevice(o.recv, buf)
	case kSend:
		buf, err := fromDevice(o.send, count*es)
		if err != nil {
			return err
		}
		return b.send(o, o.root, h, buf)
	case kRecv:
		want := header{kind: kSend, dt: o.dt, root: int32(r), count: uint64(count)}
		buf, err := b.recv(o, o.root, want, count*es)
		if err != nil {
			return err
		}
		return toDevice(o.recv, buf)
	}
	return nil
}

// reduceScatter leaves block r fully reduced on rank r: at step s, rank
// r sends block r-s-1 to rank r+1 and adds block r-s-2 from rank r-1
// into its own.
func (b *ringBackend) reduceScatter(o *call, h header, blk func(int) []byte) error {
	n, r := b.n, b.rank
	next, prev := mod(r+1, n), mod(r-1, n)
	for s := range n - 1 {
		if err := b.send(o, next, h, blk(mod(r-s-1, n))); err != nil {
			return err
		}
		dst := blk(mod(r-s-2, n))
		in, err := b.recv(o, prev, h, len(dst))
		if err != nil {
			return err
		}
		reduce(dst, in, o.dt, o.op)
	}
	return nil
}

// allGather spreads block r of rank r to every rank: at step s, rank r
// sends block r-s to rank r+1 and receives block r-s-1 from rank r-1.
func (b *ringBackend) allGather(o *call, h header, blk func(int) []byte) error {
	n, r := b.n, b.rank
	next, prev := mod(r+1, n), mod(r-1, n)
	for s := range n - 1 {
		if err := b.send(o, next, h, blk(mod(r-s, n))); err != nil {
			return err
		}
		dst := blk(mod(r-s-1, n))
		in, err := b.recv(o, prev, h, len(dst))
		if err != nil {
			return err
		}
		copy(dst, in)
	}
	return nil
}

// Host reductions.

type number interface {
	~int8 | ~uint8 | ~int32 | ~uint32 | ~int64 | ~uint64 | ~float32 | ~float64
}

func view[T any](b []byte) []T {
	if len(b) == 0 {
		return nil
	}
	var zero T
	return unsafe.Slice((*T)(unsafe.Pointer(&b[0])), len(b)/int(unsafe.Sizeof(zero)))
}

func reduceT[T number](d, s []T, op Op) {
	switch op {
	case Sum, Avg:
		for i := range d {
			d[i] += s[i]
		}
	case Prod:
		for i := range d {
			d[i] *= s[i]
		}
	case Max:
		for i := range d {
			d[i] = max(d[i], s[i])
		}
	case Min:
		for i := range d {
			d[i] = min(d[i], s[i])
		}
	}
}

func scaleT[T number](d []T, n int) {
	for i := range d {
		d[i] /= T(n)
	}
}

// halfOp applies fn to every element of two half-precision arrays through
// float32.
func halfOp(d, s []uint16, widen func(uint16) float32, narrow func(float32) uint16, op Op) {
	tmp := make([]float32, 2*len(d))
	a, c := tmp[:len(d)], tmp[len(d):]
	for i := range d {
		a[i], c[i] = widen(d[i]), widen(s[i])
	}
	reduceT(a, c, op)
	for i := range d {
		d[i] = narrow(a[i])
	}
}

// reduce combines src into dst, elementwise.
func reduce(dst, src []byte, dt dtype.Type, op Op) {
	switch dt {
	case dtype.Int8:
		reduceT(view[int8](dst), view[int8](src), op)
	case dtype.Uint8:
		reduceT(dst, src, op)
	case dtype.Int32:
		reduceT(view[int32](dst), view[int32](src), op)
	case dtype.Uint32:
		reduceT(view[uint32](dst), view[uint32](src), op)
	case dtype.Int64:
		reduceT(view[int64](dst), view[int64](src), op)
	case dtype.Uint64:
		reduceT(view[uint64](dst), view[uint64](src), op)
	case dtype.Float32:
		reduceT(view[float32](dst), view[float32](src), op)
	case dtype.Float64:
		reduceT(view[float64](dst), view[float64](src), op)
	case dtype.Float16:
		halfOp(view[uint16](dst), view[uint16](src), dtype.Float16From, dtype.Float16Bits, op)
	case dtype.BFloat16:
		halfOp(view[uint16](dst), view[uint16](src), dtype.BFloat16From, dtype.BFloat16Bits, op)
	}
}

// scale divides every element by n, for Avg.
func scale(d []byte, dt dtype.Type, n int) {
	switch dt {
	case dtype.Int8:
		scaleT(view[int8](d), n)
	case dtype.Uint8:
		scaleT(d, n)
	case dtype.Int32:
		scaleT(view[int32](d), n)
	case dtype.Uint32:
		scaleT(view[uint32](d), n)
	case dtype.Int64:
		scaleT(view[int64](d), n)
	case dtype.Uint64:
		scaleT(view[uint64](d), n)
	case dtype.Float32:
		scaleT(view[float32](d), n)
	case dtype.Float64:
		scaleT(view[float64](d), n)
	case dtype.Float16, dtype.BFloat16:
		widen, narrow := dtype.Float16From, dtype.Float16Bits
		if dt == dtype.BFloat16 {
			widen, narrow = dtype.BFloat16From, dtype.BFloat16Bits
		}
		h := view[uint16](d)
		for i := range h {
			h[i] = narrow(widen(h[i]) / float32(n))
		}
	}
}

// newRingGroup makes the ring's communicators of one process, which
// exchange through memory.
func newRingGroup(queues []*ur.Queue, o options) []*Communicator {
	n := len(queues)
	net := newLocalNet(n, o.timeout)
	out := make([]*Communicator, n)
	for i, q := range queues {
		out[i] = &Communicator{rank: i, size: n, q: q, b: &ringBackend{rank: i, n: n, t: &localEnd{net: net, rank: i}}}
	}
	return out
}
