package compute

import (
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/gour-dev/gour/ur"
)

// Context is where operations run: the CPU (NewCPU) or a gour device
// (NewDevice). Arrays belong to the context that made them. The
// algorithms of the package (Fill, Copy, Transform, Reduce, Dot, task
// sequences) are written once against this interface; its methods past
// String, Backend and Release are the package's own, so only the
// package's contexts implement it.
type Context interface {
	// String describes the context.
	String() string
	// Backend is "cpu" for the CPU context and the device's backend
	// ("opencl", "cuda", "level_zero") for a device context: the key
	// of Func.Source.
	Backend() string
	// Release frees what the context owns. Arrays of the context must be
	// released before it.
	Release() error

	eng() engine
}

// engine is what a context does for the algorithms: storage and
// transfers, one element-wise kernel, one reduction, and a fence.
type engine interface {
	checkOpen() error
	hasDevice() bool
	zeros(c *core) error
	allocDev(size uint64) (*devMem, error)
	freeDev(d *devMem) error
	upload(c *core) error
	download(c *core) error
	// ready makes op runnable before its arrays change state: a device
	// finds or builds its kernel.
	ready(op *ewOp) error
	// readyReduce is ready for a reduction.
	readyReduce(op *redOp) error
	elementwise(op *ewOp) error
	reduce(op *redOp) ([]byte, error)
	// fence returns an event completing after everything enqueued so
	// far, for the caller to wait on and release; nil when everything is
	// done already.
	fence() (*ur.Event, error)
}

// ewOp is one element-wise operation: out[i] = f(ins[i]..., params) for
// every i < n.
type ewOp struct {
	n int
	kernelSrc
	name   string // the kernel's name
	out    *core
	ins    []*core
	params []ur.Arg
	// cpu returns the chunk body for the CPU context, made only there
	// so that a device operation does not touch host storage.
	cpu func() func(lo, hi int)
	// kernel is the device kernel, found by Device.ready.
	kernel *kernelEntry

	// Room for the slices of a small operation: a Transform on a device
	// then allocates nothing but its caller's variadic slice of inputs,
	// which escapes into the CPU closure (BenchmarkDispatch: one
	// allocation, with a NewFunc or an Expr). Its dispatch cost is the
	// package's overhead on a launch. The CPU context allocates its
	// chunk closures too, and an ExprFunc the evaluator's operands
	// (BenchmarkDispatchCPU, 1024 elements in one chunk: 8 allocations
	// with a NewFunc, 12 with an Expr).
	useBuf   [4]use
	coreBuf  [4]*core
	paramBuf [4]ur.Arg
	argBuf   [8]ur.Arg
}

// kernelSrc is where an operation's device kernels come from, for
// Device.ready and Device.readyReduce.
type kernelSrc struct {
	key    string // identifies source, for the kernel cache
	source sourcer
	fp64   bool
}

// sourcer makes the source of a program for a backend ("opencl",
// "cuda", "level_zero": see deviceSource). An interface, not a func
// field, so that a Func is passed without allocating a method value.
type sourcer interface {
	Source(backend string) (string, error)
}

// sourceFunc is a function as a sourcer.
type sourceFunc func(backend string) (string, error)

func (f sourceFunc) Source(backend string) (string, error) { return f(backend) }

// redOp is one reduction of a (or of a[i]*b[i] when b is set, a dot
// product) with an associative operator.
type redOp struct {
	n int
	kernelSrc
	name   string // the first pass's kernel; the second pass is reduce over its partials
	name2  string
	a, b   *core
	ident  ur.Arg
	identB []byte // the identity's bytes: the result of an empty reduction
	// k1 and k2 are the passes' device kernels, found by
	// Device.readyReduce.
	k1, k2 *kernelEntry
	// cpu returns, for chunks chunks, the chunk body (storing the chunk's
	// partial result) and the combination of the partials in order.
	cpu func(chunks int) (body func(chunk, lo, hi int), finish func() []byte)
}

// CPU is the context of the host: operations run on goroutines, each
// over a contiguous chunk of the elements; there are no transfers. It
// needs no cgo and no driver.
type CPU struct {
	workers  int
	minChunk int
	released atomic.Bool
}

// NewCPU returns a CPU context running operations on up to workers
// goroutines (0: GOMAXPROCS).
func NewCPU(workers int) *CPU {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	// Below 16Ki elements a chunk costs more to hand to a goroutine than
	// to compute.
	return &CPU{workers: workers, minChunk: 1 << 14}
}

