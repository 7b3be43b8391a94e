package collectives_test

import (
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"testing"

	_ "github.com/gour-dev/gour/adapters/all"
	"github.com/gour-dev/gour/collectives"
	"github.com/gour-dev/gour/dtype"
	"github.com/gour-dev/gour/internal/harness/testenv"
	"github.com/gour-dev/gour/ur"
)

func TestMain(m *testing.M) {
	if os.Getenv(helperEnv) != "" {
		os.Exit(runHelper())
	}
	os.Exit(m.Run())
}

// rankQueues returns two queues for a group of two ranks, each in a
// context of its own, and says what they are: two CUDA devices where
// there are, else two sub-devices of the first device (PoCL splits its
// CPU device), else two queues of one device.
func rankQueues(t *testing.T) ([]*ur.Queue, string) {
	t.Helper()
	devs := testenv.Devices(t)
	var cuda []*ur.Device
	for _, d := range devs {
		if d.Backend() == "cuda" {
			cuda = append(cuda, d)
		}
	}
	pick := []*ur.Device{devs[0], devs[0]}
	what := "two queues of " + devs[0].Name()
	if len(cuda) >= 2 {
		pick, what = cuda[:2], "two CUDA devices"
	} else if subs, why := splitInTwo(devs[0]); subs != nil {
		pick, what = subs[:2], "two sub-devices of "+devs[0].Name()
		t.Cleanup(func() {
			for _, s := range subs {
				s.Release()
			}
		})
	} else {
		t.Logf("%s does not split (%s): two queues of the device", devs[0].Name(), why)
	}
	qs := make([]*ur.Queue, 2)
	for i, d := range pick {
		ctx, err := ur.NewContext(d)
		if err != nil {
			t.Fatalf("NewContext(%s): %v", d.Name(), err)
		}
		q, err := ctx.NewQueue(d, ur.QueueProperties{})
		if err != nil {
			t.Fatalf("NewQueue(%s): %v", d.Name(), err)
		}
		t.Cleanup(func() { q.Release(); ctx.Release() })
		qs[i] = q
	}
	return qs, what
}

// splitInTwo partitions d into two sub-devices, or says why not.
func splitInTwo(d *ur.Device) ([]*ur.Device, string) {
	info := d.PartitionInfo()
	units := d.Info().ComputeUnits
	if info.MaxSubDevices < 2 || units < 2 {
		return nil, fmt.Sprintf("PartitionInfo %+v, %d compute units", info, units)
	}
	why := ""
	for _, p := range []ur.Partition{{Kind: ur.PartitionEqually, Units: units / 2}, {Kind: ur.PartitionByCounts, Counts: []uint32{units / 2, units - units/2}}} {
		subs, err := d.Partition(p)
		if err == nil && len(subs) >= 2 {
			return subs, ""
		}
		for _, s := range subs {
			s.Release()
		}
		why += fmt.Sprintf("; Partition(%+v): %v", p, err)
	}
	return nil, why
}

// alloc allocates device memory of size bytes on q's device, freed at
// cleanup.
func alloc(t *testing.T, q *ur.Queue, size int) *ur.USM {
	t.Helper()
	u, err := q.Context().AllocDevice(q.Device(), uint64(size))
	if err != nil {
		t.Fatalf("AllocDevice(%d): %v", size, err)
	}
	t.Cleanup(func() { u.Free() })
	return u
}

// upload allocates and fills device memory with vals as dt.
func upload(t *testing.T, q *ur.Queue, dt dtype.Type, vals []float64, extra int) *ur.USM {
	t.Helper()
	b := encode(dt, vals)
	u := alloc(t, q, len(b)+extra)
	if err := q.CopyToPtr(u.Ptr(), b); err != nil {
		t.Fatalf("CopyToPtr: %v", err)
	}
	return u
}

