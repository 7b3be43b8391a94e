package ur_test

import (
	"fmt"
	"log"

	_ "github.com/gour-dev/gour/adapters/all"
	"github.com/gour-dev/gour/ur"
)

// A PreparedLaunch checks a launch once and then makes it with the
// kernel's current arguments, here a time step run many times. (This
// example needs a device, so it is not run by go test.)
func ExampleQueue_PrepareLaunch() {
	dev, err := ur.DefaultDevice()
	if err != nil {
		log.Fatal(err)
	}
	ctx, err := ur.NewContext(dev)
	if err != nil {
		log.Fatal(err)
	}
	defer ctx.Release()
	q, err := ctx.NewQueue(dev, ur.QueueProperties{})
	if err != nil {
		log.Fatal(err)
	}
	defer q.Release()
	prog, err := ctx.NewProgramFromSource(`__kernel void advance(__global float *x, float dt) {
		size_t i = get_global_id(0);
		x[i] += dt;
	}`)
	if err != nil {
		log.Fatal(err)
	}
	defer prog.Release()
	if err := prog.Build(""); err != nil {
		log.Fatal(err)
	}
	k, err := prog.NewKernel("advance")
	if err != nil {
		log.Fatal(err)
	}
	defer k.Release()
	const n = 1024
	x, err := ctx.NewBufferFrom(ur.MemReadWrite, ur.AsBytes(make([]float32, n)))
	if err != nil {
		log.Fatal(err)
	}
	defer x.Release()
	if err := k.SetArgMem(0, x); err != nil {
		log.Fatal(err)
	}

	step, err := q.PrepareLaunch(k, ur.Range1D(n))
	if err != nil {
		log.Fatal(err)
	}
	defer step.Release()
	for i := range 1000 {
		dt := float32(0.001)
		if i >= 500 {
			dt = 0.002 // arguments may change between launches
		}
		if err := k.SetArgFloat32(1, dt); err != nil {
			log.Fatal(err)
		}
		if err := step.Launch(); err != nil {
			log.Fatal(err)
		}
	}
	xs := make([]float32, n)
	if err := q.ReadBuffer(x, 0, ur.AsBytes(xs)); err != nil {
		log.Fatal(err)
	}
	fmt.Printf("x[0] = %.2f\n", xs[0])
	// Prints: x[0] = 1.50
}
