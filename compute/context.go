package compute

import (
	"fmt"

	"github.com/gour-dev/gour/ur"
)

// Context is where operations run: the CPU (NewCPU), a gour device
// (NewDevice) or several (NewMultiDevice). Arrays belong to the context that made them. The
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

// engine is what a context does for run: keep the copy of an array it
// computes on, and run work there. The host copy and its transfers are
// the array's (core, devMem), not the engine's.
type engine interface {
	checkOpen() error
	// zeros gives c zeroed storage.
	zeros(c *core) error
	// place gives c, whose host copy holds its data, its storage on the
	// context, replicated or not where the context has several devices:
	// a MultiDevice splits it, a Device uploads it when first used.
	place(c *core, replicated bool) error
	// stage makes c's copy on the context ready for an operation using
	// it as mode, c.mu held: on a device, allocated and, for In,
	// uploaded if stale.
	stage(c *core, mode Access) error
	// written marks c written by an operation run on the context, c.mu
	// held.
	written(c *core)
	// ready readies w before its arrays change: a device finds or builds
	// its kernels.
	ready(w work) error
	// exec runs w, readied, on its staged arrays: a device enqueues it.
	exec(w work) error
	// fence returns an event completing after everything enqueued so
	// far, for the caller to wait on and release; nil when everything is
	// done already.
	fence() (*ur.Event, error)
}

// work is one operation an algorithm hands to run, of one kind:
// element-wise (ewOp, elementwise.go) or a reduction (redOp, reduce.go).
// A kind knows how it runs on each context; a new kind (a reduction
// along an axis, a matrix product) is a new type with these methods, and
// neither run nor the contexts change.
type work interface {
	// kernels finds or builds the work's kernels on d.
	kernels(d *Device) error
	// onDevice enqueues the work on d's queue.
	onDevice(d *Device) error
	// onCPU runs the work on c.
	onCPU(c *CPU) error
	// onMulti runs the work on m: the same work over every device's
	// parts of its arrays, on that device (splitRun).
	onMulti(m *MultiDevice) error
}

// run does w on ctx: it checks the arrays of uses, readies w, stages the
// arrays for their uses, runs w and only then marks its Out arrays
// written, so that an operation that fails (a bad array, a kernel that
// does not build or launch) leaves its arrays' data as it was; readying
// first, a kernel that does not build uploads nothing.
func run(ctx Context, w work, uses []use) error {
	if err := checkUses(ctx, uses); err != nil {
		return err
	}
	e := ctx.eng()
	if err := e.ready(w); err != nil {
		return err
	}
	if err := stage(e, uses); err != nil {
		return err
	}
	if err := e.exec(w); err != nil {
		return err
	}
	commit(e, uses)
	return nil
}

// kernelSrc is where an operation's device kernels come from, for
// Device.kernel.
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

func checkCtx(ctx Context) error {
	if ctx == nil {
		return fmt.Errorf("%w: nil Context", ErrInvalid)
	}
	return nil
}
