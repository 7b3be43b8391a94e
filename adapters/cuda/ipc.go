package cuda

import (
	"github.com/gour-dev/gour/adapters/cuda/internal/cu"
	"github.com/gour-dev/gour/ur/driver"
)

// This file shares device memory between processes
// (driver.IPCContext) with cuIpcGetMemHandle and cuIpcOpenMemHandle.

var _ driver.IPCContext = (*context)(nil)

func (c *context) IPCGetMemHandle(ptr uintptr) ([]byte, error) {
	if err := c.dev.bind(); err != nil {
		return nil, err
	}
	defer unbind()
	h, r := c.dev.a.cu.IpcGetMemHandle(cu.DevicePtr(ptr))
	if err := check("cuIpcGetMemHandle", r); err != nil {
		return nil, err
	}
	return h[:], nil
}

func (c *context) IPCOpenMemHandle(dev driver.Device, handle []byte) (uintptr, error) {
	d := dev.(*device)
	if len(handle) != cu.IPCHandleSize {
		return 0, driver.Errorf(driver.ResultInvalidValue, "a CUDA IPC handle has %d bytes, not %d", cu.IPCHandleSize, len(handle))
	}
	if err := d.bind(); err != nil {
		return 0, err
	}
	defer unbind()
	var h [cu.IPCHandleSize]byte
	copy(h[:], handle)
	p, r := d.a.cu.IpcOpenMemHandle(h, cu.IPCMemLazyEnablePeerAccess)
	return uintptr(p), check("cuIpcOpenMemHandle", r)
}

func (c *context) IPCCloseMemHandle(ptr uintptr) error {
	if err := c.dev.bind(); err != nil {
		return err
	}
	defer unbind()
	return check("cuIpcCloseMemHandle", c.dev.a.cu.IpcCloseMemHandle(cu.DevicePtr(ptr)))
}
