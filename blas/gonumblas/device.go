package gonumblas

import (
	"errors"
	"unsafe"

	"gonum.org/v1/gonum/blas"

	gourblas "github.com/gour-dev/gour/blas"
	"github.com/gour-dev/gour/ur"
)

// A device call is a job: up to three host operands copied into the
// scratch slots (packed, and expanded where the routine stores half a
// matrix), one or two general matrix products on the slots, and the
// output slot copied back into the caller's slice.
type job[T float] struct {
	in    [slots]*operand[T] // what each slot is loaded from; nil: nothing
	out   output[T]          // what slot C is read back into
	steps []step
}

// step is one general matrix product on the slots: slot C = alpha *
// op(slot a) * op(slot b) + beta * slot C; or, for a gemv step, the
// matrix-vector product slot C = alpha * op(slot a) * slot b + beta *
// slot C with slot a stored m×n and the vectors at unit increment; or,
// for a solve step, the triangular solve of side, uplo and diag with
// the triangle in slot a and the m×n right-hand sides in slot C, which
// the solution overwrites.
type step struct {
	gemv, solve bool
	tA, tB      blas.Transpose
	side        blas.Side
	uplo        blas.Uplo
	diag        blas.Diag
	m, n, k     int
	alpha, beta float64
	a, b        int // slots
}

// devSlot is one slot's device memory: device USM where the device has
// it, else a buffer. It only grows.
type devSlot struct {
	usm  *ur.USM
	mem  *ur.Mem
	size uint64
}

func (s *devSlot) operand() gourblas.Operand {
	if s.usm != nil {
		return gourblas.OnPtr(s.usm.Ptr())
	}
	return gourblas.OnBuffer(s.mem, 0)
}

func (s *devSlot) free() error {
	var err error
	switch {
	case s.usm != nil:
		err = s.usm.Free()
	case s.mem != nil:
		err = s.mem.Release()
	}
	*s = devSlot{}
	return err
}

// hostSlot is one slot's host staging memory: page-locked host USM where
// the device has it (the copies then run at the bus's speed), else Go
// memory. It only grows.
type hostSlot struct {
	usm *ur.USM
	buf []byte
}

func (s *hostSlot) free() error {
	var err error
	if s.usm != nil {
		err = s.usm.Free()
	}
	*s = hostSlot{}
	return err
}

// grow rounds an allocation size up, so that a run of slightly
// different sizes reallocates rarely: to 64 KiB, and by at least an
// eighth.
func grow(size, old uint64) uint64 {
	size = max(size, old+old/8)
	const unit = 64 << 10
	return (size + unit - 1) / unit * unit
}

// devMem returns slot i's device memory, at least size bytes. The
// caller holds mu, and the queue has finished every earlier call's work:
// each call ends waiting for its result.
func (impl *Implementation) devMem(i int, size uint64) (*devSlot, error) {
	s := &impl.dev[i]
	if s.size >= size {
		return s, nil
	}
	n := grow(size, s.size)
	if err := s.free(); err != nil {
		return nil, err
	}
	ctx := impl.q.Context()
	if impl.usm {
		u, err := ctx.AllocDevice(impl.q.Device(), n)
		if err != nil {
			return nil, err
		}
		s.usm = u
	} else {
		m, err := ctx.NewBuffer(ur.MemReadWrite, n)
		if err != nil {
			return nil, err
		}
		s.mem = m
	}
	s.size = n
	return s, nil
}

// staging returns slot i's host staging memory, size bytes, 8-byte
// aligned.
func (impl *Implementation) staging(i int, size int) ([]byte, error) {
	s := &impl.stage[i]
	if len(s.buf) >= size {
		return s.buf[:size], nil
	}
	n := int(grow(uint64(size), uint64(len(s.buf))))
	if err := s.free(); err != nil {
		return nil, err
	}
	if impl.pinned {
		if u, err := impl.q.Context().AllocHost(uint64(n)); err == nil {
			if b, err := ur.HostSlice[byte](u); err == nil {
				s.usm, s.buf = u, b
				return s.buf[:size], nil
			}
			_ = u.Free()
		}
		// Page-locked memory only makes the copies faster: stage in
		// Go memory from now on.
		impl.pinned = false
	}
	words := make([]uint64, (n+7)/8)
	s.buf = unsafe.Slice((*byte)(unsafe.Pointer(&words[0])), n)
	return s.buf[:size], nil
}

// freeScratch frees every slot; the caller holds mu and the queue has
// finished.
func (impl *Implementation) freeScratch() error {
	var errs []error
	for i := range impl.dev {
		errs = append(errs, impl.dev[i].free(), impl.stage[i].free())
	}
	return errors.Join(errs...)
}

// chunk is the size in bytes of the pieces an operand is staged and
// copied to the device in (Implementation.chunk).
const chunk = 8 << 20

// upload starts copying src into slot s, off bytes from its start.
func (impl *Implementation) upload(s *devSlot, off uint64, src []byte) error {
	var ev *ur.Event
	var err error
	if s.usm != nil {
		ev, err = impl.q.EnqueueCopyToPtr(s.usm.Ptr().Add(off), src)
	} else {
		ev, err = impl.q.EnqueueWrite(s.mem, off, src)
	}
	if err != nil || ev == nil {
		return err
	}
	return ev.Release()
}

