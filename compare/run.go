package compare

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/gour-dev/gour/compare/record"
	"github.com/gour-dev/gour/conformance"
	"github.com/gour-dev/gour/ur"
)

// Options say what Run measures, on which devices, and how long it may
// take.
type Options struct {
	// Devices are the devices to compare, from ur.Discover; each is run in
	// child processes that select it again by backend and index.
	Devices []*ur.Device
	// Selector is the selector the devices came from, for the record.
	Selector string
	// Metrics names the metrics to measure (Metrics lists them); nil
	// measures every one, an empty non-nil slice none.
	Metrics []string
	// Cases names the conformance cases to run (conformance.Tests lists
	// them); nil runs every one, an empty non-nil slice none.
	Cases []string
	// Rounds is how many times each metric is measured (default 10), and
	// Launches how many launches a round of the launch metrics makes
	// (default 2000).
	Rounds, Launches int
	// BufferBytes is the size of the transfers and of axpy's vectors; 0
	// is 256 MiB on a GPU and 32 MiB elsewhere, within an eighth of the
	// device's memory.
	BufferBytes uint64
	// KernelTime is how long one launch of the compute-bound kernels (fma,
	// local.bandwidth, atomics) is calibrated to take; 0 is 10 ms.
	KernelTime time.Duration
	// CaseTimeout and MetricTimeout bound one conformance case and one
	// metric on one device (default 2 minutes each). Past it the child
	// process is killed, the case or metric recorded as timed out, and the
	// device's remaining work goes on in a new child.
	CaseTimeout, MetricTimeout time.Duration
	// MetricBudget is the time a metric may take before it stops at the
	// round it is on, keeping at least 3 timed rounds (default 15 s; a
	// negative budget always takes Rounds rounds). It bounds the metrics
	// whose rounds are slow on some device (processes started for
	// cache.warm, NVRTC builds for build.cold) well within MetricTimeout.
	MetricBudget time.Duration
	// Processes is how many child processes share a metric's rounds on a
	// device (default DefaultProcesses, at most Rounds). The record keeps
	// each process's median (record.Metric.ProcessMedians), and a diff
	// takes its noise from their spread: what changes from one process to
	// the next (where the driver puts the buffers, the state of its caches
	// and clocks) is on some drivers far more than within one, and a diff
	// of two runs, two sets of processes apart, must count it as noise.
	// The more processes, the smaller a change a diff can resolve.
	Processes int
	// LaunchDelay is a test hook that makes a deliberately slow driver: the
	// launch metrics spin this long after every launch, in the harness's
	// loop, never in gour's launch path. Zero in real runs.
	LaunchDelay time.Duration
	// Slowdown is a test hook that makes a metric look that many times
	// worse: every round of a metric it names is multiplied (a time) or
	// divided (a rate) by its factor, as it would be after a real
	// slowdown of the same noise. It tests that a diff flags a change of a
	// known size on a real machine's noise. Empty in real runs.
	Slowdown map[string]float64
	// Progress, when not nil, hears of each case and metric as it ends.
	Progress Progress
}

// DefaultProcesses is how many child processes share a metric's rounds
// unless Options say otherwise: five per run give a diff of two runs
// eight degrees of freedom for the spread between processes, enough to
// resolve a 20% change where the processes agree within a few percent,
// for about three more process starts per device than two would cost.
const DefaultProcesses = 5

// Progress follows a run: Start announces a phase ("conformance",
// "metrics") and how many steps it has, Step ends one of them.
type Progress interface {
	Start(phase string, total int)
	Step(phase, device, item string)
}

// Phases of a run, as Progress names them.
const (
	PhaseConformance = "conformance"
	PhaseMetrics     = "metrics"
)

// driverCacheEnv are the settings that turn the drivers' own kernel caches
// off in the children, so that build.cold is cold and cache.warm shows
// gour's cache alone; a variable already set is left as it is.
var driverCacheEnv = []string{"POCL_KERNEL_CACHE=0", "CUDA_CACHE_DISABLE=1"}

// recordedEnv are the variables that change what a run measures, kept in
// the record's settings.
var recordedEnv = []string{"GOUR_CUDA_QUICK_LAUNCH", "POCL_KERNEL_CACHE", "CUDA_CACHE_DISABLE", "UR_ADAPTERS_FORCE_LOAD", "ONEAPI_DEVICE_SELECTOR",
	"GOUR_URCOMPARE_TEST_LAUNCH_DELAY", "GOUR_URCOMPARE_TEST_SLOWDOWN"}

