package cu

import "github.com/gour-dev/gour/internal/dl"

// StreamCreate calls cuStreamCreate with Stream* flags.
func (l *Lib) StreamCreate(flags uint32) (Stream, Result) {
	f := dl.NewFrame()
	f.Args = dl.Args{f.Out(0), uintptr(flags)}
	r, out, _ := call(f, l.streamCreate)
	return Stream(out[0]), r
}

// StreamDestroy calls cuStreamDestroy_v2.
func (l *Lib) StreamDestroy(s Stream) Result { return call1(l.streamDestroy, uintptr(s)) }

// StreamSynchronize calls cuStreamSynchronize: it blocks until s has
// finished all its work.
func (l *Lib) StreamSynchronize(s Stream) Result { return call1(l.streamSynchronize, uintptr(s)) }

// StreamQuery calls cuStreamQuery: Success when s has finished all its
// work, NotReady while some is pending.
func (l *Lib) StreamQuery(s Stream) Result { return call1(l.streamQuery, uintptr(s)) }

// StreamWaitEvent calls cuStreamWaitEvent: work submitted to s afterwards
// waits for e's last record. flags is EventWaitDefault or EventWaitExternal.
func (l *Lib) StreamWaitEvent(s Stream, e Event, flags uint32) Result {
	f := dl.NewFrame()
	f.Args = dl.Args{uintptr(s), uintptr(e), uintptr(flags)}
	r, _, _ := call(f, l.streamWaitEvent)
	return r
}

// EventCreate calls cuEventCreate with Event* flags.
func (l *Lib) EventCreate(flags uint32) (Event, Result) {
	f := dl.NewFrame()
	f.Args = dl.Args{f.Out(0), uintptr(flags)}
	r, out, _ := call(f, l.eventCreate)
	return Event(out[0]), r
}

// EventDestroy calls cuEventDestroy_v2.
func (l *Lib) EventDestroy(e Event) Result { return call1(l.eventDestroy, uintptr(e)) }

// EventRecord calls cuEventRecord: e completes when the work submitted to s
// so far has.
func (l *Lib) EventRecord(e Event, s Stream) Result {
	f := dl.NewFrame()
	f.Args = dl.Args{uintptr(e), uintptr(s)}
	r, _, _ := call(f, l.eventRecord)
	return r
}

// EventSynchronize calls cuEventSynchronize: it blocks until e completes.
func (l *Lib) EventSynchronize(e Event) Result { return call1(l.eventSynchronize, uintptr(e)) }

// EventQuery calls cuEventQuery: Success once e has completed, NotReady
// before.
func (l *Lib) EventQuery(e Event) Result { return call1(l.eventQuery, uintptr(e)) }

// EventElapsedTime calls cuEventElapsedTime_v2 (CUDA 12.8), or
// cuEventElapsedTime on older drivers: the milliseconds between two
// completed events created without EventDisableTiming.
func (l *Lib) EventElapsedTime(start, end Event) (float32, Result) {
	f := dl.NewFrame()
	f.Args = dl.Args{f.Out(0), uintptr(start), uintptr(end)}
	r, out, _ := call(f, l.eventElapsedTime)
	return float32At(&out[0]), r
}
