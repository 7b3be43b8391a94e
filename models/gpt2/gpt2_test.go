package gpt2_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	_ "github.com/gour-dev/gour/adapters/all"
	"github.com/gour-dev/gour/dtype"
	"github.com/gour-dev/gour/internal/harness/testenv"
	"github.com/gour-dev/gour/models/gpt2"
	"github.com/gour-dev/gour/models/gpt2/internal/kernels"
	"github.com/gour-dev/gour/programmgr"
	"github.com/gour-dev/gour/ur"
	"github.com/gour-dev/gour/ur/leaktest"
	"github.com/nlpodyssey/safetensors"
)

func TestMain(m *testing.M) { os.Exit(leaktest.Main(m)) }

// tiny is the configuration CI runs: 2 layers, width 64, 4 heads.
var tiny = gpt2.Config{Layers: 2, Heads: 4, Width: 64, Context: 32, Vocab: 97, Eps: 1e-5}

// tinyWeights are fixed random weights for tiny, with biases and layer
// norms made non-trivial so that a bias added in the wrong place shows.
func tinyWeights(t testing.TB) *gpt2.Weights {
	w, err := gpt2.Random(tiny, 7)
	if err != nil {
		t.Fatal(err)
	}
	other, err := gpt2.Random(tiny, 8)
	if err != nil {
		t.Fatal(err)
	}
	perturb := func(dst, src []float32, base float32) {
		for i := range dst {
			dst[i] = base + 5*src[i%len(src)]
		}
	}
	for i := range w.Layers {
		l, o := &w.Layers[i], &other.Layers[i]
		perturb(l.LN1W, o.AttnW, 1)
		perturb(l.LN1B, o.ProjW, 0)
		perturb(l.AttnB, o.FCW, 0)
		perturb(l.ProjB, o.FCProjW, 0)
		perturb(l.LN2W, o.AttnW[7:], 1)
		perturb(l.LN2B, o.FCW[3:], 0)
		perturb(l.FCB, o.AttnW[11:], 0)
		perturb(l.FCProjB, o.ProjW[5:], 0)
	}
	perturb(w.LNFW, other.WTE, 1)
	perturb(w.LNFB, other.WPE, 0)
	return w
}

// ids are n token ids of the tiny vocabulary.
func ids(n, seed int) []int32 {
	out := make([]int32, n)
	for i := range out {
		out[i] = int32((i*31 + seed*17 + 5) % tiny.Vocab)
	}
	return out
}

// model puts w on a device's queue, with a manager of the test's.
func model(t testing.TB, dev *ur.Device, w *gpt2.Weights, opts ...gpt2.Options) *gpt2.Model {
	ctx, q := testenv.ContextQueue(t, dev)
	mgr, err := programmgr.New(ctx, programmgr.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { mgr.Close() })
	var o gpt2.Options
	if len(opts) > 0 {
		o = opts[0]
	}
	o.Programs = mgr
	m, err := gpt2.New(q, w, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := m.Close(); err != nil {
			t.Error(err)
		}
	})
	return m
}

// devices are the devices that run kernels (the Level Zero test driver
// runs only its own: TestBuildLevelZero builds the model's there).
func devices(t *testing.T) []*ur.Device {
	var out []*ur.Device
	for _, d := range testenv.Devices(t) {
		if d.Backend() != "level_zero" {
			out = append(out, d)
		}
	}
	if len(out) == 0 {
		t.Skip("no device runs kernels")
	}
	return out
}

// compare fails unless got is within tol of want, relative to want's
// largest magnitude, and returns that relative error.
func compare(t *testing.T, what string, got, want []float32, tol float64) float64 {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d values, want %d", what, len(got), len(want))
	}
	var scale, worst float64
	for _, v := range want {
		scale = max(scale, math.Abs(float64(v)))
	}
	at := 0
	for i := range got {
		if d := math.Abs(float64(got[i] - want[i])); d > worst || math.IsNaN(d) {
			worst, at = d, i
		}
	}
	rel := worst / scale
	if !(rel <= tol) {
		t.Fatalf("%s: [%d] = %v, want %v: %.3g of the logits' scale %.3g, more than %g", what, at, got[at], want[at], rel, scale, tol)
	}
	return rel
}

