// Command gpt2 runs a small GPT-2 with made-up weights on the default
// device and on the host, and checks that both generate the same tokens:
// the prompt's prefill in one pass, then a token at a time through the
// device's key and value caches. cmd/gpt2 runs real weights.
//
//	go run ./examples/gpt2
//	ONEAPI_DEVICE_SELECTOR=cuda:0 go run ./examples/gpt2
package main

import (
	"fmt"
	"io"
	"log"
	"os"
	"slices"

	_ "github.com/gour-dev/gour/adapters/all"
	"github.com/gour-dev/gour/models/gpt2"
	"github.com/gour-dev/gour/ur"
)

func main() {
	dev, err := ur.DefaultDevice()
	if err != nil {
		log.Fatal(err)
	}
	if err := run(os.Stdout, dev); err != nil {
		log.Fatal(err)
	}
}

// run generates 12 tokens on dev and on the host and prints them.
func run(w io.Writer, dev *ur.Device) error {
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

	// README: begin gpt2
	// Weights: made here; gpt2.Load reads a model.safetensors that
	// Hugging Face's save_pretrained wrote (with gpt2.ReadConfig for its
	// config.json).
	cfg := gpt2.Config{Layers: 2, Heads: 4, Width: 64, Context: 64, Vocab: 500, Eps: 1e-5}
	weights, err := gpt2.Random(cfg, 42)
	if err != nil {
		return err
	}
	model, err := gpt2.New(q, weights, gpt2.Options{})
	if err != nil {
		return err
	}
	defer model.Close()
	// A state is a batch of sequences with their key and value caches.
	state, err := model.NewState(1, cfg.Context, gpt2.StateOptions{})
	if err != nil {
		return err
	}
	defer state.Release()
	prompt := []int32{17, 301, 5, 42}
	tokens, err := state.Generate(prompt, 12, gpt2.Sampler{}) // greedy
	if err != nil {
		return err
	}
	// README: end gpt2

	host := slices.Clone(prompt)
	for range 12 {
		logits, err := weights.ForwardCPU(host, 1)
		if err != nil {
			return err
		}
		host = append(host, gpt2.Sampler{}.Pick(logits[len(logits)-cfg.Vocab:]))
	}
	if !slices.Equal(tokens, host[len(prompt):]) {
		return fmt.Errorf("the device generated %v, the host %v", tokens, host[len(prompt):])
	}
	fmt.Fprintf(w, "GPT-2 (%d layers, width %d) on %s and on the host: %v\n", cfg.Layers, cfg.Width, dev.Backend(), tokens)
	return nil
}
