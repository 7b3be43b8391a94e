// Package gour is the root of gour, a Unified Runtime for Go: one API
// over the OpenCL, CUDA and Level Zero drivers (package ur), a program
// manager that builds device code once (programmgr, cache), vendor
// libraries on ur's queues (blas, collectives), a runtime of arrays
// above (compute, compute/expr), kernels written in Go (gokernel) and
// the models and backends built on them (models/gpt2; the gomlx module).
//
// The package holds no code. Its test checks the layering that
// docs/design.md draws: every package of the module stands on a floor,
// and imports point down or across a floor, never up.
package gour