// TestForwardMatchesCPU runs a batch of two prompts through the device
// and through the host's plain Go reference, every position's logits.
func TestForwardMatchesCPU(t *testing.T) {
	w := tinyWeights(t)
	const batch, n = 2, 9
	in := append(ids(n, 1), ids(n, 2)...)
	want, err := w.ForwardCPU(in, batch)
	if err != nil {
		t.Fatal(err)
	}
	for _, dev := range devices(t) {
		// The default causal block is longer than the prompt; 4 splits
		// it into blocks of 4, 4 and 1 query rows.
		for _, block := range []int{0, 4} {
			t.Run(fmt.Sprintf("%s/block%d", dev.Name(), block), func(t *testing.T) {
				m := model(t, dev, w, gpt2.Options{CausalBlock: block})
				s, err := m.NewState(batch, n, gpt2.StateOptions{AllLogits: true}) // filled to the last position
				if err != nil {
					t.Fatal(err)
				}
				defer s.Release()
				if err := s.Forward(in); err != nil {
					t.Fatal(err)
				}
				got, err := s.ReadLogits(nil)
				if err != nil {
					t.Fatal(err)
				}
				rel := compare(t, "logits", got, want, 1e-4)
				t.Logf("%s (blas %s): max error %.2g of the logits' scale", dev.Name(), m.BLAS(), rel)
				if s.Pos() != n || s.Rows() != batch*n {
					t.Errorf("Pos %d, Rows %d: want %d and %d", s.Pos(), s.Rows(), n, batch*n)
				}
			})
		}
	}
}

// TestHalfPrecision runs the products in float16 and bfloat16 against
// the float32 reference: the logits within the half types' rounding,
// and decode through the caches the same as prefill.
func TestHalfPrecision(t *testing.T) {
	w := tinyWeights(t)
	in := ids(12, 6)
	want, err := w.ForwardCPU(in, 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, dev := range devices(t) {
		for _, c := range []struct {
			prec dtype.Type
			tol  float64
		}{{dtype.Float16, 5e-3}, {dtype.BFloat16, 4e-2}} {
			t.Run(dev.Name()+"/"+c.prec.String(), func(t *testing.T) {
				if c.prec == dtype.Float16 && !dev.Info().FP16 {
					t.Skip("the device has no float16")
				}
				m := model(t, dev, w, gpt2.Options{Precision: c.prec})
				s, err := m.NewState(1, len(in), gpt2.StateOptions{AllLogits: true})
				if err != nil {
					t.Fatal(err)
				}
				if err := s.Forward(in); err != nil {
					t.Fatal(err)
				}
				got, err := s.ReadLogits(nil)
				if err != nil {
					t.Fatal(err)
				}
				rel := compare(t, "logits", got, want, c.tol)
				t.Logf("%v (blas %s): max error %.2g of the logits' scale", c.prec, m.BLAS(), rel)
				// Decode: the last position again, through the caches.
				s.Reset()
				if err := s.Forward(in[:len(in)-1]); err != nil {
					t.Fatal(err)
				}
				if err := s.Forward(in[len(in)-1:]); err != nil {
					t.Fatal(err)
				}
				last, err := s.ReadLogits(nil)
				if err != nil {
					t.Fatal(err)
				}
				compare(t, "decoded logits", last, got[len(got)-tiny.Vocab:], 1e-5)
			})
		}
	}
	_, q := testenv.ContextQueue(t, devices(t)[0])
	if _, err := gpt2.New(q, w, gpt2.Options{Precision: dtype.Int8}); !errors.Is(err, gpt2.ErrConfig) {
		t.Errorf("an int8 precision: %v, want ErrConfig", err)
	}
	if _, err := gpt2.New(q, w, gpt2.Options{CausalBlock: -1}); !errors.Is(err, gpt2.ErrConfig) {
		t.Errorf("a negative causal block: %v, want ErrConfig", err)
	}
}

// TestDecodeMatchesPrefill feeds a prompt a chunk at a time and then a
// token at a time through the caches: each step's last logits must be
// those of the whole sequence run at once. Causal blocks of 3 split the
// chunks, after cached positions.
func TestDecodeMatchesPrefill(t *testing.T) {
	w := tinyWeights(t)
	const batch = 2
	seqs := [][]int32{ids(20, 3), ids(20, 4)}
	for _, dev := range devices(t) {
		t.Run(dev.Name(), func(t *testing.T) {
			m := model(t, dev, w, gpt2.Options{CausalBlock: 3})
			s, err := m.NewState(batch, 20, gpt2.StateOptions{})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Release()
			var got []float32
			for _, step := range [][2]int{{0, 7}, {7, 12}, {12, 13}, {13, 14}, {14, 20}} {
				var in []int32
				for _, sq := range seqs {
					in = append(in, sq[step[0]:step[1]]...)
				}
				if err := s.Forward(in); err != nil {
					t.Fatal(err)
				}
				if got, err = s.ReadLogits(got); err != nil {
					t.Fatal(err)
				}
				var want []float32
				for _, sq := range seqs {
					all, err := w.ForwardCPU(sq[:step[1]], 1)
					if err != nil {
						t.Fatal(err)
					}
					want = append(want, all[len(all)-tiny.Vocab:]...)
				}
				compare(t, "logits after position "+strconv.Itoa(step[1]), got, want, 1e-4)
			}
		})
	}
}

// TestGenerateGreedy generates 10 tokens on the device, through the
// caches, and on the host by rerunning the whole sequence each step.
func TestGenerateGreedy(t *testing.T) {
	w := tinyWeights(t)
	prompt := ids(6, 5)
	seq := append([]int32(nil), prompt...)
	var want []int32
	for range 10 {
		logits, err := w.ForwardCPU(seq, 1)
		if err != nil {
			t.Fatal(err)
		}
		next := gpt2.Sampler{}.Pick(logits[len(logits)-tiny.Vocab:])
		want = append(want, next)
		seq = append(seq, next)
	}
	for _, dev := range devices(t) {
		t.Run(dev.Name(), func(t *testing.T) {
			m := model(t, dev, w)
			s, err := m.NewState(1, tiny.Context, gpt2.StateOptions{})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Release()
			got, err := s.Generate(prompt, 10, gpt2.Sampler{})
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, want) {
				t.Errorf("greedy tokens %v, the host's %v", got, want)
			}
			if _, err := s.Generate(nil, tiny.Context, gpt2.Sampler{}); !errors.Is(err, gpt2.ErrTokens) {
				t.Errorf("generating past the room: %v, want ErrTokens", err)
			}
		})
	}
}

