package cuda

import (
	"github.com/gour-dev/gour/internal/dl"
	"github.com/gour-dev/gour/ur/driver"
)

var _ driver.StdioFlusher = (*adapter)(nil)

// FlushStdio flushes the C library's stdio buffers, where the driver's
// kernel printf output may wait (fflush(NULL)).
func (a *adapter) FlushStdio() error { return dl.FlushStdio() }
