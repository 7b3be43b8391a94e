package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/gour-dev/gour/cmd/internal/cli"
	"github.com/gour-dev/gour/compare"
	"github.com/gour-dev/gour/compare/diff"
	"github.com/gour-dev/gour/compare/record"
	"github.com/gour-dev/gour/compare/report"
	_ "github.com/gour-dev/gour/drivers" // every adapter, and the remote tier's Redis store
)

func main() {
	if code, ok := compare.RunChild(); ok {
		os.Exit(code)
	}
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run is urcompare without the process: it runs the subcommand args name
// and returns the exit status.
func run(args []string, stdout, stderr io.Writer) int {
	top := cli.New("urcompare", "run [flags] | diff [flags] BASE.json NEW.json | report -o DIR RECORD.json | metrics", `
Compare vendor drivers: the conformance cases and checked measurements
through every adapter × device of the machine (run), and two runs, e.g.
before and after a driver update (diff); the report of a record again,
e.g. after the charts changed (report).

'urcompare run -h', 'urcompare diff -h' and 'urcompare report -h' list
their flags.
Exit status: 0 done, 1 a failure (a device that could not run, a regression
with -fail-on-regression), 2 misuse (bad flags, unknown metrics or devices,
records that are malformed or cannot be compared).`)
	if len(args) == 0 {
		return cli.Exit(stderr, top.Name, cli.Usagef(top.Name, "no subcommand: want run, diff, report or metrics"))
	}
	var err error
	name := top.Name
	switch args[0] {
	case "-h", "-help", "--help", "help":
		top.Usage(stdout)
		return cli.ExitOK
	case "run":
		name = "urcompare run"
		err = runCommand(args[1:], stdout, stderr)
	case "diff":
		name = "urcompare diff"
		err = diffCommand(args[1:], stdout)
	case "report":
		name = "urcompare report"
		err = reportCommand(args[1:], stdout)
	case "metrics":
		name = "urcompare metrics"
		err = metricsCommand(args[1:], stdout)
	default:
		err = cli.Usagef(top.Name, "unknown subcommand %q: want run, diff, report or metrics", args[0])
	}
	return cli.Exit(stderr, name, err)
}

// list splits a comma-separated flag value; "" is nil and "none" an empty
// list.
func list(v string) []string {
	switch v {
	case "":
		return nil
	case "none":
		return []string{}
	}
	var out []string
	for s := range strings.SplitSeq(v, ",") {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

func runCommand(args []string, stdout, stderr io.Writer) error {
	c := cli.New("urcompare run", "[-device SELECTOR] [-o DIR] [-rounds N] [-launches N] [-metrics LIST] [-cases LIST] [-quiet]", `
Run the conformance cases, then measure every metric ('urcompare metrics'
lists them), on every device the selector lets through, each device in
child processes that are killed and replaced when a case or a metric runs
past its timeout. Write DIR/record.json, DIR/report.md, DIR/charts/*.svg
and *.png, and DIR/report.html (self-contained).`)
	out := c.Flags.String("o", "urcompare-out", "write the outputs to `DIR`")
	rounds := c.Flags.Int("rounds", 10, "measure each metric `N` times")
	launches := c.Flags.Int("launches", 2000, "launches per round of the launch metrics")
	size := c.Flags.Uint64("buffer-bytes", 0, "bytes per transfer and per axpy vector; 0: 256 MiB on a GPU, 32 MiB elsewhere")
	kernelTime := c.Flags.Duration("kernel-time", 10*time.Millisecond, "what one launch of the compute-bound kernels is calibrated to take")
	caseTimeout := c.Flags.Duration("case-timeout", 2*time.Minute, "limit for one conformance case on one device")
	metricTimeout := c.Flags.Duration("metric-timeout", 2*time.Minute, "limit for one metric on one device")
	metricBudget := c.Flags.Duration("metric-budget", 15*time.Second, "past this, a metric stops after 3 rounds; negative: always -rounds")
	processes := c.Flags.Int("processes", compare.DefaultProcesses, "child processes that share each metric's rounds (at most -rounds); diff takes its noise from the spread of their medians")
	metricList := c.Flags.String("metrics", "", "comma-separated metrics to measure; empty: all, none: none")
	caseList := c.Flags.String("cases", "", "comma-separated conformance cases (TestMemoryFill,...); empty: all, none: none")
	quiet := c.Flags.Bool("quiet", false, "no progress bars (they are off anyway when standard error is not a terminal)")
	c.DeviceFlag()
	pos, err := c.ParseInterleaved(args, stdout)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return cli.Usagef(c.Name, "unexpected argument %q", pos[0])
	}
	sys, sel, err := c.Discover()
	if err != nil {
		return err
	}
	if len(sys.Devices) == 0 {
		return cli.NoDevice(sys, sel, "")
	}
	cli.WriteAdapterFailures(stderr, sys)
	opts := compare.Options{
		Devices: sys.Devices, Selector: sel.Text,
		Metrics: list(*metricList), Cases: list(*caseList),
		Rounds: *rounds, Launches: *launches, BufferBytes: *size, KernelTime: *kernelTime,
		CaseTimeout: *caseTimeout, MetricTimeout: *metricTimeout, MetricBudget: *metricBudget,
		Processes: *processes,
	}
	if *rounds < 1 || *launches < 1 {
		return cli.Usagef(c.Name, "-rounds and -launches must be at least 1")
	}
	if d := os.Getenv(envTestLaunchDelay); d != "" {
		if opts.LaunchDelay, err = time.ParseDuration(d); err != nil {
			return &cli.UsageError{Err: fmt.Errorf("%s: %w", envTestLaunchDelay, err)}
		}
	}
	if s := os.Getenv(envTestSlowdown); s != "" {
		if opts.Slowdown, err = parseSlowdown(s); err != nil {
			return &cli.UsageError{Err: fmt.Errorf("%s: %w", envTestSlowdown, err)}
		}
	}
	var bars *progressBars
	if !*quiet && isTerminal(os.Stderr) {
		bars = newProgressBars(os.Stderr)
		opts.Progress = bars
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	start := time.Now()
	rec, err := compare.Run(ctx, opts)
	if bars != nil {
		bars.wait()
	}
	var unknown *compare.UnknownError
	if errors.As(err, &unknown) {
		return cli.Usagef(c.Name, "%v", err)
	}
	if err != nil {
		return err
	}
	if err := report.WriteAll(*out, rec); err != nil {
		return err
	}
	summarize(stdout, rec)
	fmt.Fprintf(stdout, "\n%d devices in %v; wrote %s\n", len(rec.Devices), time.Since(start).Round(time.Second),
		strings.Join([]string{filepath.Join(*out, report.RecordFile), filepath.Join(*out, report.MarkdownFile), filepath.Join(*out, report.HTMLFile), filepath.Join(*out, report.ChartsDir) + "/"}, ", "))
	var failed []string
	for _, d := range rec.Devices {
		if d.Error != "" {
			failed = append(failed, d.ID+": "+d.Error)
		}
	}
	if len(failed) > 0 {
		return fmt.Errorf("devices that could not run: %s", strings.Join(failed, "; "))
	}
	return nil
}

// envTestLaunchDelay is the test hook of a deliberately slow driver: a Go
// duration spun after every launch of the launch metrics, in the
// comparison harness's loop (compare.Options.LaunchDelay).
const envTestLaunchDelay = "GOUR_URCOMPARE_TEST_LAUNCH_DELAY"

// envTestSlowdown is the test hook of a metric made worse by a known
// factor: METRIC=FACTOR[,METRIC=FACTOR...] (compare.Options.Slowdown),
// e.g. axpy=1.2 for a 20% slower axpy.
const envTestSlowdown = "GOUR_URCOMPARE_TEST_SLOWDOWN"

// parseSlowdown reads envTestSlowdown's value.
func parseSlowdown(v string) (map[string]float64, error) {
	out := map[string]float64{}
	for _, item := range list(v) {
		name, f, ok := strings.Cut(item, "=")
		factor, err := strconv.ParseFloat(f, 64)
		if !ok || err != nil || !(factor > 0) {
			return nil, fmt.Errorf("%q: want METRIC=FACTOR, a positive factor (axpy=1.2)", item)
		}
		out[name] = factor
	}
	return out, nil
}

// summarize prints a line per device and metric.
func summarize(w io.Writer, rec *record.Record) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for _, d := range rec.Devices {
		n := map[record.Status]int{}
		for _, c := range d.Conformance {
			n[c.Status]++
		}
		fmt.Fprintf(tw, "%s\t%s\tconformance: %d pass, %d fail, %d skip, %d timeout\n", d.ID, d.Name, n[record.Pass], n[record.Fail], n[record.Skip], n[record.Timeout])
		fmt.Fprintf(tw, "\ttime\tconformance %v, metrics %v\n", secs(d.ConformanceSeconds), secs(d.MetricsSeconds))
		for _, m := range d.Metrics {
			if m.Check != record.CheckOK {
				fmt.Fprintf(tw, "\t%s\t%s: %s\n", m.Name, strings.ToUpper(string(m.Check)), m.Detail)
				continue
			}
			fmt.Fprintf(tw, "\t%s\t%.4g %s\t(%.4g–%.4g)\t%d rounds in %v\n", m.Name, m.Median, m.Unit, m.Min, m.Max, len(m.Rounds), secs(m.Seconds))
		}
	}
	tw.Flush()
}

// secs rounds a time in seconds to the millisecond.
func secs(s float64) time.Duration {
	return time.Duration(s * float64(time.Second)).Round(time.Millisecond)
}

func diffCommand(args []string, stdout io.Writer) error {
	c := cli.New("urcompare diff", "[-min-effect F] [-confidence F] [-metrics LIST] [-devices LIST] [-fail-on-regression] [-json] BASE.json NEW.json", `
Compare two records of 'urcompare run', device by device (matched by id,
"cuda:0") and metric by metric. Each run is taken as a sample of its child
processes, each process giving the median of its rounds: a metric's value
is the geometric mean of its process medians, the ratio new/base gets a
confidence interval (-confidence) from the spread of the process medians
of both runs, and a change is flagged only outside that interval and
beyond -min-effect. Records older than process medians fall back on the
spread of the rounds, and the output says so. A check that stopped being
ok, and a case that started failing, are regressions whatever the numbers.`)
	minEffect := c.Flags.Float64("min-effect", diff.DefaultMinEffect, "the smallest relative change flagged, however quiet the processes")
	c.Flags.Var(aliasFlag{c.Flags, "min-effect"}, "threshold", "the same as -min-effect (its former name)")
	confidence := c.Flags.Float64("confidence", diff.DefaultConfidence, "the confidence of the interval outside which a change is flagged")
	metricList := c.Flags.String("metrics", "", "comma-separated metrics to compare; empty: all")
	deviceList := c.Flags.String("devices", "", "comma-separated device ids to compare (cuda:0,opencl:1); empty: all")
	failOn := c.Flags.Bool("fail-on-regression", false, "exit 1 when anything regressed (for CI)")
	asJSON := c.Flags.Bool("json", false, "print the comparison as JSON")
	pos, err := c.ParseInterleaved(args, stdout)
	if err != nil {
		return err
	}
	if len(pos) != 2 {
		return cli.Usagef(c.Name, "want two records, BASE.json NEW.json; got %d arguments", len(pos))
	}
	if *minEffect <= 0 {
		return cli.Usagef(c.Name, "-min-effect must be positive")
	}
	if *confidence <= 0 || *confidence >= 1 {
		return cli.Usagef(c.Name, "-confidence must be between 0 and 1")
	}
	var recs [2]*record.Record
	for i, path := range pos {
		if recs[i], err = record.ReadFile(path); err != nil {
			return &cli.UsageError{Err: err, Help: c.Name}
		}
	}
	res, err := diff.Compare(recs[0], recs[1], diff.Options{MinEffect: *minEffect, Confidence: *confidence, Metrics: list(*metricList), Devices: list(*deviceList)})
	var mismatch *diff.MismatchError
	if errors.Is(err, diff.ErrUnknown) || errors.As(err, &mismatch) {
		return &cli.UsageError{Err: err, Help: c.Name}
	}
	if err != nil {
		return err
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(res); err != nil {
			return err
		}
	} else {
		printDiff(stdout, res)
	}
	if n := res.Regressions(); n > 0 && *failOn {
		return fmt.Errorf("%d regressions", n)
	}
	return nil
}

// printDiff prints the regressions first, then the rest.
func printDiff(w io.Writer, res *diff.Result) {
	for _, n := range res.Notes {
		fmt.Fprintln(w, "note:", n)
	}
	ms := slices.Clone(res.Metrics)
	rank := func(v diff.Verdict) int {
		return map[diff.Verdict]int{diff.Regression: 0, diff.Improvement: 1}[v] + map[bool]int{true: 0, false: 2}[v == diff.Regression || v == diff.Improvement]
	}
	slices.SortStableFunc(ms, func(a, b diff.MetricChange) int { return rank(a.Verdict) - rank(b.Verdict) })
	fmt.Fprintf(w, "base, new: the geometric mean of the process medians; noise: the ratio's %g%% confidence from their spread; flagged beyond the noise and beyond %g%%\n\n",
		100*res.Confidence, 100*res.MinEffect)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "device\tmetric\tbase\tnew\tratio\tnoise\tfrom\tverdict")
	for _, m := range ms {
		ratio, noise := "", ""
		if m.Ratio != 0 {
			ratio, noise = fmt.Sprintf("%.3f", m.Ratio), fmt.Sprintf("±%.1f%%", 100*m.Noise)
			if m.Noise >= 10 { // the runs tell nothing of this metric
				noise = "±>1000%"
			}
		}
		verdict := string(m.Verdict)
		if m.Verdict == diff.Regression {
			verdict = "REGRESSION"
		}
		if m.Note != "" {
			verdict += " (" + m.Note + ")"
		}
		fmt.Fprintf(tw, "%s\t%s\t%.4g %s\t%.4g %s\t%s\t%s\t%s\t%s\n", m.Device, m.Metric, m.Base, m.Unit, m.New, m.Unit, ratio, noise, m.Basis, verdict)
	}
	tw.Flush()
	if len(res.Cases) > 0 {
		fmt.Fprintln(w, "\nconformance cases that changed:")
		tw = tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		for _, c := range res.Cases {
			fmt.Fprintf(tw, "%s\t%s\t%s → %s\t%s\t%s\n", c.Device, c.Case, orNone(c.Base), orNone(c.New), c.Verdict, c.Reason)
		}
		tw.Flush()
	}
	fmt.Fprintf(w, "\n%d regressions\n", res.Regressions())
}

// aliasFlag is a flag that sets another: a former name kept working.
type aliasFlag struct {
	fs   *flag.FlagSet
	name string
}

func (a aliasFlag) String() string {
	if a.fs == nil {
		return ""
	}
	return a.fs.Lookup(a.name).Value.String()
}
func (a aliasFlag) Set(v string) error { return a.fs.Set(a.name, v) }

func orNone(s record.Status) string {
	if s == "" {
		return "—"
	}
	return string(s)
}

func reportCommand(args []string, stdout io.Writer) error {
	c := cli.New("urcompare report", "-o DIR [-charts-only] RECORD.json", `
Write the report of a record of 'urcompare run' again: DIR/report.md,
DIR/charts/*.svg and *.png, and DIR/report.html, as run writes them, from
the record alone (the record itself is not copied).`)
	out := c.Flags.String("o", "", "write the outputs to `DIR`")
	chartsOnly := c.Flags.Bool("charts-only", false, "write only DIR/charts/*.svg (the form the committed reports keep)")
	pos, err := c.ParseInterleaved(args, stdout)
	if err != nil {
		return err
	}
	if *out == "" {
		return cli.Usagef(c.Name, "no -o DIR")
	}
	if len(pos) != 1 {
		return cli.Usagef(c.Name, "want one record, RECORD.json; got %d arguments", len(pos))
	}
	rec, err := record.ReadFile(pos[0])
	if err != nil {
		return &cli.UsageError{Err: err, Help: c.Name}
	}
	if *chartsOnly {
		charts, err := report.Charts(rec)
		if err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Join(*out, report.ChartsDir), 0o755); err != nil {
			return err
		}
		for _, ch := range charts {
			if err := os.WriteFile(filepath.Join(*out, report.ChartsDir, ch.Metric+".svg"), ch.SVG, 0o644); err != nil {
				return err
			}
		}
		fmt.Fprintf(stdout, "wrote %d charts to %s\n", len(charts), filepath.Join(*out, report.ChartsDir)+"/")
		return nil
	}
	if err := report.WriteReport(*out, rec); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %s\n", strings.Join([]string{filepath.Join(*out, report.MarkdownFile), filepath.Join(*out, report.HTMLFile), filepath.Join(*out, report.ChartsDir) + "/"}, ", "))
	return nil
}

func metricsCommand(args []string, stdout io.Writer) error {
	c := cli.New("urcompare metrics", "", "List the metrics 'urcompare run' measures.")
	if err := c.Parse(args, stdout); err != nil {
		return err
	}
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	for _, m := range compare.Metrics() {
		fmt.Fprintf(tw, "%s\t%s\t%s is better\t%s\n", m.Name, m.Unit, m.Better, m.Doc)
	}
	return tw.Flush()
}
