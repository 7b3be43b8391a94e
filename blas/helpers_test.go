package blas_test

import (
	"encoding/binary"
	"errors"
	"math"
	"os"
	"testing"

	_ "github.com/gour-dev/gour/adapters/all"
	"github.com/gour-dev/gour/blas"
	"github.com/gour-dev/gour/dtype"
	"github.com/gour-dev/gour/internal/harness/testenv"
	"github.com/gour-dev/gour/ur"
)

// envRequireCLBlast set to 1 makes a device whose vendor library is
// CLBlast fail the tests where CLBlast does not load, instead of
// testing the own kernels alone.
const envRequireCLBlast = "GOUR_REQUIRE_CLBLAST"

// env is one Handle under test: a device, its context and queue, and a
// backend.
type env struct {
	name string
	dev  *ur.Device
	ctx  *ur.Context
	q    *ur.Queue
	h    *blas.Handle
}

// envs returns a Handle per OpenCL or CUDA device and backend: the own
// kernels forced, and the device's vendor library where it loads. All
// are released when the test ends.
func envs(t *testing.T) []*env {
	t.Helper()
	testenv.CheckRequired(t)
	var out []*env
	for _, dev := range testenv.Devices(t) {
		if dev.Backend() != "opencl" && dev.Backend() != "cuda" {
			continue
		}
		ctx, q := testenv.ContextQueue(t, dev)
		vendor := blas.BackendCLBlast
		if dev.Backend() == "cuda" {
			vendor = blas.BackendCUBLAS
		}
		for _, b := range []blas.Backend{blas.BackendGour, vendor} {
			h, err := blas.New(q, blas.Options{Backend: b})
			if errors.Is(err, blas.ErrLibraryUnavailable) {
				if b == blas.BackendCLBlast && os.Getenv(envRequireCLBlast) == "1" {
					t.Fatalf("%s=1: %v", envRequireCLBlast, err)
				}
				t.Logf("%s: %v", dev.Name(), err)
				continue
			}
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() {
				if err := h.Close(); err != nil {
					t.Errorf("Close: %v", err)
				}
			})
			out = append(out, &env{name: dev.Name() + "/" + string(b), dev: dev, ctx: ctx, q: q, h: h})
		}
	}
	if len(out) == 0 {
		t.Skip("no OpenCL or CUDA device")
	}
	return out
}

// skipType skips a type the device lacks, saying which aspect.
func (e *env) skipType(t *testing.T, ty dtype.Type) {
	t.Helper()
	info := e.dev.Info()
	switch {
	case ty == dtype.Float64 && !info.FP64:
		t.Skipf("%s has no fp64", e.dev.Name())
	case ty == dtype.Float16 && !info.FP16:
		t.Skipf("%s has no fp16", e.dev.Name())
	}
}

// operandKinds says which of a call's operands are USM (true) rather
// than buffers.
type operandKinds [3]bool

// kinds are the mixes the tests rotate through: all buffers (what a
// vendor library that takes buffers serves), all USM, mixed.
var kinds = []operandKinds{{false, false, false}, {true, true, true}, {true, false, true}}

// checkServed fails when a vendor backend left every one of a test's
// calls of a type it has to the own kernels: the tests would then not
// test the library. calls is how many calls were made, before the
// Handle's Fallbacks when they started.
func (e *env) checkServed(t *testing.T, ty dtype.Type, calls int, before int64) {
	t.Helper()
	if e.h.Backend() == blas.BackendGour || ty == dtype.BFloat16 {
		return
	}
	if fell := e.h.Fallbacks() - before; fell >= int64(calls) {
		t.Errorf("%s left all %d calls of %s to the own kernels", e.h.Backend(), calls, ty)
	}
}

var types = []dtype.Type{dtype.Float32, dtype.Float64, dtype.Float16, dtype.BFloat16}

// dmem is device memory holding elements of a type: a USM allocation or
// a buffer, the operand starting off elements into it.
type dmem struct {
	e   *env
	ty  dtype.Type
	usm *ur.USM
	buf *ur.Mem
	off int // elements before the operand
	n   int // elements in all
}

