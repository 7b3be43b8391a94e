package gokernel

import "github.com/gour-dev/gour/dtype"

// Module is a package's kernels compiled: the OpenCL C (for OpenCL and,
// through SPIR-V, Level Zero) and the CUDA C of every kernel and the
// device functions they call, and what a launch needs of each kernel. A
// go generate step writes one into a Go file (cmd/gokernel), so that a
// program ships it without its Go source; Hash says which source it was
// compiled from.
type Module struct {
	OpenCL  string
	CUDA    string
	Kernels []KernelInfo
	FP64    bool // a kernel computes in float64: the device needs fp64
	// Int64Atomics: a kernel uses 64-bit atomics (the device's
	// atomic64 aspect; the debug variant always does).
	Int64Atomics bool
	Hash         string // SHA-256 of the Go files it was compiled from

	// The debug variant (Kernel with Debug): every slice and array index
	// checked on the device, each kernel and device function taking an
	// error record last; DebugSites[k-1] is the file:line:col of check k.
	DebugOpenCL string
	DebugCUDA   string
	DebugSites  []string

	im images // the device images, made at the first Kernel or Build
}

// KernelInfo is one kernel's signature past its kern.Item.
type KernelInfo struct {
	Name   string
	Params []Param
}

// Param is a kernel parameter: a number, or a slice of numbers (on the
// device a pointer and a length).
type Param struct {
	Name  string
	Slice bool
	Type  dtype.Type // the number's, or the slice element's
	Go    string     // the Go type of the number or element, as the kernel's package names it
}
