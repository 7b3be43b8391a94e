package compare

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"slices"
	"strings"
	"time"

	"github.com/gour-dev/gour/compare/record"
	"github.com/gour-dev/gour/ur"
)

// The benchmark kernels, in the language each backend builds from source.
var (
	//go:embed kernels/bench.cl
	openclSource string
	//go:embed kernels/bench.cu
	cudaSource string
)

// kernelSource returns the benchmark kernels for a backend.
func kernelSource(backend string) (string, error) {
	switch backend {
	case "opencl":
		return openclSource, nil
	case "cuda":
		return cudaSource, nil
	}
	return "", &ur.Error{Result: ur.ErrUnsupportedFeature, Op: "compare", Adapter: backend,
		Message: "no benchmark kernels for this backend: they are in OpenCL C and CUDA C"}
}

// MetricInfo describes one metric that Run can measure.
type MetricInfo struct {
	Name   string
	Unit   string
	Better record.Better
	Doc    string
}

// metric is a MetricInfo and how to measure it on a bench.
type metric struct {
	MetricInfo
	// measure fills m.Rounds, or returns a *wrongError when the results
	// were wrong, or another error when a call failed.
	measure func(b *bench, m *record.Metric) error
}

var metrics = []metric{
	{MetricInfo{"launch.queue", "ns", record.Lower, "a one-work-item kernel launched by Queue.Launch, per launch until Finish returns"}, (*bench).launchQueue},
	{MetricInfo{"launch.prepared", "ns", record.Lower, "the same through one PreparedLaunch"}, (*bench).launchPrepared},
	{MetricInfo{"launch.event", "ns", record.Lower, "the same through EnqueueLaunch, which returns an event (released at once)"}, (*bench).launchEvent},
	{MetricInfo{"copy.h2d", "GB/s", record.Higher, "WriteBuffer from pageable Go memory"}, (*bench).copyH2D},
	{MetricInfo{"copy.d2h", "GB/s", record.Higher, "ReadBuffer into pageable Go memory"}, (*bench).copyD2H},
	{MetricInfo{"copy.pinned.h2d", "GB/s", record.Higher, "EnqueueMemcpy from page-locked host memory (AllocHost) to device memory (AllocDevice), then Finish; skipped without host and device USM"}, (*bench).copyPinnedH2D},
	{MetricInfo{"copy.pinned.d2h", "GB/s", record.Higher, "EnqueueMemcpy from device memory to page-locked host memory, then Finish; skipped without host and device USM"}, (*bench).copyPinnedD2H},
	{MetricInfo{"copy.d2d", "GB/s", record.Higher, "8 back-to-back EnqueueCopy between two buffers, then Finish; bytes read plus bytes written"}, (*bench).copyD2D},
	{MetricInfo{"axpy", "GB/s", record.Higher, "y = a·x + y over the transfer size; 12 bytes moved per element"}, (*bench).axpy},
	{MetricInfo{"fma", "GFLOP/s", record.Higher, "eight independent chains of fused multiply-adds per work-item; the peak is compute units × clock × lanes × 2"}, (*bench).fma},
	{MetricInfo{"local.bandwidth", "GB/s", record.Higher, "reads of work-group local (shared) memory"}, (*bench).localBandwidth},
	{MetricInfo{"atomics", "Gop/s", record.Higher, "atomic adds of 1 to 1024 global counters"}, (*bench).atomics},
	{MetricInfo{"build.cold", "ms", record.Lower, "NewProgramFromSource and Build of the benchmark kernels, the source made unique each round and the drivers' own caches off"}, (*bench).buildCold},
	{MetricInfo{"build.binary", "ms", record.Lower, "NewProgramFromBinaries and Build from the binary a cold build gave"}, (*bench).buildBinary},
	{MetricInfo{"cache.warm", "ms", record.Lower, "a new process's first programmgr.GetKernel with gour's persistent cache warm"}, (*bench).cacheWarm},
}

// Metrics lists the metrics Run measures, in the order it measures them.
func Metrics() []MetricInfo {
	out := make([]MetricInfo, len(metrics))
	for i, m := range metrics {
		out[i] = m.MetricInfo
	}
	return out
}