// download reads n elements of dt from p.
func download(t *testing.T, q *ur.Queue, p ur.Ptr, dt dtype.Type, n int) []float64 {
	t.Helper()
	b := make([]byte, n*dt.Size())
	if err := q.CopyFromPtr(b, p); err != nil {
		t.Fatalf("CopyFromPtr: %v", err)
	}
	return decode(dt, b)
}

func encode(dt dtype.Type, vals []float64) []byte {
	es := dt.Size()
	b := make([]byte, len(vals)*es)
	for i, v := range vals {
		e := b[i*es:]
		switch dt {
		case dtype.Int8:
			e[0] = byte(int8(v))
		case dtype.Uint8:
			e[0] = byte(v)
		case dtype.Int32:
			binary.LittleEndian.PutUint32(e, uint32(int32(v)))
		case dtype.Uint32:
			binary.LittleEndian.PutUint32(e, uint32(v))
		case dtype.Int64:
			binary.LittleEndian.PutUint64(e, uint64(int64(v)))
		case dtype.Uint64:
			binary.LittleEndian.PutUint64(e, uint64(v))
		case dtype.Float32:
			binary.LittleEndian.PutUint32(e, math.Float32bits(float32(v)))
		case dtype.Float64:
			binary.LittleEndian.PutUint64(e, math.Float64bits(v))
		case dtype.Float16:
			binary.LittleEndian.PutUint16(e, dtype.Float16Bits(float32(v)))
		case dtype.BFloat16:
			binary.LittleEndian.PutUint16(e, dtype.BFloat16Bits(float32(v)))
		}
	}
	return b
}

func decode(dt dtype.Type, b []byte) []float64 {
	es := dt.Size()
	out := make([]float64, len(b)/es)
	for i := range out {
		e := b[i*es:]
		switch dt {
		case dtype.Int8:
			out[i] = float64(int8(e[0]))
		case dtype.Uint8:
			out[i] = float64(e[0])
		case dtype.Int32:
			out[i] = float64(int32(binary.LittleEndian.Uint32(e)))
		case dtype.Uint32:
			out[i] = float64(binary.LittleEndian.Uint32(e))
		case dtype.Int64:
			out[i] = float64(int64(binary.LittleEndian.Uint64(e)))
		case dtype.Uint64:
			out[i] = float64(binary.LittleEndian.Uint64(e))
		case dtype.Float32:
			out[i] = float64(math.Float32frombits(binary.LittleEndian.Uint32(e)))
		case dtype.Float64:
			out[i] = math.Float64frombits(binary.LittleEndian.Uint64(e))
		case dtype.Float16:
			out[i] = float64(dtype.Float16From(binary.LittleEndian.Uint16(e)))
		case dtype.BFloat16:
			out[i] = float64(dtype.BFloat16From(binary.LittleEndian.Uint16(e)))
		}
	}
	return out
}

// inputs is rank r's data: small integers, exact in every type, products
// of two ranks included.
func inputs(r, n int) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = float64((i*7+r*3)%5 + 1 + r)
	}
	return v
}

// combine is the host's reduction of per-rank values.
func combine(dt dtype.Type, op collectives.Op, vals ...float64) float64 {
	acc := vals[0]
	for _, v := range vals[1:] {
		switch op {
		case collectives.Sum, collectives.Avg:
			acc += v
		case collectives.Prod:
			acc *= v
		case collectives.Max:
			acc = math.Max(acc, v)
		case collectives.Min:
			acc = math.Min(acc, v)
		}
	}
	if op == collectives.Avg {
		acc /= float64(len(vals))
		switch dt {
		case dtype.Float16, dtype.BFloat16, dtype.Float32, dtype.Float64:
		default:
			acc = math.Trunc(acc)
		}
	}
	return acc
}

func equal(got, want []float64) (int, bool) {
	if len(got) != len(want) {
		return -1, false
	}
	for i := range got {
		if got[i] != want[i] {
			return i, false
		}
	}
	return 0, true
}
