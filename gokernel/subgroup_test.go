package gokernel_test

import (
	"context"
	"errors"
	"fmt"
	"math/bits"
	"strings"
	"testing"

	"github.com/gour-dev/gour/gokernel"
	"github.com/gour-dev/gour/gokernel/internal/testkernels"
	"github.com/gour-dev/gour/gokernel/kern"
	"github.com/gour-dev/gour/internal/harness/testenv"
	"github.com/gour-dev/gour/programmgr"
	"github.com/gour-dev/gour/ur"
)

// sgInputs are SubgroupOps' input and a group size whose last subgroup
// is partial on the CPU (48 = 32 + 16).
func sgInputs(n int) []int32 {
	x := make([]int32, n)
	for i := range x {
		x[i] = int32((i*7919)%201 - 100)
	}
	return x
}

// The CPU's subgroups are CPUSubgroupSize consecutive work-items, the
// last partial: every operation checked against the same computed here.
func TestSubgroupsCPU(t *testing.T) {
	const n, local = 96, 48
	x := sgInputs(n)
	out, f := make([]int32, 10*n), make([]float32, 3*n)
	must(t, gokernel.RunCPU(ur.Range1D(n).WithLocal(local), func(it kern.Item) { testkernels.SubgroupOps(it, x, out, f) }))
	for i := range n {
		l := i % local
		first := i - l + l/kern.CPUSubgroupSize*kern.CPUSubgroupSize
		size := min(kern.CPUSubgroupSize, local-l/kern.CPUSubgroupSize*kern.CPUSubgroupSize)
		vals := x[first : first+size]
		lane := i - first
		sum, mx, mn, ballot := int32(0), vals[0], vals[0], uint32(0)
		for j, v := range vals {
			sum += v
			mx, mn = max(mx, v), min(mn, v)
			if v%2 != 0 {
				ballot |= 1 << j
			}
		}
		want := []int32{int32(lane), int32(size), int32(l / kern.CPUSubgroupSize), 2, vals[(lane+1)%size], vals[lane^1], sum, mx, mn, int32(ballot)}
		if got := out[10*i : 10*i+10]; fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("work-item %d: %v, want %v", i, got, want)
		}
		if f[3*i] != tree(vals) || f[3*i+1] != float32(mx)*0.5 || f[3*i+2] != float32(mn)*0.5 {
			t.Fatalf("work-item %d: float32 sum, max, min %v, want %v %v %v", i, f[3*i:3*i+3], tree(vals), float32(mx)*0.5, float32(mn)*0.5)
		}
	}
	if bits.OnesCount32(uint32(out[9])) == 0 {
		t.Error("the ballot's inputs have no odd value: the test tests nothing")
	}

	// SubgroupSum: each group's total.
	xs, sums := make([]float32, 1024), make([]float32, 8)
	for i := range xs {
		xs[i] = float32(i%17) - 8
	}
	must(t, gokernel.RunCPU(ur.Range1D(1024).WithLocal(128), func(it kern.Item) { testkernels.SubgroupSum(it, xs, sums) }))
	for g := range sums {
		var want float32
		for _, v := range xs[g*128 : g*128+128] {
			want += v
		}
		if sums[g] != want {
			t.Errorf("SubgroupSum[%d] = %v, want %v", g, sums[g], want)
		}
	}
}

// tree is the float32 sum of x*0.5 in SubgroupAdd's documented order.
func tree(x []int32) float32 {
	acc := make([]float32, len(x))
	for i, v := range x {
		acc[i] = float32(v) * 0.5
	}
	for off := kern.CPUSubgroupSize / 2; off > 0; off /= 2 {
		for l := range acc {
			if l+off < len(acc) {
				acc[l] += acc[l+off]
			}
		}
	}
	return acc[0]
}

