package gpt2

import (
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strings"

	"github.com/gour-dev/gour/dtype"
	"github.com/nlpodyssey/safetensors"
)

// Weights are a GPT-2's parameters on the host, in float32, each matrix
// row-major with the shape GPT2LMHeadModel.state_dict() gives it (its
// Conv1D layers store input×output, so x·W needs no transpose). The
// output projection is the token embedding (tied), as in GPT-2.
type Weights struct {
	Config Config
	WTE    []float32 // token embedding, Vocab×Width; also the output projection
	WPE    []float32 // position embedding, Context×Width
	Layers []Layer
	LNFW   []float32 // the final layer norm's scale, Width
	LNFB   []float32 // and shift
}

// Layer is one transformer block's parameters.
type Layer struct {
	LN1W, LN1B   []float32 // Width
	AttnW, AttnB []float32 // Width×3·Width, 3·Width: queries, keys, values
	ProjW, ProjB []float32 // Width×Width, Width
	LN2W, LN2B   []float32 // Width
	FCW, FCB     []float32 // Width×4·Width, 4·Width
	FCProjW      []float32 // 4·Width×Width
	FCProjB      []float32 // Width
}

// tensor is one named parameter: where it lives in Weights and its shape.
type tensor struct {
	name  string
	shape []int
	data  *[]float32
}

// tensors lists every parameter under its state_dict name (without the
// "transformer." prefix of GPT2LMHeadModel), in the file's usual order.
func (w *Weights) tensors() []tensor {
	c := w.Config
	C := c.Width
	ts := []tensor{
		{"wte.weight", []int{c.Vocab, C}, &w.WTE},
		{"wpe.weight", []int{c.Context, C}, &w.WPE},
	}
	for i := range w.Layers {
		l, p := &w.Layers[i], fmt.Sprintf("h.%d.", i)
		ts = append(ts,
			tensor{p + "ln_1.weight", []int{C}, &l.LN1W},
			tensor{p + "ln_1.bias", []int{C}, &l.LN1B},
			tensor{p + "attn.c_attn.weight", []int{C, 3 * C}, &l.AttnW},
			tensor{p + "attn.c_attn.bias", []int{3 * C}, &l.AttnB},
			tensor{p + "attn.c_proj.weight", []int{C, C}, &l.ProjW},
			tensor{p + "attn.c_proj.bias", []int{C}, &l.ProjB},
			tensor{p + "ln_2.weight", []int{C}, &l.LN2W},
			tensor{p + "ln_2.bias", []int{C}, &l.LN2B},
			tensor{p + "mlp.c_fc.weight", []int{C, 4 * C}, &l.FCW},
			tensor{p + "mlp.c_fc.bias", []int{4 * C}, &l.FCB},
			tensor{p + "mlp.c_proj.weight", []int{4 * C, C}, &l.FCProjW},
			tensor{p + "mlp.c_proj.bias", []int{C}, &l.FCProjB},
		)
	}
	return append(ts,
		tensor{"ln_f.weight", []int{C}, &w.LNFW},
		tensor{"ln_f.bias", []int{C}, &w.LNFB},
	)
}

// count is the number of elements of shape.
func count(shape []int) int {
	n := 1
	for _, d := range shape {
		n *= d
	}
	return n
}

// Random makes weights for c as GPT2LMHeadModel's initialisation does
// (normal with standard deviation 0.02, the residual projections scaled
// by 1/√(2·Layers), biases 0, layer norms 1 and 0), from seed: the same
// seed, the same weights.
func Random(c Config, seed uint64) (*Weights, error) {
	if err := c.Check(); err != nil {
		return nil, err
	}
	w := &Weights{Config: c, Layers: make([]Layer, c.Layers)}
	r := rand.New(rand.NewPCG(seed, 0x67707432))
	for _, t := range w.tensors() {
		v := make([]float32, count(t.shape))
		switch {
		case strings.HasSuffix(t.name, "ln_1.weight"), strings.HasSuffix(t.name, "ln_2.weight"), t.name == "ln_f.weight":
			for i := range v {
				v[i] = 1
			}
		case strings.HasSuffix(t.name, ".bias"):
		default:
			std := 0.02
			if strings.HasSuffix(t.name, "c_proj.weight") {
				std /= math.Sqrt(2 * float64(c.Layers))
			}
			for i := range v {
				v[i] = float32(r.NormFloat64() * std)
			}
		}
		*t.data = v
	}
	return w, nil
}

