package cublas

import "sync"

// Pool keeps the handles of closed users for the next ones in the same
// CUDA context, as PyTorch's handle pool does, because cublasDestroy
// synchronizes the whole device (cudaDeviceSynchronize, behind every
// stream's work) and cublasCreate allocates. A user gives a handle back
// once its own stream's work is done, which is what makes the handle
// free for another stream. The pool grows to the most handles ever out
// at once in a context and never shrinks. Handles are kept by the
// context's id (cuCtxGetId), which no later context reuses as it may a
// destroyed one's address; where the driver has no id, Put destroys.
type Pool struct {
	mu   sync.Mutex
	free map[uint64][]*Handle
}

// Get returns a free handle of the CUDA context ctx, or a new one.
func (p *Pool) Get(l *Lib, ctx uintptr) (*Handle, error) {
	if id, ok := l.ContextID(ctx); ok {
		p.mu.Lock()
		if hs := p.free[id]; len(hs) > 0 {
			h := hs[len(hs)-1]
			p.free[id] = hs[:len(hs)-1]
			p.mu.Unlock()
			return h, nil
		}
		p.mu.Unlock()
	}
	return l.Create(ctx)
}

// Put keeps h, whose stream's work is done, for the next Get in its
// context, or destroys it where the context has no id.
func (p *Pool) Put(h *Handle) error {
	id, ok := h.lib.ContextID(h.ctx)
	if !ok {
		return h.Destroy()
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.free == nil {
		p.free = map[uint64][]*Handle{}
	}
	p.free[id] = append(p.free[id], h)
	return nil
}
