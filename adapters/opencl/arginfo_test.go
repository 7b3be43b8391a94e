package opencl_test

import (
	"testing"

	"github.com/gour-dev/gour/adapters/opencl"
	"github.com/gour-dev/gour/internal/harness/testenv"
	"github.com/gour-dev/gour/ur"
)

// argKinds has an argument of each kind OpenCL reports.
const argKinds = `typedef struct { float x, y; } pair;
__kernel void kinds(__global float *out, __constant int *table, __local uint *scratch,
                    uint n, float4 v, ulong len, pair p, uchar3 c) {
	scratch[0] = n;
	out[0] = table[0] + v.x + len + p.x + c.x + scratch[0];
}`

// Kernel info describes every argument of a program built from source:
// the adapter builds it with -cl-kernel-arg-info.
func TestKernelInfoDescribesArguments(t *testing.T) {
	testenv.MustHaveAdapter(t, opencl.Name)
	sys, err := ur.Discover(ur.Config{Selector: "opencl:*"})
	if err != nil {
		t.Fatal(err)
	}
	if len(sys.Devices) == 0 {
		t.Skip("no OpenCL device selected")
	}
	dev := sys.Devices[0]
	ctx, err := ur.NewContext(dev)
	if err != nil {
		t.Fatal(err)
	}
	defer ctx.Release()
	prog, err := ctx.NewProgramFromSource(argKinds)
	if err != nil {
		t.Fatal(err)
	}
	defer prog.Release()
	if err := prog.Build(""); err != nil {
		t.Fatal(err)
	}
	k, err := prog.NewKernel("kinds")
	if err != nil {
		t.Fatal(err)
	}
	defer k.Release()
	ptr := uint64(dev.Info().AddressBits / 8)
	want := []ur.ArgInfo{
		{Kind: ur.ArgMem, Size: ptr, Name: "out", TypeName: "float*"},
		{Kind: ur.ArgMem, Size: ptr, Name: "table", TypeName: "int*"},
		{Kind: ur.ArgLocal, Size: ptr, Name: "scratch", TypeName: "uint*"},
		{Kind: ur.ArgValue, Size: 4, Name: "n", TypeName: "uint"},
		{Kind: ur.ArgValue, Size: 16, Name: "v", TypeName: "float4"},
		{Kind: ur.ArgValue, Size: 8, Name: "len", TypeName: "ulong"},
		{Kind: ur.ArgValue, Size: 0, Name: "p", TypeName: "pair"}, // a struct: its type name does not tell its size
		{Kind: ur.ArgValue, Size: 4, Name: "c", TypeName: "uchar3"},
	}
	got := k.Args()
	if len(got) != len(want) {
		t.Fatalf("Args() = %+v, want %d arguments", got, len(want))
	}
	got[6].TypeName = "pair" // drivers spell a typedef'd struct's type their own way
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("Args()[%d] = %+v, want %+v", i, got[i], want[i])
		}
	}
	// The struct's size is the driver's to check; its kind is the front end's.
	if err := k.SetArgBytes(6, make([]byte, 8)); err != nil {
		t.Errorf("8 bytes for the pair: %v", err)
	}
}
