package ur

import (
	"github.com/gour-dev/gour/trace"
	"github.com/gour-dev/gour/ur/driver"
)

// This file holds what gour can do about kernels' printf.
//
// Kernel printf output is the driver's: OpenCL drivers and CUDA write it
// to the process's standard output (file descriptor 1) themselves, not
// through Go's os.Stdout, when the commands that printed complete and the
// host synchronizes with them (Queue.Finish, Event.Wait, a blocking read);
// output of one work-item is in the order it printed, that of different
// work-items in no defined order. What gour promises:
//
//   - After Queue.FinishPrintf returns, the output of every kernel of the
//     queue is in standard output's file descriptor, in each work-item's
//     order (PoCL writes it as the kernel runs; CUDA hands it to C's stdio
//     at the synchronization, where it may wait in a buffer when standard
//     output is a pipe or a file: FinishPrintf flushes it). After
//     Queue.Finish alone, CUDA's output may still be in C's buffer.
//   - The buffer's size is settable on CUDA (SetPrintfBufferSize, before
//     the first kernel that prints is loaded) and readable everywhere
//     (PrintfBufferSize; UR_DEVICE_INFO_PRINTF_BUFFER_SIZE).
//   - Overflow is not reported by any of the drivers: CUDA drops what
//     does not fit in its FIFO, OpenCL drivers truncate; gour cannot see
//     it. Size the buffer for the output a launch makes.
//   - Level Zero has printf buffers per module; output reaches standard
//     output as for OpenCL, on Intel's driver.

// SetPrintfBufferSize sets the size in bytes of the buffer kernels'
// printf output goes through, for the context's devices
// (cuCtxSetLimit(CU_LIMIT_PRINTF_FIFO_SIZE)), before a kernel that prints
// is loaded. Adapters whose drivers fix it (OpenCL, Level Zero) give
// ErrUnsupportedFeature; zero is ErrInvalidValue.
func (c *Context) SetPrintfBufferSize(bytes uint64) (rerr error) {
	const op = "Context.SetPrintfBufferSize"
	if t := trace.Active(); t != nil {
		tc := beginCall(t, op, c)
		defer tc.end(&rerr)
	}

	if err := c.enter(op); err != nil {
		return err
	}
	defer c.life.leave()
	if bytes == 0 {
		return newError(ErrInvalidValue, op, c.adapter.name, "a printf buffer of 0 bytes")
	}
	pc, ok := c.drv.(driver.PrintfContext)
	if !ok {
		return newError(ErrUnsupportedFeature, op, c.adapter.name, "the %s driver fixes the printf buffer's size per device (UR_DEVICE_INFO_PRINTF_BUFFER_SIZE)", c.adapter.name)
	}
	return wrapError(pc.SetPrintfBufferSize(bytes), op, c.adapter.name)
}

// PrintfBufferSize is the printf buffer's size in force for the context's
// first device: the context's limit where it can be set, else the
// device's UR_DEVICE_INFO_PRINTF_BUFFER_SIZE.
func (c *Context) PrintfBufferSize() (rv uint64, rerr error) {
	const op = "Context.PrintfBufferSize"
	if t := trace.Active(); t != nil {
		tc := beginCall(t, op, c)
		defer tc.end(&rerr)
	}

	if err := c.enter(op); err != nil {
		return 0, err
	}
	defer c.life.leave()
	if pc, ok := c.drv.(driver.PrintfContext); ok {
		n, err := pc.PrintfBufferSize()
		return n, wrapError(err, op, c.adapter.name)
	}
	devs := c.Devices()
	if len(devs) == 0 {
		return 0, newError(ErrInvalidContext, op, c.adapter.name, "the context has no device")
	}
	return devs[0].QueryUint(DeviceInfoPrintfBufferSize)
}

// FinishPrintf finishes the queue (Queue.Finish), then flushes the C
// library's stdio buffers (fflush(NULL)), where drivers that print through
// C's stdio (CUDA) leave kernel output when standard output is a pipe or
// a file: after it returns, the output of every kernel of the queue is in
// standard output's file descriptor, before anything the program writes
// next.
func (q *Queue) FinishPrintf() (rerr error) {
	const op = "Queue.FinishPrintf"
	if t := trace.Active(); t != nil {
		tc := beginCall(t, op, q)
		defer tc.end(&rerr)
	}

	if err := q.Finish(); err != nil {
		return err
	}
	if f, ok := q.adapter.drv.(driver.StdioFlusher); ok {
		if err := f.FlushStdio(); err != nil {
			return newError(ErrUnknown, op, q.adapter.name, "flushing stdio: %v", err)
		}
	}
	return nil
}
