// Package kernels holds GPT-2's own kernels, written in Go and compiled
// by gokernel: everything of the forward pass that is not a matrix
// product (those go through blas). zz_kernels.go is generated from this
// file:
//
//go:generate go run github.com/gour-dev/gour/cmd/gokernel -o zz_kernels.go -var Module kernels.go
package kernels

import "github.com/gour-dev/gour/gokernel/kern"

// Group is the work-group size of the kernels that work a row at a time
// (LayerNorm, Softmax): one group a row, each work-item striding it.
const Group = 256

// Embed writes the token and position embeddings of rows tokens into x
// (rows×c): row r is token ids[r] at position pos0 + r%t of its sequence.
// One work-item an element.
func Embed(it kern.Item, ids []int32, wte, wpe, x []float32, c, t, pos0 int) {
	i := it.GlobalID(0)
	if i >= len(x) {
		return
	}
	r, j := i/c, i%c
	x[i] = wte[int(ids[r])*c+j] + wpe[(pos0+r%t)*c+j]
}

// LayerNorm normalises each row of x (c columns) into y, scaled by w and
// shifted by b. With add, it first adds the row of d and the bias to x
// in place (the residual connection: x += d + bias), so that a layer's
// projection, its residual and the next layer norm are one kernel. One
// work-group of Group work-items a row; the mean and the variance are
// two reductions in shared memory (two passes over a row that stays in
// cache, for the accuracy of a residual stream with large values).
func LayerNorm(it kern.Item, x, d, bias, w, b, y []float32, c int, add bool, eps float32) {
	tile := kern.Shared[float32](it, Group)
	l := it.LocalID(0)
	base := it.GroupID(0) * c
	var s float32
	for j := l; j < c; j += Group {
		v := x[base+j]
		if add {
			v += d[base+j] + bias[j]
			x[base+j] = v
		}
		s += v
	}
	mean := groupSum(it, tile, s) / float32(c)
	var q float32
	for j := l; j < c; j += Group {
		v := x[base+j] - mean
		q += v * v
	}
	inv := kern.Rsqrt(groupSum(it, tile, q)/float32(c) + eps)
	for j := l; j < c; j += Group {
		y[base+j] = (x[base+j]-mean)*inv*w[j] + b[j]
	}
}

// groupSum is the sum of every work-item's v, through tile (Group
// elements of shared memory), which is free again when it returns.
func groupSum(it kern.Item, tile []float32, v float32) float32 {
	l := it.LocalID(0)
	tile[l] = v
	it.Barrier()
	for st := Group / 2; st > 0; st /= 2 {
		if l < st {
			tile[l] += tile[l+st]
		}
		it.Barrier()
	}
	s := tile[0]
	it.Barrier()
	return s
}

// groupMax is the largest of every work-item's v, as groupSum.
func groupMax(it kern.Item, tile []float32, v float32) float32 {
	l := it.LocalID(0)
	tile[l] = v
	it.Barrier()
	for st := Group / 2; st > 0; st /= 2 {
		if l < st {
			tile[l] = max(tile[l], tile[l+st])
		}
		it.Barrier()
	}
	m := tile[0]
	it.Barrier()
	return m
}

// BiasGELU is h = gelu(h + bias) for every row of h (n columns), GELU
// in GPT-2's tanh form. One work-item an element.
func BiasGELU(it kern.Item, h, bias []float32, n int) {
	i := it.GlobalID(0)
	if i >= len(h) {
		return
	}
	x := h[i] + bias[i%n]
	h[i] = 0.5 * x * (1 + kern.Tanh(0.7978845608028654*(x+0.044715*x*x*x)))
}

// SplitQKV adds the bias to the attention's input projection qkv (rows
// of 3c: the queries, keys and values of t tokens of each sequence),
// the queries in place and also into q, laid out [sequence][head]
// [token][hd], and moves the keys and values into the caches, laid out
// [sequence][head][position < lmax][hd], at positions pos0 onwards: so
// that every head of every sequence is one matrix a fixed stride from
// the next, and the attention's products are one batch each. One
// work-item an element of c columns.
func SplitQKV(it kern.Item, qkv, bias, q, kc, vc []float32, c, t, heads, lmax, pos0 int) {
	i := it.GlobalID(0)
	if i >= len(qkv)/3 {
		return
	}
	r, j := i/c, i%c
	seq, tok := r/t, r%t
	hd := c / heads
	h, e := j/hd, j%hd
	row := r * 3 * c
	qkv[row+j] += bias[j]
	q[((seq*heads+h)*t+tok)*hd+e] = qkv[row+j]
	at := ((seq*heads+h)*lmax+pos0+tok)*hd + e
	kc[at] = qkv[row+c+j] + bias[c+j]
	vc[at] = qkv[row+2*c+j] + bias[2*c+j]
}

