package gomlx

import (
	"sync"

	gc "github.com/gomlx/compute"
	"github.com/gomlx/compute/shapes"
	"github.com/pkg/errors"
)

// Buffer is a GoMLX buffer: a value of a shape in the device's memory.
type Buffer struct {
	backend *Backend
	shape   shapes.Shape

	mu sync.Mutex
	st store // nil once finalized or donated
}

var _ gc.Buffer = (*Buffer)(nil)

func (b *Backend) newBuffer(shape shapes.Shape, st store) *Buffer {
	b.track(st)
	return &Buffer{backend: b, shape: shape, st: st}
}

// BufferFromFlatData implements compute.DataInterface: flat is copied.
func (b *Backend) BufferFromFlatData(deviceNum gc.DeviceNum, flat any, shape shapes.Shape) (gc.Buffer, error) {
	if err := b.enter(); err != nil {
		return nil, err
	}
	defer b.live.Done()
	if deviceNum != 0 {
		return nil, errors.Errorf("gour backend: no device %d", deviceNum)
	}
	if shape.IsDynamic() {
		return nil, errors.Wrapf(gc.ErrNotImplemented, "gour backend: buffer of dynamic shape %s", shape)
	}
	if err := b.checkDType(shape.DType); err != nil {
		return nil, err
	}
	st, err := storeFromFlat(b.ctx, shape.DType, flat, shape.Dimensions)
	if err != nil {
		return nil, err
	}
	if st.len() != shape.Size() {
		_ = st.release()
		return nil, errors.Errorf("gour backend: %d elements for shape %s (%d)", st.len(), shape, shape.Size())
	}
	return b.newBuffer(shape, st), nil
}

// HasSharedBuffers implements compute.DataInterface: the buffers live in
// device memory, which the host does not address.
func (b *Backend) HasSharedBuffers() bool { return false }

// NewSharedBuffer implements compute.DataInterface: not supported.
func (b *Backend) NewSharedBuffer(deviceNum gc.DeviceNum, shape shapes.Shape) (gc.Buffer, any, error) {
	return nil, nil, errors.Wrapf(gc.ErrNotImplemented, "gour backend: no shared buffers")
}

// Backend implements compute.Buffer.
func (buf *Buffer) Backend() gc.Backend { return buf.backend }

// Finalize implements compute.Buffer: it releases the storage (in the
// queue's order, so work already enqueued on it completes first).
func (buf *Buffer) Finalize() error {
	buf.mu.Lock()
	st := buf.st
	buf.st = nil
	buf.mu.Unlock()
	if st == nil || !buf.backend.untrack(st) {
		return nil // donated, finalized, or released with the backend
	}
	return st.release()
}

// take removes the storage from the buffer: a donation.
func (buf *Buffer) take() store {
	buf.mu.Lock()
	defer buf.mu.Unlock()
	st := buf.st
	buf.st = nil
	if st != nil {
		buf.backend.untrack(st)
	}
	return st
}

func (buf *Buffer) storage() (store, error) {
	buf.mu.Lock()
	defer buf.mu.Unlock()
	if buf.backend.IsFinalized() {
		return nil, errors.Wrapf(gc.ErrBackendFinalized, "gour backend buffer")
	}
	if buf.st == nil {
		return nil, errors.New("gour backend: buffer used after Finalize or donation")
	}
	return buf.st, nil
}

// Shape implements compute.Buffer.
func (buf *Buffer) Shape() (shapes.Shape, error) {
	if buf.backend.IsFinalized() {
		return shapes.Invalid(), errors.Wrapf(gc.ErrBackendFinalized, "gour backend buffer")
	}
	return buf.shape, nil
}

// DeviceNum implements compute.Buffer.
func (buf *Buffer) DeviceNum() (gc.DeviceNum, error) {
	if buf.backend.IsFinalized() {
		return 0, errors.Wrapf(gc.ErrBackendFinalized, "gour backend buffer")
	}
	return 0, nil
}

// ToFlatData implements compute.Buffer: it waits for the work writing the
// buffer and downloads it into flat.
func (buf *Buffer) ToFlatData(flat any) error {
	if err := buf.backend.enter(); err != nil {
		return err
	}
	defer buf.backend.live.Done()
	st, err := buf.storage()
	if err != nil {
		return err
	}
	return storeToFlat(st, buf.shape.DType, flat)
}

// Data implements compute.Buffer: not supported (HasSharedBuffers is false).
func (buf *Buffer) Data() (any, error) {
	return nil, errors.Wrapf(gc.ErrNotImplemented, "gour backend: no shared buffers, use ToFlatData")
}

// CopyToDevice implements compute.Buffer: the backend has one device.
func (buf *Buffer) CopyToDevice(deviceNum gc.DeviceNum) (gc.Buffer, error) {
	return nil, errors.Wrapf(gc.ErrNotImplemented, "gour backend: one device only")
}
