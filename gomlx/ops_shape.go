package gomlx

import (
	"slices"

	gc "github.com/gomlx/compute"
	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/compute/dtypes/bfloat16"
	"github.com/gomlx/compute/dtypes/float16"
	"github.com/gomlx/compute/shapeinference"
	"github.com/gomlx/compute/shapes"
	"github.com/pkg/errors"
)

// gatherNode adds a node whose output element at coordinates c is its
// input's element soff + Σ c_k·ss_k: one strided copy kernel.
func (f *Function) gatherNode(op gc.OpType, out shapes.Shape, in *node, soff int, ss []int) *node {
	dims := slices.Clone(out.Dimensions)
	return f.add(&node{op: op, shape: out, inputs: []*node{in},
		run: func(b *Backend, ins []store) (store, error) {
			st, err := b.alloc(out)
			if err != nil {
				return nil, err
			}
			if err := b.stridedCopy(st, ins[0], dims, 0, soff, rowMajorStrides(dims), ss); err != nil {
				_ = st.release()
				return nil, err
			}
			return st, nil
		}})
}

// alloc allocates the storage of a value of shape s.
func (b *Backend) alloc(s shapes.Shape) (store, error) {
	t, err := dtypeStorage(s.DType)
	if err != nil {
		return nil, err
	}
	return newStore(b.ctx, t, s.Dimensions)
}

func (f *Function) aliasNode(op gc.OpType, out shapes.Shape, in *node) *node {
	return f.add(&node{op: op, shape: out, inputs: []*node{in}, alias: true})
}

// Identity implements compute.Function: the same storage.
func (f *Function) Identity(x gc.Value) (gc.Value, error) {
	if err := f.check(); err != nil {
		return nil, err
	}
	n, err := f.nodeOf(x)
	if err != nil {
		return nil, err
	}
	return f.aliasNode(gc.OpTypeIdentity, n.shape.Clone(), n), nil
}

// OptimizationBarrier implements compute.Function: the operands, as they
// are (the plan runs in the graph's order anyway).
func (f *Function) OptimizationBarrier(operands ...gc.Value) ([]gc.Value, error) {
	if err := f.check(); err != nil {
		return nil, err
	}
	ns, err := f.nodesOf(operands...)
	if err != nil {
		return nil, err
	}
	out := make([]gc.Value, len(ns))
	for i, n := range ns {
		out[i] = f.aliasNode(gc.OpTypeOptimizationBarrier, n.shape.Clone(), n)
	}
	return out, nil
}

// SchedulingBarrier implements compute.Function: the operand's storage,
// after its dependencies (the plan runs in the graph's order, and the
// node's inputs keep them alive until it runs).
func (f *Function) SchedulingBarrier(operand gc.Value, dependencies ...gc.Value) (gc.Value, error) {
	if err := f.check(); err != nil {
		return nil, err
	}
	ns, err := f.nodesOf(append([]gc.Value{operand}, dependencies...)...)
	if err != nil {
		return nil, err
	}
	return f.add(&node{op: gc.OpTypeSchedulingBarrier, shape: ns[0].shape.Clone(), inputs: ns, alias: true}), nil
}

// Reshape implements compute.Function: the same storage, no copy.
func (f *Function) Reshape(x gc.Value, dimensions ...int) (gc.Value, error) {
	if err := f.check(); err != nil {
		return nil, err
	}
	n, err := f.nodeOf(x)
	if err != nil {
		return nil, err
	}
	out, err := shapeinference.Reshape(n.shape, dimensions)
	if err != nil {
		return nil, err
	}
	return f.aliasNode(gc.OpTypeReshape, out, n), nil
}

// Transpose implements compute.Function.
func (f *Function) Transpose(x gc.Value, permutation ...int) (gc.Value, error) {
	if err := f.check(); err != nil {
		return nil, err
	}
	n, err := f.nodeOf(x)
	if err != nil {
		return nil, err
	}
	out, err := shapeinference.Transpose(n.shape, permutation)
	if err != nil {
		return nil, err
	}
	in := rowMajorStrides(n.shape.Dimensions)
	ss := make([]int, len(permutation))
	for i, p := range permutation {
		ss[i] = in[p]
	}
	return f.gatherNode(gc.OpTypeTranspose, out, n, 0, ss), nil
}