func (o *Options) setDefaults() error {
	if len(o.Devices) == 0 {
		return &ur.Error{Result: ur.ErrDeviceNotFound, Op: "compare.Run", Message: "no device to compare"}
	}
	if o.Rounds == 0 {
		o.Rounds = 10
	}
	if o.Launches == 0 {
		o.Launches = 2000
	}
	if o.KernelTime == 0 {
		o.KernelTime = 10 * time.Millisecond
	}
	if o.CaseTimeout == 0 {
		o.CaseTimeout = 2 * time.Minute
	}
	if o.MetricTimeout == 0 {
		o.MetricTimeout = 2 * time.Minute
	}
	if o.Processes == 0 {
		o.Processes = DefaultProcesses
	}
	o.Processes = min(o.Processes, o.Rounds)
	if o.MetricBudget == 0 {
		o.MetricBudget = 15 * time.Second
	}
	if o.Rounds < 1 || o.Launches < 1 || o.Processes < 1 || o.KernelTime < 0 || o.CaseTimeout < 0 || o.MetricTimeout < 0 || o.LaunchDelay < 0 {
		return &ur.Error{Result: ur.ErrInvalidValue, Op: "compare.Run", Message: "Rounds, Launches and Processes must be at least 1, durations not negative"}
	}
	for name, f := range o.Slowdown {
		if _, ok := lookupMetric(name); !ok {
			return &UnknownError{What: "metric", Name: name, Known: metricNames()}
		}
		if !(f > 0) {
			return &ur.Error{Result: ur.ErrInvalidValue, Op: "compare.Run", Message: fmt.Sprintf("Slowdown of %s: factor %g, want a positive number", name, f)}
		}
	}
	if o.Metrics == nil {
		for _, m := range metrics {
			o.Metrics = append(o.Metrics, m.Name)
		}
	}
	for _, name := range o.Metrics {
		if _, ok := lookupMetric(name); !ok {
			return &UnknownError{What: "metric", Name: name, Known: metricNames()}
		}
	}
	all := conformance.Tests()
	if o.Cases == nil {
		for _, c := range all {
			o.Cases = append(o.Cases, c.Name)
		}
	}
	for _, name := range o.Cases {
		if !slices.ContainsFunc(all, func(c conformance.Test) bool { return c.Name == name }) {
			return &UnknownError{What: "conformance case", Name: name, Known: []string{"conformance.Tests() lists them"}}
		}
	}
	return nil
}

// UnknownError is a metric or case that Options name and Run does not
// have.
type UnknownError struct {
	What, Name string
	Known      []string
}

func (e *UnknownError) Error() string {
	return fmt.Sprintf("unknown %s %q: want %s", e.What, e.Name, strings.Join(e.Known, ", "))
}

func metricNames() []string {
	var names []string
	for _, m := range metrics {
		names = append(names, m.Name)
	}
	return names
}

// Run runs the conformance cases, then measures the metrics, on every
// device of opts, and returns the record. It fails only for bad options
// or a cancelled ctx: what goes wrong on a device is in the record (a
// case that failed or timed out, a metric whose check is not ok, the
// device's Error).
func Run(ctx context.Context, opts Options) (*record.Record, error) {
	if err := opts.setDefaults(); err != nil {
		return nil, err
	}
	rec := record.New()
	rec.Settings = record.Settings{
		Selector:      opts.Selector,
		Rounds:        opts.Rounds,
		Launches:      opts.Launches,
		BufferBytes:   opts.BufferBytes,
		CaseTimeout:   opts.CaseTimeout.String(),
		MetricTimeout: opts.MetricTimeout.String(),
		MetricBudget:  opts.MetricBudget.String(),
		Processes:     opts.Processes,
		Env:           map[string]string{},
	}
	var env []string
	for _, kv := range driverCacheEnv {
		k, _, _ := strings.Cut(kv, "=")
		if _, set := os.LookupEnv(k); !set {
			env = append(env, kv)
		}
	}
	for _, k := range recordedEnv {
		if v, ok := os.LookupEnv(k); ok {
			rec.Settings.Env[k] = v
		}
	}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		rec.Settings.Env[k] = v + " (set by urcompare for its children)"
	}
	for _, d := range opts.Devices {
		rec.Devices = append(rec.Devices, describe(d))
	}
	p := opts.Progress
	if p == nil {
		p = noProgress{}
	}
	cfg := childConfig{Rounds: opts.Rounds, Launches: opts.Launches, BufferBytes: opts.BufferBytes, KernelTime: opts.KernelTime, LaunchDelay: opts.LaunchDelay, Slowdown: opts.Slowdown, MetricBudget: opts.MetricBudget}
	if len(opts.Cases) > 0 {
		p.Start(PhaseConformance, len(opts.Cases)*len(rec.Devices))
		for i := range rec.Devices {
			d := &rec.Devices[i]
			c := cfg
			c.Device = d.ID
			start := time.Now()
			d.Conformance = supervise(ctx, casesProtocol, c, opts.Cases, opts.CaseTimeout, env, func(name string) { p.Step(PhaseConformance, d.ID, name) })
			d.ConformanceSeconds = time.Since(start).Seconds()
		}
	}
	if len(opts.Metrics) > 0 {
		p.Start(PhaseMetrics, len(opts.Metrics)*len(rec.Devices)*opts.Processes)
		for i := range rec.Devices {
			d := &rec.Devices[i]
			c := cfg
			c.Device = d.ID
			if _, err := kernelSource(d.Backend); err != nil { // Level Zero: SPIR-V only
				for _, name := range opts.Metrics {
					def, _ := lookupMetric(name)
					d.Metrics = append(d.Metrics, record.Metric{Name: name, Unit: def.Unit, Better: def.Better, Check: record.CheckSkipped, Detail: err.Error()})
					p.Step(PhaseMetrics, d.ID, name)
				}
				continue
			}
			start := time.Now()
			parts := make([][]record.Metric, opts.Processes)
			names := opts.Metrics
			for k := range parts {
				c.Rounds = opts.Rounds/opts.Processes + btoi(k < opts.Rounds%opts.Processes)
				c.MetricBudget = opts.MetricBudget / time.Duration(opts.Processes)
				parts[k] = supervise(ctx, metricsProtocol, c, names, opts.MetricTimeout, env, func(name string) { p.Step(PhaseMetrics, d.ID, name) })
				// A metric that was not ok in one process is not ok in the
				// record whatever the others give: the next processes leave
				// it out, so that a metric that hangs costs its timeout once,
				// not once a process.
				ok := map[string]bool{}
				for _, m := range parts[k] {
					ok[m.Name] = m.Check == record.CheckOK
				}
				var next []string
				for _, n := range names {
					if ok[n] {
						next = append(next, n)
					} else {
						for range opts.Processes - 1 - k { // the steps it will not take
							p.Step(PhaseMetrics, d.ID, n)
						}
					}
				}
				names = next
			}
			d.Metrics = mergeMetrics(parts)
			d.MetricsSeconds = time.Since(start).Seconds()
			if slices.ContainsFunc(d.Metrics, func(m record.Metric) bool { return m.Check == record.CheckOK }) {
				continue
			}
			if len(d.Metrics) > 0 && d.Metrics[0].Check == record.CheckError {
				d.Error = "no metric could be measured: " + d.Metrics[0].Detail
			}
		}
	}
	return rec, ctx.Err()
}

