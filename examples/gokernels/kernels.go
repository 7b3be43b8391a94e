package main

import "github.com/gour-dev/gour/gokernel/kern"

//go:generate go run github.com/gour-dev/gour/cmd/gokernel -o zz_kernels.go -var kernels kernels.go

// README: begin kernel

// groupSize is the work-group size of Sum.
const groupSize = 256

// Axpy is y = a*x + y. In float32 code, constants stay float32.
func Axpy(it kern.Item, a float32, x, y []float32) {
	i := it.GlobalID(0)
	if i < len(y) {
		y[i] += a * x[i]
	}
}

// Sum adds each work-group's elements of x in shared memory and leaves
// the group's total in sums[group].
func Sum(it kern.Item, x, sums []float32) {
	tile := kern.Shared[float32](it, groupSize)
	l, i := it.LocalID(0), it.GlobalID(0)
	tile[l] = 0
	if i < len(x) {
		tile[l] = x[i]
	}
	it.Barrier()
	for s := groupSize / 2; s > 0; s /= 2 {
		if l < s {
			tile[l] += tile[l+s]
		}
		it.Barrier()
	}
	if l == 0 {
		sums[it.GroupID(0)] = tile[0]
	}
}

// README: end kernel

// Histogram counts the bytes of data in 256 bins with atomics.
func Histogram(it kern.Item, data []uint8, bins []int32) {
	i := it.GlobalID(0)
	if i < len(data) {
		kern.AtomicAddInt32(&bins[data[i]], 1)
	}
}

// Transpose writes the rows×cols matrix in transposed into out.
func Transpose(it kern.Item, in, out []float32, rows, cols int32) {
	c, r := int32(it.GlobalID(0)), int32(it.GlobalID(1))
	if r < rows && c < cols {
		out[c*rows+r] = in[r*cols+c]
	}
}

// Softmax normalises each row of the rows×cols matrix x, one work-item a
// row.
func Softmax(it kern.Item, x []float32, cols int) {
	base := it.GlobalID(0) * cols
	if base >= len(x) {
		return
	}
	m := x[base]
	for j := 1; j < cols; j++ {
		m = max(m, x[base+j])
	}
	var sum float32
	for j := range cols {
		e := kern.Exp(x[base+j] - m)
		x[base+j] = e
		sum += e
	}
	for j := range cols {
		x[base+j] /= sum
	}
}
