package compute

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/gour-dev/gour/internal/harness/testenv"
	"github.com/gour-dev/gour/ur"
)

// splitDevice splits dev into two sub-devices, equally or by counts;
// nil and the reason where it does not split.
func splitDevice(dev *ur.Device) ([]*ur.Device, string) {
	info := dev.PartitionInfo()
	units := dev.Info().ComputeUnits
	why := fmt.Sprintf("%d compute units, PartitionInfo = %+v", units, info)
	if info.MaxSubDevices < 2 || units < 2 {
		return nil, why
	}
	for _, p := range []ur.Partition{
		{Kind: ur.PartitionEqually, Units: units / 2},
		{Kind: ur.PartitionByCounts, Counts: []uint32{units / 2, units - units/2}},
	} {
		if !slices.Contains(info.Kinds, p.Kind) {
			continue
		}
		subs, err := dev.Partition(p)
		if err != nil {
			why += fmt.Sprintf("; Partition(%v): %v", p, err)
			continue
		}
		if len(subs) >= 2 {
			for _, s := range subs[2:] {
				s.Release()
			}
			return subs[:2], ""
		}
		for _, s := range subs {
			s.Release()
		}
	}
	return nil, why
}

// multiDevices returns a MultiDevice of two sub-devices of the first
// selected OpenCL or CUDA device that splits, and one of that device
// alone, with the reference Device of the device; opts for both. It
// skips with the reason where no device splits.
func multiDevices(t *testing.T, opts MultiDeviceOptions) (two, one *MultiDevice, ref *Device) {
	t.Helper()
	testenv.CheckRequired(t)
	sys := testenv.System(t)
	var why []string
	for _, dev := range sys.Devices {
		if dev.Backend() != "opencl" && dev.Backend() != "cuda" {
			continue
		}
		subs, reason := splitDevice(dev)
		if subs == nil {
			why = append(why, dev.Name()+": "+reason)
			continue
		}
		t.Cleanup(func() {
			for _, s := range subs {
				s.Release()
			}
		})
		newMulti := func(devs []*ur.Device) *MultiDevice {
			m, err := NewMultiDevice(devs, opts)
			if err != nil {
				t.Fatalf("NewMultiDevice: %v", err)
			}
			t.Cleanup(func() {
				// A lost device (TestMultiDeviceLostDevice) fails its
				// Release: its queue is gone.
				if err := m.Release(); err != nil && !errors.Is(err, ur.ErrInvalidQueue) {
					t.Errorf("Release: %v", err)
				} else if err != nil {
					t.Logf("Release: %v", err)
				}
			})
			return m
		}
		two, one = newMulti(subs), newMulti([]*ur.Device{dev})
		r, err := NewDevice(dev)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { r.Release() })
		return two, one, r
	}
	t.Skipf("no selected OpenCL or CUDA device splits into two sub-devices: %v (%s)", why, testenv.Reasons(sys))
	return nil, nil, nil
}

func closeTo(a, b, rel float64) bool {
	return math.Abs(a-b) <= rel*math.Max(1, math.Max(math.Abs(a), math.Abs(b)))
}

func checkClose(t *testing.T, what string, got, want []float32, rel float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d elements, want %d", what, len(got), len(want))
	}
	for i := range got {
		if !closeTo(float64(got[i]), float64(want[i]), rel) {
			t.Fatalf("%s[%d] = %v, want %v", what, i, got[i], want[i])
		}
	}
}

