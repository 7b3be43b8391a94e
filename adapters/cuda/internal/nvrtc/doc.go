// Package nvrtc is the raw binding of NVRTC, CUDA's runtime compiler
// (libnvrtc.so), called through internal/dl without cgo.
//
// Each method of [Lib] calls one C function and returns the nvrtcResult as a
// [Result]; [Compile] runs the whole create–compile–fetch–destroy sequence
// and returns the PTX, the cubin (when a real architecture was asked for)
// and the compiler log.
//
// NVRTC ships with the CUDA toolkit, not with the driver, and its soname
// carries the toolkit's major version. [Load] therefore finds it as the
// toolkit package finds every toolkit library: the usual names through
// the dynamic loader's search path, then the toolkit's directories
// (/usr/local/cuda, $CUDA_HOME, $CUDA_PATH and any directories the caller
// adds). It never panics; the error lists what it tried.
//
// Compilation is a cold path: the calls here allocate freely.
package nvrtc
