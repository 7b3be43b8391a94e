package main

import "github.com/gour-dev/gour/gokernel/kern"

//go:generate go run github.com/gour-dev/gour/cmd/gokernel -o zz_kernels.go -var kernels kernels.go

// The kernels in Go. csrc.go holds the same algorithms in C, line for
// line: the same work-group sizes, the same memory access patterns, the
// same reductions. Indices are Go's int (64 bits) where a Go programmer
// would write int, and int32 in SGEMM and Transpose, as in
// examples/gokernels; the C versions use C's int throughout.

// Work-group sizes, shared with the launches in bench.go.
const (
	group = 256 // Axpy, Sum, Softmax and LayerNorm

	tileDim  = 32 // Transpose: a tileDim×tileDim tile a work-group
	tileRows = 8  // Transpose: work-group rows; a work-item moves tileDim/tileRows elements

	gemmTile = 16 // SGEMM: a gemmTile×gemmTile work-group computes a tile of C

	// rowPer is the elements of a row each work-item of Softmax and
	// LayerNorm holds in registers: rows of up to group*rowPer (4096)
	// columns are read once and written once.
	rowPer = 16

	// lowest is -math.MaxFloat32 (kernel files import only kern).
	lowest float32 = -3.4028234663852886e38
)

// Axpy is y = a*x + y.
func Axpy(it kern.Item, a float32, x, y []float32) {
	i := it.GlobalID(0)
	if i < len(y) {
		y[i] += a * x[i]
	}
}

// Sum leaves in partial[g] the sum of work-group g's share of x: each
// work-item adds a grid-strided run of x, then the group adds its
// work-items' sums in shared memory, halving each step.
func Sum(it kern.Item, x, partial []float32) {
	tile := kern.Shared[float32](it, group)
	l := it.LocalID(0)
	var s float32
	for i := it.GlobalID(0); i < len(x); i += it.GlobalSize(0) {
		s += x[i]
	}
	tile[l] = s
	it.Barrier()
	for step := group / 2; step > 0; step /= 2 {
		if l < step {
			tile[l] += tile[l+step]
		}
		it.Barrier()
	}
	if l == 0 {
		partial[it.GroupID(0)] = tile[0]
	}
}

// Transpose writes the rows×cols matrix in, transposed, into out
// (cols×rows). A tileDim×tileRows work-group reads a tileDim×tileDim tile
// with coalesced reads into shared memory (one column of padding against
// bank conflicts) and writes it transposed with coalesced writes.
func Transpose(it kern.Item, in, out []float32, rows, cols int32) {
	tile := kern.Shared[float32](it, tileDim*(tileDim+1))
	tx, ty := int32(it.LocalID(0)), int32(it.LocalID(1))
	bx, by := int32(it.GroupID(0))*tileDim, int32(it.GroupID(1))*tileDim
	for k := int32(0); k < tileDim; k += tileRows {
		if r, c := by+ty+k, bx+tx; r < rows && c < cols {
			tile[(ty+k)*(tileDim+1)+tx] = in[r*cols+c]
		}
	}
	it.Barrier()
	for k := int32(0); k < tileDim; k += tileRows {
		if r, c := bx+ty+k, by+tx; r < cols && c < rows {
			out[r*rows+c] = tile[tx*(tileDim+1)+ty+k]
		}
	}
}

