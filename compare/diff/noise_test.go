package diff

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/gour-dev/gour/compare/record"
)

func TestTQuantile(t *testing.T) {
	for _, c := range []struct {
		p    float64
		df   int
		want float64
	}{{0.975, 10, 2.228}, {0.975, 2, 4.303}, {0.9995, 8, 5.041}, {0.995, 1, 63.657}} {
		if got := tQuantile(c.p, c.df); math.Abs(got-c.want) > 0.001 {
			t.Errorf("t quantile %g, %d df = %.4f, want %.3f", c.p, c.df, got, c.want)
		}
	}
}

func TestInterval(t *testing.T) {
	base := sample{logs: []float64{0, 0.1}}
	new := sample{logs: []float64{0.2, 0.3}}
	// Pooled variance (0.005 + 0.005) / 2, standard error √(0.005·(½+½)),
	// t(0.975, 2 df) = 4.303.
	d, hw, df, ok := interval(base, new, 0.95)
	if !ok || df != 2 || math.Abs(d-0.2) > 1e-12 || math.Abs(hw-4.3027*math.Sqrt(0.005)) > 1e-3 {
		t.Errorf("interval = %g ± %g (%d df, %v), want 0.2 ± %.4f (2 df)", d, hw, df, ok, 4.3027*math.Sqrt(0.005))
	}
	// The rounds within the processes bound the spread from below.
	base.floor, new.floor = 0.02, 0
	if _, hw2, _, _ := interval(base, new, 0.95); math.Abs(hw2-4.3027*math.Sqrt(0.02)) > 1e-3 {
		t.Errorf("floored interval ± %g, want ± %.4f", hw2, 4.3027*math.Sqrt(0.02))
	}
	if _, _, _, ok := interval(sample{logs: []float64{1}}, sample{logs: []float64{2}}, 0.95); ok {
		t.Error("one process a run gives an interval; want none (no spread to take)")
	}
}

func TestProcessSample(t *testing.T) {
	m := record.Metric{Rounds: []float64{1, 3, 4, 4, 8}, ProcessRounds: []int{2, 1, 2}}
	m.Summarize()
	if want := []float64{2, 4, 6}; fmt.Sprint(m.ProcessMedians) != fmt.Sprint(want) {
		t.Fatalf("process medians %v, want %v", m.ProcessMedians, want)
	}
	s, rebuilt, ok := processSample(&m, record.Settings{})
	if !ok || rebuilt || len(s.logs) != 3 || math.Abs(s.logs[2]-math.Log(6)) > 1e-12 {
		t.Errorf("sample %+v (rebuilt %v, ok %v), want the logarithms of 2, 4, 6", s, rebuilt, ok)
	}
	// Within: (ln 1 − ln √3)² + (ln 3 − ln √3)² + the same for 4, 8, over
	// 2 df, divided by 5/3 rounds a process.
	within := (2*math.Pow(math.Log(3)/2, 2) + 2*math.Pow(math.Log(2)/2, 2)) / 2 / (5.0 / 3)
	if math.Abs(s.floor-within) > 1e-12 {
		t.Errorf("floor %g, want %g", s.floor, within)
	}

	// A record older than process medians: split by its settings where
	// every round was taken, not where a budget cut them short.
	old := record.Metric{Rounds: []float64{1, 2, 3, 10, 20}}
	s, rebuilt, ok = processSample(&old, record.Settings{Rounds: 5, Processes: 2})
	if !ok || !rebuilt || len(s.logs) != 2 || math.Abs(s.logs[0]-math.Log(2)) > 1e-12 || math.Abs(s.logs[1]-math.Log(15)) > 1e-12 {
		t.Errorf("an old record split by its settings: %+v, %v, %v; want the medians 2 and 15", s, rebuilt, ok)
	}
	for _, set := range []record.Settings{{Rounds: 10, Processes: 2}, {Rounds: 5, Processes: 1}, {Rounds: 5}} {
		if _, _, ok := processSample(&old, set); ok {
			t.Errorf("5 rounds with settings %+v: a sample; want none", set)
		}
	}
}

