package compute

import (
	"fmt"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/gour-dev/gour/dtype"
	"github.com/gour-dev/gour/ur"
)

// Access says how an operation uses an array, as Kiwaku's in, out and
// inout: it decides which transfers an operation makes, and no other
// transfer is made.
type Access uint8

const (
	// In: the operation reads the array. On a device the array is
	// uploaded if the device copy is stale; it is never downloaded, and
	// a valid host copy stays valid.
	In Access = 1 << iota
	// Out: the operation overwrites every element. Nothing is uploaded;
	// afterwards the device copy is the only valid one, brought back
	// only when the host asks for it (ToSlice, Host).
	Out
	// InOut: both; the array is uploaded if needed and only its device
	// copy is valid afterwards.
	InOut = In | Out
)

func (m Access) String() string {
	switch m {
	case In:
		return "In"
	case Out:
		return "Out"
	case InOut:
		return "InOut"
	}
	return fmt.Sprintf("Access(%d)", uint8(m))
}

// Transfers counts the copies an array made between host and device.
type Transfers struct {
	Uploads   int64 // host to device
	Downloads int64 // device to host
}

// core is the untyped state of an Array: what the contexts work on.
//
// The host copy and the device copy each have a valid flag; at least one
// is valid while the array is live. mu guards the flags and the storage
// fields, not the elements: two operations writing one array at once are
// the caller's race, as with a slice.
type core struct {
	mu        sync.Mutex
	ctx       Context
	et        *elemType
	shape     []int
	n         int
	host      []byte // nil until the host needs it
	dev       *devMem
	hostValid bool
	devValid  bool
	released  bool

	// A MultiDevice's array is parts, one core per device (offs[i] is
	// part i's first element, of a split array), holding the data; the
	// array's own host is the buffer the parts' host copies slice.
	parts      []*core
	offs       []int
	replicated bool

	uploads, downloads atomic.Int64
}

func (c *core) bytes() uint64 { return uint64(c.n * c.et.size) }

// Array is an n-dimensional array of T, row-major, made by and used with
// one Context. Its data lives on the host, on the context's device, or
// both; the array tracks which copy is current, so that a chain of
// device operations makes no transfers and the host gets the data back
// only when it asks.
//
// An Array may be used by several goroutines, but two operations writing
// it at once, or one writing it while another reads it, race on its
// elements as they would on a slice.
type Array[T Element] struct {
	c core
}

// shapeLen checks a shape of elements of size bytes and returns the
// number of elements: the product of the extents (1 for the empty shape:
// a scalar). The size in bytes must fit an int too: every byte count of
// the package is n*size.
func shapeLen(shape []int, size int) (int, error) {
	n := 1
	for _, d := range shape {
		if d < 0 {
			return 0, fmt.Errorf("%w: negative extent in shape %v", ErrShape, shape)
		}
		if d != 0 && n > int(^uint(0)>>1)/d {
			return 0, fmt.Errorf("%w: shape %v overflows int", ErrShape, shape)
		}
		n *= d
	}
	if n > int(^uint(0)>>1)/size {
		return 0, fmt.Errorf("%w: shape %v of %d-byte elements overflows int in bytes", ErrShape, shape, size)
	}
	return n, nil
}

func newArray[T Element](ctx Context, shape []int) (*Array[T], error) {
	if ctx == nil {
		return nil, fmt.Errorf("%w: nil Context", ErrInvalid)
	}
	if err := ctx.eng().checkOpen(); err != nil {
		return nil, err
	}
	et := typeOf[T]()
	n, err := shapeLen(shape, et.size)
	if err != nil {
		return nil, err
	}
	a := &Array[T]{}
	a.c.ctx, a.c.et, a.c.shape, a.c.n = ctx, et, slices.Clone(shape), n
	return a, nil
}

// FromSlice returns an array of ctx holding a copy of data with the given
// shape; with no shape it is one-dimensional, of len(data) elements. The
// copy is on the host: a device context uploads it when an operation
// first reads it.
func FromSlice[T Element](ctx Context, data []T, shape ...int) (*Array[T], error) {
	return fromSlice(ctx, data, false, shape)
}

