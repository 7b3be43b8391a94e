package gomlx

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	gc "github.com/gomlx/compute"
	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/compute/shapes"

	"github.com/gour-dev/gour/internal/harness/testenv"
)

// cudaSyntaxShim declares what the backend's CUDA C takes from CUDA, so
// that a host C++ compiler checks the generated source where there is no
// NVRTC (the kernels are not run).
const cudaSyntaxShim = `#include <cmath>
#include <cstring>
struct gx_dim { unsigned x, y, z; };
static gx_dim blockIdx, blockDim, threadIdx, gridDim;
#define __global__
#define __device__
#define __forceinline__ inline
#define __shared__
#define __align__(n) alignas(n)
static inline void __syncthreads() {}
static inline float rsqrtf(float x) { return 1 / sqrtf(x); }
static inline double rsqrt(double x) { return 1 / sqrt(x); }
static inline float __int_as_float(int i) { float f; memcpy(&f, &i, 4); return f; }
static inline double __longlong_as_double(long long i) { double f; memcpy(&f, &i, 8); return f; }
static inline float __uint_as_float(unsigned int i) { float f; memcpy(&f, &i, 4); return f; }
static inline unsigned int __float_as_uint(float f) { unsigned int i; memcpy(&i, &f, 4); return i; }
static inline long long __double_as_longlong(double f) { long long i; memcpy(&i, &f, 8); return i; }
static inline unsigned long long __umul64hi(unsigned long long a, unsigned long long b) {
	return (unsigned long long)(((unsigned __int128)a * b) >> 64);
}
`

// runNodes builds a graph of parameters of shapes and calls the run of
// each of its nodes that has one (but DotGeneral's, package blas's GEMM)
// on storage of its inputs' shapes: with kernelSourceHook declining to
// build, a run stops at its first kernel of its own.
func runNodes(t *testing.T, b *Backend, ss []shapes.Shape, build func(f gc.Function, ps []gc.Value) ([]gc.Value, error)) {
	t.Helper()
	bl := b.Builder("g")
	f := bl.Main()
	ps := make([]gc.Value, len(ss))
	for i, s := range ss {
		p, err := f.Parameter("p", s, nil)
		if err != nil {
			t.Fatal(err)
		}
		ps[i] = p
	}
	if _, err := build(f, ps); err != nil {
		t.Fatal(err)
	}
	for _, n := range bl.(*Builder).main.nodes {
		if n.run == nil || (n.op == gc.OpTypeDotGeneral && n.shape.DType.IsFloat()) {
			continue
		}
		ins := make([]store, len(n.inputs))
		for i, in := range n.inputs {
			st, err := b.alloc(in.shape)
			if err != nil {
				t.Fatal(err)
			}
			defer func() { _ = st.release() }()
			ins[i] = st
		}
		if st, err := n.run(b, ins); err == nil {
			_ = st.release()
		}
	}
}

