package gomlx

import (
	"strconv"

	gc "github.com/gomlx/compute"
	"github.com/gomlx/compute/shapes"
	"github.com/pkg/errors"
)

// Batch normalization is composed of the backend's own nodes rather than
// kernels of its own: the statistics are ReduceSums over every axis but the
// feature axis (compute.ReduceAxis), and each output is one fused
// element-wise kernel whose per-feature inputs are the [F] vectors reshaped
// to extents of 1 around the feature axis (broadcast by the fused step).
// A dedicated kernel would save little: the reductions are over
// non-consecutive axes (those before and after the feature axis), which
// the row kernels cannot walk, and the element-wise parts fuse anyway.

// batchNormArgs checks batch normalization's operand and its per-feature
// vectors (each [F], F the feature axis's extent, of the operand's float
// dtype), and returns the operand's node, the vectors' nodes reshaped to
// broadcast along the feature axis, the feature axis (made non-negative)
// and the other axes (those the statistics reduce).
func (f *Function) batchNormArgs(op string, operand gc.Value, featureAxis int, vectors ...gc.Value) (
	x *node, bcast []*node, axis int, reduced []int, err error) {
	if err = f.check(); err != nil {
		return
	}
	if x, err = f.nodeOf(operand); err != nil {
		return
	}
	if err = f.floatOperand(op, x); err != nil {
		return
	}
	rank := x.shape.Rank()
	axis = featureAxis
	if axis < 0 {
		axis += rank
	}
	if axis < 0 || axis >= rank {
		err = errors.Errorf("gour backend: %s feature axis %d out of range for %s", op, featureAxis, x.shape)
		return
	}
	features := x.shape.Dimensions[axis]
	bdims := make([]int, rank)
	for a := range bdims {
		bdims[a] = 1
	}
	bdims[axis] = features
	for _, v := range vectors {
		var vn *node
		if vn, err = f.nodeOf(v); err != nil {
			return
		}
		if vn.shape.DType != x.shape.DType || vn.shape.Rank() != 1 || vn.shape.Dimensions[0] != features {
			err = errors.Errorf("gour backend: %s of a per-feature %s for an operand %s (feature axis %d)", op, vn.shape, x.shape, axis)
			return
		}
		bcast = append(bcast, f.aliasNode(gc.OpTypeReshape, shapes.Make(x.shape.DType, bdims...), vn))
	}
	for a := range rank {
		if a != axis {
			reduced = append(reduced, a)
		}
	}
	return
}

// featureSum is v summed over the reduced axes: a [F] vector (v itself,
// reshaped, where no axis is reduced: ReduceSum of no axes reduces them
// all).
func (f *Function) featureSum(v gc.Value, reduced []int, features int) (*node, error) {
	n, err := f.nodeOf(v)
	if err != nil {
		return nil, err
	}
	if len(reduced) == 0 {
		return f.aliasNode(gc.OpTypeReshape, shapes.Make(n.shape.DType, features), n), nil
	}
	s, err := f.ReduceSum(n, reduced...)
	if err != nil {
		return nil, err
	}
	return s.(*node), nil
}

// broadcastFeature reshapes a [F] node to broadcast along axis of x.
func (f *Function) broadcastFeature(v *node, x *node, axis int) *node {
	dims := make([]int, x.shape.Rank())
	for a := range dims {
		dims[a] = 1
	}
	dims[axis] = x.shape.Dimensions[axis]
	return f.aliasNode(gc.OpTypeReshape, shapes.Make(x.shape.DType, dims...), v)
}

