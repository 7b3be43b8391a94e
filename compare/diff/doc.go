// Package diff compares two driver comparison records (package record):
// per device and metric the ratio of the medians, judged against the noise
// the rounds themselves show, and the conformance cases whose status
// changed.
//
// # Noise
//
// Each record keeps every round of a metric. The relative half-range of a
// run's rounds, (max − min) / (2·median), is how far one round strays from
// the median in that run; the sum of both runs' half-ranges is how far the
// medians may differ while the two sets of rounds still overlap. A change
// is flagged only beyond that sum and beyond a floor (Options.Threshold,
// 5 % by default), so a quiet metric is held to 5 % and a noisy one to its
// own spread. The range is used rather than a rank test because runs have
// few rounds (often 5 to 10), where a Mann–Whitney test cannot reach small
// p-values and the range is the more conservative of the two. Comparing a
// record with itself gives ratio 1 everywhere and flags nothing.
//
// A metric whose correctness check went from ok to wrong, error or timeout
// is a regression whatever its numbers say; a case that went from pass or
// skip to fail or timeout is one too.
package diff
