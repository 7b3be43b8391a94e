package cl

import (
	"unsafe"

	"github.com/gour-dev/gour/internal/dl"
)

// cl_khr_command_buffer constants.
const (
	DeviceCommandBufferCapabilitiesKHR        = 0x12A9 // CL_DEVICE_COMMAND_BUFFER_CAPABILITIES_KHR
	CommandBufferCapabilitySimultaneousUseKHR = 1 << 2 // CL_COMMAND_BUFFER_CAPABILITY_SIMULTANEOUS_USE_KHR
	CommandBufferFlagsKHR                     = 0x1293 // CL_COMMAND_BUFFER_FLAGS_KHR
	CommandBufferSimultaneousUseKHR           = 1 << 0 // CL_COMMAND_BUFFER_SIMULTANEOUS_USE_KHR
)

// CommandBuffer is a cl_command_buffer_khr.
type CommandBuffer uintptr

// SyncPoint is a cl_sync_point_khr.
type SyncPoint uint32

// CommandBufferKHR holds the entry points of cl_khr_command_buffer on one
// platform, from clGetExtensionFunctionAddressForPlatform. The extension
// is provisional and its signatures changed: from version 0.9.5 every
// command-recording function takes a properties list after the queue
// (0.9.0 has it on clCommandNDRangeKernelKHR only), and the SVM commands
// came in 0.9.4. Read-only once loaded.
type CommandBufferKHR struct {
	create, finalize, release, enqueue uintptr
	ndrange, copyBuffer, fillBuffer    uintptr
	barrier                            uintptr
	svmMemcpy, svmMemFill              uintptr // optional: 0.9.4
	props                              bool    // every command takes properties (0.9.5)
}

// LoadCommandBufferKHR resolves cl_khr_command_buffer of the given
// version (a cl_version, major<<22 | minor<<12 | patch) on p; nil when a
// function gour needs is missing.
func (l *Lib) LoadCommandBufferKHR(p Platform, version uint32) *CommandBufferKHR {
	c := &CommandBufferKHR{props: version >= Version(0, 9, 5)}
	for _, e := range []struct {
		name string
		addr *uintptr
	}{
		{"clCreateCommandBufferKHR", &c.create},
		{"clFinalizeCommandBufferKHR", &c.finalize},
		{"clReleaseCommandBufferKHR", &c.release},
		{"clEnqueueCommandBufferKHR", &c.enqueue},
		{"clCommandNDRangeKernelKHR", &c.ndrange},
		{"clCommandCopyBufferKHR", &c.copyBuffer},
		{"clCommandFillBufferKHR", &c.fillBuffer},
		{"clCommandBarrierWithWaitListKHR", &c.barrier},
	} {
		if *e.addr = l.ExtensionFunction(p, e.name); *e.addr == 0 {
			return nil
		}
	}
	if version >= Version(0, 9, 4) {
		c.svmMemcpy = l.ExtensionFunction(p, "clCommandSVMMemcpyKHR")
		c.svmMemFill = l.ExtensionFunction(p, "clCommandSVMMemFillKHR")
	}
	return c
}

// Version makes a cl_version.
func Version(major, minor, patch uint32) uint32 { return major<<22 | minor<<12 | patch }

// HasSVM reports whether SVM copies and fills can be recorded.
func (c *CommandBufferKHR) HasSVM() bool { return c.svmMemcpy != 0 && c.svmMemFill != 0 }

// Create calls clCreateCommandBufferKHR for one queue, with the flags
// (CommandBuffer*KHR) as CL_COMMAND_BUFFER_FLAGS_KHR where not zero.
func (c *CommandBufferKHR) Create(q Queue, flags uint64) (CommandBuffer, Status) {
	qs := &[1]Queue{q}
	props := &[3]uint64{CommandBufferFlagsKHR, flags, 0}
	f := dl.NewFrame()
	f.Args = dl.Args{1, f.Ptr(0, unsafe.Pointer(qs)), 0, f.Out(0)}
	if flags != 0 {
		f.Args[2] = f.Ptr(1, unsafe.Pointer(props))
	}
	r, out, _ := f.Call(c.create)
	return CommandBuffer(r), errcode(out)
}

// Finalize calls clFinalizeCommandBufferKHR.
func (c *CommandBufferKHR) Finalize(b CommandBuffer) Status { return call1(c.finalize, uintptr(b)) }

// Release calls clReleaseCommandBufferKHR; replays already enqueued still
// run.
func (c *CommandBufferKHR) Release(b CommandBuffer) Status { return call1(c.release, uintptr(b)) }

