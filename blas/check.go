package blas

import (
	"math"
	"math/bits"
	"strconv"

	"github.com/gour-dev/gour/dtype"
	"github.com/gour-dev/gour/ur"
)

// maxDim bounds dimensions, leading dimensions, increments, strides and
// batch counts: the vendor libraries take them as 32-bit ints.
const maxDim = math.MaxInt32

// checkCall checks the handle and that the device has the type.
func (h *Handle) checkCall(op string, t dtype.Type) error {
	if h == nil {
		return argError(op, "h", ur.ErrInvalidNullHandle, "nil Handle")
	}
	if h.closed.Load() {
		return ErrClosed
	}
	switch {
	case !typeOK(t):
		return argError(op, "Type", ur.ErrInvalidValue, "%v: want dtype.Float32, dtype.Float64, dtype.Float16 or dtype.BFloat16", t)
	case t == dtype.Float64 && !h.fp64:
		e := argError(op, "Type", ur.ErrUnsupportedFeature, "%s has no double precision (aspect fp64)", h.dev.Name())
		e.Aspect = "fp64"
		return e
	case t == dtype.Float16 && !h.fp16:
		e := argError(op, "Type", ur.ErrUnsupportedFeature, "%s has no half precision (aspect fp16)", h.dev.Name())
		e.Aspect = "fp16"
		return e
	}
	return nil
}

func checkTrans(op, name string, t Transpose) error {
	if t != NoTrans && t != Trans {
		return argError(op, name, ur.ErrInvalidValue, "%v: want NoTrans or Trans", t)
	}
	return nil
}

func checkDims[A ~[3]string | ~[2]string, B ~[3]int | ~[2]int](op string, names A, dims B) error {
	for i := range len(names) {
		if d := dims[i]; d < 0 || d > maxDim {
			return argError(op, names[i], ur.ErrInvalidValue, "%d is outside [0, %d]", d, maxDim)
		}
	}
	return nil
}

// checkLD checks a row-major leading dimension against the stored
// column count.
func checkLD(op, name string, ld, cols int, matrix string, t Transpose) error {
	if ld < max(1, cols) || ld > maxDim {
		stored := ""
		if t == Trans {
			stored = " (stored transposed)"
		}
		return argError(op, name, ur.ErrInvalidValue, "%d: want at least max(1, %d), the columns of %s%s, and at most %d", ld, cols, matrix, stored, maxDim)
	}
	return nil
}

// checkInc checks a vector increment; positive asks for a positive one.
func checkInc(op, name string, inc int, positive bool) error {
	switch {
	case inc == 0 || inc < -maxDim || inc > maxDim:
		return argError(op, name, ur.ErrInvalidValue, "%d: want a nonzero increment of at most %d in magnitude", inc, maxDim)
	case positive && inc < 0:
		return argError(op, name, ur.ErrInvalidValue, "%d: this routine takes a positive increment", inc)
	}
	return nil
}

// matSpan is the number of elements a rows×cols matrix with leading
// dimension ld spans; 0 when it is empty.
func matSpan(rows, cols, ld int) uint64 {
	if rows == 0 || cols == 0 {
		return 0
	}
	return uint64(rows-1)*uint64(ld) + uint64(cols)
}

// vecSpan is the number of elements n elements inc apart span.
func vecSpan(n, inc int) uint64 {
	if n == 0 {
		return 0
	}
	if inc < 0 {
		inc = -inc
	}
	return uint64(n-1)*uint64(inc) + 1
}

// checkOperand checks that o is a live operand of the handle's context
// holding elems elements of size bytes from its start. An operand of no elements
// is not read, and not checked.
func (h *Handle) checkOperand(op, name string, o Operand, size int, elems uint64) error {
	if elems == 0 {
		return nil
	}
	if o.IsNil() {
		return argError(op, name, ur.ErrInvalidNullPointer, "nil operand")
	}
	if o.context() != h.ctx {
		return argError(op, name, ur.ErrInvalidContext, "%v lies in another context than the queue's", o)
	}
	if o.mem != nil && o.mem.Native() == 0 {
		return argError(op, name, ur.ErrInvalidMemObject, "the buffer was released")
	}
	if off := o.byteOffset(); off%uint64(size) != 0 {
		return argError(op, name, ur.ErrInvalidValue, "byte offset %d is not a multiple of the element size, %d", off, size)
	}
	hi, bytes := bits.Mul64(elems, uint64(size))
	if capacity, off := o.capacity(), o.byteOffset(); hi != 0 || off > capacity || bytes > capacity-off {
		return argError(op, name, ur.ErrInvalidSize, "%d elements of %d bytes from byte %d run past the end of its %d bytes", elems, size, off, capacity)
	}
	// A vendor library takes the raw address: a freed allocation must be
	// refused here, as ur's commands refuse it.
	if o.mem == nil {
		if err := o.ptr.Check(h.ctx, bytes); err != nil {
			return argError(op, name, ur.ResultOf(err), "%v", err)
		}
	}
	return nil
}

// checkOperandAt is checkOperand for element i of a slice of operands.
func (h *Handle) checkOperandAt(op, name string, i int, o Operand, size int, elems uint64) error {
	if err := h.checkOperand(op, name, o, size, elems); err != nil {
		e := err.(*ArgError)
		e.Arg = name + "[" + strconv.Itoa(i) + "]"
		return e
	}
	return nil
}
