package collectives

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gour-dev/gour/dtype"
	"github.com/gour-dev/gour/trace"
	"github.com/gour-dev/gour/ur"
)

// Backend names how a communicator moves data.
type Backend string

// Backends.
const (
	// BackendAuto picks NCCL where every queue is CUDA's and libnccl.so.2
	// loads, else the ring.
	BackendAuto Backend = ""
	// BackendNCCL runs NVIDIA's NCCL on the queues' CUDA streams; where
	// it cannot, communicators are not made and the error says why.
	BackendNCCL Backend = "nccl"
	// BackendRing runs gour's own ring over host-staged copies: in
	// process memory between the ranks of one process, over TCP between
	// processes. It works on every adapter.
	BackendRing Backend = "ring"
)

// EnvBackend, set to "ring" or "nccl", is the backend of communicators
// made without WithBackend (urbench and tests force the ring with it).
const EnvBackend = "GOUR_COLLECTIVES_BACKEND"

// DefaultTimeout bounds each wait of the ring for a peer's data unless
// WithTimeout says otherwise, as torch.distributed's default timeout.
const DefaultTimeout = 10 * time.Minute

type options struct {
	backend    Backend
	timeout    time.Duration
	rendezvous Rendezvous
	listen     string
}

// Option sets how a communicator is made.
type Option func(*options)

// WithBackend forces a backend (BackendNCCL, BackendRing) instead of
// the automatic choice.
func WithBackend(b Backend) Option { return func(o *options) { o.backend = b } }

// WithTimeout bounds each of the ring's waits for a peer within an
// operation (default DefaultTimeout); past it the operation fails with
// ErrTimeout and the communicator is aborted. NCCL has no such bound:
// watch Communicator.Err and call Abort.
func WithTimeout(d time.Duration) Option { return func(o *options) { o.timeout = d } }

// WithRendezvous gives Join the store through which the ring's ranks
// exchange their addresses (Connect passes its own).
func WithRendezvous(rv Rendezvous) Option { return func(o *options) { o.rendezvous = rv } }

// WithListenAddr is the address the ring listens on for its peers
// (default "127.0.0.1:0": one machine). Ranks on several machines listen
// on a routable address, "10.0.0.5:0" or ":0" (then the host name is
// advertised).
func WithListenAddr(addr string) Option { return func(o *options) { o.listen = addr } }

func makeOptions(opts []Option) (options, error) {
	o := options{timeout: DefaultTimeout, listen: "127.0.0.1:0"}
	if env := os.Getenv(EnvBackend); env != "" {
		o.backend = Backend(env)
	}
	for _, f := range opts {
		f(&o)
	}
	switch o.backend {
	case BackendAuto, BackendNCCL, BackendRing:
	default:
		return o, fmt.Errorf("backend %q: want %q or %q", o.backend, BackendNCCL, BackendRing)
	}
	if o.timeout <= 0 {
		return o, fmt.Errorf("timeout %v: want a positive duration", o.timeout)
	}
	return o, nil
}

// A backend carries out a communicator's operations.
type backend interface {
	name() string
	run(c *Communicator, o *call) error
	abort() error
	close() error
	err() error
}

type kind uint8

const (
	kAllReduce kind = iota + 1
	kBroadcast
	kReduce
	kAllGather
	kReduceScatter
	kSend
	kRecv
)

var kindNames = [...]string{kAllReduce: "AllReduce", kBroadcast: "Broadcast", kReduce: "Reduce",
	kAllGather: "AllGather", kReduceScatter: "ReduceScatter", kSend: "Send", kRecv: "Recv"}

func (k kind) String() string {
	if int(k) < len(kindNames) && kindNames[k] != "" {
		return kindNames[k]
	}
	return fmt.Sprintf("kind(%d)", uint8(k))
}

// call is one operation of one rank.
type call struct {
	kind       kind
	send, recv ur.Ptr
	count      int
	dt         dtype.Type
	op         Op
	root       int // the root, or the peer of Send and Recv
}

// Communicator is one rank of a group of ranks that run collectives
// together, each on its own device and queue: NCCL's ncclComm_t,
// torch.distributed's process group as one rank sees it. Its operations
// take USM pointers of its queue's context and are ordered on its queue:
// with NCCL they are enqueued on the queue's CUDA stream and return at
// once; with the ring they wait for the queue's earlier work, move the
// data through the host and return when the result is in place.
//
// A communicator is not for concurrent use: one goroutine issues its
// operations, in the same order on every rank. Like NCCL, ranks driven by
// one goroutine (NewGroup) call their operations inside Group; ranks
// driven by one goroutine each need not.
type Communicator struct {
	rank, size int
	q          *ur.Queue
	b          backend
	mu         sync.Mutex
	closed     atomic.Bool
}

