package compute

import (
	"fmt"
	"sync"

	"github.com/gour-dev/gour/blas"
	"github.com/gour-dev/gour/dtype"
	gblas "gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"
)

// MatMulOptions are MatMulWith's options; the zero value is MatMul's
// plain product.
type MatMulOptions struct {
	// TransA and TransB multiply by the transpose of a or b: a is then
	// stored [K, M] (a batch [B, K, M]), b [N, K].
	TransA, TransB bool
	// Alpha scales the product; 0 is taken as 1 (a zero product is
	// Fill's).
	Alpha float64
	// Beta scales c's old value, added to the product: c = Alpha·a·b +
	// Beta·c. 0: c is not read (Out), else c is InOut.
	Beta float64
}

// MatMul computes c = a·b (a and b In, c Out): a [M, K] by b [K, N]
// into c [M, N]; or a batch, a leading axis of B products: a [B, M, K]
// by b [B, K, N] into c [B, M, N], either operand of the batch 2-D
// instead, one matrix multiplying every matrix of the other. Shapes are
// checked before anything changes: an ErrShape names a's and b's
// shapes (and c's where c is the one that does not fit). c must be
// another array than a and b (ErrInvalid).
//
// On a device context the product is package blas's GEMM (cuBLAS on
// CUDA, CLBlast on OpenCL where it loads and the arrays are buffers,
// blas's own kernels elsewhere), enqueued on the context's queue; on the
// CPU context it is gonum's native BLAS, float16 and bfloat16 converted
// to float32 and back. Float16 and BFloat16 accumulate in float32
// everywhere; Float16 on a device needs half precision (the fp16
// aspect), float64 double precision (fp64): an *AspectError, which
// matches ur.ErrUnsupportedFeature, names the aspect the device lacks.
func MatMul[T Float](ctx Context, c, a, b *Array[T]) error {
	return MatMulWith(ctx, c, a, b, MatMulOptions{})
}

// MatMulWith computes c = Alpha·op(a)·op(b) + Beta·c, op a transpose
// where o asks for one, as MatMul computes c = a·b.
func MatMulWith[T Float](ctx Context, c, a, b *Array[T], o MatMulOptions) error {
	for _, x := range []struct {
		what string
		a    *Array[T]
	}{{"MatMul output", c}, {"MatMul a", a}, {"MatMul b", b}} {
		if err := checkArray(x.what, x.a); err != nil {
			return err
		}
	}
	if err := checkCtx(ctx); err != nil {
		return err
	}
	w, err := matmulShapes(c.c.shape, a.c.shape, b.c.shape, o)
	if err != nil {
		return err
	}
	if c == a || c == b {
		return fmt.Errorf("%w: MatMul's output is one of its operands", ErrInvalid)
	}
	w.et, w.a, w.b, w.c = a.c.et, &a.c, &b.c, &c.c
	w.alpha, w.beta = o.Alpha, o.Beta
	if w.alpha == 0 {
		w.alpha = 1
	}
	w.cpu = gemmCPU[T]
	mode := Out
	if w.beta != 0 {
		mode = InOut
	}
	return run(ctx, w, []use{{&a.c, In}, {&b.c, In}, {&c.c, mode}})
}

// matmulShapes checks the operands' shapes and returns the product's
// dimensions. A batch of a by one b, not transposed, is one product of
// B·M rows.
func matmulShapes(c, a, b []int, o MatMulOptions) (*mmOp, error) {
	bad := func(why string) error {
		return fmt.Errorf("%w: MatMul of %v by %v: %s", ErrShape, a, b, why)
	}
	ra, rb := len(a), len(b)
	if ra < 2 || ra > 3 || rb < 2 || rb > 3 {
		return nil, bad("want 2-D matrices or 3-D batches of them")
	}
	batch := 1
	if ra == 3 {
		batch = a[0]
	}
	if rb == 3 {
		if ra == 3 && b[0] != batch {
			return nil, bad(fmt.Sprintf("batches of %d and %d", batch, b[0]))
		}
		batch = b[0]
	}
	m, ka := a[ra-2], a[ra-1]
	if o.TransA {
		m, ka = ka, m
	}
	kb, n := b[rb-2], b[rb-1]
	if o.TransB {
		kb, n = n, kb
	}
	if ka != kb {
		what := fmt.Sprintf("inner dimensions %d and %d", ka, kb)
		if o.TransA || o.TransB {
			what += fmt.Sprintf(" (transposed: a %v, b %v)", o.TransA, o.TransB)
		}
		return nil, bad(what + " differ")
	}
	want := []int{m, n}
	if ra == 3 || rb == 3 {
		want = []int{batch, m, n}
	}
	if !sameShapes(c, want) {
		return nil, fmt.Errorf("%w: MatMul of %v by %v gives %v, not %v", ErrShape, a, b, want, c)
	}
	w := &mmOp{transA: o.TransA, transB: o.TransB, batch: batch, m: m, n: n, k: ka}
	w.lda, w.ldb = a[ra-1], b[rb-1]
	if ra == 3 {
		w.sa = m * ka
	}
	if rb == 3 {
		w.sb = ka * n
	}
	if ra == 3 && rb == 2 && !o.TransA {
		w.m, w.batch, w.sa = batch*m, 1, 0 // one product of B·M rows
	}
	return w, nil
}

