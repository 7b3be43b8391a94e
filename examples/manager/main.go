// Command manager runs axpy through the program manager: the kernel is built
// once per context and then served from the manager's in-memory cache, and
// in the next process from gour's persistent cache on disk
// (SYCL_CACHE_DIR, by default ~/.cache/gour).
//
//	go run ./examples/manager   # run it twice: the second run loads the kernel from disk
//
// The regions between "README: begin" and "README: end" comments are shown
// in README.md; examples/readme_test.go keeps the two identical.
package main

import (
	"context"
	"fmt"
	"io"
	"log"
	"os"

	_ "github.com/gour-dev/gour/adapters/all"
	"github.com/gour-dev/gour/programmgr"
	"github.com/gour-dev/gour/ur"
)

// The kernel, y = a*x + y over n floats, in OpenCL C and in CUDA C.
const (
	openclSource = `__kernel void axpy(float a, __global const float* x, __global float* y, uint n) {
	size_t i = get_global_id(0);
	if (i < n) y[i] = a * x[i] + y[i];
}`
	cudaSource = `extern "C" __global__ void axpy(float a, const float* x, float* y, unsigned int n) {
	unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) y[i] = a * x[i] + y[i];
}`
)

const n = 1024

func main() {
	dev, err := ur.DefaultDevice()
	if err != nil {
		log.Fatal(err)
	}
	if err := run(os.Stdout, dev); err != nil {
		log.Fatal(err)
	}
}

// run launches axpy three times on dev, asking the program manager for the
// kernel each time, and prints part of y and where the kernels came from.
func run(w io.Writer, dev *ur.Device) error {
	ctx, err := ur.NewContext(dev)
	if err != nil {
		return err
	}
	defer ctx.Release()
	q, err := ctx.NewQueue(dev, ur.QueueProperties{})
	if err != nil {
		return err
	}
	defer q.Release()
	xs, ys := make([]float32, n), make([]float32, n)
	for i := range n {
		xs[i], ys[i] = float32(i), 1
	}
	x, err := ctx.NewBufferFrom(ur.MemReadOnly, ur.AsBytes(xs))
	if err != nil {
		return err
	}
	defer x.Release()
	y, err := ctx.NewBufferFrom(ur.MemReadWrite, ur.AsBytes(ys))
	if err != nil {
		return err
	}
	defer y.Release()

	// README: begin manager
	m, err := programmgr.New(ctx, programmgr.Options{}) // every setting from the environment (SYCL_CACHE_*, ...)
	if err != nil {
		return err
	}
	defer m.Close() // before ctx.Release: the manager does not own the context

	desc := programmgr.ImageDesc{
		Format:      programmgr.FormatOpenCLC,
		Bytes:       []byte(openclSource),
		KernelNames: []string{"axpy"},
	}
	if dev.Backend() == "cuda" {
		desc.Format, desc.Bytes = programmgr.FormatCUDAC, []byte(cudaSource)
	}
	img, err := programmgr.NewImage(desc) // checked, immutable, identified by a hash of its content
	if err != nil {
		return err
	}
	for range 3 { // the first request builds the program (or loads it from disk), the others hit the cache
		if err := launch(m, img, q, x, y); err != nil {
			return err
		}
	}
	// README: end manager
	if err := q.ReadBuffer(y, 0, ur.AsBytes(ys)); err != nil {
		return err
	}
	fmt.Fprintln(w, "y[:4] =", ys[:4], "y[1023] =", ys[n-1])
	s := m.Stats()
	fmt.Fprintf(w, "kernel requests: %d built, %d loaded from disk, %d served from memory\n",
		s.Builds, s.DiskHits, s.Hits)
	return nil
}

// README: begin launch

// launch runs axpy once with the kernel the manager hands out. The kernel is
// shared by every caller asking for it: Launch takes the arguments with
// the launch and leaves the kernel untouched, so callers need no lock.
func launch(m *programmgr.Manager, img *programmgr.Image, q *ur.Queue, x, y *ur.Mem) error {
	k, err := m.GetKernel(context.Background(), img, "axpy", q.Device(), programmgr.SpecValues{}, "")
	if err != nil {
		return err // a build failure carries the build log
	}
	defer k.Release() // gives back this caller's reference; the cache keeps its own
	return q.Launch(k.UR(), ur.Range1D(n),
		ur.ArgOf(float32(2)), ur.ArgBuffer(x), ur.ArgBuffer(y), ur.ArgOf(uint32(n)))
}

// README: end launch
