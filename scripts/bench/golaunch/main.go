package main

import (
	"fmt"
	"os"
	"slices"
	"strconv"

	_ "github.com/gour-dev/gour/adapters/all"
	"github.com/gour-dev/gour/scripts/bench"
)

// warmup launches before the timed rounds, as in launch.c.
const warmup = 1000

func main() {
	iters, rounds, err := parseArgs(os.Args[1:])
	if err != nil {
		fmt.Fprintf(os.Stderr, "golaunch: %v\nusage: golaunch [ITERS [ROUNDS]]\n", err)
		os.Exit(2)
	}
	if err := run(iters, rounds); err != nil {
		fmt.Fprintf(os.Stderr, "golaunch: %v\n", err)
		os.Exit(1)
	}
}

func parseArgs(args []string) (iters, rounds int, err error) {
	iters, rounds = 20000, 10
	if len(args) > 2 {
		return 0, 0, fmt.Errorf("too many arguments")
	}
	for i, p := range []*int{&iters, &rounds} {
		if i < len(args) {
			if *p, err = strconv.Atoi(args[i]); err != nil || *p <= 0 {
				return 0, 0, fmt.Errorf("%q is not a positive number", args[i])
			}
		}
	}
	return iters, rounds, nil
}

func run(iters, rounds int) error {
	dev, err := bench.FirstPoCLCPU()
	if err != nil {
		return err
	}
	l, err := bench.NewLauncher(dev)
	if err != nil {
		return err
	}
	defer l.Close()
	if _, _, err := l.Round(warmup); err != nil {
		return err
	}
	ns := make([]float64, rounds)
	enq := make([]float64, rounds)
	for r := range ns {
		if ns[r], enq[r], err = l.Round(iters); err != nil {
			return err
		}
	}
	if err := l.Check(); err != nil {
		return err
	}
	fmt.Printf("gour ns/launch %.1f enqueue %.1f (median of %d rounds x %d launches; min %.1f max %.1f)\n",
		bench.Median(ns), bench.Median(enq), rounds, iters, slices.Min(ns), slices.Max(ns))
	return l.Close()
}
