package ur

import (
	"bytes"
	"encoding/binary"
	"errors"
	"os"
	"syscall"

	"github.com/gour-dev/gour/trace"
	"github.com/gour-dev/gour/ur/driver"
)

// This file shares device memory between processes, as the Unified
// Runtime's urIPCGetMemHandleExp and urIPCOpenMemHandleExp: one process
// gets a handle of a device allocation, sends its bytes to another (a
// pipe, a file, a socket), which opens it and uses the memory as a device
// allocation of its own context. CUDA (cuIpcGetMemHandle) and Level Zero
// (zeMemGetIpcHandle) have it; OpenCL gives ErrUnsupportedFeature.

// IPCMemHandle is the handle of a device allocation for another process:
// bytes to send as they are. gour adds to the driver's handle the
// adapter, the process that made it and the allocation's size, so that
// opening a handle of another adapter, of the process itself, of a
// process that has exited or bytes that are no handle is a typed error.
type IPCMemHandle []byte

const ipcMagic = "gourIPC1"

// IPCHandle returns the handle of the allocation for another process
// (urIPCGetMemHandleExp). The allocation must be device memory allocated
// by AllocDevice (not from a pool, not wrapped): ErrInvalidValue
// otherwise. It must stay allocated while other processes use it.
func (u *USM) IPCHandle() (rv IPCMemHandle, rerr error) {
	const op = "USM.IPCHandle"
	if t := trace.Active(); t != nil {
		tc := beginCall(t, op, u)
		defer tc.end(&rerr)
	}

	if err := u.enter(op); err != nil {
		return nil, err
	}
	defer u.life.leave()
	ic, ok := u.ctx.drv.(driver.IPCContext)
	if !ok {
		return nil, newError(ErrUnsupportedFeature, op, u.adapter.name, "the %s adapter cannot share memory between processes", u.adapter.name)
	}
	if u.kind != USMDevice || !u.owned || u.queue != nil {
		return nil, newError(ErrInvalidValue, op, u.adapter.name, "only device memory of AllocDevice has an IPC handle, not %s memory%s", u.kind, map[bool]string{true: " of a pool or another library"}[!u.owned || u.queue != nil])
	}
	payload, err := ic.IPCGetMemHandle(u.addr)
	if err != nil {
		return nil, wrapError(err, op, u.adapter.name)
	}
	return ipcEnvelope(ipcMagic, u.adapter.name, u.size, payload), nil
}

// ipcEnvelope wraps a driver's handle for another process: magic, the
// adapter's name, this process's id, a size, then the driver's bytes.
func ipcEnvelope(magic, adapter string, size uint64, payload []byte) []byte {
	var b bytes.Buffer
	b.WriteString(magic)
	b.WriteByte(byte(len(adapter)))
	b.WriteString(adapter)
	_ = binary.Write(&b, binary.LittleEndian, uint64(os.Getpid()))
	_ = binary.Write(&b, binary.LittleEndian, size)
	b.Write(payload)
	return b.Bytes()
}

// ipcHandle is a parsed IPCMemHandle.
type ipcHandle struct {
	adapter string
	pid     int
	size    uint64
	payload []byte
}

func parseIPCHandle(h IPCMemHandle) (ipcHandle, bool) { return parseEnvelope(ipcMagic, h) }

// parseEnvelope parses what ipcEnvelope made under magic.
func parseEnvelope(magic string, h []byte) (ipcHandle, bool) {
	if len(h) < len(magic)+1 || string(h[:len(magic)]) != magic {
		return ipcHandle{}, false
	}
	rest := h[len(magic):]
	n := int(rest[0])
	if len(rest) < 1+n+16 {
		return ipcHandle{}, false
	}
	p := ipcHandle{adapter: string(rest[1 : 1+n])}
	rest = rest[1+n:]
	p.pid = int(binary.LittleEndian.Uint64(rest))
	p.size = binary.LittleEndian.Uint64(rest[8:])
	p.payload = rest[16:]
	return p, len(p.payload) > 0 && p.size > 0
}

// processGone reports whether no process pid runs any more.
func processGone(pid int) bool {
	p, err := os.FindProcess(pid)
	if err != nil {
		return true
	}
	err = p.Signal(syscall.Signal(0))
	return errors.Is(err, os.ErrProcessDone) || errors.Is(err, syscall.ESRCH)
}

// OpenIPCMemHandle opens the memory of a handle another process made
// (urIPCOpenMemHandleExp) on dev, one of the context's devices: the
// allocation it returns is that memory, for commands and kernels of the
// context; Free closes it (the memory stays the other process's). Bytes
// that are no handle, a handle of another adapter or of this very process
// (open the allocation itself) are ErrInvalidValue; one of a process that
// has exited ErrInvalidMemObject.
func (c *Context) OpenIPCMemHandle(dev *Device, h IPCMemHandle) (rh *USM, rerr error) {
	const op = "Context.OpenIPCMemHandle"
	if t := trace.Active(); t != nil {
		tc := beginCall(t, op, c, dev)
		defer endNewOf(&tc, &rh, &rerr)
	}

	if err := c.enter(op); err != nil {
		return nil, err
	}
	defer c.life.leave()
	ic, ok := c.drv.(driver.IPCContext)
	if !ok {
		return nil, newError(ErrUnsupportedFeature, op, c.adapter.name, "the %s adapter cannot share memory between processes", c.adapter.name)
	}
	if err := c.checkVMDevice(op, dev); err != nil {
		return nil, err
	}
	p, ok := parseIPCHandle(h)
	switch {
	case !ok:
		return nil, newError(ErrInvalidValue, op, c.adapter.name, "%d bytes that are no IPC handle of gour", len(h))
	case p.adapter != c.adapter.name:
		return nil, newError(ErrInvalidValue, op, c.adapter.name, "a handle of the %s adapter", p.adapter)
	case p.pid == os.Getpid():
		return nil, newError(ErrInvalidValue, op, c.adapter.name, "a handle this process made: a process cannot open its own handles, use the allocation")
	case processGone(p.pid):
		return nil, newError(ErrInvalidMemObject, op, c.adapter.name, "process %d, which made the handle, has exited: its memory is gone", p.pid)
	}
	ptr, err := ic.IPCOpenMemHandle(dev.drv, p.payload)
	if err != nil {
		return nil, wrapError(err, op, c.adapter.name)
	}
	u := c.newUSM(USMDevice, dev, ptr, p.size, false)
	u.life.free = func() error {
		u.adapter.allocs.remove(u)
		return ic.IPCCloseMemHandle(ptr)
	}
	return u, nil
}
