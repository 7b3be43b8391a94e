package compute

import "errors"

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
