package dl

import (
	"testing"
	"unsafe"
)

// libc returns the address of a libc function, skipping the test where
// libc.so.6 cannot be opened.
func libc(t testing.TB, name string) uintptr {
	t.Helper()
	lib, err := Open("libc.so.6")
	if err != nil {
		t.Skipf("libc.so.6 not loadable here: %v", err)
	}
	t.Cleanup(func() { lib.Close() })
	fn, err := lib.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	return fn
}

// TestFramePointerArguments formats with snprintf into a buffer passed
// through Ptr.
func TestFramePointerArguments(t *testing.T) {
	snprintf := libc(t, "snprintf")
	buf, format := make([]byte, 32), []byte("%d-%d\x00")
	f := NewFrame()
	f.Args = Args{f.Ptr(0, unsafe.Pointer(&buf[0])), uintptr(len(buf)), f.Ptr(1, unsafe.Pointer(&format[0])), 12, 34}
	n, _, _ := f.Call(snprintf)
	if got := string(buf[:n]); got != "12-34" {
		t.Errorf("snprintf through a Frame wrote %q, want %q", got, "12-34")
	}
}

// TestFrameOutputs checks each kind of slot: sscanf writes two ints into
// Out slots, strtol stores its end pointer into the OutPtr slot, and
// strlen reads inputs placed with InOut and Slot.
func TestFrameOutputs(t *testing.T) {
	t.Run("Out", func(t *testing.T) {
		sscanf := libc(t, "sscanf")
		str, format := []byte("-7 123456\x00"), []byte("%d %d\x00")
		f := NewFrame()
		f.Args = Args{f.Ptr(0, unsafe.Pointer(&str[0])), f.Ptr(1, unsafe.Pointer(&format[0])), f.Out(0), f.Out(1)}
		n, out, _ := f.Call(sscanf)
		if n != 2 || int32(out[0]) != -7 || out[1] != 123456 {
			t.Errorf("sscanf = %d, slots %#x; want 2, -7 and 123456", n, out[:2])
		}
	})
	t.Run("OutPtr", func(t *testing.T) {
		strtol := libc(t, "strtol")
		str := []byte("123abc\x00")
		f := NewFrame()
		f.Args = Args{f.Ptr(0, unsafe.Pointer(&str[0])), f.OutPtr(), 10}
		r, _, end := f.Call(strtol)
		if r != 123 || end != unsafe.Pointer(&str[3]) {
			t.Errorf("strtol = %d, end %p; want 123, %p", r, end, &str[3])
		}
	})
	t.Run("InOut", func(t *testing.T) {
		strlen := libc(t, "strlen")
		f := NewFrame()
		f.Args = Args{f.InOut(1, 'a'|'b'<<8|'c'<<16)}
		if n, out, _ := f.Call(strlen); n != 3 || out[1] != 'a'|'b'<<8|'c'<<16 {
			t.Errorf("strlen(InOut slot) = %d, slot %#x; want 3", n, out[1])
		}
	})
	t.Run("Slot", func(t *testing.T) {
		strlen := libc(t, "strlen")
		const s = "an input of 24 bytes..."
		f := NewFrame()
		p := f.Slot(0)
		copy(unsafe.Slice((*byte)(p), 24), s+"\x00")
		f.Args = Args{uintptr(p)}
		if n, _, _ := f.Call(strlen); n != uintptr(len(s)) {
			t.Errorf("strlen(Slot) = %d, want %d", n, len(s))
		}
	})
}

// TestFrameReturnedCleared checks that a frame goes back to the pool
// holding no argument and no pointer, so it keeps nothing alive and the
// next call starts from zero Args.
func TestFrameReturnedCleared(t *testing.T) {
	strtol := libc(t, "strtol")
	str := []byte("9x\x00")
	f := NewFrame()
	f.Args = Args{f.Ptr(0, unsafe.Pointer(&str[0])), f.OutPtr(), 10}
	f.Ptr(7, unsafe.Pointer(&str[1]))
	f.Call(strtol)
	// f is back in the pool; nothing else runs here that could take it.
	if f.Args != (Args{}) || f.keep != [len(f.keep)]unsafe.Pointer{} || f.outp != nil {
		t.Errorf("frame returned to the pool with Args %v, keep %v, outp %p", f.Args, f.keep, f.outp)
	}
	f = NewFrame()
	f.Ptr(0, unsafe.Pointer(&str[0]))
	f.Release()
	if f.keep[0] != nil {
		t.Error("Release left a recorded pointer")
	}
	if g := NewFrame(); g.Args != (Args{}) {
		t.Errorf("NewFrame gave Args %v, want zero", g.Args)
	}
}

// TestFrameCallAllocatesNothing checks that a call with heap pointers,
// output slots and a pointer output costs no Go allocation once the pool
// holds a frame.
func TestFrameCallAllocatesNothing(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector makes sync.Pool drop items")
	}
	sscanf, strtol := libc(t, "sscanf"), libc(t, "strtol")
	str, format := []byte("1 2\x00"), []byte("%d %d\x00")
	allocs := testing.AllocsPerRun(100, func() {
		f := NewFrame()
		f.Args = Args{f.Ptr(0, unsafe.Pointer(&str[0])), f.Ptr(1, unsafe.Pointer(&format[0])), f.Out(0), f.Out(1)}
		f.Call(sscanf)
		f = NewFrame()
		f.Args = Args{f.Ptr(0, unsafe.Pointer(&str[0])), f.OutPtr(), 10}
		f.Call(strtol)
	})
	if allocs != 0 {
		t.Errorf("Frame calls: %v allocations per run, want 0", allocs)
	}
}

func BenchmarkFrameCall(b *testing.B) {
	strlen := libc(b, "strlen")
	str := []byte("benchmark\x00")
	b.ReportAllocs()
	for b.Loop() {
		f := NewFrame()
		f.Args = Args{f.Ptr(0, unsafe.Pointer(&str[0]))}
		f.Call(strlen)
	}
}
