package main

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"sync"

	"github.com/gour-dev/gour/gokernel"
	"github.com/gour-dev/gour/gokernel/kern"
	"github.com/gour-dev/gour/ur"
)

// sizes are the problem sizes of one run.
type sizes struct {
	vec              int // Axpy and Sum: elements
	trRows, trCols   int // Transpose
	rows, cols       int // Softmax and LayerNorm (cols <= group*rowPer)
	gemmM, gemmN, gk int // SGEMM
}

// presets are the sizes -size chooses from: full on a GPU (the rows of
// Softmax and LayerNorm are the 4096×4096 float32 that triton.py times),
// small on a CPU, tiny for the tests (sizes no work-group divides, to
// check the kernels' bounds).
var presets = map[string]sizes{
	"full":  {vec: 1 << 24, trRows: 4096, trCols: 4096, rows: 4096, cols: 4096, gemmM: 2048, gemmN: 2048, gk: 2048},
	"small": {vec: 1 << 20, trRows: 1024, trCols: 1024, rows: 256, cols: 4096, gemmM: 256, gemmN: 256, gk: 256},
	"tiny":  {vec: 3000, trRows: 70, trCols: 100, rows: 5, cols: 1000, gemmM: 50, gemmN: 40, gk: 30},
}

// A kcase is one kernel at one size, in Go and in C: a launch of each,
// the output both write and the CPU's answer.
type kcase struct {
	name, size string
	work       float64 // bytes one launch moves, or its flops with flops set
	flops      bool

	goRun func(q *ur.Queue) error
	cRun  func(q *ur.Queue) error // nil: no C kernels here (cErr says why)
	cErr  error
	// cpu runs the Go kernel on the CPU with gokernel.RunCPU and returns
	// its output: slow, for small sizes.
	cpu func() ([]float32, error)

	reset      func() error // restores what a launch changes besides out; nil: nothing
	out        ur.Ptr
	want       []float32 // out's expected contents
	atol, rtol float64   // |got-want| <= atol + rtol*|want|
}

// A caseMaker sets up a kernel's case on d: its inputs, uploaded, and the
// CPU reference.
type caseMaker func(d *device, s sizes) (*kcase, error)

// cases are the kernels in the order the table shows them.
var cases = []struct {
	name string
	make caseMaker
}{
	{"axpy", axpyCase},
	{"sum", sumCase},
	{"transpose", transposeCase},
	{"softmax", softmaxCase},
	{"layernorm", layerNormCase},
	{"sgemm", sgemmCase},
}

// knownCase reports whether a kernel of cases is called name.
func knownCase(name string) bool {
	for _, c := range cases {
		if c.name == name {
			return true
		}
	}
	return false
}

// randoms returns n pseudo-random float32s in [lo, hi), the same in
// every run.
func randoms(n int, seed uint64, lo, hi float32) []float32 {
	r := rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
	xs := make([]float32, n)
	for i := range xs {
		xs[i] = lo + (hi-lo)*r.Float32()
	}
	return xs
}

// roundUp is n rounded up to a multiple of m.
func roundUp(n, m int) uint64 { return uint64((n + m - 1) / m * m) }

// slice is p as a kernel's []float32 of n elements.
func slice(p ur.Ptr, n int) gokernel.Slice[float32] { return gokernel.PtrSlice[float32](p, n) }

// cLaunch returns a launch of the C kernel name over r with args through
// ur's Queue.Launch, or the error that keeps C kernels from running here.
func (d *device) cLaunch(name string, r ur.NDRange, args ...ur.Arg) (func(q *ur.Queue) error, error) {
	k, err := d.cKernel(name)
	if err != nil {
		return nil, err
	}
	return func(q *ur.Queue) error { return q.Launch(k, r, args...) }, nil
}

// finish completes c, its Go kernel got with err: the first error of
// the Go kernel and d's allocations, else c with its C launch (or why
// there is none).
func (d *device) finish(c *kcase, err error, cname string, r ur.NDRange, cargs ...ur.Arg) (*kcase, error) {
	if err != nil {
		return nil, err
	}
	if d.err != nil {
		return nil, d.err
	}
	c.cRun, c.cErr = d.cLaunch(cname, r, cargs...)
	return c, nil
}

func axpyCase(d *device, s sizes) (*kcase, error) {
	n, a := s.vec, float32(2.5)
	xs, ys := randoms(n, 1, -1, 1), randoms(n, 2, -1, 1)
	want := make([]float32, n)
	for i := range want {
		want[i] = a*xs[i] + ys[i]
	}
	x, y := d.upload(xs), d.upload(ys)
	r := ur.Range1D(roundUp(n, group)).WithLocal(group)
	k, err := d.goKernel("Axpy")
	c := &kcase{
		name: "axpy", size: fmt.Sprint(n), work: 12 * float64(n),
		goRun: func(q *ur.Queue) error { return LaunchAxpy(k, q, r, a, slice(x, n), slice(y, n)) },
		cpu: func() ([]float32, error) {
			out := append([]float32(nil), ys...)
			return out, gokernel.RunCPU(r, func(it kern.Item) { Axpy(it, a, xs, out) })
		},
		reset: func() error { return d.q.CopyToPtr(y, ur.AsBytes(ys)) },
		out:   y, want: want, atol: 1e-6, rtol: 1e-6,
	}
	return d.finish(c, err, "axpy", r, ur.ArgOf(a), ur.ArgPtr(x), ur.ArgPtr(y), ur.ArgOf(int32(n)))
}

