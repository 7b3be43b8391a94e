// Command gokernels runs kernels written in Go — axpy, a shared-memory
// reduction, the same with subgroup shuffles (where the device has
// them), an atomic histogram, a transpose, a row softmax, a tiled
// SGEMM, a work-group scan and a layer norm — on the
// CPU, as Go, and on the default device, compiled (go generate made
// zz_kernels.go from kernels.go with command gokernel), and checks that
// both agree.
//
//	go run ./examples/gokernels
//	ONEAPI_DEVICE_SELECTOR=cuda:0 go run ./examples/gokernels
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"math"
	"os"

	_ "github.com/gour-dev/gour/adapters/all"
	"github.com/gour-dev/gour/gokernel"
	"github.com/gour-dev/gour/gokernel/kern"
	"github.com/gour-dev/gour/programmgr"
	"github.com/gour-dev/gour/ur"
)

func main() {
	dev, err := ur.DefaultDevice()
	if err != nil {
		log.Fatal(err)
	}
	if err := run(os.Stdout, dev); err != nil {
		log.Fatal(err)
	}
}

const n = 1 << 16

// run runs every kernel on the CPU and on dev and prints what they agree
// on.
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
	mgr, err := programmgr.New(ctx, programmgr.Options{})
	if err != nil {
		return err
	}
	defer mgr.Close()
	d := &device{ctx: ctx, q: q, mgr: mgr, dev: dev}
	defer d.release()

	xs, ys := make([]float32, n), make([]float32, n)
	for i := range xs {
		xs[i], ys[i] = float32(i%100)/100, 1
	}
	// README: begin launch
	// On the CPU: the Go function itself, a goroutine per work-item of a
	// group, a real barrier between them.
	cpuY := append([]float32(nil), ys...)
	err = gokernel.RunCPU(ur.Range1D(n), func(it kern.Item) { Axpy(it, 2, xs, cpuY) })
	if err != nil {
		return err
	}
	// On the device: compiled once, cached by the program manager.
	axpy, err := kernels.Kernel(context.Background(), mgr, dev, "Axpy")
	if err != nil {
		return err // a device without what the kernel needs says so
	}
	defer axpy.Release()
	x, y := d.upload(xs), d.upload(ys)
	// LaunchAxpy is generated with Axpy's Go parameter types: Go's
	// compiler checks the arguments.
	err = LaunchAxpy(axpy, q, ur.Range1D(n), 2, gokernel.BufferSlice[float32](x, n), gokernel.BufferSlice[float32](y, n))
	if err != nil {
		return err
	}
	// README: end launch
	if err := d.agree("Axpy", y, cpuY, 0); err != nil {
		return err
	}

	groups := n / groupSize
	cpuSums := make([]float32, groups)
	if err := gokernel.RunCPU(ur.Range1D(n).WithLocal(groupSize), func(it kern.Item) { Sum(it, xs, cpuSums) }); err != nil {
		return err
	}
	sums := d.alloc(4 * groups)
	if err := d.launch("Sum", ur.Range1D(n).WithLocal(groupSize), gokernel.Buffer[float32](x, n), gokernel.Buffer[float32](sums, groups)); err != nil {
		return err
	}
	if err := d.agree("Sum", sums, cpuSums, 1e-5); err != nil {
		return err
	}

	// The same sums with subgroup shuffles, where the device has them.
	ran := 8
	shuffled := make([]float32, groups)
	if err := gokernel.RunCPU(ur.Range1D(n).WithLocal(groupSize), func(it kern.Item) { ShuffleSum(it, xs, shuffled) }); err != nil {
		return err
	}
	for g, s := range shuffled {
		if math.Abs(float64(s-cpuSums[g])) > 1e-5*math.Max(1, math.Abs(float64(cpuSums[g]))) {
			return fmt.Errorf("ShuffleSum[%d] = %v on the CPU, Sum's %v", g, s, cpuSums[g])
		}
	}
	shuffleSum, err := kernels.Kernel(context.Background(), mgr, dev, "ShuffleSum")
	var lacks *gokernel.AspectError
	switch {
	case errors.As(err, &lacks):
		fmt.Fprintf(w, "ShuffleSum skipped: %v\n", err)
	case err != nil:
		return err
	default:
		defer shuffleSum.Release()
		ssums := d.alloc(4 * groups)
		if err := LaunchShuffleSum(shuffleSum, q, ur.Range1D(n).WithLocal(groupSize), gokernel.BufferSlice[float32](x, n), gokernel.BufferSlice[float32](ssums, groups)); err != nil {
			return err
		}
		if err := d.agree("ShuffleSum", ssums, shuffled, 1e-5); err != nil {
			return err
		}
		ran++
	}

	data := make([]uint8, n)
	for i := range data {
		data[i] = uint8(i * 7 % 251)
	}
	cpuBins := make([]int32, 256)
	if err := gokernel.RunCPU(ur.Range1D(n), func(it kern.Item) { Histogram(it, data, cpuBins) }); err != nil {
		return err
	}
	bins := d.alloc(4 * 256)
	if err := d.launch("Histogram", ur.Range1D(n), gokernel.Buffer[uint8](d.uploadBytes(data), n), gokernel.Buffer[int32](bins, 256)); err != nil {
		return err
	}
	if err := d.agreeInts("Histogram", bins, cpuBins); err != nil {
		return err
	}

	const rows, cols = 256, 256
	cpuT := make([]float32, rows*cols)
	if err := gokernel.RunCPU(ur.Range2D(cols, rows), func(it kern.Item) { Transpose(it, xs[:rows*cols], cpuT, rows, cols) }); err != nil {
		return err
	}
	tr := d.alloc(4 * rows * cols)
	if err := d.launch("Transpose", ur.Range2D(cols, rows), gokernel.Buffer[float32](x, rows*cols), gokernel.Buffer[float32](tr, rows*cols),
		gokernel.Value(int32(rows)), gokernel.Value(int32(cols))); err != nil {
		return err
	}
	if err := d.agree("Transpose", tr, cpuT, 0); err != nil {
		return err
	}

	cpuS := append([]float32(nil), xs[:rows*cols]...)
	if err := gokernel.RunCPU(ur.Range1D(rows), func(it kern.Item) { Softmax(it, cpuS, cols) }); err != nil {
		return err
	}
	sm := d.upload(xs[:rows*cols])
	if err := d.launch("Softmax", ur.Range1D(rows), gokernel.Buffer[float32](sm, rows*cols), gokernel.Value(cols)); err != nil {
		return err
	}
	if err := d.agree("Softmax", sm, cpuS, 1e-5); err != nil {
		return err
	}
	// A tiled SGEMM of 96×80 by 80×112, in 16×16 work-groups.
	const gm, gn, gk = 96, 112, 80
	ga, gb := xs[:gm*gk], xs[1000:1000+gk*gn]
	cpuC := make([]float32, gm*gn)
	sgemm := ur.Range2D(gn, gm).WithLocal(tile, tile)
	if err := gokernel.RunCPU(sgemm, func(it kern.Item) { SGEMM(it, ga, gb, cpuC, gm, gn, gk) }); err != nil {
		return err
	}
	for i := range gm { // the CPU run against a plain triple loop
		for j := range gn {
			var want float32
			for l := range gk {
				want += ga[i*gk+l] * gb[l*gn+j]
			}
			if math.Abs(float64(cpuC[i*gn+j]-want)) > 1e-4*math.Max(1, math.Abs(float64(want))) {
				return fmt.Errorf("SGEMM on the CPU: c[%d,%d] = %v, want %v", i, j, cpuC[i*gn+j], want)
			}
		}
	}
	dc := d.alloc(4 * gm * gn)
	if err := d.launch("SGEMM", sgemm, gokernel.Buffer[float32](d.upload(ga), gm*gk), gokernel.Buffer[float32](d.upload(gb), gk*gn),
		gokernel.Buffer[float32](dc, gm*gn), gokernel.Value(int32(gm)), gokernel.Value(int32(gn)), gokernel.Value(int32(gk))); err != nil {
		return err
	}
	if err := d.agree("SGEMM", dc, cpuC, 1e-4); err != nil {
		return err
	}

	// Prefix sums of each 256-element work-group.
	vals := make([]int32, n)
	for i := range vals {
		vals[i] = int32(i%7) - 3
	}
	cpuScan := make([]int32, n)
	if err := gokernel.RunCPU(ur.Range1D(n).WithLocal(scanGroup), func(it kern.Item) { Scan(it, vals, cpuScan) }); err != nil {
		return err
	}
	var run int32
	for i, v := range vals {
		if i%scanGroup == 0 {
			run = 0
		}
		if run += v; cpuScan[i] != run {
			return fmt.Errorf("Scan on the CPU: out[%d] = %d, want %d", i, cpuScan[i], run)
		}
	}
	scanned := d.alloc(4 * n)
	if err := d.launch("Scan", ur.Range1D(n).WithLocal(scanGroup), gokernel.Buffer[int32](d.uploadBytes(ur.AsBytes(vals)), n), gokernel.Buffer[int32](scanned, n)); err != nil {
		return err
	}
	if err := d.agreeInts("Scan", scanned, cpuScan); err != nil {
		return err
	}

	// Layer norm of 256 rows of 256.
	gamma, beta := make([]float32, cols), make([]float32, cols)
	for j := range cols {
		gamma[j], beta[j] = 1+float32(j%5)/10, float32(j%3)/10
	}
	cpuLN := make([]float32, rows*cols)
	if err := gokernel.RunCPU(ur.Range1D(rows), func(it kern.Item) { LayerNorm(it, xs[:rows*cols], gamma, beta, cpuLN, cols, 1e-5) }); err != nil {
		return err
	}
	ln := d.alloc(4 * rows * cols)
	if err := d.launch("LayerNorm", ur.Range1D(rows), gokernel.Buffer[float32](x, rows*cols), gokernel.Buffer[float32](d.upload(gamma), cols),
		gokernel.Buffer[float32](d.upload(beta), cols), gokernel.Buffer[float32](ln, rows*cols), gokernel.Value(cols), gokernel.Value(float32(1e-5))); err != nil {
		return err
	}
	if err := d.agree("LayerNorm", ln, cpuLN, 1e-4); err != nil {
		return err
	}

	var total float32
	for _, s := range cpuSums {
		total += s
	}
	fmt.Fprintf(w, "%d Go kernels agree on the CPU and %s; sum = %.0f, y[1] = %v\n", ran, dev.Backend(), total, cpuY[1])
	return nil
}

