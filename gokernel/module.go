package gokernel

import (
	"strconv"
	"strings"

	"github.com/gour-dev/gour/dtype"
)

// Module is a package's kernels compiled: the OpenCL C (for OpenCL and,
// through SPIR-V, Level Zero) and the CUDA C of every kernel and the
// device functions they call, and what a launch needs of each kernel. A
// go generate step writes one into a Go file (cmd/gokernel), so that a
// program ships it without its Go source; Hash says which source it was
// compiled from.
//
// Each source is the union of the kernels' own translation units, and
// each KernelInfo's Source says which spans of it are the kernel's: a
// kernel is built alone, from the kernel and the device functions and
// helpers it reaches, so that its first use compiles one kernel, not the
// module. (A module generated before kernels had spans builds whole.)
type Module struct {
	OpenCL  string
	CUDA    string
	Kernels []KernelInfo
	FP64    bool // a kernel computes in float64 (one of the kernels' Needs)
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

// KernelInfo is one kernel: its signature past its kern.Item, what it
// needs of a device, and where its own source lies in the module's.
type KernelInfo struct {
	Name   string
	Params []Param
	Needs  Aspect // the device aspects the kernel needs (its debug variant needs AspectAtomic64 too)
	Source Spans
	// Dynamic are the kernel's shared arrays sized at launch, in the
	// order of the parameters the device code takes for them after the
	// kernel's own.
	Dynamic []DynamicShared
}

// DynamicShared is a shared array sized at launch (kern.Shared whose
// length is a kernel parameter): a launch gives it Params[Param]'s
// argument times Elem bytes of work-group memory.
type DynamicShared struct {
	Param int // the index in Params of the integer parameter that is its length
	Elem  int // the size of an element in bytes
}

// Spans are where a kernel's own translation unit lies in each of its
// module's four sources: [start, end) byte offsets, pairwise, in order,
// whose concatenation is the unit. Empty, the kernel is built from the
// whole source.
type Spans struct {
	OpenCL, CUDA, DebugOpenCL, DebugCUDA []int
}

// Aspect is a set of device capabilities a kernel needs, each checked
// before the kernel is built: a device without one gets an
// *AspectError naming the kernel and the aspect, not a compiler's log.
type Aspect uint32

const (
	// AspectFP64: the kernel computes in float64 (cl_khr_fp64).
	AspectFP64 Aspect = 1 << iota
	// AspectAtomic64: 64-bit atomics (cl_khr_int64_base_atomics).
	AspectAtomic64
	// AspectSubgroups: subgroup sizes, ids, reductions and broadcasts
	// (cl_khr_subgroups; every CUDA device, whose subgroup is a warp).
	AspectSubgroups
	// AspectSubgroupShuffle: shuffles (cl_khr_subgroup_shuffle).
	AspectSubgroupShuffle
	// AspectSubgroupBallot: ballots (cl_khr_subgroup_ballot).
	AspectSubgroupBallot
)

// aspectNames are the aspects' names, as errors give them.
var aspectNames = []string{"fp64", "atomic64", "subgroups", "subgroup_shuffle", "subgroup_ballot"}

// String is the aspects' names, joined by "|".
func (a Aspect) String() string {
	var names []string
	for i, n := range aspectNames {
		if a&(1<<i) != 0 {
			names = append(names, n)
		}
	}
	if rest := a &^ (1<<len(aspectNames) - 1); rest != 0 || len(names) == 0 {
		names = append(names, "0x"+strconv.FormatUint(uint64(rest), 16))
	}
	return strings.Join(names, "|")
}

// GoString is the aspects as Go source: gokernel.AspectFP64|...
func (a Aspect) GoString() string {
	if a == 0 {
		return "0"
	}
	var names []string
	for i, n := range []string{"FP64", "Atomic64", "Subgroups", "SubgroupShuffle", "SubgroupBallot"} {
		if a&(1<<i) != 0 {
			names = append(names, "gokernel.Aspect"+n)
		}
	}
	if rest := a &^ (1<<len(aspectNames) - 1); rest != 0 {
		names = append(names, "gokernel.Aspect(0x"+strconv.FormatUint(uint64(rest), 16)+")")
	}
	return strings.Join(names, "|")
}

// Param is a kernel parameter: a number, a slice of numbers (on the
// device a pointer and a length), or a struct of numbers passed by
// value.
type Param struct {
	Name  string
	Slice bool
	Type  dtype.Type // the number's, or the slice element's; 0 for a struct
	Go    string     // the Go type of the number, element or struct, as the kernel's package names it
	// Struct: a struct of Size bytes, laid out as Go lays it out on a
	// 64-bit host (each field at a multiple of its alignment), which is
	// the device's C layout.
	Struct bool
	Size   int
}
