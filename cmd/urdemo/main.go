package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/gour-dev/gour/cache"
	"github.com/gour-dev/gour/cmd/internal/axpy"
	"github.com/gour-dev/gour/cmd/internal/cli"
	_ "github.com/gour-dev/gour/drivers" // every adapter, and the remote tier's Redis store
	"github.com/gour-dev/gour/programmgr"
	"github.com/gour-dev/gour/ur"
)

const (
	defaultN  = 1 << 20
	maxN      = 1 << 28 // x, y and the result on the host: 3 GiB
	alpha     = float32(2.5)
	tolerance = 1e-5 // relative
)

func main() {
	code := run(os.Args[1:], os.Stdout, os.Stderr)
	// Layers switched on by environment (UR_ENABLE_LAYERS, GOUR_TRACE):
	// the trace ends whole, and leaks fail the run.
	if err := ur.CloseLayers(); err != nil && code == 0 {
		code = 1
	}
	os.Exit(code)
}

// run is urdemo without the process: it returns the exit status.
func run(args []string, stdout, stderr io.Writer) int {
	return cli.Exit(stderr, "urdemo", demo(args, stdout))
}

// demo parses args, lists the devices, runs axpy on the default device
// among the selected ones and checks it.
func demo(args []string, w io.Writer) error {
	c := cli.New("urdemo", "[-device SELECTOR] [-n N]", `
List the devices gour finds, then run y = a*x + y on the default one (a GPU
before an accelerator before a CPU) through the program manager, twice, and
check every element against the CPU. Run it again to see the kernel served
from gour's persistent cache.
Exit status: 0 when axpy is right, 1 on a failure or no device, 2 on misuse.`)
	n := c.Flags.Int("n", defaultN, "`N` elements in x and y, at most "+strconv.Itoa(maxN))
	c.DeviceFlag()
	if err := c.Parse(args, w); err != nil {
		return err
	}
	if *n < 1 || *n > maxN {
		return cli.Usagef(c.Name, "-n %d: want 1 to %d elements", *n, maxN)
	}
	dev, err := listDevices(w, c)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "\nusing %s\n", dev)
	res, err := runAxpy(dev, *n)
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
		res.firstLaunch.Round(time.Microsecond), res.launch.Round(time.Microsecond), *n)
	fmt.Fprintf(w, "max relative error: %.3g (tolerance %g)\n", res.maxErr, tolerance)
	if res.bad > 0 {
		return fmt.Errorf("axpy FAILED: launch %d: %d of %d elements differ from the CPU result; first at y[%d] = %g, want %g",
			res.badLaunch, res.bad, *n, res.firstBad, res.got, res.want)
	}
	fmt.Fprintln(w, "axpy OK")
	return nil
}

// listDevices prints the devices the way urinfo does, and the adapters
// that did not load, and returns the default device among those c's
// selector lets through.
func listDevices(w io.Writer, c *cli.Command) (*ur.Device, error) {
	sys, sel, err := c.Discover()
	if err != nil {
		return nil, err
	}
	for _, d := range sys.Devices {
		fmt.Fprintln(w, d)
	}
	cli.WriteAdapterFailures(w, sys)
	if len(sys.Devices) == 0 {
		nd := cli.NoDevice(sys, sel, "")
		if len(nd.Found) == 0 {
			return nil, fmt.Errorf("%w; the lines above say why (`make deps` installs PoCL)", nd)
		}
		return nil, nd
	}
	return sys.DefaultDevice()
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
func runAxpy(dev *ur.Device, n int) (res axpyResult, err error) {
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

	xs, ys := inputs(n)
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
		k.SetArgUint32(3, uint32(n)),
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
		if err := q.Launch(k, ur.Range1D(uint64(n))); err != nil {
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
func inputs(n int) (xs, ys []float32) {
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
