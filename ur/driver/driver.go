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
	NumArgs                        uint32
	WorkGroupSize                  uint64 // largest work-group this kernel runs with
	PreferredWorkGroupSizeMultiple uint64
	CompileWorkGroupSize           [3]uint64
	LocalMemSize                   uint64
	PrivateMemSize                 uint64
}

// NumArgsUnknown is KernelInfo.NumArgs for a driver that cannot count a
// kernel's arguments.
const NumArgsUnknown = ^uint32(0)

// NDRange is a launch's index space. Dims is 1, 2 or 3; Local all zero
// lets the driver choose.
type NDRange struct {
	Dims   uint32
	Offset [3]uint64
	Global [3]uint64
	Local  [3]uint64
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

// Event states, in the order a command passes through them.
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
