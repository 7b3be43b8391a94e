// Command gpt2 runs GPT-2 on the default device (ONEAPI_DEVICE_SELECTOR
// picks another): it generates tokens from a prompt of token ids, checks
// its logits and greedy tokens against PyTorch's, and times prefill and
// decode.
//
//	gpt2 -dir DIR -prompt 464,2068,7586 -steps 20         generate
//	gpt2 -random tiny -prompt 1,2,3 -steps 8               made-up weights
//	gpt2 -dir DIR -compare -bench                          against PyTorch
//	gpt2 -dir DIR -bench -precision bfloat16               half-precision products
//
// DIR holds model.safetensors and config.json as save_pretrained writes
// them; with -compare and -bench also what scripts/gpt2/torch_reference.py
// writes there (PyTorch's logits, greedy tokens and times). Nothing is
// downloaded, and there is no tokenizer: tokens are ids.
package main

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"log"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	_ "github.com/gour-dev/gour/adapters/all"
	"github.com/gour-dev/gour/dtype"
	"github.com/gour-dev/gour/models/gpt2"
	"github.com/gour-dev/gour/ur"
)

func main() {
	dir := flag.String("dir", "", "directory with model.safetensors and config.json")
	random := flag.String("random", "", "made-up weights instead of -dir: small (GPT-2 124M) or tiny (2 layers, width 64)")
	prompt := flag.String("prompt", "", "comma-separated token ids to generate from")
	steps := flag.Int("steps", 16, "tokens to generate after -prompt")
	temperature := flag.Float64("temperature", 0, "sampling temperature (0: greedy)")
	topK := flag.Int("topk", 0, "sample from the k most likely tokens (0: all)")
	seed := flag.Uint64("seed", 1, "seed of the sampling")
	compare := flag.Bool("compare", false, "check the logits and greedy tokens against PyTorch's in -dir")
	bench := flag.Bool("bench", false, "time prefill (1x1024, 8x1024) and decode (after 128 tokens)")
	precision := flag.String("precision", "float32", "the matrix products' type: float32, float16 or bfloat16")
	block := flag.Int("causal-block", 0, "query rows of a block of a prompt's causal attention (0: the model's default)")
	flag.Parse()
	prec, ok := map[string]dtype.Type{"float32": dtype.Float32, "float16": dtype.Float16, "bfloat16": dtype.BFloat16}[*precision]
	if !ok {
		log.Fatalf("-precision %q: want float32, float16 or bfloat16", *precision)
	}
	if err := run(*dir, *random, *prompt, *steps, gpt2.Sampler{Temperature: *temperature, TopK: *topK, Rand: rand.New(rand.NewPCG(*seed, 0))}, gpt2.Options{Precision: prec, CausalBlock: *block}, *compare, *bench); err != nil {
		log.Fatal(err)
	}
}

func run(dir, random, prompt string, steps int, sm gpt2.Sampler, o gpt2.Options, compare, bench bool) error {
	w, err := weights(dir, random)
	if err != nil {
		return err
	}
	dev, err := ur.DefaultDevice()
	if err != nil {
		return err
	}
	ctx, err := ur.NewContext(dev)
	if err != nil {
		return err
	}
	defer ctx.Release()
	q, err := ctx.NewQueue(dev, ur.QueueProperties{})
	if err != nil {
		return err
	}
	defer q.Release()
	start := time.Now()
	m, err := gpt2.New(q, w, o)
	if err != nil {
		return err
	}
	defer m.Close()
	c := w.Config
	fmt.Printf("GPT-2 %d layers, %d heads, width %d, context %d, vocabulary %d on %s (%s, blas %s, %v products), ready in %v\n",
		c.Layers, c.Heads, c.Width, c.Context, c.Vocab, dev.Name(), dev.Backend(), m.BLAS(), m.Precision(), time.Since(start).Round(time.Millisecond))
	if prompt != "" {
		ids, err := parseIDs(prompt)
		if err != nil {
			return err
		}
		s, err := m.NewState(1, min(c.Context, len(ids)+steps), gpt2.StateOptions{})
		if err != nil {
			return err
		}
		defer s.Release()
		out, err := s.Generate(ids, steps, sm)
		if err != nil {
			return err
		}
		fmt.Println("tokens:", joinIDs(out))
	}
	if compare {
		if err := compareWithTorch(m, dir); err != nil {
			return err
		}
	}
	if bench {
		return benchmark(m, dir)
	}
	return nil
}

