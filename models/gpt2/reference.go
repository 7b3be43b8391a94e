package gpt2

import (
	"fmt"
	"math"
	"runtime"
	"sync"
)

// ForwardCPU runs the whole network on the host in plain Go, from
// scratch for every call (no cache), and returns the logits of every
// position: batch×t rows of Vocab. ids holds batch sequences of t tokens
// each, one after the other. It is the reference the device's forward
// pass is checked against, written as directly as the architecture
// reads, and it is slow.
func (w *Weights) ForwardCPU(ids []int32, batch int) ([]float32, error) {
	c := w.Config
	t, err := checkIDs(c, ids, batch, 0, c.Context)
	if err != nil {
		return nil, err
	}
	C, H, D := c.Width, c.Heads, c.HeadDim()
	rows := batch * t
	x := make([]float32, rows*C)
	for r := range rows {
		tok, pos := int(ids[r]), r%t
		for j := range C {
			x[r*C+j] = w.WTE[tok*C+j] + w.WPE[pos*C+j]
		}
	}
	ln := make([]float32, rows*C)
	y := make([]float32, rows*C)
	for i := range w.Layers {
		l := &w.Layers[i]
		layerNormCPU(ln, x, l.LN1W, l.LN1B, C, c.Eps)
		qkv := matMulCPU(ln, l.AttnW, l.AttnB, rows, C, 3*C)
		scale := float32(1 / math.Sqrt(float64(D)))
		att := make([]float32, t)
		for b := range batch {
			for h := range H {
				for qi := range t {
					q := qkv[(b*t+qi)*3*C+h*D:]
					m := float32(math.Inf(-1))
					for kj := 0; kj <= qi; kj++ {
						k := qkv[(b*t+kj)*3*C+C+h*D:]
						var s float32
						for e := range D {
							s += q[e] * k[e]
						}
						att[kj] = s * scale
						m = max(m, att[kj])
					}
					var sum float32
					for kj := 0; kj <= qi; kj++ {
						att[kj] = float32(math.Exp(float64(att[kj] - m)))
						sum += att[kj]
					}
					out := y[(b*t+qi)*C+h*D:]
					for e := range D {
						var s float32
						for kj := 0; kj <= qi; kj++ {
							s += att[kj] * qkv[(b*t+kj)*3*C+2*C+h*D+e]
						}
						out[e] = s / sum
					}
				}
			}
		}
		proj := matMulCPU(y, l.ProjW, l.ProjB, rows, C, C)
		for j := range x {
			x[j] += proj[j]
		}
		layerNormCPU(ln, x, l.LN2W, l.LN2B, C, c.Eps)
		fc := matMulCPU(ln, l.FCW, l.FCB, rows, C, 4*C)
		for j, v := range fc {
			fc[j] = float32(0.5 * float64(v) * (1 + math.Tanh(math.Sqrt(2/math.Pi)*(float64(v)+0.044715*math.Pow(float64(v), 3)))))
		}
		proj = matMulCPU(fc, l.FCProjW, l.FCProjB, rows, 4*C, C)
		for j := range x {
			x[j] += proj[j]
		}
	}
	layerNormCPU(ln, x, w.LNFW, w.LNFB, C, c.Eps)
	logits := make([]float32, rows*c.Vocab)
	parallelRows(rows, func(r int) {
		for v := range c.Vocab {
			var s float32
			for j := range C {
				s += ln[r*C+j] * w.WTE[v*C+j]
			}
			logits[r*c.Vocab+v] = s
		}
	})
	return logits, nil
}

// layerNormCPU normalises each row of x (n columns) into y.
func layerNormCPU(y, x, w, b []float32, n int, eps float32) {
	for r := 0; r < len(x)/n; r++ {
		row := x[r*n : (r+1)*n]
		var mean, v float64
		for _, e := range row {
			mean += float64(e)
		}
		mean /= float64(n)
		for _, e := range row {
			v += (float64(e) - mean) * (float64(e) - mean)
		}
		inv := 1 / math.Sqrt(v/float64(n)+float64(eps))
		for j, e := range row {
			y[r*n+j] = float32((float64(e)-mean)*inv)*w[j] + b[j]
		}
	}
}

// matMulCPU is x·w + b for x rows×k and w k×n.
func matMulCPU(x, w, b []float32, rows, k, n int) []float32 {
	out := make([]float32, rows*n)
	parallelRows(rows, func(r int) {
		o := out[r*n : (r+1)*n]
		copy(o, b)
		for i := range k {
			a := x[r*k+i]
			for j, wv := range w[i*n : (i+1)*n] {
				o[j] += a * wv
			}
		}
	})
	return out
}

// parallelRows calls f for every row, spread over the host's cores.
func parallelRows(rows int, f func(r int)) {
	var wg sync.WaitGroup
	workers := min(rows, runtime.GOMAXPROCS(0))
	for g := range workers {
		wg.Go(func() {
			for r := g; r < rows; r += workers {
				f(r)
			}
		})
	}
	wg.Wait()
}

// checkIDs checks batch sequences of equal length in ids, each token in
// the vocabulary, that fit from position past within room positions, and
// returns their length.
func checkIDs(c Config, ids []int32, batch, past, room int) (int, error) {
	if batch < 1 || len(ids) == 0 || len(ids)%batch != 0 {
		return 0, fmt.Errorf("%w: %d ids for a batch of %d: want the same positive number of tokens for each sequence", ErrTokens, len(ids), batch)
	}
	t := len(ids) / batch
	if past+t > room {
		return 0, fmt.Errorf("%w: %d tokens after %d: more than the %d positions there is room for", ErrTokens, t, past, room)
	}
	for i, id := range ids {
		if id < 0 || int(id) >= c.Vocab {
			return 0, fmt.Errorf("%w: id %d at %d is outside the vocabulary of %d", ErrTokens, id, i, c.Vocab)
		}
	}
	return t, nil
}
