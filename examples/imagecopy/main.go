// Command imagecopy times an image-to-image copy (Queue.EnqueueCopyImage)
// against a buffer-to-buffer copy of the same bytes on one device, and
// prints both bandwidths and their ratio.
//
//	go run ./examples/imagecopy                     # 8192×8192 RGBA float (1 GiB)
//	go run ./examples/imagecopy -size 1024
//
// On a device without images (CUDA and Level Zero in gour for now) it
// says so and exits 0.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"time"

	_ "github.com/gour-dev/gour/adapters/all"
	"github.com/gour-dev/gour/ur"
)

func main() {
	size := flag.Uint64("size", 8192, "image width and height in pixels (RGBA float: 16 bytes a pixel)")
	runs := flag.Int("runs", 5, "copies timed; the fastest counts")
	flag.Parse()
	if err := run(os.Stdout, *size, *runs); err != nil {
		log.Fatal(err)
	}
}

func run(w io.Writer, side uint64, runs int) error {
	dev, err := ur.DefaultDevice()
	if err != nil {
		return err
	}
	ctx, err := ur.NewContext(dev)
	if err != nil {
		return err
	}
	defer ctx.Release()
	format := ur.ImageFormat{Order: ur.ChannelRGBA, Type: ur.ChannelFloat}
	desc := ur.ImageDesc{Type: ur.Image2D, Width: side, Height: side}
	src, err := ctx.NewImage(ur.MemReadWrite, format, desc, nil)
	if errors.Is(err, ur.ErrUnsupportedFeature) {
		fmt.Fprintf(w, "%s has no images in gour: %v\n", dev, err)
		return nil
	}
	if err != nil {
		return err
	}
	defer src.Release()
	dst, err := ctx.NewImage(ur.MemReadWrite, format, desc, nil)
	if err != nil {
		return err
	}
	defer dst.Release()
	bytes := side * side * 16
	bsrc, err := ctx.NewBuffer(ur.MemReadWrite, bytes)
	if err != nil {
		return err
	}
	defer bsrc.Release()
	bdst, err := ctx.NewBuffer(ur.MemReadWrite, bytes)
	if err != nil {
		return err
	}
	defer bdst.Release()
	q, err := ctx.NewQueue(dev, ur.QueueProperties{})
	if err != nil {
		return err
	}
	defer q.Release()
	time1 := func(enqueue func() (*ur.Event, error)) (time.Duration, error) {
		best := time.Duration(1 << 62)
		for range runs + 1 { // the first run warms up
			start := time.Now()
			ev, err := enqueue()
			if err != nil {
				return 0, err
			}
			if err := ev.Wait(context.Background()); err != nil {
				return 0, err
			}
			ev.Release()
			best = min(best, time.Since(start))
		}
		return best, nil
	}
	ti, err := time1(func() (*ur.Event, error) {
		return q.EnqueueCopyImage(src, dst, [3]uint64{}, [3]uint64{}, [3]uint64{side, side, 1})
	})
	if err != nil {
		return err
	}
	tb, err := time1(func() (*ur.Event, error) { return q.EnqueueCopy(bsrc, bdst, 0, 0, bytes) })
	if err != nil {
		return err
	}
	gbs := func(d time.Duration) float64 { return float64(bytes) / d.Seconds() / 1e9 }
	fmt.Fprintf(w, "%s: %d MiB: image copy %.1f GB/s, buffer copy %.1f GB/s: ratio %.2f\n",
		dev, bytes>>20, gbs(ti), gbs(tb), gbs(ti)/gbs(tb))
	return nil
}
