package main

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/gour-dev/gour/blas"
	"github.com/gour-dev/gour/cmd/internal/cli"
	"github.com/gour-dev/gour/dtype"
	"github.com/gour-dev/gour/ur"
)

// blasCommand is `urbench blas`.
func blasCommand() (*cli.Command, func(io.Writer) error) {
	c := cli.New("urbench blas", "[-device SELECTOR] [-backend gour|clblast|cublas] [-types LIST] [-n N] [-vs-n N] [-small N] [-calls N] [-rounds N] [-mem usm|buffer] [-quick] [-c-small LIB]", `
Time package blas's GEMM on the first device the selector lets through
that the backend serves (-backend "": the device's vendor library where it
loads, else the own kernels). Each figure is one line of key=value pairs,
the median of the rounds with their minimum and maximum:

  blas.gemm        C = A·B, n×n×n, no transposes, alpha 1, beta 0, for
                   each of -types: TFLOP/s counting 2n³ operations, and
                   ms a call
  blas.gemm.vs     float32 at -vs-n, the own kernels against the vendor
                   library of the device (both on one device, one after
                   the other), and the ratio of their TFLOP/s, own/vendor
  blas.gemm.small  µs a call of a -small square float32 GEMM, -calls
                   calls back to back, then a wait
  blas.gemm.small.vs  with -c-small (cuBLAS): the same calls through gour
                   and through cuBLAS called from C, rounds alternating
                   in this process, ns a call until the last call returns
                   (enqueue) and until the queue is drained (total), and
                   the ratios gour/C

Every product is read back and one element checked.`)
	backend := c.Flags.String("backend", "", "the BLAS backend: gour, clblast or cublas; empty for the device's vendor library where it loads")
	types := c.Flags.String("types", "float32,float64,float16,bfloat16", "element types of blas.gemm, comma separated")
	n := c.Flags.Int("n", 8192, "the size of blas.gemm")
	vsN := c.Flags.Int("vs-n", 4096, "the size of blas.gemm.vs; 0 leaves it out")
	small := c.Flags.Int("small", 64, "the size of blas.gemm.small; 0 leaves it out")
	calls := c.Flags.Int("calls", 2000, "calls per round of blas.gemm.small")
	rounds := c.Flags.Int("rounds", 5, "rounds of each measurement")
	memKind := c.Flags.String("mem", "", "operands in usm or buffer memory; empty: buffers for clblast, USM elsewhere where the device has it")
	cSmall := c.Flags.String("c-small", "", "with -backend cublas: also alternate rounds of -calls -small SGEMMs through gour with rounds through cuBLAS called from C in this process, from the library `LIB` built from scripts/bench/c/cublas_small.c (blas.gemm.small.vs)")
	quick := c.Flags.Bool("quick", false, "small sizes for a quick check (PoCL, tests): -n 256, -vs-n 128, -calls 20, -rounds 2, unless given")
	c.DeviceFlag()
	return c, func(w io.Writer) error {
		if *quick {
			applyQuick(c, []quickSize{{"n", n, 256}, {"vs-n", vsN, 128}, {"calls", calls, 20}, {"rounds", rounds, 2}})
		}
		b := &blasBench{w: w, c: c, backend: blas.Backend(*backend), n: *n, vsN: *vsN, small: *small, calls: *calls, rounds: *rounds, cSmall: *cSmall}
		if err := b.parse(*types, *memKind); err != nil {
			return err
		}
		return b.run()
	}
}

type blasBench struct {
	w       io.Writer
	c       *cli.Command
	backend blas.Backend
	types   []dtype.Type
	usm     *bool // nil: the backend's choice
	n, vsN  int
	small   int
	calls   int
	rounds  int
	cSmall  string // -c-small: the C library of blas.gemm.small.vs

	dev *ur.Device
	ctx *ur.Context
	q   *ur.Queue
}

