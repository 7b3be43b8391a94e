package compute

import (
	"fmt"
	"unsafe"
)

// Number is an element type of an Array: the types every backend has a C
// type for.
type Number interface {
	~float32 | ~float64 | ~int32 | ~uint32 | ~int64 | ~uint64
}

// elemType describes an element type to the untyped parts of the package:
// its size, its name in OpenCL C and CUDA C, and the suffix of the
// built-in kernels' names.
type elemType struct {
	size   int
	cl, cu string
	suffix string
	fp64   bool // needs double precision on the device
}

var (
	typeF32 = &elemType{4, "float", "float", "f32", false}
	typeF64 = &elemType{8, "double", "double", "f64", true}
	typeI32 = &elemType{4, "int", "int", "i32", false}
	typeU32 = &elemType{4, "uint", "unsigned int", "u32", false}
	typeI64 = &elemType{8, "long", "long long", "i64", false}
	typeU64 = &elemType{8, "ulong", "unsigned long long", "u64", false}
)

// typeOf returns the elemType of T. The switch is on the underlying type:
// a named type (type Meters float64) is its underlying type on a device.
func typeOf[T Number]() *elemType {
	var z T
	switch any(z).(type) {
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
	// A named type: decide by kind through a conversion probe.
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
func bytesOf[T Number](s []T) []byte {
	if len(s) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&s[0])), len(s)*int(unsafe.Sizeof(s[0])))
}

// viewOf views b, aligned for T, as a []T of n elements.
func viewOf[T Number](b []byte, n int) []T {
	if n == 0 {
		return nil
	}
	return unsafe.Slice((*T)(unsafe.Pointer(&b[0])), n)
}

// alignedBytes returns n zero bytes aligned for any Number (the backing
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
