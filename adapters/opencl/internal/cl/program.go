package cl

import (
	"unsafe"

	"github.com/gour-dev/gour/internal/dl"
)

// CreateProgramWithSource calls clCreateProgramWithSource with one source
// string.
func (l *Lib) CreateProgramWithSource(c Context, source string) (Program, Status) {
	src := dl.CString(source)
	strs := &[1]*byte{&src[0]}
	lengths := &[1]uintptr{uintptr(len(source))}
	f := dl.NewFrame()
	f.Args = dl.Args{
		uintptr(c),
		1,
		f.Ptr(0, unsafe.Pointer(strs)),
		f.Ptr(1, unsafe.Pointer(lengths)),
		f.Out(0),
	}
	r, out, _ := f.Call(l.createProgramWithSource)
	return Program(r), errcode(out)
}

// CreateProgramWithBinary calls clCreateProgramWithBinary with one binary
// per device, in the same order. It also returns the per-device binary
// status. Lists of different lengths give InvalidValue without a call.
func (l *Lib) CreateProgramWithBinary(c Context, devices []Device, binaries [][]byte) (Program, []Status, Status) {
	if len(devices) != len(binaries) {
		return 0, nil, InvalidValue
	}
	n := len(binaries)
	ptrs := make([]*byte, n)
	lengths := make([]uintptr, n)
	for i, b := range binaries {
		if len(b) > 0 {
			ptrs[i] = &b[0]
			lengths[i] = uintptr(len(b))
		}
	}
	binStatus := make([]Status, n) // Status has cl_int's layout
	f := dl.NewFrame()
	f.Args = dl.Args{
		uintptr(c),
		uintptr(n),
		f.Ptr(0, dl.First(devices)),
		f.Ptr(1, dl.First(lengths)),
		f.Ptr(2, dl.First(ptrs)),
		f.Ptr(3, dl.First(binStatus)),
		f.Out(0),
	}
	r, out, _ := f.Call(l.createProgramWithBinary)
	return Program(r), binStatus, errcode(out)
}

// CreateProgramWithIL calls clCreateProgramWithIL (2.1), typically with
// SPIR-V. It returns InvalidOperation when the loader lacks the entry point
// (see HasIL).
func (l *Lib) CreateProgramWithIL(c Context, il []byte) (Program, Status) {
	if l.createProgramWithIL == 0 {
		return 0, InvalidOperation
	}
	f := dl.NewFrame()
	f.Args = dl.Args{uintptr(c), f.Ptr(0, dl.First(il)), uintptr(len(il)), f.Out(0)}
	r, out, _ := f.Call(l.createProgramWithIL)
	return Program(r), errcode(out)
}

// BuildProgram calls clBuildProgram synchronously (no callback). Empty
// devices means every device of the program's context.
func (l *Lib) BuildProgram(p Program, devices []Device, options string) Status {
	opts := dl.CString(options)
	f := dl.NewFrame()
	f.Args = dl.Args{
		uintptr(p),
		uintptr(len(devices)),
		f.Ptr(0, dl.First(devices)),
		f.Ptr(1, unsafe.Pointer(&opts[0])),
		0, // pfn_notify
		0, // user_data
	}
	r, _, _ := f.Call(l.buildProgram)
	return status(r)
}

// CompileProgram calls clCompileProgram (1.2) synchronously, without
// embedded headers.
func (l *Lib) CompileProgram(p Program, devices []Device, options string) Status {
	opts := dl.CString(options)
	f := dl.NewFrame()
	f.Args = dl.Args{
		uintptr(p),
		uintptr(len(devices)),
		f.Ptr(0, dl.First(devices)),
		f.Ptr(1, unsafe.Pointer(&opts[0])),
		0, // num_input_headers
		0, // input_headers
		0, // header_include_names
		0, // pfn_notify
		0, // user_data
	}
	r, _, _ := f.Call(l.compileProgram)
	return status(r)
}

// LinkProgram calls clLinkProgram (1.2) synchronously and returns the new
// program. On LinkProgramFailure the returned program may still be valid
// and holds the link log.
func (l *Lib) LinkProgram(c Context, devices []Device, options string, inputs []Program) (Program, Status) {
	opts := dl.CString(options)
	f := dl.NewFrame()
	f.Args = dl.Args{
		uintptr(c),
		uintptr(len(devices)),
		f.Ptr(0, dl.First(devices)),
		f.Ptr(1, unsafe.Pointer(&opts[0])),
		uintptr(len(inputs)),
		f.Ptr(2, dl.First(inputs)),
		0, // pfn_notify
		0, // user_data
		f.Out(0),
	}
	r, out, _ := f.Call(l.linkProgram)
	return Program(r), errcode(out)
}

// RetainProgram calls clRetainProgram.
func (l *Lib) RetainProgram(p Program) Status { return call1(l.retainProgram, uintptr(p)) }

// ReleaseProgram calls clReleaseProgram.
func (l *Lib) ReleaseProgram(p Program) Status { return call1(l.releaseProgram, uintptr(p)) }

// GetProgramInfo calls clGetProgramInfo.
func (l *Lib) GetProgramInfo(p Program, param uint32, size uintptr, value unsafe.Pointer, sizeRet *uintptr) Status {
	return getInfo(l.getProgramInfo, uintptr(p), param, size, value, sizeRet)
}

// GetProgramBuildInfo calls clGetProgramBuildInfo.
func (l *Lib) GetProgramBuildInfo(p Program, d Device, param uint32, size uintptr, value unsafe.Pointer, sizeRet *uintptr) Status {
	return getInfo2(l.getProgramBuildInfo, uintptr(p), uintptr(d), param, size, value, sizeRet)
}

// SetProgramSpecializationConstant calls clSetProgramSpecializationConstant
// (2.2) for an IL program before it is built. It returns InvalidOperation
// when the loader lacks the entry point (see HasSpecializationConstants).
func (l *Lib) SetProgramSpecializationConstant(p Program, specID uint32, size uintptr, value unsafe.Pointer) Status {
	if l.setProgramSpecializationConstant == 0 {
		return InvalidOperation
	}
	f := dl.NewFrame()
	f.Args = dl.Args{uintptr(p), uintptr(specID), size, f.Ptr(0, value)}
	r, _, _ := f.Call(l.setProgramSpecializationConstant)
	return status(r)
}
