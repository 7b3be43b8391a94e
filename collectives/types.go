package collectives

import (
	"fmt"

	"github.com/gour-dev/gour/collectives/internal/nccl"
	"github.com/gour-dev/gour/dtype"
)

// ncclTypes is NCCL's name of each element type; every dtype.Type is one
// a collective moves and reduces.
var ncclTypes = [...]nccl.DataType{
	dtype.Int8:     nccl.Int8,
	dtype.Uint8:    nccl.Uint8,
	dtype.Int32:    nccl.Int32,
	dtype.Uint32:   nccl.Uint32,
	dtype.Int64:    nccl.Int64,
	dtype.Uint64:   nccl.Uint64,
	dtype.Float16:  nccl.Float16,
	dtype.Float32:  nccl.Float32,
	dtype.Float64:  nccl.Float64,
	dtype.BFloat16: nccl.Bfloat16,
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
