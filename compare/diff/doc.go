// Package diff compares two driver comparison records (package record):
// per device and metric the ratio of the two runs, judged against the
// noise between processes, and the conformance cases whose status
// changed.
//
// # Noise
//
// Two runs of an unchanged build differ by what differs between the
// processes that measured them (where the driver put the buffers, which
// cores its threads ran on, the state of its caches and clocks), which on
// some drivers is far more than the rounds of one process vary: on the H100
// machine CUDA's launches differ by 25% between two processes and by 2%
// within one. A noise estimate from the rounds of one process flagged such
// differences as regressions and improvements; so the noise comes from
// the processes.
//
// Each run is taken as a sample of its child processes, each process one
// value, the median of its rounds (record.Metric.ProcessMedians), and two
// runs of an unchanged build as two samples of one population. On the
// logarithms of the process medians (a change is a ratio), a run's value
// is their mean (the geometric mean of the medians, MetricChange.Base and
// New), and the difference of the two means gets a confidence interval
// from Student's t, with the variance pooled over both runs (under
// "nothing changed" both runs have the same spread) and never below what
// the rounds within the processes give alone. A change is flagged when it
// lies outside the interval (Options.Confidence, 99.9%) and beyond the
// minimum effect (Options.MinEffect, 10%), which stands for what varies
// between runs beyond what their processes show (a machine busier, warmer
// or rebooted between them). MetricChange.Noise is the interval's
// half-width as a relative change: the smallest change the two runs can
// tell from chance, which the output shows beside each ratio.
//
// The confidence is high because a diff makes many comparisons: some fifty
// metrics of three devices, and a pair of identical runs must flag none of
// them. The price is resolution: with five processes a run (eight degrees
// of freedom), a metric whose processes agree within 1–3% (the GPUs'
// bandwidths, FMA, atomics, pinned copies) resolves a 10–20% change, one
// whose processes differ by 10–25% (launches, builds, pageable copies, a
// CPU device on busy cores) only a change of 50% or more; more processes
// (urcompare run -processes) narrow it.
//
// Rejected: the sum of both runs' relative half-ranges of the rounds (the
// former model), which measures the spread within processes and misses the
// one between them; a Mann–Whitney test on the process medians, which with
// five processes a run cannot reach a p-value below 0.008, too weak for
// fifty comparisons; a bootstrap, which with five values a run
// underestimates the spread; and a MAD of the process medians, robust to
// one wild process but, with five of them, too often near zero, where
// Student's t accounts for how little five values say.
//
// A record older than process medians has only its rounds. Where its
// settings say how its processes shared them and every round was taken,
// the rounds are split back by process (MetricChange.Basis says so);
// otherwise, and where a run had one process, the noise is the former
// sum of relative half-ranges, and Result.Notes say how many metrics
// fell back on it. Comparing a record with itself gives ratio 1
// everywhere and flags nothing.
//
// A metric whose correctness check went from ok to wrong, error or timeout
// is a regression whatever its numbers say; a case that went from pass or
// skip to fail or timeout is one too.
package diff