func (b *blasBench) parse(types, memKind string) error {
	switch b.backend {
	case "", blas.BackendGour, blas.BackendCLBlast, blas.BackendCUBLAS:
	default:
		return cli.Usagef(b.c.Name, "-backend %q: want gour, clblast or cublas", b.backend)
	}
	for _, s := range strings.Split(types, ",") {
		all := []dtype.Type{dtype.Float32, dtype.Float64, dtype.Float16, dtype.BFloat16}
		i := slices.IndexFunc(all, func(t dtype.Type) bool { return t.String() == s })
		if i < 0 {
			return cli.Usagef(b.c.Name, "-types: %q is not float32, float64, float16 or bfloat16", s)
		}
		b.types = append(b.types, all[i])
	}
	switch memKind {
	case "":
	case "usm", "buffer":
		usm := memKind == "usm"
		b.usm = &usm
	default:
		return cli.Usagef(b.c.Name, "-mem %q: want usm or buffer", memKind)
	}
	if b.n < 1 || b.vsN < 0 || b.small < 0 || b.calls < 1 || b.rounds < 1 {
		return cli.Usagef(b.c.Name, "-n, -calls and -rounds must be at least 1, -vs-n and -small at least 0")
	}
	return nil
}

// device picks the first selected device the backend serves: CUDA for
// cuBLAS, OpenCL for CLBlast, any with OpenCL C or CUDA C kernels else
// (CUDA first).
func (b *blasBench) device() error {
	sys, sel, err := b.c.Discover()
	if err != nil {
		return err
	}
	want := map[blas.Backend][]string{blas.BackendCUBLAS: {"cuda"}, blas.BackendCLBlast: {"opencl"}}[b.backend]
	if want == nil {
		want = []string{"cuda", "opencl", "level_zero"}
	}
	for _, backend := range want {
		for _, d := range sys.Devices {
			if d.Backend() == backend {
				b.dev = d
				return nil
			}
		}
	}
	return cli.NoDevice(sys, sel, strings.Join(want, " or "))
}

func (b *blasBench) run() error {
	if err := b.device(); err != nil {
		return err
	}
	ctx, err := ur.NewContext(b.dev)
	if err != nil {
		return err
	}
	defer ctx.Release()
	q, err := ctx.NewQueue(b.dev, ur.QueueProperties{})
	if err != nil {
		return err
	}
	defer q.Release()
	b.ctx, b.q = ctx, q
	h, err := blas.New(q, blas.Options{Backend: b.backend})
	if err != nil {
		return err
	}
	defer h.Close()
	fmt.Fprintf(b.w, "# device=%q backend=%s rounds=%d\n", b.dev.Name(), h.Backend(), b.rounds)
	info := b.dev.Info()
	for _, t := range b.types {
		if t == dtype.Float64 && !info.FP64 || t == dtype.Float16 && !info.FP16 {
			fmt.Fprintf(b.w, "# blas.gemm type=%s skipped: the device lacks it\n", t)
			continue
		}
		before := h.Fallbacks()
		r, err := b.gemm(h, t, b.n)
		if err != nil {
			return fmt.Errorf("blas.gemm %s n=%d: %w", t, b.n, err)
		}
		b.print("blas.gemm", h, t, b.n, r, h.Fallbacks()-before)
	}
	if b.vsN > 0 {
		if err := b.versus(h); err != nil {
			return err
		}
	}
	if b.small > 0 {
		if err := b.smallCalls(h); err != nil {
			return err
		}
		if b.cSmall != "" {
			return blasSmallVsC(b.w, h, b.cSmall, b.small, b.calls, b.rounds)
		}
	}
	return nil
}

// timing is a measurement's seconds a call, a value a round.
type timing []float64

// print writes a GEMM figure; fell is how many of its calls the vendor
// library left to the own kernels.
func (b *blasBench) print(name string, h *blas.Handle, t dtype.Type, n int, r timing, fell int64) {
	flop := 2 * math.Pow(float64(n), 3)
	med := median(r)
	note := ""
	if fell > 0 {
		note = fmt.Sprintf(" fallbacks=%d", fell)
	}
	fmt.Fprintf(b.w, "%s backend=%s type=%s n=%d tflops=%.2f ms=%.3f min_ms=%.3f max_ms=%.3f%s\n",
		name, h.Backend(), t, n, flop/med/1e12, med*1e3, slices.Min(r)*1e3, slices.Max(r)*1e3, note)
}