func lookupMetric(name string) (metric, bool) {
	i := slices.IndexFunc(metrics, func(m metric) bool { return m.Name == name })
	if i < 0 {
		return metric{}, false
	}
	return metrics[i], true
}

// wrongError is a benchmark whose results were not what the kernel or
// copy must give.
type wrongError struct{ msg string }

func (e *wrongError) Error() string { return e.msg }

func wrongf(format string, args ...any) error { return &wrongError{fmt.Sprintf(format, args...)} }

// bench is one device's benchmark state in a metrics child: a context, a
// queue and the benchmark kernels built once.
type bench struct {
	cfg  childConfig
	dev  *ur.Device
	ctx  *ur.Context
	q    *ur.Queue
	src  string
	prog *ur.Program
	// metricStart is when the metric being measured started, for more.
	metricStart time.Time
	// one 4-byte counter for the tick kernel, and its launches so far
	counter  *ur.Mem
	launched uint32
}

func newBench(dev *ur.Device, cfg childConfig) (*bench, error) {
	src, err := kernelSource(dev.Backend())
	if err != nil {
		return nil, err
	}
	b := &bench{cfg: cfg, dev: dev, src: src}
	if b.ctx, err = ur.NewContext(dev); err != nil {
		return nil, err
	}
	if b.q, err = b.ctx.NewQueue(dev, ur.QueueProperties{}); err != nil {
		b.close()
		return nil, err
	}
	if b.prog, err = b.ctx.NewProgramFromSource(src); err == nil {
		err = b.prog.Build("")
	}
	if err != nil {
		b.close()
		return nil, err
	}
	if b.counter, err = b.ctx.NewBufferFrom(ur.MemReadWrite, make([]byte, 4)); err != nil {
		b.close()
		return nil, err
	}
	return b, nil
}

func (b *bench) close() {
	for _, r := range []interface{ Release() error }{b.counter, b.prog, b.q} {
		if r != nil {
			r.Release()
		}
	}
	b.ctx.Release()
}

// kernel returns a new kernel of the benchmark program with its arguments
// set; the caller releases it.
func (b *bench) kernel(name string, args ...func(*ur.Kernel, int) error) (*ur.Kernel, error) {
	k, err := b.prog.NewKernel(name)
	if err != nil {
		return nil, err
	}
	for i, set := range args {
		if err := set(k, i); err != nil {
			k.Release()
			return nil, err
		}
	}
	return k, nil
}

// Argument setters for kernel.
func memArg(m *ur.Mem) func(*ur.Kernel, int) error {
	return func(k *ur.Kernel, i int) error { return k.SetArgMem(i, m) }
}
func f32Arg(v float32) func(*ur.Kernel, int) error {
	return func(k *ur.Kernel, i int) error { return k.SetArgFloat32(i, v) }
}
func u32Arg(v uint32) func(*ur.Kernel, int) error {
	return func(k *ur.Kernel, i int) error { return k.SetArgUint32(i, v) }
}
func localArg(size uint64) func(*ur.Kernel, int) error {
	return func(k *ur.Kernel, i int) error { return k.SetArgLocal(i, size) }
}

// minBudgetRounds is how many timed rounds a metric takes whatever its
// time budget: enough for a median and a spread.
const minBudgetRounds = 3

// more reports whether a metric's loop runs round r (-1 is the warm-up):
// cfg.Rounds rounds, fewer (but at least minBudgetRounds) once the metric
// has taken cfg.MetricBudget, so that a slow driver or device bounds the
// time of a run instead of multiplying it by the rounds.
func (b *bench) more(r int) bool {
	if r >= b.cfg.Rounds {
		return false
	}
	return r < minBudgetRounds || b.cfg.MetricBudget <= 0 || time.Since(b.metricStart) < b.cfg.MetricBudget
}

// rounds times f cfg.Rounds times (or as b.more allows) after one untimed
// warm-up call and returns each round's duration in seconds.
func (b *bench) rounds(f func(round int) error) ([]float64, error) {
	if err := f(-1); err != nil {
		return nil, err
	}
	out := make([]float64, 0, b.cfg.Rounds)
	for r := 0; b.more(r); r++ {
		start := time.Now()
		if err := f(r); err != nil {
			return nil, err
		}
		out = append(out, time.Since(start).Seconds())
	}
	return out, nil
}