// download copies the start of slot s into dst and waits for it, and so
// for everything enqueued before.
func (impl *Implementation) download(dst []byte, s *devSlot) error {
	if s.usm != nil {
		return impl.q.CopyFromPtr(dst, s.usm.Ptr())
	}
	return impl.q.ReadBuffer(s.mem, 0, dst)
}

// run computes j on the device and reports whether it did; on false the
// caller computes the call with gonum. The caller has checked the
// arguments as gonum does.
func run[T float](impl *Implementation, routine string, j *job[T]) bool {
	impl.mu.Lock()
	defer impl.mu.Unlock()
	if impl.closed {
		impl.onHost()
		return false
	}
	if err := execute(impl, j); err != nil {
		// Let the copies already enqueued end before the caller's
		// slices and the staging memory are used again, and start
		// afresh: an allocation that failed may succeed smaller.
		err = errors.Join(err, impl.q.Finish(), impl.freeScratch())
		impl.failed(routine, err)
		return false
	}
	impl.counted[0].Add(1)
	return true
}

func execute[T float](impl *Implementation, j *job[T]) error {
	esize := int(unsafe.Sizeof(T(0)))
	var ld [slots]int
	for i, op := range j.in {
		if op == nil {
			continue
		}
		n := op.rows * op.cols
		ld[i] = op.cols
		s, err := impl.devMem(i, uint64(n*esize))
		if err != nil {
			return err
		}
		if src, ok := op.contiguous(); ok && !impl.pinned {
			// Staging in Go memory would only add a copy.
			if err := impl.upload(s, 0, ur.AsBytes(src)); err != nil {
				return err
			}
			continue
		}
		buf, err := impl.staging(i, n*esize)
		if err != nil {
			return err
		}
		// In chunks of rows, so that each chunk's copy to the device
		// runs while the next is packed.
		dst, step := view[T](buf, n), max(1, impl.chunk/(esize*op.cols))
		for r := 0; r < op.rows; r += step {
			hi := min(op.rows, r+step)
			op.pack(dst, r, hi)
			if err := impl.upload(s, uint64(r*op.cols*esize), buf[r*op.cols*esize:hi*op.cols*esize]); err != nil {
				return err
			}
		}
	}
	outN := j.out.rows * j.out.cols
	c, err := impl.devMem(slotC, uint64(outN*esize))
	if err != nil {
		return err
	}
	ld[slotC] = j.out.cols
	for _, st := range j.steps {
		if st.solve {
			if err := impl.h.Trsm(solveArgs[T](st, impl.dev[st.a].operand(), ld[st.a], c.operand(), ld[slotC])); err != nil {
				return err
			}
			continue
		}
		if st.gemv {
			err := impl.h.Gemv(gourblas.GemvArgs{
				Type:  typeOf[T](),
				Trans: trans(st.tA),
				M:     st.m, N: st.n,
				Alpha: st.alpha, Beta: st.beta,
				A: impl.dev[st.a].operand(), LDA: ld[st.a],
				X: impl.dev[st.b].operand(), IncX: 1,
				Y: c.operand(), IncY: 1,
			})
			if err != nil {
				return err
			}
			continue
		}
		err := impl.h.Gemm(gourblas.GemmArgs{
			Type:   typeOf[T](),
			TransA: trans(st.tA),
			TransB: trans(st.tB),
			M:      st.m, N: st.n, K: st.k,
			Alpha: st.alpha, Beta: st.beta,
			A: impl.dev[st.a].operand(), LDA: ld[st.a],
			B: impl.dev[st.b].operand(), LDB: ld[st.b],
			C: c.operand(), LDC: ld[slotC],
		})
		if err != nil {
			return err
		}
	}
	buf, err := impl.staging(slotC, outN*esize)
	if err != nil {
		return err
	}
	if err := impl.download(buf, c); err != nil {
		return err
	}
	// Only now, with the whole result on the host, is the caller's
	// output written: a failure before leaves it as it was, for gonum to
	// compute.
	j.out.unpack(view[T](buf, outN))
	return nil
}

// solveArgs are the device BLAS's arguments of a solve step.
func solveArgs[T float](st step, a gourblas.Operand, lda int, b gourblas.Operand, ldb int) gourblas.TrsmArgs {
	args := gourblas.TrsmArgs{
		Type:  typeOf[T](),
		Side:  gourblas.Left,
		Uplo:  gourblas.Upper,
		Trans: trans(st.tA),
		Diag:  gourblas.NonUnit,
		M:     st.m, N: st.n,
		Alpha: st.alpha,
		A:     a, LDA: lda,
		B: b, LDB: ldb,
	}
	if st.side == blas.Right {
		args.Side = gourblas.Right
	}
	if st.uplo == blas.Lower {
		args.Uplo = gourblas.Lower
	}
	if st.diag == blas.Unit {
		args.Diag = gourblas.Unit
	}
	return args
}

func trans(t blas.Transpose) gourblas.Transpose {
	if t == blas.NoTrans {
		return gourblas.NoTrans
	}
	return gourblas.Trans
}

// view is b's first n elements as a []T; b is 8-byte aligned.
func view[T float](b []byte, n int) []T {
	if n == 0 {
		return nil
	}
	return unsafe.Slice((*T)(unsafe.Pointer(&b[0])), n)
}