// versus times float32 GEMM at vsN on the own kernels and on the vendor
// library, each with a Handle of its own on the queue.
func (b *blasBench) versus(h *blas.Handle) error {
	vendor := map[string]blas.Backend{"cuda": blas.BackendCUBLAS, "opencl": blas.BackendCLBlast}[b.dev.Backend()]
	if vendor == "" {
		fmt.Fprintf(b.w, "# blas.gemm.vs skipped: no vendor library for %s devices\n", b.dev.Backend())
		return nil
	}
	var med [2]float64
	for i, backend := range []blas.Backend{blas.BackendGour, vendor} {
		hb, err := blas.New(b.q, blas.Options{Backend: backend})
		if errors.Is(err, blas.ErrLibraryUnavailable) {
			fmt.Fprintf(b.w, "# blas.gemm.vs skipped: %v\n", err)
			return nil
		}
		if err != nil {
			return err
		}
		r, err := b.gemm(hb, dtype.Float32, b.vsN)
		if err == nil {
			b.print("blas.gemm.vs", hb, dtype.Float32, b.vsN, r, hb.Fallbacks())
			med[i] = median(r)
		}
		hb.Close()
		if err != nil {
			return fmt.Errorf("blas.gemm.vs %s: %w", backend, err)
		}
	}
	fmt.Fprintf(b.w, "blas.gemm.vs.ratio own=gour vendor=%s type=float32 n=%d ratio=%.3f\n", vendor, b.vsN, med[1]/med[0])
	return nil
}

// operands makes A, B and C of n×n elements of t, A and B filled with
// 0.5 (so every element of C = A·B is n/4, exact in every type up to
// n = 8192 and more), C with NaN (beta 0 must not read it).
func (b *blasBench) operands(h *blas.Handle, t dtype.Type, n int) (ops [3]blas.Operand, free func(), err error) {
	size := uint64(n) * uint64(n) * uint64(t.Size())
	usm := b.dev.Info().USM.Device && h.Backend() != blas.BackendCLBlast
	if b.usm != nil {
		usm = *b.usm
	}
	var frees []func()
	free = func() {
		for _, f := range frees {
			f()
		}
	}
	half, nan := scalarBytes(t, 0.5), scalarBytes(t, math.NaN())
	for i := range ops {
		pattern := half
		if i == 2 {
			pattern = nan
		}
		if usm {
			u, err := b.ctx.AllocDevice(b.dev, size)
			if err != nil {
				free()
				return ops, nil, err
			}
			frees = append(frees, func() { u.Free() })
			ev, err := b.q.EnqueueMemFill(u.Ptr(), pattern, size)
			if err != nil {
				free()
				return ops, nil, err
			}
			ev.Release()
			ops[i] = blas.OnPtr(u.Ptr())
			continue
		}
		m, err := b.ctx.NewBuffer(ur.MemReadWrite, size)
		if err != nil {
			free()
			return ops, nil, err
		}
		frees = append(frees, func() { m.Release() })
		ev, err := b.q.EnqueueFill(m, pattern, 0, size)
		if err != nil {
			free()
			return ops, nil, err
		}
		ev.Release()
		ops[i] = blas.OnBuffer(m, 0)
	}
	return ops, free, nil
}

// scalarBytes is v stored as t.
func scalarBytes(t dtype.Type, v float64) []byte {
	b := make([]byte, t.Size())
	switch t {
	case dtype.Float32:
		binary.LittleEndian.PutUint32(b, math.Float32bits(float32(v)))
	case dtype.Float64:
		binary.LittleEndian.PutUint64(b, math.Float64bits(v))
	case dtype.Float16:
		binary.LittleEndian.PutUint16(b, dtype.Float16Bits(float32(v)))
	case dtype.BFloat16:
		binary.LittleEndian.PutUint16(b, dtype.BFloat16Bits(float32(v)))
	}
	return b
}