// profile is how a metric varies on a real machine: a process draws its
// own level (log-normal with sdProcess, or, with bimodal > 1, one of two
// levels that far apart), and each round varies around it by sdRound;
// on the noisy metrics (sdProcess of 5 % or more), one round in 20 is an
// outlier, 1.6 times worse, as the launches' and builds' rounds show.
type profile struct {
	device, name, unit string
	better             record.Better
	value              float64
	sdProcess, sdRound float64
	bimodal            float64
}

func (p profile) outliers() float64 {
	if p.sdProcess >= 0.05 || p.bimodal > 1 {
		return 0.05
	}
	return 0
}

// machine is the H100 machine's three devices as its records show them
// (docs/drivers/record.json): quiet bandwidths and FMA on the GPUs,
// launches that differ by 10–25 % from one process to the next, host
// copies of pageable memory that jump between two levels (CUDA's
// copy.d2h: 6–9 GB/s in one process, 11–13.5 in the next), and PoCL on
// two busy cores, where copy.d2d takes one of two levels 47 % apart (the
// ±37 % of the first comparisons) and axpy drifts fourfold within a
// process.
func machine() []profile {
	var ps []profile
	gpu := func(dev string, launch float64) {
		ps = append(ps,
			profile{dev, "launch.queue", "ns", record.Lower, launch, 0.12, 0.05, 0},
			profile{dev, "launch.prepared", "ns", record.Lower, launch * 0.93, 0.08, 0.03, 0},
			profile{dev, "launch.event", "ns", record.Lower, launch * 1.5, 0.12, 0.12, 0},
			profile{dev, "copy.h2d", "GB/s", record.Higher, 6.6, 0.08, 0.05, 0},
			profile{dev, "copy.d2h", "GB/s", record.Higher, 7.5, 0.05, 0.1, 1.65},
			profile{dev, "copy.pinned.h2d", "GB/s", record.Higher, 52, 0.03, 0.015, 0},
			profile{dev, "copy.pinned.d2h", "GB/s", record.Higher, 54, 0.005, 0.003, 0},
			profile{dev, "copy.d2d", "GB/s", record.Higher, 2950, 0.004, 0.002, 0},
			profile{dev, "axpy", "GB/s", record.Higher, 2480, 0.004, 0.003, 0},
			profile{dev, "fma", "GFLOP/s", record.Higher, 60600, 0.003, 0.002, 0},
			profile{dev, "local.bandwidth", "GB/s", record.Higher, 20400, 0.003, 0.002, 0},
			profile{dev, "atomics", "Gop/s", record.Higher, 64, 0.005, 0.005, 0},
			profile{dev, "build.cold", "ms", record.Lower, 105, 0.12, 0.06, 0},
			profile{dev, "build.binary", "ms", record.Lower, 0.042, 0.08, 0.1, 0},
			profile{dev, "cache.warm", "ms", record.Lower, 0.45, 0.08, 0.08, 0},
		)
	}
	gpu("cuda:0", 4400)
	gpu("opencl:1", 11500)
	const pocl = "opencl:0"
	ps = append(ps,
		profile{pocl, "launch.queue", "ns", record.Lower, 45000, 0.12, 0.06, 0},
		profile{pocl, "launch.prepared", "ns", record.Lower, 42000, 0.15, 0.08, 0},
		profile{pocl, "launch.event", "ns", record.Lower, 46000, 0.1, 0.06, 0},
		profile{pocl, "copy.h2d", "GB/s", record.Higher, 5.3, 0.04, 0.05, 0},
		profile{pocl, "copy.d2h", "GB/s", record.Higher, 5.4, 0.06, 0.07, 0},
		profile{pocl, "copy.d2d", "GB/s", record.Higher, 10.3, 0.03, 0.08, 1.47},
		profile{pocl, "axpy", "GB/s", record.Higher, 90, 0.25, 0.4, 0},
		profile{pocl, "fma", "GFLOP/s", record.Higher, 66, 0.18, 0.08, 0},
		profile{pocl, "local.bandwidth", "GB/s", record.Higher, 20, 0.1, 0.1, 1.7},
		profile{pocl, "atomics", "Gop/s", record.Higher, 0.23, 0.15, 0.12, 0},
		profile{pocl, "build.cold", "ms", record.Lower, 240, 0.15, 0.12, 0},
		profile{pocl, "build.binary", "ms", record.Lower, 8, 0.2, 0.3, 0},
		profile{pocl, "cache.warm", "ms", record.Lower, 7, 0.1, 0.1, 0},
	)
	return ps
}

