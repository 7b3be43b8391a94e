package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gour-dev/gour/cmd/internal/axpy"
	"github.com/gour-dev/gour/cmd/internal/cli"
	"github.com/gour-dev/gour/programmgr"
	"github.com/gour-dev/gour/ur"
)

// The child process of diskcache: its one measurement, in a fresh
// process as an application restarting would be.
const envDiskCacheChild = "GOUR_URBENCH_CHILD"

// diskcacheCommand is `urbench diskcache`.
func diskcacheCommand() (*cli.Command, func(io.Writer) error) {
	c := cli.New("urbench diskcache", "[-backend opencl|cuda] [-device SELECTOR] [-kernels N] [-runs N]", `
Time a new process's first GetKernel through the program manager three ways:
cold (gour's persistent cache and the driver's own cache off), with the
driver's own kernel cache warm, and with gour's persistent cache warm. Each
measurement is a child process; they run on the first device of -backend
that the selector lets through.`)
	backend := c.Flags.String("backend", "opencl", "opencl (OpenCL C) or cuda (a generated PTX module)")
	kernels := c.Flags.Int("kernels", 200, "kernels in the generated PTX module (cuda)")
	runs := c.Flags.Int("runs", 5, "measured processes per setup")
	c.DeviceFlag()
	return c, func(w io.Writer) error {
		if err := checkBackend(c, *backend); err != nil {
			return err
		}
		if *kernels < 1 || *runs < 1 {
			return cli.Usagef(c.Name, "-kernels and -runs must be at least 1")
		}
		return diskcache(w, c, *backend, *kernels, *runs)
	}
}

// diskcache times a new process's first GetKernel in three setups and
// prints the medians and ratios:
//
//   - cold: gour's persistent cache off and the driver's own cache off
//     (POCL_KERNEL_CACHE=0, CUDA_CACHE_DISABLE=1): a full build or JIT;
//   - driver cache: gour's persistent cache off, the driver's own kernel
//     cache on and warm (POCL_KERNEL_CACHE=1 or the CUDA compute cache);
//   - gour: gour's persistent cache on and warm, the driver's cache off.
//
// Each setup is warmed by one process first, then measured in runs more.
// The children get c's flags, so they choose the device it does.
func diskcache(w io.Writer, c *cli.Command, backend string, kernels, runs int) error {
	if os.Getenv(envDiskCacheChild) != "" {
		return diskcacheChild(w, c, backend, kernels)
	}
	// Fail here, not in every child, when there is no device.
	if _, err := firstDevice(c, backend); err != nil {
		return err
	}
	args := flagsSet(c)
	tmp, err := os.MkdirTemp("", "urbench-diskcache-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	driverOff, driverOn := driverCacheOff(backend), []string{"POCL_KERNEL_CACHE=1", "POCL_CACHE_DIR=" + tmp + "/pocl"}
	if backend == "cuda" {
		driverOn = []string{"CUDA_CACHE_DISABLE=0", "CUDA_CACHE_PATH=" + tmp + "/nv", "CUDA_CACHE_MAXSIZE=4294967296"}
	}
	gourOff, gourOn := []string{"SYCL_CACHE_PERSISTENT=0"}, []string{"SYCL_CACHE_PERSISTENT=1", "SYCL_CACHE_DIR=" + tmp + "/gour"}
	setups := []struct {
		name string
		env  []string
		warm bool
	}{
		{"cold", append(gourOff, driverOff...), false},
		{"driver cache", append(gourOff, driverOn...), true},
		{"gour", append(gourOn, driverOff...), true},
	}
	medians := make([]float64, len(setups))
	for i, s := range setups {
		if s.warm {
			if _, err := runChild("diskcache", args, append(slices.Clip(s.env), envDiskCacheChild+"=1")); err != nil {
				return fmt.Errorf("%s (warm-up): %w", s.name, err)
			}
		}
		var times []float64
		for range runs {
			line, err := runChild("diskcache", args, append(slices.Clip(s.env), envDiskCacheChild+"=1"))
			if err != nil {
				return fmt.Errorf("%s: %w", s.name, err)
			}
			fmt.Fprintf(w, "%-12s %s\n", s.name, line)
			ns, err := strconv.ParseFloat(strings.Fields(line)[1], 64)
			if err != nil {
				return fmt.Errorf("%s: bad line %q", s.name, line)
			}
			times = append(times, ns)
		}
		medians[i] = median(times)
	}
	fmt.Fprintf(w, "\nfirst GetKernel of a new process, median of %d (ms): cold %.3f, driver cache %.3f, gour %.3f\n",
		runs, medians[0]/1e6, medians[1]/1e6, medians[2]/1e6)
	fmt.Fprintf(w, "gour vs cold: %.0fx faster; gour vs the driver's cache: %.1fx faster\n", medians[0]/medians[2], medians[1]/medians[2])
	return nil
}

// flagsSet returns the flags given to c, as arguments that give them again.
func flagsSet(c *cli.Command) []string {
	var args []string
	c.Flags.Visit(func(f *flag.Flag) { args = append(args, "-"+f.Name+"="+f.Value.String()) })
	return args
}

// runChild runs this program's benchmark as a child with env added and
// returns its result line, the one that starts with "ns ".
func runChild(benchmark string, args, env []string) (string, error) {
	out, err := childOutput(benchmark, args, env)
	if err != nil {
		return "", err
	}
	sc := bufio.NewScanner(strings.NewReader(string(out)))
	for sc.Scan() {
		if strings.HasPrefix(sc.Text(), "ns ") {
			return sc.Text(), nil
		}
	}
	return "", fmt.Errorf("child printed no result: %q", out)
}

// diskcacheChild times one GetKernel through a program manager set up by
// the environment.
func diskcacheChild(w io.Writer, c *cli.Command, backend string, kernels int) error {
	dev, ctx, err := firstContext(c, backend)
	if err != nil {
		return err
	}
	defer ctx.Release()
	m, err := programmgr.New(ctx, programmgr.Options{})
	if err != nil {
		return err
	}
	defer m.Close()
	img, err := axpy.Image("opencl")
	name := "axpy"
	if backend == "cuda" {
		img, err = programmgr.NewImage(programmgr.ImageDesc{Format: programmgr.FormatPTX, Bytes: []byte(generatePTX(kernels, 120))})
		name = fmt.Sprintf("kernel_%03d", kernels-1)
	}
	if err != nil {
		return err
	}
	elapsed, err := timeGetKernel(m, img, name, dev)
	if err != nil {
		return err
	}
	s := m.Stats()
	fmt.Fprintf(w, "ns %d (builds %d, from gour's disk cache %d)\n", elapsed.Nanoseconds(), s.Builds, s.DiskHits)
	return nil
}

// driverCacheOff is the environment that turns the backend's driver's
// own kernel cache off.
func driverCacheOff(backend string) []string {
	if backend == "cuda" {
		return []string{"CUDA_CACHE_DISABLE=1"}
	}
	return []string{"POCL_KERNEL_CACHE=0"}
}

// timeGetKernel times a manager's GetKernel of name in img on dev, the
// measurement of the cache benchmarks' children.
func timeGetKernel(m *programmgr.Manager, img *programmgr.Image, name string, dev *ur.Device) (time.Duration, error) {
	start := time.Now()
	k, err := m.GetKernel(context.Background(), img, name, dev, programmgr.SpecValues{}, "")
	elapsed := time.Since(start)
	if err != nil {
		return 0, err
	}
	k.Release()
	return elapsed, nil
}
