package gpt2

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
)

// Sampler picks the next token from a row of logits: the most likely
// (greedy) when Temperature is 0, otherwise a draw from the softmax of
// logits/Temperature over the TopK most likely (all with TopK 0).
type Sampler struct {
	Temperature float64
	TopK        int
	Rand        *rand.Rand // nil: a source seeded from the runtime
}

// Pick chooses a token from logits.
func (s Sampler) Pick(logits []float32) int32 {
	if s.Temperature <= 0 || s.TopK == 1 {
		best := 0
		for i, v := range logits {
			if v > logits[best] {
				best = i
			}
		}
		return int32(best)
	}
	idx := make([]int32, len(logits))
	for i := range idx {
		idx[i] = int32(i)
	}
	slices.SortStableFunc(idx, func(a, b int32) int {
		switch {
		case logits[a] > logits[b]:
			return -1
		case logits[a] < logits[b]:
			return 1
		}
		return 0
	})
	if s.TopK > 0 && s.TopK < len(idx) {
		idx = idx[:s.TopK]
	}
	top := float64(logits[idx[0]])
	p := make([]float64, len(idx))
	var sum float64
	for i, id := range idx {
		p[i] = math.Exp((float64(logits[id]) - top) / s.Temperature)
		sum += p[i]
	}
	r := rand.Float64
	if s.Rand != nil {
		r = s.Rand.Float64
	}
	u := r() * sum
	for i, v := range p {
		if u -= v; u < 0 {
			return idx[i]
		}
	}
	return idx[len(idx)-1]
}

// Generate runs prompt (the batch's sequences of equal length, one after
// the other) through the network and then steps more tokens, one at a
// time through the key and value caches, each picked by sm from its
// sequence's last logits; it returns the new tokens, batch×steps, sequence
// after sequence. The state must have room for the prompt and the steps.
func (s *State) Generate(prompt []int32, steps int, sm Sampler) ([]int32, error) {
	if steps < 0 {
		return nil, fmt.Errorf("%w: %d steps", ErrTokens, steps)
	}
	if len(prompt) > 0 && s.pos+len(prompt)/s.batch+steps > s.room {
		return nil, fmt.Errorf("%w: a prompt of %d tokens and %d steps after %d positions: more than the %d there is room for", ErrTokens, len(prompt)/s.batch, steps, s.pos, s.room)
	}
	out := make([]int32, s.batch*steps)
	next := make([]int32, s.batch)
	var logits []float32
	in := prompt
	for i := range steps {
		if err := s.Forward(in); err != nil {
			return nil, err
		}
		var err error
		if logits, err = s.ReadLogits(logits); err != nil {
			return nil, err
		}
		V, per := s.m.cfg.Vocab, s.rows/s.batch
		for b := range s.batch {
			row := (b*per + per - 1) * V
			next[b] = sm.Pick(logits[row : row+V])
			out[b*steps+i] = next[b]
		}
		in = next
	}
	return out, nil
}