// delay is the test hook that makes a deliberately slow driver: it spins
// for cfg.LaunchDelay after each launch of the launch metrics. Spinning
// rather than sleeping keeps the added time exact.
func (b *bench) delay() {
	if b.cfg.LaunchDelay <= 0 {
		return
	}
	for start := time.Now(); time.Since(start) < b.cfg.LaunchDelay; {
	}
}

// launchRounds times rounds of cfg.Launches launches of tick through
// launch, each round ending with Finish, in ns per launch, then checks
// that the counter saw every launch.
func (b *bench) launchRounds(m *record.Metric, launch func(*ur.Kernel) error) error {
	k, err := b.kernel("tick", memArg(b.counter))
	if err != nil {
		return err
	}
	defer k.Release()
	n := b.cfg.Launches
	secs, err := b.rounds(func(int) error {
		for range n {
			if err := launch(k); err != nil {
				return err
			}
			b.delay()
		}
		b.launched += uint32(n)
		return b.q.Finish()
	})
	if err != nil {
		return err
	}
	for _, s := range secs {
		m.Rounds = append(m.Rounds, s*1e9/float64(n))
	}
	got := make([]uint32, 1)
	if err := b.q.ReadBuffer(b.counter, 0, ur.AsBytes(got)); err != nil {
		return err
	}
	if got[0] != b.launched {
		return wrongf("the kernel ran %d times for %d launches", got[0], b.launched)
	}
	return nil
}

func (b *bench) launchQueue(m *record.Metric) error {
	return b.launchRounds(m, func(k *ur.Kernel) error { return b.q.Launch(k, ur.Range1D(1)) })
}

func (b *bench) launchPrepared(m *record.Metric) error {
	k, err := b.kernel("tick", memArg(b.counter))
	if err != nil {
		return err
	}
	defer k.Release()
	p, err := b.q.PrepareLaunch(k, ur.Range1D(1))
	if err != nil {
		return err
	}
	defer p.Release()
	return b.launchRounds(m, func(*ur.Kernel) error { return p.Launch() })
}

func (b *bench) launchEvent(m *record.Metric) error {
	return b.launchRounds(m, func(k *ur.Kernel) error {
		ev, err := b.q.EnqueueLaunch(k, ur.Range1D(1), ur.LaunchOptions{})
		if err != nil {
			return err
		}
		return ev.Release()
	})
}

// bufferBytes is the size of the transfers and of axpy's vectors:
// cfg.BufferBytes, or 256 MiB on a GPU and 32 MiB elsewhere, within an
// eighth of the device's memory and its largest allocation.
func (b *bench) bufferBytes() uint64 {
	size := b.cfg.BufferBytes
	info := b.dev.Info()
	if size == 0 {
		size = 32 << 20
		if info.Type == ur.DeviceTypeGPU {
			size = 256 << 20
		}
		if info.GlobalMemSize > 0 {
			size = min(size, info.GlobalMemSize/8)
		}
		if info.MaxMemAllocSize > 0 {
			size = min(size, info.MaxMemAllocSize)
		}
	}
	return max(size&^4095, 4096) // whole pages, whole floats
}

// pattern returns size bytes that differ from word to word.
func pattern(size uint64) []byte {
	p := make([]byte, size)
	for i := uint64(0); i+4 <= size; i += 4 {
		binary.LittleEndian.PutUint32(p[i:], uint32(i/4)*2654435761)
	}
	return p
}

// stamp writes round into the first and last 8 bytes of p, so that data
// left from another round does not pass the check.
func stamp(p []byte, round int) {
	binary.LittleEndian.PutUint64(p, uint64(round)+1)
	binary.LittleEndian.PutUint64(p[len(p)-8:], uint64(round)+1)
}

func gbps(bytes uint64, secs []float64) []float64 {
	out := make([]float64, len(secs))
	for i, s := range secs {
		out[i] = float64(bytes) / s / 1e9
	}
	return out
}