// TestBadInput: tokens outside the vocabulary, uneven batches, too many
// tokens, a released state, a closed model.
func TestBadInput(t *testing.T) {
	w := tinyWeights(t)
	dev := devices(t)[0]
	m := model(t, dev, w)
	s, err := m.NewState(2, 8, gpt2.StateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for name, in := range map[string][]int32{
		"id past the vocabulary": {1, 2, 3, int32(tiny.Vocab)},
		"negative id":            {1, -2},
		"uneven batch":           {1, 2, 3},
		"empty":                  nil,
		"past the room":          ids(18, 1),
	} {
		if err := s.Forward(in); !errors.Is(err, gpt2.ErrTokens) {
			t.Errorf("%s: %v, want ErrTokens", name, err)
		}
	}
	if s.Pos() != 0 {
		t.Errorf("refused calls moved the position to %d", s.Pos())
	}
	if _, err := m.NewState(1, tiny.Context+1, gpt2.StateOptions{}); !errors.Is(err, gpt2.ErrTokens) {
		t.Errorf("a state longer than the context: %v", err)
	}
	if err := s.Release(); err != nil {
		t.Fatal(err)
	}
	if err := s.Forward([]int32{1, 2}); !errors.Is(err, gpt2.ErrClosed) {
		t.Errorf("Forward after Release: %v, want ErrClosed", err)
	}
	s2, err := m.NewState(1, 4, gpt2.StateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s2.Forward([]int32{1}); !errors.Is(err, gpt2.ErrClosed) {
		t.Errorf("Forward after the model's Close: %v, want ErrClosed", err)
	}
	if _, err := m.NewState(1, 4, gpt2.StateOptions{}); !errors.Is(err, gpt2.ErrClosed) {
		t.Errorf("NewState after Close: %v, want ErrClosed", err)
	}
}

// TestSaveLoad writes weights as safetensors and reads them back, also
// as float16 and bfloat16 files and with a tied lm_head.weight, and
// refuses broken files naming the tensor.
func TestSaveLoad(t *testing.T) {
	w := tinyWeights(t)
	var buf bytes.Buffer
	if err := w.Save(&buf, dtype.Float32); err != nil {
		t.Fatal(err)
	}
	back, err := gpt2.Decode(buf.Bytes(), tiny)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(back.Layers[1].FCProjW, w.Layers[1].FCProjW) || !slices.Equal(back.WTE, w.WTE) {
		t.Error("float32 weights read back differ")
	}
	for _, ty := range []dtype.Type{dtype.Float16, dtype.BFloat16} {
		var half bytes.Buffer
		if err := w.Save(&half, ty); err != nil {
			t.Fatal(err)
		}
		back, err := gpt2.Decode(half.Bytes(), tiny)
		if err != nil {
			t.Fatal(err)
		}
		for i, v := range w.Layers[0].AttnW {
			want := dtype.Float16From(dtype.Float16Bits(v))
			if ty == dtype.BFloat16 {
				want = dtype.BFloat16From(dtype.BFloat16Bits(v))
			}
			if got := back.Layers[0].AttnW[i]; got != want {
				t.Fatalf("%v: AttnW[%d] read back as %v, want %v", ty, i, got, want)
			}
		}
	}
	if err := w.Save(&bytes.Buffer{}, dtype.Int32); err == nil {
		t.Error("Save as int32 did not fail")
	}
	for name, tc := range map[string]struct {
		file []byte
		want string
	}{
		"not safetensors":   {[]byte("hello"), "not a safetensors file"},
		"missing tensor":    {rewrite(t, buf.Bytes(), "transformer.h.1.mlp.c_fc.bias", "transformer.h.1.mlp.c_fc.bias_x", "", nil), "no tensor h.1.mlp.c_fc.bias"},
		"misshapen tensor":  {rewrite(t, buf.Bytes(), "transformer.ln_f.bias", "", "", []int{8, 8}), "ln_f.bias: shape [8 8], want [64]"},
		"integer tensor":    {rewrite(t, buf.Bytes(), "transformer.wpe.weight", "", "I32", nil), "wpe.weight: element type I32"},
		"untied lm_head":    {withHead(t, buf.Bytes(), 1), "lm_head.weight differs"},
		"tied lm_head":      {withHead(t, buf.Bytes(), 0), ""},
		"wrong layer count": {buf.Bytes(), ""},
	} {
		c := tiny
		if name == "wrong layer count" {
			c.Layers = 3
			tc.want = "no tensor h.2."
		}
		_, err := gpt2.Decode(tc.file, c)
		if tc.want == "" {
			if err != nil {
				t.Errorf("%s: %v", name, err)
			}
			continue
		}
		if !errors.Is(err, gpt2.ErrWeights) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want ErrWeights naming %q", name, err, tc.want)
		}
	}
	if _, err := gpt2.Decode(buf.Bytes(), gpt2.Config{Layers: 1, Heads: 3, Width: 64, Context: 8, Vocab: 9, Eps: 1e-5}); !errors.Is(err, gpt2.ErrConfig) {
		t.Errorf("width not a multiple of the heads: %v, want ErrConfig", err)
	}
	if _, err := gpt2.Load(t.TempDir()+"/missing.safetensors", tiny); err == nil || !os.IsNotExist(errors.Unwrap(err)) {
		t.Errorf("a missing file: %v", err)
	}
}

// rewrite edits one tensor's entry of a safetensors file's JSON header:
// renames it, changes its element type, or its shape (same byte count).
func rewrite(t *testing.T, file []byte, name, rename, dtype string, shape []int) []byte {
	t.Helper()
	n := binary.LittleEndian.Uint64(file)
	header := string(file[8 : 8+n])
	i := strings.Index(header, `"`+name+`"`)
	if i < 0 {
		t.Fatalf("no %s in the header", name)
	}
	end := i + strings.Index(header[i:], "}")
	entry := header[i:end]
	switch {
	case rename != "":
		entry = strings.Replace(entry, name, rename, 1)
	case dtype != "":
		entry = strings.Replace(entry, `"F32"`, `"`+dtype+`"`, 1)
	default:
		s := strings.Index(entry, `"shape":[`)
		e := s + strings.Index(entry[s:], "]")
		var dims []string
		for _, d := range shape {
			dims = append(dims, strconv.Itoa(d))
		}
		entry = entry[:s] + `"shape":[` + strings.Join(dims, ",") + entry[e:]
	}
	header = header[:i] + entry + header[end:]
	for len(header)%8 != 0 { // the header stays padded as the format asks
		header += " "
	}
	out := binary.LittleEndian.AppendUint64(nil, uint64(len(header)))
	out = append(out, header...)
	return append(out, file[8+n:]...)
}

// withHead is file with an lm_head.weight added: the token embedding
// (tied) or that skewed by one.
func withHead(t *testing.T, file []byte, skew float32) []byte {
	t.Helper()
	st, err := safetensors.Deserialize(file)
	if err != nil {
		t.Fatal(err)
	}
	views := map[string]safetensors.TensorView{}
	for _, v := range st.Tensors() {
		views[v.Name] = v.TensorView
	}
	wte := views["transformer.wte.weight"]
	head := append([]byte(nil), wte.Data()...)
	if skew != 0 {
		binary.LittleEndian.PutUint32(head, math.Float32bits(math.Float32frombits(binary.LittleEndian.Uint32(head))+skew))
	}
	if views["lm_head.weight"], err = safetensors.NewTensorView(wte.DType(), wte.Shape(), head); err != nil {
		t.Fatal(err)
	}
	out, err := safetensors.Serialize(views, nil)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestBuildLevelZero builds the model's kernels for Level Zero devices,
// through SPIR-V (the test driver runs only its own kernels).
func TestBuildLevelZero(t *testing.T) {
	var devs []*ur.Device
	for _, d := range testenv.Devices(t) {
		if d.Backend() == "level_zero" {
			devs = append(devs, d)
		}
	}
	if len(devs) == 0 {
		t.Skip("no Level Zero device")
	}
	for _, dev := range devs {
		ctx, _ := testenv.ContextQueue(t, dev)
		mgr, err := programmgr.New(ctx, programmgr.Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer mgr.Close()
		if err := kernels.Module.Build(context.Background(), mgr, dev); err != nil {
			t.Errorf("%s: %v", dev.Name(), err)
		}
	}
}
