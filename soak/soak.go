package soak

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"runtime/debug"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/gour-dev/gour/compute"
	"github.com/gour-dev/gour/programmgr"
	"github.com/gour-dev/gour/ur"
)

// Options says what Run loads and for how long.
type Options struct {
	// Devices are the devices the calls run on, each worker's calls
	// spread over all of them. Required.
	Devices []*ur.Device
	// Duration is how long workers start new calls; 0 means 10 s.
	Duration time.Duration
	// Workers is the number of goroutines making calls; 0 means 8.
	Workers int
	// Seed seeds the workers' random choices (worker i: Seed, i), so that
	// a run's sequence of calls per worker can be repeated; 0 picks one.
	Seed uint64
	// Hang is how long after Duration a call may still run before it
	// counts as hung and Run returns; 0 means 2 minutes.
	Hang time.Duration
	// Kinds limits the calls to these kinds (of Kinds()), to narrow down
	// a failure; nil means every kind.
	Kinds []string
}

// Report is what a run did.
type Report struct {
	Seed     uint64
	Elapsed  time.Duration
	Ops      map[string]int64         // calls made, by kind
	Time     map[string]time.Duration // time spent in them, by kind
	Failures []Failure

	released chan struct{} // closed once everything the run made is released
}

// Failure is one failed call.
type Failure struct {
	Worker int
	Op     string // the kind of call
	Device string
	Err    error
}

func (f Failure) String() string {
	return fmt.Sprintf("worker %d, %s on %s: %v", f.Worker, f.Op, f.Device, f.Err)
}

// Total is the number of calls made.
func (r *Report) Total() int64 {
	var n int64
	for _, c := range r.Ops {
		n += c
	}
	return n
}

// PerSecond is the calls made per second of the run.
func (r *Report) PerSecond() float64 {
	if r.Elapsed <= 0 {
		return 0
	}
	return float64(r.Total()) / r.Elapsed.Seconds()
}

