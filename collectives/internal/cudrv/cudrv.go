package cudrv

import (
	"github.com/gour-dev/gour/internal/dl"
	"github.com/gour-dev/gour/internal/nvlib"
)

// Lib is the resolved table; read-only after Load.
type Lib struct {
	lib *dl.Library
	// CtxSetCurrent is cuCtxSetCurrent's address, for dl.CallAfter.
	CtxSetCurrent uintptr

	ctxGetDevice   uintptr
	primaryRetain  uintptr
	primaryRelease uintptr
}

// Load takes the CUDA driver (nvlib.Driver, opened once per process) and
// resolves the entry points. It does not call cuInit: the CUDA adapter
// has, for any queue of gour's.
func Load() (*Lib, error) {
	lib, err := nvlib.Driver()
	if err != nil {
		return nil, err
	}
	l := &Lib{lib: lib}
	err = lib.Resolve([]dl.Symbol{
		{Name: "cuCtxSetCurrent", Addr: &l.CtxSetCurrent},
		{Name: "cuCtxGetDevice", Addr: &l.ctxGetDevice},
		{Name: "cuDevicePrimaryCtxRetain", Addr: &l.primaryRetain},
		{Name: "cuDevicePrimaryCtxRelease_v2", Alternates: []string{"cuDevicePrimaryCtxRelease"}, Addr: &l.primaryRelease},
	})
	if err != nil {
		return nil, err
	}
	return l, nil
}

// CtxDevice makes ctx current on this thread and returns its device
// (cuCtxGetDevice), in one C call.
func (l *Lib) CtxDevice(ctx uintptr) (dev int32, r int) {
	f := dl.NewFrame()
	f.Args[0] = f.Out(0)
	res, ok := dl.CallAfter(l.CtxSetCurrent, ctx, l.ctxGetDevice, &f.Args)
	dev = *(*int32)(f.Slot(0))
	f.Release()
	if !ok {
		return 0, int(int32(res))
	}
	return dev, int(int32(res))
}

// PrimaryCtx is cuDevicePrimaryCtxRetain; release it with
// PrimaryCtxRelease.
func (l *Lib) PrimaryCtx(dev int32) (ctx uintptr, r int) {
	f := dl.NewFrame()
	f.Args[0], f.Args[1] = f.Out(0), uintptr(dev)
	res, out, _ := f.Call(l.primaryRetain)
	return uintptr(out[0]), int(int32(res))
}

// PrimaryCtxRelease is cuDevicePrimaryCtxRelease.
func (l *Lib) PrimaryCtxRelease(dev int32) int {
	return int(int32(dl.Call(l.primaryRelease, &dl.Args{uintptr(dev)})))
}
