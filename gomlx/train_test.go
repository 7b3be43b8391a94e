package gomlx_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	gc "github.com/gomlx/compute"
	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/compute/gobackend"
	"github.com/gomlx/compute/shapes"
)

// mlpConfig is the size of a two-layer perceptron, in → hidden (tanh) → 1,
// trained by full-batch gradient descent on a mean squared error: the
// model of TestTrainMLP and BenchmarkTrainStep.
type mlpConfig struct {
	Batch, In, Hidden int
	LR                float32
	Seed              uint64
}

func (c mlpConfig) String() string { return fmt.Sprintf("%dx%dx%d", c.Batch, c.In, c.Hidden) }

// mlpParams are the model's parameters, row-major: w1 [In, Hidden],
// b1 [Hidden], w2 [Hidden, 1], b2 [1].
type mlpParams struct{ w1, b1, w2, b2 []float32 }

// flat lists the parameters in the order of the step graph's parameters
// and outputs.
func (p mlpParams) flat() [][]float32 { return [][]float32{p.w1, p.b1, p.w2, p.b2} }

func (c mlpConfig) paramShapes() []shapes.Shape {
	return []shapes.Shape{
		shapes.Make(dtypes.Float32, c.In, c.Hidden),
		shapes.Make(dtypes.Float32, c.Hidden),
		shapes.Make(dtypes.Float32, c.Hidden, 1),
		shapes.Make(dtypes.Float32, 1),
	}
}

// mlpData generates the data set and the initial parameters from c.Seed:
// x of normal entries, targets y = sin(2·x·u) for a random unit vector u
// (a smooth function the model can fit), and the weights of a layer with
// n inputs normal with variance 1/n, the biases zero.
func mlpData(c mlpConfig) (x, y []float32, p mlpParams) {
	rng := rand.New(rand.NewPCG(c.Seed, 1))
	normal := func(n int, std float64) []float32 {
		v := make([]float32, n)
		for i := range v {
			v[i] = float32(rng.NormFloat64() * std)
		}
		return v
	}
	u := normal(c.In, 1)
	var norm float64
	for _, ui := range u {
		norm += float64(ui) * float64(ui)
	}
	x = normal(c.Batch*c.In, 1)
	y = make([]float32, c.Batch)
	for i := range y {
		var dot float64
		for j := range c.In {
			dot += float64(x[i*c.In+j]) * float64(u[j])
		}
		y[i] = float32(math.Sin(2 * dot / math.Sqrt(norm)))
	}
	p = mlpParams{
		w1: normal(c.In*c.Hidden, 1/math.Sqrt(float64(c.In))),
		b1: make([]float32, c.Hidden),
		w2: normal(c.Hidden, 1/math.Sqrt(float64(c.Hidden))),
		b2: make([]float32, 1),
	}
	return x, y, p
}

// graphError carries an operation's error out of buildTrainStep's
// graph construction, which panics with it to stop at the first error.
type graphError struct{ err error }

