package ze

import (
	"unsafe"

	"github.com/gour-dev/gour/internal/dl"
)

// CommandListCreateImmediate calls zeCommandListCreateImmediate: a command
// list whose commands are submitted as they are appended, on the implicit
// command queue desc describes.
func (l *Lib) CommandListCreateImmediate(c Context, dev Device, desc *CommandQueueDesc) (CommandList, Result) {
	desc.Stype = StructureTypeCommandQueueDesc
	f := dl.NewFrame()
	f.Args = dl.Args{uintptr(c), uintptr(dev), f.Ptr(0, unsafe.Pointer(desc)), f.Out(0)}
	r, out := call(f, l.commandListCreateImmediate)
	return CommandList(out[0]), r
}

// CommandListDestroy calls zeCommandListDestroy.
func (l *Lib) CommandListDestroy(cl CommandList) Result {
	return call1(l.commandListDestroy, uintptr(cl))
}

// CommandListHostSynchronize calls zeCommandListHostSynchronize (spec
// 1.6): it waits up to timeout ns for every command of an immediate list;
// NotReady when the time ran out. NotSupported when missing (see
// HasCommandListHostSynchronize).
func (l *Lib) CommandListHostSynchronize(cl CommandList, timeout uint64) Result {
	f := dl.NewFrame()
	f.Args = dl.Args{uintptr(cl), uintptr(timeout)}
	r, _ := call(f, l.commandListHostSynchronize)
	return r
}

// CommandListAppendBarrier calls zeCommandListAppendBarrier: commands
// appended later start after every earlier one (and after wait) completes;
// signal, if not zero, is signalled then.
func (l *Lib) CommandListAppendBarrier(cl CommandList, signal Event, wait []Event) Result {
	f := dl.NewFrame()
	f.Args = dl.Args{uintptr(cl), uintptr(signal), uintptr(uint32(len(wait))), f.Ptr(0, dl.First(wait))}
	r, _ := call(f, l.commandListAppendBarrier)
	return r
}

// CommandListAppendMemoryCopy calls zeCommandListAppendMemoryCopy between
// two device (or USM) addresses.
func (l *Lib) CommandListAppendMemoryCopy(cl CommandList, dst, src, size uintptr, signal Event, wait []Event) Result {
	f := dl.NewFrame()
	f.Args = dl.Args{uintptr(cl), dst, src, size, uintptr(signal), uintptr(uint32(len(wait))), f.Ptr(0, dl.First(wait))}
	r, _ := call(f, l.commandListAppendMemoryCopy)
	return r
}

// CommandListAppendCopyFromHost calls zeCommandListAppendMemoryCopy from
// host memory src to the device address dst. Level Zero reads src when
// the copy executes, not when it is appended: src must stay alive (and,
// being Go memory, referenced) until then.
func (l *Lib) CommandListAppendCopyFromHost(cl CommandList, dst uintptr, src unsafe.Pointer, size uintptr, signal Event, wait []Event) Result {
	f := dl.NewFrame()
	f.Args = dl.Args{uintptr(cl), dst, f.Ptr(0, src), size, uintptr(signal), uintptr(uint32(len(wait))), f.Ptr(1, dl.First(wait))}
	r, _ := call(f, l.commandListAppendMemoryCopy)
	return r
}

// CommandListAppendCopyToHost calls zeCommandListAppendMemoryCopy from the
// device address src to host memory dst, which is written when the copy
// executes and must stay referenced until then.
func (l *Lib) CommandListAppendCopyToHost(cl CommandList, dst unsafe.Pointer, src, size uintptr, signal Event, wait []Event) Result {
	f := dl.NewFrame()
	f.Args = dl.Args{uintptr(cl), f.Ptr(0, dst), src, size, uintptr(signal), uintptr(uint32(len(wait))), f.Ptr(1, dl.First(wait))}
	r, _ := call(f, l.commandListAppendMemoryCopy)
	return r
}

// CommandListAppendMemoryFill calls zeCommandListAppendMemoryFill: size
// bytes at ptr repeat pattern, whose length is a power of two no larger
// than the queue group's MaxMemoryFillPatternSize.
func (l *Lib) CommandListAppendMemoryFill(cl CommandList, ptr uintptr, pattern []byte, size uintptr, signal Event, wait []Event) Result {
	f := dl.NewFrame()
	f.Args = dl.Args{uintptr(cl), ptr, f.Ptr(0, dl.First(pattern)), uintptr(len(pattern)), size, uintptr(signal), uintptr(uint32(len(wait))), f.Ptr(1, dl.First(wait))}
	r, _ := call(f, l.commandListAppendMemoryFill)
	return r
}

