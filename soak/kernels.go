package soak

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/gour-dev/gour/blas"
	"github.com/gour-dev/gour/dtype"
	"github.com/gour-dev/gour/programmgr"
	"github.com/gour-dev/gour/ur"
)

// addConstImages is how many programs a site's manager serves: one per
// constant, so that evictions drop programs others are launching.
const addConstImages = 6

const (
	addConstOpenCL = `__kernel void add_const(__global int* y, int n) {
	int i = get_global_id(0);
	if (i < n) y[i] += CONST;
}`
	addConstCUDA = `extern "C" __global__ void add_const(int* y, int n) {
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) y[i] += CONST;
}`
)

// addConstImage is the image of add_const adding c, in the kernel
// language of the backend: CUDA C on CUDA, OpenCL C elsewhere (the
// program manager compiles it to SPIR-V for Level Zero).
func addConstImage(backend string, c int) (*programmgr.Image, error) {
	src, format := addConstOpenCL, programmgr.FormatOpenCLC
	if backend == "cuda" {
		src, format = addConstCUDA, programmgr.FormatCUDAC
	}
	return programmgr.NewImage(programmgr.ImageDesc{
		Format:      format,
		Bytes:       []byte(strings.ReplaceAll(src, "CONST", fmt.Sprint(c))),
		KernelNames: []string{"add_const"},
	})
}

// kernel asks the site's manager for a random add_const, launches it on a
// new buffer on the site's queue and checks the result.
func (w *worker) kernel(s *site, _ *[]*held) error {
	c := w.rng.IntN(len(s.images))
	k, err := s.mgr.GetKernel(context.Background(), s.images[c], "add_const", s.dev, programmgr.SpecValues{}, "")
	if err != nil {
		return err
	}
	n := 1 + w.rng.IntN(5000)
	v := w.values(n, 1000)
	y, err := s.ctx.NewBufferFrom(ur.MemReadWrite, ur.AsBytes(v))
	if err != nil {
		return errors.Join(err, k.Release())
	}
	const group = 64
	err = s.q.Launch(k.UR(), ur.Range1D((uint64(n)+group-1)/group*group), ur.ArgBuffer(y), ur.ArgOf(int32(n)))
	if err == nil {
		got := make([]int32, n)
		if err = s.q.ReadBuffer(y, 0, ur.AsBytes(got)); err == nil {
			for i := range v {
				v[i] += int32(c + 1)
			}
			err = check(fmt.Sprintf("add_const %d", c+1), got, v)
		}
	}
	return errors.Join(err, y.Release(), k.Release())
}

// blas makes a blas handle on a new queue of the site's context (the
// vendor library's or the own kernels, these built by the site's manager
// or by the handle's own), multiplies random matrices of small integers,
// checks C and closes the handle.
func (w *worker) blas(s *site, _ *[]*held) error {
	q, err := s.ctx.NewQueue(s.dev, ur.QueueProperties{})
	if err != nil {
		return err
	}
	var o blas.Options
	switch w.rng.IntN(3) {
	case 0:
		o.Backend = blas.BackendGour
	case 1:
		o.Backend, o.Programs = blas.BackendGour, s.mgr
	}
	h, err := blas.New(q, o)
	if err != nil {
		return errors.Join(err, q.Release())
	}
	err = w.gemm(s.ctx, q, h)
	return errors.Join(err, h.Close(), q.Release())
}

func (w *worker) gemm(ctx *ur.Context, q *ur.Queue, h *blas.Handle) error {
	m, n, k := 1+w.rng.IntN(48), 1+w.rng.IntN(48), 1+w.rng.IntN(48)
	av, bv := w.floats(m*k), w.floats(k*n)
	want := gemm(m, n, k, av, bv)
	var mems []*ur.Mem
	defer func() {
		for _, m := range mems {
			m.Release()
		}
	}()
	for _, v := range [][]float32{av, bv, make([]float32, m*n)} {
		mem, err := ctx.NewBufferFrom(ur.MemReadWrite, ur.AsBytes(v))
		if err != nil {
			return err
		}
		mems = append(mems, mem)
	}
	err := h.Gemm(blas.GemmArgs{
		Type: dtype.Float32, M: m, N: n, K: k, Alpha: 1,
		A: blas.OnBuffer(mems[0], 0), LDA: k,
		B: blas.OnBuffer(mems[1], 0), LDB: n,
		C: blas.OnBuffer(mems[2], 0), LDC: n,
	})
	if err != nil {
		return err
	}
	got := make([]float32, m*n)
	if err := q.ReadBuffer(mems[2], 0, ur.AsBytes(got)); err != nil {
		return err
	}
	return check(fmt.Sprintf("blas %d×%d by %d×%d", m, k, k, n), got, want)
}
