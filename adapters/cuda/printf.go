package cuda

import (
	"github.com/gour-dev/gour/adapters/cuda/internal/cu"
	"github.com/gour-dev/gour/ur/driver"
)

var _ driver.PrintfContext = (*context)(nil)

// SetPrintfBufferSize sets CU_LIMIT_PRINTF_FIFO_SIZE on the context's
// devices. CUDA takes it only before the first kernel that prints has
// been loaded in the context; after, the driver's CUDA_ERROR_INVALID_VALUE
// or NOT_SUPPORTED is the error.
func (c *context) SetPrintfBufferSize(bytes uint64) error {
	for _, d := range c.devices() {
		if err := d.bind(); err != nil {
			return err
		}
		r := d.a.cu.CtxSetLimit(cu.LimitPrintfFIFOSize, bytes)
		unbind()
		if err := check("cuCtxSetLimit(CU_LIMIT_PRINTF_FIFO_SIZE)", r); err != nil {
			return err
		}
	}
	return nil
}

// PrintfBufferSize reads CU_LIMIT_PRINTF_FIFO_SIZE of the first device.
func (c *context) PrintfBufferSize() (uint64, error) {
	d := c.dev
	if err := d.bind(); err != nil {
		return 0, err
	}
	defer unbind()
	v, r := d.a.cu.CtxGetLimit(cu.LimitPrintfFIFOSize)
	return v, check("cuCtxGetLimit(CU_LIMIT_PRINTF_FIFO_SIZE)", r)
}
