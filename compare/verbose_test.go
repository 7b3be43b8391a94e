package compare

import (
	"strings"
	"testing"

	"github.com/gour-dev/gour/compare/record"
)

// Output of go test -v as the conformance child prints it.
const verboseOutput = `=== RUN   TestA
=== RUN   TestA/TestA/opencl/cpu:0/pocl
--- PASS: TestA (0.01s)
    --- PASS: TestA/TestA (0.01s)
        --- PASS: TestA/TestA/opencl/cpu:0/pocl (0.01s)
=== RUN   TestB
=== RUN   TestB/TestB/opencl/cpu:0/pocl
=== RUN   TestB/TestB/opencl/cpu:0/pocl/fp16
    kernel_test.go:12: device has no fp16
=== RUN   TestB/TestB/opencl/cpu:0/pocl/fp32
=== NAME  TestB/TestB/opencl/cpu:0/pocl/fp16
    kernel_test.go:13: a second line
--- PASS: TestB (0.02s)
    --- PASS: TestB/TestB (0.02s)
        --- PASS: TestB/TestB/opencl/cpu:0/pocl (0.02s)
            --- SKIP: TestB/TestB/opencl/cpu:0/pocl/fp16 (0.00s)
            --- PASS: TestB/TestB/opencl/cpu:0/pocl/fp32 (0.01s)
=== RUN   TestC
=== RUN   TestC/TestC/opencl/cpu:0/pocl
    memory_test.go:40: got 3, want 4
--- FAIL: TestC (1.50s)
    --- FAIL: TestC/TestC (1.50s)
        --- FAIL: TestC/TestC/opencl/cpu:0/pocl (1.50s)
=== RUN   TestD
=== RUN   TestD/TestD/opencl/cpu:0/pocl
    suite.go:80: no device code for this backend
--- PASS: TestD (0.00s)
    --- PASS: TestD/TestD (0.00s)
        --- SKIP: TestD/TestD/opencl/cpu:0/pocl (0.00s)
=== RUN   TestE
    suite.go:90: skipped at the top
--- SKIP: TestE (0.00s)
=== RUN   TestF
FAIL
`

func TestVerboseParser(t *testing.T) {
	p := newVerboseParser()
	var got []record.Case
	for l := range strings.SplitSeq(verboseOutput, "\n") {
		if c, ok := p.line(l); ok {
			got = append(got, c)
		}
	}
	if c, ok := p.flush(); ok {
		t.Errorf("flush after the output gave %+v, want nothing: every case ended before a line that was not its own", c)
	}
	want := []record.Case{
		{Name: "TestA", Status: record.Pass, Duration: 0.01},
		{Name: "TestB", Status: record.Pass, Duration: 0.02, Reason: "1 of 2 sub-tests skipped: kernel_test.go:12: device has no fp16 | kernel_test.go:13: a second line"},
		{Name: "TestC", Status: record.Fail, Duration: 1.5, Reason: "memory_test.go:40: got 3, want 4"},
		{Name: "TestD", Status: record.Skip, Duration: 0, Reason: "suite.go:80: no device code for this backend"},
		{Name: "TestE", Status: record.Skip, Duration: 0, Reason: "suite.go:90: skipped at the top"},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d cases %+v, want %d", len(got), got, len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("case %d:\n got %+v\nwant %+v", i, got[i], want[i])
		}
	}
	if p.current != "TestF" {
		t.Errorf("running case %q, want TestF, which started and never ended", p.current)
	}
}
