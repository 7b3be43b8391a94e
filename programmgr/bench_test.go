package programmgr

import (
	"context"
	"fmt"
	"testing"
)

// benchKernel returns a fixture whose cache holds kernel "k" of the
// returned image, built once.
func benchKernel(b *testing.B) (*fixture, *Image) {
	b.Helper()
	f := newFixture(b, Options{}, 1)
	img := image(b, 1, "k")
	f.getKernel(img, "k").Release()
	return f, img
}

// BenchmarkGetKernelFastHit is a repeated request answered by the fast
// kernel cache, with its Release: the launch-path cost of the cache.
func BenchmarkGetKernelFastHit(b *testing.B) {
	f, img := benchKernel(b)
	ctx, spec := context.Background(), SpecValues{}
	b.ReportAllocs()
	for b.Loop() {
		k, err := f.m.GetKernel(ctx, img, "k", f.dev, spec, "")
		if err != nil {
			b.Fatal(err)
		}
		k.Release()
	}
}

// BenchmarkGetKernelFastHitParallel is the same from every P at once, all
// asking for the same kernel (the worst case: one reference count).
func BenchmarkGetKernelFastHitParallel(b *testing.B) {
	f, img := benchKernel(b)
	ctx, spec := context.Background(), SpecValues{}
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			k, err := f.m.GetKernel(ctx, img, "k", f.dev, spec, "")
			if err != nil {
				b.Error(err)
				return
			}
			k.Release()
		}
	})
}

// BenchmarkGetKernelFastHitLargeCache is a fast hit among 10000 other
// fast-cache entries.
func BenchmarkGetKernelFastHitLargeCache(b *testing.B) {
	f, img := benchKernel(b)
	k := f.getKernel(img, "k")
	defer k.Release()
	f.m.mu.Lock()
	for _, pe := range f.m.programs {
		if pe.cell.val == k.program {
			for i := 0; i < 10000; i++ {
				fk := fastKey{image: img.id, name: fmt.Sprintf("other%d", i), device: f.dev}
				f.m.addFast(fk, k)
				pe.fast = append(pe.fast, fk)
			}
		}
	}
	f.m.mu.Unlock()
	ctx, spec := context.Background(), SpecValues{}
	b.ReportAllocs()
	for b.Loop() {
		k, err := f.m.GetKernel(ctx, img, "k", f.dev, spec, "")
		if err != nil {
			b.Fatal(err)
		}
		k.Release()
	}
}

// BenchmarkGetKernelFullPath is a request that misses the fast cache and
// finds program and kernel through the program and kernel caches (the
// lock, the program key, the spec-constant check).
func BenchmarkGetKernelFullPath(b *testing.B) {
	f, img := benchKernel(b)
	ctx, spec := context.Background(), SpecValues{}
	b.ReportAllocs()
	for b.Loop() {
		r := request{op: "bench", img: img, name: "k", dev: f.dev, spec: spec}
		k, err := f.m.getKernel(ctx, &r)
		if err != nil {
			b.Fatal(err)
		}
		if r.missed {
			b.Fatal("the full path missed the cache")
		}
		k.Release()
	}
}

// BenchmarkGetProgramHit is a GetProgram answered by the program cache.
func BenchmarkGetProgramHit(b *testing.B) {
	f, img := benchKernel(b)
	ctx, spec := context.Background(), SpecValues{}
	devs := f.ctx.Devices()[:1]
	b.ReportAllocs()
	for b.Loop() {
		p, err := f.m.GetProgram(ctx, img, devs, spec, "")
		if err != nil {
			b.Fatal(err)
		}
		p.Release()
	}
}
