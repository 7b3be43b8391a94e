package collectives

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gour-dev/gour/collectives/internal/cudrv"
	"github.com/gour-dev/gour/collectives/internal/nccl"
	"github.com/gour-dev/gour/ur"
)

// EnvNCCLLibrary names the NCCL library to load instead of libnccl.so.2
// from the loader's path (a file, or a name the loader finds).
const EnvNCCLLibrary = "GOUR_NCCL_LIBRARY"

var (
	ncclLoaded atomic.Bool
	ncclOnce   = sync.OnceValues(func() (*nccl.Lib, error) {
		var names []string
		what := nccl.Library.Base + "." + nccl.Library.Versions[0]
		if env := os.Getenv(EnvNCCLLibrary); env != "" {
			names, what = []string{env}, env
		}
		l, err := nccl.Load(names...)
		if err != nil {
			return nil, &LibraryError{Library: what, Reason: "it does not load", Err: err}
		}
		if v, r := l.Version(); r != nccl.Success || v < 21000 {
			l.Close()
			return nil, &LibraryError{Library: l.Name(), Reason: fmt.Sprintf("version %d: gour needs NCCL 2.10 or later", v)}
		}
		ncclLoaded.Store(true)
		return l, nil
	})
	cudaOnce = sync.OnceValues(func() (*cudrv.Lib, error) {
		l, err := cudrv.Load()
		if err != nil {
			return nil, &LibraryError{Library: "libcuda.so.1", Reason: "the CUDA driver does not load", Err: err}
		}
		return l, nil
	})
)

// ncclLib loads NCCL once per process.
func ncclLib() (*nccl.Lib, error) { return ncclOnce() }

// ncclLibLoaded is NCCL if it was loaded already, else nil, nil: Group
// starts NCCL's group only then.
func ncclLibLoaded() (*nccl.Lib, error) {
	if !ncclLoaded.Load() {
		return nil, nil
	}
	return ncclOnce()
}

// NCCLVersion is the version of the NCCL library found (NCCL_VERSION_CODE:
// 22703 for 2.27.3), or a *LibraryError saying why there is none.
func NCCLVersion() (int, error) {
	l, err := ncclLib()
	if err != nil {
		return 0, err
	}
	v, _ := l.Version()
	return v, nil
}

// NCCLAvailable returns nil when NCCL and the CUDA driver load (and, for
// multiProcess, NCCL can make communicators of several processes), else
// a *LibraryError saying what is missing.
func NCCLAvailable(multiProcess bool) error { return ncclUsable(multiProcess) }

func ncclUsable(multiProcess bool) error {
	l, err := ncclLib()
	if err != nil {
		return err
	}
	if _, err := cudaOnce(); err != nil {
		return err
	}
	if multiProcess && !l.CanInitRank() {
		v, _ := l.Version()
		return &LibraryError{Library: l.Name(), Reason: fmt.Sprintf("NCCL %d lacks ncclCommInitRankScalable (NCCL 2.23) or ncclCommSplit, which communicators of several processes need: "+
			"ncclCommInitRank takes its id by value, which gour's calls without cgo cannot pass", v)}
	}
	return nil
}

// ncclError shapes an NCCL failure: call is the NCCL function whose
// result r was (or "ncclX (ncclCommGetAsyncError)" where r is the
// communicator's state after a non-blocking ncclX), so the message names
// both.
func ncclError(op string, rank int, lib *nccl.Lib, comm nccl.Comm, call string, r nccl.Result) error {
	kind := ErrBackend
	switch r {
	case nccl.InvalidArgument, nccl.InvalidUsage:
		kind = ErrInvalidArgument
	case nccl.Timeout:
		kind = ErrTimeout
	case nccl.RemoteError:
		kind = ErrAborted
	}
	msg := call + " returned " + r.Name() + ": " + lib.ErrorString(r)
	if comm != 0 {
		if last := lib.LastError(comm); last != "" {
			msg += ": " + last
		}
	}
	return &Error{Op: op, Rank: rank, Backend: "nccl", Kind: kind, Native: int(r), NativeName: r.Name(), Message: msg}
}

// queueCtx is the CUDA context of q's stream, for NCCL's calls.
func queueCtx(cu *cudrv.Lib, q *ur.Queue) (nccl.Ctx, error) {
	ctx := q.NativeContext()
	if ctx == 0 {
		return nccl.Ctx{}, fmt.Errorf("the queue has no CUDA context (released?)")
	}
	return nccl.Ctx{SetCurrent: cu.CtxSetCurrent, Handle: ctx}, nil
}

