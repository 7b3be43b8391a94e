package driver

// PrintfContext is implemented by contexts whose kernels' printf buffer
// size can be set (cuCtxSetLimit(CU_LIMIT_PRINTF_FIFO_SIZE)). OpenCL and
// Level Zero fix it per device (UR_DEVICE_INFO_PRINTF_BUFFER_SIZE).
type PrintfContext interface {
	// SetPrintfBufferSize sets the buffer kernels' printf output goes
	// through, in bytes, before kernels that print run.
	SetPrintfBufferSize(bytes uint64) error
	// PrintfBufferSize is the size in force.
	PrintfBufferSize() (uint64, error)
}

// StdioFlusher is implemented by adapters whose drivers write kernels'
// printf output through the C library's stdio, buffered when standard
// output is a pipe or a file: FlushStdio flushes it (fflush(NULL)).
type StdioFlusher interface {
	FlushStdio() error
}
