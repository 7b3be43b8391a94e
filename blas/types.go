package blas

import "fmt"

// Type is an element type of the matrices and vectors a routine reads and
// writes.
type Type int

// Element types. Float16 (IEEE 754 binary16) and BFloat16 (the upper half
// of a float32) are storage types: every backend computes with them in
// float32, as the vendor libraries do.
const (
	Float32 Type = iota + 1
	Float64
	Float16
	BFloat16
)

// Size is the size of one element in bytes; 0 for an unknown type.
func (t Type) Size() int {
	switch t {
	case Float32:
		return 4
	case Float64:
		return 8
	case Float16, BFloat16:
		return 2
	}
	return 0
}

func (t Type) String() string {
	switch t {
	case Float32:
		return "float32"
	case Float64:
		return "float64"
	case Float16:
		return "float16"
	case BFloat16:
		return "bfloat16"
	}
	return fmt.Sprintf("Type(%d)", int(t))
}

func (t Type) valid() bool { return t.Size() != 0 }

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
