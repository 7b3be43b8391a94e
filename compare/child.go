package compare

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/gour-dev/gour/compare/record"
	"github.com/gour-dev/gour/conformance"
	"github.com/gour-dev/gour/programmgr"
	"github.com/gour-dev/gour/ur"
)

// A run's work on a device happens in child processes of the running
// program, so that a driver that hangs or crashes takes down a child, which
// the parent kills or sees die, records, and replaces for the rest of the
// device's work. The child finds what to do in the environment. This
// file is the child's side; supervise.go is the parent's.
const (
	envChild  = "GOUR_COMPARE_CHILD"  // childMetrics, childConformance or childWarmStart
	envConfig = "GOUR_COMPARE_CONFIG" // a childConfig, as JSON
)

const (
	childMetrics     = "metrics"
	childConformance = "conformance"
	childWarmStart   = "warmstart"
)

// childConfig is what a child is asked to do.
type childConfig struct {
	Device       string             // "opencl:0"
	Items        []string           // the metrics or conformance cases, in order
	Rounds       int                // rounds per metric
	MetricBudget time.Duration      // past it a metric takes no more rounds than minBudgetRounds
	Launches     int                // launches per round of the launch metrics
	BufferBytes  uint64             // 0: bench.bufferBytes chooses
	KernelTime   time.Duration      // what one launch of a compute kernel is calibrated to take
	LaunchDelay  time.Duration      // the slow-driver test hook: see Options.LaunchDelay
	Slowdown     map[string]float64 `json:",omitempty"` // the slowed-metric test hook: see Options.Slowdown
	CacheDir     string             // the warm-start child's persistent cache
}

// RunChild runs this process as a child of Run when Run started it so,
// and returns its exit status and true; otherwise it returns false at once.
// Every program that calls Run must call it first thing in main, and a test
// binary in TestMain:
//
//	func main() {
//		if code, ok := compare.RunChild(); ok {
//			os.Exit(code)
//		}
//		...
//	}
func RunChild() (int, bool) {
	mode := os.Getenv(envChild)
	if mode == "" {
		return 0, false
	}
	var cfg childConfig
	if err := json.Unmarshal([]byte(os.Getenv(envConfig)), &cfg); err != nil {
		fmt.Fprintf(os.Stderr, "compare child: %s: %v\n", envConfig, err)
		return 2, true
	}
	var err error
	switch mode {
	case childMetrics:
		err = metricsChild(os.Stdout, cfg)
	case childConformance:
		conformanceChild(cfg) // exits
	case childWarmStart:
		err = warmStartChild(os.Stdout, cfg)
	default:
		err = fmt.Errorf("%s=%q: unknown child", envChild, mode)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "compare child: %v\n", err)
		return 1, true
	}
	return 0, true
}

// childDevice finds the one device a child works on.
func childDevice(id string) (*ur.Device, error) {
	sys, err := ur.Discover(ur.Config{Selector: id})
	if err != nil {
		return nil, err
	}
	if len(sys.Devices) != 1 {
		return nil, fmt.Errorf("the selector %s finds %d devices, want 1: %s", id, len(sys.Devices), sys.WhyNoDevice())
	}
	return sys.Devices[0], nil
}

// metricLine is one line a metrics child writes: the metric it starts, or
// the one it finished.
type metricLine struct {
	Start  string         `json:"start,omitempty"`
	Metric *record.Metric `json:"metric,omitempty"`
}