// multiWork runs every algorithm in ctx (bias and b replicated where
// ctx is a MultiDevice) and returns what each gave.
func multiWork(t *testing.T, ctx Context, rows, cols int) map[string][]float32 {
	t.Helper()
	xs, ys, bs := make([]float32, rows*cols), make([]float32, rows*cols), make([]float32, cols)
	for i := range xs {
		xs[i], ys[i] = float32(i%97)/8, float32(i%13)-6
	}
	for i := range bs {
		bs[i] = float32(i) / 4
	}
	const k = 5
	ms := make([]float32, cols*k)
	for i := range ms {
		ms[i] = float32(i%7) - 3
	}
	replicated := func(data []float32, shape ...int) *Array[float32] {
		if m, ok := ctx.(*MultiDevice); ok {
			return must[*Array[float32]](t)(FromSliceReplicated(m, data, shape...))
		}
		return must[*Array[float32]](t)(FromSlice(ctx, data, shape...))
	}
	x := must[*Array[float32]](t)(FromSlice(ctx, xs, rows, cols))
	y := must[*Array[float32]](t)(FromSlice(ctx, ys, rows, cols))
	z := must[*Array[float32]](t)(Zeros[float32](ctx, rows, cols))
	f := must[*Array[float32]](t)(Zeros[float32](ctx, rows, cols))
	s := must[*Array[float32]](t)(Zeros[float32](ctx, rows))
	c := must[*Array[float32]](t)(Zeros[float32](ctx, rows, k))
	bias := replicated(bs, cols)
	mb := replicated(ms, cols, k)
	for _, a := range []*Array[float32]{x, y, z, f, s, c, bias, mb} {
		defer a.Release()
	}
	axpy := must[*ExprFunc[float32]](t)(Expr[float32]("y = a*x + y", map[string]float32{"a": 2}))
	add := must[*ExprFunc[float32]](t)(Expr[float32]("out = x + b", nil))
	scale := must[*ExprFunc[float32]](t)(Expr[float32]("x = x * 0.5", nil))
	steps := []struct {
		name string
		f    func() error
	}{
		{"Fill", func() error { return Fill(ctx, f, 1.5) }},
		{"Transform", func() error { return Transform(ctx, axpy, y, x, y) }},
		{"ForEach", func() error { return ForEach(ctx, scale, y) }},
		{"Copy", func() error { return Copy(ctx, z, y) }},
		{"Broadcast", func() error { return Transform(ctx, add, z, bias, z) }},
		{"ReduceAxis", func() error { return ReduceAxis(ctx, s, z, 1, Sum[float32]()) }},
		{"MatMul", func() error { return MatMul(ctx, c, x, mb) }},
	}
	for _, st := range steps {
		if err := st.f(); err != nil {
			t.Fatalf("%s on %v: %v", st.name, ctx, err)
		}
	}
	out := map[string][]float32{}
	for name, a := range map[string]*Array[float32]{"fill": f, "y": y, "z": z, "rowsums": s, "matmul": c} {
		out[name] = must[[]float32](t)(a.ToSlice())
	}
	sum := must[float32](t)(Reduce(ctx, z, Sum[float32]()))
	mx := must[float32](t)(Reduce(ctx, z, Max[float32]()))
	dot := must[float32](t)(Dot(ctx, x, y))
	out["reduce"] = []float32{sum, mx, dot}
	return out
}

// TestMultiDeviceAgrees runs every algorithm on a MultiDevice of two
// sub-devices and of one device, with rows that do not split evenly
// (and fewer rows than devices), and checks the results against the
// CPU context and a Device of the whole device.
func TestMultiDeviceAgrees(t *testing.T) {
	two, one, ref := multiDevices(t, MultiDeviceOptions{})
	if !two.SharedContext() {
		t.Errorf("two sub-devices of one device: SharedContext() = false")
	}
	for _, shape := range [][2]int{{1001, 7}, {1, 3}} {
		rows, cols := shape[0], shape[1]
		want := multiWork(t, NewCPU(2), rows, cols)
		for _, ctx := range []Context{ref, two, one} {
			t.Run(fmt.Sprintf("%dx%d/%v", rows, cols, ctx), func(t *testing.T) {
				got := multiWork(t, ctx, rows, cols)
				for name, w := range want {
					rel := 1e-6
					switch name {
					case "rowsums", "matmul":
						rel = 1e-5
					case "reduce": // sums of thousands of terms, cancelling
						rel = 1e-4
					}
					checkClose(t, name, got[name], w, rel)
				}
			})
		}
	}
}