// BroadcastInDim implements compute.Function.
func (f *Function) BroadcastInDim(operand gc.Value, outputShape shapes.Shape, broadcastAxes []int) (gc.Value, error) {
	if err := f.check(); err != nil {
		return nil, err
	}
	n, err := f.nodeOf(operand)
	if err != nil {
		return nil, err
	}
	if err := shapeinference.BroadcastInDim(n.shape, outputShape, broadcastAxes, f.knownAxes()); err != nil {
		return nil, err
	}
	out := outputShape.Clone()
	out.DType = n.shape.DType
	if out.IsDynamic() || n.shape.IsDynamic() {
		return f.pending(gc.OpTypeBroadcastInDim, out, n), nil
	}
	in := rowMajorStrides(n.shape.Dimensions)
	ss := make([]int, out.Rank())
	for j, axis := range broadcastAxes {
		if n.shape.Dimensions[j] == out.Dimensions[axis] {
			ss[axis] = in[j]
		}
	}
	return f.gatherNode(gc.OpTypeBroadcastInDim, out, n, 0, ss), nil
}

// Slice implements compute.Function.
func (f *Function) Slice(x gc.Value, starts, limits, strides []int) (gc.Value, error) {
	if err := f.check(); err != nil {
		return nil, err
	}
	n, err := f.nodeOf(x)
	if err != nil {
		return nil, err
	}
	out, err := shapeinference.Slice(n.shape, starts, limits, strides)
	if err != nil {
		return nil, err
	}
	in := rowMajorStrides(n.shape.Dimensions)
	ss := make([]int, len(in))
	soff := 0
	for i := range in {
		st := 1
		if len(strides) > 0 {
			st = strides[i]
		}
		ss[i] = in[i] * st
		soff += starts[i] * in[i]
	}
	return f.gatherNode(gc.OpTypeSlice, out, n, soff, ss), nil
}

// Reverse implements compute.Function.
func (f *Function) Reverse(x gc.Value, axes ...int) (gc.Value, error) {
	if err := f.check(); err != nil {
		return nil, err
	}
	n, err := f.nodeOf(x)
	if err != nil {
		return nil, err
	}
	in := rowMajorStrides(n.shape.Dimensions)
	ss := slices.Clone(in)
	soff := 0
	for _, a := range axes {
		if a < 0 || a >= n.shape.Rank() {
			return nil, errors.Errorf("gour backend: Reverse axis %d of %s", a, n.shape)
		}
		if ss[a] < 0 {
			return nil, errors.Errorf("gour backend: Reverse axis %d given twice", a)
		}
		ss[a] = -in[a]
		if d := n.shape.Dimensions[a]; d > 0 {
			soff += (d - 1) * in[a]
		}
	}
	return f.gatherNode(gc.OpTypeReverse, n.shape.Clone(), n, soff, ss), nil
}

// Concatenate implements compute.Function: a strided copy per operand
// into its place in the output.
func (f *Function) Concatenate(axis int, operands ...gc.Value) (gc.Value, error) {
	if err := f.check(); err != nil {
		return nil, err
	}
	ns, err := f.nodesOf(operands...)
	if err != nil {
		return nil, err
	}
	ins := make([]shapes.Shape, len(ns))
	for i, n := range ns {
		ins[i] = n.shape
	}
	out, err := shapeinference.Concatenate(ins, axis)
	if err != nil {
		return nil, err
	}
	if len(ns) == 1 {
		return f.aliasNode(gc.OpTypeConcatenate, out, ns[0]), nil
	}
	dims := slices.Clone(out.Dimensions)
	return f.add(&node{op: gc.OpTypeConcatenate, shape: out, inputs: ns,
		run: func(b *Backend, sts []store) (store, error) {
			st, err := b.alloc(out)
			if err != nil {
				return nil, err
			}
			ds := rowMajorStrides(dims)
			off := 0
			for i, in := range sts {
				idims := ns[i].shape.Dimensions
				if err := b.stridedCopy(st, in, idims, off*ds[axis], 0, ds, rowMajorStrides(idims)); err != nil {
					_ = st.release()
					return nil, err
				}
				off += idims[axis]
			}
			return st, nil
		}}), nil
}