func (b *bench) copyH2D(m *record.Metric) error {
	size := b.bufferBytes()
	buf, err := b.ctx.NewBuffer(ur.MemReadWrite, size)
	if err != nil {
		return err
	}
	defer buf.Release()
	host := pattern(size)
	var secs []float64
	for r := -1; b.more(r); r++ { // -1: the warm-up
		stamp(host, r)
		start := time.Now()
		if err := b.q.WriteBuffer(buf, 0, host); err != nil {
			return err
		}
		if r >= 0 {
			secs = append(secs, time.Since(start).Seconds())
		}
	}
	m.Rounds = gbps(size, secs)
	back := make([]byte, size)
	if err := b.q.ReadBuffer(buf, 0, back); err != nil {
		return err
	}
	if i := firstDiff(back, host); i >= 0 {
		return wrongf("the buffer differs from what the last write sent at byte %d", i)
	}
	return nil
}

func (b *bench) copyD2H(m *record.Metric) error {
	size := b.bufferBytes()
	want := pattern(size)
	buf, err := b.ctx.NewBufferFrom(ur.MemReadOnly, want)
	if err != nil {
		return err
	}
	defer buf.Release()
	host := make([]byte, size)
	var secs []float64
	for r := -1; b.more(r); r++ {
		stamp(host, r) // what a read that copied nothing would leave
		start := time.Now()
		if err := b.q.ReadBuffer(buf, 0, host); err != nil {
			return err
		}
		if r >= 0 {
			secs = append(secs, time.Since(start).Seconds())
		}
		if i := firstDiff(host, want); i >= 0 {
			return wrongf("round %d read data that differs from the buffer's at byte %d", r, i)
		}
	}
	m.Rounds = gbps(size, secs)
	return nil
}

// pinnedPair allocates size bytes of page-locked host memory and of
// device memory, or says the device has not both (ErrUnsupportedFeature,
// which skips the metric).
func (b *bench) pinnedPair(size uint64) (host, dev *ur.USM, hostBytes []byte, err error) {
	if u := b.dev.Info().USM; !u.Host || !u.Device {
		return nil, nil, nil, &ur.Error{Result: ur.ErrUnsupportedFeature, Op: "compare", Adapter: b.dev.Backend(),
			Message: fmt.Sprintf("pinned copies need host and device USM; the device has %v", u)}
	}
	if host, err = b.ctx.AllocHost(size); err != nil {
		return nil, nil, nil, err
	}
	if dev, err = b.ctx.AllocDevice(b.dev, size); err != nil {
		host.Free()
		return nil, nil, nil, err
	}
	if hostBytes, err = ur.HostSlice[byte](host); err != nil {
		host.Free()
		dev.Free()
		return nil, nil, nil, err
	}
	return host, dev, hostBytes, nil
}

// pinnedCopy times one copy between host and dev each round, then checks
// that the data arrived.
func (b *bench) pinnedCopy(m *record.Metric, toDevice bool) error {
	size := b.bufferBytes()
	host, dev, hostBytes, err := b.pinnedPair(size)
	if err != nil {
		return err
	}
	defer host.Free()
	defer dev.Free()
	want := pattern(size)
	copy(hostBytes, want)
	if !toDevice {
		if err := b.q.CopyToPtr(dev.Ptr(), want); err != nil {
			return err
		}
	}
	var secs []float64
	for r := -1; b.more(r); r++ {
		dst, src := dev.Ptr(), host.Ptr()
		if toDevice {
			stamp(hostBytes, r)
		} else {
			stamp(hostBytes, -r-2) // what a copy that copied nothing would leave
			dst, src = src, dst
		}
		start := time.Now()
		ev, err := b.q.EnqueueMemcpy(dst, src, size)
		if err != nil {
			return err
		}
		ev.Release()
		if err := b.q.Finish(); err != nil {
			return err
		}
		if r >= 0 {
			secs = append(secs, time.Since(start).Seconds())
		}
		if !toDevice {
			if i := firstDiff(hostBytes, want); i >= 0 {
				return wrongf("round %d copied data that differs from the device's at byte %d", r, i)
			}
		}
	}
	m.Rounds = gbps(size, secs)
	if toDevice {
		back := make([]byte, size)
		if err := b.q.CopyFromPtr(back, dev.Ptr()); err != nil {
			return err
		}
		if i := firstDiff(back, hostBytes); i >= 0 {
			return wrongf("the device memory differs from what the last copy sent at byte %d", i)
		}
	}
	return nil
}

