package main

import (
	"bytes"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/gour-dev/gour/gokernel"
	"github.com/gour-dev/gour/internal/harness/testenv"
	"github.com/gour-dev/gour/ur"
)

// TestCheck runs the tool's checks at the tiny sizes on each selected
// device that runs kernels of its own: every Go kernel on the device, its
// C twin on the device and the Go kernel on the CPU (gokernel.RunCPU)
// agree with the CPU reference.
func TestCheck(t *testing.T) {
	ran := 0
	for _, dev := range testenv.Devices(t) {
		if dev.Backend() == "level_zero" {
			continue // the test driver runs only its own kernels
		}
		ran++
		t.Run(dev.Name(), func(t *testing.T) {
			var out bytes.Buffer
			if err := run(&out, dev, options{size: "tiny", checkOnly: true, cpu: true}); err != nil {
				t.Fatal(err)
			}
			t.Log("\n" + out.String())
			for _, c := range cases {
				if !strings.Contains(out.String(), "\n"+c.name+" ") {
					t.Errorf("no line for %s in\n%s", c.name, out.String())
				}
			}
			if got := strings.Count(out.String(), "agree with the CPU reference"); got != len(cases) {
				t.Errorf("%d kernels agree, want %d", got, len(cases))
			}
		})
	}
	if ran == 0 {
		t.Skip("no device that runs its own kernels")
	}
}

// TestTable runs the timed path briefly on the first selected device that
// runs kernels of its own and checks the RESULT lines run.sh reads.
func TestTable(t *testing.T) {
	dev := ownKernelsDevice(t)
	var out bytes.Buffer
	o := options{size: "tiny", only: []string{"axpy", "softmax"}, rounds: 1, roundTime: time.Millisecond, launchIters: 10, launchRounds: 1}
	if err := run(&out, dev, o); err != nil {
		t.Fatal(err)
	}
	t.Log("\n" + out.String())
	for _, want := range []string{"RESULT name=axpy size=3000 go_us=", "RESULT name=softmax size=5x1000 go_us=", "RESULT name=launch_axpy_1024 go_us="} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("no %q in the output", want)
		}
	}
}

// TestFirstUse runs -first's measurement in this process.
func TestFirstUse(t *testing.T) {
	ownKernelsDevice(t)
	if def, err := ur.DefaultDevice(); err != nil || def.Backend() == "level_zero" {
		t.Skip("the default device runs no kernels of its own")
	}
	sizes := map[bool]int{}
	for _, whole := range []bool{false, true} {
		var out bytes.Buffer
		if err := firstUse(&out, whole); err != nil {
			t.Fatal(err)
		}
		t.Log("\n" + out.String())
		line := out.String()[strings.Index(out.String(), "RESULT"):]
		if !strings.HasPrefix(line, "RESULT name=first_use total_ms=") || !strings.Contains(line, pick(whole, "build=module ", "build=kernel ")) {
			t.Fatalf("no RESULT line of the %s's build in\n%s", pick(whole, "module", "kernel"), out.String())
		}
		_, after, _ := strings.Cut(line, "source_bytes=")
		n := 0
		fmt.Sscanf(after, "%d", &n)
		sizes[whole] = n
	}
	// The kernel alone is a fraction of the module.
	if sizes[false] <= 0 || sizes[false] >= sizes[true] {
		t.Errorf("Axpy's own source is %d bytes, the module's %d", sizes[false], sizes[true])
	}
}

func pick[T any](c bool, a, b T) T {
	if c {
		return a
	}
	return b
}

// ownKernelsDevice is the first selected device that runs kernels of its
// own, or skips the test.
func ownKernelsDevice(t *testing.T) *ur.Device {
	for _, dev := range testenv.Devices(t) {
		if dev.Backend() != "level_zero" {
			return dev
		}
	}
	t.Skip("no device that runs its own kernels")
	return nil
}

// TestGenerated checks that zz_kernels.go was generated from kernels.go
// as it is (go generate was run after the last edit).
func TestGenerated(t *testing.T) {
	src, err := os.ReadFile("kernels.go")
	if err != nil {
		t.Fatal(err)
	}
	m, err := gokernel.Compile([]gokernel.File{{Name: "kernels.go", Src: src}})
	if err != nil {
		t.Fatal(err)
	}
	if m.Hash != kernels.Hash {
		t.Error("zz_kernels.go is stale: run go generate in scripts/bench/gokernels")
	}
}

// TestCSource checks that the C twins define the kernels cNames lists.
func TestCSource(t *testing.T) {
	for _, backend := range []string{"cuda", "opencl"} {
		src := cSource(backend)
		for _, name := range cNames {
			if !strings.Contains(src, "KERNEL "+name+"(") {
				t.Errorf("%s source has no kernel %s", backend, name)
			}
		}
		if _, err := cImage(backend); err != nil {
			t.Error(err)
		}
	}
}
