package dl

import (
	"runtime"
	"testing"
)

// onFreshThread runs f on a new OS thread: the goroutine locks its thread
// and exits locked, which ends the thread, so no record survives it.
func onFreshThread(f func()) {
	done := make(chan struct{})
	go func() {
		runtime.LockOSThread()
		defer close(done)
		f()
	}()
	<-done
}

// TestThreadValueRecords uses sched_yield as the setter (it ignores its
// argument and returns 0) and labs as the call: the record is trusted only
// for the value last set on the same thread.
func TestThreadValueRecords(t *testing.T) {
	tv := NewThreadValue(libc(t, "sched_yield"))
	if threadRecords && tv.tls.get == 0 {
		t.Fatal("no pthread key on a platform that keeps records")
	}
	labs := libc(t, "labs")
	args := Args{^uintptr(2)} // -3
	type step struct {
		v           uintptr
		force       bool
		wantTrusted bool
	}
	steps := []step{
		{v: 5},                    // first call on this thread: set
		{v: 5, wantTrusted: true}, // recorded
		{v: 6},                    // another value: set
		{v: 6, wantTrusted: true}, // recorded
		{v: 6, force: true},       // force ignores the record
		{v: 5},                    // the record follows the last value
		{v: 5, wantTrusted: true}, // and is trusted again
	}
	onFreshThread(func() {
		for i, s := range steps {
			r, ok, trusted := tv.CallWith(s.v, labs, &args, s.force)
			if r != 3 || !ok {
				t.Errorf("step %d: CallWith = %d, %v; want 3, true", i, r, ok)
			}
			if want := s.wantTrusted && threadRecords; trusted != want {
				t.Errorf("step %d (value %d, force %v): trusted = %v, want %v", i, s.v, s.force, trusted, want)
			}
		}
		if r := tv.Set(7); r != 0 {
			t.Errorf("Set(7) = %d, want 0", r)
		}
		if _, _, trusted := tv.CallWith(7, labs, &args, false); trusted != threadRecords {
			t.Errorf("after Set(7), CallWith(7) trusted = %v, want %v", trusted, threadRecords)
		}
	})
	// A record belongs to its thread: another thread sets the value.
	onFreshThread(func() {
		if _, _, trusted := tv.CallWith(7, labs, &args, false); trusted {
			t.Error("a new thread trusted another thread's record")
		}
	})
	// Two ThreadValues of one setter share their records.
	onFreshThread(func() {
		tv.Set(8)
		if _, _, trusted := NewThreadValue(tv.set).CallWith(8, labs, &args, false); trusted != threadRecords {
			t.Errorf("a second ThreadValue of the same setter: trusted = %v, want %v", trusted, threadRecords)
		}
	})
}

// TestThreadValueSetFails uses abs as the setter: abs(v) is non-zero for
// v != 0, a failure. The call is not made, set's result comes back, and
// nothing is recorded.
func TestThreadValueSetFails(t *testing.T) {
	tv := NewThreadValue(libc(t, "abs"))
	labs := libc(t, "labs")
	args := Args{1}
	onFreshThread(func() {
		for i := range 2 {
			r, ok, trusted := tv.CallWith(9, labs, &args, false)
			if ok || trusted || r != 9 {
				t.Errorf("call %d: CallWith with a failing setter = %d, ok %v, trusted %v; want 9, false, false", i, r, ok, trusted)
			}
		}
		if r := tv.Set(4); r != 4 {
			t.Errorf("Set(4) with abs = %d, want 4", r)
		}
	})
}

func BenchmarkThreadValueCallWith(b *testing.B) {
	tv := NewThreadValue(libc(b, "sched_yield"))
	labs := libc(b, "labs")
	args := Args{1}
	b.ReportAllocs()
	for b.Loop() {
		tv.CallWith(5, labs, &args, false)
	}
}
