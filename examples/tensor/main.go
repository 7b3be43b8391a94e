// Command tensor shows gour's memory model the way an array or tensor
// library uses it: device memory allocated on a queue from a pool, filled
// asynchronously from page-locked host memory, kernels launched on pointers
// into the middle of an allocation (a tensor is a pointer, an offset and a
// shape), and the memory freed on the queue again, without synchronizing
// the device anywhere but where the host needs the result.
//
//	go run ./examples/tensor
//	ONEAPI_DEVICE_SELECTOR=cuda:0 go run ./examples/tensor
package main

import (
	"context"
	"fmt"
	"io"
	"log"
	"os"

	_ "github.com/gour-dev/gour/adapters/all"
	"github.com/gour-dev/gour/ur"
)

// sources holds y = a*x + y in the language each backend builds from
// source.
var sources = map[string]string{
	"opencl": `__kernel void axpy(float a, __global const float* x, __global float* y, uint n) {
	size_t i = get_global_id(0);
	if (i < n) y[i] = a * x[i] + y[i];
}`,
	"cuda": `extern "C" __global__ void axpy(float a, const float* x, float* y, unsigned int n) {
	unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) y[i] = a * x[i] + y[i];
}`,
}

func main() {
	dev, err := ur.DefaultDevice()
	if err != nil {
		log.Fatal(err)
	}
	if err := run(os.Stdout, dev); err != nil {
		log.Fatal(err)
	}
}

// run keeps two tensors of n floats, x and y, in one pool allocation, and
// computes y = 2x + y on them.
func run(w io.Writer, dev *ur.Device) error {
	src, ok := sources[dev.Backend()]
	if !ok {
		return fmt.Errorf("no axpy source for %s devices", dev.Backend())
	}
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
	prog, err := ctx.NewProgramFromSource(src)
	if err != nil {
		return err
	}
	defer prog.Release()
	if err := prog.Build(""); err != nil {
		return err
	}
	k, err := prog.NewKernel("axpy")
	if err != nil {
		return err
	}
	defer k.Release()

	// Page-locked staging memory, written in Go through a typed slice.
	const n = 1 << 16
	staging, err := ctx.AllocHost(2 * 4 * n)
	if err != nil {
		return err
	}
	defer staging.Free()
	host, err := ur.HostSlice[float32](staging)
	if err != nil {
		return err
	}
	for i := range n {
		host[i], host[n+i] = float32(i), 1 // x, then y
	}

	// README: begin tensor
	// One allocation from the device's pool holds both tensors: x at
	// offset 0, y at offset 4n bytes.
	pool, err := ctx.NewPool(dev, ur.PoolOptions{ReleaseThreshold: 64 << 20})
	if err != nil {
		return err
	}
	defer pool.Release()
	arena, err := q.AllocAsync(pool, 2*4*n) // ordered on q; no device sync
	if err != nil {
		return err
	}
	x, y := arena.Ptr(), arena.Ptr().Add(4*n)

	// Asynchronous upload from page-locked memory, then the launch, then
	// the download of y: all on q, in order.
	up, err := q.EnqueueCopyToPtr(arena.Ptr(), ur.AsBytes(host)) // x and y at once
	if err != nil {
		return err
	}
	up.Release() // the queue still orders the launch after the copy

	if err := q.Launch(k, ur.Range1D(n), ur.ArgOf(float32(2)), ur.ArgPtr(x), ur.ArgPtr(y), ur.ArgOf(uint32(n))); err != nil {
		return err
	}
	done, err := q.EnqueueCopyFromPtr(ur.AsBytes(host[n:]), y)
	if err != nil {
		return err
	}
	if err := q.FreeAsync(arena); err != nil { // after the download, in q's order
		return err
	}
	if err := done.Wait(context.Background()); err != nil {
		return err
	}
	done.Release()
	// README: end tensor
	ys := host[n:]
	fmt.Fprintf(w, "y[:4] = %v y[%d] = %v\n", ys[:4], n-1, ys[n-1])
	return q.Finish()
}