// String is the report as a table: calls per kind, the totals, the
// failures.
func (r *Report) String() string {
	var b strings.Builder
	kinds := make([]string, 0, len(r.Ops))
	for k := range r.Ops {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	fmt.Fprintf(&b, "soak: seed %d, %.1f s\n", r.Seed, r.Elapsed.Seconds())
	for _, k := range kinds {
		fmt.Fprintf(&b, "  %-16s %8d  %9.2f ms a call\n", k, r.Ops[k], float64(r.Time[k].Microseconds())/1e3/float64(r.Ops[k]))
	}
	fmt.Fprintf(&b, "  %-16s %8d calls, %.0f calls/s, %d failures\n", "total", r.Total(), r.PerSecond(), len(r.Failures))
	for i, f := range r.Failures {
		if i == 20 {
			fmt.Fprintf(&b, "  ... and %d more\n", len(r.Failures)-i)
			break
		}
		fmt.Fprintf(&b, "  FAIL %s\n", f)
	}
	return b.String()
}

// ErrHung is returned by Run when calls were still running Options.Hang
// after the run's end.
var ErrHung = errors.New("soak: calls still running after the run's end")

// Run loads the devices for opts.Duration and returns the report. The
// returned error is for a run that could not start (no device, a device
// whose shared objects cannot be made), or that hung (ErrHung); failed
// calls are in the report. Everything Run makes it releases before it
// returns, except after a hang.
func Run(ctx context.Context, opts Options) (*Report, error) {
	if len(opts.Devices) == 0 {
		return nil, errors.New("soak: no device")
	}
	if opts.Duration <= 0 {
		opts.Duration = 10 * time.Second
	}
	if opts.Workers <= 0 {
		opts.Workers = 8
	}
	if opts.Hang <= 0 {
		opts.Hang = 2 * time.Minute
	}
	if opts.Seed == 0 {
		opts.Seed = rand.Uint64()
	}
	kinds := ops
	if opts.Kinds != nil {
		kinds = nil
		for _, name := range opts.Kinds {
			i := slices.IndexFunc(ops, func(o op) bool { return o.name == name })
			if i < 0 {
				return nil, fmt.Errorf("soak: no kind of call %q (kinds: %s)", name, strings.Join(Kinds(), ", "))
			}
			kinds = append(kinds, ops[i])
		}
		if len(kinds) == 0 {
			return nil, errors.New("soak: Kinds names no kind of call")
		}
	}
	var sites []*site
	closeSites := func() error {
		var err error
		for _, s := range sites {
			err = errors.Join(err, s.close())
		}
		return err
	}
	for _, dev := range opts.Devices {
		s, err := newSite(dev)
		if err != nil {
			return nil, errors.Join(fmt.Errorf("soak: %v: %w", dev, err), closeSites())
		}
		sites = append(sites, s)
	}

	r := &Report{Seed: opts.Seed, Ops: map[string]int64{}, Time: map[string]time.Duration{}}
	var mu sync.Mutex // guards r
	ctx, cancel := context.WithTimeout(ctx, opts.Duration)
	defer cancel()
	start := time.Now()
	var wg sync.WaitGroup
	for i := range opts.Workers {
		w := &worker{id: i, rng: rand.New(rand.NewPCG(opts.Seed, uint64(i))), kinds: kinds, sites: sites, pools: make([][]*held, len(sites))}
		wg.Go(func() {
			w.run(ctx, opts.Workers)
			mu.Lock()
			for k, n := range w.ops {
				r.Ops[k] += n
				r.Time[k] += w.time[k]
			}
			r.Failures = append(r.Failures, w.fails...)
			mu.Unlock()
		})
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	r.released = make(chan struct{})
	select {
	case <-done:
	case <-time.After(opts.Duration + opts.Hang):
		// What the hung calls use is released once they return, if ever.
		go func() {
			<-done
			closeSites()
			close(r.released)
		}()
		mu.Lock()
		defer mu.Unlock()
		hung := &Report{Seed: r.Seed, Elapsed: time.Since(start), Ops: maps.Clone(r.Ops), Time: maps.Clone(r.Time),
			Failures: slices.Clone(r.Failures), released: r.released}
		return hung, fmt.Errorf("%w (%v after the end)", ErrHung, opts.Hang)
	}
	r.Elapsed = time.Since(start)
	if err := closeSites(); err != nil {
		r.Failures = append(r.Failures, Failure{Worker: -1, Op: "release shared", Err: err})
	}
	close(r.released)
	return r, nil
}

// site is what a device's workers share: a compute Device, and a ur
// context with a queue and a program manager for the calls that make
// their own queues, Devices and blas handles in it.
type site struct {
	dev    *ur.Device
	shared *compute.Device
	ctx    *ur.Context
	q      *ur.Queue
	mgr    *programmgr.Manager
	images []*programmgr.Image // addConst kernels, one constant each
}

func newSite(dev *ur.Device) (s *site, err error) {
	s = &site{dev: dev}
	defer func() {
		if err != nil {
			err = errors.Join(err, s.close())
		}
	}()
	if s.shared, err = compute.NewDevice(dev); err != nil {
		return s, err
	}
	if s.ctx, err = ur.NewContext(dev); err != nil {
		return s, err
	}
	if s.q, err = s.ctx.NewQueue(dev, ur.QueueProperties{}); err != nil {
		return s, err
	}
	if s.mgr, err = programmgr.New(s.ctx, programmgr.Options{}); err != nil {
		return s, err
	}
	for c := range addConstImages {
		img, err := addConstImage(dev.Backend(), c+1)
		if err != nil {
			return s, err
		}
		s.images = append(s.images, img)
	}
	return s, nil
}

func (s *site) close() error {
	var err error
	if s.mgr != nil {
		err = errors.Join(err, s.mgr.Close())
	}
	if s.q != nil {
		err = errors.Join(err, s.q.Release())
	}
	if s.ctx != nil {
		err = errors.Join(err, s.ctx.Release())
	}
	if s.shared != nil {
		err = errors.Join(err, s.shared.Release())
	}
	return err
}

// held is an array of the shared Device kept between a worker's calls,
// with the values it must hold.
type held struct {
	a    *compute.Array[int32]
	want []int32
}

type worker struct {
	id    int
	rng   *rand.Rand
	kinds []op // the kinds of call it makes
	sites []*site
	pools [][]*held // per site: arrays kept for later calls
	ops   map[string]int64
	time  map[string]time.Duration
	fails []Failure
}

// op is one kind of call, weighted by how often a worker picks it.
type op struct {
	name   string
	weight int
	run    func(w *worker, s *site, p *[]*held) error
}

// ops are the calls a worker picks from. Calls on the shared Device use
// and keep arrays across calls; the others make and release their own
// Devices, queues, handles and kernels.
var ops = []op{
	{"transform", 8, (*worker).transform},
	{"reduce", 6, (*worker).reduce},
	{"reduce-axis", 4, (*worker).reduceAxis},
	{"copy", 4, (*worker).copy},
	{"dot", 3, (*worker).dot},
	{"matmul", 3, (*worker).matmul},
	{"release", 4, (*worker).release},
	{"new-device", 1, (*worker).newDevice},
	{"new-queue", 2, (*worker).newQueue},
	{"blas", 2, (*worker).blas},
	{"kernel", 4, (*worker).kernel},
	{"evict", 1, (*worker).evict},
}

// Kinds are the kinds of call a run makes, each at least once: the keys
// of Report.Ops.
func Kinds() []string {
	kinds := make([]string, len(ops))
	for i, o := range ops {
		kinds[i] = o.name
	}
	return kinds
}

func (w *worker) pick() op {
	total := 0
	for _, o := range w.kinds {
		total += o.weight
	}
	n := w.rng.IntN(total)
	for _, o := range w.kinds {
		if n < o.weight {
			return o
		}
		n -= o.weight
	}
	panic("unreachable")
}

// run makes calls until ctx is done, then releases the arrays it kept.
// Its first calls, whatever ctx says, are its share of every kind (kinds
// i, i+n, i+2n, ... of worker i of n), so that a run calls every kind
// however short or loaded it is.
func (w *worker) run(ctx context.Context, n int) {
	w.ops, w.time = map[string]int64{}, map[string]time.Duration{}
	first := w.id
	for first < len(w.kinds) || ctx.Err() == nil {
		i := w.rng.IntN(len(w.sites))
		s, o := w.sites[i], w.pick()
		if first < len(w.kinds) {
			o = w.kinds[first]
			first += n
		}
		start := time.Now()
		if err := w.call(o, s, &w.pools[i]); err != nil {
			w.fails = append(w.fails, Failure{Worker: w.id, Op: o.name, Device: s.dev.String(), Err: err})
		}
		w.time[o.name] += time.Since(start)
		w.ops[o.name]++
	}
	for i, p := range w.pools {
		for _, h := range p {
			if err := h.a.Release(); err != nil {
				w.fails = append(w.fails, Failure{Worker: w.id, Op: "release at the end", Device: w.sites[i].dev.String(), Err: err})
			}
		}
	}
}

// call runs o, a panic in it returned as an error.
func (w *worker) call(o op, s *site, p *[]*held) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("panic: %v\n%s", v, debug.Stack())
		}
	}()
	return o.run(w, s, p)
}

