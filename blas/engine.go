package blas

import (
	"errors"

	"github.com/gour-dev/gour/dtype"
	"github.com/gour-dev/gour/ur"
)

// engine is a backend bound to one Handle's queue: the vendor library's
// calls, or the package's own kernels. The Handle's front end has
// checked every argument before it calls an engine, as ur's front end
// does for its adapters, so an engine may assume:
//
//   - the type is valid and the device has it (fp64, fp16);
//   - shapes, leading dimensions, increments and strides are consistent
//     (row-major: LDA >= max(1, columns of A as stored), ...), dimensions
//     and leading dimensions fit in an int32, and every operand is a live
//     operand of the queue's context, element-aligned, large enough for
//     what the arguments describe;
//   - there is work: M, N and the batch count are positive for GEMM. K
//     may be 0 (C = beta*C). For GEMV, y is not empty, but M or N may be
//     0 (y = beta*y), A and x then possibly nil operands. n may be 0 for
//     a Level 1 routine with a result, which the engine writes (0; -1
//     for Iamax);
//   - beta == 0 means C (y) is not read, as in BLAS: NaNs in it are
//     overwritten;
//   - for TRSM, M and N are positive and the type is dtype.Float32 or
//     dtype.Float64. Alpha may be 0 (B = 0, A not read, possibly nil).
//
// An engine enqueues in order on the queue and never waits for the
// device. It is used by several goroutines at once and locks what it
// must. A call it cannot serve (a USM operand for a library that takes
// buffers, a type the library lacks, a negative increment) returns
// errFallback before enqueuing anything, and the Handle runs it with the
// package's own kernels.
type engine interface {
	// gemm is C = alpha*op(A)*op(B) + beta*C, a.Batch times (a.Batch >=
	// 1) with the strides of a between matrices when a.Batch > 1. a comes
	// by value: a pointer through this interface would move the Handle's
	// copy to the heap on every call.
	gemm(a GemmArgs) error
	// gemmBatched is gemm over as[i], bs[i], cs[i], len(as) >= 1 times;
	// a's operands, strides and Batch are not used.
	gemmBatched(a *GemmArgs, as, bs, cs []Operand) error
	// gemv is y = alpha*op(A)*x + beta*y; a by value, as for gemm.
	gemv(a GemvArgs) error
	// trsm solves op(A)*X = alpha*B or X*op(A) = alpha*B in place of
	// B; a by value, as for gemm.
	trsm(a TrsmArgs) error
	// vector runs a Level 1 routine.
	vector(a *vecArgs) error
	// close releases what the engine holds; work already enqueued still
	// runs. The Handle calls it once.
	close() error
}

// errFallback is what an engine returns for a call it leaves to the own
// kernels.
var errFallback = errors.New("blas: left to the own kernels")

// vecOp is a Level 1 routine.
type vecOp int

const (
	opAxpy  vecOp = iota // y += alpha*x
	opDot                // result = x·y
	opNrm2               // result = ||x||₂
	opAsum               // result = Σ|xᵢ|
	opIamax              // result (int32) = the first i with the largest |xᵢ|, 0-based; -1 for n == 0
	opScal               // x *= alpha
	opCopy               // y = x
	opSwap               // x, y = y, x
)

var vecOpNames = [...]string{"Axpy", "Dot", "Nrm2", "Asum", "Iamax", "Scal", "Copy", "Swap"}

func (o vecOp) String() string { return vecOpNames[o] }

// hasY reports whether the routine takes a second vector, hasResult
// whether it writes a scalar result.
func (o vecOp) hasY() bool      { return o == opAxpy || o == opDot || o == opCopy || o == opSwap }
func (o vecOp) hasResult() bool { return o == opDot || o == opNrm2 || o == opAsum || o == opIamax }

// vecArgs are a Level 1 call's arguments. A negative increment walks the
// vector backwards from its last element, as in BLAS: element i is at
// (n-1-i)*|inc| from the operand. Nrm2, Asum, Iamax and Scal take
// positive increments only.
type vecArgs struct {
	Op     vecOp
	Type   dtype.Type
	N      int
	Alpha  float64 // Axpy, Scal
	X      Operand
	IncX   int
	Y      Operand // Axpy, Dot, Copy, Swap
	IncY   int
	Result Operand // Dot, Nrm2, Asum (one element of dtype.Type), Iamax (one int32)
}

// backendInfo is a vendor library's entry in backends.
type backendInfo struct {
	// adapter is the ur backend whose devices the library serves
	// ("cuda", "opencl").
	adapter string
	// open binds the backend to h's queue. A library that does not load
	// or does not serve the device is a *LibraryError.
	open func(h *Handle) (engine, error)
	// status says whether the library loads for dev and, if not, why,
	// without making anything on the device.
	status func(dev *ur.Device) LibraryStatus
}

// backends are the vendor libraries, in the order New prefers them for
// an adapter: a static table, so that the set is what the source says
// (a registry filled by init functions was one more thing to find).
var backends = []struct {
	name Backend
	backendInfo
}{
	{BackendCUBLAS, backendInfo{adapter: "cuda", open: openCUBLAS, status: cublasStatus}},
	{BackendCLBlast, backendInfo{adapter: "opencl", open: openCLBlast, status: clblastStatus}},
}

func lookupBackend(name Backend) (backendInfo, bool) {
	for _, b := range backends {
		if b.name == name {
			return b.backendInfo, true
		}
	}
	return backendInfo{}, false
}

// vendorBackend is the vendor library for an adapter backend, if any.
func vendorBackend(adapter string) (Backend, backendInfo, bool) {
	for _, b := range backends {
		if b.adapter == adapter {
			return b.name, b.backendInfo, true
		}
	}
	return "", backendInfo{}, false
}
