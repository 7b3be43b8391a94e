package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gour-dev/gour/compare"
	"github.com/gour-dev/gour/compare/record"
	"github.com/gour-dev/gour/compare/report"
	"github.com/gour-dev/gour/internal/harness/testenv"
)

// TestMain lets this test binary be the child processes of a run.
func TestMain(m *testing.M) {
	if code, ok := compare.RunChild(); ok {
		os.Exit(code)
	}
	os.Exit(m.Run())
}

// urcompare runs the command and returns its exit status and output.
func urcompare(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(args, &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

// quickRun are the flags of a run that takes seconds on PoCL.
var quickRun = []string{"-quiet", "-rounds", "3", "-launches", "20", "-buffer-bytes", "1048576", "-kernel-time", "1ms"}

// runOn runs urcompare run with quickRun and extra on the OpenCL device,
// into a new directory, and returns the directory.
func runOn(t *testing.T, extra ...string) string {
	t.Helper()
	testenv.Devices(t) // skips or fails, under UR_REQUIRE_ADAPTERS, without a device
	dir := t.TempDir()
	args := append([]string{"run", "-device", "opencl:0", "-o", dir}, quickRun...)
	code, stdout, stderr := urcompare(t, append(args, extra...)...)
	if code != 0 {
		t.Fatalf("urcompare %q: exit %d\nstdout:\n%s\nstderr:\n%s", args, code, stdout, stderr)
	}
	return dir
}

// TestRunWritesEveryOutput runs every metric and two cases end to end and
// checks the record, the report, the charts and the page.
func TestRunWritesEveryOutput(t *testing.T) {
	dir := runOn(t, "-cases", "TestContextOneDevice,TestEnqueueLaunch1D")
	rec, err := record.ReadFile(filepath.Join(dir, report.RecordFile))
	if err != nil {
		t.Fatal(err)
	}
	if len(rec.Devices) != 1 || rec.Devices[0].ID != "opencl:0" || len(rec.Devices[0].Conformance) != 2 {
		t.Fatalf("record devices %+v, want opencl:0 with 2 cases", rec.Devices)
	}
	md, err := os.ReadFile(filepath.Join(dir, report.MarkdownFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"## Conformance", "| TestEnqueueLaunch1D | pass |", "## Metrics", "| launch.queue | ns | lower |", "![fma](charts/fma.svg)"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("report.md has no %q:\n%s", want, md)
		}
	}
	for _, m := range rec.Devices[0].Metrics {
		for _, ext := range []string{".svg", ".png"} {
			data, err := os.ReadFile(filepath.Join(dir, report.ChartsDir, m.Name+ext))
			if err != nil || len(data) < 100 {
				t.Errorf("chart %s%s: %d bytes, %v", m.Name, ext, len(data), err)
			}
		}
	}
	page, err := os.ReadFile(filepath.Join(dir, report.HTMLFile))
	if err != nil {
		t.Fatal(err)
	}
	html := string(page)
	if n := strings.Count(html, "<svg"); n != len(rec.Devices[0].Metrics) {
		t.Errorf("report.html inlines %d SVG charts, want %d", n, len(rec.Devices[0].Metrics))
	}
	if !strings.Contains(html, `href="data:image/png;base64,`) || strings.Contains(html, `src="charts/`) {
		t.Error("report.html does not inline its PNGs, or links to files beside it")
	}
}

func TestDiffOfARunWithItselfFlagsNothing(t *testing.T) {
	dir := runOn(t, "-cases", "none", "-metrics", "launch.queue,copy.h2d")
	rec := filepath.Join(dir, report.RecordFile)
	code, stdout, stderr := urcompare(t, "diff", "-fail-on-regression", rec, rec)
	if code != 0 || !strings.Contains(stdout, "\n0 regressions\n") || strings.Contains(stdout, "REGRESSION") {
		t.Errorf("diff of a record with itself: exit %d\n%s%s", code, stdout, stderr)
	}
	// quickRun's 3 rounds go to 3 processes, each keeping its median.
	r, err := record.ReadFile(rec)
	if err != nil {
		t.Fatal(err)
	}
	if m := r.Devices[0].Metrics[0]; len(m.ProcessMedians) != 3 || !strings.Contains(stdout, "3+3 processes") || strings.Contains(stdout, "note:") {
		t.Errorf("process medians %v; want 3, and the diff's noise from 3+3 processes without a note:\n%s", m.ProcessMedians, stdout)
	}
}

// TestSlowedMetricIsARegression makes copy.h2d a million times slower
// through the slowdown test hook: the diff flags it, and the record says
// it was slowed. A million over 6+6 processes: with a thousand over 4+4, a
// run on two cores other tests loaded had the base's processes spread so
// wide that the diff rightly could not tell.
func TestSlowedMetricIsARegression(t *testing.T) {
	metrics := []string{"-cases", "none", "-metrics", "copy.h2d,fma", "-rounds", "6"}
	base := filepath.Join(runOn(t, metrics...), report.RecordFile)
	t.Setenv(envTestSlowdown, "copy.h2d=1e6")
	slow := filepath.Join(runOn(t, metrics...), report.RecordFile)
	code, stdout, stderr := urcompare(t, "diff", base, slow, "-fail-on-regression")
	if code != 1 || !strings.Contains(stderr, "1 regressions") || !strings.Contains(stdout, "copy.h2d") {
		t.Errorf("copy.h2d slowed a million times: exit %d, stderr %q; want 1 and 1 regression\n%s", code, stderr, stdout)
	}
	r, err := record.ReadFile(slow)
	if err != nil {
		t.Fatal(err)
	}
	if r.Settings.Env[envTestSlowdown] != "copy.h2d=1e6" {
		t.Errorf("the slowed run's settings %v do not say it was slowed", r.Settings.Env)
	}
	t.Setenv(envTestSlowdown, "copy.h2d=0")
	if code, _, stderr := urcompare(t, "run", "-device", "opencl:0", "-cases", "none", "-metrics", "copy.h2d", "-quiet"); code != 2 || !strings.Contains(stderr, "want METRIC=FACTOR") {
		t.Errorf("a bad slowdown: exit %d, %q; want 2", code, stderr)
	}
}

// TestDiffOfOldRecordsSaysSo diffs records without process medians: the
// output says where its noise came from.
func TestDiffOfOldRecordsSaysSo(t *testing.T) {
	good := writeRecord(t, "good.json", nil)
	code, stdout, _ := urcompare(t, "diff", good, good)
	if code != 0 || !strings.Contains(stdout, "note: 1 metrics: no process medians") || !strings.Contains(stdout, "rounds") {
		t.Errorf("diff of records without process medians: exit %d\n%s", code, stdout)
	}
}

// TestSlowedLaunchesAreARegression slows every launch of the launch metrics
// by 1ms through the harness's test hook and diffs the run against an
// unslowed one: -fail-on-regression must exit 1 and name the metrics. The
// rounds are of 200 launches, in 6 processes: rounds of 20 launches on two
// busy cores differ tenfold from one process to the next, which the diff
// rightly counts as noise, and with 4 processes and a 200µs delay a test
// run on cores other jobs loaded (load average 6 on 2) saw the base's
// processes spread so wide that a 17-fold slowdown stayed within the
// noise. A slowdown of some fifty-fold over 6+6 processes stays flagged
// unless one process in two is slowed as much by the machine.
func TestSlowedLaunchesAreARegression(t *testing.T) {
	metrics := []string{"-cases", "none", "-metrics", "launch.queue,launch.prepared,launch.event", "-rounds", "6", "-launches", "200"}
	base := filepath.Join(runOn(t, metrics...), report.RecordFile)
	t.Setenv(envTestLaunchDelay, "1ms")
	slow := filepath.Join(runOn(t, metrics...), report.RecordFile)
	code, stdout, stderr := urcompare(t, "diff", base, slow, "-fail-on-regression")
	if code != 1 || !strings.Contains(stderr, "3 regressions") {
		t.Errorf("slowed launches: exit %d, stderr %q; want 1 and 3 regressions\n%s", code, stderr, stdout)
	}
	for _, m := range []string{"launch.queue", "launch.prepared", "launch.event"} {
		if !strings.Contains(stdout, m) || strings.Count(stdout, "REGRESSION") != 3 {
			t.Errorf("the diff does not flag %s:\n%s", m, stdout)
		}
	}
	if code, _, _ := urcompare(t, "diff", base, slow); code != 0 {
		t.Errorf("without -fail-on-regression: exit %d, want 0", code)
	}
}

// writeRecord writes a small valid record, edited by edit, as JSON.
func writeRecord(t *testing.T, name string, edit func(*record.Record)) string {
	t.Helper()
	r := record.New()
	m := record.Metric{Name: "copy.h2d", Unit: "GB/s", Better: record.Higher, Rounds: []float64{10, 11, 12}, Check: record.CheckOK}
	m.Summarize()
	r.Devices = []record.Device{{ID: "cuda:0", Name: "H100", Metrics: []record.Metric{m}}}
	if edit != nil {
		edit(r)
	}
	path := filepath.Join(t.TempDir(), name)
	if err := r.WriteFile(path); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestMisuse(t *testing.T) {
	good := writeRecord(t, "good.json", nil)
	otherSchema := writeRecord(t, "v2.json", func(r *record.Record) { r.Schema = 2 })
	otherUnit := writeRecord(t, "mbs.json", func(r *record.Record) { r.Devices[0].Metrics[0].Unit = "MB/s" })
	malformed := filepath.Join(t.TempDir(), "bad.json")
	if err := os.WriteFile(malformed, []byte(`{"schema": 1, "devices": [`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		code int
		want string // in stderr
	}{
		{nil, 2, "no subcommand"},
		{[]string{"bogus"}, 2, `unknown subcommand "bogus"`},
		{[]string{"run", "-bogus"}, 2, "flag provided but not defined: -bogus"},
		{[]string{"run", "-metrics", "launch.bogus", "-device", "opencl:0"}, 2, `unknown metric "launch.bogus"`},
		{[]string{"run", "-cases", "TestBogus", "-device", "opencl:0"}, 2, `unknown conformance case "TestBogus"`},
		{[]string{"run", "-device", "bogus:0"}, 2, `unknown backend "bogus"`},
		{[]string{"run", "-device", "opencl:7"}, 1, "no device"},
		{[]string{"diff", good}, 2, "want two records"},
		{[]string{"diff", good, filepath.Join(t.TempDir(), "missing.json")}, 2, "missing.json"},
		{[]string{"diff", good, otherSchema}, 2, "schema version 2 (this urcompare reads 1)"},
		{[]string{"diff", good, malformed}, 2, "bad.json: malformed JSON"},
		{[]string{"diff", good, otherUnit}, 2, `unit "GB/s" in base, "MB/s" in new`},
		{[]string{"diff", "-metrics", "launch.bogus", good, good}, 2, `unknown metric "launch.bogus"`},
		{[]string{"diff", "-devices", "cuda:9", good, good}, 2, `unknown device "cuda:9"`},
		{[]string{"diff", "-threshold", "-1", good, good}, 2, "-min-effect must be positive"},
		{[]string{"diff", "-min-effect", "0", good, good}, 2, "-min-effect must be positive"},
		{[]string{"diff", "-confidence", "1", good, good}, 2, "-confidence must be between 0 and 1"},
		{[]string{"report", good}, 2, "no -o"},
		{[]string{"report", "-o", t.TempDir()}, 2, "want one record"},
	} {
		code, _, stderr := urcompare(t, tc.args...)
		if code != tc.code || !strings.Contains(stderr, tc.want) {
			t.Errorf("urcompare %q: exit %d, stderr %q; want %d and %q", tc.args, code, stderr, tc.code, tc.want)
		}
	}
}

func TestHelpExitsZero(t *testing.T) {
	for _, args := range [][]string{{"-h"}, {"--help"}, {"run", "-h"}, {"diff", "--help"}, {"metrics", "-h"}} {
		code, stdout, stderr := urcompare(t, args...)
		if code != 0 || !strings.HasPrefix(stdout, "usage: urcompare") || stderr != "" {
			t.Errorf("urcompare %q: exit %d, stdout %q, stderr %q; want 0 and the usage on stdout", args, code, stdout, stderr)
		}
	}
}

func TestDiffJSON(t *testing.T) {
	good := writeRecord(t, "good.json", nil)
	code, stdout, _ := urcompare(t, "diff", "-json", good, good)
	var res struct{ Metrics []struct{ Verdict string } }
	if err := json.Unmarshal([]byte(stdout), &res); code != 0 || err != nil || len(res.Metrics) != 1 || res.Metrics[0].Verdict != "same" {
		t.Errorf("diff -json: exit %d, %v: %s", code, err, stdout)
	}
}

func TestMetricsLists(t *testing.T) {
	code, stdout, _ := urcompare(t, "metrics")
	for _, m := range []string{"launch.queue", "cache.warm", "GFLOP/s"} {
		if code != 0 || !strings.Contains(stdout, m) {
			t.Errorf("urcompare metrics: exit %d, no %s:\n%s", code, m, stdout)
		}
	}
}
