package cuda_test

import (
	"os"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/gour-dev/gour/ur"
)

// cgoCallsOf runs launch n times and returns how many C calls went through
// runtime.cgocall, which counts them; quick calls (driver.QuickGate) are
// not counted.
func cgoCallsOf(t *testing.T, n int, launch func() error) int64 {
	t.Helper()
	before := runtime.NumCgoCall()
	for range n {
		if err := launch(); err != nil {
			t.Fatal(err)
		}
	}
	return runtime.NumCgoCall() - before
}

// TestQuickLaunchesStopBeforeTheStreamFills checks the quick-call gate on
// the GPU: prepared and repeated launches on a drained stream are quick
// calls; behind a kernel that keeps the device busy, only the first 512
// commands are, so the launches that wait for the stream to make room wait
// as cgo calls, and the garbage collector runs on meanwhile.
func TestQuickLaunchesStopBeforeTheStreamFills(t *testing.T) {
	if os.Getenv("GOUR_CUDA_QUICK_LAUNCH") == "0" {
		t.Skip("quick launches turned off by GOUR_CUDA_QUICK_LAUNCH=0")
	}
	f := newFixture(t)
	q, empty := f.queueAndKernel(t, "empty")
	if err := empty.SetArgUint64(0, 0); err != nil {
		t.Fatal(err)
	}
	spin, err := f.prog.NewKernel("spin")
	if err != nil {
		t.Fatal(err)
	}
	defer spin.Release()
	p, err := q.PrepareLaunch(empty, ur.Range1D(32))
	if err != nil {
		t.Fatal(err)
	}
	defer p.Release()

	if n := cgoCallsOf(t, 100, p.Launch); n != 0 {
		t.Fatalf("100 prepared launches on a new stream: %d cgo calls, want 0 (quick calls; is cuFuncLoad missing?)", n)
	}
	repeat := func() error { return q.Launch(empty, ur.Range1D(32)) }
	if n := cgoCallsOf(t, 100, repeat); n > 2 {
		t.Errorf("100 repeated Queue.Launch: %d cgo calls, want at most the first 2", n)
	}
	if err := q.Finish(); err != nil {
		t.Fatal(err)
	}

	// About half a second of device time at the H100's clock, then 1500
	// launches: the stream holds 1021 before cuLaunchKernel waits.
	if err := spin.SetArgUint64(0, 1_000_000_000); err != nil {
		t.Fatal(err)
	}
	if err := q.Launch(spin, ur.Range1D(1)); err != nil {
		t.Fatal(err)
	}
	var (
		wg      sync.WaitGroup
		stop    = make(chan struct{})
		longest time.Duration
	)
	wg.Go(func() {
		for {
			select {
			case <-stop:
				return
			default:
			}
			start := time.Now()
			runtime.GC()
			longest = max(longest, time.Since(start))
			time.Sleep(time.Millisecond)
		}
	})
	start := time.Now()
	n := cgoCallsOf(t, 1500, p.Launch)
	waited := time.Since(start)
	close(stop)
	wg.Wait()
	// The spin launch spent one of the 512: 511 quick calls.
	if n != 1500-511 {
		t.Errorf("1500 launches behind a busy kernel: %d cgo calls, want %d", n, 1500-511)
	}
	if waited > 100*time.Millisecond && longest > waited/2 {
		t.Errorf("a garbage collection took %v while the launches waited %v for the stream", longest, waited)
	}
	t.Logf("launches waited %v for the stream; the longest collection meanwhile took %v", waited, longest)
	if err := q.Finish(); err != nil {
		t.Fatal(err)
	}
	if n := cgoCallsOf(t, 100, p.Launch); n != 0 {
		t.Errorf("100 prepared launches after Finish: %d cgo calls, want 0", n)
	}
	if err := q.Finish(); err != nil {
		t.Fatal(err)
	}
}
