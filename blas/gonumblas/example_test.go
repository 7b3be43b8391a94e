package gonumblas_test

import (
	"fmt"
	"log"

	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/blas/gonum"
	"gonum.org/v1/gonum/mat"

	_ "github.com/gour-dev/gour/adapters/all"
	"github.com/gour-dev/gour/blas/gonumblas"
	"github.com/gour-dev/gour/ur"
)

// Example makes gonum/mat multiply on the default device: blas64.Use
// swaps the implementation under every gonum package, and mat's code is
// unchanged. Without a device it multiplies on the host; the output is
// the same.
func Example() {
	if dev, err := ur.DefaultDevice(); err == nil {
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
		opts := gonumblas.DefaultOptions()
		opts.Level3Threshold = 0 // this example's matrices are tiny: offload them anyway
		impl, err := gonumblas.New(q, opts)
		if err != nil {
			log.Fatal(err)
		}
		defer impl.Close()
		blas64.Use(impl)
		defer blas64.Use(gonum.Implementation{})
	}

	a := mat.NewDense(2, 3, []float64{1, 2, 3, 4, 5, 6})
	b := mat.NewDense(3, 2, []float64{7, 8, 9, 10, 11, 12})
	var c mat.Dense
	c.Mul(a, b) // Dgemm, on the device
	fmt.Printf("%v\n", mat.Formatted(&c))
	// Output:
	// ⎡ 58   64⎤
	// ⎣139  154⎦
}
