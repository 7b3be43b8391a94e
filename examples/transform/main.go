// Command transform runs one function, written once as an expression, on
// the CPU and on a device through package compute: the device kernel is
// generated from the expression (OpenCL C or CUDA C) and built once
// through the program manager; the CPU evaluates it in Go. The arrays
// stay on the device between the calls, so the repeated Transform makes
// no transfer.
//
//	go run ./examples/transform
//	ONEAPI_DEVICE_SELECTOR=cuda:0 go run ./examples/transform
package main

import (
	"fmt"
	"io"
	"log"
	"os"

	_ "github.com/gour-dev/gour/adapters/all"
	"github.com/gour-dev/gour/compute"
	"github.com/gour-dev/gour/ur"
)

func main() {
	ctx := compute.Context(compute.NewCPU(0))
	if dev, err := ur.DefaultDevice(); err == nil && (dev.Backend() == "opencl" || dev.Backend() == "cuda") {
		d, err := compute.NewDevice(dev)
		if err != nil {
			log.Fatal(err)
		}
		defer d.Release()
		ctx = d
	}
	if err := run(os.Stdout, ctx); err != nil {
		log.Fatal(err)
	}
}

// run computes y = 2x + y three times over n elements, then their sum, in
// ctx.
func run(w io.Writer, ctx compute.Context) error {
	const n = 1 << 20
	xs, ys := make([]float32, n), make([]float32, n)
	for i := range xs {
		xs[i], ys[i] = 1, float32(i%4)
	}
	// README: begin transform
	axpy, err := compute.Expr[float32]("y = a*x + y", map[string]float32{"a": 2})
	if err != nil {
		return err // a bad expression says where and what
	}
	x, err := compute.FromSlice(ctx, xs) // on a device: uploaded at first use
	if err != nil {
		return err
	}
	defer x.Release()
	y, err := compute.FromSlice(ctx, ys)
	if err != nil {
		return err
	}
	defer y.Release()
	for range 3 { // uploaded by the first, x and y then stay on the device
		if err := compute.Transform(ctx, axpy, y, x, y); err != nil { // inputs in name order
			return err
		}
	}
	sum, err := compute.Reduce(ctx, y, compute.Sum[float32]())
	if err != nil {
		return err
	}
	// README: end transform
	got, err := y.ToSlice()
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "y[:4] = %v sum = %.0f uploads = %d\n", got[:4], sum, x.Transfers().Uploads)
	return nil
}
