package blas

import (
	"fmt"

	"github.com/gour-dev/gour/ur"
)

// Operand is a matrix or vector in device memory: a USM pointer (OnPtr)
// or a buffer and a byte offset in it (OnBuffer). Its extent comes from
// the routine's arguments (shape, leading dimension, increment), which
// the routine checks against the allocation before it enqueues anything.
// The zero Operand is the nil operand, which every routine refuses.
type Operand struct {
	ptr ur.Ptr
	mem *ur.Mem
	off uint64
}

// OnPtr is the operand starting at p.
func OnPtr(p ur.Ptr) Operand { return Operand{ptr: p} }

// OnBuffer is the operand starting byteOffset bytes into m.
func OnBuffer(m *ur.Mem, byteOffset uint64) Operand { return Operand{mem: m, off: byteOffset} }

// IsNil reports whether o is the nil operand.
func (o Operand) IsNil() bool { return o.mem == nil && o.ptr.IsNil() }

// Ptr is the operand's USM pointer; the nil Ptr for a buffer operand.
func (o Operand) Ptr() ur.Ptr { return o.ptr }

// Buffer is the operand's buffer and byte offset; nil for a USM operand.
func (o Operand) Buffer() (*ur.Mem, uint64) { return o.mem, o.off }

// Add returns o advanced by n bytes.
func (o Operand) Add(n uint64) Operand {
	if o.mem != nil {
		o.off += n
	} else {
		o.ptr = o.ptr.Add(n)
	}
	return o
}

// context is the context the operand's memory lives in; nil for the nil
// operand.
func (o Operand) context() *ur.Context {
	if o.mem != nil {
		return o.mem.Context()
	}
	return o.ptr.USM().Context()
}

// byteOffset is the operand's offset in its allocation or buffer.
func (o Operand) byteOffset() uint64 {
	if o.mem != nil {
		return o.off
	}
	return o.ptr.Offset()
}

// capacity is the size of the allocation or buffer the operand lies in.
func (o Operand) capacity() uint64 {
	if o.mem != nil {
		return o.mem.Size()
	}
	return o.ptr.USM().Size()
}

// addr is the operand's device address where the backend has flat
// addresses (USM; a CUDA buffer, whose native handle is a CUdeviceptr);
// 0 for an OpenCL or Level Zero buffer.
func (o Operand) addr(backend string) uintptr {
	if o.mem == nil {
		return o.ptr.Addr()
	}
	if backend == "cuda" {
		if base := o.mem.Native(); base != 0 {
			return base + uintptr(o.off)
		}
	}
	return 0
}

func (o Operand) String() string {
	switch {
	case o.mem != nil:
		return fmt.Sprintf("buffer+%d", o.off)
	case !o.ptr.IsNil():
		return fmt.Sprintf("ptr %#x", o.ptr.Addr())
	}
	return "nil"
}
