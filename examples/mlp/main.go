// Command mlp trains a small multilayer perceptron to tell two
// interleaved spirals apart, with package compute alone: matrix products
// (MatMul), a bias added to every row and a softmax written with
// broadcasting Transforms, row maxima and sums (ReduceAxis), the
// backward pass and the update written as expressions. It trains on the
// CPU context and on the default device (a device context, when there is
// an OpenCL or CUDA one), prints the loss as it falls, the accuracy, and
// the time per epoch of each, and fails if the loss ends above the
// threshold.
//
//	go run ./examples/mlp
//	ONEAPI_DEVICE_SELECTOR=cuda:0 go run ./examples/mlp -points 4096 -hidden 256
//
// An epoch is one full-batch gradient step (with momentum) over every
// point: forward, softmax cross-entropy, backward, update; the loss
// comes back to the host once per epoch, the only transfer.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"math"
	"math/rand/v2"
	"os"
	"time"

	_ "github.com/gour-dev/gour/adapters/all"
	"github.com/gour-dev/gour/compute"
	"github.com/gour-dev/gour/ur"
)

// config is a training run.
type config struct {
	Points    int     // per class
	Hidden    int     // units in each of the two hidden layers
	Epochs    int     // full-batch steps
	Rate      float32 // learning rate
	Momentum  float32
	Threshold float32 // the loss to reach
	Every     int     // print the loss every Every epochs (0: never)
}

var defaultConfig = config{Points: 1024, Hidden: 64, Epochs: 1500, Rate: 0.1, Momentum: 0.9, Threshold: 0.05, Every: 250}

func main() {
	cfg := defaultConfig
	flag.IntVar(&cfg.Points, "points", cfg.Points, "points per spiral")
	flag.IntVar(&cfg.Hidden, "hidden", cfg.Hidden, "units per hidden layer")
	flag.IntVar(&cfg.Epochs, "epochs", cfg.Epochs, "full-batch epochs")
	flag.IntVar(&cfg.Every, "every", cfg.Every, "print the loss every N epochs (0: never)")
	cpuOnly := flag.Bool("cpu", false, "train on the CPU context only")
	deviceOnly := flag.Bool("device", false, "train on the device only")
	flag.Parse()

	var ctxs []compute.Context
	if !*deviceOnly {
		ctxs = append(ctxs, compute.NewCPU(0))
	}
	if !*cpuOnly {
		dev, err := ur.DefaultDevice()
		switch {
		case err == nil && (dev.Backend() == "opencl" || dev.Backend() == "cuda"):
			d, err := compute.NewDevice(dev)
			if err != nil {
				log.Fatal(err)
			}
			defer d.Release()
			ctxs = append(ctxs, d)
		case *deviceOnly:
			log.Fatalf("no OpenCL or CUDA device: %v", err)
		}
	}
	failed := false
	for _, ctx := range ctxs {
		r, err := train(os.Stdout, ctx, cfg)
		if err != nil {
			log.Fatalf("%v: %v", ctx, err)
		}
		if r.Loss >= cfg.Threshold {
			failed = true
		}
	}
	if failed {
		os.Exit(1)
	}
}

// result is what a training run reached.
type result struct {
	Loss     float32
	Accuracy float64
	PerEpoch time.Duration // the epochs' wall time over their number, the first (which builds the kernels) left out
}

// spirals returns two interleaved spirals of n points each, 1.5 turns
// from the centre, with a little noise: x [2n, 2], y one-hot [2n, 2].
func spirals(n int) (x, y []float32) {
	r := rand.New(rand.NewPCG(7, 11))
	x, y = make([]float32, 0, 4*n), make([]float32, 0, 4*n)
	for c := range 2 {
		for i := range n {
			t := 3 * math.Pi * float64(i) / float64(n)
			rad := 0.1 + t/(3*math.Pi)
			a := t + float64(c)*math.Pi + r.NormFloat64()*0.1
			x = append(x, float32(rad*math.Cos(a)), float32(rad*math.Sin(a)))
			y = append(y, float32(1-c), float32(c))
		}
	}
	return x, y
}

// layer is a dense layer's parameters, gradients and velocities.
type layer struct {
	w, b, dw, db, vw, vb *compute.Array[float32]
	in, out              int
}