// ncclBackend is one NCCL communicator.
type ncclBackend struct {
	lib     *nccl.Lib
	comm    nccl.Comm
	ctx     nccl.Ctx
	stream  uintptr
	rank    int
	timeout time.Duration
	// parent is the non-blocking communicator Join made and split comm
	// from; released with it.
	parent nccl.Comm
}

func (b *ncclBackend) name() string { return "nccl" }

func (b *ncclBackend) run(c *Communicator, o *call) error {
	if b.comm == 0 {
		return &Error{Op: o.kind.String(), Rank: b.rank, Backend: "nccl", Kind: ErrAborted, Message: "the communicator was aborted"}
	}
	l, dt, n := b.lib, ncclTypes[o.dt], uint64(o.count)
	var redop nccl.RedOp
	if o.op.valid() {
		redop = opNCCL[o.op]
	}
	s, r := o.send.Addr(), o.recv.Addr()
	var res nccl.Result
	call := "nccl" + o.kind.String()
	switch o.kind {
	case kAllReduce:
		res = l.AllReduce(b.ctx, s, r, n, dt, redop, b.comm, b.stream)
	case kBroadcast:
		res = l.Broadcast(b.ctx, s, r, n, dt, o.root, b.comm, b.stream)
	case kReduce:
		res = l.Reduce(b.ctx, s, r, n, dt, redop, o.root, b.comm, b.stream)
	case kAllGather:
		res = l.AllGather(b.ctx, s, r, n, dt, b.comm, b.stream)
	case kReduceScatter:
		res = l.ReduceScatter(b.ctx, s, r, n, dt, redop, b.comm, b.stream)
	case kSend:
		res = l.Send(b.ctx, s, n, dt, o.root, b.comm, b.stream)
	case kRecv:
		res = l.Recv(b.ctx, r, n, dt, o.root, b.comm, b.stream)
	}
	if res == nccl.InProgress {
		return b.wait(o.kind.String(), call, context.Background())
	}
	if res != nccl.Success {
		return ncclError(o.kind.String(), b.rank, l, b.comm, call, res)
	}
	return nil
}

// wait polls a non-blocking communicator until its call under way (call,
// the NCCL function) is done, for at most the communicator's timeout or
// until ctx ends; then it aborts the communicator. The communicator's
// state comes through ncclCommGetAsyncError's out pointer, apart from
// that function's own result.
func (b *ncclBackend) wait(op, call string, ctx context.Context) error {
	deadline := time.Now().Add(b.timeout)
	pause := 50 * time.Microsecond
	for {
		state, r := b.lib.CommGetAsyncError(b.comm)
		if r != nccl.Success {
			return ncclError(op, b.rank, b.lib, b.comm, "ncclCommGetAsyncError", r)
		}
		switch state {
		case nccl.Success:
			return nil
		case nccl.InProgress:
		default:
			return ncclError(op, b.rank, b.lib, b.comm, call+" (its state from ncclCommGetAsyncError)", state)
		}
		if ctx.Err() != nil || time.Now().After(deadline) {
			b.lib.CommAbort(b.ctx, b.comm)
			b.comm = 0
			kind := ErrTimeout
			if ctx.Err() != nil && ctx.Err() != context.DeadlineExceeded {
				kind = ErrAborted
			}
			return &Error{Op: op, Rank: b.rank, Backend: "nccl", Kind: kind, Message: "the other ranks did not come; the communicator was aborted", Err: ctx.Err()}
		}
		time.Sleep(pause)
		pause = min(2*pause, 2*time.Millisecond)
	}
}

func (b *ncclBackend) abort() error {
	if b.parent != 0 {
		b.lib.CommAbort(b.ctx, b.parent)
		b.parent = 0
	}
	if b.comm == 0 {
		return nil
	}
	r := b.lib.CommAbort(b.ctx, b.comm)
	b.comm = 0
	if r != nccl.Success {
		return ncclError("Abort", b.rank, b.lib, 0, "ncclCommAbort", r)
	}
	return nil
}

func (b *ncclBackend) close() error {
	if b.comm == 0 {
		return nil
	}
	r := b.lib.CommDestroy(b.ctx, b.comm)
	b.comm = 0
	if b.parent != 0 {
		// Kept until now: the child's setup went through its bootstrap.
		// Never used since, it is aborted, which waits for no peer.
		b.lib.CommAbort(b.ctx, b.parent)
		b.parent = 0
	}
	if r != nccl.Success {
		return ncclError("Close", b.rank, b.lib, 0, "ncclCommDestroy", r)
	}
	return nil
}

