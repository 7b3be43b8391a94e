package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"time"

	_ "github.com/gour-dev/gour/adapters/all"
	"github.com/gour-dev/gour/ur"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: urbench launch|jit|diskcache [flags]")
		os.Exit(2)
	}
	var err error
	switch os.Args[1] {
	case "launch":
		err = launch(os.Stdout, os.Args[2:])
	case "jit":
		err = jit(os.Stdout, os.Args[2:])
	case "diskcache":
		err = diskcache(os.Stdout, os.Args[2:])
	default:
		err = fmt.Errorf("unknown benchmark %q: want launch, jit or diskcache", os.Args[1])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "urbench:", err)
		os.Exit(1)
	}
}

// firstDevice returns the first device of backend.
func firstDevice(backend string) (*ur.Device, error) {
	sys, err := ur.Discover(ur.Config{Selector: backend + ":*"})
	if err != nil {
		return nil, err
	}
	if len(sys.Devices) == 0 {
		return nil, fmt.Errorf("no %s device: %s", backend, sys.WhyNoDevice())
	}
	return sys.Devices[0], nil
}

func launch(w io.Writer, args []string) error {
	fs := flag.NewFlagSet("launch", flag.ContinueOnError)
	backend := fs.String("backend", "cuda", "adapter to launch on")
	ptxFile := fs.String("ptx", "scripts/bench/empty.ptx", "PTX holding the kernel empty(u64) (cuda)")
	iters := fs.Int("iters", 20000, "launches per round")
	rounds := fs.Int("rounds", 10, "rounds")
	if err := fs.Parse(args); err != nil {
		return err
	}
	dev, err := firstDevice(*backend)
	if err != nil {
		return err
	}
	ctx, err := ur.NewContext(dev)
	if err != nil {
		return err
	}
	defer ctx.Release()
	q, err := ctx.NewQueue(dev, ur.QueueProperties{})
	if err != nil {
		return err
	}
	defer q.Release()
	var prog *ur.Program
	if *backend == "cuda" {
		ptx, err := os.ReadFile(*ptxFile)
		if err != nil {
			return err
		}
		prog, err = ctx.NewProgramFromIL(ptx)
		if err != nil {
			return err
		}
	} else {
		prog, err = ctx.NewProgramFromSource("__kernel void empty(ulong p) {}")
		if err != nil {
			return err
		}
	}
	defer prog.Release()
	if err := prog.Build(""); err != nil {
		return err
	}
	k, err := prog.NewKernel("empty")
	if err != nil {
		return err
	}
	defer k.Release()
	if err := k.SetArgUint64(0, 0); err != nil {
		return err
	}
	r := ur.Range1D(32)
	run := func(n int) (total, enqueue time.Duration, err error) {
		start := time.Now()
		for range n {
			if err := q.Launch(k, r); err != nil {
				return 0, 0, err
			}
		}
		enqueued := time.Since(start)
		if err := q.Finish(); err != nil {
			return 0, 0, err
		}
		return time.Since(start), enqueued, nil
	}
	if _, _, err := run(1000); err != nil { // warm up
		return err
	}
	var totals, enqueues []float64
	for range *rounds {
		t, e, err := run(*iters)
		if err != nil {
			return err
		}
		totals = append(totals, float64(t.Nanoseconds())/float64(*iters))
		enqueues = append(enqueues, float64(e.Nanoseconds())/float64(*iters))
	}
	fmt.Fprintf(w, "gour ns/launch %.1f enqueue %.1f (median of %d rounds x %d launches; min %.1f max %.1f)\n",
		median(totals), median(enqueues), *rounds, *iters, slices.Min(totals), slices.Max(totals))
	return nil
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
