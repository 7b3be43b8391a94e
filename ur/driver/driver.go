package driver

import "context"

// Adapter is one vendor API, opened.
type Adapter interface {
	// Name is the backend name used by selectors: "opencl", "cuda", "level_zero".
	Name() string
	Platforms() ([]Platform, error)
	// NewContext creates a context over devices of one of this adapter's
	// platforms.
	NewContext(devices []Device) (Context, error)
}

// Platform groups the devices of one driver installation.
type Platform interface {
	Info() PlatformInfo
	Devices() ([]Device, error)
}

// PlatformInfo describes a platform.
type PlatformInfo struct {
	Name, Vendor, Version, Profile, Extensions string
}

// Device is one compute device. Devices live as long as the adapter.
type Device interface {
	Info() (DeviceInfo, error)
}

// DeviceType classifies devices as selectors do.
type DeviceType int

// Device types, named as in ONEAPI_DEVICE_SELECTOR.
const (
	DeviceTypeOther DeviceType = iota
	DeviceTypeCPU
	DeviceTypeGPU
	DeviceTypeAccelerator
)

// String returns the selector name: "cpu", "gpu", "fpga" or "other".
func (t DeviceType) String() string {
	switch t {
	case DeviceTypeCPU:
		return "cpu"
	case DeviceTypeGPU:
		return "gpu"
	case DeviceTypeAccelerator:
		return "fpga"
	}
	return "other"
}

// DeviceInfo is everything gour reports about a device.
type DeviceInfo struct {
	Type             DeviceType
	Name             string
	Vendor           string
	VendorID         uint32
	DeviceVersion    string // e.g. "OpenCL 3.0 PoCL ..." or "CUDA 9.0"
	DriverVersion    string
	LanguageVersion  string // OpenCL C version, PTX ISA, ...
	ComputeUnits     uint32
	MaxClockMHz      uint32
	GlobalMemSize    uint64
	LocalMemSize     uint64
	MaxMemAllocSize  uint64
	MaxWorkGroupSize uint64
	MaxWorkItemSizes [3]uint64
	AddressBits      uint32
	FP64             bool
	FP16             bool
	ILVersions       string // IL the device takes (SPIR-V versions, PTX ISA); empty if none
	Extensions       string
	UUID             string // e.g. "GPU-5a5d…" for CUDA; empty where the driver has none
	// Preferred and native vector widths for char, short, int, long,
	// float, double and half, in that order.
	PreferredVectorWidths [7]uint32
	NativeVectorWidths    [7]uint32
	ProfilingResolutionNS uint64
	// MemBaseAddrAlign is the alignment in bytes a sub-buffer's offset
	// must have (CL_DEVICE_MEM_BASE_ADDR_ALIGN, in bytes not bits); 0
	// where the driver sets none.
	MemBaseAddrAlign uint64
	// HostUnifiedMemory: the device and the host share one physical
	// memory (a CPU device, an integrated GPU).
	HostUnifiedMemory bool
	// USM says which unified shared memory kinds the device has.
	USM USMSupport
	// Native is the vendor's device handle (cl_device_id, CUdevice, ...).
	Native uintptr
}

// Context owns queues, memory and programs for its devices.
type Context interface {
	Release() error
	NewQueue(dev Device, props QueueProperties) (Queue, error)
	NewBuffer(flags MemFlags, size uint64, host []byte) (Mem, error)
	NewProgramFromSource(source string) (Program, error)
	NewProgramFromIL(il []byte) (Program, error)
	NewProgramFromBinaries(devices []Device, binaries [][]byte) (Program, error)
	// Link links compiled programs into an executable for devices.
	Link(devices []Device, programs []Program, options string) (Program, error)
	Native() uintptr
}

// QueueProperties selects queue features.
type QueueProperties struct {
	Profiling bool
	// OutOfOrder lets commands without dependencies between them run in
	// any order or at once; order comes from wait lists, markers and
	// barriers (CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE; several streams or
	// lists on CUDA and Level Zero).
	OutOfOrder bool
	// Priority: 0 is the default; positive is higher, negative lower,
	// clamped to what the device has (CUDA stream priorities).
	Priority int
}

// MemFlags says how kernels may access a buffer.
type MemFlags uint32

// Buffer access flags; exactly one of the access flags is set.
const (
	MemReadWrite MemFlags = 1 << iota
	MemReadOnly
	MemWriteOnly
)

// Mem is a device buffer.
type Mem interface {
	Release() error
	Size() uint64
	Native() uintptr
}

// Program is device code in a context.
type Program interface {
	Release() error
	Build(devices []Device, options string) error
	Compile(devices []Device, options string) error
	BuildLog(dev Device) (string, error)
	Binaries() ([][]byte, error) // one per device, in Devices order
	Devices() ([]Device, error)
	KernelNames() ([]string, error)
	// SetSpecConstant sets a specialization constant of an IL program
	// before it is built.
	SetSpecConstant(id uint32, value []byte) error
	NewKernel(name string) (Kernel, error)
	Native() uintptr
}

// BinarySizer is implemented by programs that can report the sizes of
// their binaries without copying them (CL_PROGRAM_BINARY_SIZES); the front
// end falls back to Binaries otherwise.
type BinarySizer interface {
	BinarySizes() ([]uint64, error)
}