func (b *bench) copyPinnedH2D(m *record.Metric) error { return b.pinnedCopy(m, true) }
func (b *bench) copyPinnedD2H(m *record.Metric) error { return b.pinnedCopy(m, false) }

// CopiesPerRound is how many device-to-device copies a round of copy.d2d
// enqueues back to back before its Finish. One copy alone, timed with its
// Finish, measured less (docs/benchmarks.md, "Transfers through gour, on
// the H100 machine") when the buffers had not just
// been used by a kernel (the first touch of 512 MiB costs the device's
// address translation), and carries the Finish round trip; a round of
// several copies measures the copy, as nvbandwidth and clpeak do.
// urbench copy uses the same number, so that the two agree.
const CopiesPerRound = 8

func (b *bench) copyD2D(m *record.Metric) error {
	size := b.bufferBytes()
	want := pattern(size)
	src, err := b.ctx.NewBufferFrom(ur.MemReadOnly, want)
	if err != nil {
		return err
	}
	defer src.Release()
	dst, err := b.ctx.NewBuffer(ur.MemReadWrite, size)
	if err != nil {
		return err
	}
	defer dst.Release()
	var secs []float64
	for r := -1; b.more(r); r++ {
		// Cleared before each copy, so that the check after the last one
		// sees what that copy wrote.
		if err := fill(b.q, dst, 0); err != nil {
			return err
		}
		start := time.Now()
		for range CopiesPerRound {
			ev, err := b.q.EnqueueCopy(src, dst, 0, 0, size)
			if err != nil {
				return err
			}
			ev.Release()
		}
		if err := b.q.Finish(); err != nil {
			return err
		}
		if r >= 0 {
			secs = append(secs, time.Since(start).Seconds())
		}
	}
	m.Rounds = gbps(2*size*CopiesPerRound, secs)
	got := make([]byte, size)
	if err := b.q.ReadBuffer(dst, 0, got); err != nil {
		return err
	}
	if i := firstDiff(got, want); i >= 0 {
		return wrongf("the copy differs from its source at byte %d", i)
	}
	return nil
}

// fill sets every 32-bit word of m to v and waits.
func fill(q *ur.Queue, m *ur.Mem, v uint32) error {
	ev, err := q.EnqueueFill(m, binary.LittleEndian.AppendUint32(nil, v), 0, m.Size())
	if err != nil {
		return err
	}
	ev.Release()
	return q.Finish()
}

func (b *bench) axpy(m *record.Metric) error {
	size := b.bufferBytes()
	n := size / 4
	xs, ys := make([]float32, n), make([]float32, n)
	for i := range xs {
		xs[i], ys[i] = float32(i&255), 1
	}
	x, err := b.ctx.NewBufferFrom(ur.MemReadOnly, ur.AsBytes(xs))
	if err != nil {
		return err
	}
	defer x.Release()
	y, err := b.ctx.NewBufferFrom(ur.MemReadWrite, ur.AsBytes(ys))
	if err != nil {
		return err
	}
	defer y.Release()
	k, err := b.kernel("axpy", f32Arg(1), memArg(x), memArg(y))
	if err != nil {
		return err
	}
	defer k.Release()
	launches := 0
	secs, err := b.rounds(func(int) error {
		launches++
		if err := b.q.Launch(k, ur.Range1D(n)); err != nil {
			return err
		}
		return b.q.Finish()
	})
	if err != nil {
		return err
	}
	m.Rounds = gbps(3*size, secs)
	// y = 1 + launches·x, exact in float32 at these sizes.
	if err := b.q.ReadBuffer(y, 0, ur.AsBytes(ys)); err != nil {
		return err
	}
	for i, v := range ys {
		if want := 1 + float32(launches)*float32(i&255); v != want {
			return wrongf("y[%d] = %g after %d launches, want %g", i, v, launches, want)
		}
	}
	return nil
}

