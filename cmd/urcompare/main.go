package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	_ "github.com/gour-dev/gour/all" // every adapter, and the remote tier's Redis store
	"github.com/gour-dev/gour/compare"
	"github.com/gour-dev/gour/compare/diff"
	"github.com/gour-dev/gour/compare/record"
	"github.com/gour-dev/gour/compare/report"
	"github.com/gour-dev/gour/internal/cli"
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
	top := cli.New("urcompare", "run [flags] | diff [flags] BASE.json NEW.json | metrics", `
Compare vendor drivers: the conformance cases and checked measurements
through every adapter × device of the machine (run), and two runs, e.g.
before and after a driver update (diff).

'urcompare run -h' and 'urcompare diff -h' list their flags.
Exit status: 0 done, 1 a failure (a device that could not run, a regression
with -fail-on-regression), 2 misuse (bad flags, unknown metrics or devices,
records that are malformed or cannot be compared).`)
	if len(args) == 0 {
		return cli.Exit(stderr, top.Name, cli.Usagef(top.Name, "no subcommand: want run, diff or metrics"))
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
	case "metrics":
		name = "urcompare metrics"
		err = metricsCommand(args[1:], stdout)
	default:
		err = cli.Usagef(top.Name, "unknown subcommand %q: want run, diff or metrics", args[0])
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
	processes := c.Flags.Int("processes", 2, "child processes that share each metric's rounds, so that their spread counts what varies between processes")
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
	c := cli.New("urcompare diff", "[-threshold F] [-metrics LIST] [-devices LIST] [-fail-on-regression] [-json] BASE.json NEW.json", `
Compare two records of 'urcompare run', device by device (matched by id,
"cuda:0") and metric by metric: the ratio of the medians, and a verdict
against the noise of the rounds. A change is flagged only beyond the sum of
both runs' relative half-ranges, (max − min) / (2·median), and beyond
-threshold; a check that stopped being ok, and a case that started failing,
are regressions whatever the numbers.`)
	threshold := c.Flags.Float64("threshold", diff.DefaultThreshold, "the smallest relative change flagged")
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
	if *threshold <= 0 {
		return cli.Usagef(c.Name, "-threshold must be positive")
	}
	var recs [2]*record.Record
	for i, path := range pos {
		if recs[i], err = record.ReadFile(path); err != nil {
			return &cli.UsageError{Err: err, Help: c.Name}
		}
	}
	res, err := diff.Compare(recs[0], recs[1], diff.Options{Threshold: *threshold, Metrics: list(*metricList), Devices: list(*deviceList)})
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
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "device\tmetric\tbase\tnew\tratio\tnoise\tverdict")
	for _, m := range ms {
		ratio, noise := "", ""
		if m.Ratio != 0 {
			ratio, noise = fmt.Sprintf("%.3f", m.Ratio), fmt.Sprintf("±%.1f%%", 100*m.Noise)
		}
		verdict := string(m.Verdict)
		if m.Verdict == diff.Regression {
			verdict = "REGRESSION"
		}
		if m.Note != "" {
			verdict += " (" + m.Note + ")"
		}
		fmt.Fprintf(tw, "%s\t%s\t%.4g %s\t%.4g %s\t%s\t%s\t%s\n", m.Device, m.Metric, m.Base, m.Unit, m.New, m.Unit, ratio, noise, verdict)
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

func orNone(s record.Status) string {
	if s == "" {
		return "—"
	}
	return string(s)
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