// TestMultiDeviceArrays checks splits, parts, gathering, Host and the
// transfers: a chain of operations uploads each part once.
func TestMultiDeviceArrays(t *testing.T) {
	two, _, _ := multiDevices(t, MultiDeviceOptions{})
	data := make([]int32, 11*3)
	for i := range data {
		data[i] = int32(i)
	}
	a := must[*Array[int32]](t)(FromSlice(two, data, 11, 3))
	defer a.Release()
	ps := a.Parts()
	if len(ps) != 2 || ps[0].Len()+ps[1].Len() != len(data) || !slices.Equal(ps[0].Shape(), []int{5, 3}) || !slices.Equal(ps[1].Shape(), []int{6, 3}) {
		t.Fatalf("parts of [11 3] on two devices: %v and %v", ps[0].Shape(), ps[1].Shape())
	}
	if ps[1].Context() != two.Devices()[1] {
		t.Errorf("part 1's context is %v, not device 1's", ps[1].Context())
	}
	inc := must[*ExprFunc[int32]](t)(Expr[int32]("x = x + 1", nil))
	for range 3 {
		if err := ForEach(two, inc, a); err != nil {
			t.Fatal(err)
		}
	}
	if tr := a.Transfers(); tr.Uploads != 2 || tr.Downloads != 0 {
		t.Errorf("three ForEach: %+v, want 2 uploads (a part each), no download", tr)
	}
	h := must[[]int32](t)(a.Host())
	for i, v := range h {
		if v != int32(i)+3 {
			t.Fatalf("Host()[%d] = %d, want %d", i, v, i+3)
		}
	}
	h[0] = 100 // the host copy is the array's now
	if s := must[int32](t)(Reduce(two, a, Sum[int32]())); s != int32((32*33)/2+3*33-3+100) {
		t.Errorf("Reduce after writing Host: %d", s)
	}
	// A replicated array of every device, and a scalar.
	r := must[*Array[int32]](t)(FromSliceReplicated(two, data, 11, 3))
	defer r.Release()
	if !r.Replicated() || r.Parts()[1].Len() != len(data) {
		t.Fatalf("replicated: %v, part 1 of %d elements", r.Replicated(), r.Parts()[1].Len())
	}
	if err := ForEach(two, inc, r); err != nil {
		t.Fatal(err)
	}
	got := must[[]int32](t)(r.ToSlice())
	p1 := must[[]int32](t)(r.Parts()[1].ToSlice())
	for i := range got {
		if got[i] != int32(i)+1 || p1[i] != got[i] {
			t.Fatalf("replicated ForEach [%d]: %d and, on device 1, %d; want %d", i, got[i], p1[i], i+1)
		}
	}
	zs := must[*Array[float64]](t)(ZerosReplicated[float64](two))
	defer zs.Release()
	if v := must[[]float64](t)(zs.ToSlice()); len(v) != 1 || v[0] != 0 {
		t.Errorf("a replicated scalar's zeros: %v", v)
	}
}

// TestMultiDeviceErrors checks the typed errors of bad input, before
// anything runs.
func TestMultiDeviceErrors(t *testing.T) {
	two, one, ref := multiDevices(t, MultiDeviceOptions{})
	if _, err := NewMultiDevice(nil, MultiDeviceOptions{}); !errors.Is(err, ErrInvalid) {
		t.Errorf("NewMultiDevice(nil) = %v, want ErrInvalid", err)
	}
	dev, _, _ := ref.UR()
	if _, err := NewMultiDevice([]*ur.Device{dev, dev}, MultiDeviceOptions{}); !errors.Is(err, ErrInvalid) {
		t.Errorf("a device twice: %v, want ErrInvalid", err)
	}
	x := must[*Array[float32]](t)(FromSlice(two, make([]float32, 8*4), 8, 4))
	defer x.Release()
	y := must[*Array[float32]](t)(Zeros[float32](two, 8, 4))
	defer y.Release()
	bias := must[*Array[float32]](t)(Zeros[float32](two, 4)) // split, but broadcast along rows
	defer bias.Release()
	rep := must[*Array[float32]](t)(ZerosReplicated[float32](two, 8, 4))
	defer rep.Release()
	other := must[*Array[float32]](t)(Zeros[float32](one, 8, 4))
	defer other.Release()
	mine := must[*Array[float32]](t)(Zeros[float32](ref, 8, 4))
	defer mine.Release()
	add := must[*ExprFunc[float32]](t)(Expr[float32]("out = x + b", nil))
	mb := must[*Array[float32]](t)(Zeros[float32](two, 4, 4)) // split, MatMul wants b replicated
	defer mb.Release()
	c := must[*Array[float32]](t)(Zeros[float32](two, 8, 4))
	defer c.Release()
	for _, c := range []struct {
		name string
		err  error
		want error
	}{
		{"split bias", Transform(two, add, y, bias, x), ErrInvalid},
		{"replicated input of the split output's rows", Copy(two, y, rep), ErrInvalid},
		{"split input of a replicated output", Copy(two, rep, y), ErrInvalid},
		{"array of another MultiDevice", Copy(two, y, other), ErrWrongContext},
		{"MultiDevice array on a Device", Copy(ref, mine, x), ErrWrongContext},
		{"shapes", Copy(two, y, bias), ErrShape},
		{"split b", MatMul(two, c, x, mb), ErrInvalid},
		{"ReduceAxis along the split axis", ReduceAxis(two, bias, x, 0, Sum[float32]()), ErrInvalid},
	} {
		if !errors.Is(c.err, c.want) {
			t.Errorf("%s: %v, want %v", c.name, c.err, c.want)
		}
	}
	if _, err := x.Arg(In); !errors.Is(err, ErrWrongContext) {
		t.Errorf("Arg of a MultiDevice array: %v, want ErrWrongContext", err)
	}
}

