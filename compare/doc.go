// Package compare runs gour's vendor driver comparison: the same
// conformance cases and the same checked measurements through every
// adapter × device of a machine, into a versioned record (package
// compare/record) that reports (compare/report) present and a later run,
// after a driver update, is diffed against (compare/diff). cmd/urcompare
// is its command.
//
// # What a run does
//
// Run takes the devices to compare, from ur.Discover. On each, it runs the
// conformance cases of package conformance and keeps each case's status
// (pass, fail, skip, timeout), its reason and its duration; then it
// measures the metrics Metrics lists, each for Options.Rounds rounds after
// an untimed warm-up (fewer, but at least 3, once it has taken
// Options.MetricBudget). Each device's phases and each metric are timed. Every benchmark checks what the device computed or
// copied — the launch counter saw every launch, copies match their
// source, axpy, the FMA chains, the local memory reads and the atomic
// counters give the values the host expects — and a wrong result marks the
// metric wrong instead of giving it a number. The kernels are OpenCL C and
// CUDA C (kernels/bench.cl, kernels/bench.cu), chosen by backend.
//
// Times are taken on the host around the work and the wait for it, the
// same way on every driver: event profiling differs too much between
// drivers to compare them by it. The FMA metric's peak is compute units ×
// maximum clock × lanes × 2 flops, with lanes per compute unit assumed per
// vendor and device type (PeakLanes), since no driver reports them.
//
// # Child processes
//
// A device's work runs in child processes of the running program, which
// must call RunChild first thing in main (and in TestMain for a test
// binary). The conformance cases run in a child as the top-level tests of
// a go test run in verbose mode (testing.Main); the parent reads their
// results from its output. This is sturdier than running them in the
// parent: a driver call that never returns cannot be interrupted inside a
// process, but a child can be killed. When a case or a metric runs past
// its timeout (from its start), the parent kills the child's process
// group (a case's own child process, Fixture.RunInChild, with it), records
// the timeout, and goes on
// with the rest of the device's work in a new child; a child that crashes
// has the case or metric it was on recorded as failed, the same way. A
// separately built conformance test binary would do as well but would have
// to be found and kept in step; the running program is always at hand.
//
// The children run with the drivers' own kernel caches off
// (POCL_KERNEL_CACHE=0, CUDA_CACHE_DISABLE=1) unless the environment sets
// them, so that a cold build is cold and the warm start measures gour's
// persistent cache alone.
//
// # Processes and noise
//
// A metric's rounds are shared by Options.Processes child processes
// (DefaultProcesses, 5), one after the other, each measuring its share
// after its own warm-up; the record keeps which rounds each measured and
// each one's median (record.Metric.ProcessRounds, ProcessMedians). What
// changes from one process to the next (where the driver puts the
// buffers, which cores its threads run on, the state of its caches and of
// the clocks) is on some drivers far more than what changes within one:
// on the H100 machine, CUDA's launches differ by 25% between two
// processes and by 2% within one, and PoCL's device-to-device copy sits
// at one of two levels 47% apart. A diff of two runs of an unchanged
// build therefore takes its noise from the spread of the process medians,
// not of the rounds (package compare/diff says how), and a metric that is
// not ok in one process is left out of the processes after it: it is not
// ok in the record whatever they give, and a metric that hangs costs its
// timeout once.
//
// Options.Slowdown, a test hook, makes named metrics worse by a known
// factor, each round multiplied (a time) or divided (a rate) by it, so
// that a diff can be shown to flag a change of known size on a real
// machine's noise.
package compare
