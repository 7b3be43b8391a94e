package blas

import (
	"errors"
	"fmt"

	"github.com/gour-dev/gour/ur"
)

// ErrLibraryUnavailable matches the error of a backend whose vendor
// library does not load, or does not serve the queue's device: a
// *LibraryError says which library and why.
var ErrLibraryUnavailable = errors.New("blas: vendor library unavailable")

// LibraryError is New's error for a backend asked for by name whose
// library cannot be used. errors.Is(err, ErrLibraryUnavailable) holds.
type LibraryError struct {
	Backend Backend
	Library string // the shared object tried, e.g. "libclblast.so.1"
	Reason  string
}

func (e *LibraryError) Error() string {
	lib := ""
	if e.Library != "" {
		lib = " (" + e.Library + ")"
	}
	return fmt.Sprintf("blas: backend %s%s unavailable: %s", e.Backend, lib, e.Reason)
}

func (e *LibraryError) Unwrap() error { return ErrLibraryUnavailable }

// ArgError is the error of a call refused before anything was enqueued,
// so no output was written: the routine, the argument and what is wrong
// with it. errors.Is matches the ur result code it carries:
// ur.ErrInvalidValue (a shape, leading dimension, increment, stride or
// enumeration), ur.ErrInvalidSize (an operand past the end of its
// memory), ur.ErrInvalidNullPointer (a nil operand),
// ur.ErrInvalidMemObject (freed or released memory), ur.ErrInvalidContext
// (memory of another context) or ur.ErrUnsupportedFeature (a type the
// device lacks; Aspect names it).
type ArgError struct {
	Op      string    // the routine, e.g. "blas.Gemm"
	Arg     string    // the argument, as GemmArgs names it: "LDA", "A", "Type", "as[3]"
	Problem string    // what is wrong, with the values involved
	Code    ur.Result // the Unified Runtime code the problem maps to
	Aspect  string    // for a type the device lacks: "fp64" or "fp16"
	Err     error     // the ur error that revealed the problem, if any
}

func (e *ArgError) Error() string {
	return fmt.Sprintf("%s: %s: %s", e.Op, e.Arg, e.Problem)
}

// Is makes errors.Is(err, ur.ErrInvalidValue) (and the other codes) hold
// for the code the error carries.
func (e *ArgError) Is(target error) bool {
	r, ok := target.(ur.Result)
	return ok && r == e.Code
}

func (e *ArgError) Unwrap() error { return e.Err }

func argError(op, arg string, code ur.Result, format string, a ...any) *ArgError {
	return &ArgError{Op: op, Arg: arg, Problem: fmt.Sprintf(format, a...), Code: code}
}

// ErrClosed matches the error of a call on a closed Handle.
var ErrClosed = errors.New("blas: handle closed")
