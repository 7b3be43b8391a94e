package main

import (
	"fmt"
	"time"

	"github.com/gour-dev/gour/blas"
	"github.com/gour-dev/gour/compute"
	"github.com/gour-dev/gour/dtype"
	"github.com/gour-dev/gour/ur"
)

// matmul times compute.MatMul of -mm-n square float32 matrices resident
// on the device against the same product through a blas.Handle on the
// same queue, called directly on USM allocations of its own (compute's
// cost over blas's), and the CPU context's MatMul (gonum's Sgemm) at
// -mm-cpu-n. Each product is of ones, so every element is K; one is
// read back and checked per figure.
func (b *computeBench) matmul() error {
	n := b.mmN
	ones := make([]float32, n*n)
	for i := range ones {
		ones[i] = 1
	}
	flops := func(d time.Duration, n int) float64 {
		return 2 * float64(n) * float64(n) * float64(n) * computeOps / d.Seconds() / 1e12
	}
	check := func(what string, c []float32, k int) error {
		if c[0] != float32(k) || c[len(c)-1] != float32(k) {
			return fmt.Errorf("%s: c[0] = %v, c[last] = %v, want %d", what, c[0], c[len(c)-1], k)
		}
		return nil
	}

	// compute.MatMul on the device.
	a, err := compute.FromSlice(b.d, ones, n, n)
	if err != nil {
		return err
	}
	defer a.Release()
	c, err := compute.Zeros[float32](b.d, n, n)
	if err != nil {
		return err
	}
	defer c.Release()
	var mm []float64
	for r := -1; r < b.rounds; r++ {
		start := time.Now()
		for range computeOps {
			if err := compute.MatMul(b.d, c, a, a); err != nil {
				return err
			}
		}
		if err := b.d.Wait(); err != nil {
			return err
		}
		if r >= 0 {
			mm = append(mm, flops(time.Since(start), n))
		}
	}
	got, err := c.ToSlice()
	if err != nil {
		return err
	}
	if err := check("matmul.sgemm", got, n); err != nil {
		return err
	}

	// The same product through blas directly.
	dev, ctx, q := b.d.UR()
	h, err := blas.New(q, blas.Options{})
	if err != nil {
		return err
	}
	defer h.Close()
	size := uint64(4 * n * n)
	ua, err := ctx.AllocDevice(dev, size)
	if err != nil {
		return err
	}
	defer ua.Free()
	uc, err := ctx.AllocDevice(dev, size)
	if err != nil {
		return err
	}
	defer uc.Free()
	if err := q.CopyToPtr(ua.Ptr(), f32Bytes(ones)); err != nil {
		return err
	}
	args := blas.GemmArgs{Type: dtype.Float32, M: n, N: n, K: n, Alpha: 1, A: blas.OnPtr(ua.Ptr()), B: blas.OnPtr(ua.Ptr()), C: blas.OnPtr(uc.Ptr()), LDA: n, LDB: n, LDC: n}
	var direct []float64
	for r := -1; r < b.rounds; r++ {
		start := time.Now()
		for range computeOps {
			if err := h.Gemm(args); err != nil {
				return err
			}
		}
		if err := q.Finish(); err != nil {
			return err
		}
		if r >= 0 {
			direct = append(direct, flops(time.Since(start), n))
		}
	}
	out := make([]float32, n*n)
	if err := q.CopyFromPtr(f32Bytes(out), uc.Ptr()); err != nil {
		return err
	}
	if err := check("blas.sgemm", out, n); err != nil {
		return err
	}

	// The CPU context.
	cpu := compute.NewCPU(0)
	defer cpu.Release()
	cn := b.mmCPUN
	ca, err := compute.FromSlice(cpu, ones[:cn*cn], cn, cn)
	if err != nil {
		return err
	}
	defer ca.Release()
	cc, err := compute.Zeros[float32](cpu, cn, cn)
	if err != nil {
		return err
	}
	defer cc.Release()
	var host []float64
	for r := -1; r < b.rounds; r++ {
		start := time.Now()
		for range computeOps {
			if err := compute.MatMul(cpu, cc, ca, ca); err != nil {
				return err
			}
		}
		if r >= 0 {
			host = append(host, 1e3*flops(time.Since(start), cn))
		}
	}
	if got, err = cc.ToSlice(); err != nil {
		return err
	}
	if err := check("cpu.matmul", got, cn); err != nil {
		return err
	}
	b.line("matmul.sgemm", "TFLOP/s", mm, fmt.Sprintf("  compute.MatMul, %d×%d float32, device-resident, blas backend %s; /blas.sgemm %.3f (target ≥ 0.97)",
		n, n, h.Backend(), median(mm)/median(direct)))
	b.line("blas.sgemm", "TFLOP/s", direct, "  blas.Handle.Gemm on USM of its own, the same product")
	b.line("cpu.matmul", "GFLOP/s", host, fmt.Sprintf("  compute.MatMul on %s (gonum's Sgemm), %d×%d float32", cpu, cn, cn))
	return nil
}

func f32Bytes(s []float32) []byte {
	return ur.AsBytes(s)
}