// A work-item that returns while the others of its subgroup (or group)
// wait for it is an error naming it, not a hang; a shuffle from outside
// the subgroup panics as an index out of range does.
func TestSubgroupDivergence(t *testing.T) {
	err := gokernel.RunCPU(ur.Range1D(64).WithLocal(64), func(it kern.Item) {
		if it.LocalID(0) == 5 {
			return
		}
		kern.SubgroupAdd(it, int32(1))
	})
	if !errors.Is(err, kern.ErrDivergence) || !strings.Contains(err.Error(), "work-item [5 0 0]") {
		t.Errorf("a work-item missing a subgroup operation: %v", err)
	}
	err = gokernel.RunCPU(ur.Range1D(8).WithLocal(8), func(it kern.Item) {
		if it.LocalID(0) == 7 {
			return
		}
		it.Barrier()
	})
	if !errors.Is(err, kern.ErrDivergence) {
		t.Errorf("a work-item missing a barrier: %v", err)
	}
	// Every work-item skipping it is fine: nobody waits.
	must(t, gokernel.RunCPU(ur.Range1D(64).WithLocal(64), func(it kern.Item) {
		if it.SubgroupID() == 1 {
			kern.SubgroupAdd(it, 1.5)
		}
	}))
	err = gokernel.RunCPU(ur.Range1D(32).WithLocal(32), func(it kern.Item) { kern.Shuffle(it, 1, 40) })
	if err == nil || !strings.Contains(err.Error(), "lane 40 of a subgroup of 32") {
		t.Errorf("a shuffle from lane 40: %v", err)
	}
}

// On a device with subgroups the kernels agree with the CPU run; one
// without them refuses each kernel with an *AspectError naming it and
// the aspect, before anything is built.
func TestSubgroupsDevices(t *testing.T) {
	for _, dev := range testenv.Devices(t) {
		t.Run(dev.Name(), func(t *testing.T) {
			ctx, q := testenv.ContextQueue(t, dev)
			mgr, err := programmgr.New(ctx, programmgr.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer mgr.Close()
			m := testkernels.Subgroups
			k, err := m.Kernel(context.Background(), mgr, dev, "SubgroupSum")
			var ae *gokernel.AspectError
			if errors.As(err, &ae) {
				if ae.Kernel != "SubgroupSum" || ae.Aspect != gokernel.AspectSubgroups || !errors.Is(err, ur.ErrUnsupportedFeature) ||
					!strings.Contains(err.Error(), "kernel SubgroupSum uses subgroup operations") || !strings.Contains(err.Error(), "aspect subgroups") {
					t.Errorf("the refusal: %v (%+v)", err, ae)
				}
				if err := m.Build(context.Background(), mgr, dev); !errors.As(err, &ae) || !strings.Contains(err.Error(), "kernel SubgroupOps") {
					t.Errorf("Build on a device without subgroups: %v", err)
				}
				if st := mgr.Stats(); st.Builds+st.Failures != 0 {
					t.Errorf("%d builds, %d failures for kernels the device cannot run", st.Builds, st.Failures)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer k.Release()
			if dev.Backend() == "level_zero" {
				return // the test driver runs only its own kernels
			}
			xs, want := make([]float32, 1024), make([]float32, 8)
			for i := range xs {
				xs[i] = float32(i%17) - 8
			}
			must(t, gokernel.RunCPU(ur.Range1D(1024).WithLocal(128), func(it kern.Item) { testkernels.SubgroupSum(it, xs, want) }))
			x, err := ctx.NewBufferFrom(ur.MemReadWrite, ur.AsBytes(xs))
			if err != nil {
				t.Fatal(err)
			}
			defer x.Release()
			sums, err := ctx.NewBufferFrom(ur.MemReadWrite, make([]byte, 4*8))
			if err != nil {
				t.Fatal(err)
			}
			defer sums.Release()
			must(t, testkernels.LaunchSubgroupSum(k, q, ur.Range1D(1024).WithLocal(128), gokernel.BufferSlice[float32](x, 1024), gokernel.BufferSlice[float32](sums, 8)))
			got := make([]float32, 8)
			must(t, q.ReadBuffer(sums, 0, ur.AsBytes(got)))
			checkF32(t, "SubgroupSum", got, want, 0)
		})
	}
}