// The network's functions, written once as expressions.
var (
	reluBias = mustExpr("a = max(z + b, 0)", nil)                           // z [N, H], b [H]: a bias row on every row
	addBias  = mustExpr("l = z + b", nil)                                   // the output layer's logits
	logSoft  = mustExpr("o = l - m - log(s)", nil)                          // l [N, C], m and s [N, 1]: log-softmax
	expShift = mustExpr("e = exp(l - m)", nil)                              // m [N, 1]
	gradOut  = mustExpr("g = (exp(o) - y) * k", map[string]float32{"k": 1}) // softmax − one-hot, over N
	reluBack = mustExpr("d = a > 0 ? g : 0", nil)                           // through the ReLU
	momentum = mustExpr("v = m*v - r*g", map[string]float32{"m": 0, "r": 0})
	step     = mustExpr("w = w + v", nil)
)

func mustExpr(src string, params map[string]float32) *compute.ExprFunc[float32] {
	f, err := compute.Expr(src, params)
	if err != nil {
		panic(err)
	}
	return f
}

// train trains the network on ctx with cfg and prints its progress to w.
func train(w io.Writer, ctx compute.Context, cfg config) (res result, err error) {
	const classes = 2
	n := 2 * cfg.Points
	xs, ys := spirals(cfg.Points)
	var arrays []*compute.Array[float32]
	arr := func(data []float32, shape ...int) *compute.Array[float32] {
		var a *compute.Array[float32]
		var e error
		if data != nil {
			a, e = compute.FromSlice(ctx, data, shape...)
		} else {
			a, e = compute.Zeros[float32](ctx, shape...)
		}
		err = errors.Join(err, e)
		arrays = append(arrays, a)
		return a
	}
	defer func() {
		for _, a := range arrays {
			a.Release()
		}
	}()
	x, y := arr(xs, n, 2), arr(ys, n, classes)
	// He initialisation, the same on every context.
	rng := rand.New(rand.NewPCG(1, 2))
	sizes := []int{2, cfg.Hidden, cfg.Hidden, classes}
	layers := make([]*layer, len(sizes)-1)
	for i := range layers {
		in, out := sizes[i], sizes[i+1]
		ws := make([]float32, in*out)
		for j := range ws {
			ws[j] = float32(rng.NormFloat64() * math.Sqrt(2/float64(in)))
		}
		layers[i] = &layer{
			w: arr(ws, in, out), b: arr(nil, out), dw: arr(nil, in, out), db: arr(nil, out),
			vw: arr(nil, in, out), vb: arr(nil, out), in: in, out: out,
		}
	}
	// Activations and their gradients: acts[0] is x.
	acts := []*compute.Array[float32]{x, arr(nil, n, cfg.Hidden), arr(nil, n, cfg.Hidden)}
	grads := []*compute.Array[float32]{nil, arr(nil, n, cfg.Hidden), arr(nil, n, cfg.Hidden)}
	z := arr(nil, n, cfg.Hidden)
	logits, logp, g := arr(nil, n, classes), arr(nil, n, classes), arr(nil, n, classes)
	mx, sum, e := arr(nil, n, 1), arr(nil, n, 1), arr(nil, n, classes)
	if err != nil {
		return res, err
	}
	grad, err := gradOut.With(map[string]float32{"k": 1 / float32(n)})
	if err != nil {
		return res, err
	}
	mom, err := momentum.With(map[string]float32{"m": cfg.Momentum, "r": cfg.Rate})
	if err != nil {
		return res, err
	}

	epoch := func() (float32, error) {
		// README: begin mlp
		// Forward: a = relu(a·W + b) through the hidden layers, then
		// the logits and a log-softmax, row by row.
		for i, l := range layers[:len(layers)-1] {
			if err := compute.MatMul(ctx, z, acts[i], l.w); err != nil {
				return 0, err
			}
			if err := compute.Transform(ctx, reluBias, acts[i+1], l.b, z); err != nil { // b [H] on every row
				return 0, err
			}
		}
		last := layers[len(layers)-1]
		if err := compute.MatMul(ctx, logits, acts[len(acts)-1], last.w); err != nil {
			return 0, err
		}
		if err := compute.Transform(ctx, addBias, logits, last.b, logits); err != nil {
			return 0, err
		}
		if err := compute.ReduceAxis(ctx, mx, logits, 1, compute.Max[float32]()); err != nil { // row maxima [N, 1]
			return 0, err
		}
		if err := compute.Transform(ctx, expShift, e, logits, mx); err != nil {
			return 0, err
		}
		if err := compute.ReduceAxis(ctx, sum, e, 1, compute.Sum[float32]()); err != nil { // row sums [N, 1]
			return 0, err
		}
		if err := compute.Transform(ctx, logSoft, logp, logits, mx, sum); err != nil {
			return 0, err
		}
		// README: end mlp
		// The cross-entropy: −Σ y·log p / N, the one value read back.
		dot, err := compute.Dot(ctx, y, logp)
		if err != nil {
			return 0, err
		}
		// Backward: the softmax's gradient, then each layer's.
		if err := compute.Transform(ctx, grad, g, logp, y); err != nil {
			return 0, err
		}
		up := g
		for i := len(layers) - 1; i >= 0; i-- {
			l := layers[i]
			// dW = aᵀ·g, db = the column sums of g
			if err := compute.MatMulWith(ctx, l.dw, acts[i], up, compute.MatMulOptions{TransA: true}); err != nil {
				return 0, err
			}
			if err := compute.ReduceAxis(ctx, l.db, up, 0, compute.Sum[float32]()); err != nil {
				return 0, err
			}
			if i > 0 { // g·Wᵀ, through the ReLU
				if err := compute.MatMulWith(ctx, grads[i], up, l.w, compute.MatMulOptions{TransB: true}); err != nil {
					return 0, err
				}
				if err := compute.Transform(ctx, reluBack, grads[i], acts[i], grads[i]); err != nil {
					return 0, err
				}
				up = grads[i]
			}
		}
		for _, l := range layers {
			for _, p := range [][3]*compute.Array[float32]{{l.w, l.dw, l.vw}, {l.b, l.db, l.vb}} {
				if err := compute.Transform(ctx, mom, p[2], p[1], p[2]); err != nil { // v = m·v − r·g
					return 0, err
				}
				if err := compute.Transform(ctx, step, p[0], p[2], p[0]); err != nil {
					return 0, err
				}
			}
		}
		return -dot / float32(n), nil
	}

	fmt.Fprintf(w, "%v: %d points, 2-%d-%d-2, %d epochs\n", ctx, n, cfg.Hidden, cfg.Hidden, cfg.Epochs)
	var start time.Time
	for ep := range cfg.Epochs {
		if ep == 1 {
			start = time.Now() // after the first epoch, which builds the kernels
		}
		loss, err := epoch()
		if err != nil {
			return res, fmt.Errorf("epoch %d: %w", ep, err)
		}
		if math.IsNaN(float64(loss)) {
			return res, fmt.Errorf("epoch %d: the loss is NaN", ep)
		}
		res.Loss = loss
		if cfg.Every > 0 && (ep%cfg.Every == 0 || ep == cfg.Epochs-1) {
			fmt.Fprintf(w, "  epoch %5d  loss %.4f\n", ep, loss)
		}
	}
	if cfg.Epochs > 1 {
		res.PerEpoch = time.Since(start) / time.Duration(cfg.Epochs-1)
	}
	// The accuracy, on the host: the most likely class of every point.
	lp, err := logp.ToSlice()
	if err != nil {
		return res, err
	}
	right := 0
	for i := range n {
		if (lp[2*i+1] > lp[2*i]) == (ys[2*i+1] == 1) {
			right++
		}
	}
	res.Accuracy = float64(right) / float64(n)
	verdict := "below"
	if res.Loss >= cfg.Threshold {
		verdict = "NOT below"
	}
	fmt.Fprintf(w, "%v: loss %.4f (%s the threshold %.2f), accuracy %.1f%%, %.3f ms per epoch\n",
		ctx, res.Loss, verdict, cfg.Threshold, 100*res.Accuracy, float64(res.PerEpoch.Microseconds())/1e3)
	return res, nil
}