// buildTrainStep compiles one step of training as a single graph: the
// forward pass, the loss, the gradients (the chain rule written out as
// graph operations) and the update p ← p − lr·∂loss/∂p. Its parameters are
// w1, b1, w2, b2, x [Batch, In], y [Batch, 1]; its outputs the updated
// w1, b1, w2, b2 and the loss of the parameters it was given, a scalar:
//
//	h = tanh(x·w1 + b1)        out = h·w2 + b2
//	loss = Σ (out − y)² / Batch
//	δout = 2 (out − y) / Batch
//	∂w2 = hᵀ·δout              ∂b2 = Σ_batch δout
//	δh = (δout·w2ᵀ) ⊙ (1 − h²)
//	∂w1 = xᵀ·δh                ∂b1 = Σ_batch δh
//
// Every broadcast is explicit (BroadcastInDim) so that the graph is the
// same on every backend.
func buildTrainStep(backend gc.Backend, c mlpConfig) (exec gc.Executable, err error) {
	builder := backend.Builder("mlp_train_step")
	f := builder.Main()
	defer func() {
		if r := recover(); r != nil {
			ge, ok := r.(graphError)
			if !ok {
				panic(r)
			}
			exec, err = nil, ge.err
		}
	}()
	must := func(v gc.Value, err error) gc.Value {
		if err != nil {
			panic(graphError{err})
		}
		return v
	}
	f32 := func(dims ...int) shapes.Shape { return shapes.Make(dtypes.Float32, dims...) }
	// scalar is the constant v broadcast to shape s.
	scalar := func(v float32, s shapes.Shape) gc.Value {
		return must(f.BroadcastInDim(must(f.Constant([]float32{v})), s, nil))
	}
	// matmul contracts axis ca of a with axis cb of b.
	matmul := func(a gc.Value, ca int, b gc.Value, cb int) gc.Value {
		return must(f.DotGeneral(a, []int{ca}, nil, b, []int{cb}, nil, gc.DotGeneralConfig{}))
	}

	var params []gc.Value
	for i, s := range append(c.paramShapes(), f32(c.Batch, c.In), f32(c.Batch, 1)) {
		params = append(params, must(f.Parameter(fmt.Sprintf("p%d", i), s, nil)))
	}
	w1, b1, w2, b2, x, y := params[0], params[1], params[2], params[3], params[4], params[5]
	hidden, out := f32(c.Batch, c.Hidden), f32(c.Batch, 1)

	// Forward.
	h := must(f.Tanh(must(f.Add(matmul(x, 1, w1, 0), must(f.BroadcastInDim(b1, hidden, []int{1}))))))
	pred := must(f.Add(matmul(h, 1, w2, 0), must(f.BroadcastInDim(b2, out, []int{1}))))
	diff := must(f.Sub(pred, y))
	loss := must(f.Mul(must(f.ReduceSum(must(f.Mul(diff, diff)), 0, 1)), scalar(1/float32(c.Batch), f32())))

	// Backward.
	dOut := must(f.Mul(diff, scalar(2/float32(c.Batch), out)))
	dW2 := matmul(h, 0, dOut, 0)
	dB2 := must(f.ReduceSum(dOut, 0))
	dH := must(f.Mul(matmul(dOut, 1, w2, 1), must(f.Sub(scalar(1, hidden), must(f.Mul(h, h))))))
	dW1 := matmul(x, 0, dH, 0)
	dB1 := must(f.ReduceSum(dH, 0))

	// Update.
	update := func(p, g gc.Value, s shapes.Shape) gc.Value {
		return must(f.Sub(p, must(f.Mul(g, scalar(c.LR, s)))))
	}
	ps := c.paramShapes()
	outputs := []gc.Value{
		update(w1, dW1, ps[0]), update(b1, dB1, ps[1]),
		update(w2, dW2, ps[2]), update(b2, dB2, ps[3]),
		loss,
	}
	if err := f.Return(outputs, nil); err != nil {
		return nil, err
	}
	return builder.Compile()
}

// trainer runs the compiled step on a backend, keeping the parameters on
// the device between steps: they are donated to each step and replaced by
// its outputs.
type trainer struct {
	exec   gc.Executable
	params []gc.Buffer // w1, b1, w2, b2
	x, y   gc.Buffer
	donate []bool
}

func newTrainer(backend gc.Backend, c mlpConfig, x, y []float32, p mlpParams) (*trainer, error) {
	exec, err := buildTrainStep(backend, c)
	if err != nil {
		return nil, err
	}
	tr := &trainer{exec: exec, donate: []bool{true, true, true, true, false, false}}
	for i, s := range c.paramShapes() {
		buf, err := backend.BufferFromFlatData(0, p.flat()[i], s)
		if err != nil {
			tr.release()
			return nil, err
		}
		tr.params = append(tr.params, buf)
	}
	if tr.x, err = backend.BufferFromFlatData(0, x, shapes.Make(dtypes.Float32, c.Batch, c.In)); err == nil {
		tr.y, err = backend.BufferFromFlatData(0, y, shapes.Make(dtypes.Float32, c.Batch, 1))
	}
	if err != nil {
		tr.release()
		return nil, err
	}
	return tr, nil
}