// simulate makes a record of a run of the machine: processes child
// processes sharing rounds rounds per metric, as Run does, with the
// metric slow (its value made worse by that factor, 1 for none).
func simulate(r *rand.Rand, ps []profile, processes, rounds int, slow map[string]float64) *record.Record {
	rec := record.New()
	rec.Settings = record.Settings{Rounds: rounds, Processes: processes}
	for _, p := range ps {
		d := rec.Device(p.device)
		if d == nil {
			rec.Devices = append(rec.Devices, record.Device{ID: p.device, Name: p.device})
			d = &rec.Devices[len(rec.Devices)-1]
		}
		worse := 1.0
		if f, ok := slow[p.device+" "+p.name]; ok {
			worse = f
		}
		m := record.Metric{Name: p.name, Unit: p.unit, Better: p.better, Check: record.CheckOK}
		for k := range processes {
			level := p.value * math.Exp(p.sdProcess*r.NormFloat64())
			if p.bimodal > 1 && r.IntN(2) == 1 {
				level *= p.bimodal
			}
			n := rounds/processes + btoi(k < rounds%processes)
			for range n {
				v := level * math.Exp(p.sdRound*r.NormFloat64())
				bad := 1.0
				if r.Float64() < p.outliers() {
					bad = 1.6
				}
				if p.better == record.Lower {
					v *= worse * bad
				} else {
					v /= worse * bad
				}
				m.Rounds = append(m.Rounds, v)
			}
			m.ProcessRounds = append(m.ProcessRounds, n)
		}
		m.Summarize()
		d.Metrics = append(d.Metrics, m)
	}
	return rec
}

func flagged(res *Result) []string {
	var out []string
	for _, m := range res.Metrics {
		if m.Verdict != Same {
			out = append(out, fmt.Sprintf("%s %s %s (ratio %.3f, noise ±%.1f%%)", m.Device, m.Metric, m.Verdict, m.Ratio, 100*m.Noise))
		}
	}
	return out
}

// TestIdenticalRunsFlagNothing compares pairs of simulated runs of an
// unchanged build, with the noise the H100 machine shows, at the default
// five processes of two rounds each.
func TestIdenticalRunsFlagNothing(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	ps := machine()
	for pair := range 3 {
		res, err := Compare(simulate(r, ps, 5, 10, nil), simulate(r, ps, 5, 10, nil), Options{})
		if err != nil {
			t.Fatal(err)
		}
		if f := flagged(res); len(f) > 0 {
			t.Errorf("pair %d of identical runs: flagged %s", pair, strings.Join(f, "; "))
		}
		for _, n := range res.Notes {
			t.Errorf("pair %d: note %q, want none (every metric has its process medians)", pair, n)
		}
	}
	// Over many pairs, the false flags stay rare: fewer than 1 in 500
	// comparisons (the confidence is 99.9 %, and the minimum effect
	// keeps the quiet metrics out of it altogether).
	var n, false_ int
	var seen []string
	for range 200 {
		res, _ := Compare(simulate(r, ps, 5, 10, nil), simulate(r, ps, 5, 10, nil), Options{})
		n += len(res.Metrics)
		f := flagged(res)
		false_ += len(f)
		seen = append(seen, f...)
	}
	if rate := float64(false_) / float64(n); rate > 1.0/500 {
		t.Errorf("%d false flags in %d comparisons of identical runs (%.2f%%): %s", false_, n, 100*rate, strings.Join(seen, "; "))
	}
	t.Logf("%d false flags in %d comparisons of identical runs", false_, n)
}