func sumCase(d *device, s sizes) (*kcase, error) {
	n := s.vec
	groups := min(1024, (n+group-1)/group)
	xs := randoms(n, 3, 0, 1)
	// The work-items' shares: item t adds x[t], x[t+G], ... (G work-items).
	want64 := make([]float64, groups)
	for i, v := range xs {
		want64[i%(groups*group)/group] += float64(v)
	}
	want := make([]float32, groups)
	for g, v := range want64 {
		want[g] = float32(v)
	}
	x, partial := d.upload(xs), d.alloc(groups)
	r := ur.Range1D(uint64(groups * group)).WithLocal(group)
	k, err := d.goKernel("Sum")
	c := &kcase{
		name: "sum", size: fmt.Sprint(n), work: 4 * float64(n),
		goRun: func(q *ur.Queue) error { return LaunchSum(k, q, r, slice(x, n), slice(partial, groups)) },
		cpu: func() ([]float32, error) {
			out := make([]float32, groups)
			return out, gokernel.RunCPU(r, func(it kern.Item) { Sum(it, xs, out) })
		},
		out: partial, want: want, atol: 1e-3, rtol: 1e-4,
	}
	return d.finish(c, err, "sum", r, ur.ArgPtr(x), ur.ArgOf(int32(n)), ur.ArgPtr(partial))
}

func transposeCase(d *device, s sizes) (*kcase, error) {
	rows, cols := s.trRows, s.trCols
	xs := randoms(rows*cols, 4, -1, 1)
	want := make([]float32, rows*cols)
	for i := range rows {
		for j := range cols {
			want[j*rows+i] = xs[i*cols+j]
		}
	}
	in, out := d.upload(xs), d.alloc(rows*cols)
	// A work-group of tileDim×tileRows a tileDim×tileDim tile.
	r := ur.Range2D(roundUp(cols, tileDim), roundUp(rows, tileDim)/tileDim*tileRows).WithLocal(tileDim, tileRows)
	k, err := d.goKernel("Transpose")
	c := &kcase{
		name: "transpose", size: fmt.Sprintf("%dx%d", rows, cols), work: 8 * float64(rows*cols),
		goRun: func(q *ur.Queue) error {
			return LaunchTranspose(k, q, r, slice(in, rows*cols), slice(out, rows*cols), int32(rows), int32(cols))
		},
		cpu: func() ([]float32, error) {
			o := make([]float32, rows*cols)
			return o, gokernel.RunCPU(r, func(it kern.Item) { Transpose(it, xs, o, int32(rows), int32(cols)) })
		},
		out: out, want: want,
	}
	return d.finish(c, err, "transpose", r, ur.ArgPtr(in), ur.ArgPtr(out), ur.ArgOf(int32(rows)), ur.ArgOf(int32(cols)))
}

// checkRows reports whether Softmax and LayerNorm take rows of cols.
func checkRows(cols int) error {
	if cols < 1 || cols > group*rowPer {
		return fmt.Errorf("rows of %d columns: Softmax and LayerNorm take 1 to %d", cols, group*rowPer)
	}
	return nil
}

func softmaxCase(d *device, s sizes) (*kcase, error) {
	rows, cols := s.rows, s.cols
	if err := checkRows(cols); err != nil {
		return nil, err
	}
	xs := randoms(rows*cols, 5, -4, 4)
	want := make([]float32, rows*cols)
	for i := range rows {
		row := xs[i*cols : (i+1)*cols]
		m := math.Inf(-1)
		for _, v := range row {
			m = max(m, float64(v))
		}
		var sum float64
		for _, v := range row {
			sum += math.Exp(float64(v) - m)
		}
		for j, v := range row {
			want[i*cols+j] = float32(math.Exp(float64(v)-m) / sum)
		}
	}
	x, y := d.upload(xs), d.alloc(rows*cols)
	r := ur.Range1D(uint64(rows * group)).WithLocal(group)
	k, err := d.goKernel("Softmax")
	c := &kcase{
		name: "softmax", size: fmt.Sprintf("%dx%d", rows, cols), work: 8 * float64(rows*cols),
		goRun: func(q *ur.Queue) error { return LaunchSoftmax(k, q, r, slice(x, rows*cols), slice(y, rows*cols), cols) },
		cpu: func() ([]float32, error) {
			o := make([]float32, rows*cols)
			return o, gokernel.RunCPU(r, func(it kern.Item) { Softmax(it, xs, o, cols) })
		},
		out: y, want: want, atol: 1e-7, rtol: 1e-4,
	}
	return d.finish(c, err, "softmax", r, ur.ArgPtr(x), ur.ArgPtr(y), ur.ArgOf(int32(cols)))
}

