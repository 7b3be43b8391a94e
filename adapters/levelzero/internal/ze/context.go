package ze

import (
	"unsafe"

	"github.com/gour-dev/gour/internal/dl"
)

// ContextCreateEx calls zeContextCreateEx: a context of the driver holding
// exactly devices (all of the driver's devices when devices is empty).
func (l *Lib) ContextCreateEx(d Driver, devices []Device) (Context, Result) {
	desc := &ContextDesc{Stype: StructureTypeContextDesc}
	f := newFrame()
	f.args = dl.Args{uintptr(d), f.ptr(0, unsafe.Pointer(desc)), uintptr(uint32(len(devices))), f.ptr(1, first(devices)), f.outPtr(0)}
	r, out := f.call(l.contextCreateEx)
	return Context(out[0]), r
}

// ContextDestroy calls zeContextDestroy.
func (l *Lib) ContextDestroy(c Context) Result { return call1(l.contextDestroy, uintptr(c)) }
