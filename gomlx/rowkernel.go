package gomlx

import (
	"fmt"
	"strings"

	"github.com/gour-dev/gour/compute/expr"
	"github.com/gour-dev/gour/programmgr"
	"github.com/gour-dev/gour/ur"
)

// rowWG is the work-group size of the row kernels: a work-group per row,
// its work-items striding over the row's elements and combining their
// partial results in local (shared) memory. A power of two.
const rowWG = 128

// rowPrelude is the opening of a row kernel's source: macros that let one
// body be OpenCL C or CUDA C (KERNEL, GLOBAL, SHARED, UL, LID, GROUP,
// BARRIER), and the math of the float type t (T, EXP, SQRT, RSQRT,
// NEG_INF).
func rowPrelude(backend string, t expr.Type) string {
	var sb strings.Builder
	cuda := backend == "cuda"
	if cuda {
		sb.WriteString(`#define KERNEL extern "C" __global__ void
#define GLOBAL
#define SHARED __shared__
#define UL unsigned long long
#define SL long long
#define LID ((unsigned long long)threadIdx.x)
#define GROUP ((unsigned long long)blockIdx.x)
#define BARRIER() __syncthreads()
`)
	} else {
		if t == expr.Float64 {
			sb.WriteString("#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n")
		}
		sb.WriteString(`#define KERNEL __kernel void
#define GLOBAL __global
#define SHARED __local
#define UL ulong
#define SL long
#define LID ((ulong)get_local_id(0))
#define GROUP ((ulong)get_group_id(0))
#define BARRIER() barrier(CLK_LOCAL_MEM_FENCE)
`)
	}
	ct := cType(backend, t)
	fmt.Fprintf(&sb, "#define T %s\n#define WG %d\n", ct, rowWG)
	fn := func(name string) string {
		if cuda && t == expr.Float32 {
			return name + "f"
		}
		return name
	}
	fmt.Fprintf(&sb, "#define EXP %s\n#define SQRT %s\n#define RSQRT %s\n", fn("exp"), fn("sqrt"), fn("rsqrt"))
	neg := "(-INFINITY)"
	switch {
	case cuda && t == expr.Float32:
		neg = "__int_as_float(0xff800000)"
	case cuda:
		neg = "__longlong_as_double(0xfff0000000000000ULL)"
	case t == expr.Float64:
		neg = "(-(double)INFINITY)"
	}
	fmt.Fprintf(&sb, "#define NEG_INF %s\n", neg)
	return sb.String()
}

// groupReduce is the statements combining v, a T of each work-item, into
// every work-item's v through sh, the group's SHARED T[WG]: combine is an
// expression of a and b (the two values combined).
func groupReduce(v, combine string) string {
	c := strings.NewReplacer("a", "sh[lid]", "b", "sh[lid + s]").Replace(combine)
	return fmt.Sprintf(`  sh[lid] = %s;
  BARRIER();
  for (UL s = WG / 2; s > 0; s >>= 1) {
    if (lid < s) sh[lid] = %s;
    BARRIER();
  }
  %s = sh[0];
  BARRIER();
`, v, c, v)
}

// sumOf and maxOf are groupReduce's combinations.
const (
	sumOf = "a + b"
	maxOf = "(b > a ? b : a)"
)

// launchGroups enqueues k over groups work-groups of rowWG work-items.
func (b *Backend) launchGroups(k *programmgr.Kernel, groups int, args ...ur.Arg) error {
	_, _, q := b.ctx.UR()
	return q.Launch(k.UR(), ur.Range1D(uint64(groups)*rowWG).WithLocal(rowWG), args...)
}

// rowHead is the start of a row kernel's body: lid, the row (the group)
// and base, the index of its first element in the operand seen as
// [outer, len, inner] (its elements at base + k·inner).
const rowHead = `  UL lid = LID;
  UL row = GROUP;
  UL o = row / inner;
  UL base = o * len * inner + (row - o * inner);
  SHARED T sh[WG];
`
