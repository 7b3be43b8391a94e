package driver

// This file holds the launch and queue model beyond Queue.Launch: launches
// that carry their arguments, command buffers (graphs), queue features and
// kernel attributes. As in memory.go, each part is an optional interface
// that the front end asks for and validates around.

// LaunchArg is one kernel argument given with a launch.
type LaunchArg struct {
	Kind ArgKind // ArgValue, ArgMem (Mem or Ptr) or ArgLocal
	// Size is the value's size in bytes (ArgValue) or the local memory's
	// (ArgLocal).
	Size uint64
	// Bits holds a value of up to 8 bytes, little-endian; Bytes a larger
	// one (a struct), which the adapter copies before it returns.
	Bits  uint64
	Bytes []byte
	Mem   Mem     // a buffer (ArgMem), or nil
	Ptr   uintptr // a USM pointer (ArgMem with Mem nil)
}

// LaunchProperties are a launch's properties beyond its range
// (urEnqueueKernelLaunchWithArgsExp's launch properties, CUDA's
// CUlaunchAttribute).
type LaunchProperties struct {
	// Cooperative launches every work-group at once so that they may
	// synchronize with each other (cuLaunchCooperativeKernel).
	Cooperative bool
	// ClusterDims groups work-groups into clusters (CUDA thread block
	// clusters, sm_90); zero for none.
	ClusterDims [3]uint32
	// DynamicLocalMem is the work-group memory the launch adds beyond the
	// kernel's static memory: CUDA's sharedMemBytes, for kernels that
	// declare extern __shared__ arrays; zero for none.
	DynamicLocalMem uint64
}

// ArgLauncher is implemented by queues that launch a kernel with its
// arguments given with the launch, leaving the kernel's own argument
// state untouched, so that any number of goroutines may launch one kernel
// at once.
type ArgLauncher interface {
	LaunchWithArgs(k Kernel, r NDRange, args []LaunchArg, props LaunchProperties, wait []Event, wantEvent bool) (Event, error)
}

// CommandBufferContext is implemented by contexts that record commands
// into command buffers (cuGraph, cl_khr_command_buffer, regular Level
// Zero command lists).
type CommandBufferContext interface {
	NewCommandBuffer(dev Device, props CommandBufferProperties) (CommandBuffer, error)
}

// CommandBufferProperties configures a command buffer.
type CommandBufferProperties struct {
	// Updatable asks for launches whose arguments and ranges can change
	// after Finalize (cuGraphExecKernelNodeSetParams,
	// cl_khr_command_buffer_mutable_dispatch).
	Updatable bool
}

// Command is one recorded command, for CommandBuffer.UpdateLaunch.
type Command interface{}

// CommandBuffer is a recorded sequence of commands replayed by one
// Enqueue. Commands run in the order recorded.
type CommandBuffer interface {
	AppendLaunch(k Kernel, r NDRange, args []LaunchArg, props LaunchProperties) (Command, error)
	AppendCopy(src, dst Mem, srcOffset, dstOffset, size uint64) (Command, error)
	AppendFill(m Mem, pattern []byte, offset, size uint64) (Command, error)
	AppendUSMCopy(dst, src uintptr, size uint64) (Command, error)
	AppendUSMFill(ptr uintptr, pattern []byte, size uint64) (Command, error)
	// Finalize ends recording; afterwards only Enqueue and UpdateLaunch.
	Finalize() error
	// Enqueue replays the buffer on q, a queue of the buffer's device.
	Enqueue(q Queue, wait []Event, wantEvent bool) (Event, error)
	// UpdateLaunch changes a recorded launch's arguments (nil: keep) and
	// range (nil: keep); only buffers made Updatable.
	UpdateLaunch(cmd Command, args []LaunchArg, r *NDRange) error
	// Emulated reports a buffer that replays its commands one by one
	// through ordinary enqueues, because the driver has no command
	// buffers.
	Emulated() bool
	Release() error
}

// CaptureQueue is implemented by queues that record what is enqueued on
// them between BeginCapture and EndCapture into a command buffer instead
// of running it (cuStreamBeginCapture).
type CaptureQueue interface {
	BeginCapture() error
	EndCapture() (CommandBuffer, error)
}

