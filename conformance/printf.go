package conformance

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/gour-dev/gour/internal/harness/devreq"
	"github.com/gour-dev/gour/ur"
)

// The cases of this file check kernels' printf: the output reaches the
// process's standard output, in order, once the queue has finished, and
// the printf buffer's size is readable (settable on CUDA). The output is
// the driver's, written to file descriptor 1: the case runs the kernel in
// a child process (this binary again) and reads the child's output.

// printfSources prints lines 0..n-1 from one work-item, then a marker.
var printfSources = map[string]string{
	"opencl": `__kernel void say(int n) {
	for (int i = 0; i < n; i++) printf("gour-printf line %d\n", i);
	printf("gour-printf done\n");
}`,
	"cuda": `extern "C" __global__ void say(int n) {
	for (int i = 0; i < n; i++) printf("gour-printf line %d\n", i);
	printf("gour-printf done\n");
}`,
}

// envPrintfChild marks the child of TestKernelPrintf; its value is the
// selector of the device the child prints on.
const envPrintfChild = "GOUR_CTS_PRINTF_CHILD"

const printfLines = 50

// TestKernelPrintf runs a kernel that prints, in a child process, and
// checks its lines are all there, in order, before the child's own line
// printed after Queue.Finish.
func TestKernelPrintf(t *testing.T) {
	forEachDevice(t, func(t *testing.T, f *Fixture) {
		src, ok := printfSources[f.Backend]
		if !ok {
			t.Skipf("no printf kernel for %s in the suite", f.Backend)
		}
		sel := fmt.Sprintf("%s:%d", f.Backend, f.Device.Index())
		if os.Getenv(envPrintfChild) == sel {
			printfChild(t, f, src)
			return
		}
		if os.Getenv(envPrintfChild) != "" {
			t.Skip("the printf child of another device")
		}
		ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, os.Args[0], "-test.run="+runPattern(t.Name()), "-test.v", "-test.count=1")
		cmd.Env = append(os.Environ(), envPrintfChild+"="+sel, ur.EnvDeviceSelector+"="+sel, devreq.EnvRequireAdapters+"="+f.Backend)
		cmd.WaitDelay = 5 * time.Second
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("child: %v\n%s", err, tail(out, 4000))
		}
		text := string(out)
		if strings.Contains(text, "--- SKIP: "+t.Name()) {
			t.Skipf("the child skipped:\n%s", tail(out, 2000))
		}
		re := regexp.MustCompile(`gour-printf line (\d+)`)
		got := re.FindAllStringSubmatch(text, -1)
		if len(got) != printfLines {
			t.Fatalf("%d printf lines, want %d:\n%s", len(got), printfLines, tail(out, 4000))
		}
		for i, m := range got {
			if m[1] != fmt.Sprint(i) {
				t.Fatalf("line %d is %q: out of order", i, m[0])
			}
		}
		done, after := strings.Index(text, "gour-printf done"), strings.Index(text, "gour-host after finish")
		if done < 0 || after < 0 || done > after {
			t.Errorf("the kernel's output is not all there before Finish returns (done at %d, host line at %d)", done, after)
		}
	})
}

// printfChild is the child's part: build, launch, finish, print a line of
// its own through the same file descriptor.
func printfChild(t *testing.T, f *Fixture, src string) {
	ctx := f.Context(t)
	p, err := ctx.NewProgramFromSource(src)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Release()
	if err := p.Build("", f.Device); err != nil {
		t.Fatal(err)
	}
	k, err := p.NewKernel("say")
	if err != nil {
		t.Fatal(err)
	}
	defer k.Release()
	if err := k.SetArgInt32(0, printfLines); err != nil {
		t.Fatal(err)
	}
	q := f.Queue(t)
	if err := q.Launch(k, ur.Range1D(1)); err != nil {
		t.Fatal(err)
	}
	if err := q.FinishPrintf(); err != nil {
		t.Fatal(err)
	}
	fmt.Fprintln(os.Stdout, "gour-host after finish")
}

// TestPrintfBufferSize: the size is readable on every adapter; setting it
// works on CUDA and is a typed unsupported error elsewhere; zero is
// ErrInvalidValue.
func TestPrintfBufferSize(t *testing.T) {
	forEachDevice(t, func(t *testing.T, f *Fixture) {
		ctx := f.NewContext(t)
		n, err := ctx.PrintfBufferSize()
		if errors.Is(err, ur.ErrUnsupportedFeature) {
			t.Logf("PrintfBufferSize: %v", err)
		} else if err != nil || n == 0 {
			t.Errorf("PrintfBufferSize = %d, %v", n, err)
		}
		if err := ctx.SetPrintfBufferSize(0); !errors.Is(err, ur.ErrInvalidValue) {
			t.Errorf("SetPrintfBufferSize(0): %v, want ErrInvalidValue", err)
		}
		err = ctx.SetPrintfBufferSize(4 << 20)
		switch {
		case errors.Is(err, ur.ErrUnsupportedFeature):
			if f.Backend == "cuda" {
				t.Errorf("CUDA: %v", err)
			}
		case f.Backend == "cuda" && errors.Is(err, ur.ErrInvalidValue):
			// CUDA takes the size only before a kernel that prints has
			// run in the process.
			t.Skipf("a kernel that prints ran before in this process: %v", err)
		case err != nil:
			t.Errorf("SetPrintfBufferSize(4 MiB): %v", err)
		default:
			if n, err := ctx.PrintfBufferSize(); err != nil || n < 4<<20 {
				t.Errorf("after setting 4 MiB: %d, %v", n, err)
			}
		}
	})
}