// Kernel is one entry point of a built program with its arguments.
// Argument setters copy the value before returning.
type Kernel interface {
	Release() error
	SetArgValue(index uint32, value []byte) error
	SetArgMem(index uint32, mem Mem) error
	SetArgLocal(index uint32, size uint64) error
	Info(dev Device) (KernelInfo, error)
	Native() uintptr
}

// KernelInfo describes a kernel on one device.
type KernelInfo struct {
	Name string
	// NumArgs is the number of arguments, or NumArgsUnknown when the
	// driver cannot tell (the front end then skips its index check).
	NumArgs uint32
	// Args describes each argument, in order, as far as the driver can
	// tell; nil when it can tell nothing. The front end checks the
	// arguments a kernel is given against it before they reach the driver.
	Args                           []ArgInfo
	WorkGroupSize                  uint64 // largest work-group this kernel runs with
	PreferredWorkGroupSizeMultiple uint64
	CompileWorkGroupSize           [3]uint64
	LocalMemSize                   uint64
	PrivateMemSize                 uint64
}

// NumArgsUnknown is KernelInfo.NumArgs for a driver that cannot count a
// kernel's arguments.
const NumArgsUnknown = ^uint32(0)

// ArgKind says how a kernel argument is passed.
type ArgKind uint8

// Argument kinds.
const (
	// ArgUnknown: the driver cannot tell; ArgInfo.Size may still be known
	// (CUDA reports only the parameter's size).
	ArgUnknown ArgKind = iota
	// ArgValue: a value copied into the launch (a scalar, a vector, a
	// struct), set with SetArgValue.
	ArgValue
	// ArgMem: a pointer to global or constant memory, set with SetArgMem.
	ArgMem
	// ArgLocal: a pointer to work-group (local, shared) memory, set with
	// SetArgLocal.
	ArgLocal
)

// String names the kind: "value", "buffer", "local" or "unknown".
func (k ArgKind) String() string {
	switch k {
	case ArgValue:
		return "value"
	case ArgMem:
		return "buffer"
	case ArgLocal:
		return "local"
	}
	return "unknown"
}

// ArgInfo describes one kernel argument.
type ArgInfo struct {
	Kind ArgKind
	// Size is the size in bytes of the value SetArgValue must be given
	// (for ArgValue, or ArgUnknown where the driver knows it), or of the
	// pointer (ArgMem, ArgLocal); 0 when unknown, for example for a
	// struct whose layout OpenCL does not report.
	Size uint64
	// Name and TypeName are the argument's name and type in the kernel's
	// source ("n", "uint"; "float*" for a pointer), for messages; empty
	// where the driver does not say.
	Name, TypeName string
}

// NDRange is a launch's index space. Dims is 1, 2 or 3; Local all zero
// lets the driver choose. ur.NDRange is this type: its documentation
// describes the fields for users.
type NDRange struct {
	Dims   uint32
	Offset [3]uint64
	Global [3]uint64
	Local  [3]uint64
}

// WithLocal returns r with its local (work-group) size set, one size per
// dimension of r, as the second range of a SYCL nd_range or a CUDA
// block: ur.Range2D(1024, 768).WithLocal(16, 16). A launch given fewer
// or more sizes than r has dimensions fails with ErrInvalidWorkGroupSize
// naming them; a range has three dimensions at most, so sizes past the
// third are dropped.
func (r NDRange) WithLocal(local ...uint64) NDRange {
	r.Local = [3]uint64{}
	copy(r.Local[:], local)
	return r
}

// Queue is an in-order command queue on one device. Enqueue calls return
// an Event only when wantEvent is set; otherwise they return nil and must
// not allocate on the launch path.
type Queue interface {
	Release() error
	Flush() error
	Finish() error
	WriteBuffer(m Mem, blocking bool, offset uint64, src []byte, wait []Event, wantEvent bool) (Event, error)
	ReadBuffer(m Mem, blocking bool, offset uint64, dst []byte, wait []Event, wantEvent bool) (Event, error)
	CopyBuffer(src, dst Mem, srcOffset, dstOffset, size uint64, wait []Event, wantEvent bool) (Event, error)
	FillBuffer(m Mem, pattern []byte, offset, size uint64, wait []Event, wantEvent bool) (Event, error)
	Launch(k Kernel, r NDRange, wait []Event, wantEvent bool) (Event, error)
	Native() uintptr
}

// EventStatus is the execution state of a command.
type EventStatus int

// Event states, numbered as the Unified Runtime's ur_event_status_t and
// OpenCL's execution status, which adapters and callers compare against:
// a command passes through them from the last to the first, Queued,
// Submitted, Running, then Complete.
const (
	EventComplete EventStatus = iota
	EventRunning
	EventSubmitted
	EventQueued
)

// String names the state.
func (s EventStatus) String() string {
	switch s {
	case EventComplete:
		return "complete"
	case EventRunning:
		return "running"
	case EventSubmitted:
		return "submitted"
	case EventQueued:
		return "queued"
	}
	return "unknown"
}

// Profiling holds device timestamps in nanoseconds.
type Profiling struct {
	Queued, Submit, Start, End uint64
}

// Event tracks one enqueued command.
type Event interface {
	Release() error
	// Wait blocks until the command completes. The context lets an
	// adapter that can poll give up early; adapters that cannot may ignore it.
	Wait(ctx context.Context) error
	Status() (EventStatus, error)
	Profiling() (Profiling, error)
	Native() uintptr
}