func layerNormCase(d *device, s sizes) (*kcase, error) {
	rows, cols := s.rows, s.cols
	if err := checkRows(cols); err != nil {
		return nil, err
	}
	const eps = 1e-5
	xs, ws, bs := randoms(rows*cols, 6, -2, 2), randoms(cols, 7, 0.5, 1.5), randoms(cols, 8, -0.5, 0.5)
	want := make([]float32, rows*cols)
	for i := range rows {
		row := xs[i*cols : (i+1)*cols]
		var mean, variance float64
		for _, v := range row {
			mean += float64(v)
		}
		mean /= float64(cols)
		for _, v := range row {
			variance += (float64(v) - mean) * (float64(v) - mean)
		}
		rstd := 1 / math.Sqrt(variance/float64(cols)+eps)
		for j, v := range row {
			want[i*cols+j] = float32((float64(v)-mean)*rstd*float64(ws[j]) + float64(bs[j]))
		}
	}
	x, w, b, y := d.upload(xs), d.upload(ws), d.upload(bs), d.alloc(rows*cols)
	r := ur.Range1D(uint64(rows * group)).WithLocal(group)
	k, err := d.goKernel("LayerNorm")
	c := &kcase{
		name: "layernorm", size: fmt.Sprintf("%dx%d", rows, cols), work: 8*float64(rows*cols) + 8*float64(cols),
		goRun: func(q *ur.Queue) error {
			return LaunchLayerNorm(k, q, r, slice(x, rows*cols), slice(w, cols), slice(b, cols), slice(y, rows*cols), cols, eps)
		},
		cpu: func() ([]float32, error) {
			o := make([]float32, rows*cols)
			return o, gokernel.RunCPU(r, func(it kern.Item) { LayerNorm(it, xs, ws, bs, o, cols, eps) })
		},
		out: y, want: want, atol: 1e-4, rtol: 1e-4,
	}
	return d.finish(c, err, "layer_norm", r, ur.ArgPtr(x), ur.ArgPtr(w), ur.ArgPtr(b), ur.ArgPtr(y), ur.ArgOf(int32(cols)), ur.ArgOf(float32(eps)))
}

func sgemmCase(d *device, s sizes) (*kcase, error) {
	m, n, kk := s.gemmM, s.gemmN, s.gk
	as, bs := randoms(m*kk, 9, -1, 1), randoms(kk*n, 10, -1, 1)
	want := matmul(as, bs, m, n, kk)
	a, b, cm := d.upload(as), d.upload(bs), d.alloc(m*n)
	r := ur.Range2D(roundUp(n, gemmTile), roundUp(m, gemmTile)).WithLocal(gemmTile, gemmTile)
	k, err := d.goKernel("SGEMM")
	c := &kcase{
		name: "sgemm", size: fmt.Sprintf("%dx%dx%d", m, n, kk), work: 2 * float64(m) * float64(n) * float64(kk), flops: true,
		goRun: func(q *ur.Queue) error {
			return LaunchSGEMM(k, q, r, slice(a, m*kk), slice(b, kk*n), slice(cm, m*n), int32(m), int32(n), int32(kk))
		},
		cpu: func() ([]float32, error) {
			o := make([]float32, m*n)
			return o, gokernel.RunCPU(r, func(it kern.Item) { SGEMM(it, as, bs, o, int32(m), int32(n), int32(kk)) })
		},
		out: cm, want: want, atol: 1e-3, rtol: 1e-4,
	}
	return d.finish(c, err, "sgemm", r, ur.ArgPtr(a), ur.ArgPtr(b), ur.ArgPtr(cm), ur.ArgOf(int32(m)), ur.ArgOf(int32(n)), ur.ArgOf(int32(kk)))
}

// matmul is A·B in float64, rounded, for row-major A (m×k) and B (k×n):
// SGEMM's reference, its rows computed on every CPU.
func matmul(a, b []float32, m, n, k int) []float32 {
	c := make([]float32, m*n)
	var wg sync.WaitGroup
	rows := make(chan int, m)
	for i := range m {
		rows <- i
	}
	close(rows)
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			acc := make([]float64, n)
			for i := range rows {
				clear(acc)
				for l := range k {
					ail := float64(a[i*k+l])
					for j, blj := range b[l*n : (l+1)*n] {
						acc[j] += ail * float64(blj)
					}
				}
				for j, v := range acc {
					c[i*n+j] = float32(v)
				}
			}
		})
	}
	wg.Wait()
	return c
}
