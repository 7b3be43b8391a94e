package diff

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/gour-dev/gour/compare/record"
)

// The noise model. Two runs of the same build differ by what differs
// between the processes that measured them (where the driver put the
// buffers, which cores the threads ran on, the state of the driver's
// caches and of the clocks), which on some drivers is far more than the
// rounds of one process vary. So a run is taken as a sample of processes,
// each process one value, the median of its rounds; and two runs of an
// unchanged build as two samples of the same population. On the logarithm
// of the process medians (a slowdown is a ratio), the difference of the
// two runs' means has a confidence interval from Student's t with the
// variance pooled over both runs (under "nothing changed" both runs have
// the same spread), never below what the rounds within the processes
// alone would give. A change is flagged when it is outside that interval
// and larger than the minimum effect, which stands for what varies from
// one run to the next beyond what its processes show (a machine that was
// busier, warmer, or rebooted between the runs).

// sample is one run's process medians of a metric, as logarithms, with
// the variance of a process median that the rounds within the processes
// give on their own (0 where no process has two rounds).
type sample struct {
	logs  []float64
	floor float64
}

// processSample returns a metric's per-process sample, and how it was
// found: from the record's process medians, or, for a record from before
// they were kept, from the order of its rounds where the settings say how
// the processes shared them. ok is false where neither gives a sample.
func processSample(m *record.Metric, s record.Settings) (smp sample, reconstructed, ok bool) {
	groups := m.Processes()
	if groups == nil && len(m.ProcessRounds) == 0 {
		groups, reconstructed = splitRounds(m.Rounds, s), true
	}
	if groups == nil {
		return sample{}, false, false
	}
	var within, df, rounds float64
	for _, g := range groups {
		rounds += float64(len(g))
		med := record.Median(g)
		if med <= 0 || math.IsInf(med, 0) || math.IsNaN(med) {
			return sample{}, false, false
		}
		smp.logs = append(smp.logs, math.Log(med))
		if len(g) < 2 {
			continue
		}
		mean := 0.0
		for _, v := range g {
			if v <= 0 {
				return sample{}, false, false
			}
			mean += math.Log(v)
		}
		mean /= float64(len(g))
		for _, v := range g {
			within += (math.Log(v) - mean) * (math.Log(v) - mean)
		}
		df += float64(len(g) - 1)
	}
	if df > 0 {
		// The variance of one round over the rounds a process measures:
		// the least the variance of a process's median can be.
		smp.floor = within / df / (rounds / float64(len(groups)))
	}
	return smp, reconstructed, true
}

// splitRounds returns the rounds of each process of a record that kept
// only the rounds, in the order its processes measured them: process k's
// Rounds/Processes rounds, one more for the first Rounds%Processes. It
// is nil where that cannot be known: one process, or fewer rounds than
// asked for (a metric that stopped at its time budget).
func splitRounds(rounds []float64, s record.Settings) [][]float64 {
	p := s.Processes
	if p < 2 || len(rounds) != s.Rounds || len(rounds) < p {
		return nil
	}
	var out [][]float64
	total := len(rounds)
	for k := range p {
		n := total/p + btoi(k < total%p)
		out = append(out, rounds[:n:n])
		rounds = rounds[n:]
	}
	return out
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// interval compares two samples: d is the difference of their mean
// logarithms (new − base), hw the half-width of d's confidence interval at
// conf, df its degrees of freedom. ok is false where the samples cannot
// give a spread: fewer than three processes in all.
func interval(base, new sample, conf float64) (d, hw float64, df int, ok bool) {
	nb, nn := len(base.logs), len(new.logs)
	df = nb + nn - 2
	if nb == 0 || nn == 0 || df < 1 {
		return 0, 0, 0, false
	}
	mb, vb := meanSS(base.logs)
	mn, vn := meanSS(new.logs)
	pooled := (vb + vn) / float64(df)
	pooled = max(pooled, base.floor, new.floor)
	se := math.Sqrt(pooled * (1/float64(nb) + 1/float64(nn)))
	return mn - mb, tQuantile((1+conf)/2, df) * se, df, true
}

// meanSS returns the mean of xs and the sum of their squared deviations
// from it.
func meanSS(xs []float64) (mean, ss float64) {
	for _, x := range xs {
		mean += x
	}
	mean /= float64(len(xs))
	for _, x := range xs {
		ss += (x - mean) * (x - mean)
	}
	return mean, ss
}

// tQuantile is the p quantile of Student's t with df degrees of freedom.
func tQuantile(p float64, df int) float64 {
	return distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(df)}.Quantile(p)
}

// basis says what a comparison's noise came from, for the output.
func basis(nb, nn int, reconstructed bool) string {
	s := fmt.Sprintf("%d+%d processes", nb, nn)
	if reconstructed {
		s += " (from the order of the rounds)"
	}
	return s
}

// basisRounds is the basis of a comparison that fell back on the spread
// of the rounds.
const basisRounds = "rounds"
