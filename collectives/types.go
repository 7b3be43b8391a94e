package collectives

import (
	"fmt"
	"math"

	"github.com/gour-dev/gour/collectives/internal/nccl"
)

// DataType is the type of the elements a collective moves and reduces.
type DataType uint8

// Data types, as NCCL's ncclDataType_t.
const (
	Int8 DataType = iota + 1
	Uint8
	Int32
	Uint32
	Int64
	Uint64
	Float16 // IEEE 754 half precision
	Float32
	Float64
	BFloat16 // bfloat16: float32's exponent, 7 bits of mantissa
)

var dataTypes = [...]struct {
	name string
	size int
	nccl nccl.DataType
}{
	Int8:     {"int8", 1, nccl.Int8},
	Uint8:    {"uint8", 1, nccl.Uint8},
	Int32:    {"int32", 4, nccl.Int32},
	Uint32:   {"uint32", 4, nccl.Uint32},
	Int64:    {"int64", 8, nccl.Int64},
	Uint64:   {"uint64", 8, nccl.Uint64},
	Float16:  {"float16", 2, nccl.Float16},
	Float32:  {"float32", 4, nccl.Float32},
	Float64:  {"float64", 8, nccl.Float64},
	BFloat16: {"bfloat16", 2, nccl.Bfloat16},
}

func (t DataType) valid() bool { return t >= Int8 && t <= BFloat16 }

// Size is the element size in bytes; 0 for an unknown type.
func (t DataType) Size() int {
	if !t.valid() {
		return 0
	}
	return dataTypes[t].size
}

// String names the type: "float32".
func (t DataType) String() string {
	if !t.valid() {
		return fmt.Sprintf("DataType(%d)", uint8(t))
	}
	return dataTypes[t].name
}

// Op is a reduction.
type Op uint8

// Reductions, as NCCL's ncclRedOp_t. Avg is the sum divided by the
// number of ranks (an integer division for integer types).
const (
	Sum Op = iota + 1
	Prod
	Max
	Min
	Avg
)

var opNames = [...]string{Sum: "sum", Prod: "prod", Max: "max", Min: "min", Avg: "avg"}
var opNCCL = [...]nccl.RedOp{Sum: nccl.Sum, Prod: nccl.Prod, Max: nccl.Max, Min: nccl.Min, Avg: nccl.Avg}

func (o Op) valid() bool { return o >= Sum && o <= Avg }

// String names the reduction: "sum".
func (o Op) String() string {
	if !o.valid() {
		return fmt.Sprintf("Op(%d)", uint8(o))
	}
	return opNames[o]
}

// Half-precision conversions, for the ring's reductions on the host.

// f16ToF32 widens an IEEE 754 binary16 value.
func f16ToF32(h uint16) float32 {
	sign := uint32(h>>15) << 31
	exp := uint32(h>>10) & 0x1f
	man := uint32(h) & 0x3ff
	switch {
	case exp == 0x1f: // inf, NaN
		return math.Float32frombits(sign | 0x7f800000 | man<<13)
	case exp != 0:
		return math.Float32frombits(sign | (exp+112)<<23 | man<<13)
	case man == 0:
		return math.Float32frombits(sign)
	}
	// Subnormal: normalize.
	e := uint32(113)
	for man&0x400 == 0 {
		man <<= 1
		e--
	}
	return math.Float32frombits(sign | e<<23 | (man&0x3ff)<<13)
}

// f32ToF16 narrows to binary16, rounding to nearest even.
func f32ToF16(f float32) uint16 {
	b := math.Float32bits(f)
	sign := uint16(b>>16) & 0x8000
	exp := int32(b>>23) & 0xff
	man := b & 0x7fffff
	if exp == 0xff {
		if man != 0 {
			return sign | 0x7e00
		}
		return sign | 0x7c00
	}
	e := exp - 127 + 15
	if e >= 0x1f {
		return sign | 0x7c00
	}
	if e <= 0 {
		if e < -10 {
			return sign
		}
		man |= 0x800000
		shift := uint32(14 - e)
		half := uint32(1) << (shift - 1)
		r := man >> shift
		rem := man & (1<<shift - 1)
		if rem > half || rem == half && r&1 == 1 {
			r++
		}
		return sign | uint16(r)
	}
	r := uint32(e)<<10 | man>>13
	rem := man & 0x1fff
	if rem > 0x1000 || rem == 0x1000 && r&1 == 1 {
		r++ // may carry into the exponent, up to infinity: correct
	}
	return sign | uint16(r)
}

// bf16ToF32 widens a bfloat16 value.
func bf16ToF32(h uint16) float32 { return math.Float32frombits(uint32(h) << 16) }

// f32ToBF16 narrows to bfloat16, rounding to nearest even.
func f32ToBF16(f float32) uint16 {
	b := math.Float32bits(f)
	if b&0x7fffffff > 0x7f800000 {
		return uint16(b>>16) | 0x40 // quiet NaN
	}
	return uint16((b + 0x7fff + (b>>16)&1) >> 16)
}

// Float16Bits is f as IEEE 754 half precision (rounded to nearest even),
// for filling Float16 buffers from the host.
func Float16Bits(f float32) uint16 { return f32ToF16(f) }

// Float16Value is the value of IEEE 754 half-precision bits.
func Float16Value(h uint16) float32 { return f16ToF32(h) }

// BFloat16Bits is f as bfloat16 (rounded to nearest even).
func BFloat16Bits(f float32) uint16 { return f32ToBF16(f) }

// BFloat16Value is the value of bfloat16 bits.
func BFloat16Value(h uint16) float32 { return bf16ToF32(h) }