// Workers returns the most goroutines an operation uses.
func (c *CPU) Workers() int {
	if c == nil {
		return 0
	}
	return c.workers
}

func (c *CPU) String() string {
	if c == nil {
		return "cpu(nil)"
	}
	return fmt.Sprintf("cpu(%d workers)", c.workers)
}

func (c *CPU) Backend() string { return "cpu" }

// Release marks the context released: later operations give ErrReleased.
func (c *CPU) Release() error {
	if c != nil {
		c.released.Store(true)
	}
	return nil
}

func (c *CPU) eng() engine { return c }

func (c *CPU) checkOpen() error {
	if c == nil {
		return fmt.Errorf("%w: nil *CPU", ErrInvalid)
	}
	if c.released.Load() {
		return fmt.Errorf("%w: %v", ErrReleased, c)
	}
	return nil
}

func (c *CPU) hasDevice() bool { return false }

func (c *CPU) zeros(a *core) error {
	h, err := alignedBytes(int(a.bytes()))
	if err != nil {
		return err
	}
	a.host, a.hostValid = h, true
	return nil
}

func (c *CPU) allocDev(uint64) (*devMem, error) {
	return nil, fmt.Errorf("%w: the CPU context has no device", ErrInvalid)
}
func (c *CPU) freeDev(*devMem) error { return nil }
func (c *CPU) upload(*core) error {
	return fmt.Errorf("%w: the CPU context has no device", ErrInvalid)
}
func (c *CPU) download(*core) error {
	return fmt.Errorf("%w: the CPU context has no device", ErrInvalid)
}

func (c *CPU) fence() (*ur.Event, error) { return nil, nil }

// chunks returns how many chunks n elements are cut into.
func (c *CPU) chunks(n int) int {
	k := (n + c.minChunk - 1) / c.minChunk
	return max(1, min(k, c.workers))
}

// parallel runs body over [0, n) in k chunks, one goroutine per chunk
// but the last, which runs on the caller's. Chunk i is
// [i*n/k, (i+1)*n/k). A panic in body (a user's CPU function indexing
// past a slice) is recovered and returned as an error, so that it cannot
// take the process down from another goroutine.
func (c *CPU) parallel(n, k int, body func(chunk, lo, hi int)) error {
	var (
		mu    sync.Mutex
		first error
	)
	run := func(i int) {
		if err := runChunk(body, i, n, k); err != nil {
			mu.Lock()
			if first == nil {
				first = err
			}
			mu.Unlock()
		}
	}
	if k <= 1 {
		k = 1
		run(0)
		return first
	}
	var wg sync.WaitGroup
	wg.Add(k - 1)
	for i := range k - 1 {
		go func() {
			defer wg.Done()
			run(i)
		}()
	}
	run(k - 1)
	wg.Wait()
	return first
}

func (c *CPU) ready(*ewOp) error        { return nil }
func (c *CPU) readyReduce(*redOp) error { return nil }

// runChunk runs chunk i of k of body over [0, n), returning a panic in
// it as an error.
func runChunk(body func(chunk, lo, hi int), i, n, k int) (err error) {
	defer recovered("CPU function", &err)
	body(i, i*n/k, (i+1)*n/k)
	return nil
}

// recovered, deferred, returns a panic in what (a CPU function, a
// TaskSequence's task) as an error in *err; one that panicked with an
// error wraps it.
func recovered(what string, err *error) {
	if r := recover(); r != nil {
		if e, ok := r.(error); ok {
			*err = fmt.Errorf("compute: %s panicked: %w", what, e)
		} else {
			*err = fmt.Errorf("compute: %s panicked: %v", what, r)
		}
	}
}

// elementwise and reduce recover a panic in their setup (a body's setup
// views the arrays' storage) and in combining a reduction's partials,
// which run on the caller's goroutine, as parallel does one in a chunk.

func (c *CPU) elementwise(op *ewOp) (err error) {
	if op.n == 0 {
		return nil
	}
	defer recovered("CPU function", &err)
	f := op.cpu()
	return c.parallel(op.n, c.chunks(op.n), func(_, lo, hi int) { f(lo, hi) })
}

func (c *CPU) reduce(op *redOp) (res []byte, err error) {
	if op.n == 0 {
		return op.identB, nil
	}
	defer recovered("CPU function", &err)
	k := c.chunks(op.n)
	body, finish := op.cpu(k)
	if err := c.parallel(op.n, k, body); err != nil {
		return nil, err
	}
	return finish(), nil
}