// Rank is the communicator's rank, from 0.
func (c *Communicator) Rank() int { return c.rank }

// Size is the number of ranks.
func (c *Communicator) Size() int { return c.size }

// Queue is the queue the operations are ordered on.
func (c *Communicator) Queue() *ur.Queue { return c.q }

// Backend says how the communicator moves data: "nccl" or "ring".
func (c *Communicator) Backend() string { return c.b.name() }

// Err returns the communicator's asynchronous error: NCCL's
// ncclCommGetAsyncError, or the failure that aborted the ring; nil while
// it is healthy.
func (c *Communicator) Err() error { return c.b.err() }

// Close releases the communicator (ncclCommDestroy). Ranks close
// together; a peer still waiting in an operation of the ring sees
// ErrAborted. A second Close does nothing.
func (c *Communicator) Close() error {
	if c.closed.Swap(true) {
		return nil
	}
	return c.b.close()
}

// Abort gives the communicator up at once (ncclCommAbort): operations
// under way on it fail, on this rank and on its peers, and it can no
// longer be used. For a rank that sees a peer fail or a deadline pass.
func (c *Communicator) Abort() error {
	if c.closed.Swap(true) {
		return nil
	}
	return c.b.abort()
}

// AllReduce reduces count elements of send across the ranks with op and
// leaves the result in recv on every rank. send and recv may be the same
// pointer (in place).
func (c *Communicator) AllReduce(send, recv ur.Ptr, count int, dt dtype.Type, op Op) error {
	return c.do(&call{kind: kAllReduce, send: send, recv: recv, count: count, dt: dt, op: op})
}

// Broadcast copies count elements from send on root to recv on every
// rank; send is read on root only (the nil Ptr elsewhere).
func (c *Communicator) Broadcast(send, recv ur.Ptr, count int, dt dtype.Type, root int) error {
	return c.do(&call{kind: kBroadcast, send: send, recv: recv, count: count, dt: dt, root: root})
}

// Reduce reduces count elements of send across the ranks with op into
// recv on root; recv is written on root only (the nil Ptr elsewhere).
func (c *Communicator) Reduce(send, recv ur.Ptr, count int, dt dtype.Type, op Op, root int) error {
	return c.do(&call{kind: kReduce, send: send, recv: recv, count: count, dt: dt, op: op, root: root})
}

// AllGather gathers count elements of send from every rank into recv,
// rank i's at element i*count: recv holds Size()*count elements.
func (c *Communicator) AllGather(send, recv ur.Ptr, count int, dt dtype.Type) error {
	return c.do(&call{kind: kAllGather, send: send, recv: recv, count: count, dt: dt})
}

// ReduceScatter reduces Size()*count elements of send across the ranks
// with op and leaves block i of count elements of the result in recv on
// rank i.
func (c *Communicator) ReduceScatter(send, recv ur.Ptr, count int, dt dtype.Type, op Op) error {
	return c.do(&call{kind: kReduceScatter, send: send, recv: recv, count: count, dt: dt, op: op})
}

// Send sends count elements of buf to rank peer, which calls Recv. A
// pair that sends both ways at once goes in one Group.
func (c *Communicator) Send(buf ur.Ptr, count int, dt dtype.Type, peer int) error {
	return c.do(&call{kind: kSend, send: buf, count: count, dt: dt, root: peer})
}

// Recv receives count elements from rank peer into buf.
func (c *Communicator) Recv(buf ur.Ptr, count int, dt dtype.Type, peer int) error {
	return c.do(&call{kind: kRecv, recv: buf, count: count, dt: dt, root: peer})
}