// values returns n random small integers: exact in every sum and product
// the calls make, in int32 and in float32.
func (w *worker) values(n, limit int) []int32 {
	v := make([]int32, n)
	for i := range v {
		v[i] = int32(w.rng.IntN(2*limit+1) - limit)
	}
	return v
}

// length is a random array length: mostly small, sometimes large enough
// for a reduction's two passes over many work-groups.
func (w *worker) length() int {
	if w.rng.IntN(4) == 0 {
		return 1 + w.rng.IntN(200_000)
	}
	return 1 + w.rng.IntN(2_000)
}

// input returns an array of the shared Device: a kept one (taken from the
// pool) or a new one.
func (w *worker) input(s *site, p *[]*held) (*held, error) {
	if len(*p) > 0 && w.rng.IntN(2) == 0 {
		i := w.rng.IntN(len(*p))
		h := (*p)[i]
		*p = slices.Delete(*p, i, i+1)
		return h, nil
	}
	want := w.values(w.length(), 1000)
	a, err := compute.FromSlice(s.shared, want)
	if err != nil {
		return nil, err
	}
	return &held{a: a, want: want}, nil
}

// keep puts h back in the pool, or releases it; the pool holds at most 8.
func (w *worker) keep(p *[]*held, hs ...*held) error {
	var err error
	for _, h := range hs {
		if h == nil {
			continue
		}
		if len(*p) < 8 && w.rng.IntN(3) > 0 {
			*p = append(*p, h)
			continue
		}
		err = errors.Join(err, h.a.Release())
	}
	return err
}

func check[T comparable](what string, got, want []T) error {
	if len(got) != len(want) {
		return fmt.Errorf("%s: %d elements, want %d", what, len(got), len(want))
	}
	for i := range got {
		if got[i] != want[i] {
			return fmt.Errorf("%s: [%d] = %v, want %v (of %d)", what, i, got[i], want[i], len(got))
		}
	}
	return nil
}