// mmOp is a matrix product, or a strided batch of them.
type mmOp struct {
	et             *elemType
	a, b, c        *core
	transA, transB bool
	alpha, beta    float64
	batch, m, n, k int
	lda, ldb       int
	sa, sb         int // batch strides of a and b in elements; 0: one matrix for every product
	h              *blas.Handle
	cpu            func(w *mmOp, c *CPU) error
}

// empty reports whether the product has no element.
func (w *mmOp) empty() bool { return w.m == 0 || w.n == 0 || w.batch == 0 }

// kernels checks the device has the type's arithmetic and readies the
// Device's BLAS handle.
func (w *mmOp) kernels(d *Device) (err error) {
	if w.empty() {
		return nil
	}
	switch {
	case w.et == typeF16 && !d.fp16:
		return &AspectError{Op: "MatMul", Type: "float16", Device: d.String(), Aspect: "fp16"}
	case w.et.fp64 && !d.fp64:
		return &AspectError{Op: "MatMul", Type: "float64", Device: d.String(), Aspect: "fp64"}
	}
	w.h, err = d.blasHandle()
	return err
}

// operand is c's device storage as a blas operand; the nil operand for
// an empty array, which blas does not read (K = 0: c = beta·c).
func operand(c *core) blas.Operand {
	if c.dev == nil {
		return blas.Operand{}
	}
	if c.dev.usm != nil {
		return blas.OnPtr(c.dev.usm.Ptr())
	}
	return blas.OnBuffer(c.dev.mem, 0)
}

func (w *mmOp) args() blas.GemmArgs {
	g := blas.GemmArgs{
		Type: w.et.dtype, M: w.m, N: w.n, K: w.k, Alpha: w.alpha, Beta: w.beta,
		LDA: max(1, w.lda), LDB: max(1, w.ldb), LDC: max(1, w.n),
		Batch: w.batch, StrideA: w.sa, StrideB: w.sb, StrideC: w.m * w.n,
	}
	if w.transA {
		g.TransA = blas.Trans
	}
	if w.transB {
		g.TransB = blas.Trans
	}
	return g
}

func (w *mmOp) onDevice(d *Device) error {
	if w.empty() {
		return nil
	}
	g := w.args()
	g.A, g.B, g.C = operand(w.a), operand(w.b), operand(w.c)
	defer d.progress.enqueued.Add(1)
	return w.h.Gemm(g)
}

func (w *mmOp) onCPU(c *CPU) (err error) {
	if w.empty() {
		return nil
	}
	defer recovered("MatMul", &err)
	return w.cpu(w, c)
}

// gemmCPU is the product on the CPU context: gonum's Sgemm or Dgemm per
// matrix of the batch (gonum splits a large product over GOMAXPROCS
// goroutines itself), the batch's products over the context's workers
// where they are small.
func gemmCPU[T Float](w *mmOp, c *CPU) error {
	tA, tB := gblas.NoTrans, gblas.NoTrans
	if w.transA {
		tA = gblas.Trans
	}
	if w.transB {
		tB = gblas.Trans
	}
	if w.k == 0 {
		// gonum wants a non-empty A: c = beta·c by hand.
		for i := range w.batch {
			scaleRows[T](w, i)
		}
		return nil
	}
	lda, ldb, ldc := max(1, w.lda), max(1, w.ldb), max(1, w.n)
	sc := w.m * w.n
	var impl gonum.Implementation
	var one func(i int)
	switch w.et {
	case typeF32:
		a, b, cc := viewOf[float32](w.a.host, w.a.n), viewOf[float32](w.b.host, w.b.n), viewOf[float32](w.c.host, w.c.n)
		one = func(i int) {
			impl.Sgemm(tA, tB, w.m, w.n, w.k, float32(w.alpha), a[i*w.sa:], lda, b[i*w.sb:], ldb, float32(w.beta), cc[i*sc:], ldc)
		}
	case typeF64:
		a, b, cc := viewOf[float64](w.a.host, w.a.n), viewOf[float64](w.b.host, w.b.n), viewOf[float64](w.c.host, w.c.n)
		one = func(i int) {
			impl.Dgemm(tA, tB, w.m, w.n, w.k, w.alpha, a[i*w.sa:], lda, b[i*w.sb:], ldb, w.beta, cc[i*sc:], ldc)
		}
	default: // half precision: in float32 and back
		a, b := toF32[T](viewOf[T](w.a.host, w.a.n)), toF32[T](viewOf[T](w.b.host, w.b.n))
		ch := viewOf[T](w.c.host, w.c.n)
		cc := make([]float32, len(ch))
		if w.beta != 0 {
			cc = toF32(ch)
		}
		one = func(i int) {
			impl.Sgemm(tA, tB, w.m, w.n, w.k, float32(w.alpha), a[i*w.sa:], lda, b[i*w.sb:], ldb, float32(w.beta), cc[i*sc:], ldc)
		}
		defer func() {
			if w.et == typeF16 {
				for i, v := range cc {
					ch[i] = T(dtype.Float16Bits(v))
				}
			} else {
				for i, v := range cc {
					ch[i] = T(dtype.BFloat16Bits(v))
				}
			}
		}()
	}
	if w.batch == 1 || w.m*w.n*w.k >= 1<<18 {
		for i := range w.batch {
			one(i)
		}
		return nil
	}
	return c.parallel(w.batch, min(w.batch, c.workers), func(_, lo, hi int) {
		for i := lo; i < hi; i++ {
			one(i)
		}
	})
}

