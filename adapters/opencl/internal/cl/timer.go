package cl

import "github.com/gour-dev/gour/internal/dl"

// GetDeviceAndHostTimer calls clGetDeviceAndHostTimer (OpenCL 2.1): the
// device's timer and the host's, in nanoseconds, read together. The entry
// point is looked up on each call, as it is seldom called; a loader
// without it gives InvalidOperation.
func (l *Lib) GetDeviceAndHostTimer(d Device) (device, host uint64, st Status) {
	fn, err := l.lib.Lookup("clGetDeviceAndHostTimer")
	if err != nil || fn == 0 {
		return 0, 0, InvalidOperation
	}
	f := dl.NewFrame()
	f.Args = dl.Args{uintptr(d), f.Out(0), f.Out(1)}
	r, out, _ := f.Call(fn)
	return out[0], out[1], status(r)
}
