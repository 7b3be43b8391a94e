package compute

import (
	"fmt"
	"unsafe"

	"github.com/gour-dev/gour/dtype"
)

// Number is an element type of an Array: the types every backend has a C
// type for.
type Number interface {
	~float32 | ~float64 | ~int32 | ~uint32 | ~int64 | ~uint64
}

// Element is an element type an Array can hold: a Number, or one of the
// half-precision storage types Float16 and BFloat16. Arrays of every
// Element are made, filled, copied, transferred and multiplied
// (MatMul); the arithmetic algorithms (Transform, Reduce, Dot, ...)
// take Numbers.
type Element interface {
	Number | Float16 | BFloat16
}

// Float is an element type MatMul takes: float32, float64 (or a type
// of one of them) and the half-precision storage types, which it
// computes with in float32, as the vendor libraries do.
type Float interface {
	~float32 | ~float64 | Float16 | BFloat16
}

// Float16 is an IEEE 754 binary16 number, as its bits: a storage type,
// which MatMul computes with in float32. On a device MatMul of Float16
// needs half precision (the device's fp16 aspect); storage needs none.
type Float16 uint16

// BFloat16 is a bfloat16 number (the upper half of a float32), as its
// bits: a storage type, which MatMul computes with in float32, on any
// device.
type BFloat16 uint16

// F16 is f rounded to the nearest Float16 (ties to even).
func F16(f float32) Float16 { return Float16(dtype.Float16Bits(f)) }

// BF16 is f rounded to the nearest BFloat16 (ties to even).
func BF16(f float32) BFloat16 { return BFloat16(dtype.BFloat16Bits(f)) }

// Float32 is h's value.
func (h Float16) Float32() float32 { return dtype.Float16From(uint16(h)) }

// Float32 is h's value.
func (h BFloat16) Float32() float32 { return dtype.BFloat16From(uint16(h)) }

func (h Float16) String() string  { return fmt.Sprint(h.Float32()) }
func (h BFloat16) String() string { return fmt.Sprint(h.Float32()) }

// elemType describes an element type to the untyped parts of the package:
// its size, its name in OpenCL C and CUDA C, and the suffix of the
// built-in kernels' names.
type elemType struct {
	size   int
	cl, cu string
	suffix string
	fp64   bool // needs double precision on the device
	// half is a half-precision storage type: kernels move its bits
	// (ushort) and compute with it in float32 only where they convert.
	half  bool
	dtype dtype.Type
}

var (
	typeF32  = &elemType{size: 4, cl: "float", cu: "float", suffix: "f32", dtype: dtype.Float32}
	typeF64  = &elemType{size: 8, cl: "double", cu: "double", suffix: "f64", fp64: true, dtype: dtype.Float64}
	typeI32  = &elemType{size: 4, cl: "int", cu: "int", suffix: "i32", dtype: dtype.Int32}
	typeU32  = &elemType{size: 4, cl: "uint", cu: "unsigned int", suffix: "u32", dtype: dtype.Uint32}
	typeI64  = &elemType{size: 8, cl: "long", cu: "long long", suffix: "i64", dtype: dtype.Int64}
	typeU64  = &elemType{size: 8, cl: "ulong", cu: "unsigned long long", suffix: "u64", dtype: dtype.Uint64}
	typeF16  = &elemType{size: 2, cl: "ushort", cu: "unsigned short", suffix: "f16", half: true, dtype: dtype.Float16}
	typeBF16 = &elemType{size: 2, cl: "ushort", cu: "unsigned short", suffix: "bf16", half: true, dtype: dtype.BFloat16}
)

// typeOf returns the elemType of T. The switch is on the underlying type:
// a named type (type Meters float64) is its underlying type on a device.
func typeOf[T Element]() *elemType {
	var z T
	switch any(z).(type) {
	case Float16:
		return typeF16
	case BFloat16:
		return typeBF16
	case float32:
		return typeF32
	case float64:
		return typeF64
	case int32:
		return typeI32
	case uint32:
		return typeU32
	case int64:
		return typeI64
	case uint64:
		return typeU64
	}
	// A named type of a Number (Float16 and BFloat16 are exact types):
	// decide by kind through a conversion probe.
	half := 0.5
	switch unsafe.Sizeof(z) {
	case 4:
		if T(half) != 0 {
			return typeF32
		}
		if T(0)-1 > 0 {
			return typeU32
		}
		return typeI32
	default:
		if T(half) != 0 {
			return typeF64
		}
		if T(0)-1 > 0 {
			return typeU64
		}
		return typeI64
	}
}

// CType returns the C type of T on a backend ("opencl", "level_zero" or
// "cuda"): float,
// double, int, uint/unsigned int, long/long long, ulong/unsigned long long.
// Hand-written kernel sources can use it to be written once per type.
func CType[T Number](backend string) (string, error) {
	et := typeOf[T]()
	switch backend {
	case "opencl", "level_zero":
		return et.cl, nil
	case "cuda":
		return et.cu, nil
	}
	return "", fmt.Errorf("%w: no C type for backend %q (OpenCL C and CUDA C only)", ErrInvalid, backend)
}

// bytesOf views s as bytes.
func bytesOf[T Element](s []T) []byte {
	if len(s) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&s[0])), len(s)*int(unsafe.Sizeof(s[0])))
}

// viewOf views b, aligned for T, as a []T of n elements.
func viewOf[T Element](b []byte, n int) []T {
	if n == 0 {
		return nil
	}
	return unsafe.Slice((*T)(unsafe.Pointer(&b[0])), n)
}

// alignedBytes returns n zero bytes aligned for any Element (the backing
// array is []uint64; a []byte could come from the tiny allocator, aligned
// to less than 8). A size Go cannot allocate (make panics beyond its
// address space, 2^48 bytes on amd64) is an error wrapping ErrShape.
func alignedBytes(n int) (b []byte, err error) {
	if n == 0 {
		return nil, nil
	}
	defer func() {
		if r := recover(); r != nil {
			b, err = nil, fmt.Errorf("%w: %d bytes, more than the host can allocate (%v)", ErrShape, n, r)
		}
	}()
	w := make([]uint64, (n-1)/8+1)
	return unsafe.Slice((*byte)(unsafe.Pointer(&w[0])), n), nil
}
