// Command imagecopy times an image-to-image copy (Queue.EnqueueCopyImage)
// against a buffer-to-buffer copy of the same bytes on one device, and
// prints both bandwidths and their ratio. Where the example has a kernel
// for the device's backend (OpenCL C, CUDA C) it also times a kernel that
// reads every pixel of one image and writes it to the other: what a copy
// through the device's image units can reach. (gour's CUDA adapter and
// its OpenCL adapter on NVIDIA's platform copy large images with such a
// kernel themselves; GOUR_CUDA_IMAGE_COPY=driver and
// GOUR_OPENCL_IMAGE_COPY=driver time the drivers' own copies.)
//
//	go run ./examples/imagecopy                     # 8192×8192 RGBA float (1 GiB)
//	go run ./examples/imagecopy -size 1024
//
// On a device without images it says so and exits 0.
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
	kernelSrc, ok := copyKernels[dev.Backend()]
	if !ok {
		return nil
	}
	k, err := buildCopyKernel(ctx, kernelSrc, src, dst)
	if err != nil {
		return err
	}
	defer k.Release()
	tk, err := time1(func() (*ur.Event, error) {
		if err := q.Launch(k, ur.Range2D(side, side).WithLocal(32, 8)); err != nil {
			return nil, err
		}
		return q.EnqueueMarker()
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "%s: %d MiB: image copy by a kernel %.1f GB/s: ratio %.2f\n",
		dev, bytes>>20, gbs(tk), gbs(tk)/gbs(tb))
	return nil
}

// copyKernels copy one RGBA float pixel a work-item between two images of
// the same size, per source language.
var copyKernels = map[string]string{
	"opencl": `__kernel void copy_image(__read_only image2d_t src, __write_only image2d_t dst) {
	int2 p = (int2)(get_global_id(0), get_global_id(1));
	write_imagef(dst, p, read_imagef(src, p));
}`,
	// A CUDA image argument is its surface object, addressed in bytes along x.
	"cuda": `extern "C" __global__ void copy_image(cudaSurfaceObject_t src, cudaSurfaceObject_t dst) {
	int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
	surf2Dwrite(surf2Dread<float4>(src, x * 16, y), dst, x * 16, y);
}`,
}

// buildCopyKernel builds copy_image from src with its arguments set.
func buildCopyKernel(ctx *ur.Context, src string, from, to *ur.Mem) (*ur.Kernel, error) {
	prog, err := ctx.NewProgramFromSource(src)
	if err != nil {
		return nil, err
	}
	defer prog.Release() // the kernel keeps what it needs
	if err := prog.Build(""); err != nil {
		return nil, err
	}
	k, err := prog.NewKernel("copy_image")
	if err != nil {
		return nil, err
	}
	if err := k.SetArgMem(0, from); err != nil {
		k.Release()
		return nil, err
	}
	if err := k.SetArgMem(1, to); err != nil {
		k.Release()
		return nil, err
	}
	return k, nil
}
