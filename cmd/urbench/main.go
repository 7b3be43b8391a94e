package main

import (
	"fmt"
	"os"
	"slices"

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

// firstContext returns the first device of backend and a context on it,
// which the caller releases.
func firstContext(backend string) (*ur.Device, *ur.Context, error) {
	sys, err := ur.Discover(ur.Config{Selector: backend + ":*"})
	if err != nil {
		return nil, nil, err
	}
	if len(sys.Devices) == 0 {
		return nil, nil, fmt.Errorf("no %s device: %s", backend, sys.WhyNoDevice())
	}
	dev := sys.Devices[0]
	ctx, err := ur.NewContext(dev)
	if err != nil {
		return nil, nil, err
	}
	return dev, ctx, nil
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