// transform computes out = a*x + y with a random a, x kept or new.
func (w *worker) transform(s *site, p *[]*held) error {
	x, err := w.input(s, p)
	if err != nil {
		return err
	}
	a := int32(w.rng.IntN(11) - 5)
	yv := w.values(len(x.want), 1000)
	y, err := compute.FromSlice(s.shared, yv)
	if err != nil {
		return errors.Join(err, w.keep(p, x))
	}
	f, err := compute.Expr("out = a*x + y", map[string]int32{"a": a})
	if err != nil {
		return errors.Join(err, y.Release(), w.keep(p, x))
	}
	out, err := compute.Zeros[int32](s.shared, len(yv))
	if err != nil {
		return errors.Join(err, y.Release(), w.keep(p, x))
	}
	want := make([]int32, len(yv))
	for i := range want {
		want[i] = a*x.want[i] + yv[i]
	}
	err = compute.Transform(s.shared, f, out, x.a, y)
	if err == nil {
		var got []int32
		if got, err = out.ToSlice(); err == nil {
			err = check("a*x + y", got, want)
		}
	}
	return errors.Join(err, y.Release(), w.keep(p, x, &held{a: out, want: want}))
}

// reduce reduces a kept or new array with Sum, Min or Max.
func (w *worker) reduce(s *site, p *[]*held) error {
	x, err := w.input(s, p)
	if err != nil {
		return err
	}
	var got, want int32
	switch w.rng.IntN(3) {
	case 0:
		for _, v := range x.want {
			want += v
		}
		got, err = compute.Reduce(s.shared, x.a, compute.Sum[int32]())
	case 1:
		want = slices.Min(x.want)
		got, err = compute.Reduce(s.shared, x.a, compute.Min[int32]())
	default:
		want = slices.Max(x.want)
		got, err = compute.Reduce(s.shared, x.a, compute.Max[int32]())
	}
	if err == nil && got != want {
		err = fmt.Errorf("reduction of %d elements: %d, want %d", len(x.want), got, want)
	}
	return errors.Join(err, w.keep(p, x))
}

// reduceAxis sums a new rows×cols array along a random axis.
func (w *worker) reduceAxis(s *site, _ *[]*held) error {
	rows, cols := 1+w.rng.IntN(300), 1+w.rng.IntN(300)
	v := w.values(rows*cols, 1000)
	in, err := compute.FromSlice(s.shared, v, rows, cols)
	if err != nil {
		return err
	}
	axis := w.rng.IntN(2)
	shape, want := []int{1, cols}, make([]int32, cols)
	if axis == 1 {
		shape, want = []int{rows, 1}, make([]int32, rows)
	}
	for r := range rows {
		for c := range cols {
			if axis == 0 {
				want[c] += v[r*cols+c]
			} else {
				want[r] += v[r*cols+c]
			}
		}
	}
	out, err := compute.Zeros[int32](s.shared, shape...)
	if err != nil {
		return errors.Join(err, in.Release())
	}
	err = compute.ReduceAxis(s.shared, out, in, axis, compute.Sum[int32]())
	if err == nil {
		var got []int32
		if got, err = out.ToSlice(); err == nil {
			err = check(fmt.Sprintf("sum along axis %d of %d×%d", axis, rows, cols), got, want)
		}
	}
	return errors.Join(err, in.Release(), out.Release())
}

// copy copies a kept or new array into a new one.
func (w *worker) copy(s *site, p *[]*held) error {
	x, err := w.input(s, p)
	if err != nil {
		return err
	}
	dst, err := compute.Zeros[int32](s.shared, len(x.want))
	if err != nil {
		return errors.Join(err, w.keep(p, x))
	}
	err = compute.Copy(s.shared, dst, x.a)
	if err == nil {
		var got []int32
		if got, err = dst.ToSlice(); err == nil {
			err = check("copy", got, x.want)
		}
	}
	return errors.Join(err, w.keep(p, x, &held{a: dst, want: slices.Clone(x.want)}))
}

// dot computes x·x of a kept or new array.
func (w *worker) dot(s *site, p *[]*held) error {
	x, err := w.input(s, p)
	if err != nil {
		return err
	}
	var want int32
	for _, v := range x.want {
		want += v * v
	}
	got, err := compute.Dot(s.shared, x.a, x.a)
	if err == nil && got != want {
		err = fmt.Errorf("dot of %d elements: %d, want %d", len(x.want), got, want)
	}
	return errors.Join(err, w.keep(p, x))
}