// TestInjectedSlowdownIsFlagged slows one metric by 20 % in the new run of
// each pair: it is flagged, and nothing else is.
func TestInjectedSlowdownIsFlagged(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	ps := machine()
	for _, metric := range []string{"cuda:0 axpy", "cuda:0 copy.pinned.h2d", "opencl:1 copy.d2d", "cuda:0 fma"} {
		for pair := range 3 {
			res, err := Compare(simulate(r, ps, 5, 10, nil), simulate(r, ps, 5, 10, map[string]float64{metric: 1.2}), Options{})
			if err != nil {
				t.Fatal(err)
			}
			f := flagged(res)
			if len(f) != 1 || !strings.HasPrefix(f[0], metric+" regression") {
				t.Errorf("%s 20 %% slower (pair %d): flagged %q, want it alone as a regression", metric, pair, f)
			}
		}
	}
}

// TestTheProcessesSetTheResolution shows why the noise must come from the
// processes: the launches of one process vary by a few percent, of one
// process to the next by 10–25 %. A 20 % slower CUDA launch is within
// what five processes can tell from chance, so it is not flagged; a
// doubling is.
func TestTheProcessesSetTheResolution(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	ps := machine()
	res, err := Compare(simulate(r, ps, 5, 10, nil), simulate(r, ps, 5, 10, map[string]float64{"cuda:0 launch.queue": 2}), Options{Devices: []string{"cuda:0"}, Metrics: []string{"launch.queue"}})
	if err != nil {
		t.Fatal(err)
	}
	if m := res.Metrics[0]; m.Verdict != Regression || m.Noise < 0.15 || m.Basis != "5+5 processes" {
		t.Errorf("launches twice as slow: %s, noise ±%.1f%% from %s; want a regression, noise over 15 %% from 5+5 processes", m.Verdict, 100*m.Noise, m.Basis)
	}
}

// TestOldRecordsFallBack compares records without process medians: split
// from the rounds' order where the settings allow, else the rounds'
// spread, and the notes say which.
func TestOldRecordsFallBack(t *testing.T) {
	strip := func(rec *record.Record) *record.Record {
		for i := range rec.Devices {
			for j := range rec.Devices[i].Metrics {
				m := &rec.Devices[i].Metrics[j]
				m.ProcessRounds, m.ProcessMedians = nil, nil
			}
		}
		return rec
	}
	r := rand.New(rand.NewPCG(7, 8))
	ps := machine()[:3]
	base, new := strip(simulate(r, ps, 2, 10, nil)), strip(simulate(r, ps, 2, 10, nil))
	res, err := Compare(base, new, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if m := res.Metrics[0]; m.Basis != "2+2 processes (from the order of the rounds)" || len(res.Notes) != 1 || !strings.Contains(res.Notes[0], "split from its rounds") {
		t.Errorf("old records of 2 processes: basis %q, notes %q; want 2+2 processes from the order of the rounds, and a note", m.Basis, res.Notes)
	}
	base.Settings.Processes, new.Settings.Processes = 0, 0
	res, _ = Compare(base, new, Options{})
	if m := res.Metrics[0]; m.Basis != basisRounds || len(res.Notes) != 1 || !strings.Contains(res.Notes[0], "spread of the rounds") {
		t.Errorf("old records of one process: basis %q, notes %q; want the rounds, and a note", m.Basis, res.Notes)
	}
}

func TestBadConfidence(t *testing.T) {
	for _, c := range []float64{-0.5, 1, 2} {
		if _, err := Compare(base(), base(), Options{Confidence: c}); err == nil {
			t.Errorf("confidence %g: no error", c)
		}
	}
}
