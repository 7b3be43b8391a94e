// Command urcompare compares vendor drivers: the same conformance cases
// and the same checked measurements through OpenCL, CUDA and Level Zero,
// on every device of a machine, kept as a versioned JSON record that a
// later run, after a driver update, is diffed against.
//
// Usage:
//
//	urcompare run [-device SELECTOR] [-o DIR] [-rounds N] [-processes N] [-launches N]
//	              [-metrics LIST] [-cases LIST] [-case-timeout D] [-metric-timeout D]
//	              [-metric-budget D] [-buffer-bytes N] [-kernel-time D] [-quiet]
//	urcompare diff [-min-effect F] [-confidence F] [-metrics LIST] [-devices LIST]
//	               [-fail-on-regression] [-json] BASE.json NEW.json
//	urcompare report -o DIR [-charts-only] RECORD.json
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
// EnqueueLaunch with an event; host-to-device, device-to-host (pageable
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
// A metric's -rounds are shared by -processes child processes (5), one
// after the other, and the record keeps each process's median: diff takes
// its noise from their spread.
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
// charts/<metric>.svg and .png (gonum/plot: a horizontal bar per device,
// named by its name, id and platform, its median written on it, whiskers
// from its lowest to its highest round, and a logarithmic axis where the
// medians span more than a factor of 20), and report.html, one page
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
// -processes trades the resolution of a later diff for time: each process
// starts the device's context, builds the kernels and warms every metric
// up, and a process's share of the rounds is not cut by the budget below
// its 3 rounds, so five processes cost a device's metrics about 1.5–2×
// what two did (15–35 s a device on the H100 machine with two; a metric
// that hangs still costs its timeout once, the processes after it leaving
// it out).
//
// # diff
//
// diff compares two records, matching devices by id ("cuda:0") and
// metrics by name. Each run is a sample of its processes, each giving the
// median of its rounds; diff prints per metric the geometric mean of the
// process medians of each run, their ratio, and the noise: the half-width
// of the ratio's confidence interval (-confidence, 99.9%) from the spread
// of the process medians of both runs (package compare/diff has the
// model). A change beyond the noise and beyond -min-effect (10%; its
// former name -threshold still works) is a regression or an improvement;
// a check that stopped being ok and a case that started failing are
// regressions. The "from" column says what the noise came from; records
// older than process medians are split back by process where their
// settings allow, else fall back on the spread of their rounds, and a
// note says so. A record diffed with itself flags nothing.
// -fail-on-regression makes regressions exit 1, for CI.
//
// # report
//
// report writes the report of a record again (report.md, report.html and
// the charts into -o DIR, not the record), e.g. after the charts changed;
// -charts-only writes only the SVG charts, the form docs/drivers keeps:
//
//	urcompare report -charts-only -o docs/drivers docs/drivers/record.json
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
// GOUR_URCOMPARE_TEST_SLOWDOWN=axpy=1.2 makes the named metrics (a
// comma-separated list of METRIC=FACTOR) that many times worse, each
// round multiplied (a time) or divided (a rate) by the factor, to show
// that diff flags a change of a known size on a real machine's noise:
//
//	urcompare run -o base; urcompare run -o same
//	GOUR_URCOMPARE_TEST_SLOWDOWN=axpy=1.2 urcompare run -o slow
//	urcompare diff base/record.json same/record.json   # 0 regressions
//	urcompare diff base/record.json slow/record.json   # axpy: REGRESSION
//
// Both variables are kept in the record's settings.
package main
