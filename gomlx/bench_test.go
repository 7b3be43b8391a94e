package gomlx_test

import (
	"os"
	"strings"
	"testing"

	gc "github.com/gomlx/compute"
	"github.com/gomlx/compute/gobackend"
	"github.com/gomlx/compute/support/backendtest"

	"github.com/gour-dev/gour/gomlx"
)

// benchSyncEnv, set to 1, makes BenchmarkGour wait for the device after
// every Execute (syncBackend), so that it times each execution to its
// end rather than the pipelined throughput that GoMLX's suite measures.
const benchSyncEnv = "GOUR_BENCH_SYNC"

// BenchmarkGour runs GoMLX's backend benchmarks (backendtest's
// RunAllBenchmarks: Softmax, ScaledDotProductAttention, FusedActivation,
// Gelu, LayerNorm, Dense, QuantizedDense, DotGeneral, ConvGeneral) on the
// gour backend: on the device that GOMLX_BACKEND names where it names
// gour (GOMLX_BACKEND=gour:device=cuda:0), else on the default device.
// The suite skips a case whose graph the backend refuses with
// compute.ErrNotImplemented (an operation or dtype gour lacks).
//
// What the suite times is Execute of a compiled graph on inputs already on
// the device, and Finalize of its outputs, with no transfer. gour's
// Execute enqueues and returns, and Finalize releases in the queue's
// order, so by default nothing waits for the device: the time is the
// device's throughput where the queue holds back a host that runs ahead
// of it, and only the enqueueing where it does not (the last executions
// are never waited for). With GOUR_BENCH_SYNC=1 every Execute is followed
// by a wait for the device, timing each execution to its end, as JAX's
// block_until_ready after each call does (scripts/gomlx/jax_bench.py
// --sync; scripts/gomlx/run.sh uses both by default).
func BenchmarkGour(b *testing.B) {
	backend := newBenchBackend(b)
	if os.Getenv(benchSyncEnv) == "1" {
		gb, ok := backend.(*gomlx.Backend)
		if !ok {
			b.Fatalf("%s=1 needs the gour backend, got %T", benchSyncEnv, backend)
		}
		backend = &syncBackend{Backend: backend, wait: gb.Device().Wait}
	}
	backendtest.RunAllBenchmarks(b, backend)
}

// BenchmarkGoBackend runs the same benchmarks on GoMLX's pure-Go CPU
// backend (package gobackend, of the same compute module), the CPU
// reference: its Execute computes before it returns, so it is timed to the
// end either way.
func BenchmarkGoBackend(b *testing.B) {
	backend, err := gobackend.New("")
	if err != nil {
		b.Fatalf("go backend: %v", err)
	}
	b.Cleanup(backend.Finalize)
	backendtest.RunAllBenchmarks(b, backend)
}

// newBenchBackend returns the gour backend of GOMLX_BACKEND where that
// names gour, else gour on its default device; finalized at the
// benchmark's end.
func newBenchBackend(tb testing.TB) gc.Backend {
	tb.Helper()
	config := gomlx.BackendName
	if env := os.Getenv(gc.ConfigEnvVar); env == gomlx.BackendName || strings.HasPrefix(env, gomlx.BackendName+":") {
		config = env
	}
	backend, err := gc.NewWithConfig(config)
	if err != nil {
		tb.Fatalf("gour backend %q: %v", config, err)
	}
	tb.Cleanup(backend.Finalize)
	tb.Logf("%s", backend.Description())
	return backend
}

// syncBackend is a backend whose executables wait, after each Execute,
// for all the work enqueued on the device: it turns an asynchronous
// backend's Execute into one that returns when its outputs are computed.
type syncBackend struct {
	gc.Backend
	wait func() error
}

func (s *syncBackend) Builder(name string) gc.Builder {
	return &syncBuilder{Builder: s.Backend.Builder(name), wait: s.wait}
}

type syncBuilder struct {
	gc.Builder
	wait func() error
}

func (s *syncBuilder) Compile() (gc.Executable, error) {
	exec, err := s.Builder.Compile()
	if err != nil {
		return nil, err
	}
	return &syncExecutable{Executable: exec, wait: s.wait}, nil
}

type syncExecutable struct {
	gc.Executable
	wait func() error
}

func (s *syncExecutable) Execute(inputs []gc.Buffer, donate []bool, device gc.DeviceNum) ([]gc.Buffer, error) {
	outputs, err := s.Executable.Execute(inputs, donate, device)
	if err != nil {
		return nil, err
	}
	if err := s.wait(); err != nil {
		for _, o := range outputs {
			_ = o.Finalize()
		}
		return nil, err
	}
	return outputs, nil
}
