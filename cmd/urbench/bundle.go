package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gour-dev/gour/adapters/cuda/nvrtc"
	"github.com/gour-dev/gour/bundle"
	"github.com/gour-dev/gour/cmd/internal/cli"
	"github.com/gour-dev/gour/programmgr"
)

// The child process of bundle: which images it may pick (envBundleMode:
// "aot" the whole bundle, "ptx" its PTX image alone) from the bundle file
// envBundleFile names.
const (
	envBundleMode = "GOUR_URBENCH_BUNDLE_MODE"
	envBundleFile = "GOUR_URBENCH_BUNDLE_FILE"
)

// bundleCommand is `urbench bundle`.
func bundleCommand() (*cli.Command, func(io.Writer) error) {
	c := cli.New("urbench bundle", "[-device SELECTOR] [-kernels N] [-ops N] [-cuda-arch ARCHS] [-ptx-arch ARCH] [-runs N]", `
Build, with NVRTC in this process, an offload bundle of generated CUDA C
kernels (a cubin per -cuda-arch, PTX for -ptx-arch, and the source), timing
each compile as urpack would run it. Then time a new process's first
GetBundleKernel three ways, each a child process:

  aot        the cubin of the device's architecture, no persistent cache (SYCL_CACHE_PERSISTENT=0)
  ptx cold   the PTX image alone, JIT-compiled: no persistent cache, CUDA_CACHE_DISABLE=1
  ptx cached the PTX image alone, served by gour's persistent cache (warmed by one run first)

and print the medians and the ratios aot vs cold JIT and aot vs the
persistent cache. It needs a CUDA device and NVRTC.`)
	kernels := c.Flags.Int("kernels", 200, "kernels in the generated CUDA C")
	ops := c.Flags.Int("ops", 120, "arithmetic operations per kernel")
	cudaArch := c.Flags.String("cuda-arch", "sm_80,sm_90", "build cubins for these `ARCHS`, comma-separated")
	ptxArch := c.Flags.String("ptx-arch", "compute_80", "build PTX for this `ARCH`")
	runs := c.Flags.Int("runs", 5, "measured processes per setup")
	c.DeviceFlag()
	return c, func(w io.Writer) error {
		if *kernels < 1 || *ops < 1 || *runs < 1 {
			return cli.Usagef(c.Name, "-kernels, -ops and -runs must be at least 1")
		}
		archs := strings.Split(*cudaArch, ",")
		for _, a := range archs {
			if !strings.HasPrefix(a, "sm_") {
				return cli.Usagef(c.Name, "-cuda-arch: %q is not sm_XY", a)
			}
		}
		if !strings.HasPrefix(*ptxArch, "compute_") {
			return cli.Usagef(c.Name, "-ptx-arch: %q is not compute_XY", *ptxArch)
		}
		if mode := os.Getenv(envBundleMode); mode != "" {
			return bundleChild(w, c, mode, *kernels)
		}
		return bundleBench(w, c, *kernels, *ops, archs, *ptxArch, *runs)
	}
}

// buildBundle compiles src with NVRTC into a cubin per arch and PTX for
// ptxArch, adds the source, and reports each compile's time to w.
func buildBundle(w io.Writer, src string, archs []string, ptxArch string) (*bundle.Bundle, time.Duration, error) {
	start := time.Now()
	a, err := bundle.Analyze(bundle.FormatCUDAC, []byte(src))
	if err != nil {
		return nil, 0, err
	}
	kernels := make([]string, len(a.Kernels))
	for i, k := range a.Kernels {
		kernels[i] = k.Name
	}
	var images []bundle.Image
	add := func(format bundle.Format, target bundle.Target, code []byte) error {
		im, err := bundle.NewImage(bundle.Image{Target: target, Format: format, Kernels: kernels, Code: code})
		images = append(images, im)
		return err
	}
	for _, arch := range slices.Concat(archs, []string{ptxArch}) {
		t := time.Now()
		ptx, cubin, _, err := nvrtc.Compile(src, "bench.cu", []string{"-arch=" + arch})
		if err != nil {
			return nil, 0, fmt.Errorf("NVRTC for %s: %w", arch, err)
		}
		format, code := bundle.FormatNative, cubin
		if strings.HasPrefix(arch, "compute_") {
			format, code = bundle.FormatPTX, ptx
		}
		if err := add(format, bundle.Target{Backend: bundle.BackendCUDA, Arch: arch}, code); err != nil {
			return nil, 0, err
		}
		fmt.Fprintf(w, "build %-11s %8.1f ms, %d bytes\n", arch, float64(time.Since(t).Microseconds())/1e3, len(code))
	}
	if err := add(bundle.FormatCUDAC, bundle.Target{Backend: bundle.BackendCUDA}, []byte(src)); err != nil {
		return nil, 0, err
	}
	return &bundle.Bundle{Images: images}, time.Since(start), nil
}

