package ur

import (
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/gour-dev/gour/trace"
)

// Layers, as the Unified Runtime's loader has them: switched on by
// environment or in code, and off by default, when they cost one atomic
// load on the launch path and nothing elsewhere that matters.
//
//	UR_ENABLE_LAYERS   UR_LAYER_TRACING, UR_LAYER_LEAK_CHECKING,
//	                   UR_LAYER_FULL_VALIDATION (leak checking here: ur
//	                   always validates parameters); separated by ';', ','
//	                   or spaces
//	GOUR_TRACE         the trace file (%p in it: the process id); set
//	                   alone it switches tracing on.
//	                   UR_LAYER_TRACING without it writes
//	                   gour-trace-PID.json in the current directory
//	GOUR_TRACE_DEVICE  0: do not turn profiling on for the queues made
//	                   while tracing (no device track then, except for
//	                   queues made with profiling)
//	GOUR_LEAK_CHECK    1: leak checking
//
// The environment is read once, when the program starts.

// LayerOptions selects layers in code: what the environment selects.
type LayerOptions struct {
	// Trace is the trace file's path; "" records no trace.
	Trace string
	// NoDeviceProfiling keeps queues made while tracing as they were
	// asked for; by default they profile, so that their commands appear
	// on their queue's track with their device times.
	NoDeviceProfiling bool
	// LeakCheck records every handle made from now on with where it was
	// made, until it is released; Leaks lists the others.
	LeakCheck bool
}

var (
	leakCheck  atomic.Bool
	traceNoDev atomic.Bool
)

func init() {
	opts, err := layersFromEnv(os.Getenv)
	if err != nil {
		fmt.Fprintf(os.Stderr, "gour: %v\n", err)
	}
	if opts.Trace == "" && !opts.LeakCheck {
		return
	}
	if err := EnableLayers(opts); err != nil {
		fmt.Fprintf(os.Stderr, "gour: %v; no trace is recorded\n", err)
	} else if opts.Trace != "" {
		fmt.Fprintf(os.Stderr, "gour: tracing to %s (ur.StopTrace or ur.CloseLayers ends it whole)\n", opts.Trace)
	}
}

// layersFromEnv reads the layer variables.
func layersFromEnv(getenv func(string) string) (LayerOptions, error) {
	var opts LayerOptions
	var bad []string
	tracing := false
	for _, name := range strings.FieldsFunc(getenv("UR_ENABLE_LAYERS"), func(r rune) bool {
		return r == ';' || r == ',' || r == ' ' || r == '\t'
	}) {
		switch name {
		case "UR_LAYER_TRACING":
			tracing = true
		case "UR_LAYER_LEAK_CHECKING", "UR_LAYER_FULL_VALIDATION":
			opts.LeakCheck = true
		case "UR_LAYER_PARAMETER_VALIDATION", "UR_LAYER_BOUNDS_CHECKING":
			// ur validates parameters always; bounds checking of kernels is not done.
		default:
			bad = append(bad, name)
		}
	}
	// %p is the process id: one file per process of a `go test ./...`.
	opts.Trace = strings.ReplaceAll(getenv("GOUR_TRACE"), "%p", strconv.Itoa(os.Getpid()))
	if tracing && opts.Trace == "" {
		opts.Trace = "gour-trace-" + strconv.Itoa(os.Getpid()) + ".json"
	}
	if v := getenv("GOUR_LEAK_CHECK"); v != "" && v != "0" {
		opts.LeakCheck = true
	}
	opts.NoDeviceProfiling = getenv("GOUR_TRACE_DEVICE") == "0"
	if len(bad) > 0 {
		return opts, fmt.Errorf("UR_ENABLE_LAYERS: unknown layers %s (known: UR_LAYER_TRACING, UR_LAYER_LEAK_CHECKING, UR_LAYER_FULL_VALIDATION)", strings.Join(bad, ", "))
	}
	return opts, nil
}

// EnableLayers switches layers on. Tracing starts a trace at opts.Trace
// (an error if one is being recorded or the file cannot be created: then
// nothing is traced); leak checking covers the handles made from now on.
func EnableLayers(opts LayerOptions) error {
	if opts.LeakCheck {
		leakCheck.Store(true)
	}
	if opts.Trace == "" {
		return nil
	}
	traceNoDev.Store(opts.NoDeviceProfiling)
	_, err := trace.Start(opts.Trace, trace.Options{})
	return err
}

// StartTrace records a trace to path: EnableLayers with only Trace.
func StartTrace(path string) error { return EnableLayers(LayerOptions{Trace: path}) }

// StopTrace reads the device times of the commands that completed, writes
// the end of the trace and closes it. Without it the trace ends, whole,
// at the last events written (every 200 ms), without the device times
// not yet read.
func StopTrace() error {
	if trace.Active() == nil {
		return nil
	}
	drainAll()
	return trace.Stop()
}