func (b *ncclBackend) err() error {
	if b.comm == 0 {
		return &Error{Op: "Err", Rank: b.rank, Backend: "nccl", Kind: ErrAborted, Message: "the communicator was closed or aborted"}
	}
	state, r := b.lib.CommGetAsyncError(b.comm)
	if r != nccl.Success {
		return ncclError("Err", b.rank, b.lib, b.comm, "ncclCommGetAsyncError", r)
	}
	if state != nccl.Success && state != nccl.InProgress {
		return ncclError("Err", b.rank, b.lib, b.comm, "the communicator's state (ncclCommGetAsyncError)", state)
	}
	return nil
}

// newNCCLGroup makes the communicators of one process: ncclCommInitAll
// where every queue is on its device's primary context (gour's CUDA
// contexts are), else ncclCommInitRankScalable for each in one group,
// its context current.
func newNCCLGroup(queues []*ur.Queue, timeout time.Duration) ([]*Communicator, error) {
	const op = "NewGroup"
	if err := ncclUsable(false); err != nil {
		return nil, err
	}
	lib, _ := ncclLib()
	cu, _ := cudaOnce()
	n := len(queues)
	ctxs := make([]nccl.Ctx, n)
	ords := make([]int32, n)
	primary := true
	for i, q := range queues {
		c, err := queueCtx(cu, q)
		if err != nil {
			return nil, &Error{Op: op, Rank: i, Backend: "nccl", Kind: ErrUnsupported, Err: err}
		}
		dev, r := cu.CtxDevice(c.Handle)
		if r != 0 {
			return nil, newError(op, i, "nccl", ErrBackend, "cuCtxGetDevice: CUDA error %d", r)
		}
		for j := range i {
			if ords[j] == dev {
				return nil, newError(op, i, "nccl", ErrInvalidArgument, "queues %d and %d are of one CUDA device (%d): NCCL wants one rank per device", j, i, dev)
			}
		}
		if p, r := cu.PrimaryCtx(dev); r == 0 {
			primary = primary && p == c.Handle
			cu.PrimaryCtxRelease(dev)
		}
		ctxs[i], ords[i] = c, dev
	}
	var comms []nccl.Comm
	if primary {
		var r nccl.Result
		if comms, r = lib.CommInitAll(ords); r != nccl.Success {
			return nil, ncclError(op, -1, lib, 0, "ncclCommInitAll", r)
		}
	} else {
		if !lib.CanInitRank() {
			return nil, ncclUsable(true)
		}
		id, r := lib.GetUniqueID()
		if r != nccl.Success {
			return nil, ncclError(op, -1, lib, 0, "ncclGetUniqueId", r)
		}
		runtime.LockOSThread()
		lib.GroupStart()
		comms = make([]nccl.Comm, n)
		var first nccl.Result
		firstCall := ""
		for i := range n {
			if comms[i], r = lib.CommInitRank(ctxs[i], id, n, i, true); r != nccl.Success && first == nccl.Success {
				first, firstCall = r, "ncclCommInitRankScalable"
			}
		}
		if r := lib.GroupEnd(); r != nccl.Success && first == nccl.Success {
			first, firstCall = r, "ncclGroupEnd"
		}
		runtime.UnlockOSThread()
		if first != nccl.Success {
			for i, c := range comms {
				if c != 0 {
					lib.CommAbort(ctxs[i], c)
				}
			}
			return nil, ncclError(op, -1, lib, 0, firstCall, first)
		}
	}
	out := make([]*Communicator, n)
	for i, q := range queues {
		out[i] = &Communicator{rank: i, size: n, q: q,
			b: &ncclBackend{lib: lib, comm: comms[i], ctx: ctxs[i], stream: q.Native(), rank: i, timeout: timeout}}
	}
	return out, nil
}

