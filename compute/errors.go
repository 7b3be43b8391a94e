package compute

import (
	"errors"
	"fmt"

	"github.com/gour-dev/gour/ur"
)

// Errors of package compute. Every error the package returns for bad input
// wraps one of these (test with errors.Is); errors from the device carry
// the ur error as well, so errors.Is(err, ur.ErrOutOfDeviceMemory) and
// friends hold too.
var (
	// ErrShape: arrays whose shapes (or lengths) an operation needs
	// equal are not, or a shape is invalid (a negative extent, a slice
	// whose length is not the product of the shape, a size in bytes that
	// overflows int or that the host cannot allocate).
	ErrShape = errors.New("compute: shape mismatch")
	// ErrReleased: the array, context or task sequence was released.
	ErrReleased = errors.New("compute: used after Release")
	// ErrWrongContext: an array made by one context was given to another.
	ErrWrongContext = errors.New("compute: array belongs to another context")
	// ErrInvalid: an argument is invalid in another way (a nil array or
	// function, a function taking another number of inputs, capacity
	// below 1).
	ErrInvalid = errors.New("compute: invalid argument")
)

// AspectError is the error of an operation a device cannot compute
// because it lacks an aspect: MatMul of float16 without half precision
// ("fp16"), of float64 without double precision ("fp64"). Nothing was
// enqueued or written. errors.Is(err, ur.ErrUnsupportedFeature) holds.
type AspectError struct {
	Op     string // the operation, e.g. "MatMul"
	Type   string // the element type, e.g. "float16"
	Device string // the context, as its String
	Aspect string // "fp16" or "fp64"
}

func (e *AspectError) Error() string {
	return fmt.Sprintf("compute: %s of %s on %s needs the %s aspect, which the device lacks", e.Op, e.Type, e.Device, e.Aspect)
}

func (e *AspectError) Unwrap() error { return ur.ErrUnsupportedFeature }
