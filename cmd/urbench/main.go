package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/pprof"
	"slices"
	"strings"

	"github.com/gour-dev/gour/cmd/internal/cli"
	_ "github.com/gour-dev/gour/drivers" // every adapter, and the remote tier's Redis store
	"github.com/gour-dev/gour/internal/dl"
	"github.com/gour-dev/gour/ur"
)

// A benchmark's command: its flags and usage, and the run that reads the
// flags once they are parsed.
type benchmark struct {
	name    string
	summary string // its line in urbench's usage
	command func() (*cli.Command, func(io.Writer) error)
}

var benchmarks = []benchmark{
	{"launch", "the cost of a kernel launch through gour, alone or against C in this process", launchCommand},
	{"jit", "building a large PTX module with the driver's JIT vs loading the cubin handed back", jitCommand},
	{"diskcache", "a new process's first GetKernel: cold, the driver's cache warm, gour's cache warm", diskcacheCommand},
	{"remotecache", "the persistent cache's remote tier (Redis): a remote hit vs cold and local, single flight, server down", remotecacheCommand},
	{"bundle", "a new process's first GetBundleKernel: the AOT cubin vs PTX cold and from gour's cache", bundleCommand},
	{"copy", "host to device, device to host and device to device bandwidth through gour, checked", copyCommand},
	{"memory", "pool allocations, pinned copies, copy/kernel overlap and pointer launches, against C", memoryCommand},
	{"graph", "launches with their arguments, command-buffer replay and 64 goroutines on one kernel, against C", graphCommand},
	{"compute", "package compute against hand-written baselines: transform, reduce, dispatch, CPU, first use, task sequences", computeCommand},
	{"blas", "package blas's GEMM: TFLOP/s per type, own kernels against the vendor library, the cost of a small call", blasCommand},
	{"gonum", "gonum's Dgemm through gonumblas on the device, host slices in and out, against gonum's native implementation", gonumCommand},
	{"collectives", "all-reduce bus bandwidth and latency over several devices (NCCL on CUDA) and the two-process Redis rendezvous", collectivesCommand},
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run is urbench without the process: it runs the benchmark args name, or
// prints the usage it asks for, and returns the exit status.
func run(args []string, stdout, stderr io.Writer) int {
	top := topCommand()
	if len(args) == 0 {
		return cli.Exit(stderr, top.Name, cli.Usagef(top.Name, "no benchmark named: want %s", benchmarkNames()))
	}
	switch args[0] {
	case "-h", "-help", "--help":
		top.Usage(stdout)
		return cli.ExitOK
	case "help":
		return cli.Exit(stderr, top.Name, help(top, args[1:], stdout))
	}
	b, err := lookup(args[0])
	if err != nil {
		return cli.Exit(stderr, top.Name, err)
	}
	c, bench := b.command()
	err = c.Parse(args[1:], stdout)
	if err == nil {
		err = bench(stdout)
	}
	return cli.Exit(stderr, c.Name, err)
}

// help prints urbench's usage, or that of the benchmark args names.
func help(top *cli.Command, args []string, stdout io.Writer) error {
	switch len(args) {
	case 0:
		top.Usage(stdout)
		return nil
	case 1:
		b, err := lookup(args[0])
		if err != nil {
			return err
		}
		c, _ := b.command()
		c.Usage(stdout)
		return nil
	default:
		return cli.Usagef(top.Name, "help takes one benchmark, not %q", args)
	}
}

// topCommand is urbench itself, for its usage.
func topCommand() *cli.Command {
	var doc strings.Builder
	doc.WriteString("Measure gour against the vendor drivers called from C.\n\nbenchmarks:\n")
	for _, b := range benchmarks {
		fmt.Fprintf(&doc, "  %-10s %s\n", b.name, b.summary)
	}
	doc.WriteString("\n'urbench help BENCHMARK' or 'urbench BENCHMARK -h' lists its flags.\n")
	doc.WriteString("Exit status: 0 when the benchmark ran, 1 on a failure or no device, 2 on misuse.")
	return cli.New("urbench", "BENCHMARK [flags]\n       urbench help [BENCHMARK]", doc.String())
}

func lookup(name string) (benchmark, error) {
	i := slices.IndexFunc(benchmarks, func(b benchmark) bool { return b.name == name })
	if i < 0 {
		return benchmark{}, cli.Usagef("urbench", "unknown benchmark %q: want %s", name, benchmarkNames())
	}
	return benchmarks[i], nil
}

func benchmarkNames() string {
	names := make([]string, len(benchmarks))
	for i, b := range benchmarks {
		names[i] = b.name
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// checkBackend refuses a -backend the benchmark has no kernel for.
func checkBackend(c *cli.Command, backend string) error {
	if backend != "opencl" && backend != "cuda" {
		return cli.Usagef(c.Name, "-backend %q: want opencl or cuda", backend)
	}
	return nil
}

// firstDevice returns the first device of backend that c's selector (its
// -device flag, else ONEAPI_DEVICE_SELECTOR, else none) lets through.
func firstDevice(c *cli.Command, backend string) (*ur.Device, error) {
	sys, sel, err := c.Discover()
	if err != nil {
		return nil, err
	}
	for _, d := range sys.Devices {
		if d.Backend() == backend {
			return d, nil
		}
	}
	return nil, cli.NoDevice(sys, sel, backend)
}

// firstContext returns firstDevice and a context on it, which the caller
// releases.
func firstContext(c *cli.Command, backend string) (*ur.Device, *ur.Context, error) {
	dev, err := firstDevice(c, backend)
	if err != nil {
		return nil, nil, err
	}
	ctx, err := ur.NewContext(dev)
	if err != nil {
		return nil, nil, err
	}
	return dev, ctx, nil
}

// quickSize is a size flag's value under -quick.
type quickSize struct {
	name string
	v    *int
	to   int
}

// applyQuick gives each of sizes that c's command line did not set its
// -quick value.
func applyQuick(c *cli.Command, sizes []quickSize) {
	given := map[string]bool{}
	c.Flags.Visit(func(f *flag.Flag) { given[f.Name] = true })
	for _, s := range sizes {
		if !given[s.name] {
			*s.v = s.to
		}
	}
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// openC loads a library of C baselines (scripts/bench/c) and resolves
// its entry points.
func openC(path string, symbols []dl.Symbol) error {
	lib, err := dl.Open(path)
	if err != nil {
		return err
	}
	return lib.Resolve(symbols)
}

// startCPUProfile writes a CPU profile to path until the returned stop
// is called; an empty path profiles nothing.
func startCPUProfile(path string) (stop func(), err error) {
	if path == "" {
		return func() {}, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, err
	}
	return func() { pprof.StopCPUProfile(); f.Close() }, nil
}