// Softmax writes the softmax of each row of the matrix x (cols columns,
// at most group*rowPer) into y, one work-group a row: each work-item
// holds rowPer elements of the row in registers (element l+k*group), the
// group finds the row's maximum and then the sum of the exponentials
// with two reductions in shared memory, and each work-item writes its
// elements. x is read once and y written once.
func Softmax(it kern.Item, x, y []float32, cols int) {
	rmax := kern.Shared[float32](it, group)
	rsum := kern.Shared[float32](it, group)
	l := it.LocalID(0)
	base := it.GroupID(0) * cols
	var v [rowPer]float32
	m := lowest
	for k := range rowPer {
		v[k] = lowest
		if j := l + k*group; j < cols {
			v[k] = x[base+j]
		}
		m = max(m, v[k])
	}
	rmax[l] = m
	it.Barrier()
	for step := group / 2; step > 0; step /= 2 {
		if l < step {
			rmax[l] = max(rmax[l], rmax[l+step])
		}
		it.Barrier()
	}
	m = rmax[0]
	var s float32
	for k := range rowPer {
		v[k] = kern.Exp(v[k] - m) // 0 for the padding
		s += v[k]
	}
	rsum[l] = s
	it.Barrier()
	for step := group / 2; step > 0; step /= 2 {
		if l < step {
			rsum[l] += rsum[l+step]
		}
		it.Barrier()
	}
	inv := 1 / rsum[0]
	for k := range rowPer {
		if j := l + k*group; j < cols {
			y[base+j] = v[k] * inv
		}
	}
}

// LayerNorm writes the layer norm of each row of x (cols columns, at most
// group*rowPer) into y: (x-mean)/sqrt(variance+eps)*w + b, one work-group
// a row, as Softmax: the row in registers, the mean and then the variance
// by reductions in shared memory, x read once and y written once.
func LayerNorm(it kern.Item, x, w, b, y []float32, cols int, eps float32) {
	rsum := kern.Shared[float32](it, group)
	rvar := kern.Shared[float32](it, group)
	l := it.LocalID(0)
	base := it.GroupID(0) * cols
	var v [rowPer]float32
	var s float32
	for k := range rowPer {
		v[k] = 0
		if j := l + k*group; j < cols {
			v[k] = x[base+j]
		}
		s += v[k]
	}
	rsum[l] = s
	it.Barrier()
	for step := group / 2; step > 0; step /= 2 {
		if l < step {
			rsum[l] += rsum[l+step]
		}
		it.Barrier()
	}
	mean := rsum[0] / float32(cols)
	var q float32
	for k := range rowPer {
		if j := l + k*group; j < cols {
			d := v[k] - mean
			q += d * d
		}
	}
	rvar[l] = q
	it.Barrier()
	for step := group / 2; step > 0; step /= 2 {
		if l < step {
			rvar[l] += rvar[l+step]
		}
		it.Barrier()
	}
	rstd := kern.Rsqrt(rvar[0]/float32(cols) + eps)
	for k := range rowPer {
		if j := l + k*group; j < cols {
			y[base+j] = (v[k]-mean)*rstd*w[j] + b[j]
		}
	}
}

// SGEMM computes C = A·B for row-major A (m×k), B (k×n) and C (m×n),
// each gemmTile×gemmTile work-group staging tiles of A and B in shared
// memory: examples/gokernels's SGEMM.
func SGEMM(it kern.Item, a, b, c []float32, m, n, k int32) {
	as := kern.Shared[float32](it, gemmTile*gemmTile)
	bs := kern.Shared[float32](it, gemmTile*gemmTile)
	tx, ty := int32(it.LocalID(0)), int32(it.LocalID(1))
	col, row := int32(it.GlobalID(0)), int32(it.GlobalID(1))
	var acc float32
	for t := int32(0); t < (k+gemmTile-1)/gemmTile; t++ {
		as[ty*gemmTile+tx] = 0
		if ac := t*gemmTile + tx; row < m && ac < k {
			as[ty*gemmTile+tx] = a[row*k+ac]
		}
		bs[ty*gemmTile+tx] = 0
		if br := t*gemmTile + ty; br < k && col < n {
			bs[ty*gemmTile+tx] = b[br*n+col]
		}
		it.Barrier()
		for i := range int32(gemmTile) {
			acc += as[ty*gemmTile+i] * bs[i*gemmTile+tx]
		}
		it.Barrier()
	}
	if row < m && col < n {
		c[row*n+col] = acc
	}
}
