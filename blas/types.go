package blas

import (
	"fmt"

	"github.com/gour-dev/gour/dtype"
)

// typeOK reports whether the routines take t: the floating-point types.
// dtype.Float16 and dtype.BFloat16 are storage types: every backend computes with
// them in float32, as the vendor libraries do.
func typeOK(t dtype.Type) bool { return t.IsFloat() }

// Transpose says whether a routine reads a matrix as stored or
// transposed.
type Transpose int

// Transpositions. The element types are real, so ConjTrans is Trans.
const (
	NoTrans Transpose = iota
	Trans
	ConjTrans = Trans
)

func (t Transpose) String() string {
	switch t {
	case NoTrans:
		return "N"
	case Trans:
		return "T"
	}
	return fmt.Sprintf("Transpose(%d)", int(t))
}

// Backend names an implementation of the routines.
type Backend string

// Backends. BackendGour, the package's own kernels, runs on every
// device; the others are vendor libraries found at run time.
const (
	BackendCUBLAS  Backend = "cublas"  // NVIDIA cuBLAS and cuBLASLt, on CUDA devices
	BackendCLBlast Backend = "clblast" // CLBlast, on OpenCL devices
	BackendGour    Backend = "gour"    // OpenCL C or CUDA C kernels of this package
)

// Side says on which side of the unknown matrix a triangular matrix
// multiplies it.
type Side int

// Sides: Left solves op(A)*X = alpha*B, Right X*op(A) = alpha*B.
const (
	Left Side = iota
	Right
)

func (s Side) String() string {
	switch s {
	case Left:
		return "L"
	case Right:
		return "R"
	}
	return fmt.Sprintf("Side(%d)", int(s))
}

// Uplo says which triangle of a triangular matrix is stored and read;
// the other is not referenced.
type Uplo int

// Triangles.
const (
	Upper Uplo = iota
	Lower
)

func (u Uplo) String() string {
	switch u {
	case Upper:
		return "U"
	case Lower:
		return "L"
	}
	return fmt.Sprintf("Uplo(%d)", int(u))
}

// Diag says whether a triangular matrix has ones on its diagonal, which
// are then not read (Unit), or the diagonal stored (NonUnit).
type Diag int

// Diagonals.
const (
	NonUnit Diag = iota
	Unit
)

func (d Diag) String() string {
	switch d {
	case NonUnit:
		return "N"
	case Unit:
		return "U"
	}
	return fmt.Sprintf("Diag(%d)", int(d))
}
