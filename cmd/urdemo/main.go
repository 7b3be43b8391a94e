package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strings"
	"time"

	_ "github.com/gour-dev/gour/adapters/all"
	"github.com/gour-dev/gour/cache"
	"github.com/gour-dev/gour/internal/axpy"
	"github.com/gour-dev/gour/programmgr"
	"github.com/gour-dev/gour/ur"
)

const (
	n         = 1 << 20
	alpha     = float32(2.5)
	tolerance = 1e-5 // relative
)

func main() {
	if err := run(os.Stdout); err != nil {
		fmt.Fprintf(os.Stderr, "urdemo: %v\n", err)
		os.Exit(1)
	}
}

// run lists the devices, runs axpy on the default device and checks it.
func run(w io.Writer) error {
	dev, err := listDevices(w)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "\nusing %s\n", dev)
	res, err := runAxpy(dev)
	if err != nil {
		return err
	}
	if res.fromDisk {
		fmt.Fprintf(w, "build:  %v (served from gour's persistent cache in %s: no compile)\n", res.build.Round(time.Microsecond), res.diskDir)
	} else {
		fmt.Fprintf(w, "build:  %v (%s)%s\n",
			res.build.Round(time.Microsecond), buildNote(dev), storedNote(res.diskDir))
	}
	fmt.Fprintf(w, "cached: %v (the same kernel asked for again: the program manager's in-memory cache)\n", res.cached)
	fmt.Fprintf(w, "launch: %v first, %v second (enqueue + finish, n = %d)\n",
		res.firstLaunch.Round(time.Microsecond), res.launch.Round(time.Microsecond), n)
	fmt.Fprintf(w, "max relative error: %.3g (tolerance %g)\n", res.maxErr, tolerance)
	if res.bad > 0 {
		return fmt.Errorf("axpy FAILED: launch %d: %d of %d elements differ from the CPU result; first at y[%d] = %g, want %g",
			res.badLaunch, res.bad, n, res.firstBad, res.got, res.want)
	}
	fmt.Fprintln(w, "axpy OK")
	return nil
}

// listDevices prints the devices the way urinfo does and returns the
// default one.
func listDevices(w io.Writer) (*ur.Device, error) {
	sys, err := ur.Discover(ur.Config{})
	if err != nil {
		return nil, err
	}
	for _, d := range sys.Devices {
		fmt.Fprintln(w, d)
	}
	for _, s := range sys.Statuses {
		if s.Err != nil {
			reason := strings.TrimPrefix(s.Err.Error(), ur.ErrAdapterNotAvailable.Error()+": ")
			fmt.Fprintf(w, "%s: not available: %s\n", s.Name, strings.TrimPrefix(reason, s.Name+": "))
		}
	}
	if len(sys.Devices) == 0 {
		why := "no adapter found a device (the lines above say why; `make deps` installs PoCL)"
		if sel := os.Getenv(ur.EnvDeviceSelector); sel != "" && len(sys.Adapters) > 0 {
			why = fmt.Sprintf("%s=%q selects none of the devices found", ur.EnvDeviceSelector, sel)
		}
		return nil, fmt.Errorf("no device to run on: %s", why)
	}
	dev, err := ur.DefaultDevice()
	if err != nil {
		return nil, fmt.Errorf("no device to run on: %w", err)
	}
	return dev, nil
}

// storedNote says where the build went, so that a second run is served
// from disk.
func storedNote(dir string) string {
	if dir == "" {
		return " (gour's persistent cache is off)"
	}
	return "\n        stored in gour's persistent cache (" + dir + "): run again to load it from there"
}

// buildNote says whether the build time is a cold one.
func buildNote(dev *ur.Device) string {
	if !strings.Contains(dev.Platform().Info().Name, "Portable Computing Language") {
		return "first build in this process"
	}
	if os.Getenv("POCL_KERNEL_CACHE") == "0" {
		return "cold: POCL_KERNEL_CACHE=0"
	}
	return "PoCL's kernel cache is on, so it may be warm; set POCL_KERNEL_CACHE=0 for a cold build"
}

type axpyResult struct {
	build         time.Duration // the first GetKernel: a build, or a load from disk
	fromDisk      bool          // the first GetKernel was served by the persistent cache
	diskDir       string        // where the persistent cache is, or "" when off
	cached        time.Duration // the second: a fast kernel cache hit
	firstLaunch   time.Duration // the first launch, enqueue to finish
	launch        time.Duration // the second one
	badLaunch     int           // 1 or 2 when that launch gave a wrong result
	maxErr        float64
	bad, firstBad int
	got, want     float32
}

