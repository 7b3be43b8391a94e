package blas_test

import (
	"fmt"
	"log"

	_ "github.com/gour-dev/gour/adapters/all"
	"github.com/gour-dev/gour/blas"
	"github.com/gour-dev/gour/dtype"
	"github.com/gour-dev/gour/ur"
)

// Example multiplies a 2×3 matrix by a 3×2 one on the default device,
// with its vendor library where it loads and the own kernels elsewhere.
// Buffers are used here; USM pointers (blas.OnPtr) work the same way.
func Example() {
	dev, err := ur.DefaultDevice()
	if err != nil {
		fmt.Println("no device:", err)
		return
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
	h, err := blas.New(q, blas.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer h.Close()

	// Row-major, as Go arrays are.
	a := []float32{
		1, 2, 3,
		4, 5, 6,
	}
	b := []float32{
		1, 0,
		0, 1,
		1, 1,
	}
	c := make([]float32, 2*2)
	var mems []*ur.Mem
	for _, xs := range [][]float32{a, b, c} {
		m, err := ctx.NewBufferFrom(ur.MemReadWrite, ur.AsBytes(xs))
		if err != nil {
			log.Fatal(err)
		}
		defer m.Release()
		mems = append(mems, m)
	}

	// C = A·B, enqueued on q; the read after it waits for it.
	err = h.Gemm(blas.GemmArgs{
		Type: dtype.Float32, M: 2, N: 2, K: 3, Alpha: 1,
		A: blas.OnBuffer(mems[0], 0), LDA: 3,
		B: blas.OnBuffer(mems[1], 0), LDB: 2,
		C: blas.OnBuffer(mems[2], 0), LDC: 2,
	})
	if err != nil {
		log.Fatal(err)
	}
	if err := q.ReadBuffer(mems[2], 0, ur.AsBytes(c)); err != nil {
		log.Fatal(err)
	}
	fmt.Println(c[:2])
	fmt.Println(c[2:])
	// Output:
	// [4 5]
	// [10 11]
}

// ExampleArgError shows a refused call: the error names the argument,
// matches ur's result code, and nothing was enqueued.
func ExampleArgError() {
	dev, err := ur.DefaultDevice()
	if err != nil {
		fmt.Println("no device:", err)
		return
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
	h, err := blas.New(q, blas.Options{Backend: blas.BackendGour})
	if err != nil {
		log.Fatal(err)
	}
	defer h.Close()

	err = h.Gemm(blas.GemmArgs{Type: dtype.Float32, M: 4, N: 4, K: 8, LDA: 4, LDB: 4, LDC: 4})
	fmt.Println(err)
	// Output:
	// blas.Gemm: LDA: 4: want at least max(1, 8), the columns of A, and at most 2147483647
}
