package dl

import (
	"io"
	"runtime"
	"runtime/pprof"
	"testing"
	"time"
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

// TestCallQuickPassesEveryArgument is TestCallPassesEveryArgument for
// CallQuick, which shares the trampoline but not the way to it.
func TestCallQuickPassesEveryArgument(t *testing.T) {
	lib, err := Open("libc.so.6")
	if err != nil {
		t.Skipf("libc.so.6 not loadable here: %v", err)
	}
	defer lib.Close()
	snprintf, err := lib.Lookup("snprintf")
	if err != nil {
		t.Fatal(err)
	}
	buf, format := callBuffers.buf[:], []byte("%d %d %d %d %d %d %d %d %x\x00")
	args := Args{uintptr(unsafe.Pointer(&buf[0])), uintptr(len(buf)), uintptr(unsafe.Pointer(&format[0])), 9, 8, 7, 6, 5, 4, 3, 2, 0xabc}
	callBuffers.format = format
	n := CallQuick(snprintf, &args)
	if got, want := string(buf[:n]), "9 8 7 6 5 4 3 2 abc"; got != want {
		t.Errorf("snprintf through CallQuick = %q, want %q", got, want)
	}
}

// TestCallQuickSkipsTheSchedulerAccounting tells the two calls apart by
// runtime.NumCgoCall, which runtime.cgocall counts. Off amd64 both are
// cgo calls.
func TestCallQuickSkipsTheSchedulerAccounting(t *testing.T) {
	lib, err := Open("libc.so.6")
	if err != nil {
		t.Skipf("libc.so.6 not loadable here: %v", err)
	}
	defer lib.Close()
	labs, _ := lib.Lookup("labs")
	args := Args{1}
	count := func(quick bool) int64 {
		before := runtime.NumCgoCall()
		for range 10 {
			CallQuickIf(quick, labs, &args)
		}
		return runtime.NumCgoCall() - before
	}
	wantQuick := int64(0)
	if runtime.GOARCH != "amd64" {
		wantQuick = 10
	}
	if n := count(true); n != wantQuick {
		t.Errorf("10 quick calls counted %d cgo calls, want %d", n, wantQuick)
	}
	if n := count(false); n != 10 {
		t.Errorf("10 calls counted %d cgo calls, want 10", n)
	}
}

// TestCallQuickFromManyGoroutines makes quick calls from more goroutines
// than threads while the garbage collector runs, which stops the world
// between them and must find every goroutine back in Go.
func TestCallQuickFromManyGoroutines(t *testing.T) {
	lib, err := Open("libc.so.6")
	if err != nil {
		t.Skipf("libc.so.6 not loadable here: %v", err)
	}
	defer lib.Close()
	labs, _ := lib.Lookup("labs")
	done := make(chan int64)
	for g := range 16 {
		go func() {
			args := &Args{uintptr(-int64(g))}
			var sum int64
			for range 20000 {
				sum += int64(CallQuick(labs, args))
			}
			done <- sum
		}()
	}
	stop := make(chan struct{})
	go func() {
		for {
			select {
			case <-stop:
				return
			default:
				runtime.GC()
			}
		}
	}()
	var total int64
	for range 16 {
		total += <-done
	}
	close(stop)
	if want := int64(20000 * (15 * 16 / 2)); total != want {
		t.Errorf("sum of labs results = %d, want %d", total, want)
	}
}

// TestCallQuickUnderCPUProfile makes quick calls while the CPU profiler's
// signals arrive: a signal that lands in C on the system stack, outside
// runtime.cgocall, must be recorded as external code, not crash.
func TestCallQuickUnderCPUProfile(t *testing.T) {
	lib, err := Open("libc.so.6")
	if err != nil {
		t.Skipf("libc.so.6 not loadable here: %v", err)
	}
	defer lib.Close()
	usleep, err := lib.Lookup("usleep")
	if err != nil {
		t.Fatal(err)
	}
	labs, _ := lib.Lookup("labs")
	if err := pprof.StartCPUProfile(io.Discard); err != nil {
		t.Skipf("a CPU profile is already running: %v", err)
	}
	defer pprof.StopCPUProfile()
	sleep, minus := &Args{50}, &Args{^uintptr(0)}
	for deadline := time.Now().Add(300 * time.Millisecond); time.Now().Before(deadline); {
		CallQuick(usleep, sleep) // 50 µs in C: profiling signals land there
		if r := CallQuick(labs, minus); r != 1 {
			t.Fatalf("labs(-1) = %d", r)
		}
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

func BenchmarkCallQuick(b *testing.B) {
	lib, err := Open("libc.so.6")
	if err != nil {
		b.Skipf("libc.so.6 not loadable here: %v", err)
	}
	defer lib.Close()
	labs, _ := lib.Lookup("labs")
	args := Args{1}
	b.ReportAllocs()
	for b.Loop() {
		CallQuick(labs, &args)
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
