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

// tile is SGEMM's tile edge: a tile×tile work-group computes a tile of C.
const tile = 16

// SGEMM computes C = A·B for row-major A (m×k), B (k×n) and C (m×n),
// each work-group staging tiles of A and B in shared memory.
func SGEMM(it kern.Item, a, b, c []float32, m, n, k int32) {
	as := kern.Shared[float32](it, tile*tile)
	bs := kern.Shared[float32](it, tile*tile)
	tx, ty := int32(it.LocalID(0)), int32(it.LocalID(1))
	col, row := int32(it.GlobalID(0)), int32(it.GlobalID(1))
	var acc float32
	for t := int32(0); t < (k+tile-1)/tile; t++ {
		as[ty*tile+tx] = 0
		if ac := t*tile + tx; row < m && ac < k {
			as[ty*tile+tx] = a[row*k+ac]
		}
		bs[ty*tile+tx] = 0
		if br := t*tile + ty; br < k && col < n {
			bs[ty*tile+tx] = b[br*n+col]
		}
		it.Barrier()
		for i := range int32(tile) {
			acc += as[ty*tile+i] * bs[i*tile+tx]
		}
		it.Barrier()
	}
	if row < m && col < n {
		c[row*n+col] = acc
	}
}

// scanGroup is Scan's work-group size.
const scanGroup = 256

// Scan writes each work-group's inclusive prefix sums of x into out
// (Hillis and Steele's scan in shared memory, two buffers).
func Scan(it kern.Item, x, out []int32) {
	s0 := kern.Shared[int32](it, scanGroup)
	s1 := kern.Shared[int32](it, scanGroup)
	l, i := it.LocalID(0), it.GlobalID(0)
	var v int32
	if i < len(x) {
		v = x[i]
	}
	s0[l] = v
	it.Barrier()
	in := 0
	for d := 1; d < scanGroup; d *= 2 {
		if in == 0 {
			s1[l] = s0[l]
			if l >= d {
				s1[l] += s0[l-d]
			}
		} else {
			s0[l] = s1[l]
			if l >= d {
				s0[l] += s1[l-d]
			}
		}
		in = 1 - in
		it.Barrier()
	}
	if i < len(out) {
		if in == 0 {
			out[i] = s0[l]
		} else {
			out[i] = s1[l]
		}
	}
}

// LayerNorm normalises each row of x (rows×cols) to zero mean and unit
// variance, then scales by gamma and shifts by beta, one work-item a row.
func LayerNorm(it kern.Item, x, gamma, beta, y []float32, cols int, eps float32) {
	base := it.GlobalID(0) * cols
	if base >= len(x) {
		return
	}
	var mean float32
	for j := range cols {
		mean += x[base+j]
	}
	mean /= float32(cols)
	var variance float32
	for j := range cols {
		d := x[base+j] - mean
		variance += d * d
	}
	variance /= float32(cols)
	inv := kern.Rsqrt(variance + eps)
	for j := range cols {
		y[base+j] = (x[base+j]-mean)*inv*gamma[j] + beta[j]
	}
}

// ShuffleSum is Sum with a subgroup shuffle: each subgroup (a warp on
// CUDA) adds its elements in registers, a butterfly of xor-shuffles
// that leaves every lane the subgroup's total; the subgroups' totals go
// through shared memory, one barrier, to the first subgroup, which adds
// them with shuffles again. It needs the device's subgroups (and, on
// OpenCL, their shuffles) and a work-group of groupSize whose subgroup
// size is a power of two; the subgroup size is the device's, read, not
// assumed.
func ShuffleSum(it kern.Item, x, sums []float32) {
	partial := kern.Shared[float32](it, groupSize)
	i := it.GlobalID(0)
	var v float32
	if i < len(x) {
		v = x[i]
	}
	lane, size := it.SubgroupLocalID(), it.SubgroupSize()
	for off := size / 2; off > 0; off /= 2 {
		v += kern.ShuffleXor(it, v, off)
	}
	if lane == 0 {
		partial[it.SubgroupID()] = v
	}
	it.Barrier()
	if it.SubgroupID() == 0 {
		v = 0
		if lane < it.NumSubgroups() {
			v = partial[lane]
		}
		for off := size / 2; off > 0; off /= 2 {
			v += kern.ShuffleXor(it, v, off)
		}
		if lane == 0 {
			sums[it.GroupID(0)] = v
		}
	}
}
