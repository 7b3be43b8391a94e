package opencl

import (
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/gour-dev/gour/adapters/opencl/internal/cl"
	"github.com/gour-dev/gour/ur/driver"
)

type context struct {
	a       *adapter
	handle  cl.Context
	devices map[cl.Device]*device
	order   []*device // the devices, in the order the context was made with

	// The USM mechanism (memory.go), chosen when the context is made.
	via        usmVia
	intel      *cl.USMINTEL // via usmIntel
	svmFine    bool         // via usmSVM: fine-grained buffers on every device
	svmMigrate bool         // via usmSVM: clEnqueueSVMMigrateMem usable
	svm        svmTable     // via usmSVM: the allocations, for pointer info
	// usmDevs: via usmIntel in a context holding a sub-device, the
	// device each device and shared allocation was made for, by base
	// address (memory.go).
	usmDevs    sync.Map
	subDevices bool

	internalMu sync.Mutex
	internal   map[cl.Device]cl.Queue // the context's own queues (queuefeatures.go)

	// queues are the context's live queues, via usmSVM only, for USMFree
	// to wait for (memory.go); queuesMu is held across those waits, so
	// that a queue is not released while a free waits for it.
	queuesMu sync.Mutex
	queues   map[*queue]struct{}

	copier imageCopier // image copies by kernel (imagecopy.go)

	// madeKernels: a kernel of a user's program was made in the context,
	// so a wait's CL_OUT_OF_RESOURCES may be a kernel's fault (lost.go).
	madeKernels atomic.Bool
}

func (c *context) Native() uintptr { return uintptr(c.handle) }

type mem struct {
	lib    *cl.Lib
	handle cl.Mem // kept in the struct: SetArgMem passes its address
	size   uint64
	// oneSlice: a 1D or 2D image, whose host slice pitch OpenCL wants 0
	// (image.go).
	oneSlice bool
	// image: an image's format, type and access, for CopyImage's kernels
	// (imagecopy.go); nil for a buffer.
	image *imageMeta
}

func (c *context) NewBuffer(flags driver.MemFlags, size uint64, host []byte) (driver.Mem, error) {
	clFlags := accessFlags(flags)
	var hostPtr unsafe.Pointer
	if len(host) > 0 {
		clFlags |= cl.MemCopyHostPtr
		hostPtr = unsafe.Pointer(&host[0])
	}
	h, st := c.a.lib.CreateBuffer(c.handle, clFlags, uintptr(size), hostPtr)
	if err := check("clCreateBuffer", st); err != nil {
		return nil, err
	}
	return &mem{lib: c.a.lib, handle: h, size: size}, nil
}

func (m *mem) Release() error  { return check("clReleaseMemObject", m.lib.ReleaseMemObject(m.handle)) }
func (m *mem) Size() uint64    { return m.size }
func (m *mem) Native() uintptr { return uintptr(m.handle) }

// track records q for USMFree to wait for, where the context's USM is
// SVM, and returns it.
func (c *context) track(q *queue) *queue {
	if c.via != usmSVM {
		return q
	}
	c.queuesMu.Lock()
	defer c.queuesMu.Unlock()
	if c.queues == nil {
		c.queues = make(map[*queue]struct{})
	}
	c.queues[q] = struct{}{}
	return q
}

// untrack forgets q, before it is released.
func (c *context) untrack(q *queue) {
	if c.via != usmSVM {
		return
	}
	c.queuesMu.Lock()
	delete(c.queues, q)
	c.queuesMu.Unlock()
}

// finishAll waits for every queue of the context, its own included: what
// SVM's free does not do. A queue's error (a lost device) does not stop
// the free: the memory goes back either way.
func (c *context) finishAll() {
	c.queuesMu.Lock()
	defer c.queuesMu.Unlock()
	for q := range c.queues {
		c.a.lib.Finish(q.handle)
	}
	c.internalMu.Lock()
	defer c.internalMu.Unlock()
	for _, q := range c.internal {
		c.a.lib.Finish(q)
	}
}