// step runs one step and returns its loss buffer (the loss before the
// update), the caller's to read or finalize.
func (tr *trainer) step() (gc.Buffer, error) {
	inputs := append(append([]gc.Buffer(nil), tr.params...), tr.x, tr.y)
	outputs, err := tr.exec.Execute(inputs, tr.donate, 0)
	if err != nil {
		tr.params = nil // donated even where Execute fails
		return nil, err
	}
	tr.params = outputs[:4]
	return outputs[4], nil
}

// loss runs one step and reads its loss back.
func (tr *trainer) loss() (float32, error) {
	buf, err := tr.step()
	if err != nil {
		return 0, err
	}
	defer func() { _ = buf.Finalize() }()
	l := make([]float32, 1)
	err = buf.ToFlatData(l)
	return l[0], err
}

// read downloads the current parameters.
func (tr *trainer) read(c mlpConfig) (mlpParams, error) {
	var flat [4][]float32
	for i, s := range c.paramShapes() {
		flat[i] = make([]float32, s.Size())
		if err := tr.params[i].ToFlatData(flat[i]); err != nil {
			return mlpParams{}, err
		}
	}
	return mlpParams{w1: flat[0], b1: flat[1], w2: flat[2], b2: flat[3]}, nil
}

func (tr *trainer) release() {
	for _, b := range append(tr.params, tr.x, tr.y) {
		if b != nil {
			_ = b.Finalize()
		}
	}
	tr.exec.Finalize()
}

// hostLoss is the model's loss in float64 on the host, for checking the
// graph's gradients by finite differences.
func hostLoss(c mlpConfig, x, y []float32, p [][]float64) float64 {
	w1, b1, w2, b2 := p[0], p[1], p[2], p[3]
	var loss float64
	for i := range c.Batch {
		out := b2[0]
		for k := range c.Hidden {
			a := b1[k]
			for j := range c.In {
				a += float64(x[i*c.In+j]) * w1[j*c.Hidden+k]
			}
			out += math.Tanh(a) * w2[k]
		}
		d := out - float64(y[i])
		loss += d * d
	}
	return loss / float64(c.Batch)
}

// trainTestConfig is small enough for the race detector on PoCL's CPU
// device in a few seconds.
var trainTestConfig = mlpConfig{Batch: 128, In: 16, Hidden: 64, LR: 0.1, Seed: 42}

// TestTrainMLP trains the two-layer perceptron on gour and on GoMLX's
// pure-Go backend, the step compiled once as one graph with its gradients
// written out (buildTrainStep), and checks that the first step's
// gradients are the loss's (central finite differences of hostLoss, in
// float64), that the two backends' loss curves agree to float32 rounding,
// and that the loss falls.
func TestTrainMLP(t *testing.T) {
	const steps = 60
	c := trainTestConfig
	x, y, p0 := mlpData(c)

	goBackend, err := gobackend.New("")
	if err != nil {
		t.Fatalf("go backend: %v", err)
	}
	t.Cleanup(goBackend.Finalize)
	backends := []struct {
		name    string
		backend gc.Backend
	}{{"gour", newBackend(t)}, {"gobackend", goBackend}}

	curves := make([][]float32, len(backends))
	for bi, be := range backends {
		start := time.Now()
		tr, err := newTrainer(be.backend, c, x, y, p0)
		if err != nil {
			t.Fatalf("%s: %v", be.name, err)
		}
		for s := range steps {
			l, err := tr.loss()
			if err != nil {
				tr.release()
				t.Fatalf("%s: step %d: %v", be.name, s, err)
			}
			curves[bi] = append(curves[bi], l)
			if s == 0 {
				p1, err := tr.read(c)
				if err != nil {
					tr.release()
					t.Fatalf("%s: %v", be.name, err)
				}
				checkGradients(t, be.name, c, x, y, p0, p1)
			}
		}
		tr.release()
		t.Logf("%s: loss %.5f → %.5f in %d steps (%v, compilation included)",
			be.name, curves[bi][0], curves[bi][steps-1], steps, time.Since(start).Round(time.Millisecond))
	}

	gour, ref := curves[0], curves[1]
	want0 := hostLoss(c, x, y, toFloat64(p0.flat()))
	if math.Abs(float64(gour[0])-want0) > 1e-5*want0 {
		t.Errorf("gour: initial loss %v, host float64 %v", gour[0], want0)
	}
	for s := range steps {
		if d := math.Abs(float64(gour[s] - ref[s])); d > 1e-4*float64(ref[s])+1e-6 {
			t.Errorf("step %d: loss on gour %v, on gobackend %v", s, gour[s], ref[s])
		}
	}
	if gour[steps-1] > gour[0]/2 {
		t.Errorf("gour: loss fell from %v only to %v in %d steps", gour[0], gour[steps-1], steps)
	}
}

