package ur

import (
	"errors"
	"sync"
	"sync/atomic"
	"testing"
)

func TestLifetimeReleaseWhileInUseDefersFree(t *testing.T) {
	var freed atomic.Int32
	l := &lifetime{free: func() error { freed.Add(1); return nil }}
	if !l.enter() {
		t.Fatal("enter on a live handle failed")
	}
	if ok, err := l.release(); !ok || err != nil {
		t.Fatalf("release = %v, %v", ok, err)
	}
	if freed.Load() != 0 {
		t.Fatal("freed while a call was still inside")
	}
	if l.enter() {
		t.Fatal("enter after release succeeded")
	}
	l.leave()
	if freed.Load() != 1 {
		t.Fatalf("freed %d times after the last call left, want 1", freed.Load())
	}
	if ok, _ := l.release(); ok {
		t.Fatal("second release reported success")
	}
}

func TestLifetimeFreeErrorReturnedByIdleRelease(t *testing.T) {
	boom := errors.New("boom")
	l := &lifetime{free: func() error { return boom }}
	if ok, err := l.release(); !ok || !errors.Is(err, boom) {
		t.Fatalf("release = %v, %v; want true, boom", ok, err)
	}
}

// TestLifetimeConcurrentUseAndRelease races many callers against one
// Release: the object is freed exactly once and never while a caller that
// entered successfully is still inside.
func TestLifetimeConcurrentUseAndRelease(t *testing.T) {
	for round := 0; round < 200; round++ {
		var freed, inside atomic.Int32
		var bad atomic.Bool
		l := &lifetime{free: func() error {
			if inside.Load() != 0 {
				bad.Store(true)
			}
			freed.Add(1)
			return nil
		}}
		var wg sync.WaitGroup
		for g := 0; g < 8; g++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := 0; i < 50; i++ {
					if !l.enter() {
						return
					}
					inside.Add(1)
					inside.Add(-1)
					l.leave()
				}
			}()
		}
		l.release()
		wg.Wait()
		if freed.Load() != 1 || bad.Load() {
			t.Fatalf("round %d: freed %d times, freed while in use: %v", round, freed.Load(), bad.Load())
		}
	}
}