// matmul multiplies random m×k and k×n float32 matrices of small
// integers, exact in any order of summation.
func (w *worker) matmul(s *site, _ *[]*held) error {
	return matmulOn(w, s.shared)
}

func matmulOn(w *worker, d *compute.Device) error {
	m, n, k := 1+w.rng.IntN(64), 1+w.rng.IntN(64), 1+w.rng.IntN(64)
	av, bv := w.floats(m*k), w.floats(k*n)
	want := gemm(m, n, k, av, bv)
	a, err := compute.FromSlice(d, av, m, k)
	if err != nil {
		return err
	}
	b, err := compute.FromSlice(d, bv, k, n)
	if err != nil {
		return errors.Join(err, a.Release())
	}
	c, err := compute.Zeros[float32](d, m, n)
	if err != nil {
		return errors.Join(err, a.Release(), b.Release())
	}
	err = compute.MatMul(d, c, a, b)
	if err == nil {
		var got []float32
		if got, err = c.ToSlice(); err == nil {
			err = check(fmt.Sprintf("%d×%d by %d×%d", m, k, k, n), got, want)
		}
	}
	return errors.Join(err, a.Release(), b.Release(), c.Release())
}

func (w *worker) floats(n int) []float32 {
	v := make([]float32, n)
	for i := range v {
		v[i] = float32(w.rng.IntN(9) - 4)
	}
	return v
}

// gemm is C = A·B, row-major.
func gemm(m, n, k int, a, b []float32) []float32 {
	c := make([]float32, m*n)
	for i := range m {
		for l := range k {
			for j := range n {
				c[i*n+j] += a[i*k+l] * b[l*n+j]
			}
		}
	}
	return c
}

// release releases a kept array, if any, after checking its values.
func (w *worker) release(_ *site, p *[]*held) error {
	if len(*p) == 0 {
		return nil
	}
	i := w.rng.IntN(len(*p))
	h := (*p)[i]
	*p = slices.Delete(*p, i, i+1)
	got, err := h.a.ToSlice()
	if err == nil {
		err = check("kept array", got, h.want)
	}
	return errors.Join(err, h.a.Release())
}

// newDevice makes a compute Device of its own (its own ur context, queue
// and program manager), runs a transform, a reduction and sometimes a
// matrix product on it, and releases it.
func (w *worker) newDevice(s *site, _ *[]*held) error {
	d, err := compute.NewDevice(s.dev)
	if err != nil {
		return err
	}
	return errors.Join(w.onDevice(d), d.Release())
}

// newQueue makes a queue in the site's context and a compute Device on it
// with the site's program manager, runs work on it, and releases both.
func (w *worker) newQueue(s *site, _ *[]*held) error {
	q, err := s.ctx.NewQueue(s.dev, ur.QueueProperties{})
	if err != nil {
		return err
	}
	d, err := compute.NewDeviceFrom(q, compute.DeviceOptions{Manager: s.mgr, Buffers: w.rng.IntN(2) == 0})
	if err != nil {
		return errors.Join(err, q.Release())
	}
	err = w.onDevice(d)
	return errors.Join(err, d.Release(), q.Release())
}

// onDevice runs a transform and a reduction on d, and a matrix product
// one time in three.
func (w *worker) onDevice(d *compute.Device) error {
	xv := w.values(w.length(), 1000)
	x, err := compute.FromSlice(d, xv)
	if err != nil {
		return err
	}
	defer x.Release()
	f, err := compute.Expr("out = x*x - 3", map[string]int32{})
	if err != nil {
		return err
	}
	if err := compute.Transform(d, f, x, x); err != nil {
		return err
	}
	var want int32
	for i, v := range xv {
		xv[i] = v*v - 3
		want += xv[i]
	}
	got, err := compute.Reduce(d, x, compute.Sum[int32]())
	if err != nil {
		return err
	}
	if got != want {
		return fmt.Errorf("sum of x*x - 3 over %d elements: %d, want %d", len(xv), got, want)
	}
	if w.rng.IntN(3) == 0 {
		return matmulOn(w, d)
	}
	return nil
}

// evict empties the site's program manager's cache, or also forgets its
// failures, while other workers use its kernels.
func (w *worker) evict(s *site, _ *[]*held) error {
	if w.rng.IntN(2) == 0 {
		s.mgr.Evict()
	} else {
		s.mgr.Clear()
	}
	return nil
}
