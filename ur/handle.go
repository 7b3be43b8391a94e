package ur

import (
	"sync/atomic"

	"github.com/gour-dev/gour/trace"
)

// object is the part every released-able handle shares: its lifetime guard
// and the adapter it came from.
type object struct {
	life    lifetime
	adapter *Adapter
	id      atomic.Uint64 // the id in traces and leak reports, given on first use (layers.go)
}

// nilHandle is the error for a nil handle argument.
func nilHandle(kind, op string) error {
	return newError(ErrInvalidNullHandle, op, "", "%s is nil", kind)
}

// enter checks that the handle is still live for op; on nil error the
// caller must call o.life.leave when done. A dead handle gives invalidCode,
// the code OpenCL and the Unified Runtime use for a bad handle of its kind.
func (o *object) enter(kind string, invalidCode Result, op string) error {
	if !o.life.enter() {
		return o.releasedError(kind, invalidCode, op)
	}
	return nil
}

// releasedError is enter's error, out of line for the same reason as
// lifetime.undoEnter.
//
//go:noinline
func (o *object) releasedError(kind string, invalidCode Result, op string) error {
	return newError(invalidCode, op, o.adapter.name, "%s was released", kind)
}

// release is the body of every Release method.
func (o *object) release(kind string, invalidCode Result) (err error) {
	op := kind + ".Release"
	if r := trace.Active(); r != nil {
		defer traceRelease(r, op, o, r.Now(), &err)
	}
	ok, err := o.life.release()
	if !ok {
		return newError(invalidCode, op, o.adapter.name, "%s was already released", kind)
	}
	o.releasedNow()
	return wrapError(err, op, o.adapter.name)
}

// sameAdapter checks that a handle argument comes from the adapter of the
// handle it is used with.
func (o *object) sameAdapter(other *object, kind string, invalidCode Result, op string) error {
	if other.adapter != o.adapter && other.adapter.drv != o.adapter.drv {
		return newError(invalidCode, op, o.adapter.name, "%s belongs to adapter %s", kind, other.adapter.name)
	}
	return nil
}