// exprFloat is v as a literal of compute/expr (typed by the expression it
// is in).
func exprFloat(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// BatchNormForInference implements compute.Function: (x - mean) ·
// rsqrt(variance + ε) · scale + offset along featureAxis, one fused
// kernel.
func (f *Function) BatchNormForInference(operand, scale, offset, mean, variance gc.Value, epsilon float32, featureAxis int) (gc.Value, error) {
	x, bc, _, _, err := f.batchNormArgs("BatchNormForInference", operand, featureAxis, scale, offset, mean, variance)
	if err != nil {
		return nil, err
	}
	eps := exprFloat(float64(epsilon))
	return f.ewNode(gc.OpTypeBatchNormForInference, x.shape.Clone(), []*node{x, bc[0], bc[1], bc[2], bc[3]},
		func(in []string) string {
			return "(" + in[0] + " - " + in[3] + ") * rsqrt(" + in[4] + " + " + eps + ") * " + in[1] + " + " + in[2]
		})
}

// BatchNormForTraining implements compute.Function: the batch's mean and
// (biased) variance per feature are ReduceSums of x and of its squared
// deviations, and the output one fused kernel of them.
func (f *Function) BatchNormForTraining(operand, scale, offset gc.Value, epsilon float32, featureAxis int) (
	normalized, batchMean, batchVariance gc.Value, err error) {
	x, bc, axis, reduced, err := f.batchNormArgs("BatchNormForTraining", operand, featureAxis, scale, offset)
	if err != nil {
		return nil, nil, nil, err
	}
	if x.shape.IsDynamic() {
		v := featureShape(x.shape, axis)
		ins := append([]*node{x}, bc...)
		return f.pending(gc.OpTypeBatchNormForTraining, x.shape.Clone(), ins...),
			f.pending(gc.OpTypeBatchNormForTraining, v, ins...), f.pending(gc.OpTypeBatchNormForTraining, v, ins...), nil
	}
	features := x.shape.Dimensions[axis]
	inv := exprFloat(1 / float64(max(x.shape.Size()/max(features, 1), 1)))
	vshape := shapes.Make(x.shape.DType, features)
	sum, err := f.featureSum(x, reduced, features)
	if err != nil {
		return nil, nil, nil, err
	}
	mean, err := f.ewNode(gc.OpTypeMul, vshape, []*node{sum}, func(in []string) string { return in[0] + " * " + inv })
	if err != nil {
		return nil, nil, nil, err
	}
	dev, err := f.ewNode(gc.OpTypeSub, x.shape.Clone(), []*node{x, f.broadcastFeature(mean.(*node), x, axis)},
		func(in []string) string { return in[0] + " - " + in[1] })
	if err != nil {
		return nil, nil, nil, err
	}
	sq, err := f.ewNode(gc.OpTypeMul, x.shape.Clone(), []*node{dev.(*node)}, func(in []string) string { return in[0] + " * " + in[0] })
	if err != nil {
		return nil, nil, nil, err
	}
	sqSum, err := f.featureSum(sq, reduced, features)
	if err != nil {
		return nil, nil, nil, err
	}
	variance, err := f.ewNode(gc.OpTypeMul, vshape, []*node{sqSum}, func(in []string) string { return in[0] + " * " + inv })
	if err != nil {
		return nil, nil, nil, err
	}
	eps := exprFloat(float64(epsilon))
	normalized, err = f.ewNode(gc.OpTypeBatchNormForTraining, x.shape.Clone(),
		[]*node{dev.(*node), f.broadcastFeature(variance.(*node), x, axis), bc[0], bc[1]},
		func(in []string) string {
			return in[0] + " * rsqrt(" + in[1] + " + " + eps + ") * " + in[2] + " + " + in[3]
		})
	if err != nil {
		return nil, nil, nil, err
	}
	return normalized, mean, variance, nil
}

// BatchNormGradient implements compute.Function (XLA's BatchNormGrad), with
// x̂ = (x - mean)·rsqrt(variance + ε) and N the elements per feature:
// gradOffset = Σ dy, gradScale = Σ dy·x̂, and gradOperand =
// scale·rsqrt(variance + ε)·(dy - gradOffset/N - x̂·gradScale/N).
func (f *Function) BatchNormGradient(operand, scale, mean, variance, gradOutput gc.Value, epsilon float32, featureAxis int) (
	gradOperand, gradScale, gradOffset gc.Value, err error) {
	x, bc, axis, reduced, err := f.batchNormArgs("BatchNormGradient", operand, featureAxis, scale, mean, variance)
	if err != nil {
		return nil, nil, nil, err
	}
	dy, err := f.nodeOf(gradOutput)
	if err != nil {
		return nil, nil, nil, err
	}
	if !dy.shape.Equal(x.shape) {
		return nil, nil, nil, errors.Errorf("gour backend: BatchNormGradient of a gradient %s for an operand %s", dy.shape, x.shape)
	}
	if x.shape.IsDynamic() {
		v := featureShape(x.shape, axis)
		ins := append([]*node{x, dy}, bc...)
		return f.pending(gc.OpTypeBatchNormGradient, x.shape.Clone(), ins...),
			f.pending(gc.OpTypeBatchNormGradient, v, ins...), f.pending(gc.OpTypeBatchNormGradient, v, ins...), nil
	}
	features := x.shape.Dimensions[axis]
	inv := exprFloat(1 / float64(max(x.shape.Size()/max(features, 1), 1)))
	eps := exprFloat(float64(epsilon))
	xhat, err := f.ewNode(gc.OpTypeBatchNormGradient, x.shape.Clone(), []*node{x, bc[1], bc[2]},
		func(in []string) string {
			return "(" + in[0] + " - " + in[1] + ") * rsqrt(" + in[2] + " + " + eps + ")"
		})
	if err != nil {
		return nil, nil, nil, err
	}
	dyXhat, err := f.ewNode(gc.OpTypeMul, x.shape.Clone(), []*node{dy, xhat.(*node)},
		func(in []string) string { return in[0] + " * " + in[1] })
	if err != nil {
		return nil, nil, nil, err
	}
	gOffset, err := f.featureSum(dy, reduced, features)
	if err != nil {
		return nil, nil, nil, err
	}
	gScale, err := f.featureSum(dyXhat, reduced, features)
	if err != nil {
		return nil, nil, nil, err
	}
	gradOperand, err = f.ewNode(gc.OpTypeBatchNormGradient, x.shape.Clone(),
		[]*node{dy, xhat.(*node), bc[0], bc[2], f.broadcastFeature(gOffset, x, axis), f.broadcastFeature(gScale, x, axis)},
		func(in []string) string {
			return in[2] + " * rsqrt(" + in[3] + " + " + eps + ") * (" + in[0] + " - " + in[4] + " * " + inv +
				" - " + in[1] + " * " + in[5] + " * " + inv + ")"
		})
	if err != nil {
		return nil, nil, nil, err
	}
	return gradOperand, gScale, gOffset, nil
}

// featureShape is the shape of a batch norm's per-feature vectors: the
// feature axis of x, dynamic (and named) where it is.
func featureShape(x shapes.Shape, axis int) shapes.Shape {
	if x.IsAxisDynamic(axis) {
		return shapes.MakeDynamic(x.DType, []int{shapes.DynamicDim}, []string{x.AxisName(axis)})
	}
	return shapes.Make(x.DType, x.Dimensions[axis])
}
