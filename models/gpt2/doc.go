// Package gpt2 runs GPT-2 — the architecture of Hugging Face's
// GPT2LMHeadModel, any size — on a gour device: a prompt's prefill in one
// batched pass, then decoding a token at a time through a key and value
// cache, with greedy or temperature/top-k sampling.
//
// Weights come from a safetensors file as save_pretrained writes it
// (Load, with the configuration of its config.json: ReadConfig), or are
// made (Random); nothing is downloaded. Tokens in and out are token ids:
// a user who wants text brings GPT-2's byte-pair encoding (its
// vocab.json and merges.txt) and a tokenizer of their choice.
//
// The forward pass is the network's matrix products through blas
// (cuBLAS on CUDA; strided batches for the attention's heads) and its
// other steps as Go kernels compiled by gokernel (embedding, layer norm
// fused with the residual add, GELU with its bias, the keys and values
// into the cache, the causal softmax). Weights.ForwardCPU is the same
// network in plain Go on the host, the reference the device is checked
// against.
//
// A Model holds the weights in device memory; a State is a batch of
// sequences with their caches. The network runs in float32; with
// Options.Precision float16 or bfloat16, its matrix products do (the
// linear layers' weights kept in that type, each product's input rounded
// to it and its output widened back), while the rest stays float32.
package gpt2