// checkGradients compares the gradient that one step applied, (p0 −
// p1)/lr, with central finite differences of the float64 loss at p0, on a
// few entries of each parameter.
func checkGradients(t *testing.T, name string, c mlpConfig, x, y []float32, p0, p1 mlpParams) {
	t.Helper()
	const eps = 1e-4
	names := []string{"w1", "b1", "w2", "b2"}
	base := toFloat64(p0.flat())
	for pi, after := range p1.flat() {
		for _, i := range slices.Compact([]int{0, len(after) / 2, len(after) - 1}) {
			orig := base[pi][i]
			base[pi][i] = orig + eps
			up := hostLoss(c, x, y, base)
			base[pi][i] = orig - eps
			down := hostLoss(c, x, y, base)
			base[pi][i] = orig
			want := (up - down) / (2 * eps)
			got := (float64(p0.flat()[pi][i]) - float64(after[i])) / float64(c.LR)
			if math.Abs(got-want) > 1e-3*math.Abs(want)+1e-4 {
				t.Errorf("%s: ∂loss/∂%s[%d] = %v, finite differences %v", name, names[pi], i, got, want)
			}
		}
	}
}

func toFloat64(ps [][]float32) [][]float64 {
	out := make([][]float64, len(ps))
	for i, p := range ps {
		out[i] = make([]float64, len(p))
		for j, v := range p {
			out[i][j] = float64(v)
		}
	}
	return out
}

// BenchmarkTrainStep times a step of training (buildTrainStep) with the
// parameters kept on the device, on gour (the device of GOMLX_BACKEND
// where it names gour, else the default) and on GoMLX's pure-Go backend,
// for the test's small model and a wider one. A step's loss is not read
// back; the parameters of the last step are, inside the timing, so that
// every step is timed to its end. scripts/gomlx/jax_bench.py times the
// same step in JAX.
func BenchmarkTrainStep(b *testing.B) {
	configs := []mlpConfig{
		trainTestConfig,
		{Batch: 4096, In: 256, Hidden: 1024, LR: 0.01, Seed: 42},
	}
	for _, name := range []string{"gour", "gobackend"} {
		b.Run(name, func(b *testing.B) {
			var backend gc.Backend
			if name == "gour" {
				backend = newBenchBackend(b)
			} else {
				var err error
				if backend, err = gobackend.New(""); err != nil {
					b.Fatalf("go backend: %v", err)
				}
				b.Cleanup(backend.Finalize)
			}
			for _, c := range configs {
				b.Run(c.String(), func(b *testing.B) { benchTrainStep(b, backend, c) })
			}
		})
	}
}

func benchTrainStep(b *testing.B, backend gc.Backend, c mlpConfig) {
	x, y, p := mlpData(c)
	tr, err := newTrainer(backend, c, x, y, p)
	if err != nil {
		b.Fatal(err)
	}
	defer tr.release()
	last := make([]float32, 1)
	for range 3 { // warm-up: kernels built, memory pooled
		l, err := tr.step()
		if err == nil {
			err = l.Finalize()
		}
		if err != nil {
			b.Fatal(err)
		}
	}
	// A loop over b.N rather than b.Loop, which stops the timer when it
	// ends: the read that waits for the last step is timed too.
	b.ResetTimer()
	for range b.N {
		l, err := tr.step()
		if err == nil {
			err = l.Finalize()
		}
		if err != nil {
			b.Fatal(err)
		}
	}
	if err := tr.params[3].ToFlatData(last); err != nil {
		b.Fatal(err)
	}
}
