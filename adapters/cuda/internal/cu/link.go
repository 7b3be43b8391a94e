package cu

import (
	"runtime"
	"unsafe"

	"github.com/gour-dev/gour/internal/dl"
)

// LinkCreate calls cuLinkCreate_v2 with JIT options and their values (void*
// slots, see JitOption). The driver keeps the option values — log buffers
// included — until LinkDestroy, so they must stay alive and pinned until
// then. Lists of different lengths give InvalidValue without a call.
func (l *Lib) LinkCreate(options []JitOption, values []uintptr) (LinkState, Result) {
	if len(options) != len(values) {
		return 0, InvalidValue
	}
	f := dl.NewFrame()
	f.Args = dl.Args{
		uintptr(len(options)),
		f.Ptr(0, dl.First(options)),
		f.Ptr(1, dl.First(values)),
		f.Out(0),
	}
	r, out, _ := call(f, l.linkCreate)
	return LinkState(out[0]), r
}

// LinkAddData calls cuLinkAddData_v2 with one input. PTX is passed
// NUL-terminated (a copy gets the NUL when data lacks it). name, used in log
// messages, may be empty. options and values apply to this input only.
func (l *Lib) LinkAddData(s LinkState, typ JitInputType, data []byte, name string, options []JitOption, values []uintptr) Result {
	if typ == JitInputPTX {
		data = cImage(data)
	}
	if len(data) == 0 || len(options) != len(values) {
		return InvalidValue
	}
	var cname []byte
	if name != "" {
		cname = dl.CString(name)
	}
	f := dl.NewFrame()
	f.Args = dl.Args{
		uintptr(s),
		uintptr(typ),
		f.Ptr(0, unsafe.Pointer(&data[0])),
		uintptr(len(data)),
		f.Ptr(1, dl.First(cname)),
		uintptr(len(options)),
		f.Ptr(2, dl.First(options)),
		f.Ptr(3, dl.First(values)),
	}
	r, _, _ := call(f, l.linkAddData)
	return r
}

// LinkComplete calls cuLinkComplete: the linked cubin lies at image, size
// bytes, in memory the driver owns and frees in LinkDestroy. Copy it before.
func (l *Lib) LinkComplete(s LinkState) (image unsafe.Pointer, size uintptr, r Result) {
	f := dl.NewFrame()
	f.Args = dl.Args{uintptr(s), f.OutPtr(), f.Out(0)}
	r, out, p := call(f, l.linkComplete)
	return p, uintptr(out[0]), r
}

// LinkDestroy calls cuLinkDestroy.
func (l *Lib) LinkDestroy(s LinkState) Result { return call1(l.linkDestroy, uintptr(s)) }

// LinkInput is one input of Link: PTX, a cubin, a fatbin or an object.
type LinkInput struct {
	Type JitInputType
	Data []byte
	Name string // used in log messages; may be empty
}

// Link links its inputs into a cubin for the current context's device:
// cuLinkCreate, one cuLinkAddData per input, cuLinkComplete, then a copy of
// the cubin into Go memory before cuLinkDestroy. It always passes a
// LogBufferSize-byte error log and returns what the linker wrote there,
// trimmed. opts are added after the log options.
func (l *Lib) Link(inputs []LinkInput, opts ...JitOptionValue) (cubin []byte, errorLog string, r Result) {
	errs := make([]byte, LogBufferSize)
	options := make([]JitOption, 0, 2+len(opts))
	values := make([]uintptr, 0, 2+len(opts))
	options = append(options, JitErrorLogBuffer, JitErrorLogBufferSizeBytes)
	values = append(values, uintptr(unsafe.Pointer(&errs[0])), LogBufferSize)
	for _, o := range opts {
		options = append(options, o.Option)
		values = append(values, o.Value)
	}
	// The driver keeps the option arrays and the log buffer until
	// cuLinkDestroy: pin them across every call of the link.
	var pin runtime.Pinner
	pin.Pin(&errs[0])
	pin.Pin(&options[0])
	pin.Pin(&values[0])
	defer pin.Unpin()

	s, r := l.LinkCreate(options, values)
	if r != Success {
		return nil, trimLog(errs), r
	}
	defer l.LinkDestroy(s)
	for _, in := range inputs {
		if r := l.LinkAddData(s, in.Type, in.Data, in.Name, nil, nil); r != Success {
			return nil, trimLog(errs), r
		}
	}
	image, size, r := l.LinkComplete(s)
	if r != Success {
		return nil, trimLog(errs), r
	}
	cubin = make([]byte, size)
	if size > 0 {
		copy(cubin, unsafe.Slice((*byte)(image), size))
	}
	return cubin, trimLog(errs), Success
}
