package cuda

import (
	"testing"

	"github.com/gour-dev/gour/adapters/cuda/internal/cu"
	"github.com/gour-dev/gour/ur/driver"
)

// Info reports each parameter's size from cuFuncGetParamInfo, for the
// front end's argument checks, and no kind: CUDA does not say which
// parameters are pointers. Needs no GPU: the attributes a zero cu.Lib
// cannot give stay 0.
func TestKernelInfoArgs(t *testing.T) {
	p := &program{dev: &device{a: &adapter{cu: &cu.Lib{}}}}
	k := &kernel{p: p, name: "k", params: []cu.ParamInfo{{Offset: 0, Size: 8}, {Offset: 8, Size: 4}, {Offset: 16, Size: 16}}}
	info, err := k.Info(nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []driver.ArgInfo{{Size: 8}, {Size: 4}, {Size: 16}}
	if info.NumArgs != 3 || len(info.Args) != 3 {
		t.Fatalf("NumArgs %d, Args %+v; want 3 arguments", info.NumArgs, info.Args)
	}
	for i, a := range info.Args {
		if a != want[i] {
			t.Errorf("Args[%d] = %+v, want %+v", i, a, want[i])
		}
	}

	// A driver before CUDA 12.4 tells nothing: the front end then leaves
	// the checks to the adapter.
	k.params = nil
	if info, err = k.Info(nil); err != nil || info.NumArgs != driver.NumArgsUnknown || info.Args != nil {
		t.Errorf("without parameter info: NumArgs %d, Args %v, %v; want unknown, nil", info.NumArgs, info.Args, err)
	}
}
