package driver

import (
	"errors"
	"fmt"
	"sort"
	"sync"
)

// ErrNotAvailable is wrapped by the error an adapter's Open returns when its
// vendor library, or any device of it, is missing.
var ErrNotAvailable = errors.New("adapter not available")

// NotAvailable returns an error that matches ErrNotAvailable and says why.
func NotAvailable(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrNotAvailable, fmt.Sprintf(format, args...))
}

// OpenFunc opens an adapter: it loads the vendor library and initialises it.
// It must not panic; a machine without the driver gets an error matching
// ErrNotAvailable.
type OpenFunc func() (Adapter, error)

var (
	registryMu sync.Mutex
	registry   = map[string]OpenFunc{}
)

// Register makes an adapter known under its backend name ("opencl", "cuda",
// "level_zero", or any other lower-case name an adapter outside this module
// chooses: selectors and UR_ADAPTERS_FORCE_LOAD then accept it). Adapters
// call it from init. Registering a name twice panics, as database/sql does,
// because it is a programming error caught at start-up.
func Register(name string, open OpenFunc) {
	registryMu.Lock()
	defer registryMu.Unlock()
	if open == nil {
		panic("driver: Register of nil OpenFunc for " + name)
	}
	if _, dup := registry[name]; dup {
		panic("driver: Register called twice for " + name)
	}
	registry[name] = open
}

// Registered returns the registered adapter names, sorted.
func Registered() []string {
	registryMu.Lock()
	defer registryMu.Unlock()
	names := make([]string, 0, len(registry))
	for n := range registry {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Opener returns the OpenFunc registered under name.
func Opener(name string) (OpenFunc, bool) {
	registryMu.Lock()
	defer registryMu.Unlock()
	open, ok := registry[name]
	return open, ok
}
