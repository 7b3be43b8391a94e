package main

import (
	"context"
	"fmt"
	"time"

	"github.com/gour-dev/gour/compute"
)

// Pipeline's task sequence: up to pipelineCapacity chunks outstanding,
// pipelineConcurrency of them in flight on lanes of their own.
const (
	pipelineCapacity    = 8
	pipelineConcurrency = 4
)

// pipeline times a pipeline a user would write, each chunk uploaded
// from the host, transformed (y = a*x + y, y zeroed on the device) and
// downloaded, as a concurrent task sequence against the same steps in a
// loop on the Device: what overlapping invocations gain.
func (b *computeBench) pipeline() error {
	hosts := make([][]float32, b.chunks)
	for k := range hosts {
		hosts[k] = xPattern(b.chunk)
		hosts[k][0] = float32(k) // tells the chunks apart
	}
	step := func(_ context.Context, ctx compute.Context, k int) ([]float32, error) {
		x, err := compute.FromSlice(ctx, hosts[k])
		if err != nil {
			return nil, err
		}
		defer x.Release()
		y, err := compute.Zeros[float32](ctx, b.chunk)
		if err != nil {
			return nil, err
		}
		defer y.Release()
		if err := compute.Transform(ctx, b.fn, y, x, y); err != nil {
			return nil, err
		}
		return y.ToSlice()
	}
	check := func(what string, k int, y []float32) error {
		for _, i := range []int{0, 1, b.chunk - 1} {
			if want := computeA * hosts[k][i]; y[i] != want {
				return fmt.Errorf("%s: chunk %d y[%d] = %v, want %v", what, k, i, y[i], want)
			}
		}
		return nil
	}
	seq, err := compute.NewConcurrentTaskSequence(b.d, step, pipelineCapacity, pipelineConcurrency)
	if err != nil {
		return err
	}
	defer seq.Release(context.Background())
	goctx := context.Background()
	bytes := float64(b.chunks) * float64(b.chunk) * 8 // 4 up, 4 down
	var async, loop []float64
	for r := -1; r < b.rounds; r++ {
		got := 0
		get := func() error {
			y, err := seq.Get(goctx)
			if err != nil {
				return err
			}
			got++
			return check("pipeline", got-1, y)
		}
		start := time.Now()
		for k := range b.chunks {
			if seq.Outstanding() == pipelineCapacity {
				if err := get(); err != nil {
					return err
				}
			}
			if err := seq.Async(goctx, k); err != nil {
				return err
			}
		}
		for got < b.chunks {
			if err := get(); err != nil {
				return err
			}
		}
		a := bytes / time.Since(start).Seconds() / 1e9
		start = time.Now()
		for k := range b.chunks {
			y, err := step(goctx, b.d, k)
			if err != nil {
				return err
			}
			if err := check("pipeline.loop", k, y); err != nil {
				return err
			}
		}
		l := bytes / time.Since(start).Seconds() / 1e9
		if r >= 0 {
			async, loop = append(async, a), append(loop, l)
		}
	}
	b.line("pipeline", "GB/s", async, fmt.Sprintf("  %d chunks of %d float32 each uploaded, transformed and downloaded (8 bytes an element), a task sequence of capacity %d, %d in flight; /pipeline.loop %.3f (target ≥ 1.3)",
		b.chunks, b.chunk, pipelineCapacity, pipelineConcurrency, median(async)/median(loop)))
	b.line("pipeline.loop", "GB/s", loop, "  the same chunks one after the other in a loop")
	return nil
}
