package cuda

import (
	"testing"

	"github.com/gour-dev/gour/internal/dl"
)

// rawContext holds the entry points a test needs to make contexts behind
// the adapter's back, as another library would.
type rawContext struct {
	create, destroy uintptr
	createV4        bool // cuCtxCreate_v4 takes a params pointer (CUDA 12.5; the only one in CUDA 13)
}

func rawContextCalls(t *testing.T) *rawContext {
	t.Helper()
	lib, err := dl.Open("libcuda.so.1")
	if err != nil {
		t.Skip(err)
	}
	var c rawContext
	if err := lib.Resolve([]dl.Symbol{
		{Name: "cuCtxDestroy_v2", Addr: &c.destroy},
		{Name: "cuCtxCreate_v2", Addr: &c.create, Optional: true},
	}); err != nil {
		t.Fatal(err)
	}
	if c.create == 0 {
		if c.create, err = lib.Lookup("cuCtxCreate_v4"); err != nil {
			t.Fatal(err)
		}
		c.createV4 = true
	}
	return &c
}

func rawCall(fn uintptr, args [12]uintptr) int32 {
	a := dl.Args(args)
	return int32(dl.Call(fn, &a))
}
