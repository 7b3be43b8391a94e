package gonumblas

import "github.com/gour-dev/gour/ur"

// StageAll makes impl copy every operand through its host staging
// memory, page-locked where the device has host USM, as it does on a
// discrete GPU, in chunks of a few rows: the tests take that path on
// devices sharing the host's memory too, where the Implementation copies
// straight from the caller's slices. It reports whether the device has
// host USM.
func StageAll(impl *Implementation) bool {
	impl.mu.Lock()
	defer impl.mu.Unlock()
	impl.pinned = impl.q.Device().Info().USM.Host
	impl.chunk = 200
	return impl.pinned
}

// Pinned reports whether impl still stages through page-locked memory:
// an allocation of it that failed turns that off.
func Pinned(impl *Implementation) bool {
	impl.mu.Lock()
	defer impl.mu.Unlock()
	return impl.pinned
}

// NewHeld is New with the device's set-up held until release is called:
// until then the Implementation is not ready.
func NewHeld(q *ur.Queue, opts Options) (impl *Implementation, release func(), err error) {
	hold := make(chan struct{})
	impl, err = newImpl(q, opts, hold)
	return impl, func() { close(hold) }, err
}
