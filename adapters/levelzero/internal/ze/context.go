package ze

import (
	"unsafe"

	"github.com/gour-dev/gour/internal/dl"
)

// ContextCreateEx calls zeContextCreateEx: a context of the driver holding
// exactly devices (all of the driver's devices when devices is empty).
func (l *Lib) ContextCreateEx(d Driver, devices []Device) (Context, Result) {
	desc := &ContextDesc{Stype: StructureTypeContextDesc}
	f := dl.NewFrame()
	f.Args = dl.Args{uintptr(d), f.Ptr(0, unsafe.Pointer(desc)), uintptr(uint32(len(devices))), f.Ptr(1, dl.First(devices)), f.Out(0)}
	r, out := call(f, l.contextCreateEx)
	return Context(out[0]), r
}

// ContextDestroy calls zeContextDestroy.
func (l *Lib) ContextDestroy(c Context) Result { return call1(l.contextDestroy, uintptr(c)) }
