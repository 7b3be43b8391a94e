// Package bench holds benchmarks that compare gour with a baseline in the
// same run: the baseline in C (c/launch.c), gour's side as a testing.B
// benchmark (launch_test.go) and as a program printing the same line as the
// C one (golaunch). launch.sh builds both, runs them interleaved and prints
// the ratio gour/C; docs/benchmarks.md records its output.
//
// The launch benchmark times, on the first PoCL CPU device, N times
// (set the buffer argument + launch a 1024-work-item kernel, no event)
// followed by one Finish, in R rounds, and reports the median nanoseconds
// per launch.
package bench
