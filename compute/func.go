package compute

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"

	"github.com/gour-dev/gour/ur"
)

// Func is an element-wise function for Transform and ForEach: device
// source for the device contexts and a Go function for the CPU context.
// NewFunc makes one from hand-written sources; package compute/expr
// generates them from expressions. Algorithms use nothing but these
// methods, so any implementation plugs in.
//
// The device kernel, named Kernel(), has the signature
//
//	OpenCL C: __kernel void NAME(__global T* out, __global const T* in0, ..., T p0, ..., ulong n)
//	CUDA C:   extern "C" __global__ void NAME(T* out, const T* in0, ..., T p0, ..., unsigned long long n)
//
// with Inputs() array inputs and len(Params()) scalar parameters of the
// element type, in the order the Func defines (a generator sorts both by
// name). It computes out[i] for every i < n and must check i < n itself:
// the launch is rounded up to whole work-groups.
type Func[T Number] interface {
	// Key identifies the source: two Funcs with one Key have the same
	// kernels, so a built kernel is reused for both. Parameter values are
	// not part of it: changing them builds nothing.
	Key() string
	// Kernel is the kernel's name in the source.
	Kernel() string
	// Inputs is the number of array inputs.
	Inputs() int
	// Params are the values of the scalar parameters.
	Params() []T
	// Source returns the program's source for a backend: OpenCL C for
	// "opencl" and "level_zero" (which the program manager compiles to
	// SPIR-V), CUDA C for "cuda"; an error (wrapping
	// ur.ErrUnsupportedFeature) where there is none. A Device on Level
	// Zero whose Func answers "level_zero" with ur.ErrUnsupportedFeature
	// asks for "opencl" instead.
	Source(backend string) (string, error)
	// CPU computes out[lo:hi] from ins[k][lo:hi] and params: one chunk
	// of the CPU context, called on several goroutines at once for
	// disjoint chunks.
	CPU(out []T, ins [][]T, params []T, lo, hi int)
}

// CPUFunc is the Go side of a Func: it computes out[lo:hi].
type CPUFunc[T Number] func(out []T, ins [][]T, params []T, lo, hi int)

// SourceFunc is a Func of hand-written kernels: the escape hatch before
// generated code, and for what no generator writes.
type SourceFunc[T Number] struct {
	name    string
	inputs  int
	sources map[string]string
	cpu     CPUFunc[T]
	params  []T
	key     string
}

// NewFunc returns a Func whose kernel is called name, taking inputs array
// inputs, computed on the CPU by cpu and on devices by sources, keyed by
// backend ("opencl": OpenCL C, "cuda": CUDA C; "level_zero": OpenCL C
// for Level Zero alone, the "opencl" source being used there when it is
// missing). Either side may be missing (nil cpu, no source for a
// backend): using it there is an error, not a panic. The sources hold
// the kernel of the signature Func documents, for this T.
func NewFunc[T Number](name string, inputs int, cpu CPUFunc[T], sources map[string]string) (*SourceFunc[T], error) {
	if !isIdent(name) {
		return nil, fmt.Errorf("%w: kernel name %q is not a C identifier", ErrInvalid, name)
	}
	if inputs < 0 {
		return nil, fmt.Errorf("%w: %d inputs", ErrInvalid, inputs)
	}
	h := sha256.New()
	backends := make([]string, 0, len(sources))
	for b := range sources {
		backends = append(backends, b)
	}
	slices.Sort(backends)
	for _, b := range backends {
		fmt.Fprintf(h, "%d:%s%d:%s", len(b), b, len(sources[b]), sources[b])
	}
	key := fmt.Sprintf("compute/src/%s/%s/%d/%s", typeOf[T]().suffix, name, inputs, hex.EncodeToString(h.Sum(nil)[:12]))
	return &SourceFunc[T]{name: name, inputs: inputs, sources: sources, cpu: cpu, key: key}, nil
}

// With returns a copy of f with the scalar parameters' values (nil for a
// nil f, which Transform rejects).
func (f *SourceFunc[T]) With(params ...T) *SourceFunc[T] {
	if f == nil {
		return nil
	}
	g := *f
	g.params = slices.Clone(params)
	return &g
}

func (f *SourceFunc[T]) Key() string    { return f.key }
func (f *SourceFunc[T]) Kernel() string { return f.name }
func (f *SourceFunc[T]) Inputs() int    { return f.inputs }
func (f *SourceFunc[T]) Params() []T    { return f.params }

func (f *SourceFunc[T]) Source(backend string) (string, error) {
	if backend != "opencl" && backend != "cuda" && backend != "level_zero" {
		return "", errUnsupportedBackend(backend)
	}
	s, ok := f.sources[backend]
	if !ok && backend == "level_zero" {
		s, ok = f.sources["opencl"]
	}
	if !ok {
		return "", fmt.Errorf("compute: function %s has no %s source: %w", f.name, backend, ur.ErrUnsupportedFeature)
	}
	return s, nil
}

// CPU runs the Go function; without one it panics with an error
// wrapping ur.ErrUnsupportedFeature, which the CPU context recovers and
// returns.
func (f *SourceFunc[T]) CPU(out []T, ins [][]T, params []T, lo, hi int) {
	if f.cpu == nil {
		panic(fmt.Errorf("compute: function %s has no CPU function: %w", f.name, ur.ErrUnsupportedFeature))
	}
	f.cpu(out, ins, params, lo, hi)
}

func isIdent(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		if r != '_' && (r < 'a' || r > 'z') && (r < 'A' || r > 'Z') && (i == 0 || r < '0' || r > '9') {
			return false
		}
	}
	return !strings.HasPrefix(s, "gour_")
}
