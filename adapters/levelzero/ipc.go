package levelzero

import (
	"github.com/gour-dev/gour/adapters/levelzero/internal/ze"
	"github.com/gour-dev/gour/ur/driver"
)

// This file shares device memory between processes (driver.IPCContext)
// with zeMemGetIpcHandle and zeMemOpenIpcHandle.

var _ driver.IPCContext = (*context)(nil)

// ipcCheck is check for entry points a loader or driver may lack (IPC,
// images): their absence is ErrUnsupportedFeature.
func ipcCheck(fn string, r ze.Result) error {
	if r == ze.NotSupported || r == ze.ErrorUninitialized {
		return driver.Errorf(driver.ResultUnsupportedFeature, "the Level Zero driver has no %s", fn)
	}
	return check(fn, r)
}

func (c *context) IPCGetMemHandle(ptr uintptr) ([]byte, error) {
	h, r := c.ze.MemGetIpcHandle(c.handle, ptr)
	if err := ipcCheck("zeMemGetIpcHandle", r); err != nil {
		return nil, err
	}
	return h[:], nil
}

func (c *context) IPCOpenMemHandle(dev driver.Device, handle []byte) (uintptr, error) {
	if len(handle) != ze.IPCHandleSize {
		return 0, driver.Errorf(driver.ResultInvalidValue, "a Level Zero IPC handle has %d bytes, not %d", ze.IPCHandleSize, len(handle))
	}
	var h [ze.IPCHandleSize]byte
	copy(h[:], handle)
	p, r := c.ze.MemOpenIpcHandle(c.handle, dev.(*device).handle, h)
	return p, ipcCheck("zeMemOpenIpcHandle", r)
}

func (c *context) IPCCloseMemHandle(ptr uintptr) error {
	return ipcCheck("zeMemCloseIpcHandle", c.ze.MemCloseIpcHandle(c.handle, ptr))
}