// calibrate returns the iteration count that makes one launch of run take
// about cfg.KernelTime: it times a launch of start iterations (after one
// to warm up) and scales, to a multiple of step within [step, limit].
func (b *bench) calibrate(start, step, limit uint32, run func(iters uint32) error) (uint32, error) {
	if err := run(start); err != nil {
		return 0, err
	}
	t0 := time.Now()
	if err := run(start); err != nil {
		return 0, err
	}
	took := max(time.Since(t0), time.Microsecond)
	iters := float64(start) * float64(b.cfg.KernelTime) / float64(took)
	iters = math.Min(math.Max(iters, float64(step)), float64(limit))
	return max(uint32(iters)/step*step, step), nil
}

// workItems is a global size that fills the device: a multiple of
// perUnit per compute unit.
func (b *bench) workItems(perUnit uint64) uint64 {
	return uint64(max(b.dev.Info().ComputeUnits, 1)) * perUnit
}

// Peak FMA throughput is derived as compute units × clock × lanes × 2
// flops, with lanes the float32 FMA lanes of one compute unit, which no
// driver reports. PeakLanes says what is assumed.
func PeakLanes(info ur.DeviceInfo) (lanes uint32, assumption string) {
	vendor := strings.ToLower(info.Vendor)
	switch {
	case info.Type == ur.DeviceTypeGPU && (strings.Contains(vendor, "nvidia") || info.VendorID == 0x10de):
		return 128, "128 FP32 lanes per NVIDIA SM (Ampere GA10x, Ada, Hopper; GA100 has 64)"
	case info.Type == ur.DeviceTypeGPU && (strings.Contains(vendor, "intel") || info.VendorID == 0x8086):
		return 8, "8 FP32 lanes per Intel Xe vector engine"
	case info.Type == ur.DeviceTypeGPU:
		return 64, "64 FP32 lanes per compute unit (AMD CU)"
	case info.Type == ur.DeviceTypeCPU:
		w := info.NativeVectorWidths[4] // float
		if w == 0 {
			w = 1
		}
		return 2 * w, fmt.Sprintf("2 FMA ports × %d float lanes (the native vector width) per CPU thread", w)
	}
	return 1, "1 lane per compute unit (unknown device type)"
}

// peakGFLOPS is the device's nominal FP32 peak, 0 when its clock is unknown.
func peakGFLOPS(info ur.DeviceInfo) (float64, string) {
	lanes, why := PeakLanes(info)
	peak := float64(info.ComputeUnits) * float64(info.MaxClockMHz) * float64(lanes) * 2 / 1e3
	return peak, fmt.Sprintf("peak %.0f GFLOP/s = %d compute units × %d MHz × %d lanes × 2: %s", peak, info.ComputeUnits, info.MaxClockMHz, lanes, why)
}

func (b *bench) fma(m *record.Metric) error {
	items := b.workItems(1024)
	out, err := b.ctx.NewBuffer(ur.MemReadWrite, 4*items)
	if err != nil {
		return err
	}
	defer out.Release()
	const a, c = float32(0.9999), float32(0.0001)
	k, err := b.kernel("fma_chains", memArg(out), f32Arg(a), f32Arg(c), u32Arg(0))
	if err != nil {
		return err
	}
	defer k.Release()
	run := func(iters uint32) error {
		if err := k.SetArgUint32(3, iters); err != nil {
			return err
		}
		if err := b.q.Launch(k, ur.Range1D(items)); err != nil {
			return err
		}
		return b.q.Finish()
	}
	iters, err := b.calibrate(64, 64, 1<<22, run)
	if err != nil {
		return err
	}
	secs, err := b.rounds(func(int) error { return run(iters) })
	if err != nil {
		return err
	}
	flops := float64(items) * float64(iters) * 16
	for _, s := range secs {
		m.Rounds = append(m.Rounds, flops/s/1e9)
	}
	m.Peak, m.Detail = peakGFLOPS(b.dev.Info())
	m.Detail = fmt.Sprintf("%d work-items × %d iterations; %s", items, iters, m.Detail)
	// The host runs the same chains; float32(math.FMA(...)) rounds twice
	// where the device rounds once, hence a tolerance.
	var want float32
	for j := range 8 {
		x := float32(j) * 0.125
		for range iters {
			x = float32(math.FMA(float64(x), float64(a), float64(c)))
		}
		want += x
	}
	got := make([]float32, items)
	if err := b.q.ReadBuffer(out, 0, ur.AsBytes(got)); err != nil {
		return err
	}
	for i, v := range got {
		if math.Abs(float64(v-want)) > 1e-4*math.Abs(float64(want)) {
			return wrongf("out[%d] = %g, want %g (%d iterations)", i, v, want, iters)
		}
	}
	return nil
}

