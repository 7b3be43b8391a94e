package kernels

import (
	"math"
	"slices"
	"testing"

	"github.com/gour-dev/gour/gokernel"
	"github.com/gour-dev/gour/gokernel/kern"
	"github.com/gour-dev/gour/ur"
)

// TestSoftmaxOnCPU runs Softmax as Go, a goroutine per work-item with
// real barriers (under -race, the race detector checks them), on rows
// shorter and longer than the scores a work-item keeps in registers,
// against a plain causal softmax; the scores past a row's causal block
// stay as they were.
func TestSoftmaxOnCPU(t *testing.T) {
	for _, sh := range []struct{ t, l, blk int }{{3, 7, 3}, {5, 9, 2}, {2, Group*rowRegs + 77, 2}, {6, Group*rowRegs + 77, 4}} {
		rows := 2 * sh.t // two heads
		att := make([]float32, rows*sh.l)
		for i := range att {
			att[i] = float32(math.Sin(float64(i)*0.37)) * 4
		}
		want := slices.Clone(att)
		for r := range rows {
			row, valid := att[r*sh.l:(r+1)*sh.l], sh.l-sh.t+r%sh.t+1
			end := sh.l - sh.t + min(sh.t, (r%sh.t/sh.blk+1)*sh.blk)
			clear(want[r*sh.l+valid : r*sh.l+end])
			m := math.Inf(-1)
			for _, v := range row[:valid] {
				m = math.Max(m, float64(v))
			}
			var s float64
			for _, v := range row[:valid] {
				s += math.Exp(float64(v) - m)
			}
			for j := range valid {
				want[r*sh.l+j] = float32(math.Exp(float64(row[j])-m) / s)
			}
		}
		err := gokernel.RunCPU(ur.Range1D(uint64(rows*Group)).WithLocal(Group), func(it kern.Item) { Softmax(it, att, sh.t, sh.l, sh.blk) })
		if err != nil {
			t.Fatal(err)
		}
		for i := range att {
			if math.Abs(float64(att[i]-want[i])) > 1e-6 {
				t.Fatalf("t %d, l %d, block %d: [%d] = %v, want %v", sh.t, sh.l, sh.blk, i, att[i], want[i])
			}
		}
	}
}

// TestLayerNormOnCPU runs LayerNorm as Go with the residual add, on a
// row wider than a work-group.
func TestLayerNormOnCPU(t *testing.T) {
	const rows, c = 3, Group + 45
	x, d, bias, w, b := make([]float32, rows*c), make([]float32, rows*c), make([]float32, c), make([]float32, c), make([]float32, c)
	for i := range x {
		x[i], d[i] = float32(math.Cos(float64(i))*3+5), float32(math.Sin(float64(i)))
	}
	for j := range c {
		bias[j], w[j], b[j] = float32(j%7)*0.1, 1+float32(j%5)*0.2, float32(j%3)*0.5
	}
	want := make([]float32, rows*c)
	sum := append([]float32(nil), x...)
	for r := range rows {
		var mean, v float64
		for j := range c {
			sum[r*c+j] += d[r*c+j] + bias[j]
			mean += float64(sum[r*c+j])
		}
		mean /= c
		for j := range c {
			v += (float64(sum[r*c+j]) - mean) * (float64(sum[r*c+j]) - mean)
		}
		for j := range c {
			want[r*c+j] = float32((float64(sum[r*c+j])-mean)/math.Sqrt(v/c+1e-5))*w[j] + b[j]
		}
	}
	y := make([]float32, rows*c)
	err := gokernel.RunCPU(ur.Range1D(rows*Group).WithLocal(Group), func(it kern.Item) { LayerNorm(it, x, d, bias, w, b, y, c, true, 1e-5) })
	if err != nil {
		t.Fatal(err)
	}
	for i := range y {
		if math.Abs(float64(y[i]-want[i])) > 1e-4 || x[i] != sum[i] {
			t.Fatalf("[%d]: y %v, want %v; x %v, want %v", i, y[i], want[i], x[i], sum[i])
		}
	}
}
