// Command bundle runs axpy from an offload bundle embedded in the binary:
// the kernel's OpenCL C and CUDA C, and whatever the tools present when it
// was generated could build from them (SPIR-V with clang and llvm-spirv;
// cubins for sm_80 and sm_90 and PTX with nvcc or NVRTC). The program
// manager picks, for the device it runs on, the best image (a cubin of the
// device's architecture over PTX over source), and the program prints
// which image that was and why.
//
//	go generate ./examples/bundle   # rebuilds axpy.urb with the tools this machine has
//	go run ./examples/bundle        # on the default device; ONEAPI_DEVICE_SELECTOR picks another
//
// The double-precision kernel is in images of its own: a device without
// fp64 runs axpy and says it lacks fp64 for axpy_f64.
//
// The committed axpy.urb was generated on the H100 machine, which has nvcc
// but no clang: OpenCL C in two parts (with and without fp64), cubins for
// sm_80 and sm_90, PTX for compute_80 and the CUDA C; no SPIR-V.
package main

//go:generate go run ../../cmd/urpack build -o axpy.urb -skip-missing -spirv -cuda-arch sm_80,sm_90 axpy.cl axpy.cu

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"log"
	"os"

	_ "github.com/gour-dev/gour/adapters/all"
	"github.com/gour-dev/gour/programmgr"
	"github.com/gour-dev/gour/ur"
)

// axpyBundle is the bundle go generate writes; it travels in the binary.
//
//go:embed axpy.urb
var axpyBundle []byte

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

// run loads the bundle, then runs axpy and axpy_f64 on dev with the
// images the manager picks, printing each choice and part of the result.
func run(w io.Writer, dev *ur.Device) error {
	b, err := programmgr.NewBundle(axpyBundle) // every image checked; none built yet
	if err != nil {
		return err
	}
	ctx, err := ur.NewContext(dev)
	if err != nil {
		return err
	}
	defer ctx.Release()
	m, err := programmgr.New(ctx, programmgr.Options{})
	if err != nil {
		return err
	}
	defer m.Close()
	q, err := ctx.NewQueue(dev, ur.QueueProperties{})
	if err != nil {
		return err
	}
	defer q.Release()

	fmt.Fprintf(w, "%s on %s\n", b, dev.Name())
	if err := axpy[float32](w, m, b, q, "axpy"); err != nil {
		return err
	}
	err = axpy[float64](w, m, b, q, "axpy_f64")
	if errors.Is(err, ur.ErrUnsupportedFeature) { // only images needing fp64 define it
		fmt.Fprintf(w, "axpy_f64: not run: %v\n", err)
		return nil
	}
	return err
}

// axpy runs kernel name over n elements of T, y = 2x + 1, and prints the
// image it came from and y[:4].
func axpy[T float32 | float64](w io.Writer, m *programmgr.Manager, b *programmgr.Bundle, q *ur.Queue, name string) error {
	dev, spec := q.Device(), programmgr.SpecValues{}
	_, sel, err := m.SelectImage(b, name, dev, spec) // what GetBundleKernel builds, and why
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "%s: %s\n", name, sel)
	k, err := m.GetBundleKernel(context.Background(), b, name, dev, spec, "")
	if err != nil {
		return err
	}
	defer k.Release()

	xs, ys := make([]T, n), make([]T, n)
	for i := range n {
		xs[i], ys[i] = T(i), 1
	}
	ctx := m.Context()
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

	k.Lock() // the kernel is shared: its arguments are guarded until the launch is enqueued
	uk := k.UR()
	var a error
	switch any(T(0)).(type) {
	case float64:
		a = uk.SetArgFloat64(0, 2)
	default:
		a = uk.SetArgFloat32(0, 2)
	}
	err = errors.Join(a, uk.SetArgMem(1, x), uk.SetArgMem(2, y), uk.SetArgUint32(3, n))
	if err == nil {
		err = q.Launch(uk, ur.Range1D(n))
	}
	k.Unlock()
	if err != nil {
		return err
	}
	if err := q.ReadBuffer(y, 0, ur.AsBytes(ys)); err != nil {
		return err
	}
	fmt.Fprintf(w, "%s: y[:4] = %v y[%d] = %v\n", name, ys[:4], n-1, ys[n-1])
	return nil
}
