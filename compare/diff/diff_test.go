package diff

import (
	"errors"
	"strings"
	"testing"

	"github.com/gour-dev/gour/compare/record"
)

func metric(name, unit string, better record.Better, rounds ...float64) record.Metric {
	m := record.Metric{Name: name, Unit: unit, Better: better, Rounds: rounds, Check: record.CheckOK}
	m.Summarize()
	return m
}

func rec(metrics []record.Metric, cases ...record.Case) *record.Record {
	r := record.New()
	r.Devices = []record.Device{{ID: "cuda:0", Name: "H100", Metrics: metrics, Conformance: cases}}
	return r
}

func base() *record.Record {
	return rec([]record.Metric{
		metric("launch.queue", "ns", record.Lower, 2000, 2050, 1990, 2010),
		metric("copy.h2d", "GB/s", record.Higher, 20, 21, 19.5, 20.2),
	}, record.Case{Name: "TestA", Status: record.Pass}, record.Case{Name: "TestB", Status: record.Skip})
}

func verdicts(t *testing.T, res *Result) map[string]Verdict {
	t.Helper()
	out := map[string]Verdict{}
	for _, m := range res.Metrics {
		out[m.Metric] = m.Verdict
	}
	return out
}

func TestSelfDiffFlagsNothing(t *testing.T) {
	b := base()
	res, err := Compare(b, b, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if n := res.Regressions(); n != 0 {
		t.Errorf("a record against itself: %d regressions", n)
	}
	for _, m := range res.Metrics {
		if m.Verdict != Same || m.Ratio != 1 {
			t.Errorf("%s against itself: ratio %g, verdict %s; want 1, same", m.Metric, m.Ratio, m.Verdict)
		}
	}
	if len(res.Cases) != 0 {
		t.Errorf("cases changed against itself: %+v", res.Cases)
	}
}

func TestSlowerAndFasterBeyondTheNoise(t *testing.T) {
	slow := rec([]record.Metric{
		metric("launch.queue", "ns", record.Lower, 2600, 2650, 2590, 2610), // 30 % slower
		metric("copy.h2d", "GB/s", record.Higher, 30, 31, 29.5, 30.2),      // 50 % faster
	})
	res, err := Compare(base(), slow, Options{})
	if err != nil {
		t.Fatal(err)
	}
	v := verdicts(t, res)
	if v["launch.queue"] != Regression || v["copy.h2d"] != Improvement {
		t.Errorf("verdicts %v, want launch.queue a regression and copy.h2d an improvement", v)
	}
	if res.Regressions() != 1 {
		t.Errorf("%d regressions, want 1", res.Regressions())
	}
}

func TestNoisyRoundsHideAChange(t *testing.T) {
	// 30 % slower, but the rounds of each run spread over ±40 %.
	noisyBase := rec([]record.Metric{metric("launch.queue", "ns", record.Lower, 1200, 2000, 2800)})
	noisyNew := rec([]record.Metric{metric("launch.queue", "ns", record.Lower, 1600, 2600, 3600)})
	res, err := Compare(noisyBase, noisyNew, Options{})
	if err != nil {
		t.Fatal(err)
	}
	m := res.Metrics[0]
	if m.Verdict != Same || m.Noise < 0.7 {
		t.Errorf("noisy 30 %% change: verdict %s, noise %.2f; want same, noise ≥ 0.7", m.Verdict, m.Noise)
	}
}

func TestWithinMinEffect(t *testing.T) {
	quiet := rec([]record.Metric{metric("launch.queue", "ns", record.Lower, 2000, 2000, 2000)})
	slower := rec([]record.Metric{metric("launch.queue", "ns", record.Lower, 2160, 2160, 2160)}) // 8 %
	for minEffect, want := range map[float64]Verdict{0: Same, 0.05: Regression} {
		res, err := Compare(quiet, slower, Options{MinEffect: minEffect})
		if err != nil {
			t.Fatal(err)
		}
		if got := res.Metrics[0].Verdict; got != want {
			t.Errorf("8 %% slower, no noise, minimum effect %g: %s, want %s", minEffect, got, want)
		}
	}
}

func TestWrongIsARegression(t *testing.T) {
	wrong := base()
	wrong.Devices[0].Metrics[1].Check = record.CheckWrong
	wrong.Devices[0].Metrics[1].Detail = "the buffer differs at byte 12"
	res, err := Compare(base(), wrong, Options{})
	if err != nil {
		t.Fatal(err)
	}
	m := res.Metrics[1]
	if m.Verdict != Regression || !strings.Contains(m.Note, "byte 12") {
		t.Errorf("a check gone wrong: %s (%s), want a regression saying why", m.Verdict, m.Note)
	}
	res, _ = Compare(wrong, wrong, Options{})
	if res.Metrics[1].Verdict != Unchecked {
		t.Errorf("wrong in both: %s, want unchecked", res.Metrics[1].Verdict)
	}
}

func TestCaseChanges(t *testing.T) {
	n := base()
	n.Devices[0].Conformance = []record.Case{{Name: "TestA", Status: record.Fail, Reason: "boom"}, {Name: "TestB", Status: record.Skip}, {Name: "TestC", Status: record.Pass}}
	res, err := Compare(base(), n, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Cases) != 2 || res.Cases[0].Verdict != Regression || res.Cases[0].Reason != "boom" || res.Cases[1].Verdict != OnlyNew {
		t.Errorf("cases %+v, want TestA a regression and TestC only in new", res.Cases)
	}
}

func TestMismatchedUnits(t *testing.T) {
	other := base()
	other.Devices[0].Metrics[1].Unit = "MB/s"
	_, err := Compare(base(), other, Options{})
	var mm *MismatchError
	if !errors.As(err, &mm) || !strings.Contains(err.Error(), `unit "GB/s" in base, "MB/s" in new`) {
		t.Errorf("units differ: %v, want a *MismatchError naming both", err)
	}
}

func TestUnknownNames(t *testing.T) {
	for _, opts := range []Options{{Metrics: []string{"launch.bogus"}}, {Devices: []string{"cuda:7"}}} {
		_, err := Compare(base(), base(), opts)
		if !errors.Is(err, ErrUnknown) {
			t.Errorf("%+v: %v, want ErrUnknown", opts, err)
		}
	}
	res, err := Compare(base(), base(), Options{Metrics: []string{"copy.h2d"}, Devices: []string{"cuda:0"}})
	if err != nil || len(res.Metrics) != 1 || res.Metrics[0].Metric != "copy.h2d" {
		t.Errorf("one metric asked for: %+v, %v", res, err)
	}
}

func TestDevicesInOneRecordOnly(t *testing.T) {
	n := base()
	n.Devices[0].ID = "cuda:1"
	res, err := Compare(base(), n, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Metrics) != 0 || len(res.Notes) != 2 || !strings.Contains(res.Notes[0], "only in base") {
		t.Errorf("disjoint devices: %+v, want two notes and nothing compared", res)
	}
}
