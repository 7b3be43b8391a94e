package gpt2

import (
	"encoding/json"
	"fmt"
	"io"
)

// Config is a GPT-2 network's shape, as Hugging Face's GPT2Config names
// it in config.json.
type Config struct {
	Layers  int     `json:"n_layer"`
	Heads   int     `json:"n_head"`
	Width   int     `json:"n_embd"`      // the residual stream's width, C
	Context int     `json:"n_positions"` // the longest sequence, positions 0 to Context-1
	Vocab   int     `json:"vocab_size"`
	Eps     float32 `json:"layer_norm_epsilon"`
}

// Small is GPT-2 small, the 124M-parameter model: GPT2Config()'s
// defaults.
func Small() Config {
	return Config{Layers: 12, Heads: 12, Width: 768, Context: 1024, Vocab: 50257, Eps: 1e-5}
}

// ReadConfig reads a config.json as Hugging Face writes it; fields it
// does not set keep Small's values.
func ReadConfig(r io.Reader) (Config, error) {
	c := Small()
	if err := json.NewDecoder(r).Decode(&c); err != nil {
		return Config{}, fmt.Errorf("gpt2: config: %w", err)
	}
	return c, c.Check()
}

// HeadDim is the width of one attention head.
func (c Config) HeadDim() int { return c.Width / c.Heads }

// Check reports a configuration no GPT-2 can have.
func (c Config) Check() error {
	switch {
	case c.Layers < 1, c.Heads < 1, c.Width < 1, c.Context < 1, c.Vocab < 1:
		return fmt.Errorf("%w: layers %d, heads %d, width %d, context %d, vocabulary %d: each must be at least 1", ErrConfig, c.Layers, c.Heads, c.Width, c.Context, c.Vocab)
	case c.Width%c.Heads != 0:
		return fmt.Errorf("%w: width %d is not a multiple of the %d heads", ErrConfig, c.Width, c.Heads)
	case !(c.Eps > 0):
		return fmt.Errorf("%w: layer norm epsilon %g: want a positive number", ErrConfig, c.Eps)
	}
	return nil
}
