package gomlx

import (
	gc "github.com/gomlx/compute"
	"github.com/gomlx/compute/dtypes"
)

// implementedOps are the operations the backend implements, for the
// dtypes of capabilities (element-wise operations of float-only math on
// the float dtypes only, as shapeinference requires); doc.go says which
// configurations of an operation are ErrNotImplemented.
var implementedOps = []gc.OpType{
	gc.OpTypeParameter, gc.OpTypeConstant, gc.OpTypeIdentity, gc.OpTypeCall,
	// Element-wise, fused into compute/expr kernels.
	gc.OpTypeAbs, gc.OpTypeNeg, gc.OpTypeSign,
	gc.OpTypeExp, gc.OpTypeExpm1, gc.OpTypeLog, gc.OpTypeLog1p,
	gc.OpTypeCeil, gc.OpTypeFloor, gc.OpTypeRound,
	gc.OpTypeErf, gc.OpTypeRsqrt, gc.OpTypeSqrt, gc.OpTypeCos, gc.OpTypeSin, gc.OpTypeTanh, gc.OpTypeLogistic,
	gc.OpTypeIsFinite, gc.OpTypeIsNaN, gc.OpTypeLogicalNot,
	gc.OpTypeAdd, gc.OpTypeSub, gc.OpTypeMul, gc.OpTypeDiv, gc.OpTypeRem, gc.OpTypePow,
	gc.OpTypeMax, gc.OpTypeMin,
	gc.OpTypeEqual, gc.OpTypeNotEqual, gc.OpTypeGreaterOrEqual, gc.OpTypeGreaterThan,
	gc.OpTypeLessOrEqual, gc.OpTypeLessThan,
	gc.OpTypeLogicalAnd, gc.OpTypeLogicalOr, gc.OpTypeLogicalXor,
	gc.OpTypeWhere, gc.OpTypeClamp, gc.OpTypeConvertDType,
	// Bitwise, a map kernel of the backend's own each (not fused).
	gc.OpTypeBitwiseAnd, gc.OpTypeBitwiseOr, gc.OpTypeBitwiseXor, gc.OpTypeBitwiseNot,
	gc.OpTypeShiftLeft, gc.OpTypeShiftRightArithmetic, gc.OpTypeShiftRightLogical,
	gc.OpTypeBitCount, gc.OpTypeClz,
	// The device's atan2, a map kernel (compute/expr has none).
	gc.OpTypeAtan2,
	// Data movement: one strided copy kernel.
	gc.OpTypeReshape, gc.OpTypeTranspose, gc.OpTypeBroadcastInDim, gc.OpTypeSlice,
	gc.OpTypeReverse, gc.OpTypeConcatenate, gc.OpTypePad, gc.OpTypeIota,
	gc.OpTypeOptimizationBarrier, gc.OpTypeSchedulingBarrier,
	// compute.ReduceAxis.
	gc.OpTypeReduceSum, gc.OpTypeReduceProduct, gc.OpTypeReduceMax, gc.OpTypeReduceMin,
	gc.OpTypeReduceLogicalAnd, gc.OpTypeReduceLogicalOr, gc.OpTypeReduceLogicalXor,
	// Axis kernels of the backend's own: one work-item per row.
	gc.OpTypeArgMinMax, gc.OpTypeCumSum, gc.OpTypeCumMax,
	gc.OpTypeReduceBitwiseAnd, gc.OpTypeReduceBitwiseOr, gc.OpTypeReduceBitwiseXor,
	// A kernel generated per configuration.
	gc.OpTypeGather,
	// compute.MatMulWith (package blas).
	gc.OpTypeDotGeneral,
	// Fused: row kernels (a work-group per row), element-wise nodes, GEMMs.
	gc.OpTypeFusedSoftmax, gc.OpTypeFusedLayerNorm, gc.OpTypeFusedLayerNormVJP,
	gc.OpTypeFusedActivation, gc.OpTypeFusedActivationVJP,
	gc.OpTypeFusedDense, gc.OpTypeFusedScaledDotProductAttention, gc.OpTypeFusedAttentionQKVProjection,
	gc.OpTypeFusedQuantizedDense, gc.OpTypeFusedQuantizedDenseVJP, gc.OpTypeQuantizedGather,
	// Kernels generated per configuration (RNG: per algorithm).
	gc.OpTypeConvGeneral, gc.OpTypeRNGBitGenerator,
	gc.OpTypeReduceWindow, gc.OpTypeSelectAndScatterMax, gc.OpTypeSelectAndScatterMin,
	// One work-group over the updates in order.
	gc.OpTypeScatterSum, gc.OpTypeScatterMax, gc.OpTypeScatterMin,
	// An element per work-item.
	gc.OpTypeDynamicSlice, gc.OpTypeDynamicUpdateSlice, gc.OpTypeBitcast,
	// Dimensions from values: constants, or the static operation in a
	// replay (ops_dynshape.go).
	gc.OpTypeDynamicShape, gc.OpTypeDynamicDimensionSize, gc.OpTypeDynamicReshape,
	gc.OpTypeDynamicBroadcastInDim, gc.OpTypeDynamicIota, gc.OpTypeDynamicPad,
	// Run up to its operand in a replay, the coordinates a constant.
	gc.OpTypeNonZero,
	// Sorting a row per work-item, the comparator translated into C.
	gc.OpTypeSort,
	// Composed of reductions and fused element-wise kernels.
	gc.OpTypeBatchNormForInference, gc.OpTypeBatchNormForTraining, gc.OpTypeBatchNormGradient,
	// Selection by k passes over each row, then a gather of the values.
	gc.OpTypeFusedTopK,
}

// capabilities are what the backend declares: float64 where the device
// has double precision.
func capabilities(fp64 bool) gc.Capabilities {
	c := gc.Capabilities{
		Operations: map[gc.OpType]bool{},
		DTypes: map[dtypes.DType]bool{
			dtypes.Float32: true, dtypes.Int32: true, dtypes.Uint32: true,
			dtypes.Int64: true, dtypes.Uint64: true, dtypes.Bool: true,
			dtypes.Int8: true, dtypes.Int16: true, dtypes.Uint8: true, dtypes.Uint16: true,
			dtypes.Float16: true, dtypes.BFloat16: true,
		},
	}
	if fp64 {
		c.DTypes[dtypes.Float64] = true
	}
	c.RNGAlgorithms = map[gc.RNGAlgorithm]bool{}
	for _, a := range rngAlgorithms {
		c.RNGAlgorithms[a] = true
	}
	c.DefaultRNGAlgorithm = gc.RNGPhilox
	c.Functions = true
	// Graphs of dynamic axes are planned again per tuple of input shapes
	// (dynamic.go).
	c.DynamicShapes = gc.DynamicShapesRecompiling
	c.DynamicDimDType = dimDType
	for _, op := range implementedOps {
		c.Operations[op] = true
	}
	return c
}