type noProgress struct{}

func (noProgress) Start(string, int)           {}
func (noProgress) Step(string, string, string) {}

// describe is a device's identity for the record.
func describe(d *ur.Device) record.Device {
	info := d.Info()
	rd := record.Device{
		ID:             fmt.Sprintf("%s:%d", d.Backend(), d.Index()),
		Backend:        d.Backend(),
		Index:          d.Index(),
		Type:           d.Type().String(),
		Name:           info.Name,
		Vendor:         info.Vendor,
		DeviceVersion:  info.DeviceVersion,
		DriverVersion:  info.DriverVersion,
		ComputeUnits:   info.ComputeUnits,
		MaxClockMHz:    info.MaxClockMHz,
		GlobalMemBytes: info.GlobalMemSize,
	}
	if p := d.Platform(); p != nil {
		rd.Platform, rd.PlatformVersion = p.Info().Name, p.Info().Version
	}
	return rd
}

// mergeMetrics joins the metrics that several processes measured, each a
// share of the rounds, into one per name (those of the first process; the
// later ones may lack a metric that failed before them): the rounds
// together, in the order of the processes, with how many each measured
// (ProcessRounds) and each one's median, the times added. A metric that
// is not ok in one process is not ok: its first failure is kept.
func mergeMetrics(parts [][]record.Metric) []record.Metric {
	if len(parts) == 0 {
		return nil
	}
	out := slices.Clone(parts[0])
	for i := range out {
		out[i].Rounds = slices.Clone(out[i].Rounds)
		out[i].ProcessRounds = []int{len(out[i].Rounds)}
		for _, part := range parts[1:] {
			j := slices.IndexFunc(part, func(m record.Metric) bool { return m.Name == out[i].Name })
			if j < 0 { // left out after failing in an earlier process
				continue
			}
			m := part[j]
			switch {
			case out[i].Check != record.CheckOK:
			case m.Check != record.CheckOK:
				secs := out[i].Seconds
				out[i] = m
				out[i].Seconds += secs
				continue
			case len(m.Rounds) > 0:
				out[i].Rounds = append(out[i].Rounds, m.Rounds...)
				out[i].ProcessRounds = append(out[i].ProcessRounds, len(m.Rounds))
			}
			out[i].Seconds += m.Seconds
		}
		out[i].ProcessRounds = slices.DeleteFunc(out[i].ProcessRounds, func(n int) bool { return n == 0 })
		if out[i].Check != record.CheckOK || len(out[i].ProcessRounds) == 0 {
			out[i].ProcessRounds = nil
		}
		out[i].Summarize()
	}
	return out
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