// TestCUDASyntax builds graphs using every kind of kernel the backend
// generates, collects their sources through kernelSourceHook (building
// none), and compiles their CUDA C with the host's C++ compiler, syntax
// only, through cudaSyntaxShim: one file, each kernel in a namespace of
// its own.
func TestCUDASyntax(t *testing.T) {
	cxx := testenv.CXX(t)
	b := newTestBackend(t)
	var mu sync.Mutex
	srcs := map[string]func(string) string{}
	hook := func(key string, src func(string) string) bool {
		mu.Lock()
		srcs[key] = src
		mu.Unlock()
		// The copy kernel is built, so that a run copying first (a
		// scatter) reaches its own kernel.
		return strings.HasPrefix(key, "gour_gomlx_copy")
	}
	kernelSourceHook.Store(&hook)
	defer kernelSourceHook.Store(nil)

	f32 := func(d ...int) shapes.Shape { return shapes.Make(dtypes.Float32, d...) }
	one := func(v gc.Value, err error) ([]gc.Value, error) { return []gc.Value{v}, err }
	graphs := []struct {
		ss    []shapes.Shape
		build func(f gc.Function, ps []gc.Value) ([]gc.Value, error)
	}{
		{[]shapes.Shape{f32(2, 3), f32(3)}, func(f gc.Function, ps []gc.Value) ([]gc.Value, error) {
			bc, err := f.BroadcastInDim(ps[1], f32(2, 3), []int{1})
			if err != nil {
				return nil, err
			}
			return one(f.Add(ps[0], bc))
		}},
		{[]shapes.Shape{shapes.Make(dtypes.Int64, 4), shapes.Make(dtypes.Int64, 4)}, func(f gc.Function, ps []gc.Value) ([]gc.Value, error) {
			return one(f.BitwiseXor(ps[0], ps[1]))
		}},
		{[]shapes.Shape{f32(2, 3, 4)}, func(f gc.Function, ps []gc.Value) ([]gc.Value, error) {
			a, err := f.ArgMinMax(ps[0], 1, dtypes.Int32, true)
			if err != nil {
				return nil, err
			}
			c, err := f.CumSum(ps[0], 2, gc.CumSumOptions{Reverse: true})
			if err != nil {
				return nil, err
			}
			s, err := f.FusedSoftmax(ps[0], 1)
			if err != nil {
				return nil, err
			}
			l, err := f.FusedLayerNorm(ps[0], []int{1, 2}, 1e-5, nil, nil)
			if err != nil {
				return nil, err
			}
			dx, _, _, err := f.FusedLayerNormVJP(ps[0], ps[0], []int{2}, 1e-5, nil, nil)
			if err != nil {
				return nil, err
			}
			start, err := f.Constant([]int32{1, 0, 2}, 3)
			if err != nil {
				return nil, err
			}
			d, err := f.DynamicSlice(ps[0], []gc.Value{start}, []int{1, 2, 2})
			if err != nil {
				return nil, err
			}
			u, err := f.DynamicUpdateSlice(ps[0], d, []gc.Value{start})
			return []gc.Value{a, c, s, l, dx, d, u}, err
		}},
		{[]shapes.Shape{shapes.Make(dtypes.Uint8, 2, 3)}, func(f gc.Function, ps []gc.Value) ([]gc.Value, error) {
			return one(f.ReduceBitwiseAnd(ps[0], 1))
		}},
		{[]shapes.Shape{f32(5, 3), shapes.Make(dtypes.Int32, 2, 1)}, func(f gc.Function, ps []gc.Value) ([]gc.Value, error) {
			return one(f.Gather(ps[0], ps[1], 1, []int{1}, []int{0}, []int{0}, []int{1, 3}, false))
		}},
		{[]shapes.Shape{f32(2, 4), f32(4), f32(4)}, func(f gc.Function, ps []gc.Value) ([]gc.Value, error) {
			return one(f.FusedLayerNorm(ps[0], []int{1}, 1e-5, ps[1], ps[2]))
		}},
		// Attention of every option: BSHD, GQA, a boolean mask, a bias,
		// sequence lengths, causal; and an additive mask.
		{[]shapes.Shape{f32(2, 3, 4, 8), f32(2, 5, 2, 8), f32(2, 5, 2, 8), shapes.Make(dtypes.Bool, 3, 5), f32(2, 3, 1, 5),
			shapes.Make(dtypes.Int32, 2), shapes.Make(dtypes.Int32, 2)}, func(f gc.Function, ps []gc.Value) ([]gc.Value, error) {
			o, _, err := f.FusedScaledDotProductAttention(ps[0], ps[1], ps[2], gc.AttentionAxesLayoutBSHD,
				&gc.ScaledDotProductAttentionConfig{Causal: true, Mask: ps[3], Bias: ps[4], QuerySeqLen: ps[5], KeyValueSeqLen: ps[6]})
			return []gc.Value{o}, err
		}},
		{[]shapes.Shape{f32(1, 2, 3, 4), f32(1, 2, 3, 4), f32(1, 2, 3, 4), f32(3, 3)}, func(f gc.Function, ps []gc.Value) ([]gc.Value, error) {
			o, _, err := f.FusedScaledDotProductAttention(ps[0], ps[1], ps[2], gc.AttentionAxesLayoutBHSD,
				&gc.ScaledDotProductAttentionConfig{Mask: ps[3]})
			return []gc.Value{o}, err
		}},
	}
	graphs = append(graphs, []struct {
		ss    []shapes.Shape
		build func(f gc.Function, ps []gc.Value) ([]gc.Value, error)
	}{
		{[]shapes.Shape{f32(2, 7, 6, 4), f32(3, 2, 2, 6)}, func(f gc.Function, ps []gc.Value) ([]gc.Value, error) {
			axes := gc.ConvolveAxesConfig{InputBatch: 0, InputChannels: 3, InputSpatial: []int{1, 2},
				KernelInputChannels: 2, KernelOutputChannels: 3, KernelSpatial: []int{0, 1},
				OutputBatch: 0, OutputChannels: 3, OutputSpatial: []int{1, 2}}
			return one(f.ConvGeneral(ps[0], ps[1], axes, []int{2, 1}, [][2]int{{1, 1}, {0, 1}}, []int{1, 2}, []int{2, 1}, 2, 1))
		}},
		{[]shapes.Shape{f32(2, 7, 6), f32(2, 4, 3)}, func(f gc.Function, ps []gc.Value) ([]gc.Value, error) {
			w, err := f.ReduceWindow(ps[0], gc.ReduceOpMax, []int{1, 3, 2}, []int{1, 2, 1}, []int{1, 1, 2}, []int{1, 2, 1},
				[][2]int{{0, 0}, {1, 2}, {1, 0}})
			if err != nil {
				return nil, err
			}
			s, err := f.SelectAndScatterMin(ps[0], ps[1], []int{1, 3, 2}, []int{1, 2, 2}, [][2]int{{0, 0}, {1, 1}, {0, 0}})
			return []gc.Value{w, s}, err
		}},
		{[]shapes.Shape{shapes.Make(dtypes.Int64, 5, 4, 3), shapes.Make(dtypes.Int32, 2, 3, 2), shapes.Make(dtypes.Int64, 2, 3, 4)},
			func(f gc.Function, ps []gc.Value) ([]gc.Value, error) {
				return one(f.ScatterMax(ps[0], ps[1], ps[2], 2, []int{2}, []int{0, 2}, []int{0, 2}, false, false))
			}},
	}...)
	graphs = append(graphs, struct {
		ss    []shapes.Shape
		build func(f gc.Function, ps []gc.Value) ([]gc.Value, error)
	}{[]shapes.Shape{f32(3, 2), shapes.Make(dtypes.Int8, 3, 4)}, func(f gc.Function, ps []gc.Value) ([]gc.Value, error) {
		a, err := f.Bitcast(ps[0], dtypes.Int16)
		if err != nil {
			return nil, err
		}
		c, err := f.Bitcast(ps[0], dtypes.Uint64)
		if err != nil {
			return nil, err
		}
		d, err := f.Bitcast(ps[1], dtypes.Float32)
		return []gc.Value{a, c, d}, err
	}})
	graphs = append(graphs, struct {
		ss    []shapes.Shape
		build func(f gc.Function, ps []gc.Value) ([]gc.Value, error)
	}{[]shapes.Shape{shapes.Make(dtypes.Int32, 2, 3, 4), shapes.Make(dtypes.Int32, 2, 5, 4)}, func(f gc.Function, ps []gc.Value) ([]gc.Value, error) {
		return one(f.DotGeneral(ps[0], []int{2}, []int{0}, ps[1], []int{2}, []int{0}, gc.DotGeneralConfig{}))
	}})
	graphs = append(graphs, struct {
		ss    []shapes.Shape
		build func(f gc.Function, ps []gc.Value) ([]gc.Value, error)
	}{[]shapes.Shape{f32(2, 8), shapes.Make(dtypes.Int8, 8, 4), f32(8, 2), shapes.Make(dtypes.Int8, 8, 2),
		shapes.Make(dtypes.Uint8, 5, 2), shapes.Make(dtypes.Int32, 3, 1), f32(5, 1)},
		func(f gc.Function, ps []gc.Value) ([]gc.Value, error) {
			d, err := f.FusedQuantizedDense(ps[0], ps[1], nil, gc.FusedQuantizedDenseConfig{
				WeightQuantization: &gc.Quantization{Scheme: gc.QuantLinear, Scale: ps[2], ZeroPoint: ps[3], BlockAxis: 1, BlockSize: 2}})
			if err != nil {
				return nil, err
			}
			n, err := f.FusedQuantizedDense(ps[0], ps[1], nil, gc.FusedQuantizedDenseConfig{
				WeightQuantization: &gc.Quantization{Scheme: gc.QuantNF4, Scale: ps[2], BlockAxis: 1, BlockSize: 2}})
			if err != nil {
				return nil, err
			}
			g, err := f.QuantizedGather(ps[4], ps[5], &gc.Quantization{Scheme: gc.QuantLinear, Scale: ps[6], PackedDType: dtypes.Int4})
			return []gc.Value{d, n, g}, err
		}})
	// Every GGML format's decoder, as a weight and through QuantizedGather;
	// Q8_0 activations; QuantLinear activations, an int32 bias and output
	// quantization.
	for _, t := range []gc.GGMLQuantType{gc.GGMLQ4_0, gc.GGMLQ4_1, gc.GGMLQ5_0, gc.GGMLQ5_1, gc.GGMLQ8_0, gc.GGMLIQ4NL,
		gc.GGMLQ2_K, gc.GGMLQ3_K, gc.GGMLQ4_K, gc.GGMLQ5_K, gc.GGMLQ6_K, gc.GGMLQ8_K} {
		graphs = append(graphs, struct {
			ss    []shapes.Shape
			build func(f gc.Function, ps []gc.Value) ([]gc.Value, error)
		}{[]shapes.Shape{f32(2, 256), shapes.Make(dtypes.Uint8, 3, 256/t.ValuesPerBlock()*t.BytesPerBlock()),
			shapes.Make(dtypes.Int32, 2, 1)}, func(f gc.Function, ps []gc.Value) ([]gc.Value, error) {
			d, err := f.FusedQuantizedDense(ps[0], ps[1], nil, gc.FusedQuantizedDenseConfig{
				WeightQuantization: &gc.Quantization{Scheme: gc.QuantGGML, GGMLType: t}, WeightLayout: gc.DenseLayoutOutputsInput})
			if err != nil {
				return nil, err
			}
			g, err := f.QuantizedGather(ps[1], ps[2], &gc.Quantization{Scheme: gc.QuantGGML, GGMLType: t})
			return []gc.Value{d, g}, err
		}})
	}
	graphs = append(graphs, struct {
		ss    []shapes.Shape
		build func(f gc.Function, ps []gc.Value) ([]gc.Value, error)
	}{[]shapes.Shape{shapes.Make(dtypes.Uint8, 2, 34), shapes.Make(dtypes.Uint8, 3, 18), shapes.Make(dtypes.Uint8, 2, 8),
		shapes.Make(dtypes.Int8, 8, 4), f32(4), f32(), shapes.Make(dtypes.Uint8), f32(), shapes.Make(dtypes.Int8),
		shapes.Make(dtypes.Int32, 4)},
		func(f gc.Function, ps []gc.Value) ([]gc.Value, error) {
			d, err := f.FusedQuantizedDense(ps[0], ps[1], nil, gc.FusedQuantizedDenseConfig{
				WeightQuantization: &gc.Quantization{Scheme: gc.QuantGGML, GGMLType: gc.GGMLQ4_0},
				XQuantization:      &gc.Quantization{Scheme: gc.QuantGGML, GGMLType: gc.GGMLQ8_0},
				WeightLayout:       gc.DenseLayoutOutputsInput})
			if err != nil {
				return nil, err
			}
			q, err := f.FusedQuantizedDense(ps[2], ps[3], ps[9], gc.FusedQuantizedDenseConfig{
				WeightQuantization: &gc.Quantization{Scheme: gc.QuantLinear, Scale: ps[4]},
				XQuantization:      &gc.Quantization{Scheme: gc.QuantLinear, Scale: ps[5], ZeroPoint: ps[6]},
				OutputQuantization: &gc.Quantization{Scheme: gc.QuantLinear, Scale: ps[7], ZeroPoint: ps[8]}})
			return []gc.Value{d, q}, err
		}})
	graphs = append(graphs, struct {
		ss    []shapes.Shape
		build func(f gc.Function, ps []gc.Value) ([]gc.Value, error)
	}{[]shapes.Shape{f32(3, 4), shapes.Make(dtypes.Int64, 3, 4)}, func(f gc.Function, ps []gc.Value) ([]gc.Value, error) {
		return sortByKey(f, ps[0], ps[1])
	}})
	for _, a := range rngAlgorithms[1:] {
		graphs = append(graphs, struct {
			ss    []shapes.Shape
			build func(f gc.Function, ps []gc.Value) ([]gc.Value, error)
		}{[]shapes.Shape{a.StateShape()}, func(f gc.Function, ps []gc.Value) ([]gc.Value, error) {
			s, v, err := f.RNGBitGenerator(ps[0], shapes.Make(dtypes.Uint64, 5), a)
			if err != nil {
				return nil, err
			}
			_, v8, err := f.RNGBitGenerator(ps[0], shapes.Make(dtypes.Uint8, 5), a)
			return []gc.Value{s, v, v8}, err
		}})
	}
	graphs = append(graphs, struct {
		ss    []shapes.Shape
		build func(f gc.Function, ps []gc.Value) ([]gc.Value, error)
	}{[]shapes.Shape{f32(3, 5, 2), shapes.Make(dtypes.Int64, 4, 6), f32(1, 5, 1)}, func(f gc.Function, ps []gc.Value) ([]gc.Value, error) {
		v, i, err := f.FusedTopK(ps[0], 2, gc.FusedTopKConfig{Axis: 1})
		if err != nil {
			return nil, err
		}
		v2, i2, err := f.FusedTopK(ps[1], 3, gc.FusedTopKConfig{Axis: -1, Smallest: true})
		if err != nil {
			return nil, err
		}
		a, err := f.Atan2(ps[0], ps[2])
		return []gc.Value{v, i, v2, i2, a}, err
	}})
	if b.fp64 {
		f64 := shapes.Make(dtypes.Float64, 3, 4)
		graphs = append(graphs, struct {
			ss    []shapes.Shape
			build func(f gc.Function, ps []gc.Value) ([]gc.Value, error)
		}{[]shapes.Shape{f64}, func(f gc.Function, ps []gc.Value) ([]gc.Value, error) {
			s, err := f.FusedSoftmax(ps[0], 0)
			if err != nil {
				return nil, err
			}
			tr, err := f.Transpose(ps[0], 1, 0)
			return []gc.Value{s, tr}, err
		}})
	}
	for _, g := range graphs {
		runNodes(t, b, g.ss, g.build)
	}

	keys := make([]string, 0, len(srcs))
	for k := range srcs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var sb strings.Builder
	sb.WriteString(cudaSyntaxShim)
	for i, k := range keys {
		src := strings.ReplaceAll(srcs[k]("cuda"), `extern "C" `, "")
		fmt.Fprintf(&sb, "namespace k%d {\n%s\n}\n", i, src)
		for _, m := range []string{"KERNEL", "GLOBAL", "SHARED", "UL", "SL", "LID", "GROUP", "BARRIER", "T", "WG",
			"EXP", "SQRT", "RSQRT", "NEG_INF", "GBARRIER", "U32", "U64", "ID"} {
			fmt.Fprintf(&sb, "#undef %s\n", m)
		}
	}
	path := filepath.Join(t.TempDir(), "kernels.cpp")
	if err := os.WriteFile(path, []byte(sb.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(cxx, "-std=c++17", "-fsyntax-only", "-Wno-unknown-pragmas", path).CombinedOutput(); err != nil {
		t.Errorf("%v\n%s", err, out)
	}
	t.Logf("%d kernels' CUDA C compiled: %v", len(keys), keys)
	if os.Getenv("GOUR_DUMP_CUDA") != "" {
		t.Log(sb.String())
	}
}