// scaleRows sets product i's c to beta·c (K = 0).
func scaleRows[T Float](w *mmOp, i int) {
	c := viewOf[T](w.c.host, w.c.n)[i*w.m*w.n : (i+1)*w.m*w.n]
	for j, v := range c {
		c[j] = fromF32[T](float32(w.beta) * toF32One(v))
	}
}

// toF32 converts half-precision storage to float32.
func toF32[T Float](s []T) []float32 {
	out := make([]float32, len(s))
	for i, v := range s {
		out[i] = toF32One(v)
	}
	return out
}

func toF32One[T Float](v T) float32 {
	switch x := any(v).(type) {
	case Float16:
		return x.Float32()
	case BFloat16:
		return x.Float32()
	}
	return float32(v)
}

func fromF32[T Float](f float32) T {
	var z T
	switch any(z).(type) {
	case Float16:
		return T(dtype.Float16Bits(f))
	case BFloat16:
		return T(dtype.BFloat16Bits(f))
	}
	return T(f)
}

// gemmHandle is a Device's BLAS handle, made on first use on its queue,
// with its program manager, and closed at Release.
type gemmHandle struct {
	mu      sync.Mutex
	h       *blas.Handle
	closed  bool
	backend blas.Backend // DeviceOptions.BLAS
}

// blasHandle returns the Device's BLAS handle. A failure to make one is
// returned, not kept: the next MatMul tries again.
func (d *Device) blasHandle() (*blas.Handle, error) {
	g := &d.gemm
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed || d.released.Load() {
		return nil, fmt.Errorf("%w: %v", ErrReleased, d)
	}
	if g.h == nil {
		h, err := blas.New(d.q, blas.Options{Backend: g.backend, Programs: d.mgr})
		if err != nil {
			return nil, err
		}
		g.h = h
	}
	return g.h, nil
}

// closeBLAS closes the handle, if made, and stops one being made.
func (d *Device) closeBLAS() error {
	g := &d.gemm
	g.mu.Lock()
	defer g.mu.Unlock()
	g.closed = true
	if g.h != nil {
		return g.h.Close()
	}
	return nil
}

// onMulti multiplies every device's rows of a (or its matrices of a
// batch) by b, replicated (or its matrices of the batch, split alike),
// into its rows of c.
func (w *mmOp) onMulti(m *MultiDevice) error {
	if w.transA && !w.c.replicated && len(w.a.shape) == 2 {
		return fmt.Errorf("%w: MatMul with TransA of a split a: its rows are c's columns; replicate a and c, or transpose a first", ErrInvalid)
	}
	return splitRun(m, w)
}

func (w *mmOp) layout() (string, *core, []marg) {
	bm := margsOf("MatMul b", true, w.b)
	bm[0].rep = len(w.b.shape) == 2 // every row of a multiplies all of b
	args := append(margsOf("MatMul a", true, w.a), bm...)
	return "MatMul", w.c, append(args, margsOf("MatMul output", w.beta != 0, w.c)...)
}

func (w *mmOp) onPart(i int) (work, []use, error) {
	a, b, c := w.a.parts[i], w.b.parts[i], w.c.parts[i]
	p, err := matmulShapes(c.shape, a.shape, b.shape, MatMulOptions{TransA: w.transA, TransB: w.transB})
	if err != nil {
		return nil, nil, err
	}
	p.et, p.a, p.b, p.c, p.alpha, p.beta, p.cpu = w.et, a, b, c, w.alpha, w.beta, w.cpu
	mode := Out
	if w.beta != 0 {
		mode = InOut
	}
	return p, []use{{a, In}, {b, In}, {c, mode}}, nil
}
