package gomlx

import (
	"fmt"

	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/compute/dtypes/bfloat16"
	"github.com/gomlx/compute/dtypes/float16"
	"github.com/pkg/errors"

	"github.com/gour-dev/gour/compute"
	"github.com/gour-dev/gour/compute/expr"
	"github.com/gour-dev/gour/ur"
)

// storageType is the element type a GoMLX dtype is kept in on the device:
// the six numeric types of compute/expr as they are, Int8 and Int16 as an
// int32, Uint8 and Uint16 as a uint32 (wrapped to their width after each
// operation: wrapNarrow), and Bool as a uint32 0 or 1 (compute's arrays
// and expr's kernels have no byte or short types).
func storageType(dt dtypes.DType) (expr.Type, bool) {
	switch dt {
	case dtypes.Float32, dtypes.Float16, dtypes.BFloat16:
		return expr.Float32, true
	case dtypes.Float64:
		return expr.Float64, true
	case dtypes.Int32, dtypes.Int8, dtypes.Int16:
		return expr.Int32, true
	case dtypes.Uint32, dtypes.Uint8, dtypes.Uint16:
		return expr.Uint32, true
	case dtypes.Int64:
		return expr.Int64, true
	case dtypes.Uint64:
		return expr.Uint64, true
	case dtypes.Bool:
		return expr.Uint32, true
	}
	return 0, false
}

// elemSize is the size in bytes of a storage type's element.
func elemSize(t expr.Type) int {
	switch t {
	case expr.Float64, expr.Int64, expr.Uint64:
		return 8
	}
	return 4
}

// store is the device storage of one value: a compute.Array of the
// storage type, with as many elements as the value (its compute shape may
// differ from the GoMLX one: a reshape shares the array).
type store interface {
	arg(mode compute.Access) (ur.Arg, error)
	release() error
	len() int
	typ() expr.Type
	dims() []int
}

type arrStore[T compute.Number] struct {
	a *compute.Array[T]
	t expr.Type
}

func (s *arrStore[T]) arg(mode compute.Access) (ur.Arg, error) { return s.a.Arg(mode) }
func (s *arrStore[T]) release() error                          { return s.a.Release() }
func (s *arrStore[T]) len() int                                { return s.a.Len() }
func (s *arrStore[T]) typ() expr.Type                          { return s.t }
func (s *arrStore[T]) dims() []int                             { return s.a.Shape() }

// arrayDims is the compute shape of an array of a GoMLX shape: its
// dimensions, with a scalar as compute's scalar (no dimensions).
func arrayDims(dims []int) []int { return append([]int(nil), dims...) }

// newStore allocates uninitialized (zeroed, on the device, with no
// transfer) storage of type t and the given dimensions.
func newStore(ctx *compute.Device, t expr.Type, dims []int) (store, error) {
	d := arrayDims(dims)
	switch t {
	case expr.Float32:
		return zeros[float32](ctx, t, d)
	case expr.Float64:
		return zeros[float64](ctx, t, d)
	case expr.Int32:
		return zeros[int32](ctx, t, d)
	case expr.Uint32:
		return zeros[uint32](ctx, t, d)
	case expr.Int64:
		return zeros[int64](ctx, t, d)
	case expr.Uint64:
		return zeros[uint64](ctx, t, d)
	}
	return nil, fmt.Errorf("gour backend: no storage of type %v", t)
}

func zeros[T compute.Number](ctx *compute.Device, t expr.Type, dims []int) (store, error) {
	a, err := compute.Zeros[T](ctx, dims...)
	if err != nil {
		return nil, err
	}
	return &arrStore[T]{a: a, t: t}, nil
}

func fromSlice[T compute.Number](ctx *compute.Device, t expr.Type, data []T, dims []int) (store, error) {
	a, err := compute.FromSlice(ctx, data, dims...)
	if err != nil {
		return nil, err
	}
	return &arrStore[T]{a: a, t: t}, nil
}

// storeFromFlat copies flat, a Go slice of dt's Go type, into new storage
// of the given dimensions. The copy is on the host until a kernel reads it.
func storeFromFlat(ctx *compute.Device, dt dtypes.DType, flat any, dims []int) (store, error) {
	d := arrayDims(dims)
	switch v := flat.(type) {
	case []float32:
		if dt == dtypes.Float32 {
			return fromSlice(ctx, expr.Float32, v, d)
		}
	case []float16.Float16:
		if dt == dtypes.Float16 {
			return fromSlice(ctx, expr.Float32, halfToF32(v), d)
		}
	case []bfloat16.BFloat16:
		if dt == dtypes.BFloat16 {
			return fromSlice(ctx, expr.Float32, halfToF32(v), d)
		}
	case []float64:
		if dt == dtypes.Float64 {
			return fromSlice(ctx, expr.Float64, v, d)
		}
	case []int32:
		if dt == dtypes.Int32 {
			return fromSlice(ctx, expr.Int32, v, d)
		}
	case []uint32:
		if dt == dtypes.Uint32 {
			return fromSlice(ctx, expr.Uint32, v, d)
		}
	case []int64:
		if dt == dtypes.Int64 {
			return fromSlice(ctx, expr.Int64, v, d)
		}
	case []uint64:
		if dt == dtypes.Uint64 {
			return fromSlice(ctx, expr.Uint64, v, d)
		}
	case []int8:
		if dt == dtypes.Int8 {
			return fromSlice(ctx, expr.Int32, widen[int32](v), d)
		}
	case []int16:
		if dt == dtypes.Int16 {
			return fromSlice(ctx, expr.Int32, widen[int32](v), d)
		}
	case []uint8:
		if dt == dtypes.Uint8 {
			return fromSlice(ctx, expr.Uint32, widen[uint32](v), d)
		}
	case []uint16:
		if dt == dtypes.Uint16 {
			return fromSlice(ctx, expr.Uint32, widen[uint32](v), d)
		}
	case []bool:
		if dt == dtypes.Bool {
			u := make([]uint32, len(v))
			for i, b := range v {
				if b {
					u[i] = 1
				}
			}
			return fromSlice(ctx, expr.Uint32, u, d)
		}
	}
	return nil, errors.Errorf("gour backend: flat data of type %T does not hold %s", flat, dt)
}