// QueueFeatures is implemented by queues that answer the queue queries.
type QueueFeatures interface {
	// Empty reports whether every command enqueued has completed
	// (cuStreamQuery, clGetEventInfo of a marker, zeCommandListHostSynchronize(0)).
	Empty() (bool, error)
}

// NativeContextQueue is implemented by queues whose native context is
// not always their context's Native: CUDA's, whose stream belongs to its
// device's CUcontext also in a context of several devices, and to the
// other library's context when the stream was wrapped.
type NativeContextQueue interface {
	// NativeContext is the native context the queue's commands run in.
	NativeContext() uintptr
}

// EventCallbacks is implemented by events that call back on completion
// (cuLaunchHostFunc, clSetEventCallback). The adapter calls fn on a
// goroutine of its own, never on the driver's thread.
type EventCallbacks interface {
	OnComplete(fn func(status EventStatus, err error)) error
}

// KernelAttributes is implemented by kernels that report more of what the
// compiler made of them than KernelInfo.
type KernelAttributes interface {
	Attributes(dev Device) (KernelAttrs, error)
	// SuggestLocalSize suggests a work-group size for a launch of global
	// items (cuOccupancyMaxPotentialBlockSize,
	// clGetKernelSuggestedLocalWorkSizeKHR, zeKernelSuggestGroupSize).
	SuggestLocalSize(dev Device, r NDRange, dynamicLocalMem uint64) ([3]uint64, error)
	// MaxCooperativeGroups is how many work-groups of local items a
	// cooperative launch may have at most.
	MaxCooperativeGroups(dev Device, local [3]uint64, dynamicLocalMem uint64) (uint64, error)
}

// KernelAttrs are a kernel's compiled attributes on one device; zero where
// the driver does not say.
type KernelAttrs struct {
	Registers              uint32 // per work-item
	PrivateMemSize         uint64 // spill / private memory per work-item, bytes
	StaticLocalMemSize     uint64 // static work-group memory, bytes
	MaxWorkGroupSize       uint64 // for this kernel on this device
	PreferredGroupMultiple uint64
	SubGroupSizes          []uint32
	// MaxDynamicLocalMem is the largest dynamic work-group memory a
	// launch may ask for (CUDA: up to the opt-in limit, set per launch).
	MaxDynamicLocalMem uint64
}

// GlobalsProgram is implemented by programs whose global variables the
// host can reach (cuModuleGetGlobal, zeModuleGetGlobalPointer,
// clGetDeviceGlobalVariablePointerINTEL).
type GlobalsProgram interface {
	// Global returns the device address and size of the global variable
	// name on dev; it is USM the queue's USM commands copy to and from.
	Global(dev Device, name string) (ptr uintptr, size uint64, err error)
}

// ArgLaunchPreparer is implemented by queues that prepare a launch with
// its own arguments once, for one goroutine to make many times with new
// argument values (ur.ArgLaunch): the launch's argument table belongs to
// the prepared launch, not to the kernel.
type ArgLaunchPreparer interface {
	// PrepareArgLaunch checks a launch of k over r with args and props as
	// LaunchWithArgs would, with no wait list and no event, and returns it
	// prepared. Its errors are those LaunchWithArgs would return.
	PrepareArgLaunch(k Kernel, r NDRange, args []LaunchArg, props LaunchProperties) (PreparedArgLaunch, error)
}

// PreparedArgLaunch is a launch with its own argument table. SetArg and
// Launch are called by one goroutine at a time; different prepared
// launches of one kernel run concurrently.
type PreparedArgLaunch interface {
	// Native is the launch as one C call the front end makes itself
	// (NativeCall), or nil where Launch must be called.
	Native() *NativeCall
	// Launch enqueues the launch with the arguments as they are, no wait
	// list, no event; LaunchFailed leaves the error to LaunchWithArgs.
	Launch() LaunchStatus
	// SetArg replaces argument i (of the kind and size it had) for the
	// launches that follow.
	SetArg(i int, a LaunchArg) error
	// Value is the bytes of value argument i in the launch's own table,
	// as long as the kernel's parameter, for the front end to write a new
	// value into in place; nil where a value must go through SetArg.
	Value(i int) []byte
}