// Enqueue calls clEnqueueCommandBufferKHR on q, a queue compatible with
// the one b was created for (same device and properties), or with q 0 on
// that queue. event must not be nil: PoCL writes it unchecked.
func (c *CommandBufferKHR) Enqueue(q Queue, b CommandBuffer, waitList []Event, event *Event) Status {
	qs := &[1]Queue{q}
	f := dl.NewFrame()
	f.Args = dl.Args{0, 0, uintptr(b), uintptr(len(waitList)), f.Ptr(0, dl.First(waitList)), f.Ptr(1, unsafe.Pointer(event))}
	if q != 0 {
		f.Args[0], f.Args[1] = 1, f.Ptr(2, unsafe.Pointer(qs))
	}
	r, _, _ := f.Call(c.enqueue)
	return status(r)
}

// Chain is where a recorded command goes: after the command whose sync
// point is After when Has, else first. Chaining every command to the one
// before keeps them in the order recorded on any queue, in order or not.
type Chain struct {
	After SyncPoint
	Has   bool
}

// record calls a command-recording function: mid are its arguments
// between the command buffer (and queue, NULL: the buffer's one queue)
// and the sync-point lists, a NULL properties list going first from 0.9.5
// (always for ndrange); keep are the heap objects mid points into. It
// returns the command's sync point.
func (c *CommandBufferKHR) record(fn uintptr, b CommandBuffer, alwaysProps bool, after Chain, keep [3]unsafe.Pointer, mid ...uintptr) (SyncPoint, Status) {
	sp := new([2]uint32)
	sp[0] = uint32(after.After)
	f := dl.NewFrame()
	for j, p := range keep {
		f.Ptr(2+j, p)
	}
	f.Args[0] = uintptr(b)
	i := 2
	if alwaysProps || c.props {
		i++
	}
	i += copy(f.Args[i:], mid)
	if after.Has {
		f.Args[i], f.Args[i+1] = 1, f.Ptr(0, unsafe.Pointer(&sp[0]))
	}
	f.Args[i+2] = f.Ptr(1, unsafe.Pointer(&sp[1]))
	r, _, _ := f.Call(fn)
	return SyncPoint(sp[1]), status(r)
}

// NDRangeKernel calls clCommandNDRangeKernelKHR; sizes holds the offset,
// global and local sizes (heap memory), offset and local passed as NULL
// unless withOffset, withLocal.
func (c *CommandBufferKHR) NDRangeKernel(b CommandBuffer, k Kernel, dims uint32, sizes *[3][3]uintptr, withOffset, withLocal bool, after Chain) (SyncPoint, Status) {
	var offset, local uintptr
	if withOffset {
		offset = uintptr(unsafe.Pointer(&sizes[0]))
	}
	if withLocal {
		local = uintptr(unsafe.Pointer(&sizes[2]))
	}
	return c.record(c.ndrange, b, true, after, [3]unsafe.Pointer{unsafe.Pointer(sizes)},
		uintptr(k), uintptr(dims), offset, uintptr(unsafe.Pointer(&sizes[1])), local)
}

// CopyBuffer calls clCommandCopyBufferKHR.
func (c *CommandBufferKHR) CopyBuffer(b CommandBuffer, src, dst Mem, srcOffset, dstOffset, size uintptr, after Chain) (SyncPoint, Status) {
	return c.record(c.copyBuffer, b, false, after, [3]unsafe.Pointer{}, uintptr(src), uintptr(dst), srcOffset, dstOffset, size)
}

// FillBuffer calls clCommandFillBufferKHR; the pattern is copied before
// the call returns.
func (c *CommandBufferKHR) FillBuffer(b CommandBuffer, m Mem, pattern []byte, offset, size uintptr, after Chain) (SyncPoint, Status) {
	p := unsafe.Pointer(&pattern[0])
	return c.record(c.fillBuffer, b, false, after, [3]unsafe.Pointer{p}, uintptr(m), uintptr(p), uintptr(len(pattern)), offset, size)
}

// SVMMemcpy calls clCommandSVMMemcpyKHR (see HasSVM).
func (c *CommandBufferKHR) SVMMemcpy(b CommandBuffer, dst, src, size uintptr, after Chain) (SyncPoint, Status) {
	return c.record(c.svmMemcpy, b, false, after, [3]unsafe.Pointer{}, dst, src, size)
}

// SVMMemFill calls clCommandSVMMemFillKHR (see HasSVM).
func (c *CommandBufferKHR) SVMMemFill(b CommandBuffer, ptr uintptr, pattern []byte, size uintptr, after Chain) (SyncPoint, Status) {
	p := unsafe.Pointer(&pattern[0])
	return c.record(c.svmMemFill, b, false, after, [3]unsafe.Pointer{p}, ptr, uintptr(p), uintptr(len(pattern)), size)
}
