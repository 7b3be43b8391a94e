package gomlx

import (
	"slices"

	gc "github.com/gomlx/compute"
	"github.com/gomlx/compute/shapeinference"
	"github.com/pkg/errors"

	"github.com/gour-dev/gour/compute/expr"
)

// Atan2 implements compute.Function: the device's atan2 (OpenCL C's, or
// CUDA's atan2f and atan2), as a map kernel of the backend's own, since
// compute/expr has no atan2; so it is not fused with the element-wise
// operations around it, and broadcasts by strides of 0. Float dtypes only.
func (f *Function) Atan2(lhs, rhs gc.Value) (gc.Value, error) {
	if err := f.check(); err != nil {
		return nil, err
	}
	ns, err := f.nodesOf(lhs, rhs)
	if err != nil {
		return nil, err
	}
	out, err := shapeinference.BinaryOp(gc.OpTypeAtan2, ns[0].shape, ns[1].shape)
	if err != nil {
		return nil, err
	}
	dt := ns[0].shape.DType
	if !dt.IsFloat() {
		return nil, errors.Errorf("gour backend: Atan2 of %s, want a float", ns[0].shape)
	}
	if err := f.builder.backend.checkDType(dt); err != nil {
		return nil, err
	}
	if out.Rank() > maxCopyRank {
		return nil, notImplemented("Atan2 over %d axes (at most %d)", out.Rank(), maxCopyRank)
	}
	t, _ := storageType(dt)
	dims := slices.Clone(out.Dimensions)
	inDims := [][]int{slices.Clone(ns[0].shape.Dimensions), slices.Clone(ns[1].shape.Dimensions)}
	k := &mapKernel{name: kernelName("atan2", cType("opencl", t)), out: t, ins: []expr.Type{t, t},
		body: func(backend string) string {
			if backend == "cuda" && t == expr.Float32 {
				return "atan2f(x0, x1)"
			}
			return "atan2(x0, x1)"
		}}
	return f.add(&node{op: gc.OpTypeAtan2, shape: out, inputs: ns,
		run: func(b *Backend, sts []store) (store, error) {
			st, err := b.alloc(out)
			if err != nil {
				return nil, err
			}
			if err := b.runMap(k, st, dims, sts, inDims); err != nil {
				_ = st.release()
				return nil, err
			}
			return st, nil
		}}), nil
}