// device holds a device's context, queue, manager and the buffers made.
type device struct {
	ctx  *ur.Context
	q    *ur.Queue
	mgr  *programmgr.Manager
	dev  *ur.Device
	mems []*ur.Mem
	err  error
}

func (d *device) uploadBytes(b []byte) *ur.Mem {
	m, err := d.ctx.NewBufferFrom(ur.MemReadWrite, b)
	if err != nil && d.err == nil {
		d.err = err
	}
	d.mems = append(d.mems, m)
	return m
}

func (d *device) upload(f []float32) *ur.Mem { return d.uploadBytes(ur.AsBytes(f)) }
func (d *device) alloc(size int) *ur.Mem     { return d.uploadBytes(make([]byte, size)) }

func (d *device) release() {
	for _, m := range d.mems {
		if m != nil {
			m.Release()
		}
	}
}

// launch launches the kernel called name.
func (d *device) launch(name string, r ur.NDRange, args ...gokernel.Arg) error {
	if d.err != nil {
		return d.err
	}
	k, err := kernels.Kernel(context.Background(), d.mgr, d.dev, name)
	if err != nil {
		return err
	}
	defer k.Release()
	return k.Launch(d.q, r, args...)
}

// agree reads m and compares it with the CPU's want, to a relative tol.
func (d *device) agree(name string, m *ur.Mem, want []float32, tol float64) error {
	got := make([]float32, len(want))
	if err := d.q.ReadBuffer(m, 0, ur.AsBytes(got)); err != nil {
		return err
	}
	for i := range want {
		if math.Abs(float64(got[i]-want[i])) > tol*math.Max(1, math.Abs(float64(want[i]))) {
			return fmt.Errorf("%s[%d] = %v on %s, %v on the CPU", name, i, got[i], d.dev.Backend(), want[i])
		}
	}
	return nil
}

func (d *device) agreeInts(name string, m *ur.Mem, want []int32) error {
	got := make([]int32, len(want))
	if err := d.q.ReadBuffer(m, 0, ur.AsBytes(got)); err != nil {
		return err
	}
	for i := range want {
		if got[i] != want[i] {
			return fmt.Errorf("%s[%d] = %d on %s, %d on the CPU", name, i, got[i], d.dev.Backend(), want[i])
		}
	}
	return nil
}
