package gpt2

import "errors"

var (
	// ErrConfig is a configuration no GPT-2 can have.
	ErrConfig = errors.New("gpt2: invalid configuration")
	// ErrWeights is a weights file without a tensor the configuration
	// needs, or with one of the wrong shape or type.
	ErrWeights = errors.New("gpt2: invalid weights")
	// ErrTokens is a token id outside the vocabulary, a batch whose
	// sequences differ in length, or a sequence longer than the state's
	// room.
	ErrTokens = errors.New("gpt2: invalid tokens")
	// ErrClosed is a call on a closed Model or a released State.
	ErrClosed = errors.New("gpt2: closed")
)
