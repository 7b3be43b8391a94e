// Package gokernel compiles kernels written in Go to OpenCL C and CUDA C,
// and runs the same Go functions on the CPU.
//
// A kernel is an exported function whose first parameter is a kern.Item
// (package kern holds the intrinsics), written in a subset of Go; the
// package's other functions it calls are device functions:
//
//   - numbers (int, int8 to int64, the unsigned kinds, float32, float64),
//     bool, kern.Float16 and kern.BFloat16 as storage (converted to
//     float32 and back, bit for bit as on the CPU), fixed-size arrays of
//     numbers as locals, and slices of numbers as parameters (on a device
//     a pointer and a length: len works; a bool parameter is a byte);
//
//   - structs of numbers, fixed-size arrays of numbers and such structs
//     (named types of the package, no embedded or bool fields) as
//     kernel parameters passed by value, locals (declared zeroed, then
//     assigned: no struct literals), device function parameters and
//     results: a C struct with the fields in Go's order, which C lays
//     out as Go does on a 64-bit host (each field at a multiple of its
//     alignment, a number's size or an array's element's; the size a
//     multiple of the largest), so a launch passes the Go value's bytes
//     (gokernel.Struct; the generated launch function takes the struct
//     type), its type's name and size checked against the parameter;
//
//   - if, for (three-clause, condition-only, infinite, and range over an
//     integer), switch, break, continue, return, and calls of the
//     package's other functions (device functions, returning one number
//     or nothing; a generic one is compiled once per instantiation);
//
//   - Go's constant rules, kept: in float32 code x*0.5 is x*0.5f, never a
//     double; signed integer arithmetic wraps as Go's does (C computes it
//     unsigned), but for a for loop's step of a signed 64-bit counter,
//     which must not pass 2^63 (so the device compiler can unroll the
//     loop); / and % truncate as Go's do; max and min of floats are the
//     device's fmax and fmin (a NaN operand gives the other);
//
//   - kern.Shared's work-group memory (which device functions take as
//     slice parameters) — of a constant length, or of a length that is
//     an integer parameter of the kernel the kernel never assigns,
//     sized at launch from that argument (KernelInfo.Dynamic) —
//     Item.Barrier, atomics, and kern's float32 math;
//
//   - subgroups (warps): Item.SubgroupSize, SubgroupLocalID, SubgroupID
//     and NumSubgroups, kern.Shuffle, ShuffleXor, SubgroupAdd,
//     SubgroupMax, SubgroupMin and Ballot — CUDA's __shfl_sync family,
//     OpenCL's sub_group functions (cl_khr_subgroups and its shuffle and
//     ballot extensions). A kernel using them needs the device aspects
//     (KernelInfo.Needs), checked before it is built: a device without
//     them is an *AspectError naming the kernel and the aspect. The
//     subgroup size is the device's (32 on CUDA, the implementation's on
//     OpenCL, kern.CPUSubgroupSize on the CPU): read it, do not assume it.
//
//   - generic kernels: each instantiation the package declares (var _ =
//     Fill[float32]) is a kernel of its own, Fill_float32, compiled as
//     its own specialisation (a plain kernel calling one instantiates it
//     as a device function too).
//
// Everything else — closures, maps, strings, interfaces, goroutines,
// defer, recursion, allocation, slicing, pointers, methods, package
// variables, comparing or assigning arrays and comparing structs — is refused
// by Compile with its file:line:col and why, before anything runs. An
// index out of range is not checked on a device (as in C) but in the
// debug variant, as -race is Go's: Module.DebugKernel (or
// GOUR_GOKERNEL_DEBUG=1) checks every index on the device and its Launch
// returns an *IndexError naming the kernel, the file:line:col, the index
// and the length. On the CPU an index out of range or a division by zero
// panics as Go's do, and RunCPU returns the panic as an error naming the
// work-item.
//
// Compile type-checks with go/types, so it runs where the Go tool and
// the sources are: a go generate step (command gokernel) writes the
// compiled Module into a Go file, with the hash of the source it came
// from, and a program ships that. At run time Module.Kernel builds a
// kernel for a device through a programmgr.Manager — OpenCL C for OpenCL
// and, through SPIR-V, Level Zero; CUDA C for CUDA — from the kernel's
// own translation unit (the kernel, the device functions it reaches and
// the preludes it uses: a first use compiles one kernel, not its module),
// cached in memory, on disk and across a fleet like any program, and
// Kernel.Launch checks its arguments against the kernel's parameters and
// launches through ur.Queue.Launch.
//
// RunCPU runs the same function as Go, a goroutine for each work-item of
// a work-group, with a real barrier, the group's shared memory and its
// subgroups (kern.CPUSubgroupSize consecutive work-items, whose
// operations wait for each other as a barrier does), so that go test
// -race catches a missing barrier on a machine without a GPU, and
// debuggers and coverage see kernel code as any Go. A work-item that
// returns while others wait for it at a barrier or subgroup operation is
// a *kern.DivergenceError, where a device would hang.
package gokernel