// TestMultiDeviceLostDevice loses device 1 mid-run (its queue released
// underneath): the next operation returns a *DeviceError naming it,
// device 0's part holds the new values and device 1's its old ones, and
// the whole array still gathers.
func TestMultiDeviceLostDevice(t *testing.T) {
	// Buffers: an array's storage does not need the lost queue to be freed.
	two, _, _ := multiDevices(t, MultiDeviceOptions{Buffers: true})
	const rows = 64
	xs := make([]float32, rows)
	for i := range xs {
		xs[i] = float32(i)
	}
	x := must[*Array[float32]](t)(FromSlice(two, xs))
	defer x.Release()
	y := must[*Array[float32]](t)(Zeros[float32](two, rows))
	defer y.Release()
	axpy := must[*ExprFunc[float32]](t)(Expr[float32]("y = a*x + y", map[string]float32{"a": 1}))
	if err := Transform(two, axpy, y, x, y); err != nil {
		t.Fatal(err)
	}
	before := must[[]float32](t)(y.ToSlice()) // y = x, valid on the host and both devices
	if err := two.Wait(); err != nil {
		t.Fatal(err)
	}
	// The fault: device 1's queue goes away under its Device.
	if err := two.queues[1].Release(); err != nil {
		t.Fatal(err)
	}
	err := Transform(two, axpy, y, x, y)
	var de *DeviceError
	if !errors.As(err, &de) || de.Index != 1 || de.Op != "Transform" || de.Device != two.Devices()[1].String() {
		t.Fatalf("Transform with device 1 lost: %v, want a *DeviceError naming device 1", err)
	}
	t.Logf("device lost: %v", err)
	p0 := must[[]float32](t)(y.Parts()[0].ToSlice())
	for i, v := range p0 {
		if v != 2*xs[i] {
			t.Fatalf("device 0's part [%d] = %v, want %v (computed)", i, v, 2*xs[i])
		}
	}
	got := must[[]float32](t)(y.ToSlice())
	half := y.Parts()[0].Len()
	for i, v := range got {
		want := 2 * xs[i]
		if i >= half {
			want = before[i] // device 1's part as it was
		}
		if v != want {
			t.Fatalf("y[%d] = %v after the loss, want %v", i, v, want)
		}
	}
	if _, err := Reduce(two, y, Sum[float32]()); !errors.As(err, &de) || de.Index != 1 {
		t.Errorf("Reduce with device 1 lost: %v, want a *DeviceError naming device 1", err)
	}
}

// TestMultiDeviceReduceParts checks that Reduce and Dot over a
// MultiDevice, every device's passes enqueued before any result is read
// back, give exactly the parts' results on their devices combined in
// device order, the same on every run; an empty part gives the
// identity, a replicated array its first device's result.
func TestMultiDeviceReduceParts(t *testing.T) {
	two, _, _ := multiDevices(t, MultiDeviceOptions{})
	devs := two.Devices()
	for _, rows := range []int{100003, 1} {
		xs, ys := make([]float32, rows), make([]float32, rows)
		for i := range xs {
			xs[i] = float32(i%97) - 48.25
			ys[i] = float32(i%13) * 0.5
		}
		x := must[*Array[float32]](t)(FromSlice(two, xs))
		y := must[*Array[float32]](t)(FromSlice(two, ys))
		for _, op := range []ReduceOp[float32]{Sum[float32](), Max[float32]()} {
			want := op.Identity
			for i, p := range x.Parts() {
				want = op.Combine(want, must[float32](t)(Reduce(devs[i], p, op)))
			}
			for run := range 2 {
				if got := must[float32](t)(Reduce(two, x, op)); got != want {
					t.Errorf("%d rows, Reduce %s, run %d: %v, want the parts' %v", rows, op.Name, run, got, want)
				}
			}
		}
		var want float32
		for i, p := range x.Parts() {
			want += must[float32](t)(Dot(devs[i], p, y.Parts()[i]))
		}
		if got := must[float32](t)(Dot(two, x, y)); got != want {
			t.Errorf("%d rows, Dot: %v, want the parts' %v", rows, got, want)
		}
		x.Release()
		y.Release()
	}
	is := make([]int32, 5000)
	var sum int32
	for i := range is {
		is[i] = int32(i*7919%1000) - 500
		sum += is[i]
	}
	xi := must[*Array[int32]](t)(FromSlice(two, is))
	defer xi.Release()
	if got := must[int32](t)(Reduce(two, xi, Sum[int32]())); got != sum {
		t.Errorf("int32 Reduce: %d, want %d", got, sum)
	}
	r := must[*Array[int32]](t)(FromSliceReplicated(two, is))
	defer r.Release()
	if got := must[int32](t)(Reduce(two, r, Sum[int32]())); got != sum {
		t.Errorf("replicated int32 Reduce: %d, want %d", got, sum)
	}
}