// upload makes device memory holding xs after off elements of padding
// (filled with pad), on USM or in a buffer.
func (e *env) upload(t *testing.T, ty dtype.Type, xs []float64, off int, pad float64, usm bool) *dmem {
	t.Helper()
	all := make([]float64, off+len(xs))
	for i := range off {
		all[i] = pad
	}
	copy(all[off:], xs)
	b := encode(ty, all)
	if len(b) == 0 {
		b = make([]byte, ty.Size())
	}
	m := &dmem{e: e, ty: ty, off: off, n: len(all)}
	var err error
	if usm && e.dev.Info().USM.Device {
		if m.usm, err = e.ctx.AllocDevice(e.dev, uint64(len(b))); err == nil {
			err = e.q.CopyToPtr(m.usm.Ptr(), b)
		}
	} else {
		m.buf, err = e.ctx.NewBufferFrom(ur.MemReadWrite, b)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(m.free)
	return m
}

func (m *dmem) free() {
	if m.usm != nil {
		m.usm.Free()
	}
	if m.buf != nil {
		m.buf.Release()
	}
}

func (m *dmem) operand() blas.Operand {
	off := uint64(m.off * m.ty.Size())
	if m.usm != nil {
		return blas.OnPtr(m.usm.Ptr().Add(off))
	}
	return blas.OnBuffer(m.buf, off)
}

// read waits for the queue and returns the memory's elements after the
// padding.
func (m *dmem) read(t *testing.T) []float64 {
	t.Helper()
	return decode(m.ty, m.bytes(t))[m.off:]
}

// bytes waits for the queue and returns all the memory's bytes.
func (m *dmem) bytes(t *testing.T) []byte {
	t.Helper()
	b := make([]byte, m.n*m.ty.Size())
	var err error
	if m.usm != nil {
		err = m.e.q.CopyFromPtr(b, m.usm.Ptr())
	} else {
		err = m.e.q.ReadBuffer(m.buf, 0, b)
	}
	if err == nil {
		err = m.e.q.Finish()
	}
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// encode stores xs as ty, rounding to nearest even.
func encode(ty dtype.Type, xs []float64) []byte {
	b := make([]byte, len(xs)*ty.Size())
	for i, x := range xs {
		switch ty {
		case dtype.Float32:
			binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(float32(x)))
		case dtype.Float64:
			binary.LittleEndian.PutUint64(b[8*i:], math.Float64bits(x))
		case dtype.Float16:
			binary.LittleEndian.PutUint16(b[2*i:], dtype.Float16Bits(float32(x)))
		case dtype.BFloat16:
			binary.LittleEndian.PutUint16(b[2*i:], dtype.BFloat16Bits(float32(x)))
		}
	}
	return b
}

func decode(ty dtype.Type, b []byte) []float64 {
	xs := make([]float64, len(b)/ty.Size())
	for i := range xs {
		switch ty {
		case dtype.Float32:
			xs[i] = float64(math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:])))
		case dtype.Float64:
			xs[i] = math.Float64frombits(binary.LittleEndian.Uint64(b[8*i:]))
		case dtype.Float16:
			xs[i] = float64(dtype.Float16From(binary.LittleEndian.Uint16(b[2*i:])))
		case dtype.BFloat16:
			xs[i] = float64(dtype.BFloat16From(binary.LittleEndian.Uint16(b[2*i:])))
		}
	}
	return xs
}

// round is x as ty holds it.
func round(ty dtype.Type, x float64) float64 { return decode(ty, encode(ty, []float64{x}))[0] }

// tolerance is the error allowed relative to the sum of the magnitudes
// of the terms: float32 accumulation for the storage types (CLBlast's
// half-precision GEMM accumulates in half), rounding of the output.
func tolerance(ty dtype.Type) float64 {
	switch ty {
	case dtype.Float64:
		return 1e-13
	case dtype.Float32:
		return 1e-6
	case dtype.Float16:
		return 4e-3
	}
	return 1e-2
}

// values are n numbers in [-2, 2) that every type holds exactly, from a
// simple generator seeded by seed.
func values(n int, seed uint64) []float64 {
	xs := make([]float64, n)
	s := seed*0x9e3779b97f4a7c15 + 1
	for i := range xs {
		s ^= s << 13
		s ^= s >> 7
		s ^= s << 17
		xs[i] = float64(int(s%16)-8) / 4
	}
	return xs
}

// near reports whether got is within tolerance of want, relative to
// scale, the sum of the magnitudes of want's terms.
func near(ty dtype.Type, got, want, scale float64) bool {
	if math.IsNaN(want) {
		return math.IsNaN(got)
	}
	return math.Abs(got-want) <= tolerance(ty)*scale+1e-30
}
