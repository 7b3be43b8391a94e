//go:build linux && (amd64 || arm64)

package cl

import (
	"sync"

	"github.com/gour-dev/gour/internal/dl"
)

// The event-completion trampoline. dl.NewCallback (purego) makes a fixed
// number of callbacks per process (2000) and never frees one, so there is exactly
// one, made on first use: clSetEventCallback passes it a handle id as
// user data, and the trampoline hands the id and status to the function
// registered for it and returns. It runs on the driver's thread: it must
// not block, nor call OpenCL.
var trampoline struct {
	once sync.Once
	addr uintptr
	fn   func(id uintptr, status int32)
}

// EventTrampoline returns the address of the process's clSetEventCallback
// trampoline, which calls deliver(id, status) for each callback; deliver
// must be the same function at every call, and must only hand off
// (start a goroutine, send on a buffered channel). It returns 0 where
// purego has no callbacks.
func EventTrampoline(deliver func(id uintptr, status int32)) uintptr {
	trampoline.once.Do(func() {
		trampoline.fn = deliver
		trampoline.addr = dl.NewCallback(func(_ uintptr, status int32, id uintptr) {
			trampoline.fn(id, status)
		})
	})
	return trampoline.addr
}