// bundleBench builds the bundle, writes it to a temporary file and times
// the three setups in child processes.
func bundleBench(w io.Writer, c *cli.Command, kernels, ops int, archs []string, ptxArch string, runs int) error {
	// Fail here, not in every child, without a device or NVRTC.
	if _, err := firstDevice(c, "cuda"); err != nil {
		return err
	}
	if err := nvrtc.Available(); err != nil {
		return fmt.Errorf("building the bundle needs NVRTC: %w", err)
	}
	src := generateC(cudaC, kernels, ops)
	b, buildTime, err := buildBundle(w, src, archs, ptxArch)
	if err != nil {
		return err
	}
	data, err := b.Marshal()
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "build: %d kernels x (%s + %s PTX) with NVRTC in %.2f s (urpack's compiles, in process); bundle %d bytes\n\n",
		kernels, strings.Join(archs, ", "), ptxArch, buildTime.Seconds(), len(data))

	tmp, err := os.MkdirTemp("", "urbench-bundle-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	file := filepath.Join(tmp, "bench.urb")
	if err := os.WriteFile(file, data, 0o644); err != nil {
		return err
	}
	args := flagsSet(c)
	common := []string{envBundleFile + "=" + file, "CUDA_CACHE_DISABLE=1"}
	setups := []struct {
		name, mode, wantRank string
		env                  []string
		warm                 bool
	}{
		{"aot", "aot", bundle.RankExact.String(), []string{"SYCL_CACHE_PERSISTENT=0"}, false},
		{"ptx cold", "ptx", bundle.RankIL.String(), []string{"SYCL_CACHE_PERSISTENT=0"}, false},
		{"ptx cached", "ptx", bundle.RankIL.String(), []string{"SYCL_CACHE_PERSISTENT=1", "SYCL_CACHE_DIR=" + filepath.Join(tmp, "gour")}, true},
	}
	medians := make([]float64, len(setups))
	for i, s := range setups {
		env := append(append([]string{envBundleMode + "=" + s.mode}, common...), s.env...)
		if s.warm {
			if _, err := runChild("bundle", args, env); err != nil {
				return fmt.Errorf("%s (warm-up): %w", s.name, err)
			}
		}
		var times []float64
		for range runs {
			line, err := runChild("bundle", args, env)
			if err != nil {
				return fmt.Errorf("%s: %w", s.name, err)
			}
			fmt.Fprintf(w, "%-11s %s\n", s.name, line)
			if !strings.Contains(line, s.wantRank) {
				return fmt.Errorf("%s: the child chose another image than one of rank %q: %s", s.name, s.wantRank, line)
			}
			ns, err := strconv.ParseFloat(strings.Fields(line)[1], 64)
			if err != nil {
				return fmt.Errorf("%s: bad line %q", s.name, line)
			}
			times = append(times, ns)
		}
		medians[i] = median(times)
	}
	aot, cold, cached := medians[0], medians[1], medians[2]
	fmt.Fprintf(w, "\nfirst GetBundleKernel of a new process, median of %d (ms): aot %.3f, ptx cold %.3f, ptx from gour's cache %.3f\n",
		runs, aot/1e6, cold/1e6, cached/1e6)
	fmt.Fprintf(w, "aot vs cold JIT: %.0fx faster (target >= 500x: %s)\n", cold/aot, verdict(cold/aot >= 500))
	fmt.Fprintf(w, "aot vs persistent-cache hit: %.2fx its time (target <= 1.2x: %s)\n", aot/cached, verdict(aot/cached <= 1.2))
	return nil
}

func verdict(ok bool) string {
	if ok {
		return "met"
	}
	return "NOT met"
}

// bundleChild loads the bundle file (its PTX image alone in mode "ptx")
// and times one GetBundleKernel of the last kernel through a program
// manager set up by the environment.
func bundleChild(w io.Writer, c *cli.Command, mode string, kernels int) error {
	data, err := os.ReadFile(os.Getenv(envBundleFile))
	if err != nil {
		return err
	}
	parsed, err := bundle.Parse(data)
	if err != nil {
		return err
	}
	switch mode {
	case "aot":
	case "ptx":
		var ptx []bundle.Image
		for _, im := range parsed.Images {
			if im.Format == bundle.FormatPTX {
				ptx = append(ptx, im)
			}
		}
		parsed = &bundle.Bundle{Images: ptx}
	default:
		return fmt.Errorf("%s=%q: want aot or ptx", envBundleMode, mode)
	}
	b, err := programmgr.FromBundle(parsed)
	if err != nil {
		return err
	}
	dev, ctx, err := firstContext(c, "cuda")
	if err != nil {
		return err
	}
	defer ctx.Release()
	m, err := programmgr.New(ctx, programmgr.Options{})
	if err != nil {
		return err
	}
	defer m.Close()
	name := fmt.Sprintf("kernel_%03d", kernels-1)
	start := time.Now()
	k, err := m.GetBundleKernel(context.Background(), b, name, dev, programmgr.SpecValues{}, "")
	elapsed := time.Since(start)
	if err != nil {
		return err
	}
	k.Release()
	_, sel, err := m.SelectImage(b, name, dev, programmgr.SpecValues{})
	if err != nil {
		return err
	}
	s := m.Stats()
	fmt.Fprintf(w, "ns %d (%s; builds %d, from gour's disk cache %d)\n", elapsed.Nanoseconds(), sel, s.Builds, s.DiskHits)
	return nil
}