// CloseLayers is the call to defer in main when layers may be on: it
// stops the trace and, with leak checking on, writes the handles never
// released to stderr and returns them as an error. A Go program has no
// exit hook that could do this by itself.
//
//	func main() {
//		defer ur.CloseLayers()
//		...
//	}
func CloseLayers() error {
	errTrace := StopTrace()
	errLeaks := CheckLeaks()
	if errLeaks != nil {
		fmt.Fprintln(os.Stderr, errLeaks)
	}
	return errors.Join(errTrace, errLeaks)
}

// Leak is a handle never released, with where it was made.
type Leak struct {
	Kind  string // "Queue", "Mem", ...
	ID    uint64 // its id in traces
	Stack string // the creating call's stack, innermost first
}

func (l Leak) String() string {
	return fmt.Sprintf("%s #%d made at\n%s", l.Kind, l.ID, l.Stack)
}

type leakRecord struct {
	kind string
	pcs  [12]uintptr
	n    int
}

var leaks struct {
	mu   sync.Mutex
	live map[*object]*leakRecord
}

// LeakCheckEnabled reports whether leak checking is on.
func LeakCheckEnabled() bool { return leakCheck.Load() }

// Leaks lists the handles made while leak checking was on and never
// released (Release, or USM.Free), oldest first.
func Leaks() []Leak {
	leaks.mu.Lock()
	type rec struct {
		o *object
		r *leakRecord
	}
	var recs []rec
	for o, r := range leaks.live {
		recs = append(recs, rec{o, r})
	}
	leaks.mu.Unlock()
	slices.SortFunc(recs, func(a, b rec) int { return int(a.o.id.Load()) - int(b.o.id.Load()) })
	out := make([]Leak, len(recs))
	for i, r := range recs {
		out[i] = Leak{Kind: r.r.kind, ID: r.o.id.Load(), Stack: formatStack(r.r.pcs[:r.r.n])}
	}
	return out
}

// ForgetLeaks forgets the handles recorded so far: for a test that checks
// its own.
func ForgetLeaks() {
	leaks.mu.Lock()
	clear(leaks.live)
	leaks.mu.Unlock()
}

// CheckLeaks returns an error listing the handles never released, or nil.
func CheckLeaks() error {
	ls := Leaks()
	if len(ls) == 0 {
		return nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "gour: leak check: %d handles never released:\n", len(ls))
	WriteLeaks(&b, ls)
	return errors.New(strings.TrimRight(b.String(), "\n"))
}

// WriteLeaks writes leaks, one with its stack after another.
func WriteLeaks(w io.Writer, ls []Leak) {
	for _, l := range ls {
		fmt.Fprintf(w, "  %s #%d, made at:\n", l.Kind, l.ID)
		for _, line := range strings.Split(strings.TrimRight(l.Stack, "\n"), "\n") {
			fmt.Fprintf(w, "      %s\n", line)
		}
	}
}

func formatStack(pcs []uintptr) string {
	var b strings.Builder
	frames := runtime.CallersFrames(pcs)
	for {
		f, more := frames.Next()
		fmt.Fprintf(&b, "%s\n    %s:%d\n", f.Function, f.File, f.Line)
		if !more {
			break
		}
	}
	return b.String()
}

var nextID atomic.Uint64

// traceID returns the handle's id in traces and leak reports, given on
// first use.
func (o *object) traceID() uint64 {
	if o == nil {
		return 0
	}
	if id := o.id.Load(); id != 0 {
		return id
	}
	id := nextID.Add(1)
	if o.id.CompareAndSwap(0, id) {
		return id
	}
	return o.id.Load()
}

// created records a new handle of kind: where it was made, when leak
// checking is on, and its creation in the trace.
func (o *object) created(kind string) {
	if leakCheck.Load() {
		o.track(kind)
	}
	if r := trace.Active(); r != nil {
		var a trace.Args
		a.Uint("id", o.traceID())
		r.Instant("ur", "new "+kind, &a)
	}
}

//go:noinline
func (o *object) track(kind string) {
	rec := &leakRecord{kind: kind}
	// Skip runtime.Callers, track, created and the constructor's own
	// frame is kept: it names what was made.
	rec.n = runtime.Callers(3, rec.pcs[:])
	o.traceID()
	leaks.mu.Lock()
	if leaks.live == nil {
		leaks.live = make(map[*object]*leakRecord)
	}
	leaks.live[o] = rec
	leaks.mu.Unlock()
}

// releasedNow forgets a released handle in the leak check.
func (o *object) releasedNow() {
	if !leakCheck.Load() {
		return
	}
	leaks.mu.Lock()
	delete(leaks.live, o)
	leaks.mu.Unlock()
}
