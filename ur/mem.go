package ur

import (
	"unsafe"

	"github.com/gour-dev/gour/trace"
	"github.com/gour-dev/gour/ur/driver"
)

// MemFlags says how kernels may access a buffer.
type MemFlags = driver.MemFlags

// Buffer access flags.
const (
	MemReadWrite = driver.MemReadWrite
	MemReadOnly  = driver.MemReadOnly
	MemWriteOnly = driver.MemWriteOnly
)

// Mem is a device buffer.
type Mem struct {
	object
	ctx   *Context
	drv   driver.Mem
	size  uint64
	flags MemFlags
	// parent and offset place a sub-buffer (SubBuffer) in its parent,
	// which it keeps alive; parent is nil for a whole buffer.
	parent *Mem
	offset uint64
	// image is the format and shape of an image (NewImage), nil for a
	// buffer; host the host memory of a buffer made over it
	// (NewBufferUseHost, NewBufferAllocHost), nil for another.
	image *imageInfo
	host  []byte
}

// notImage refuses an image where a buffer operation takes a buffer.
func (m *Mem) notImage(op string) error {
	if m.image != nil {
		return newError(ErrInvalidMemObject, op, m.adapter.name, "an image where a buffer goes")
	}
	return nil
}

// NewBuffer allocates size bytes of device memory.
func (c *Context) NewBuffer(flags MemFlags, size uint64) (rh *Mem, rerr error) {
	const op = "Context.NewBuffer"
	if t := trace.Active(); t != nil {
		tc := beginCall(t, op, c)
		tc.args.Uint("bytes", size)
		defer endNewOf(&tc, &rh, &rerr)
	}

	return c.newBuffer(op, flags, size, nil)
}

// NewBufferFrom allocates a buffer holding a copy of data.
func (c *Context) NewBufferFrom(flags MemFlags, data []byte) (rh *Mem, rerr error) {
	const op = "Context.NewBufferFrom"
	if t := trace.Active(); t != nil {
		tc := beginCall(t, op, c)
		tc.args.Uint("bytes", uint64(len(data)))
		defer endNewOf(&tc, &rh, &rerr)
	}

	return c.newBuffer(op, flags, uint64(len(data)), data)
}

func (c *Context) newBuffer(op string, flags MemFlags, size uint64, host []byte) (*Mem, error) {
	if err := c.enter(op); err != nil {
		return nil, err
	}
	defer c.life.leave()
	switch flags {
	case MemReadWrite, MemReadOnly, MemWriteOnly:
	default:
		return nil, newError(ErrInvalidValue, op, c.adapter.name, "flags %#x: want exactly one of MemReadWrite, MemReadOnly, MemWriteOnly", uint32(flags))
	}
	if size == 0 {
		return nil, newError(ErrInvalidBufferSize, op, c.adapter.name, "buffer size is 0")
	}
	for _, d := range c.devices {
		if max := d.info.MaxMemAllocSize; max != 0 && size > max {
			return nil, newError(ErrInvalidBufferSize, op, c.adapter.name,
				"buffer of %d bytes exceeds the largest allocation of %s (%d bytes)", size, d.Name(), max)
		}
	}
	drv, err := c.drv.NewBuffer(flags, size, host)
	if err != nil {
		return nil, c.wrap(err, op)
	}
	m := &Mem{object: object{adapter: c.adapter}, ctx: c, drv: drv, size: size, flags: flags}
	m.created("Mem")
	m.life.free = drv.Release
	return m, nil
}

func (m *Mem) enter(op string) error {
	if m == nil {
		return nilHandle("Mem", op)
	}
	return m.object.enter("Mem", ErrInvalidMemObject, op)
}

// Release releases the buffer. The memory is freed once no queued command
// uses it and no kernel holds it as an argument (Kernel.SetArgMem keeps it
// alive until the argument is replaced or the kernel released).
func (m *Mem) Release() error {
	if m == nil {
		return nilHandle("Mem", "Mem.Release")
	}
	return m.release("Mem", ErrInvalidMemObject)
}

// Size is the buffer's size in bytes; 0 for a nil buffer.
func (m *Mem) Size() uint64 {
	if m == nil {
		return 0
	}
	return m.size
}

// Context returns the context the buffer lives in.
func (m *Mem) Context() *Context {
	if m == nil {
		return nil
	}
	return m.ctx
}

// Native returns the vendor handle (cl_mem, CUdeviceptr, ...); 0 for a
// nil or released buffer.
func (m *Mem) Native() uintptr {
	if m.enter("Mem.Native") != nil {
		return 0
	}
	defer m.life.leave()
	return m.drv.Native()
}

// checkRange validates [offset, offset+size) against the buffer.
func (m *Mem) checkRange(op string, offset, size uint64) error {
	if size == 0 {
		return newError(ErrInvalidSize, op, m.adapter.name, "transfer size is 0")
	}
	// Written so that nothing overflows: offset+size may not fit in 64 bits.
	if offset > m.size {
		return newError(ErrInvalidSize, op, m.adapter.name,
			"offset %d is past the end of the buffer of %d bytes", offset, m.size)
	}
	if size > m.size-offset {
		return newError(ErrInvalidSize, op, m.adapter.name,
			"%d bytes at offset %d run past the end of the buffer of %d bytes (%d bytes fit there)",
			size, offset, m.size, m.size-offset)
	}
	return nil
}

// Scalar is a type that can travel as a kernel argument by value or be
// viewed as bytes for a transfer.
type Scalar interface {
	~int8 | ~int16 | ~int32 | ~int64 | ~uint8 | ~uint16 | ~uint32 | ~uint64 |
		~float32 | ~float64 | ~uintptr
}

// AsBytes views a slice of numbers as its bytes, without copying, for
// buffer transfers: q.WriteBuffer(m, 0, ur.AsBytes(xs)).
func AsBytes[T Scalar](s []T) []byte {
	if len(s) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&s[0])), len(s)*int(unsafe.Sizeof(s[0])))
}
