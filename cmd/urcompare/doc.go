// Command urcompare compares vendor drivers: the same conformance cases
// and the same checked measurements through OpenCL, CUDA and Level Zero,
// on every device of a machine, kept as a versioned JSON record that a
// later run, after a driver update, is diffed against.
//
// Usage:
//
//	urcompare run [-device SELECTOR] [-o DIR] [-rounds N] [-launches N]
//	              [-metrics LIST] [-cases LIST] [-case-timeout D] [-metric-timeout D]
//	              [-metric-budget D] [-buffer-bytes N] [-kernel-time D] [-quiet]
//	urcompare diff [-threshold F] [-metrics LIST] [-devices LIST] [-fail-on-regression] [-json] BASE.json NEW.json
//	urcompare metrics
//
// # run
//
// run selects devices as every gour command does: -device, else
// ONEAPI_DEVICE_SELECTOR, else every device. On each it runs the
// conformance cases (the pass/fail/skip matrix of package conformance,
// with each skip's and failure's reason and each case's duration), then
// the metrics that 'urcompare metrics' lists: launch latency of a
// one-work-item kernel through Queue.Launch, PreparedLaunch and
// EnqueueKernel with an event; host-to-device, device-to-host (pageable
// Go memory) and device-to-device bandwidth; axpy bandwidth; FMA GFLOP/s
// against a peak of compute units × clock × lanes × 2 (the lanes per
// compute unit are assumed per vendor, as the record's detail says);
// local memory bandwidth; atomic adds per second; cold build time, build
// time from the binary, and a new process's first GetKernel with gour's
// persistent cache warm. Each is measured -rounds times after a warm-up,
// and each checks its results: a driver that is fast and wrong is
// reported wrong, not fast. The kernels are in OpenCL C and CUDA C,
// chosen by backend.
//
// Each device's work runs in child processes of urcompare. A case or a
// metric that runs past its timeout gets its child killed and is recorded
// as timed out; a child that crashes has the case or metric it was on
// recorded as failed; either way the device's remaining work goes on in a
// new child. The drivers' own kernel caches are turned off in the children
// (POCL_KERNEL_CACHE=0, CUDA_CACHE_DISABLE=1) unless the environment sets
// them.
//
// run writes, into -o DIR: record.json (package compare/record), report.md,
// charts/<metric>.svg and .png (gonum/plot), and report.html, one page
// holding all of them. It draws a progress bar per phase on standard error
// when that is a terminal and -quiet is not given.
//
// With the defaults (10 rounds, 2000 launches per round, 256 MiB
// transfers on a GPU) a run over an H100's CUDA and OpenCL devices and
// PoCL should take under 5 minutes. What that assumes: the conformance
// cases of a device run in one child process (a new one only after a
// timeout or a crash), about a minute per device (PoCL here: 40–60 s on
// two CPU cores); a metric takes its -rounds, but stops after 3 once it
// has run for -metric-budget (15 s), so the metrics whose rounds are
// slow on a GPU (cache.warm starts a process per round, with the
// driver's initialization; build.cold compiles with NVRTC or the OpenCL
// driver each round) cost at most about that, and a device's 13 metrics
// a minute or two at worst (about 8 s on PoCL with -buffer-bytes 4194304).
// A case or a metric that hangs costs its timeout, -case-timeout or
// -metric-timeout, and no more: its child's whole process group is killed,
// a case's own child process (Fixture.RunInChild) with it. run prints
// each device's time per phase and each metric's, and report.md has them
// under "Time", to show where a long run went. -rounds, -launches,
// -buffer-bytes, -kernel-time and -metric-budget trade precision for time.
//
// # diff
//
// diff compares two records, matching devices by id ("cuda:0") and
// metrics by name, and prints per metric the ratio of the medians with a
// noise estimate from the rounds: the sum of both runs' relative
// half-ranges, (max − min) / (2·median), floored at -threshold (5 %). A
// change beyond the noise is a regression or an improvement; a check
// that stopped being ok and a case that started failing are regressions.
// A record diffed with itself flags nothing. -fail-on-regression makes
// regressions exit 1, for CI.
//
// # Exit status
//
//	0  done (for diff: also with regressions, unless -fail-on-regression)
//	1  failure: no device, a device that could not run at all, regressions with -fail-on-regression
//	2  misuse: a bad flag or argument, an unknown metric, case or device,
//	   a record that is malformed, of another schema version, or in other units
//
// -h and --help print the usage and exit 0.
//
// # Test hook
//
// GOUR_URCOMPARE_TEST_LAUNCH_DELAY=50us makes a deliberately slow driver
// for tests: the launch metrics spin that long after every launch, in
// urcompare's own loop, never in gour's launch path.
package main