func fromSlice[T Element](ctx Context, data []T, replicated bool, shape []int) (*Array[T], error) {
	if len(shape) == 0 {
		shape = []int{len(data)}
	}
	a, err := newArray[T](ctx, shape)
	if err != nil {
		return nil, err
	}
	if a.c.n != len(data) {
		return nil, fmt.Errorf("%w: %d elements for shape %v", ErrShape, len(data), shape)
	}
	if a.c.host, err = alignedBytes(int(a.c.bytes())); err != nil {
		return nil, err
	}
	copy(a.c.host, bytesOf(data))
	a.c.hostValid = true
	if err := ctx.eng().place(&a.c, replicated); err != nil {
		return nil, err
	}
	return a, nil
}

// Zeros returns an array of ctx of the given shape filled with zeros
// (with no shape, a scalar: one element). On a device context the zeros
// are written on the device, with no transfer, and the host has no copy
// until it asks.
func Zeros[T Element](ctx Context, shape ...int) (*Array[T], error) {
	a, err := newArray[T](ctx, shape)
	if err != nil {
		return nil, err
	}
	if err := ctx.eng().zeros(&a.c); err != nil {
		return nil, err
	}
	return a, nil
}

// Shape returns a copy of the array's shape.
func (a *Array[T]) Shape() []int {
	if a == nil {
		return nil
	}
	return slices.Clone(a.c.shape)
}

// DType is the array's element type: a named type of a Number is the
// Number's (type Meters float64 is dtype.Float64).
func (a *Array[T]) DType() dtype.Type { return typeOf[T]().dtype }

// Len returns the number of elements.
func (a *Array[T]) Len() int {
	if a == nil {
		return 0
	}
	return a.c.n
}

// Context returns the context that made the array.
func (a *Array[T]) Context() Context {
	if a == nil {
		return nil
	}
	return a.c.ctx
}

// Transfers returns how many uploads and downloads the array has made:
// what tests and profiling use to see that access modes avoid copies.
func (a *Array[T]) Transfers() Transfers {
	if a == nil {
		return Transfers{}
	}
	t := Transfers{Uploads: a.c.uploads.Load(), Downloads: a.c.downloads.Load()}
	for _, p := range a.c.parts {
		t.Uploads += p.uploads.Load()
		t.Downloads += p.downloads.Load()
	}
	return t
}

// ToSlice returns a copy of the elements, downloading them first if the
// host copy is stale. The device copy stays valid, so a later device
// operation reading the array makes no upload.
func (a *Array[T]) ToSlice() ([]T, error) {
	if a == nil {
		return nil, fmt.Errorf("%w: nil Array", ErrInvalid)
	}
	c := &a.c
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.syncHost("ToSlice"); err != nil {
		return nil, err
	}
	out := make([]T, c.n)
	copy(bytesOf(out), c.host)
	return out, nil
}

// Host returns the array's own host storage, downloading it first if
// stale. The caller may read and write it: the device copy is marked
// stale, so the next device operation reading the array uploads it. Use
// ToSlice to read without giving up the device copy. The slice is valid
// until the next operation that writes the array on a device.
func (a *Array[T]) Host() ([]T, error) {
	if a == nil {
		return nil, fmt.Errorf("%w: nil Array", ErrInvalid)
	}
	c := &a.c
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.syncHost("Host"); err != nil {
		return nil, err
	}
	c.devValid = false
	for _, p := range c.parts {
		p.mu.Lock()
		p.hostValid, p.devValid = true, false
		p.mu.Unlock()
	}
	return viewOf[T](c.host, c.n), nil
}

// Arg prepares the array for a kernel of one's own on its device
// context, as an operation of the given access mode would (uploading for
// In and InOut if needed; afterwards, for Out and InOut, only the device
// copy is valid), and returns it as a kernel argument for
// ur.Queue.Launch on the context's queue (the third result of
// Device.UR). Launch on that queue: its order is what keeps the array's
// copies consistent.
func (a *Array[T]) Arg(mode Access) (ur.Arg, error) {
	if a == nil {
		return ur.Arg{}, fmt.Errorf("%w: nil Array", ErrInvalid)
	}
	d, ok := a.c.ctx.(*Device)
	if !ok {
		return ur.Arg{}, fmt.Errorf("%w: Arg needs an array of a Device context, not of %v", ErrWrongContext, a.c.ctx)
	}
	if mode == 0 || mode > InOut {
		return ur.Arg{}, fmt.Errorf("%w: access mode %v", ErrInvalid, mode)
	}
	if err := prepare(d, []use{{&a.c, mode}}); err != nil {
		return ur.Arg{}, err
	}
	if a.c.n == 0 {
		return ur.Arg{}, fmt.Errorf("%w: an empty array has no device storage", ErrShape)
	}
	a.c.mu.Lock()
	defer a.c.mu.Unlock()
	return a.c.dev.arg(), nil
}

