package ze

import (
	"unsafe"

	"github.com/gour-dev/gour/internal/dl"
)

// This file holds regular command lists, command queues and fences
// (ze_api.h "cmdqueue", "cmdlist" and "fence" regions): what command
// buffers are made of.

// CommandListCreate calls zeCommandListCreate: a regular command list,
// which records commands until CommandListClose and runs them each time a
// command queue executes it.
func (l *Lib) CommandListCreate(c Context, dev Device, desc *CommandListDesc) (CommandList, Result) {
	desc.Stype = StructureTypeCommandListDesc
	f := dl.NewFrame()
	f.Args = dl.Args{uintptr(c), uintptr(dev), f.Ptr(0, unsafe.Pointer(desc)), f.Out(0)}
	r, out := call(f, l.commandListCreate)
	return CommandList(out[0]), r
}

// CommandListClose calls zeCommandListClose: the list is then ready to
// execute and takes no more commands.
func (l *Lib) CommandListClose(cl CommandList) Result { return call1(l.commandListClose, uintptr(cl)) }

// CommandListReset calls zeCommandListReset: the list is emptied and open
// again. The device must no longer be executing it.
func (l *Lib) CommandListReset(cl CommandList) Result { return call1(l.commandListReset, uintptr(cl)) }

// CommandQueueCreate calls zeCommandQueueCreate.
func (l *Lib) CommandQueueCreate(c Context, dev Device, desc *CommandQueueDesc) (CommandQueue, Result) {
	desc.Stype = StructureTypeCommandQueueDesc
	f := dl.NewFrame()
	f.Args = dl.Args{uintptr(c), uintptr(dev), f.Ptr(0, unsafe.Pointer(desc)), f.Out(0)}
	r, out := call(f, l.commandQueueCreate)
	return CommandQueue(out[0]), r
}

// CommandQueueDestroy calls zeCommandQueueDestroy.
func (l *Lib) CommandQueueDestroy(q CommandQueue) Result {
	return call1(l.commandQueueDestroy, uintptr(q))
}

// CommandQueueExecuteCommandLists calls zeCommandQueueExecuteCommandLists:
// the closed lists are submitted in order; fence, if not zero, is
// signalled once all of them have completed.
func (l *Lib) CommandQueueExecuteCommandLists(q CommandQueue, lists []CommandList, fence Fence) Result {
	f := dl.NewFrame()
	f.Args = dl.Args{uintptr(q), uintptr(uint32(len(lists))), f.Ptr(0, dl.First(lists)), uintptr(fence)}
	r, _ := call(f, l.commandQueueExecuteCommandLists)
	return r
}

// CommandQueueSynchronize calls zeCommandQueueSynchronize: it waits up to
// timeout ns for everything executed on q; NotReady when the time ran out.
func (l *Lib) CommandQueueSynchronize(q CommandQueue, timeout uint64) Result {
	f := dl.NewFrame()
	f.Args = dl.Args{uintptr(q), uintptr(timeout)}
	r, _ := call(f, l.commandQueueSynchronize)
	return r
}

// FenceCreate calls zeFenceCreate on a command queue, unsignalled.
func (l *Lib) FenceCreate(q CommandQueue) (Fence, Result) {
	desc := &FenceDesc{Stype: StructureTypeFenceDesc}
	f := dl.NewFrame()
	f.Args = dl.Args{uintptr(q), f.Ptr(0, unsafe.Pointer(desc)), f.Out(0)}
	r, out := call(f, l.fenceCreate)
	return Fence(out[0]), r
}

// FenceDestroy calls zeFenceDestroy.
func (l *Lib) FenceDestroy(fe Fence) Result { return call1(l.fenceDestroy, uintptr(fe)) }

// FenceHostSynchronize calls zeFenceHostSynchronize: it waits up to
// timeout ns for the fence; NotReady when the time ran out.
func (l *Lib) FenceHostSynchronize(fe Fence, timeout uint64) Result {
	f := dl.NewFrame()
	f.Args = dl.Args{uintptr(fe), uintptr(timeout)}
	r, _ := call(f, l.fenceHostSynchronize)
	return r
}

// FenceReset calls zeFenceReset: the fence is unsignalled again.
func (l *Lib) FenceReset(fe Fence) Result { return call1(l.fenceReset, uintptr(fe)) }
