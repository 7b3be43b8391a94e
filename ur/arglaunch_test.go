package ur

import (
	"encoding/binary"
	"errors"
	"sync/atomic"
	"testing"

	"github.com/gour-dev/gour/ur/driver"
)

// prepQueue is an argument-launch queue that also prepares them.
type prepQueue struct {
	argQueue
	prepared int
	viaTable atomic.Int64 // launches made through a prepared table
}

// preparedFake is prepQueue's prepared launch: it keeps its own copy of
// the arguments, as an adapter's table would.
type preparedFake struct {
	q     *prepQueue
	args  []driver.LaunchArg
	table [][]byte // each value argument's bytes, which the front end writes
}

func (q *prepQueue) PrepareArgLaunch(_ driver.Kernel, _ driver.NDRange, args []driver.LaunchArg, _ driver.LaunchProperties) (driver.PreparedArgLaunch, error) {
	q.prepared++
	p := &preparedFake{q: q, args: append([]driver.LaunchArg(nil), args...), table: make([][]byte, len(args))}
	for i, a := range args {
		if a.Kind == driver.ArgValue {
			p.table[i] = binary.LittleEndian.AppendUint64(nil, a.Bits)[:a.Size]
		}
	}
	return p, nil
}

func (p *preparedFake) Native() *driver.NativeCall { return nil }

func (p *preparedFake) Launch() driver.LaunchStatus {
	p.q.launches.Add(1)
	p.q.viaTable.Add(1)
	p.q.sum.Add(uint64(binary.LittleEndian.Uint32(p.table[1])))
	return driver.Launched
}

func (p *preparedFake) Value(i int) []byte { return p.table[i] }

func (p *preparedFake) SetArg(i int, a driver.LaunchArg) error {
	p.args[i] = a
	if a.Kind == driver.ArgValue {
		binary.LittleEndian.PutUint32(p.table[i], uint32(a.Bits))
	}
	return nil
}

// An ArgLaunch takes new values with SetArg and launches them, through
// the adapter's prepared launch where it has one and through Launch with arguments
// where not, allocating nothing either way.
func TestArgLaunch(t *testing.T) {
	for _, prepared := range []bool{false, true} {
		k, fk, q, aq, m := argSetup(t)
		var pq *prepQueue
		if prepared {
			pq = &prepQueue{}
			q.drv = pq
			aq = &pq.argQueue
		}
		l, err := q.PrepareLaunchArgs(k, Range1D(64), LaunchProperties{}, ArgBuffer(m), ArgOf(uint32(0)))
		if err != nil {
			t.Fatal(err)
		}
		i := uint32(0)
		allocs := testing.AllocsPerRun(100, func() {
			i++
			if err := l.SetArg(1, ArgOf(i)); err != nil {
				t.Fatal(err)
			}
			if err := l.Launch(); err != nil {
				t.Fatal(err)
			}
		})
		if allocs != 0 && !raceEnabled {
			t.Errorf("prepared %v: SetArg and Launch allocate %v times, want 0", prepared, allocs)
		}
		if n, sum := aq.launches.Load(), aq.sum.Load(); n != 101 || sum != 101*102/2 {
			t.Errorf("prepared %v: %d launches summing %d reached the adapter, want 101 summing %d", prepared, n, sum, 101*102/2)
		}
		if fk.sets != 0 {
			t.Errorf("prepared %v: the kernel's own arguments were set %d times", prepared, fk.sets)
		}
		if prepared && pq.prepared != 1 {
			t.Errorf("the adapter prepared %d launches, want 1", pq.prepared)
		}
		// The prepared launch holds its buffer: released, it is refused
		// at the next launch, and freed with the launch.
		if err := m.Release(); err != nil {
			t.Fatal(err)
		}
		if err := l.Launch(); !errors.Is(err, ErrInvalidMemObject) {
			t.Errorf("prepared %v: Launch after the buffer's release: %v, want ErrInvalidMemObject", prepared, err)
		}
		if err := l.Release(); err != nil {
			t.Fatal(err)
		}
		if err := l.Launch(); !errors.Is(err, ErrInvalidValue) {
			t.Errorf("prepared %v: Launch after Release: %v, want ErrInvalidValue", prepared, err)
		}
		if err := l.SetArg(1, ArgOf(uint32(1))); !errors.Is(err, ErrInvalidValue) {
			t.Errorf("prepared %v: SetArg after Release: %v, want ErrInvalidValue", prepared, err)
		}
	}
}

func TestArgLaunchSetArgChecks(t *testing.T) {
	k, _, q, _, m := argSetup(t)
	l, err := q.PrepareLaunchArgs(k, Range1D(64), LaunchProperties{}, ArgBuffer(m), ArgOf(uint32(0)))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Release()
	for _, tt := range []struct {
		what string
		i    int
		a    Arg
		code Result
	}{
		{"a value for memory", 0, ArgOf(uint32(1)), ErrInvalidKernelArgs},
		{"memory for a value", 1, ArgBuffer(m), ErrInvalidKernelArgs},
		{"the wrong size", 1, ArgOf(uint64(1)), ErrInvalidKernelArgumentSize},
		{"an index past the end", 2, ArgOf(uint32(1)), ErrInvalidKernelArgumentIndex},
		{"a negative index", -1, ArgOf(uint32(1)), ErrInvalidKernelArgumentIndex},
	} {
		if err := l.SetArg(tt.i, tt.a); !errors.Is(err, tt.code) {
			t.Errorf("SetArg(%d) with %s: %v, want %v", tt.i, tt.what, err, tt.code)
		}
	}
	var nilLaunch *ArgLaunch
	if err := nilLaunch.Launch(); !errors.Is(err, ErrInvalidNullHandle) {
		t.Errorf("Launch on a nil ArgLaunch: %v, want ErrInvalidNullHandle", err)
	}
}

// BenchmarkArgLaunch is the front end's cost of two SetArg calls and a
// Launch over an adapter that prepares launches and does nothing.
func BenchmarkArgLaunch(b *testing.B) {
	k, _, q, _, m := argSetup(&testing.T{})
	pq := &prepQueue{}
	q.drv = pq
	l, err := q.PrepareLaunchArgs(k, Range1D(64), LaunchProperties{}, ArgBuffer(m), ArgOf(uint32(0)))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if err := errors.Join(l.SetArg(1, ArgOf(uint32(i))), l.SetArg(1, ArgOf(uint32(i+1))), l.Launch()); err != nil {
			b.Fatal(err)
		}
	}
}