// CommandListAppendMemoryCopyRegion calls
// zeCommandListAppendMemoryCopyRegion: a 2D or 3D region of dst and src
// (device, shared or host memory), with row and slice pitches in bytes.
// Host memory is read or written when the copy executes and must stay
// alive until then.
func (l *Lib) CommandListAppendMemoryCopyRegion(cl CommandList, dst uintptr, dstRegion *CopyRegion, dstPitch, dstSlicePitch uint32,
	src uintptr, srcRegion *CopyRegion, srcPitch, srcSlicePitch uint32, signal Event, wait []Event) Result {
	f := dl.NewFrame()
	f.Args = dl.Args{uintptr(cl), dst, f.Ptr(0, unsafe.Pointer(dstRegion)), uintptr(dstPitch), uintptr(dstSlicePitch),
		src, f.Ptr(1, unsafe.Pointer(srcRegion)), uintptr(srcPitch), uintptr(srcSlicePitch),
		uintptr(signal), uintptr(uint32(len(wait))), f.Ptr(2, dl.First(wait))}
	r, _ := call(f, l.commandListAppendCopyRegion)
	return r
}

// CommandListAppendMemoryPrefetch calls zeCommandListAppendMemoryPrefetch:
// a hint to move shared memory to the list's device. It takes no events.
func (l *Lib) CommandListAppendMemoryPrefetch(cl CommandList, ptr, size uintptr) Result {
	f := dl.NewFrame()
	f.Args = dl.Args{uintptr(cl), ptr, size}
	r, _ := call(f, l.commandListAppendPrefetch)
	return r
}

// CommandListAppendMemAdvise calls zeCommandListAppendMemAdvise: a hint
// about shared memory and dev. It takes no events.
func (l *Lib) CommandListAppendMemAdvise(cl CommandList, dev Device, ptr, size uintptr, advice MemoryAdvice) Result {
	f := dl.NewFrame()
	f.Args = dl.Args{uintptr(cl), uintptr(dev), ptr, size, uintptr(advice)}
	r, _ := call(f, l.commandListAppendMemAdvise)
	return r
}

// CommandListAppendLaunchKernel calls zeCommandListAppendLaunchKernel with
// the group count in a slot of the call frame (12 bytes, read during the
// call), so that a launch without a wait list allocates nothing.
func (l *Lib) CommandListAppendLaunchKernel(cl CommandList, k Kernel, groups GroupCount, signal Event, wait []Event) Result {
	f := dl.NewFrame()
	g := f.Slot(0)
	*(*GroupCount)(g) = groups
	f.Args = dl.Args{uintptr(cl), uintptr(k), uintptr(g), uintptr(signal), uintptr(uint32(len(wait))), f.Ptr(0, dl.First(wait))}
	r, _ := call(f, l.commandListAppendLaunchKernel)
	return r
}

// CommandListAppendSignalEvent calls zeCommandListAppendSignalEvent.
func (l *Lib) CommandListAppendSignalEvent(cl CommandList, e Event) Result {
	f := dl.NewFrame()
	f.Args = dl.Args{uintptr(cl), uintptr(e)}
	r, _ := call(f, l.commandListAppendSignalEvent)
	return r
}

// CommandListAppendWaitOnEvents calls zeCommandListAppendWaitOnEvents.
func (l *Lib) CommandListAppendWaitOnEvents(cl CommandList, events []Event) Result {
	f := dl.NewFrame()
	f.Args = dl.Args{uintptr(cl), uintptr(uint32(len(events))), f.Ptr(0, dl.First(events))}
	r, _ := call(f, l.commandListAppendWaitOnEvents)
	return r
}

// CommandListAppendLaunchCooperativeKernel calls
// zeCommandListAppendLaunchCooperativeKernel: every work-group runs at
// once, so that they may synchronize with each other. The list must be of
// a queue group with cooperative kernels.
func (l *Lib) CommandListAppendLaunchCooperativeKernel(cl CommandList, k Kernel, groups GroupCount, signal Event, wait []Event) Result {
	f := dl.NewFrame()
	g := f.Slot(0)
	*(*GroupCount)(g) = groups
	f.Args = dl.Args{uintptr(cl), uintptr(k), uintptr(g), uintptr(signal), uintptr(uint32(len(wait))), f.Ptr(0, dl.First(wait))}
	r, _ := call(f, l.commandListAppendLaunchCoop)
	return r
}
