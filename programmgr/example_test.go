package programmgr_test

import (
	"context"
	"fmt"
	"log"

	_ "github.com/gour-dev/gour/adapters/all"
	"github.com/gour-dev/gour/programmgr"
	"github.com/gour-dev/gour/ur"
)

const scaleSource = `
__kernel void scale(__global float* x) {
    size_t i = get_global_id(0);
    x[i] *= FACTOR;
}`

// An image of OpenCL C source with one specialization constant, FACTOR,
// which the build receives as -DFACTOR=<value>.
func ExampleNewImage() {
	img, err := programmgr.NewImage(programmgr.ImageDesc{
		Format:      programmgr.FormatOpenCLC,
		Bytes:       []byte(scaleSource),
		KernelNames: []string{"scale"},
		SpecConstants: []programmgr.SpecConstant{
			{ID: 1, Name: "FACTOR", Kind: programmgr.SpecFloat, Default: programmgr.SpecFloat32(2)},
		},
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(img.Format(), img.KernelNames(), img.ID().Short())
	// Output: opencl-c [scale] 44ef1be95da4
}

// SpecValues are comparable: equal values are == and key maps.
func ExampleSpec() {
	a := programmgr.Spec(map[uint32][]byte{1: programmgr.SpecFloat32(0.5), 2: programmgr.SpecInt32(-3)})
	b := programmgr.SpecValues{}.With(2, programmgr.SpecInt32(-3)).With(1, programmgr.SpecFloat32(0.5))
	fmt.Println(a == b, a.Len(), a)
	fmt.Println(programmgr.SpecLiteral(programmgr.SpecFloat, programmgr.SpecFloat32(0.5)),
		programmgr.SpecLiteral(programmgr.SpecInt, programmgr.SpecInt32(-3)))
	// Output:
	// true 2 1=0000003f,2=fdffffff
	// 0.5f (-3)
}

// GetKernel builds the image on first use and answers later requests from
// the cache. The kernel is shared: hold its lock from setting arguments to
// enqueuing the launch. (This example needs an OpenCL device, so it is not
// run by go test.)
func ExampleManager_GetKernel() {
	dev, err := ur.DefaultDevice()
	if err != nil {
		log.Fatal(err)
	}
	uctx, err := ur.NewContext(dev)
	if err != nil {
		log.Fatal(err)
	}
	defer uctx.Release()
	m, err := programmgr.New(uctx, programmgr.DefaultOptions())
	if err != nil {
		log.Fatal(err)
	}
	defer m.Close()
	img, err := programmgr.NewImage(programmgr.ImageDesc{
		Format: programmgr.FormatOpenCLC, Bytes: []byte(scaleSource), KernelNames: []string{"scale"},
		SpecConstants: []programmgr.SpecConstant{
			{ID: 1, Name: "FACTOR", Kind: programmgr.SpecFloat, Default: programmgr.SpecFloat32(2)},
		},
	})
	if err != nil {
		log.Fatal(err)
	}
	q, err := uctx.NewQueue(dev, ur.QueueProperties{})
	if err != nil {
		log.Fatal(err)
	}
	defer q.Release()
	x, err := uctx.NewBufferFrom(ur.MemReadWrite, make([]byte, 4*1024))
	if err != nil {
		log.Fatal(err)
	}
	defer x.Release()

	triple := programmgr.Spec(map[uint32][]byte{1: programmgr.SpecFloat32(3)})
	for i := 0; i < 3; i++ {
		k, err := m.GetKernel(context.Background(), img, "scale", dev, triple, "")
		if err != nil {
			log.Fatal(err)
		}
		k.Lock()
		err = k.UR().SetArgMem(0, x)
		if err == nil {
			err = q.Launch(k.UR(), ur.Range1D(1024))
		}
		k.Unlock()
		k.Release()
		if err != nil {
			log.Fatal(err)
		}
	}
	if err := q.Finish(); err != nil {
		log.Fatal(err)
	}
	s := m.Stats()
	fmt.Printf("builds %d, hits %d (fast %d)\n", s.Builds, s.Hits, s.FastHits)
	// Prints: builds 1, hits 2 (fast 2) — or builds 0 when the persistent
	// cache already held the program from an earlier run.
}