func (b *bench) localBandwidth(m *record.Metric) error {
	local := uint64(256)
	for local > 8 && local > b.dev.Info().MaxWorkGroupSize {
		local /= 2
	}
	items := b.workItems(8 * local)
	out, err := b.ctx.NewBuffer(ur.MemReadWrite, 4*items)
	if err != nil {
		return err
	}
	defer out.Release()
	k, err := b.kernel("local_reads", memArg(out), localArg(4*local), u32Arg(0))
	if err != nil {
		return err
	}
	defer k.Release()
	r := ur.Range1D(items).WithLocal(local)
	run := func(iters uint32) error {
		if err := k.SetArgUint32(2, iters); err != nil {
			return err
		}
		if err := b.q.Launch(k, r); err != nil {
			return err
		}
		return b.q.Finish()
	}
	iters, err := b.calibrate(uint32(local), uint32(local), 1<<22, run)
	if err != nil {
		return err
	}
	secs, err := b.rounds(func(int) error { return run(iters) })
	if err != nil {
		return err
	}
	m.Rounds = gbps(items*uint64(iters)*4, secs)
	m.Detail = fmt.Sprintf("%d work-items in groups of %d × %d reads of 4 bytes", items, local, iters)
	got := make([]float32, items)
	if err := b.q.ReadBuffer(out, 0, ur.AsBytes(got)); err != nil {
		return err
	}
	want := 3.5 * float32(iters)
	for i, v := range got {
		if v != want {
			return wrongf("out[%d] = %g, want %g (%d reads of a tile holding j & 7)", i, v, want, iters)
		}
	}
	return nil
}

func (b *bench) atomics(m *record.Metric) error {
	const counters = 1024
	items := b.workItems(1024)
	buf, err := b.ctx.NewBuffer(ur.MemReadWrite, 4*counters)
	if err != nil {
		return err
	}
	defer buf.Release()
	k, err := b.kernel("atomics", memArg(buf), u32Arg(counters-1), u32Arg(0))
	if err != nil {
		return err
	}
	defer k.Release()
	run := func(iters uint32) error {
		if err := fill(b.q, buf, 0); err != nil {
			return err
		}
		if err := k.SetArgUint32(2, iters); err != nil {
			return err
		}
		if err := b.q.Launch(k, ur.Range1D(items)); err != nil {
			return err
		}
		return b.q.Finish()
	}
	// A counter must not wrap: items·iters/counters < 2³².
	limit := uint32(min(1<<20, (1<<32-1)*counters/items))
	iters, err := b.calibrate(16, 16, limit, run)
	if err != nil {
		return err
	}
	var secs []float64
	for r := -1; b.more(r); r++ {
		if err := fill(b.q, buf, 0); err != nil {
			return err
		}
		if err := k.SetArgUint32(2, iters); err != nil {
			return err
		}
		start := time.Now()
		if err := b.q.Launch(k, ur.Range1D(items)); err != nil {
			return err
		}
		if err := b.q.Finish(); err != nil {
			return err
		}
		if r >= 0 {
			secs = append(secs, time.Since(start).Seconds())
		}
		got := make([]uint32, counters)
		if err := b.q.ReadBuffer(buf, 0, ur.AsBytes(got)); err != nil {
			return err
		}
		want := uint32(items * uint64(iters) / counters)
		for i, v := range got {
			if v != want {
				return wrongf("counter %d = %d, want %d: atomic adds were lost", i, v, want)
			}
		}
	}
	ops := float64(items) * float64(iters)
	for _, s := range secs {
		m.Rounds = append(m.Rounds, ops/s/1e9)
	}
	m.Detail = fmt.Sprintf("%d work-items × %d adds on %d counters", items, iters, counters)
	return nil
}

