package blas

import "github.com/gour-dev/gour/ur"

// ownEngine runs the routines with the package's own kernels.
type ownEngine struct {
	h *Handle
}

func newOwnEngine(h *Handle) (*ownEngine, error) { return &ownEngine{h: h}, nil }

func (e *ownEngine) unimplemented() error {
	return argError("blas", "backend", ur.ErrUnsupportedFeature, "the own kernels are being written")
}

func (e *ownEngine) gemm(a *GemmArgs) error                              { return e.unimplemented() }
func (e *ownEngine) gemmBatched(a *GemmArgs, as, bs, cs []Operand) error { return e.unimplemented() }
func (e *ownEngine) gemv(a *GemvArgs) error                              { return e.unimplemented() }
func (e *ownEngine) vector(a *vecArgs) error                             { return e.unimplemented() }
func (e *ownEngine) close() error                                        { return nil }