// weights reads dir's model or makes one.
func weights(dir, random string) (*gpt2.Weights, error) {
	switch random {
	case "small":
		return gpt2.Random(gpt2.Small(), 1)
	case "tiny":
		return gpt2.Random(gpt2.Config{Layers: 2, Heads: 4, Width: 64, Context: 256, Vocab: 1000, Eps: 1e-5}, 1)
	case "":
	default:
		return nil, fmt.Errorf("-random %q: want small or tiny", random)
	}
	if dir == "" {
		return nil, errors.New("no weights: give -dir or -random")
	}
	f, err := os.Open(filepath.Join(dir, "config.json"))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	c, err := gpt2.ReadConfig(f)
	if err != nil {
		return nil, err
	}
	return gpt2.Load(filepath.Join(dir, "model.safetensors"), c)
}

// compareWithTorch checks every position's logits of PyTorch's prompt
// and its greedy continuation against PyTorch's float32 run. With
// half-precision products the differences are reported, not checked,
// and also against PyTorch's run of the model in that type where
// torch_reference.py wrote one (ref_logits_<type>.bin).
func compareWithTorch(m *gpt2.Model, dir string) error {
	ids, err := readLE[int32](filepath.Join(dir, "ref_ids.bin"))
	if err != nil {
		return err
	}
	want, err := readLE[float32](filepath.Join(dir, "ref_logits.bin"))
	if err != nil {
		return err
	}
	greedy, err := readLE[int32](filepath.Join(dir, "ref_greedy.bin"))
	if err != nil {
		return err
	}
	s, err := m.NewState(1, len(ids)+len(greedy), gpt2.StateOptions{AllLogits: true})
	if err != nil {
		return err
	}
	defer s.Release()
	if err := s.Forward(ids); err != nil {
		return err
	}
	got, err := s.ReadLogits(nil)
	if err != nil {
		return err
	}
	worst, rel, err := logitsError(got, want)
	if err != nil {
		return err
	}
	s.Reset()
	tokens, err := s.Generate(ids, len(greedy), gpt2.Sampler{})
	if err != nil {
		return err
	}
	same := 0
	for same < len(tokens) && tokens[same] == greedy[same] {
		same++
	}
	half := m.Precision() != dtype.Float32
	fmt.Printf("logits of %d positions (%v products): max |gour - PyTorch float32| %.3g, %.3g of the logits' scale (target <= 1e-3 in float32)\n", len(ids), m.Precision(), worst, rel)
	fmt.Printf("greedy continuation: %d of %d tokens the same as PyTorch's float32\n", same, len(greedy))
	res := fmt.Sprintf("RESULT name=compare precision=%v max_abs=%.3g rel=%.3g greedy_same=%d greedy=%d", m.Precision(), worst, rel, same, len(greedy))
	if half {
		if theirs, err := readLE[float32](filepath.Join(dir, "ref_logits_"+m.Precision().String()+".bin")); err == nil {
			hw, hr, err := logitsError(theirs, want)
			if err != nil {
				return err
			}
			fmt.Printf("PyTorch's own %v run: max |PyTorch %v - PyTorch float32| %.3g, %.3g of the scale\n", m.Precision(), m.Precision(), hw, hr)
			res += fmt.Sprintf(" torch_half_max_abs=%.3g torch_half_rel=%.3g", hw, hr)
		}
	}
	fmt.Println(res)
	if !half && (!(rel <= 1e-3) || same != len(greedy)) {
		return fmt.Errorf("gour differs from PyTorch: relative error %.3g, greedy tokens the same up to %d of %d\ngour:    %s\nPyTorch: %s", rel, same, len(greedy), joinIDs(tokens), joinIDs(greedy))
	}
	return nil
}

// logitsError is the largest difference between got and want, and that
// relative to want's largest magnitude.
func logitsError(got, want []float32) (worst, rel float64, err error) {
	if len(got) != len(want) {
		return 0, 0, fmt.Errorf("%d logits, PyTorch's file has %d", len(got), len(want))
	}
	var scale float64
	for i := range want {
		scale = max(scale, math.Abs(float64(want[i])))
		worst = max(worst, math.Abs(float64(got[i]-want[i])))
	}
	return worst, worst / scale, nil
}

