// Package testkernels holds the kernels gokernel's tests compile, run on
// the CPU and run on devices. zz_kernels.go is generated from this file:
//
//go:generate go run github.com/gour-dev/gour/cmd/gokernel -o zz_kernels.go -var Module kernels.go
package testkernels

import "github.com/gour-dev/gour/gokernel/kern"

// groupSize is the work-group size of the kernels that share memory.
const groupSize = 64

// Axpy is y = a*x + y.
func Axpy(it kern.Item, a float32, x, y []float32) {
	i := it.GlobalID(0)
	if i < len(y) {
		y[i] += a * x[i]
	}
}

// Scale halves and offsets: the constants stay float32.
func Scale(it kern.Item, x []float32) {
	i := it.GlobalID(0)
	if i < len(x) {
		x[i] = x[i]*0.5 + 1
	}
}

// GroupSum sums each work-group's elements of x into sums[group], in
// shared memory, halving the active work-items at each step.
func GroupSum(it kern.Item, x, sums []float32) {
	tile := kern.Shared[float32](it, groupSize)
	l := it.LocalID(0)
	tile[l] = x[it.GlobalID(0)]
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

// GroupSumSized is GroupSum for a work-group of size items (a power of
// two), its shared arrays sized at launch by that parameter: one of
// float32 for the tree, and one of int64 (another element size, after
// the first in the launch's work-group memory) that counts the
// work-items through a device function taking it.
func GroupSumSized(it kern.Item, x, sums []float32, counts []int64, size int) {
	tile := kern.Shared[float32](it, size)
	seen := kern.Shared[int64](it, size)
	l := it.LocalID(0)
	tile[l] = x[it.GlobalID(0)]
	seen[l] = 1
	it.Barrier()
	for s := len(tile) / 2; s > 0; s /= 2 {
		if l < s {
			tile[l] += tile[l+s]
		}
		it.Barrier()
	}
	if l == 0 {
		sums[it.GroupID(0)] = tile[0]
		counts[it.GroupID(0)] = total(seen)
	}
}

// total is the sum of s, a shared array.
func total(s []int64) int64 {
	var t int64
	for i := range len(s) {
		t += s[i]
	}
	return t
}

// GroupSumByCall is GroupSum with the tree in a device function, which
// takes the shared array as a parameter, and with the group's total
// added to sums[group] by an atomic on that parameter's memory.
func GroupSumByCall(it kern.Item, x, sums []float32) {
	tile := kern.Shared[float32](it, groupSize)
	total := kern.Shared[float32](it, 1)
	l := it.LocalID(0)
	if l == 0 {
		total[0] = 0
	}
	tile[l] = x[it.GlobalID(0)]
	it.Barrier()
	addTree(it, tile, total)
	if l == 0 {
		sums[it.GroupID(0)] = total[0]
	}
}

// addTree adds tile's elements pairwise, halving the active work-items
// each step, then adds the sum to total[0] atomically.
func addTree(it kern.Item, tile, total []float32) {
	l := it.LocalID(0)
	for s := len(tile) / 2; s > 0; s /= 2 {
		if l < s {
			tile[l] += tile[l+s]
		}
		it.Barrier()
	}
	if l == 0 {
		kern.AtomicAddFloat32(&total[0], tile[0])
	}
	it.Barrier()
}

// GroupSumNoBarrier is GroupSum with its first barrier left out: the
// work-items read their neighbours' shared elements before they are
// written. The race detector finds it on the CPU.
func GroupSumNoBarrier(it kern.Item, x, sums []float32) {
	tile := kern.Shared[float32](it, groupSize)
	l := it.LocalID(0)
	tile[l] = x[it.GlobalID(0)]
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

// Histogram counts the values of x (each below len(counts)) with atomics.
func Histogram(it kern.Item, x, counts []int32) {
	i := it.GlobalID(0)
	if i < len(x) {
		kern.AtomicAddInt32(&counts[x[i]], 1)
	}
}

// Wrap computes in int32 with overflow, which wraps as Go's does, and
// exercises switch, a range loop and a device function.
func Wrap(it kern.Item, x []int32, out []int32) {
	i := it.GlobalID(0)
	if i >= len(x) {
		return
	}
	v := x[i]
	var acc int32
	for k := range 3 {
		acc += mix(v, int32(k))
	}
	switch {
	case acc < 0:
		acc = -acc
	case acc == 0:
		acc = 1
	default:
		acc = acc * 2147483647
	}
	out[i] = acc
}

// Index is a kernel that also serves other kernels as a device function:
// it writes each work-item's global id.
func Index(it kern.Item, out []int32) {
	i := globalIndex(it)
	if i < len(out) {
		out[i] = int32(i)
	}
}

// globalIndex is a device function taking the Item.
func globalIndex(it kern.Item) int { return it.GlobalID(0) }

// mix is a device function.
func mix(v, k int32) int32 {
	return v*1664525 + 1013904223 + k
}

// Transpose transposes the rows×cols matrix in into out (cols×rows), in a
// two-dimensional index space.
func Transpose(it kern.Item, in, out []float32, rows, cols int32) {
	c, r := int32(it.GlobalID(0)), int32(it.GlobalID(1))
	if r < rows && c < cols {
		out[c*rows+r] = in[r*cols+c]
	}
}

// Softmax normalizes each row of the rows×cols matrix x in place, one
// work-item a row.
func Softmax(it kern.Item, x []float32, cols int) {
	row := it.GlobalID(0)
	if row*cols >= len(x) {
		return
	}
	base := row * cols
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

// Totals adds x into total[0] with a 64-bit atomic and ORs it into
// bits[0].
func Totals(it kern.Item, x []uint32, total []int64, bits []uint32) {
	i := it.GlobalID(0)
	if i < len(x) {
		kern.AtomicAddInt64(&total[0], int64(x[i])<<20)
		kern.AtomicOrUint32(&bits[0], x[i])
	}
}

// Twice doubles x and y through one generic device function, emitted
// once for each of its two instantiations.
func Twice(it kern.Item, x []float32, y []int32) {
	i := it.GlobalID(0)
	if i < len(x) {
		x[i] = twice(x[i])
	}
	if i < len(y) {
		y[i] = twice[int32](y[i])
	}
}

// twice is a generic device function.
func twice[T float32 | int32](v T) T {
	var two T = 2
	return v * two
}

// Halves scales float16 values and offsets bfloat16 ones, computing in
// float32 and rounding back as devices round.
func Halves(it kern.Item, h []kern.Float16, b []kern.BFloat16, a float32) {
	i := it.GlobalID(0)
	if i < len(h) {
		h[i] = kern.F16(h[i].Float32() * a)
	}
	if i < len(b) {
		b[i] = kern.BF16(b[i].Float32() + a)
	}
}

// Affine is Transform's parameters, a struct passed by value: its int32
// before an int64 leaves 4 bytes of padding, as in C.
type Affine struct {
	Scale, Shift float32
	Bias         [4]float32
	N            int32
	Count        int64
	Range        Bounds
}

// Bounds is a range, a struct inside Affine.
type Bounds struct{ Lo, Hi float32 }

// Transform writes y[i] = clamp(Scale·x[i] + Shift + Bias[i%4]) for i
// < N, through a local copy of the struct and a device function taking
// and returning one, and counts into out[0] Count plus the work-items.
func Transform(it kern.Item, a Affine, x, y []float32, out []int64) {
	i := it.GlobalID(0)
	if i >= int(a.N) {
		return
	}
	b := a
	b.Shift += b.Bias[i%4]
	var r Bounds // zeroed, as Go's
	r.Lo += b.Range.Lo
	r.Hi = b.Range.Hi
	b.Range = widen(r, 0.5)
	y[i] = min(max(b.Scale*x[i]+b.Shift, b.Range.Lo), b.Range.Hi)
	if i == 0 {
		out[0] = a.Count + int64(a.N)
	}
}

// widen returns r with d more room on each side.
func widen(r Bounds, d float32) Bounds {
	r.Lo -= d
	r.Hi += d
	return r
}

// Fill sets x[i] = v + i·step: a generic kernel, compiled once for each
// instantiation declared below, each a kernel of its own (Fill_float32,
// Fill_int32).
func Fill[T float32 | int32](it kern.Item, x []T, v, step T) {
	i := it.GlobalID(0)
	if i < len(x) {
		x[i] = v + T(i)*step
	}
}

var (
	_ = Fill[float32]
	_ = Fill[int32]
)
