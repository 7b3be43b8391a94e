package ze

import (
	"unsafe"

	"github.com/gour-dev/gour/internal/dl"
)

// EventPoolCreate calls zeEventPoolCreate for count events, visible to the
// given devices of the context (all of them when devices is empty).
func (l *Lib) EventPoolCreate(c Context, flags, count uint32, devices []Device) (EventPool, Result) {
	desc := &EventPoolDesc{Stype: StructureTypeEventPoolDesc, Flags: flags, Count: count}
	f := dl.NewFrame()
	f.Args = dl.Args{uintptr(c), f.Ptr(0, unsafe.Pointer(desc)), uintptr(uint32(len(devices))), f.Ptr(1, dl.First(devices)), f.Out(0)}
	r, out := call(f, l.eventPoolCreate)
	return EventPool(out[0]), r
}

// EventPoolDestroy calls zeEventPoolDestroy.
func (l *Lib) EventPoolDestroy(p EventPool) Result { return call1(l.eventPoolDestroy, uintptr(p)) }

// EventCreate calls zeEventCreate for slot index of the pool, with the
// cache scopes a signal flushes to and a wait invalidates.
func (l *Lib) EventCreate(p EventPool, index, signal, wait uint32) (Event, Result) {
	desc := &EventDesc{Stype: StructureTypeEventDesc, Index: index, Signal: signal, Wait: wait}
	f := dl.NewFrame()
	f.Args = dl.Args{uintptr(p), f.Ptr(0, unsafe.Pointer(desc)), f.Out(0)}
	r, out := call(f, l.eventCreate)
	return Event(out[0]), r
}

// EventDestroy calls zeEventDestroy.
func (l *Lib) EventDestroy(e Event) Result { return call1(l.eventDestroy, uintptr(e)) }

// EventHostSynchronize calls zeEventHostSynchronize: it waits up to
// timeout ns (TimeoutInfinite: until signalled); NotReady when the time
// ran out.
func (l *Lib) EventHostSynchronize(e Event, timeout uint64) Result {
	f := dl.NewFrame()
	f.Args = dl.Args{uintptr(e), uintptr(timeout)}
	r, _ := call(f, l.eventHostSynchronize)
	return r
}

// EventHostReset calls zeEventHostReset.
func (l *Lib) EventHostReset(e Event) Result { return call1(l.eventHostReset, uintptr(e)) }

// EventQueryStatus calls zeEventQueryStatus: Success when signalled,
// NotReady otherwise.
func (l *Lib) EventQueryStatus(e Event) Result { return call1(l.eventQueryStatus, uintptr(e)) }

// EventQueryKernelTimestamp calls zeEventQueryKernelTimestamp, for an
// event of a pool created with EventPoolFlagKernelTimestamp: the start and
// end of its command in device ticks. NotReady before it is signalled.
func (l *Lib) EventQueryKernelTimestamp(e Event) (KernelTimestampResult, Result) {
	ts := &KernelTimestampResult{}
	f := dl.NewFrame()
	f.Args = dl.Args{uintptr(e), f.Ptr(0, unsafe.Pointer(ts))}
	r, _ := call(f, l.eventQueryKernelTimestamp)
	return *ts, r
}