// benchmark times prefill of 1×1024 and 8×1024 tokens (every position's
// logits, as PyTorch's forward gives them) and decode after a 128-token
// prompt, the median of several runs, beside PyTorch's times where
// torch.json has them.
func benchmark(m *gpt2.Model, dir string) error {
	c := m.Config()
	var torch map[string]any
	if dir != "" {
		if b, err := os.ReadFile(filepath.Join(dir, "torch.json")); err == nil {
			if err := json.Unmarshal(b, &torch); err != nil {
				return fmt.Errorf("torch.json: %w", err)
			}
		}
	}
	ids, err := readLE[int32](filepath.Join(dir, "bench_ids.bin"))
	if err != nil || len(ids) < 8*1024 {
		r := rand.New(rand.NewPCG(1, 2))
		ids = make([]int32, 8*1024)
		for i := range ids {
			ids[i] = int32(r.IntN(c.Vocab))
		}
	}
	// PyTorch's times of a half-precision model carry the type's name.
	suffix := ""
	if p := m.Precision(); p != dtype.Float32 {
		suffix = "_" + p.String()
	}
	report := func(name string, ms float64, key string, tokens int) {
		key += suffix
		line := fmt.Sprintf("%-24s gour %8.3f ms  %8.0f tokens/s", name, ms, float64(tokens)/ms*1e3)
		res := fmt.Sprintf("RESULT name=%s%s gour_ms=%.4f", name, suffix, ms)
		if t, ok := torch[key].(float64); ok {
			line += fmt.Sprintf("   PyTorch %8.3f ms   gour/PyTorch time %.3f", t, ms/t)
			res += fmt.Sprintf(" torch_ms=%.4f ratio=%.4f", t, ms/t)
		}
		fmt.Println(line)
		fmt.Println(res)
	}
	T := min(1024, c.Context)
	for _, b := range []int{1, 8} {
		s, err := m.NewState(b, T, gpt2.StateOptions{AllLogits: true})
		if err != nil {
			return err
		}
		in := ids[:b*T]
		if T < 1024 {
			in = slices.Clone(ids[:b*T])
			for i := range in {
				in[i] %= int32(c.Vocab)
			}
		}
		ms, err := median(func() (time.Duration, error) {
			s.Reset()
			t0 := time.Now()
			if err := s.Forward(in); err != nil {
				return 0, err
			}
			err := m.Queue().Finish()
			return time.Since(t0), err
		}, map[int]int{1: 10, 8: 5}[b])
		s.Release()
		if err != nil {
			return err
		}
		report(fmt.Sprintf("prefill_%dx%d", b, T), ms, fmt.Sprintf("prefill_%dx1024_ms", b), b*T)
	}
	const promptLen, steps = 128, 128
	s, err := m.NewState(1, min(c.Context, promptLen+steps), gpt2.StateOptions{})
	if err != nil {
		return err
	}
	defer s.Release()
	var logits []float32
	prompt := ids[:min(promptLen, c.Context/2)]
	n := min(steps, c.Context-len(prompt)) - 1
	// Each token is a Forward, the logits' copy to the host and the
	// pick, as transformers' generate does it; the prompt's prefill and
	// its first token are left out.
	ms, err := median(func() (time.Duration, error) {
		s.Reset()
		if err := s.Forward(prompt); err != nil {
			return 0, err
		}
		if logits, err = s.ReadLogits(logits); err != nil {
			return 0, err
		}
		next := []int32{gpt2.Sampler{}.Pick(logits)}
		t0 := time.Now()
		for range n {
			if err := s.Forward(next); err != nil {
				return 0, err
			}
			if logits, err = s.ReadLogits(logits); err != nil {
				return 0, err
			}
			next[0] = gpt2.Sampler{}.Pick(logits)
		}
		return time.Since(t0), nil
	}, 3)
	if err != nil {
		return err
	}
	report(fmt.Sprintf("decode_after_%d", len(prompt)), ms/float64(n), "decode_ms_per_token", 1)
	return nil
}

// median runs f once to warm up, then runs more times, and returns the
// median of the times f measured, in milliseconds.
func median(f func() (time.Duration, error), runs int) (float64, error) {
	if _, err := f(); err != nil {
		return 0, err
	}
	var ms []float64
	for range runs {
		d, err := f()
		if err != nil {
			return 0, err
		}
		ms = append(ms, float64(d.Nanoseconds())/1e6)
	}
	sort.Float64s(ms)
	return ms[len(ms)/2], nil
}

func parseIDs(s string) ([]int32, error) {
	var ids []int32
	for f := range strings.SplitSeq(s, ",") {
		v, err := strconv.ParseInt(strings.TrimSpace(f), 10, 32)
		if err != nil {
			return nil, fmt.Errorf("-prompt: %w", err)
		}
		ids = append(ids, int32(v))
	}
	return ids, nil
}

func joinIDs(ids []int32) string {
	s := make([]string, len(ids))
	for i, v := range ids {
		s[i] = strconv.Itoa(int(v))
	}
	return strings.Join(s, ",")
}

// readLE reads a file of little-endian Ts, as numpy's tofile wrote them.
func readLE[T int32 | float32](path string) ([]T, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	out := make([]T, len(b)/4)
	return out, binary.Read(bytes.NewReader(b[:4*len(out)]), binary.LittleEndian, out)
}
