package cuda

import (
	"sync"
	"testing"
	"unsafe"

	"github.com/gour-dev/gour/adapters/cuda/internal/cu"
	"github.com/gour-dev/gour/internal/dl"
	"github.com/gour-dev/gour/ur/driver"
)

// sigset is glibc's sigset_t: 1024 bits.
type sigset [16]uint64

// Goroutines launching at once through the combiner each find their own
// launch submitted when the call returns, none lost. libc
// stands in for the driver: the "launch" is sigaddset(set, signum), the
// function handle a goroutine's own set and gridX the signal, so each
// launch leaves one bit that the goroutine checks. Run under -race.
func TestCombinerSubmitsEveryLaunch(t *testing.T) {
	lib, err := dl.Open("libc.so.6")
	if err != nil {
		t.Skipf("libc.so.6 not loadable: %v", err)
	}
	sigaddset, err := lib.Lookup("sigaddset")
	if err != nil {
		t.Skipf("libc: %v", err)
	}
	q := &queue{cu: cu.StandInLaunch(sigaddset, sigaddset), dev: &device{}}
	const goroutines, launches = 64, 500
	sets := make([]sigset, goroutines)
	var wg sync.WaitGroup
	errs := make(chan string, goroutines)
	for g := range goroutines {
		wg.Go(func() {
			set := &sets[g]
			call := &driver.NativeCall{Fn: sigaddset}
			call.Args[0] = uintptr(unsafe.Pointer(set))
			for i := range launches {
				signal := uint32(1 + (g+i)%31) // 1..31: glibc refuses its own real-time signals
				*set = sigset{}
				call.Args[1] = uintptr(signal)
				if r := q.combine.launch(q, call); r != cu.Success {
					errs <- "launch failed: " + r.String()
					return
				}
				if *set != (sigset{0: 1 << (signal - 1)}) {
					errs <- "a launch returned before it was submitted"
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Fatal(e)
	}
	if q.combine.pending.Load() != nil {
		t.Error("launches are left on the combining list")
	}
}