// Load reads GPT-2 weights for c from a safetensors file, as
// GPT2LMHeadModel.save_pretrained writes it (model.safetensors): tensor
// names with or without the "transformer." prefix, float32, float16 or
// bfloat16 (read as float32). A tensor missing, misshapen or of another
// type is an ErrWeights naming it; tensors GPT-2 does not use (the
// attention's mask buffers, a tied lm_head.weight) are ignored.
func Load(path string, c Config) (*Weights, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("gpt2: %w", err)
	}
	return Decode(data, c)
}

// Decode is Load from the file's bytes.
func Decode(data []byte, c Config) (*Weights, error) {
	if err := c.Check(); err != nil {
		return nil, err
	}
	st, err := safetensors.Deserialize(data)
	if err != nil {
		return nil, fmt.Errorf("%w: not a safetensors file: %v", ErrWeights, err)
	}
	w := &Weights{Config: c, Layers: make([]Layer, c.Layers)}
	for _, t := range w.tensors() {
		v, ok := st.Tensor("transformer." + t.name)
		if !ok {
			if v, ok = st.Tensor(t.name); !ok {
				return nil, fmt.Errorf("%w: no tensor %s", ErrWeights, t.name)
			}
		}
		if *t.data, err = floats(v, t.shape); err != nil {
			return nil, fmt.Errorf("%w: %s: %v", ErrWeights, t.name, err)
		}
	}
	if v, ok := st.Tensor("lm_head.weight"); ok {
		head, err := floats(v, []int{c.Vocab, c.Width})
		if err != nil {
			return nil, fmt.Errorf("%w: lm_head.weight: %v", ErrWeights, err)
		}
		if !slices.Equal(head, w.WTE) {
			return nil, fmt.Errorf("%w: lm_head.weight differs from wte.weight: GPT-2 ties them", ErrWeights)
		}
	}
	return w, nil
}

// floats checks v's shape against want and converts its elements.
func floats(v safetensors.TensorView, want []int) ([]float32, error) {
	shape := v.Shape()
	if len(shape) != len(want) || !slices.EqualFunc(shape, want, func(a uint64, b int) bool { return a == uint64(b) }) {
		return nil, fmt.Errorf("shape %v, want %v", shape, want)
	}
	b, n := v.Data(), count(want)
	out := make([]float32, n)
	switch v.DType() {
	case safetensors.F32:
		for i := range out {
			out[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
		}
	case safetensors.F16:
		for i := range out {
			out[i] = dtype.Float16From(binary.LittleEndian.Uint16(b[2*i:]))
		}
	case safetensors.BF16:
		for i := range out {
			out[i] = dtype.BFloat16From(binary.LittleEndian.Uint16(b[2*i:]))
		}
	default:
		return nil, fmt.Errorf("element type %v: want F32, F16 or BF16", v.DType())
	}
	return out, nil
}

// Save writes w as a safetensors file of float32, float16 or bfloat16
// elements (rounded to nearest even) with GPT2LMHeadModel's tensor names,
// which Load and Hugging Face's from_pretrained read.
func (w *Weights) Save(out io.Writer, t dtype.Type) error {
	var st safetensors.DType
	switch t {
	case dtype.Float32:
		st = safetensors.F32
	case dtype.Float16:
		st = safetensors.F16
	case dtype.BFloat16:
		st = safetensors.BF16
	default:
		return fmt.Errorf("gpt2: Save as %v: want float32, float16 or bfloat16", t)
	}
	views := map[string]safetensors.TensorView{}
	for _, t := range w.tensors() {
		if len(*t.data) != count(t.shape) {
			return fmt.Errorf("%w: %s has %d elements, want %v", ErrWeights, t.name, len(*t.data), t.shape)
		}
		b := make([]byte, 0, st.Size()*uint64(len(*t.data)))
		for _, f := range *t.data {
			switch st {
			case safetensors.F32:
				b = binary.LittleEndian.AppendUint32(b, math.Float32bits(f))
			case safetensors.F16:
				b = binary.LittleEndian.AppendUint16(b, dtype.Float16Bits(f))
			default:
				b = binary.LittleEndian.AppendUint16(b, dtype.BFloat16Bits(f))
			}
		}
		shape := make([]uint64, len(t.shape))
		for i, d := range t.shape {
			shape[i] = uint64(d)
		}
		v, err := safetensors.NewTensorView(st, shape, b)
		if err != nil {
			return fmt.Errorf("gpt2: %s: %w", t.name, err)
		}
		views["transformer."+t.name] = v
	}
	return safetensors.SerializeToWriter(views, map[string]string{"format": "pt"}, out)
}
