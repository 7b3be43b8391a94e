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
// and stack arguments alike, and checks the text it formats, through Call
// and through CallQuick, which share the trampoline but not the way to it.
func TestCallPassesEveryArgument(t *testing.T) {
	snprintf := libc(t, "snprintf")
	// Both live on the heap (callBuffers), as Call's contract requires.
	buf, format := callBuffers.buf[:], []byte("%d %d %d %d %d %d %d %d %x\x00")
	callBuffers.format = format
	for _, quick := range []bool{false, true} {
		args := Args{uintptr(unsafe.Pointer(&buf[0])), uintptr(len(buf)), uintptr(unsafe.Pointer(&format[0])), 1, 2, 3, 4, 5, 6, 7, 8, 0xabc}
		n := CallQuickIf(quick, snprintf, &args)
		if got, want := string(buf[:n]), "1 2 3 4 5 6 7 8 abc"; got != want {
			t.Errorf("snprintf through CallQuickIf(%v, …) = %q, want %q", quick, got, want)
		}
	}
}

// TestCallQuickSkipsTheSchedulerAccounting tells the two calls apart by
// runtime.NumCgoCall, which runtime.cgocall counts. Off amd64 both are
// cgo calls.
func TestCallQuickSkipsTheSchedulerAccounting(t *testing.T) {
	labs := libc(t, "labs")
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
	labs := libc(t, "labs")
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
	usleep, labs := libc(t, "usleep"), libc(t, "labs")
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
	labs := libc(t, "labs")
	neg := int64(-1234567890123)
	args := Args{uintptr(neg)}
	if got := int64(Call(labs, &args)); got != 1234567890123 {
		t.Errorf("labs(-1234567890123) = %d", got)
	}
}

func BenchmarkCall(b *testing.B)      { benchmarkCall(b, false) }
func BenchmarkCallQuick(b *testing.B) { benchmarkCall(b, true) }

func benchmarkCall(b *testing.B, quick bool) {
	labs := libc(b, "labs")
	args := Args{1}
	b.ReportAllocs()
	for b.Loop() {
		CallQuickIf(quick, labs, &args)
	}
}

var callBuffers struct {
	buf        [64]byte
	format     []byte
	wide       [128]byte
	wideFormat []byte
}

// TestCallAfter checks both outcomes with libc: a first call returning 0
// lets fn run; a non-zero one stops it and is reported.
func TestCallAfter(t *testing.T) {
	abs, labs := libc(t, "abs"), libc(t, "labs")
	args := Args{^uintptr(41)} // -42
	if r, ok := CallAfter(abs, 0, labs, &args); !ok || r != 42 {
		t.Errorf("CallAfter(abs(0), labs(-42)) = %d, %v; want 42, true", r, ok)
	}
	minus7 := int32(-7)
	if r, ok := CallAfter(abs, uintptr(uint32(minus7)), labs, &args); ok || r != 7 {
		t.Errorf("CallAfter(abs(-7), labs) = %d, %v; want 7, false", r, ok)
	}
}

// TestCallWidePassesEveryArgument formats 21 integers with snprintf
// through CallWide and CallWideAfter: all 18 stack slots are read.
func TestCallWidePassesEveryArgument(t *testing.T) {
	snprintf, abs := libc(t, "snprintf"), libc(t, "abs")
	buf, format := callBuffers.wide[:], []byte("%d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d\x00")
	callBuffers.wideFormat = format
	args := WideArgs{uintptr(unsafe.Pointer(&buf[0])), uintptr(len(buf)), uintptr(unsafe.Pointer(&format[0]))}
	for i := 3; i < len(args); i++ {
		args[i] = uintptr(i - 2)
	}
	const want = "1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21"
	if n := CallWide(snprintf, &args); string(buf[:n]) != want {
		t.Errorf("snprintf through CallWide = %q, want %q", buf[:n], want)
	}
	clear(buf)
	if n, ok := CallWideAfter(abs, 0, snprintf, &args); !ok || string(buf[:n]) != want {
		t.Errorf("snprintf through CallWideAfter = %q, %v; want %q, true", buf[:n], ok, want)
	}
	minus3 := int32(-3)
	if r, ok := CallWideAfter(abs, uintptr(uint32(minus3)), snprintf, &args); ok || r != 3 {
		t.Errorf("CallWideAfter(abs(-3), snprintf) = %d, %v; want 3, false", r, ok)
	}
}
