package main

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/gour-dev/gour/blas"
	"github.com/gour-dev/gour/dtype"
	"github.com/gour-dev/gour/internal/dl"
)

// blasSmallVsC is `urbench blas -backend cublas -c-small LIB`
// (blas.gemm.small.vs): the host's cost of a
// small SGEMM (n×n, no transposes, alpha 1, beta 0) through h, on cuBLAS,
// against cuBLAS called from C in this process: the library at lib,
// built from scripts/bench/c/cublas_small.c, whose
// gour_bench_cublas_sgemm_loop calls cublasSgemm iters times on the same
// context, stream and matrices. Rounds of iters calls alternate between
// the two, the first of each pair rotating; each round times the calls
// (enqueue) and then the wait for the queue (total). Short rounds keep
// the stream from filling, so enqueue is what the host spends per call.
// It prints each side's medians per call and the ratios gour/C.
func blasSmallVsC(w io.Writer, h *blas.Handle, lib string, n, iters, rounds int) error {
	if h.Backend() != blas.BackendCUBLAS {
		return fmt.Errorf("blas.gemm.small.vs: -c-small compares cuBLAS from C with gour's cuBLAS backend, and the Handle has %s", h.Backend())
	}
	q := h.Queue()
	ctx, dev := q.Context(), q.Device()
	size := uint64(n * n * 4)
	mem, err := ctx.AllocDevice(dev, 3*size)
	if err != nil {
		return err
	}
	defer mem.Free()
	fill, err := q.EnqueueMemFill(mem.Ptr(), []byte{0, 0, 0x80, 0x3f}, 3*size) // 1.0f
	if err != nil {
		return err
	}
	fill.Release()
	A, B, C := mem.Ptr(), mem.Ptr().Add(size), mem.Ptr().Add(2*size)

	l, err := dl.Open(lib)
	if err != nil {
		return err
	}
	loop, err := l.Lookup("gour_bench_cublas_sgemm_loop")
	if err != nil {
		return err
	}
	cArgs := &dl.Args{ctx.Native(), q.Native(), A.Addr(), B.Addr(), C.Addr(), uintptr(n)}
	cSide := func(k int) error {
		cArgs[6] = uintptr(k)
		if r := int32(dl.Call(loop, cArgs)); r != 0 {
			if r < 0 {
				return fmt.Errorf("gour_bench_cublas_sgemm_loop: CUDA error %d", -r)
			}
			return fmt.Errorf("gour_bench_cublas_sgemm_loop: cuBLAS status %d", r)
		}
		return nil
	}
	// The row-major C = A·B of gour is the column-major product the C
	// side computes with A and B swapped; the cost is the same.
	a := blas.GemmArgs{Type: dtype.Float32, M: n, N: n, K: n, Alpha: 1, A: blas.OnPtr(A), B: blas.OnPtr(B), C: blas.OnPtr(C), LDA: n, LDB: n, LDC: n}
	gourSide := func(k int) error {
		for range k {
			if err := h.Gemm(a); err != nil {
				return err
			}
		}
		return nil
	}
	type result struct {
		name             string
		call             func(int) error
		enqueues, totals []float64
	}
	sides := []*result{{name: "c", call: cSide}, {name: "gour", call: gourSide}}
	round := func(s *result, k int) (enqueue, total float64, err error) {
		start := time.Now()
		if err := s.call(k); err != nil {
			return 0, 0, err
		}
		e := time.Since(start)
		if err := q.Finish(); err != nil {
			return 0, 0, err
		}
		t := time.Since(start)
		return float64(e.Nanoseconds()) / float64(k), float64(t.Nanoseconds()) / float64(k), nil
	}
	for _, s := range sides { // warm up: handles, kernels, caches
		if _, _, err := round(s, 200); err != nil {
			return err
		}
	}
	for r := range rounds {
		for j := range sides {
			s := sides[(j+r)%len(sides)]
			e, t, err := round(s, iters)
			if err != nil {
				return err
			}
			s.enqueues, s.totals = append(s.enqueues, e), append(s.totals, t)
		}
	}
	for _, s := range sides {
		fmt.Fprintf(w, "blas.gemm.small.vs side=%s type=float32 n=%d calls=%d enqueue_ns=%.1f total_ns=%.1f min_enqueue_ns=%.1f max_enqueue_ns=%.1f\n",
			s.name, n, iters, median(s.enqueues), median(s.totals), slices.Min(s.enqueues), slices.Max(s.enqueues))
	}
	c, g := sides[0], sides[1]
	if median(c.enqueues) == 0 || median(c.totals) == 0 {
		return errors.New("blas.gemm.small.vs: the C side took no time")
	}
	fmt.Fprintf(w, "blas.gemm.small.vs.ratio type=float32 n=%d enqueue=%.3f total=%.3f\n", n,
		median(g.enqueues)/median(c.enqueues), median(g.totals)/median(c.totals))
	return nil
}
