package main

import (
	"bytes"
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/gour-dev/gour/cache"
	"github.com/gour-dev/gour/cmd/internal/cli"
	"github.com/gour-dev/gour/ur"
)

// copyCommand is `urbench copy`.
func copyCommand() (*cli.Command, func(io.Writer) error) {
	c := cli.New("urbench copy", "[-device SELECTOR] [-backend cuda|opencl] [-bytes N] [-rounds N]", `
Time the transfers through gour on the first device of the backend that the
selector lets through: host to device (Queue.WriteBuffer from a pageable
Go slice), device to host (Queue.ReadBuffer) and device to device
(EnqueueCopy, then Finish), each the median of the rounds in GB/s, the
device-to-device copy counting the bytes read and written, as urcompare
does. Every transfer's data is checked.`)
	backend := c.Flags.String("backend", "cuda", "the device's backend: cuda or opencl")
	size := c.Flags.String("bytes", "256M", "bytes per transfer (K, M, G: powers of 1024)")
	rounds := c.Flags.Int("rounds", 20, "transfers of each kind")
	c.DeviceFlag()
	return c, func(w io.Writer) error {
		if *backend != "cuda" && *backend != "opencl" {
			return cli.Usagef(c.Name, "-backend %q: want cuda or opencl", *backend)
		}
		n, err := cache.ParseSize(*size)
		if err != nil || n < 1 {
			return cli.Usagef(c.Name, "-bytes %q: want a size such as 256M", *size)
		}
		if *rounds < 1 {
			return cli.Usagef(c.Name, "-rounds must be at least 1")
		}
		return copyBench(w, c, *backend, uint64(n), *rounds)
	}
}

// copiesPerRound is how many device-to-device copies a round enqueues
// before its Finish: urcompare's compare.CopiesPerRound, which says why,
// so that the two measure alike (TestCopiesPerRound checks it; importing
// compare here would bring the conformance suite into urbench).
const copiesPerRound = 8

// copyBench times the three kinds of transfer and checks their data.
func copyBench(w io.Writer, c *cli.Command, backend string, n uint64, rounds int) error {
	dev, ctx, err := firstContext(c, backend)
	if err != nil {
		return err
	}
	defer ctx.Release()
	q, err := ctx.NewQueue(dev, ur.QueueProperties{})
	if err != nil {
		return err
	}
	defer q.Release()
	a, err := ctx.NewBuffer(ur.MemReadWrite, n)
	if err != nil {
		return err
	}
	defer a.Release()
	b, err := ctx.NewBuffer(ur.MemReadWrite, n)
	if err != nil {
		return err
	}
	defer b.Release()
	src, dst := make([]byte, n), make([]byte, n)
	for i := range src {
		src[i] = byte(i*7 + i>>11)
	}
	gbps := func(bytes uint64, d time.Duration) float64 { return float64(bytes) / d.Seconds() / 1e9 }
	var h2d, d2h, d2d []float64
	for range rounds {
		start := time.Now()
		if err := q.WriteBuffer(a, 0, src); err != nil {
			return err
		}
		h2d = append(h2d, gbps(n, time.Since(start)))
		if err := q.Finish(); err != nil {
			return err
		}
		start = time.Now()
		for range copiesPerRound {
			ev, err := q.EnqueueCopy(a, b, 0, 0, n)
			if err != nil {
				return err
			}
			ev.Release()
		}
		if err := q.Finish(); err != nil {
			return err
		}
		d2d = append(d2d, gbps(2*n*copiesPerRound, time.Since(start)))
		clear(dst)
		start = time.Now()
		if err := q.ReadBuffer(b, 0, dst); err != nil {
			return err
		}
		d2h = append(d2h, gbps(n, time.Since(start)))
		if !bytes.Equal(src, dst) {
			return fmt.Errorf("the data read back differs from the data written: the device copied something else")
		}
	}
	fmt.Fprintf(w, "%s, %d bytes per transfer, %d rounds, data checked each round\n", dev, n, rounds)
	for _, r := range []struct {
		name string
		v    []float64
	}{{"copy.h2d", h2d}, {"copy.d2h", d2h}, {"copy.d2d", d2d}} {
		fmt.Fprintf(w, "%-9s GB/s %8.2f (min %.2f, max %.2f)\n", r.name, median(r.v), slices.Min(r.v), slices.Max(r.v))
	}
	return nil
}