// gemm times C = A·B at n×n×n: a first call (building what it builds),
// checked, then rounds of as many calls as fill about 0.2 s, each round
// ended by a wait for the queue.
func (b *blasBench) gemm(h *blas.Handle, t dtype.Type, n int) (timing, error) {
	ops, free, err := b.operands(h, t, n)
	if err != nil {
		return nil, err
	}
	defer free()
	a := blas.GemmArgs{Type: t, M: n, N: n, K: n, Alpha: 1, A: ops[0], B: ops[1], C: ops[2], LDA: n, LDB: n, LDC: n}
	if err := h.Gemm(a); err != nil {
		return nil, err
	}
	if err := b.q.Finish(); err != nil {
		return nil, err
	}
	if err := b.check(ops[2], t, float64(n)/4); err != nil {
		return nil, err
	}
	// The first call includes building kernels: time one more to size
	// the rounds.
	start := time.Now()
	if err := h.Gemm(a); err != nil {
		return nil, err
	}
	if err := b.q.Finish(); err != nil {
		return nil, err
	}
	reps := max(1, int(0.2/time.Since(start).Seconds()))
	r := make(timing, b.rounds)
	for i := range r {
		start := time.Now()
		for range reps {
			if err := h.Gemm(a); err != nil {
				return nil, err
			}
		}
		if err := b.q.Finish(); err != nil {
			return nil, err
		}
		r[i] = time.Since(start).Seconds() / float64(reps)
	}
	return r, b.check(ops[2], t, float64(n)/4)
}

// check reads C's first element and compares it with want.
func (b *blasBench) check(c blas.Operand, t dtype.Type, want float64) error {
	buf := make([]byte, t.Size())
	var err error
	if m, off := c.Buffer(); m != nil {
		err = b.q.ReadBuffer(m, off, buf)
	} else {
		err = b.q.CopyFromPtr(buf, c.Ptr())
	}
	if err != nil {
		return err
	}
	var got float64
	switch t {
	case dtype.Float32:
		got = float64(math.Float32frombits(binary.LittleEndian.Uint32(buf)))
	case dtype.Float64:
		got = math.Float64frombits(binary.LittleEndian.Uint64(buf))
	case dtype.Float16:
		got = float64(dtype.Float16From(binary.LittleEndian.Uint16(buf)))
	case dtype.BFloat16:
		got = float64(dtype.BFloat16From(binary.LittleEndian.Uint16(buf)))
	}
	if got != want {
		return fmt.Errorf("C[0,0] = %v, want %v", got, want)
	}
	return nil
}

// smallCalls times -calls float32 GEMMs of -small, back to back, then a
// wait: the cost of a call where the device is not the limit.
func (b *blasBench) smallCalls(h *blas.Handle) error {
	n := b.small
	ops, free, err := b.operands(h, dtype.Float32, n)
	if err != nil {
		return err
	}
	defer free()
	a := blas.GemmArgs{Type: dtype.Float32, M: n, N: n, K: n, Alpha: 1, A: ops[0], B: ops[1], C: ops[2], LDA: n, LDB: n, LDC: n}
	if err := h.Gemm(a); err != nil { // builds what it builds
		return err
	}
	if err := b.q.Finish(); err != nil {
		return err
	}
	r := make(timing, b.rounds)
	for i := range r {
		start := time.Now()
		for range b.calls {
			if err := h.Gemm(a); err != nil {
				return err
			}
		}
		if err := b.q.Finish(); err != nil {
			return err
		}
		r[i] = time.Since(start).Seconds() / float64(b.calls)
	}
	if err := b.check(ops[2], dtype.Float32, float64(n)/4); err != nil {
		return err
	}
	med := median(r)
	fmt.Fprintf(b.w, "blas.gemm.small backend=%s type=float32 n=%d calls=%d us=%.3f min_us=%.3f max_us=%.3f\n",
		h.Backend(), n, b.calls, med*1e6, slices.Min(r)*1e6, slices.Max(r)*1e6)
	return nil
}