// Release frees the array's storage. The device copy is freed in the
// queue's order, after the work already enqueued on it. Using the array
// afterwards gives ErrReleased; a second Release is a no-op.
func (a *Array[T]) Release() error {
	if a == nil {
		return nil
	}
	c := &a.c
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.released {
		return nil
	}
	c.released = true
	c.host = nil
	c.hostValid, c.devValid = false, false
	if c.parts != nil {
		return c.releaseParts()
	}
	if c.dev != nil {
		d := c.dev
		c.dev = nil
		return d.free()
	}
	return nil
}

// syncHost makes the host copy valid, c.mu held: a MultiDevice's
// array's gathered from its parts.
func (c *core) syncHost(op string) error {
	if c.parts != nil {
		return c.syncHostMulti(op)
	}
	return c.syncHostLocked()
}

// syncHostLocked makes the host copy valid; c.mu is held.
func (c *core) syncHostLocked() error {
	if c.released {
		return fmt.Errorf("%w: array", ErrReleased)
	}
	if c.hostValid {
		return nil
	}
	if c.host == nil {
		h, err := alignedBytes(int(c.bytes()))
		if err != nil {
			return err
		}
		c.host = h
	}
	if c.n == 0 {
		c.hostValid = true
		return nil
	}
	if !c.devValid {
		return fmt.Errorf("%w: array has no valid copy", ErrInvalid)
	}
	if err := c.dev.read(c.host); err != nil {
		return err
	}
	c.downloads.Add(1)
	c.hostValid = true
	return nil
}

// use is one array of an operation and how the operation uses it.
type use struct {
	c    *core
	mode Access
}

// An operation changes its arrays' state in three steps, so that one that
// fails leaves every array with a valid copy of its old data:
// checkUses checks all of them before anything changes, stage has the
// context make its copies ready (a device allocates and uploads, which
// keeps the host copy valid), and commit, after the launch was enqueued,
// marks the Out arrays written.

// checkUses checks an operation's arrays on ctx: the context is open and
// every array is live and of ctx.
func checkUses(ctx Context, uses []use) error {
	if err := ctx.eng().checkOpen(); err != nil {
		return err
	}
	for _, u := range uses {
		if u.c == nil {
			return fmt.Errorf("%w: nil Array", ErrInvalid)
		}
		if u.c.ctx != ctx {
			return fmt.Errorf("%w: array of %v used with %v", ErrWrongContext, u.c.ctx, ctx)
		}
		u.c.mu.Lock()
		released := u.c.released
		u.c.mu.Unlock()
		if released {
			return fmt.Errorf("%w: array", ErrReleased)
		}
	}
	return nil
}

// stage makes the transfers the arrays' access modes need, no others:
// an array given twice (out aliasing an input) gets the union of its
// modes. Validity changes only where a copy is made.
func stage(e engine, uses []use) error {
	for i, u := range uses {
		first := true
		mode := u.mode
		for j := range uses {
			if uses[j].c == u.c {
				if j < i {
					first = false
				}
				mode |= uses[j].mode
			}
		}
		if !first {
			continue
		}
		if err := stageOne(e, u.c, mode); err != nil {
			return err
		}
	}
	return nil
}

func stageOne(e engine, c *core, mode Access) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.released {
		return fmt.Errorf("%w: array", ErrReleased)
	}
	return e.stage(c, mode)
}

// commit marks the Out arrays of an operation run on a context as
// written.
func commit(e engine, uses []use) {
	for _, u := range uses {
		if u.mode&Out == 0 {
			continue
		}
		u.c.mu.Lock()
		if !u.c.released {
			e.written(u.c)
		}
		u.c.mu.Unlock()
	}
}

// prepare checks, stages and commits arrays with no launch between: for
// Array.Arg, whose caller launches, and operations that launch nothing.
func prepare(ctx Context, uses []use) error {
	if err := checkUses(ctx, uses); err != nil {
		return err
	}
	e := ctx.eng()
	if err := stage(e, uses); err != nil {
		return err
	}
	commit(e, uses)
	return nil
}