// storeToFlat downloads s (waiting for the work that writes it) into flat,
// a Go slice of dt's Go type of exactly s's length.
func storeToFlat(s store, dt dtypes.DType, flat any) error {
	switch st := s.(type) {
	case *arrStore[float32]:
		switch dt {
		case dtypes.Float16:
			return downloadInto(st.a, flat, float16.FromFloat32)
		case dtypes.BFloat16:
			return downloadInto(st.a, flat, bfloat16.FromFloat32)
		}
		return copyOut(st.a, flat)
	case *arrStore[float64]:
		return copyOut(st.a, flat)
	case *arrStore[int32]:
		switch dt {
		case dtypes.Int8:
			return narrowOut[int8](st.a, flat)
		case dtypes.Int16:
			return narrowOut[int16](st.a, flat)
		}
		return copyOut(st.a, flat)
	case *arrStore[int64]:
		return copyOut(st.a, flat)
	case *arrStore[uint64]:
		return copyOut(st.a, flat)
	case *arrStore[uint32]:
		switch dt {
		case dtypes.Uint8:
			return narrowOut[uint8](st.a, flat)
		case dtypes.Uint16:
			return narrowOut[uint16](st.a, flat)
		case dtypes.Uint32:
			return copyOut(st.a, flat)
		}
		dst, ok := flat.([]bool)
		if !ok {
			return errors.Errorf("gour backend: ToFlatData of a %s buffer into a %T", dt, flat)
		}
		src, err := st.a.ToSlice()
		if err != nil {
			return err
		}
		if len(src) != len(dst) {
			return errors.Errorf("gour backend: ToFlatData into %d elements, the buffer has %d", len(dst), len(src))
		}
		for i, u := range src {
			dst[i] = u != 0
		}
		return nil
	}
	return errors.Errorf("gour backend: unknown storage %T", s)
}

func copyOut[T compute.Number](a *compute.Array[T], flat any) error {
	dst, ok := flat.([]T)
	if !ok {
		var zero T
		return errors.Errorf("gour backend: ToFlatData of a buffer of %T into a %T", zero, flat)
	}
	if len(dst) != a.Len() {
		return errors.Errorf("gour backend: ToFlatData into %d elements, the buffer has %d", len(dst), a.Len())
	}
	src, err := a.ToSlice() // Host would mark the device copy stale
	if err != nil {
		return err
	}
	copy(dst, src)
	return nil
}

// half is a 16-bit float of package dtypes, kept as a float32 on the
// device.
type half interface {
	float16.Float16 | bfloat16.BFloat16
	Float32() float32
}

// halfToF32 widens half floats to their storage.
func halfToF32[H half](v []H) []float32 {
	w := make([]float32, len(v))
	for i, x := range v {
		w[i] = x.Float32()
	}
	return w
}

// downloadInto downloads a's elements into flat, a []D, each converted
// by conv: a half float rounded, a narrow integer cut to its width.
func downloadInto[S compute.Number, D any](a *compute.Array[S], flat any, conv func(S) D) error {
	dst, ok := flat.([]D)
	if !ok {
		var zero D
		return errors.Errorf("gour backend: ToFlatData of a buffer of %T into a %T", zero, flat)
	}
	src, err := a.ToSlice()
	if err != nil {
		return err
	}
	if len(src) != len(dst) {
		return errors.Errorf("gour backend: ToFlatData into %d elements, the buffer has %d", len(dst), len(src))
	}
	for i, x := range src {
		dst[i] = conv(x)
	}
	return nil
}

type integer interface {
	~int8 | ~int16 | ~int32 | ~uint8 | ~uint16 | ~uint32
}

// widen converts narrow integers to their storage type.
func widen[W, N integer](v []N) []W {
	w := make([]W, len(v))
	for i, x := range v {
		w[i] = W(x)
	}
	return w
}

// narrowOut downloads a's elements into flat, a []N, converting them.
func narrowOut[N integer, W int32 | uint32](a *compute.Array[W], flat any) error {
	return downloadInto(a, flat, func(x W) N { return N(x) })
}

// wrapNarrow wraps x, an expression of a narrow integer dtype's storage
// type, to the dtype's range (as the dtype's own arithmetic would wrap);
// other dtypes are returned as they are.
func wrapNarrow(x string, dt dtypes.DType) string {
	switch dt {
	case dtypes.Int8:
		return "((((" + x + ") + 128) % 256 + 256) % 256 - 128)"
	case dtypes.Int16:
		return "((((" + x + ") + 32768) % 65536 + 65536) % 65536 - 32768)"
	case dtypes.Uint8:
		return "((" + x + ") % 256)"
	case dtypes.Uint16:
		return "((" + x + ") % 65536)"
	}
	return x
}
