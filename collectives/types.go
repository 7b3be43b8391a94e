package collectives

import (
	"fmt"

	"github.com/gour-dev/gour/collectives/internal/nccl"
	"github.com/gour-dev/gour/internal/half"
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

// Float16Bits is f as IEEE 754 half precision (rounded to nearest even),
// for filling Float16 buffers from the host.
func Float16Bits(f float32) uint16 { return half.Float16Bits(f) }

// Float16Value is the value of IEEE 754 half-precision bits.
func Float16Value(h uint16) float32 { return half.Float16From(h) }

// BFloat16Bits is f as bfloat16 (rounded to nearest even).
func BFloat16Bits(f float32) uint16 { return half.BFloat16Bits(f) }

// BFloat16Value is the value of bfloat16 bits.
func BFloat16Value(h uint16) float32 { return half.BFloat16From(h) }
