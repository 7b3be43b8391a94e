package dl

import (
	"testing"
	"unsafe"
)

// TestCallPassesEveryArgument calls libc's snprintf, which reads register
// and stack arguments alike, and checks the text it formats.
func TestCallPassesEveryArgument(t *testing.T) {
	lib, err := Open("libc.so.6")
	if err != nil {
		t.Skipf("libc.so.6 not loadable here: %v", err)
	}
	defer lib.Close()
	snprintf, err := lib.Lookup("snprintf")
	if err != nil {
		t.Fatal(err)
	}
	// Both live on the heap (callBuffers), as Call's contract requires.
	buf, format := callBuffers.buf[:], []byte("%d %d %d %d %d %d %d %d %d\x00")
	args := Args{uintptr(unsafe.Pointer(&buf[0])), uintptr(len(buf)), uintptr(unsafe.Pointer(&format[0])), 1, 2, 3, 4, 5, 6, 7, 8, 9}
	callBuffers.format = format
	n := Call(snprintf, &args)
	if got, want := string(buf[:n]), "1 2 3 4 5 6 7 8 9"; got != want {
		t.Errorf("snprintf through Call = %q, want %q", got, want)
	}
}

func TestCallResult(t *testing.T) {
	lib, err := Open("libc.so.6")
	if err != nil {
		t.Skipf("libc.so.6 not loadable here: %v", err)
	}
	defer lib.Close()
	labs, err := lib.Lookup("labs")
	if err != nil {
		t.Fatal(err)
	}
	neg := int64(-1234567890123)
	args := Args{uintptr(neg)}
	if got := int64(Call(labs, &args)); got != 1234567890123 {
		t.Errorf("labs(-1234567890123) = %d", got)
	}
}

func BenchmarkCall(b *testing.B) {
	lib, err := Open("libc.so.6")
	if err != nil {
		b.Skipf("libc.so.6 not loadable here: %v", err)
	}
	defer lib.Close()
	labs, _ := lib.Lookup("labs")
	args := Args{1}
	b.ReportAllocs()
	for b.Loop() {
		Call(labs, &args)
	}
}

var callBuffers struct {
	buf    [64]byte
	format []byte
}

// TestCallAfter checks both outcomes with libc: a first call returning 0
// lets fn run; a non-zero one stops it and is reported.
func TestCallAfter(t *testing.T) {
	lib, err := Open("libc.so.6")
	if err != nil {
		t.Skipf("libc.so.6 not loadable here: %v", err)
	}
	defer lib.Close()
	abs, _ := lib.Lookup("abs")
	labs, _ := lib.Lookup("labs")
	args := Args{^uintptr(41)} // -42
	if r, ok := CallAfter(abs, 0, labs, &args); !ok || r != 42 {
		t.Errorf("CallAfter(abs(0), labs(-42)) = %d, %v; want 42, true", r, ok)
	}
	minus7 := int32(-7)
	if r, ok := CallAfter(abs, uintptr(uint32(minus7)), labs, &args); ok || r != 7 {
		t.Errorf("CallAfter(abs(-7), labs) = %d, %v; want 7, false", r, ok)
	}
}