// metricsChild measures cfg.Items on cfg.Device, writing a metricLine as
// each starts and ends.
func metricsChild(w io.Writer, cfg childConfig) error {
	dev, err := childDevice(cfg.Device)
	if err != nil {
		return err
	}
	b, err := newBench(dev, cfg)
	if err != nil {
		return err
	}
	defer b.close()
	enc := json.NewEncoder(w)
	for _, name := range cfg.Items {
		def, ok := lookupMetric(name)
		if !ok {
			return fmt.Errorf("unknown metric %q", name)
		}
		if err := enc.Encode(metricLine{Start: name}); err != nil {
			return err
		}
		m := record.Metric{Name: name, Unit: def.Unit, Better: def.Better, Check: record.CheckOK}
		b.metricStart = time.Now()
		err := def.measure(b, &m)
		m.Seconds = time.Since(b.metricStart).Seconds()
		if err != nil {
			var wrong *wrongError
			m.Check, m.Detail = record.CheckError, err.Error()
			switch {
			case errors.As(err, &wrong):
				m.Check = record.CheckWrong
			case errors.Is(err, ur.ErrUnsupportedFeature): // the device lacks what the metric needs
				m.Check = record.CheckSkipped
			}
		}
		if f, ok := cfg.Slowdown[name]; ok && m.Check == record.CheckOK {
			for i := range m.Rounds {
				if m.Better == record.Lower {
					m.Rounds[i] *= f
				} else {
					m.Rounds[i] /= f
				}
			}
		}
		m.Summarize()
		if err := enc.Encode(metricLine{Metric: &m}); err != nil {
			return err
		}
	}
	return nil
}

// conformanceChild runs cfg.Items, each a conformance case, on cfg.Device
// as the top-level tests of a go test run in verbose mode, and exits:
// Run reads the results from the lines go test prints.
func conformanceChild(cfg childConfig) {
	backend, _, _ := strings.Cut(cfg.Device, ":")
	// One session for the cases: they share its context and programs, as
	// they do under go test, instead of a context and builds per case
	// (seconds each on NVIDIA's OpenCL). The process exits with testing.Main,
	// which releases them.
	session, err := conformance.NewSession(conformance.Options{
		Adapters: []string{backend},
		Require:  true, // a device that vanished is a failure, not a skip
		Selector: cfg.Device,
	})
	var tests []testing.InternalTest
	for _, name := range cfg.Items {
		tests = append(tests, testing.InternalTest{Name: name, F: func(t *testing.T) {
			if err != nil {
				t.Fatalf("conformance.NewSession: %v", err)
			}
			session.Run(t, name)
		}})
	}
	if !conformance.InChildProcess() {
		os.Args = []string{os.Args[0], "-test.v=true", "-test.count=1"}
	}
	// else a case re-running itself in a child process (Fixture.RunInChild)
	// started this one with a -test.run pattern that selects it: keep it,
	// or this process would run every case of cfg again.
	testing.Main(func(pat, str string) (bool, error) { return regexp.MatchString(pat, str) }, tests, nil, nil)
}

// warmStart is the line a warm-start child writes.
type warmStart struct {
	NS       int64 `json:"ns"` // the first GetKernel
	Builds   int64 `json:"builds"`
	DiskHits int64 `json:"disk_hits"`
}

// warmStartChild times this process's first GetKernel of the benchmark
// kernels through a program manager with the persistent cache in
// cfg.CacheDir, and checks the kernel it got.
func warmStartChild(w io.Writer, cfg childConfig) error {
	dev, err := childDevice(cfg.Device)
	if err != nil {
		return err
	}
	src, err := kernelSource(dev.Backend())
	if err != nil {
		return err
	}
	desc := programmgr.ImageDesc{Format: programmgr.FormatOpenCLC, Bytes: []byte(src)}
	if dev.Backend() == "cuda" {
		desc.Format = programmgr.FormatCUDAC
	}
	img, err := programmgr.NewImage(desc)
	if err != nil {
		return err
	}
	b := &bench{cfg: cfg, dev: dev}
	if b.ctx, err = ur.NewContext(dev); err != nil {
		return err
	}
	defer b.ctx.Release()
	if b.q, err = b.ctx.NewQueue(dev, ur.QueueProperties{}); err != nil {
		return err
	}
	defer b.q.Release()
	m, err := programmgr.New(b.ctx, programmgr.Options{})
	if err != nil {
		return err
	}
	defer m.Close()
	start := time.Now()
	k, err := m.GetKernel(context.Background(), img, "tick", dev, programmgr.SpecValues{}, "")
	elapsed := time.Since(start)
	if err != nil {
		return err
	}
	defer k.Release()
	if err := b.checkTick(k.UR().Program()); err != nil {
		return err
	}
	s := m.Stats()
	return json.NewEncoder(w).Encode(warmStart{NS: elapsed.Nanoseconds(), Builds: s.Builds, DiskHits: s.DiskHits})
}
