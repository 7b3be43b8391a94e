// Command axpy computes y = a*x + y on the default device with gour's handle
// API: a context and a queue, buffers written and read back, a program built
// from source, and its kernel launched with Queue.Launch and then, for the
// repeated steps, through a PreparedLaunch.
//
//	go run ./examples/axpy
//	ONEAPI_DEVICE_SELECTOR=opencl:cpu go run ./examples/axpy
//
// The regions between "README: begin" and "README: end" comments are shown
// in README.md; examples/readme_test.go keeps the two identical.
package main

// README: begin imports
import (
	"errors"
	"fmt"
	"io"
	"log"
	"os"

	_ "github.com/gour-dev/gour/adapters/all" // registers every adapter: OpenCL, CUDA, Level Zero
	"github.com/gour-dev/gour/ur"
)

// README: end imports

// README: begin sources

// sources holds the kernel in the language each backend builds from
// source. Level Zero builds only SPIR-V (Context.NewProgramFromIL).
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

// README: end sources

func main() {
	// README: begin device
	dev, err := ur.DefaultDevice() // a GPU first; ONEAPI_DEVICE_SELECTOR=opencl:cpu picks another
	if err != nil {
		log.Fatal(err) // it says why each adapter found no device
	}
	// README: end device
	if err := run(os.Stdout, dev); err != nil {
		log.Fatal(err)
	}
}

// run computes y = 2x + y on dev once with Queue.Launch and ten times more
// with a PreparedLaunch, and prints part of y.
func run(w io.Writer, dev *ur.Device) error {
	// README: begin buffers
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

	const n = 1024
	xs, ys := make([]float32, n), make([]float32, n)
	for i := range n {
		xs[i], ys[i] = float32(i), 1
	}
	x, err := ctx.NewBufferFrom(ur.MemReadOnly, ur.AsBytes(xs)) // a device copy of xs
	if err != nil {
		return err
	}
	defer x.Release()
	y, err := ctx.NewBuffer(ur.MemReadWrite, 4*n)
	if err != nil {
		return err
	}
	defer y.Release()
	if err := q.WriteBuffer(y, 0, ur.AsBytes(ys)); err != nil { // returns once copied
		return err
	}
	// README: end buffers

	// README: begin build
	src, ok := sources[dev.Backend()]
	if !ok {
		return fmt.Errorf("no axpy source for %s devices", dev.Backend())
	}
	prog, err := ctx.NewProgramFromSource(src)
	if err != nil {
		return err
	}
	defer prog.Release()
	if err := prog.Build(""); err != nil {
		return err // a compile error carries the build log: ur.BuildLogOf(err)
	}
	k, err := prog.NewKernel("axpy")
	if err != nil {
		return err
	}
	defer k.Release()
	// README: end build

	// README: begin launch
	err = errors.Join(
		k.SetArgFloat32(0, 2), // a
		k.SetArgMem(1, x),
		k.SetArgMem(2, y),
		k.SetArgUint32(3, n),
	)
	if err != nil {
		return err
	}
	if err := q.Launch(k, ur.Range1D(n)); err != nil { // enqueued: no event, no allocation
		return err
	}

	// A launch made many times is checked once; each step.Launch takes
	// the kernel's arguments as they are then.
	step, err := q.PrepareLaunch(k, ur.Range1D(n))
	if err != nil {
		return err
	}
	defer step.Release()
	for range 10 {
		if err := step.Launch(); err != nil {
			return err
		}
	}

	// The queue is in order: the read waits for the launches before it.
	if err := q.ReadBuffer(y, 0, ur.AsBytes(ys)); err != nil {
		return err
	}
	fmt.Fprintln(w, "y[:4] =", ys[:4], "y[1023] =", ys[n-1])
	// README: end launch
	return nil
}
