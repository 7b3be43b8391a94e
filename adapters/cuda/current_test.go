package cuda_test

import (
	"fmt"
	"runtime"
	"testing"
	"unsafe"

	"github.com/gour-dev/gour/internal/dl"
	"github.com/gour-dev/gour/ur"
)

// rawCUDA calls the driver directly, behind the adapter's back, to change
// the thread's current context the way other code in the process may.
type rawCUDA struct {
	setCurrent, getCurrent, ctxCreate, ctxDestroy uintptr
	createV4                                      bool // cuCtxCreate_v4 takes a params pointer
}

func openRawCUDA(t *testing.T) *rawCUDA {
	t.Helper()
	lib, err := dl.Open("libcuda.so.1")
	if err != nil {
		t.Skip(err)
	}
	var c rawCUDA
	if err := lib.Resolve([]dl.Symbol{
		{Name: "cuCtxSetCurrent", Addr: &c.setCurrent},
		{Name: "cuCtxGetCurrent", Addr: &c.getCurrent},
		{Name: "cuCtxDestroy_v2", Addr: &c.ctxDestroy},
		{Name: "cuCtxCreate_v2", Addr: &c.ctxCreate, Optional: true},
	}); err != nil {
		t.Fatal(err)
	}
	if c.ctxCreate == 0 {
		if c.ctxCreate, err = lib.Lookup("cuCtxCreate_v4"); err != nil {
			t.Fatal(err)
		}
		c.createV4 = true
	}
	return &c
}

func (c *rawCUDA) call(t *testing.T, name string, fn uintptr, args ...uintptr) {
	t.Helper()
	var a dl.Args
	copy(a[:], args)
	if r := int32(dl.Call(fn, &a)); r != 0 {
		t.Fatalf("%s: CUDA error %d", name, r)
	}
}

func (c *rawCUDA) current(t *testing.T) uintptr {
	out := new(uintptr)
	c.call(t, "cuCtxGetCurrent", c.getCurrent, uintptr(unsafe.Pointer(out)))
	return *out
}

// describe says which context a launch left current.
func describe(current, ours uintptr) string {
	if current == ours {
		return "gour's (the driver refused the launch; gour made its context current and launched again)"
	}
	return fmt.Sprintf("%#x, not gour's (the driver took the launch as it was)", current)
}

// TestLaunchAfterContextChangedBehindGour: a launch does not make the
// context current first; it relies on the driver launching a function in
// its own context, and sets the context and launches again only when the
// driver refuses. Whatever the thread has current — gour's context, none,
// or another context of the same device that code outside gour made
// current — every launch must run, in the right context.
func TestLaunchAfterContextChangedBehindGour(t *testing.T) {
	f := newFixture(t)
	raw := openRawCUDA(t)
	runtime.LockOSThread() // every step on the thread whose context changes
	defer runtime.UnlockOSThread()

	q, k := f.queueAndKernel(t, "add1")
	const n = 1024
	y, err := f.ctx.NewBufferFrom(ur.MemReadWrite, make([]byte, n*4))
	if err != nil {
		t.Fatal(err)
	}
	defer y.Release()
	if err := k.SetArgMem(0, y); err != nil {
		t.Fatal(err)
	}
	launches := 0
	launch := func(when string) {
		t.Helper()
		if err := q.Launch(k, ur.Range1D(n)); err != nil {
			t.Fatalf("launch %s: %v", when, err)
		}
		launches++
	}
	launch("first")
	ours := f.ctx.Native()
	raw.call(t, "cuCtxSetCurrent(ours)", raw.setCurrent, ours)
	launch("with gour's context current")

	// Whether the driver takes a launch while another context, or none, is
	// current differs between versions; either way the launch must run.
	raw.call(t, "cuCtxSetCurrent(NULL)", raw.setCurrent, 0)
	launch("after the thread's context was unset")
	t.Logf("after a launch with no context current, the current context is %s", describe(raw.current(t), ours))

	other := new(uintptr)
	if raw.createV4 {
		raw.call(t, "cuCtxCreate_v4", raw.ctxCreate, uintptr(unsafe.Pointer(other)), 0, 0, 0)
	} else {
		raw.call(t, "cuCtxCreate_v2", raw.ctxCreate, uintptr(unsafe.Pointer(other)), 0, 0)
	}
	defer raw.call(t, "cuCtxDestroy_v2", raw.ctxDestroy, *other)
	raw.call(t, "cuCtxSetCurrent(other)", raw.setCurrent, *other) // cuCtxCreate made it current already
	launch("in another context of the same device")
	t.Logf("after a launch with another context current, the current context is %s", describe(raw.current(t), ours))

	out := make([]float32, n)
	if err := q.ReadBuffer(y, 0, ur.AsBytes(out)); err != nil {
		t.Fatal(err)
	}
	for i, v := range out {
		if v != float32(launches) {
			t.Fatalf("y[%d] = %v after %d launches", i, v, launches)
		}
	}
}
