package gonumblas_test

import (
	"log/slog"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"

	"gonum.org/v1/gonum/blas"

	"github.com/gour-dev/gour/blas/gonumblas"
	"github.com/gour-dev/gour/internal/harness/testenv"
)

// A device call that fails is computed by gonum instead, with one
// warning for the Implementation's first failure: here the queue is
// released under the Implementation.
func TestDeviceFailureFallsBack(t *testing.T) {
	dev := testenv.Devices(t)[0]
	rec := &testenv.LogRecorder{}
	opts := forced()
	opts.Logger = slog.New(rec)
	d, err := openDevice(dev, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = d.ctx.Release() }()
	rnd := rand.New(rand.NewPCG(3, 4))
	gemm := func() {
		t.Helper()
		a, _ := randMat[float32](rnd, 20, 30, 0)
		b, _ := randMat[float32](rnd, 30, 10, 0)
		c, _ := randMat[float32](rnd, 20, 10, 0)
		want := append([]float32(nil), c...)
		native.Sgemm(blas.NoTrans, blas.NoTrans, 20, 10, 30, 2, a, 30, b, 10, 0.5, want, 10)
		d.impl.Sgemm(blas.NoTrans, blas.NoTrans, 20, 10, 30, 2, a, 30, b, 10, 0.5, c, 10)
		same(t, "Sgemm", c, want, 30)
	}
	gemm()
	if s := d.impl.Stats(); s.Device != 1 || s.Fallbacks != 0 {
		t.Fatalf("stats %+v after a call on a working device: want 1 device call", s)
	}
	if err := d.q.Release(); err != nil {
		t.Fatal(err)
	}
	gemm()
	gemm()
	if s := d.impl.Stats(); s.Device != 1 || s.Fallbacks != 2 {
		t.Errorf("stats %+v: want the 2 calls after the queue's release as fallbacks", s)
	}
	warns := rec.Messages(slog.LevelWarn)
	if len(warns) != 1 || !strings.Contains(warns[0], "routine=Sgemm") {
		t.Errorf("warnings %q: want one, for Sgemm", warns)
	}
	if n := rec.Count(slog.LevelDebug); n != 1 {
		t.Errorf("%d debug records: want 1, for the second failure", n)
	}
	_ = d.impl.Close() // fails: the queue is gone
	gemm()             // after Close: gonum's
	if s := d.impl.Stats(); s.Fallbacks != 2 || s.Host != 1 {
		t.Errorf("stats %+v: want the call after Close on the host", s)
	}
}

// Several goroutines share an Implementation, as gonum/mat's callers
// may: each result is its own.
func TestConcurrentCalls(t *testing.T) {
	onDevices(t, f32, func(t *testing.T, impl *gonumblas.Implementation) {
		var wg sync.WaitGroup
		for g := range 6 {
			wg.Go(func() {
				rnd := rand.New(rand.NewPCG(uint64(g), 5))
				for range 4 {
					m, n, k := 5+rnd.IntN(40), 5+rnd.IntN(40), 1+rnd.IntN(40)
					a, _ := randMat[float32](rnd, m, k, 0)
					b, _ := randMat[float32](rnd, k, n, 0)
					c, _ := randMat[float32](rnd, m, n, 0)
					want := append([]float32(nil), c...)
					native.Sgemm(blas.NoTrans, blas.NoTrans, m, n, k, 1, a, k, b, n, 1, want, n)
					impl.Sgemm(blas.NoTrans, blas.NoTrans, m, n, k, 1, a, k, b, n, 1, c, n)
					same(t, "Sgemm", c, want, k)
				}
			})
		}
		wg.Wait()
	})
}

// Below the thresholds, and for calls without work, gonum computes.
func TestThresholds(t *testing.T) {
	dev := testenv.Devices(t)[0]
	opts := gonumblas.DefaultOptions()
	opts.Level3Threshold = 1000
	d, err := openDevice(dev, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		_ = d.impl.Close()
		_ = d.q.Release()
		_ = d.ctx.Release()
	}()
	impl := d.impl
	x := ones32(100)
	impl.Sgemm(blas.NoTrans, blas.NoTrans, 9, 10, 10, 1, x, 10, x, 10, 1, x, 10) // 900 < 1000
	impl.Sgemm(blas.NoTrans, blas.NoTrans, 10, 10, 10, 0, x, 10, x, 10, 1, x, 10)
	impl.Sgemv(blas.NoTrans, 10, 10, 1, x, 10, x, 1, 0, ones32(10), 1) // Level 2 stays on the host
	if s := impl.Stats(); s.Device != 0 || s.Host != 3 {
		t.Errorf("stats %+v: want 3 calls on the host", s)
	}
	impl.Sgemm(blas.NoTrans, blas.NoTrans, 10, 10, 10, 1, x, 10, x, 10, 1, ones32(100), 10)
	if s := impl.Stats(); s.Device != 1 || s.Fallbacks != 0 {
		t.Errorf("stats %+v: want the 10×10×10 product on the device", s)
	}
}
