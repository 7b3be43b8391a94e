package cl

import (
	"unsafe"

	"github.com/gour-dev/gour/internal/dl"
)

// CreateContext calls clCreateContext without a notification callback.
// properties holds cl_context_properties key/value pairs (for example
// ContextPlatform, uintptr(platform)); the terminating 0 is added when
// missing, and an empty list passes NULL.
func (l *Lib) CreateContext(properties []uintptr, devices []Device) (Context, Status) {
	if len(properties) > 0 && properties[len(properties)-1] != 0 {
		properties = append(properties[:len(properties):len(properties)], 0)
	}
	f := dl.NewFrame()
	f.Args = dl.Args{
		f.Ptr(0, dl.First(properties)),
		uintptr(len(devices)),
		f.Ptr(1, dl.First(devices)),
		0, // pfn_notify
		0, // user_data
		f.Out(0),
	}
	r, out, _ := f.Call(l.createContext)
	return Context(r), errcode(out)
}

// RetainContext calls clRetainContext.
func (l *Lib) RetainContext(c Context) Status { return call1(l.retainContext, uintptr(c)) }

// ReleaseContext calls clReleaseContext.
func (l *Lib) ReleaseContext(c Context) Status { return call1(l.releaseContext, uintptr(c)) }

// GetContextInfo calls clGetContextInfo.
func (l *Lib) GetContextInfo(c Context, param uint32, size uintptr, value unsafe.Pointer, sizeRet *uintptr) Status {
	return getInfo(l.getContextInfo, uintptr(c), param, size, value, sizeRet)
}