// checkTick launches tick once from prog and checks that it ran: proof
// that a program the build metrics made works.
func (b *bench) checkTick(prog *ur.Program) error {
	k, err := prog.NewKernel("tick")
	if err != nil {
		return err
	}
	defer k.Release()
	c, err := b.ctx.NewBufferFrom(ur.MemReadWrite, make([]byte, 4))
	if err != nil {
		return err
	}
	defer c.Release()
	if err := k.SetArgMem(0, c); err != nil {
		return err
	}
	if err := b.q.Launch(k, ur.Range1D(1)); err != nil {
		return err
	}
	got := make([]uint32, 1)
	if err := b.q.ReadBuffer(c, 0, ur.AsBytes(got)); err != nil {
		return err
	}
	if got[0] != 1 {
		return wrongf("the kernel tick of the program built left %d, want 1", got[0])
	}
	return nil
}

// buildRounds times rounds of make (which creates and builds a program),
// in milliseconds, and checks the last program built.
func (b *bench) buildRounds(m *record.Metric, make func(round int) (*ur.Program, error)) error {
	var last *ur.Program
	defer func() {
		if last != nil {
			last.Release()
		}
	}()
	secs, err := b.rounds(func(r int) error {
		p, err := make(r)
		if last != nil {
			last.Release()
		}
		last = p
		return err
	})
	if err != nil {
		return err
	}
	for _, s := range secs {
		m.Rounds = append(m.Rounds, s*1e3)
	}
	return b.checkTick(last)
}

func (b *bench) buildCold(m *record.Metric) error {
	pid := os.Getpid()
	return b.buildRounds(m, func(r int) (*ur.Program, error) {
		// A comment unique to the process and round: no source-keyed
		// cache of the driver can serve it.
		p, err := b.ctx.NewProgramFromSource(fmt.Sprintf("%s\n// urcompare build.cold: process %d, round %d\n", b.src, pid, r))
		if err != nil {
			return nil, err
		}
		return p, p.Build("")
	})
}

func (b *bench) buildBinary(m *record.Metric) error {
	bins, err := b.prog.Binaries()
	if err != nil {
		return err
	}
	if len(bins) != 1 || len(bins[0]) == 0 {
		return errors.New("the built benchmark program gave no binary")
	}
	m.Detail = fmt.Sprintf("a %d-byte binary", len(bins[0]))
	return b.buildRounds(m, func(int) (*ur.Program, error) {
		p, err := b.ctx.NewProgramFromBinaries([]*ur.Device{b.dev}, bins)
		if err != nil {
			return nil, err
		}
		return p, p.Build("")
	})
}

// cacheWarm runs warm-start children: one to fill a fresh cache, then
// cfg.Rounds timed (or as b.more allows), each of which must load the kernel from that cache.
func (b *bench) cacheWarm(m *record.Metric) error {
	dir, err := os.MkdirTemp("", "urcompare-cache-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	cfg := b.cfg
	cfg.CacheDir = dir
	for r := -1; b.more(r); r++ {
		ws, err := runWarmStart(cfg)
		if err != nil {
			return err
		}
		if r < 0 {
			if ws.Builds != 1 {
				return wrongf("the first process built %d programs, want 1", ws.Builds)
			}
			continue
		}
		if ws.Builds != 0 || ws.DiskHits != 1 {
			return wrongf("a process with a warm cache built %d programs and loaded %d from disk, want 0 and 1", ws.Builds, ws.DiskHits)
		}
		m.Rounds = append(m.Rounds, float64(ws.NS)/1e6)
	}
	return nil
}

func runWarmStart(cfg childConfig) (warmStart, error) {
	env := []string{"SYCL_CACHE_PERSISTENT=1", "SYCL_CACHE_DIR=" + cfg.CacheDir}
	out, err := childCommand(context.Background(), childWarmStart, cfg, env).Output()
	if err != nil {
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			return warmStart{}, fmt.Errorf("warm-start process: %v: %s", err, lastLines(string(exit.Stderr), 3))
		}
		return warmStart{}, fmt.Errorf("warm-start process: %w", err)
	}
	var ws warmStart
	if err := json.Unmarshal(out, &ws); err != nil {
		return warmStart{}, fmt.Errorf("warm-start process printed %q: %w", out, err)
	}
	return ws, nil
}

// firstDiff is the index of the first byte where a and b differ, -1 if
// none.
func firstDiff(a, b []byte) int {
	if bytes.Equal(a, b) {
		return -1
	}
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}