// MergeHeads moves the heads' outputs yh, laid out [sequence][head]
// [token][hd] as the attention's second product leaves them, into the
// rows of y, [sequence·t + token][head·hd + e]: the output projection's
// input. One work-item an element.
func MergeHeads(it kern.Item, yh, y []float32, c, t, heads int) {
	i := it.GlobalID(0)
	if i >= len(y) {
		return
	}
	r, j := i/c, i%c
	seq, tok := r/t, r%t
	hd := c / heads
	h, e := j/hd, j%hd
	y[i] = yh[((seq*heads+h)*t+tok)*hd+e]
}

// rowRegs is the scores each work-item of Softmax keeps in registers:
// rows of up to Group*rowRegs positions are read once and written once.
const rowRegs = 4

// lowest is the least float32, the score of a position not attended to.
const lowest float32 = -3.4028234663852886e38

// Softmax turns each row of scores (l columns: one query's scores
// against positions 0 to l-1) into attention weights, causally: the
// query of row r is at position l-t+r%t and sees positions up to its
// own; the later ones get weight 0, up to the end of the row's causal
// block: queries come in blocks of blk rows, and the scores of a block
// past its last query's position are neither computed nor read, so
// they are left as they are. One work-group a row; each work-item
// holds rowRegs of the row's scores in registers and re-reads the rest
// (rows longer than Group*rowRegs), so that a short row is read once.
func Softmax(it kern.Item, att []float32, t, l, blk int) {
	tile := kern.Shared[float32](it, Group)
	lid := it.LocalID(0)
	base := it.GroupID(0) * l
	row := it.GroupID(0) % t
	valid := l - t + row + 1
	end := l - t + min(t, (row/blk+1)*blk)
	var v [rowRegs]float32
	m := lowest
	for k := range rowRegs {
		v[k] = lowest
		if j := lid + k*Group; j < valid {
			v[k] = att[base+j]
		}
		m = max(m, v[k])
	}
	for j := lid + rowRegs*Group; j < valid; j += Group {
		m = max(m, att[base+j])
	}
	m = groupMax(it, tile, m)
	var s float32
	for k := range rowRegs {
		v[k] = kern.Exp(v[k] - m) // 0 past the query's position
		s += v[k]
	}
	for j := lid + rowRegs*Group; j < valid; j += Group {
		e := kern.Exp(att[base+j] - m)
		att[base+j] = e
		s += e
	}
	inv := 1 / groupSum(it, tile, s)
	for k := range rowRegs {
		if j := lid + k*Group; j < end {
			att[base+j] = v[k] * inv
		}
	}
	for j := lid + rowRegs*Group; j < end; j += Group {
		if j < valid {
			att[base+j] *= inv
		} else {
			att[base+j] = 0
		}
	}
}

// ToF16 rounds the rows×cols matrix x, whose rows are ldx elements
// apart, into the packed float16 matrix h (nearest even): a product's
// input in half precision. One work-item an element.
func ToF16(it kern.Item, x []float32, h []kern.Float16, cols, ldx int) {
	i := it.GlobalID(0)
	if i < len(h) {
		h[i] = kern.F16(x[i/cols*ldx+i%cols])
	}
}

// FromF16 widens the float16 h into x: a product's output.
func FromF16(it kern.Item, h []kern.Float16, x []float32) {
	i := it.GlobalID(0)
	if i < len(x) {
		x[i] = h[i].Float32()
	}
}

// ToBF16 is ToF16 for bfloat16.
func ToBF16(it kern.Item, x []float32, h []kern.BFloat16, cols, ldx int) {
	i := it.GlobalID(0)
	if i < len(h) {
		h[i] = kern.BF16(x[i/cols*ldx+i%cols])
	}
}

// FromBF16 is FromF16 for bfloat16.
func FromBF16(it kern.Item, h []kern.BFloat16, x []float32) {
	i := it.GlobalID(0)
	if i < len(x) {
		x[i] = h[i].Float32()
	}
}