// Pad implements compute.Function: the output filled with fillValue (a
// copy of stride 0), then the operand copied to its places (negative
// padding crops).
func (f *Function) Pad(x, fillValue gc.Value, axesConfig ...gc.PadAxis) (gc.Value, error) {
	if err := f.check(); err != nil {
		return nil, err
	}
	ns, err := f.nodesOf(x, fillValue)
	if err != nil {
		return nil, err
	}
	if !ns[1].shape.IsScalar() || ns[1].shape.DType != ns[0].shape.DType {
		return nil, errors.Errorf("gour backend: Pad of %s with fill value %s, want a scalar of the same dtype", ns[0].shape, ns[1].shape)
	}
	out, err := shapeinference.Pad(ns[0].shape, axesConfig...)
	if err != nil {
		return nil, err
	}
	idims := slices.Clone(ns[0].shape.Dimensions)
	odims := slices.Clone(out.Dimensions)
	rank := len(idims)
	cfg := make([]gc.PadAxis, rank)
	copy(cfg, axesConfig)
	return f.add(&node{op: gc.OpTypePad, shape: out, inputs: ns,
		run: func(b *Backend, sts []store) (store, error) {
			st, err := b.alloc(out)
			if err != nil {
				return nil, err
			}
			ds := rowMajorStrides(odims)
			if err := b.stridedCopy(st, sts[1], odims, 0, 0, ds, make([]int, rank)); err != nil {
				_ = st.release()
				return nil, err
			}
			is := rowMajorStrides(idims)
			ext := make([]int, rank)
			cds := make([]int, rank)
			soff, doff := 0, 0
			for k := range rank {
				step := cfg[k].Interior + 1
				lo := 0
				if cfg[k].Start < 0 {
					lo = (-cfg[k].Start + step - 1) / step
				}
				hi := idims[k] - 1
				if last := odims[k] - 1 - cfg[k].Start; last < hi*step {
					if last < 0 {
						hi = -1
					} else {
						hi = last / step
					}
				}
				ext[k] = max(hi-lo+1, 0)
				soff += lo * is[k]
				doff += (cfg[k].Start + lo*step) * ds[k]
				cds[k] = ds[k] * step
			}
			if err := b.stridedCopy(st, sts[0], ext, doff, soff, cds, is); err != nil {
				_ = st.release()
				return nil, err
			}
			return st, nil
		}}), nil
}

// Iota implements compute.Function: computed on the host at build time, a
// constant of the executable.
func (f *Function) Iota(shape shapes.Shape, iotaAxis int) (gc.Value, error) {
	if err := f.check(); err != nil {
		return nil, err
	}
	if err := f.builder.backend.checkDType(shape.DType); err != nil {
		return nil, err
	}
	if iotaAxis < 0 || iotaAxis >= shape.Rank() {
		return nil, errors.Errorf("gour backend: Iota axis %d of %s", iotaAxis, shape)
	}
	if shape.IsDynamic() {
		return f.pending(gc.OpTypeIota, shape.Clone()), nil
	}
	st := rowMajorStrides(shape.Dimensions)
	n := shape.Size()
	idx := func(i int) int { return i / st[iotaAxis] % shape.Dimensions[iotaAxis] }
	var flat any
	switch shape.DType {
	case dtypes.Float32:
		flat = iotaOf(n, idx, func(v int) float32 { return float32(v) })
	case dtypes.Float64:
		flat = iotaOf(n, idx, func(v int) float64 { return float64(v) })
	case dtypes.Float16:
		flat = iotaOf(n, idx, func(v int) float16.Float16 { return float16.FromFloat32(float32(v)) })
	case dtypes.BFloat16:
		flat = iotaOf(n, idx, func(v int) bfloat16.BFloat16 { return bfloat16.FromFloat32(float32(v)) })
	case dtypes.Int32:
		flat = iotaOf(n, idx, func(v int) int32 { return int32(v) })
	case dtypes.Int8:
		flat = iotaOf(n, idx, func(v int) int8 { return int8(v) })
	case dtypes.Int16:
		flat = iotaOf(n, idx, func(v int) int16 { return int16(v) })
	case dtypes.Uint8:
		flat = iotaOf(n, idx, func(v int) uint8 { return uint8(v) })
	case dtypes.Uint16:
		flat = iotaOf(n, idx, func(v int) uint16 { return uint16(v) })
	case dtypes.Uint32:
		flat = iotaOf(n, idx, func(v int) uint32 { return uint32(v) })
	case dtypes.Int64:
		flat = iotaOf(n, idx, func(v int) int64 { return int64(v) })
	case dtypes.Uint64:
		flat = iotaOf(n, idx, func(v int) uint64 { return uint64(v) })
	default:
		return nil, notImplemented("Iota of %s", shape.DType)
	}
	return f.add(&node{op: gc.OpTypeIota, shape: shape.Clone(), constant: flat}), nil
}

func iotaOf[T any](n int, idx func(int) int, conv func(int) T) []T {
	out := make([]T, n)
	for i := range out {
		out[i] = conv(idx(i))
	}
	return out
}
