package cl

import (
	"unsafe"

	"github.com/gour-dev/gour/internal/dl"
)

// GetPlatformIDs calls clGetPlatformIDs: it fills platforms (may be empty)
// and stores the number available in numPlatforms (may be nil).
func (l *Lib) GetPlatformIDs(platforms []Platform, numPlatforms *uint32) Status {
	f := dl.NewFrame()
	f.Args = dl.Args{
		uintptr(len(platforms)),
		f.Ptr(0, dl.First(platforms)),
		f.Ptr(1, unsafe.Pointer(numPlatforms)),
	}
	r, _, _ := f.Call(l.getPlatformIDs)
	return status(r)
}

// GetPlatformInfo calls clGetPlatformInfo.
func (l *Lib) GetPlatformInfo(p Platform, param uint32, size uintptr, value unsafe.Pointer, sizeRet *uintptr) Status {
	return getInfo(l.getPlatformInfo, uintptr(p), param, size, value, sizeRet)
}

// PlatformIDs returns every platform, counting them first.
func (l *Lib) PlatformIDs() ([]Platform, Status) {
	var n uint32
	if s := l.GetPlatformIDs(nil, &n); s != Success {
		return nil, s
	}
	if n == 0 {
		return nil, Success
	}
	ps := make([]Platform, n)
	if s := l.GetPlatformIDs(ps, &n); s != Success {
		return nil, s
	}
	return ps[:min(int(n), len(ps))], Success
}
