//go:build amd64 || arm64

package trace

import (
	"sync"
	"unsafe"
)

// getg returns the running goroutine's g, the runtime's record of it.
func getg() unsafe.Pointer

// goidOffset is where the g holds the goroutine's id, found once by
// looking for the id runtime.Stack prints in the g of a few goroutines; -1
// when it was not found (then every id comes from runtime.Stack).
var goidOffset = sync.OnceValue(findGoidOffset)

// gScan is how far into a g the id is looked for: it sits in the first
// 200 bytes in every Go release so far (152 in Go 1.26), and every g is
// larger than gScan.
const gScan = 256

func findGoidOffset() int {
	var candidates []int
	probe := func() {
		found := scanG(getg(), slowGoid())
		if candidates == nil {
			candidates = found
			return
		}
		kept := candidates[:0]
		for _, c := range candidates {
			for _, f := range found {
				if c == f {
					kept = append(kept, c)
				}
			}
		}
		candidates = kept
	}
	// Three goroutines with different ids must agree on one offset.
	for range 3 {
		done := make(chan struct{})
		go func() { probe(); close(done) }()
		<-done
	}
	if len(candidates) != 1 {
		return -1
	}
	return candidates[0]
}

// scanG returns the offsets in g of the word id (checkptr off: the scan
// reads the g as words, which it was not allocated as).
//
//go:nocheckptr
func scanG(g unsafe.Pointer, id int64) []int {
	var found []int
	for off := 0; off+8 <= gScan; off += 8 {
		if *(*int64)(unsafe.Add(g, off)) == id {
			found = append(found, off)
		}
	}
	return found
}

// goid returns the calling goroutine's id, as runtime.Stack prints it.
//
//go:nocheckptr
func goid() int64 {
	if off := goidOffset(); off >= 0 {
		return *(*int64)(unsafe.Add(getg(), off))
	}
	return slowGoid()
}
