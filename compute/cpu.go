package compute

import (
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/gour-dev/gour/ur"
)

// CPU is the context of the host: operations run on goroutines, each
// over a contiguous chunk of the elements; there are no transfers. It
// needs no cgo and no driver.
type CPU struct {
	workers  int
	minChunk int
	released atomic.Bool
}

// NewCPU returns a CPU context running operations on up to workers
// goroutines (0: GOMAXPROCS).
func NewCPU(workers int) *CPU {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	// Below 16Ki elements a chunk costs more to hand to a goroutine than
	// to compute.
	return &CPU{workers: workers, minChunk: 1 << 14}
}

// Workers returns the most goroutines an operation uses.
func (c *CPU) Workers() int {
	if c == nil {
		return 0
	}
	return c.workers
}

func (c *CPU) String() string {
	if c == nil {
		return "cpu(nil)"
	}
	return fmt.Sprintf("cpu(%d workers)", c.workers)
}

func (c *CPU) Backend() string { return "cpu" }

// Release marks the context released: later operations give ErrReleased.
func (c *CPU) Release() error {
	if c != nil {
		c.released.Store(true)
	}
	return nil
}

func (c *CPU) eng() engine { return c }

func (c *CPU) checkOpen() error {
	if c == nil {
		return fmt.Errorf("%w: nil *CPU", ErrInvalid)
	}
	if c.released.Load() {
		return fmt.Errorf("%w: %v", ErrReleased, c)
	}
	return nil
}

func (c *CPU) zeros(a *core) error {
	h, err := alignedBytes(int(a.bytes()))
	if err != nil {
		return err
	}
	a.host, a.hostValid = h, true
	return nil
}

// place has nothing to do: the host copy is the CPU's.
func (c *CPU) place(*core, bool) error { return nil }

// The CPU computes on the host copy, an array's only copy here, valid
// from FromSlice or Zeros to Release: staging and writing leave it as it
// is, and there are no kernels to ready.

func (c *CPU) stage(*core, Access) error { return nil }
func (c *CPU) written(*core)             {}
func (c *CPU) ready(work) error          { return nil }
func (c *CPU) exec(w work) error         { return w.onCPU(c) }
func (c *CPU) fence() (*ur.Event, error) { return nil, nil }

// chunks returns how many chunks n elements are cut into.
func (c *CPU) chunks(n int) int {
	k := (n + c.minChunk - 1) / c.minChunk
	return max(1, min(k, c.workers))
}

// parallel runs body over [0, n) in k chunks, one goroutine per chunk
// but the last, which runs on the caller's. Chunk i is
// [i*n/k, (i+1)*n/k). A panic in body (a user's CPU function indexing
// past a slice) is recovered and returned as an error, so that it cannot
// take the process down from another goroutine.
func (c *CPU) parallel(n, k int, body func(chunk, lo, hi int)) error {
	var (
		mu    sync.Mutex
		first error
	)
	run := func(i int) {
		if err := runChunk(body, i, n, k); err != nil {
			mu.Lock()
			if first == nil {
				first = err
			}
			mu.Unlock()
		}
	}
	if k <= 1 {
		k = 1
		run(0)
		return first
	}
	var wg sync.WaitGroup
	wg.Add(k - 1)
	for i := range k - 1 {
		go func() {
			defer wg.Done()
			run(i)
		}()
	}
	run(k - 1)
	wg.Wait()
	return first
}

// runChunk runs chunk i of k of body over [0, n), returning a panic in
// it as an error.
func runChunk(body func(chunk, lo, hi int), i, n, k int) (err error) {
	defer recovered("CPU function", &err)
	body(i, i*n/k, (i+1)*n/k)
	return nil
}