// do checks an operation and runs it, or adds it to the goroutine's open
// group.
func (c *Communicator) do(o *call) error {
	if c == nil {
		return newError(o.kind.String(), -1, "", ErrInvalidArgument, "nil Communicator")
	}
	if err := c.check(o); err != nil {
		return err
	}
	if g := currentGroup(); g != nil {
		return g.add(c, o)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.runTraced(o)
}

// runTraced runs o on the backend (c.mu held). While a trace records
// (trace.Active), o is a span of category "collectives" with the
// backend, the rank and the sizes: with NCCL the enqueue (the work runs
// on the queue's stream), with the ring the exchange.
func (c *Communicator) runTraced(o *call) error {
	r := trace.Active()
	if r == nil {
		return c.b.run(c, o)
	}
	start := r.Now()
	err := c.b.run(c, o)
	var a trace.Args
	a.Str("backend", c.b.name())
	a.Uint("rank", uint64(c.rank))
	a.Uint("ranks", uint64(c.size))
	a.Uint("count", uint64(o.count))
	a.Str("type", o.dt.String())
	if err != nil {
		a.Str("error", err.Error())
	}
	r.Complete("collectives", "collectives."+o.kind.String(), start, r.Now(), &a)
	return err
}

func (c *Communicator) errorf(o *call, kind error, format string, args ...any) *Error {
	return newError(o.kind.String(), c.rank, c.b.name(), kind, format, args...)
}

// check validates an operation against the communicator: what can be
// known without the peers.
func (c *Communicator) check(o *call) error {
	if c.closed.Load() {
		return c.errorf(o, ErrAborted, "the communicator was closed or aborted")
	}
	if !o.dt.Valid() {
		return c.errorf(o, ErrInvalidArgument, "data type %v", o.dt)
	}
	reduces := o.kind == kAllReduce || o.kind == kReduce || o.kind == kReduceScatter
	if reduces && !o.op.valid() {
		return c.errorf(o, ErrInvalidArgument, "reduction %v", o.op)
	}
	if o.count < 0 {
		return c.errorf(o, ErrInvalidArgument, "count %d", o.count)
	}
	switch o.kind {
	case kBroadcast, kReduce:
		if o.root < 0 || o.root >= c.size {
			return c.errorf(o, ErrInvalidArgument, "root %d of %d ranks", o.root, c.size)
		}
	case kSend, kRecv:
		if o.root < 0 || o.root >= c.size || o.root == c.rank {
			return c.errorf(o, ErrInvalidArgument, "peer %d: want another rank of %d", o.root, c.size)
		}
	}
	if o.count == 0 {
		return nil
	}
	n, es := uint64(o.count), uint64(o.dt.Size())
	sendN, recvN := n, n
	switch o.kind {
	case kAllGather:
		recvN = n * uint64(c.size)
	case kReduceScatter:
		sendN = n * uint64(c.size)
	}
	needSend := o.kind != kRecv && (o.kind != kBroadcast || c.rank == o.root)
	needRecv := o.kind != kSend && (o.kind != kReduce || c.rank == o.root)
	if needSend {
		if err := c.checkPtr(o, "send", o.send, sendN*es); err != nil {
			return err
		}
	}
	if needRecv {
		if err := c.checkPtr(o, "recv", o.recv, recvN*es); err != nil {
			return err
		}
	}
	return nil
}

// checkPtr checks that p is a live pointer of the queue's context with
// size bytes after it.
func (c *Communicator) checkPtr(o *call, name string, p ur.Ptr, size uint64) error {
	op := o.kind.String()
	if p.IsNil() {
		return c.errorf(o, ErrInvalidPointer, "%s is the nil Ptr", name)
	}
	u := p.USM()
	if u.Context() != c.q.Context() {
		return &Error{Op: op, Rank: c.rank, Backend: c.b.name(), Kind: ErrInvalidPointer,
			Message: name + " points into an allocation of another context than the communicator's queue",
			Err:     &ur.Error{Result: ur.ErrInvalidContext, Op: "collectives." + op, Message: "pointer of another context"}}
	}
	if p.Offset() > u.Size() || size > u.Size()-p.Offset() {
		return &Error{Op: op, Rank: c.rank, Backend: c.b.name(), Kind: ErrInvalidPointer,
			Message: fmt.Sprintf("%s: %d bytes at offset %d run past the end of the %d-byte allocation", name, size, p.Offset(), u.Size()),
			Err:     &ur.Error{Result: ur.ErrInvalidSize, Op: "collectives." + op, Message: "range past the allocation"}}
	}
	// ur's own check of a pointer: a freed allocation is refused.
	if err := p.Check(c.q.Context(), size); err != nil {
		return &Error{Op: op, Rank: c.rank, Backend: c.b.name(), Kind: ErrInvalidPointer, Message: name, Err: err}
	}
	return nil
}

// UniqueID names one communicator of several processes, as NCCL's
// ncclUniqueId: one rank makes it (NewUniqueID) and hands it to the
// others (Connect does so through a Rendezvous), and each passes it to
// Join. It says which backend the communicator runs: NCCL's id carries
// the address of its maker's bootstrap listener; the ring's is a random
// name under which the ranks exchange their addresses.
type UniqueID struct {
	backend Backend
	b       [128]byte
}

// Backend is the backend the id is for.
func (id UniqueID) Backend() Backend { return id.backend }

// MarshalBinary encodes the id in 129 bytes.
func (id UniqueID) MarshalBinary() ([]byte, error) {
	out := make([]byte, 1, 129)
	switch id.backend {
	case BackendNCCL:
		out[0] = 'n'
	case BackendRing:
		out[0] = 'r'
	default:
		return nil, errors.New("collectives: the zero UniqueID")
	}
	return append(out, id.b[:]...), nil
}

// UnmarshalBinary decodes what MarshalBinary encoded.
func (id *UniqueID) UnmarshalBinary(b []byte) error {
	if len(b) != 129 || b[0] != 'n' && b[0] != 'r' {
		return &Error{Op: "UniqueID.UnmarshalBinary", Rank: -1, Kind: ErrInvalidArgument, Message: fmt.Sprintf("%d bytes: not a UniqueID", len(b))}
	}
	id.backend = BackendRing
	if b[0] == 'n' {
		id.backend = BackendNCCL
	}
	copy(id.b[:], b[1:])
	return nil
}

// String is the id in hex, as ParseUniqueID reads it.
func (id UniqueID) String() string {
	b, err := id.MarshalBinary()
	if err != nil {
		return "<zero UniqueID>"
	}
	return hex.EncodeToString(b)
}

// ParseUniqueID reads an id from its String.
func ParseUniqueID(s string) (UniqueID, error) {
	var id UniqueID
	b, err := hex.DecodeString(s)
	if err != nil {
		return id, &Error{Op: "ParseUniqueID", Rank: -1, Kind: ErrInvalidArgument, Err: err}
	}
	return id, id.UnmarshalBinary(b)
}

// ringName is the ring id's name for rendezvous keys.
func (id UniqueID) ringName() string { return hex.EncodeToString(id.b[:16]) }

// NewUniqueID makes the id of a new communicator of several processes.
// With NCCL (chosen as Join chooses, but without a queue to look at:
// WithBackend(BackendRing) for ranks that are not CUDA's) it is
// ncclGetUniqueId's, and this process runs NCCL's bootstrap listener
// until the ranks have joined; the ring's is random.
func NewUniqueID(opts ...Option) (UniqueID, error) {
	o, err := makeOptions(opts)
	if err != nil {
		return UniqueID{}, &Error{Op: "NewUniqueID", Rank: -1, Kind: ErrInvalidArgument, Err: err}
	}
	return newUniqueID(o, nil)
}

// newUniqueID picks the backend for q (nil: by the library alone).
func newUniqueID(o options, q *ur.Queue) (UniqueID, error) {
	const op = "NewUniqueID"
	b := o.backend
	if b == BackendAuto {
		b = BackendRing
		if (q == nil || q.Device().Backend() == "cuda") && ncclUsable(true) == nil {
			b = BackendNCCL
		}
	}
	id := UniqueID{backend: b}
	if b == BackendRing {
		rand.Read(id.b[:16])
		return id, nil
	}
	if err := ncclUsable(true); err != nil {
		return UniqueID{}, err
	}
	lib, _ := ncclLib()
	nid, r := lib.GetUniqueID()
	if r != 0 {
		return UniqueID{}, ncclError(op, -1, lib, 0, "ncclGetUniqueId", r)
	}
	id.b = nid
	return id, nil
}

// NewGroup makes one communicator per queue, ranks in the order of
// queues, for one process driving several devices (ncclCommInitAll). The
// queues must be of distinct devices for NCCL; the ring takes any, two
// queues of one device included.
func NewGroup(queues []*ur.Queue, opts ...Option) ([]*Communicator, error) {
	const op = "NewGroup"
	o, err := makeOptions(opts)
	if err != nil {
		return nil, &Error{Op: op, Rank: -1, Kind: ErrInvalidArgument, Err: err}
	}
	if len(queues) == 0 {
		return nil, newError(op, -1, "", ErrInvalidArgument, "no queues")
	}
	allCUDA := true
	for i, q := range queues {
		if q == nil || q.Context() == nil {
			return nil, newError(op, i, "", ErrInvalidArgument, "queue %d is nil or released", i)
		}
		if q.Device().Backend() != "cuda" {
			allCUDA = false
		}
	}
	b := o.backend
	if b == BackendAuto {
		b = BackendRing
		if allCUDA && ncclUsable(false) == nil {
			b = BackendNCCL
		}
	}
	if b == BackendNCCL {
		if err := ncclUsable(false); err != nil {
			return nil, err
		}
		if !allCUDA {
			return nil, newError(op, -1, "nccl", ErrUnsupported, "NCCL runs on CUDA queues only")
		}
		return newNCCLGroup(queues, o.timeout)
	}
	return newRingGroup(queues, o), nil
}

// Join makes this process's rank of a communicator of nranks processes
// from the id rank 0 made, on queue q. It waits until every rank has
// joined, or until ctx is done: then it aborts what it set up and
// returns an error carrying ErrTimeout (or ctx's error), leaving nothing
// waiting. The ring needs a Rendezvous (WithRendezvous) to exchange the
// ranks' addresses.
func Join(ctx context.Context, id UniqueID, rank, nranks int, q *ur.Queue, opts ...Option) (*Communicator, error) {
	const op = "Join"
	o, err := makeOptions(opts)
	if err != nil {
		return nil, &Error{Op: op, Rank: rank, Kind: ErrInvalidArgument, Err: err}
	}
	if nranks < 1 || rank < 0 || rank >= nranks {
		return nil, newError(op, rank, "", ErrInvalidArgument, "rank %d of %d", rank, nranks)
	}
	if q == nil || q.Context() == nil {
		return nil, newError(op, rank, "", ErrInvalidArgument, "nil or released queue")
	}
	if o.backend != BackendAuto && o.backend != id.backend {
		return nil, newError(op, rank, string(o.backend), ErrInvalidArgument, "the id is for the %s backend", id.backend)
	}
	switch id.backend {
	case BackendNCCL:
		if err := ncclUsable(true); err != nil {
			return nil, err
		}
		if q.Device().Backend() != "cuda" {
			return nil, newError(op, rank, "nccl", ErrUnsupported, "NCCL runs on CUDA queues only, not %s", q.Device().Backend())
		}
		return joinNCCL(ctx, id, rank, nranks, q, o.timeout)
	case BackendRing:
		if o.rendezvous == nil {
			return nil, newError(op, rank, "ring", ErrInvalidArgument, "the ring needs a Rendezvous to exchange addresses (WithRendezvous, or Connect)")
		}
		return joinRing(ctx, id, rank, nranks, q, o)
	}
	return nil, newError(op, rank, "", ErrInvalidArgument, "the zero UniqueID")
}

// Connect makes this process's rank of a communicator of nranks
// processes through a rendezvous: rank 0 makes the id (for the backend
// its queue runs) and publishes it, the others wait for it, and all
// Join. ctx bounds the whole: a rank that never comes gives an error
// carrying ErrTimeout on the others.
func Connect(ctx context.Context, rv Rendezvous, rank, nranks int, q *ur.Queue, opts ...Option) (*Communicator, error) {
	const op = "Connect"
	o, err := makeOptions(opts)
	if err != nil {
		return nil, &Error{Op: op, Rank: rank, Kind: ErrInvalidArgument, Err: err}
	}
	if rv == nil {
		return nil, newError(op, rank, "", ErrInvalidArgument, "nil Rendezvous")
	}
	if nranks < 1 || rank < 0 || rank >= nranks {
		return nil, newError(op, rank, "", ErrInvalidArgument, "rank %d of %d", rank, nranks)
	}
	var id UniqueID
	if rank == 0 {
		if q == nil || q.Context() == nil {
			return nil, newError(op, rank, "", ErrInvalidArgument, "nil or released queue")
		}
		if id, err = newUniqueID(o, q); err != nil {
			return nil, err
		}
		b, _ := id.MarshalBinary()
		if err := rv.Publish(ctx, "id", b); err != nil {
			return nil, rendezvousError(op, rank, "publishing the id", err)
		}
	} else {
		b, err := rv.Wait(ctx, "id")
		if err != nil {
			return nil, rendezvousError(op, rank, "waiting for rank 0's id", err)
		}
		if err := id.UnmarshalBinary(b); err != nil {
			return nil, err
		}
	}
	return Join(ctx, id, rank, nranks, q, append(opts, WithRendezvous(rv))...)
}

// rendezvousError wraps a rendezvous failure, keeping its kind.
func rendezvousError(op string, rank int, what string, err error) error {
	kind := ErrRendezvous
	if errors.Is(err, ErrTimeout) || errors.Is(err, context.DeadlineExceeded) {
		kind = ErrTimeout
	}
	return &Error{Op: op, Rank: rank, Kind: kind, Message: what, Err: err}
}