// joinNCCL makes this process's rank with a non-blocking
// ncclCommInitRankScalable and waits for the others until ctx ends.
func joinNCCL(ctx context.Context, id UniqueID, rank, nranks int, q *ur.Queue, timeout time.Duration) (*Communicator, error) {
	const op = "Join"
	if err := ncclUsable(true); err != nil {
		return nil, err
	}
	lib, _ := ncclLib()
	cu, _ := cudaOnce()
	c, err := queueCtx(cu, q)
	if err != nil {
		return nil, &Error{Op: op, Rank: rank, Backend: "nccl", Kind: ErrUnsupported, Err: err}
	}
	comm, r := lib.CommInitRank(c, id.b, nranks, rank, false)
	if r != nccl.Success && r != nccl.InProgress {
		if comm != 0 {
			lib.CommAbort(c, comm)
		}
		return nil, ncclError(op, rank, lib, 0, "ncclCommInitRankScalable", r)
	}
	b := &ncclBackend{lib: lib, comm: comm, ctx: c, stream: q.Native(), rank: rank, timeout: timeout}
	if dl, ok := ctx.Deadline(); ok {
		b.timeout = time.Until(dl)
	} else {
		b.timeout = 1<<63 - 1
	}
	if err := b.wait(op, "ncclCommInitRankScalable", ctx); err != nil {
		if b.comm != 0 {
			lib.CommAbort(c, b.comm)
		}
		if e, ok := err.(*Error); ok && e.Kind == ErrTimeout {
			e.Message = fmt.Sprintf("not every one of %d ranks joined before the deadline; the communicator was aborted", nranks)
		}
		return nil, err
	}
	// A non-blocking communicator runs every group, one operation
	// included, on a thread NCCL starts for it: the operations would pay
	// for a thread each. Its blocking copy, split from it now that every
	// rank is here, runs them on the caller's thread, as torch's do.
	if err := b.splitBlocking(op, ctx); err != nil {
		return nil, err
	}
	b.timeout = timeout
	return &Communicator{rank: rank, size: nranks, q: q, b: b}, nil
}

// splitBlocking replaces b's non-blocking communicator, every rank of
// which is here, by a blocking one split from it (ncclCommSplit), waiting
// for the split as long as b.timeout and ctx allow. A split of a
// non-blocking communicator runs on a thread of NCCL's: ncclCommSplit
// returns ncclSuccess (its group's ncclInProgress is dropped) with no
// communicator yet; the parent's state (ncclCommGetAsyncError) is
// ncclInProgress until the split is done, and only then does NCCL write
// the new communicator (nccl.Split). On success b.comm is the child and
// b.parent the non-blocking communicator; on failure both are aborted
// and b.comm is 0.
func (b *ncclBackend) splitBlocking(op string, ctx context.Context) error {
	lib, c, parent := b.lib, b.ctx, b.comm
	split, r := lib.CommSplit(c, parent, 0, b.rank, true)
	fail := func(err error) error {
		if b.comm != 0 {
			// Aborting the parent joins NCCL's thread of the split, which
			// leaves the child (a failed one) or nothing in split.
			lib.CommAbort(c, b.comm)
			b.comm = 0
		}
		if child := split.Comm(); child != 0 {
			lib.CommAbort(c, child)
		}
		split.Abandon() // in case NCCL has not let go of it
		return err
	}
	if r != nccl.Success && r != nccl.InProgress {
		return fail(ncclError(op, b.rank, lib, parent, "ncclCommSplit", r))
	}
	if split.Comm() == 0 {
		// Under way: done when the parent's state leaves ncclInProgress.
		if err := b.wait(op, "ncclCommSplit", ctx); err != nil {
			if e, ok := err.(*Error); ok && e.Kind == ErrTimeout {
				e.Message = "the split of the blocking communicator (ncclCommSplit) did not end before the deadline; the communicators were aborted"
			}
			return fail(err)
		}
	}
	child := split.Comm()
	if child == 0 {
		return fail(&Error{Op: op, Rank: b.rank, Backend: "nccl", Kind: ErrBackend,
			Message: "ncclCommSplit returned " + r.Name() + " and the parent's state (ncclCommGetAsyncError) became ncclSuccess, but NCCL gave no communicator"})
	}
	b.parent, b.comm = parent, child
	return nil
}

// endNCCLGroup ends NCCL's group and waits for non-blocking
// communicators' calls to be issued.
func endNCCLGroup(g *group) error {
	lib, _ := ncclOnce()
	r := lib.GroupEnd()
	switch r {
	case nccl.Success:
		return nil
	case nccl.InProgress:
		for _, c := range g.ncclComms {
			if err := c.b.(*ncclBackend).wait("Group", "ncclGroupEnd", context.Background()); err != nil {
				return err
			}
		}
		return nil
	}
	return ncclError("Group", -1, lib, 0, "ncclGroupEnd", r)
}