// runAxpy computes y = alpha*x + y on dev, twice, and compares each result
// with the CPU's.
func runAxpy(dev *ur.Device) (res axpyResult, err error) {
	// release runs a Release at the end and keeps its error if nothing
	// failed before.
	release := func(r interface{ Release() error }) {
		if rerr := r.Release(); rerr != nil && err == nil {
			err = rerr
		}
	}

	ctx, err := ur.NewContext(dev)
	if err != nil {
		return res, err
	}
	defer release(ctx)
	q, err := ctx.NewQueue(dev, ur.QueueProperties{})
	if err != nil {
		return res, err
	}
	defer release(q)

	// The program manager builds the kernel once; asking again is a hit in
	// its in-memory cache.
	disk, err := cache.Open(cache.Config{}) // SYCL_CACHE_DIR, SYCL_CACHE_PERSISTENT, ...
	if err != nil {
		return res, err
	}
	if disk.Enabled() {
		res.diskDir = disk.Dir()
	}
	m, err := programmgr.New(ctx, programmgr.Options{DiskCache: disk})
	if err != nil {
		return res, err
	}
	defer func() {
		if cerr := m.Close(); cerr != nil && err == nil {
			err = cerr
		}
	}()
	img, err := axpy.Image(dev.Backend())
	if err != nil {
		return res, err
	}
	bg := context.Background()
	start := time.Now()
	cold, err := m.GetKernel(bg, img, "axpy", dev, programmgr.SpecValues{}, "")
	if err != nil {
		return res, fmt.Errorf("building axpy: %w", err)
	}
	res.build = time.Since(start)
	res.fromDisk = m.Stats().DiskHits > 0
	defer release(cold)
	start = time.Now()
	ck, err := m.GetKernel(bg, img, "axpy", dev, programmgr.SpecValues{}, "")
	res.cached = time.Since(start)
	if err != nil {
		return res, err
	}
	defer release(ck)
	ck.Lock() // the cached kernel's arguments are shared state
	defer ck.Unlock()
	k := ck.UR()

	xs, ys := inputs()
	x, err := ctx.NewBufferFrom(ur.MemReadOnly, ur.AsBytes(xs))
	if err != nil {
		return res, err
	}
	defer release(x)
	y, err := ctx.NewBufferFrom(ur.MemReadWrite, ur.AsBytes(ys))
	if err != nil {
		return res, err
	}
	defer release(y)

	err = errors.Join(
		k.SetArgFloat32(0, alpha),
		k.SetArgMem(1, x),
		k.SetArgMem(2, y),
		k.SetArgUint32(3, n),
	)
	if err != nil {
		return res, err
	}
	// The first launch may include work the driver defers until then (PoCL
	// compiles the work-group function at the first launch); the second
	// shows the steady state. Each result is checked against the CPU.
	got := make([]float32, n)
	for i, d := range []*time.Duration{&res.firstLaunch, &res.launch} {
		start := time.Now()
		if err := q.Launch(k, ur.Range1D(n)); err != nil {
			return res, err
		}
		if err := q.Finish(); err != nil {
			return res, err
		}
		*d = time.Since(start)
		if err := q.ReadBuffer(y, 0, ur.AsBytes(got)); err != nil {
			return res, err
		}
		check(&res, xs, ys, got)
		if res.bad > 0 {
			res.badLaunch = i + 1
			break
		}
		copy(ys, got) // the next launch adds alpha*x to this result
	}
	return res, nil
}

// inputs returns x and y with values in [1, 2] and [1, 3], so that no
// result is near zero and a relative error means something.
func inputs() (xs, ys []float32) {
	xs = make([]float32, n)
	ys = make([]float32, n)
	for i := range xs {
		xs[i] = 1 + float32(i%1024)/1024
		ys[i] = 3 - 2*float32(i%777)/777
	}
	return xs, ys
}

// check compares got with alpha*x + y computed here.
func check(res *axpyResult, xs, ys, got []float32) {
	for i := range got {
		want := alpha*xs[i] + ys[i]
		rel := math.Abs(float64(got[i])-float64(want)) / math.Max(math.Abs(float64(want)), math.SmallestNonzeroFloat32)
		if rel > res.maxErr || math.IsNaN(rel) {
			res.maxErr = rel
		}
		if !(rel <= tolerance) { // NaN fails too
			if res.bad == 0 {
				res.firstBad, res.got, res.want = i, got[i], want
			}
			res.bad++
		}
	}
}
