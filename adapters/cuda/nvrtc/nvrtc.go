// Package nvrtc compiles CUDA C++ into PTX and cubins with NVIDIA's runtime
// compiler, NVRTC, without a GPU, a CUDA context or cgo: what a tool that
// builds device code ahead of time (cmd/urpack) needs where nvcc is not
// installed. The CUDA adapter compiles CUDA C for its devices itself
// (ur.Context.NewProgramFromSource); this package is for code built for
// devices that are not here.
//
// NVRTC (libnvrtc.so) comes with the CUDA toolkit, or alone in NVIDIA's
// cuda-nvrtc package; it is looked for on the loader's path, then in
// /usr/local/cuda, $CUDA_HOME and $CUDA_PATH, once per process, when first
// needed.
package nvrtc

import (
	"errors"
	"strconv"
	"strings"
	"sync"

	inv "github.com/gour-dev/gour/adapters/cuda/internal/nvrtc"
	"github.com/gour-dev/gour/ur"
)

// lib is NVRTC, loaded on first use.
var lib = sync.OnceValues(func() (*inv.Lib, error) { return inv.Load() })

// Available returns nil when NVRTC loads, else an error carrying
// ur.ErrUnsupportedFeature that lists where it was looked for.
func Available() error {
	_, err := lib()
	return loadError("nvrtc.Available", err)
}

// Version returns the version of the NVRTC found: 12, 8 for CUDA 12.8.
func Version() (major, minor int, err error) {
	l, err := lib()
	if err != nil {
		return 0, 0, loadError("nvrtc.Version", err)
	}
	maj, min, r := l.Version()
	if r != inv.Success {
		return 0, 0, &ur.Error{Result: ur.ErrUnknown, Op: "nvrtc.Version", NativeName: r.Name(), Native: int64(r), Message: "nvrtcVersion failed"}
	}
	return int(maj), int(min), nil
}

// Compile compiles the CUDA C++ source src, called name in messages, with
// NVRTC's options: -arch=sm_90 gives the PTX and the cubin for sm_90,
// -arch=compute_90 the PTX alone (cubin nil); no -arch is NVRTC's default
// virtual architecture. Kernels meant to be found by name must be
// extern "C". log is the compiler's log, which may hold warnings on
// success.
//
// A failed compile is a *ur.Error carrying ur.ErrProgramBuildFailure with
// the log as its BuildLog (ur.BuildLogOf); a missing NVRTC, or one too old
// to give cubins (before CUDA 11.1) when sm_XX is asked for, carries
// ur.ErrUnsupportedFeature.
func Compile(src, name string, options []string) (ptx, cubin []byte, log string, err error) {
	const op = "nvrtc.Compile"
	l, err := lib()
	if err != nil {
		return nil, nil, "", loadError(op, err)
	}
	if inv.RealArch(options) && !l.HasCUBIN() {
		return nil, nil, "", &ur.Error{Result: ur.ErrUnsupportedFeature, Op: op,
			Message: "NVRTC in " + l.LibraryName() + " cannot give cubins (nvrtcGetCUBIN is CUDA 11.1 and later): ask for compute_XX PTX"}
	}
	ptx, cubin, log, err = l.Compile(src, name, options)
	if err != nil {
		return nil, nil, log, compileError(op, name, options, log, err)
	}
	return ptx, cubin, log, nil
}

// loadError is the error of a missing NVRTC; nil for nil.
func loadError(op string, err error) error {
	if err == nil {
		return nil
	}
	return &ur.Error{Result: ur.ErrUnsupportedFeature, Op: op, Message: "NVRTC is not available: " + err.Error(), Err: err}
}

// compileError maps an NVRTC failure onto a result code.
func compileError(op, name string, options []string, log string, err error) error {
	e := &ur.Error{Result: ur.ErrProgramBuildFailure, Op: op, Message: "compiling " + name + " failed", BuildLog: log, Err: err}
	var ne *inv.Error
	if errors.As(err, &ne) {
		e.Native, e.NativeName = int64(ne.Result), ne.Result.Name()
		switch ne.Result {
		case inv.OutOfMemory:
			e.Result = ur.ErrOutOfHostMemory
		case inv.InvalidOption:
			e.Result = ur.ErrInvalidValue
			e.Message = "NVRTC refused the options " + strconv.Quote(strings.Join(options, " "))
		}
	}
	return e
}
