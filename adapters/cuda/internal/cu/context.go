package cu

import "github.com/gour-dev/gour/internal/dl"

// CtxSetCurrent calls cuCtxSetCurrent: c becomes the calling OS thread's
// current context (0 unbinds). Goroutines move between threads: callers
// lock the OS thread, or set the context before each group of calls.
func (l *Lib) CtxSetCurrent(c Context) Result { return call1(l.ctxSetCurrent, uintptr(c)) }

// CtxGetCurrent calls cuCtxGetCurrent; 0 means none.
func (l *Lib) CtxGetCurrent() (Context, Result) {
	f := dl.NewFrame()
	f.Args[0] = f.Out(0)
	r, out, _ := call(f, l.ctxGetCurrent)
	return Context(out[0]), r
}

// CtxPushCurrent calls cuCtxPushCurrent_v2.
func (l *Lib) CtxPushCurrent(c Context) Result { return call1(l.ctxPushCurrent, uintptr(c)) }

// CtxPopCurrent calls cuCtxPopCurrent_v2 and returns the context popped.
func (l *Lib) CtxPopCurrent() (Context, Result) {
	f := dl.NewFrame()
	f.Args[0] = f.Out(0)
	r, out, _ := call(f, l.ctxPopCurrent)
	return Context(out[0]), r
}

// CtxSynchronize calls cuCtxSynchronize: it blocks until the current
// context has finished all its work.
func (l *Lib) CtxSynchronize() Result { return call0(l.ctxSynchronize) }
