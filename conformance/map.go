package conformance

import (
	"bytes"
	"context"
	"errors"
	"testing"

	"github.com/gour-dev/gour/ur"
)

// The cases of this file are the Unified Runtime CTS's
// urEnqueueMemBufferMap and urEnqueueMemUnmap tests, and its buffers over
// host memory (UR_MEM_FLAG_USE_HOST_POINTER, ALLOC_HOST_POINTER).

// TestMapBuffer maps for reading, writing and writing whole, blocking and
// not, whole buffers and regions.
func TestMapBuffer(t *testing.T) {
	const size = 4096
	cases := []struct {
		name         string
		flags        ur.MapFlags
		blocking     bool
		offset, size uint64
	}{
		{"Read", ur.MapRead, true, 0, size},
		{"ReadNonBlocking", ur.MapRead, false, 0, size},
		{"ReadRegion", ur.MapRead, true, 1000, 96},
		{"Write", ur.MapWrite, true, 0, size},
		{"WriteNonBlocking", ur.MapWrite, false, 0, size},
		{"ReadWriteRegion", ur.MapRead | ur.MapWrite, true, 512, 1024},
		{"WriteInvalidate", ur.MapWriteInvalidateRegion, true, 0, size},
		{"WriteInvalidateNonBlocking", ur.MapWriteInvalidateRegion, false, 128, 256},
		{"LastByte", ur.MapRead | ur.MapWrite, true, size - 1, 1},
	}
	forEachDevice(t, func(t *testing.T, f *Fixture) {
		for _, c := range cases {
			f.Run(t, c.name, func(t *testing.T) {
				q := f.Queue(t)
				orig := pattern(size, 3)
				m := f.BufferFrom(t, ur.MemReadWrite, orig)
				mp, ev, err := q.EnqueueMapBuffer(m, c.blocking, c.flags, c.offset, c.size)
				if err != nil {
					t.Fatal(err)
				}
				// A write-invalidate mapping reads nothing: on a queue without
				// markers it is ready on return, with no event.
				invalidateAtOnce := ev == nil && c.flags == ur.MapWriteInvalidateRegion
				if c.blocking != (ev == nil) && !invalidateAtOnce {
					t.Errorf("blocking %v gave event %v", c.blocking, ev)
				}
				if ev != nil {
					if err := ev.Wait(context.Background()); err != nil {
						t.Fatal(err)
					}
					ev.Release()
				}
				data := mp.Bytes()
				if uint64(len(data)) != c.size || mp.Offset() != c.offset || mp.Flags() != c.flags {
					t.Fatalf("mapping of %d bytes at %d (%v), want %d at %d", len(data), mp.Offset(), mp.Flags(), c.size, c.offset)
				}
				region := orig[c.offset : c.offset+c.size]
				if c.flags&ur.MapRead != 0 && !bytes.Equal(data, region) {
					t.Errorf("mapped bytes differ from the buffer's")
				}
				want := append([]byte(nil), orig...)
				if c.flags&(ur.MapWrite|ur.MapWriteInvalidateRegion) != 0 {
					for i := range data {
						data[i] = ^byte(i)
					}
					copy(want[c.offset:], data)
				}
				uev, err := q.EnqueueUnmap(mp)
				if err != nil {
					t.Fatal(err)
				}
				if uev != nil {
					if err := uev.Wait(context.Background()); err != nil {
						t.Fatal(err)
					}
					uev.Release()
				}
				if mp.Bytes() != nil {
					t.Error("Bytes after the unmap is not nil")
				}
				got := make([]byte, size)
				if err := q.ReadBuffer(m, 0, got); err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(got, want) {
					t.Errorf("buffer after the unmap differs from what was written")
				}
			})
		}
	})
}

// TestMapBufferWaitList: a map after a write in its wait list sees the
// write; an unmap's event orders a later read.
func TestMapBufferWaitList(t *testing.T) {
	forEachDevice(t, func(t *testing.T, f *Fixture) {
		q := f.Queue(t)
		m := f.Buffer(t, ur.MemReadWrite, 256)
		src := pattern(256, 9)
		wev, err := q.EnqueueWrite(m, 0, src)
		if err != nil {
			t.Fatal(err)
		}
		defer wev.Release()
		mp, _, err := q.EnqueueMapBuffer(m, true, ur.MapRead|ur.MapWrite, 0, 256, wev)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(mp.Bytes(), src) {
			t.Fatal("the map does not see the write in its wait list")
		}
		mp.Bytes()[0] = 0xEE
		uev, err := q.EnqueueUnmap(mp)
		if err != nil {
			t.Fatal(err)
		}
		got := make([]byte, 256)
		rev, err := q.EnqueueRead(m, 0, got, uev)
		if err != nil {
			t.Fatal(err)
		}
		if err := ur.WaitAll(context.Background(), uev, rev); err != nil {
			t.Fatal(err)
		}
		uev.Release()
		rev.Release()
		if got[0] != 0xEE || !bytes.Equal(got[1:], src[1:]) {
			t.Error("the read after the unmap does not see the mapping's bytes")
		}
	})
}

// TestMapBufferBadInput: every argument a map or unmap checks.
func TestMapBufferBadInput(t *testing.T) {
	forEachDevice(t, func(t *testing.T, f *Fixture) {
		q := f.Queue(t)
		m := f.Buffer(t, ur.MemReadWrite, 1024)
		cases := []struct {
			name         string
			m            *ur.Mem
			flags        ur.MapFlags
			offset, size uint64
			want         ur.Result
		}{
			{"NilBuffer", nil, ur.MapRead, 0, 16, ur.ErrInvalidNullHandle},
			{"NoFlags", m, 0, 0, 16, ur.ErrInvalidValue},
			{"UnknownFlag", m, 1 << 7, 0, 16, ur.ErrInvalidValue},
			{"InvalidateWithRead", m, ur.MapWriteInvalidateRegion | ur.MapRead, 0, 16, ur.ErrInvalidValue},
			{"InvalidateWithWrite", m, ur.MapWriteInvalidateRegion | ur.MapWrite, 0, 16, ur.ErrInvalidValue},
			{"ZeroSize", m, ur.MapRead, 0, 0, ur.ErrInvalidSize},
			{"PastEnd", m, ur.MapRead, 1000, 25, ur.ErrInvalidSize},
			{"OffsetPastEnd", m, ur.MapRead, 2048, 1, ur.ErrInvalidSize},
			{"Overflow", m, ur.MapRead, 16, ^uint64(0), ur.ErrInvalidSize},
		}
		for _, c := range cases {
			f.Run(t, c.name, func(t *testing.T) {
				mp, _, err := q.EnqueueMapBuffer(c.m, true, c.flags, c.offset, c.size)
				if !errors.Is(err, c.want) || mp != nil {
					t.Errorf("got %v, %v; want %v", mp, err, c.want)
				}
			})
		}
		f.Run(t, "OtherContext", func(t *testing.T) {
			other := f.NewContext(t)
			om := f.BufferIn(t, other, ur.MemReadWrite, 64)
			if _, _, err := q.EnqueueMapBuffer(om, true, ur.MapRead, 0, 64); !errors.Is(err, ur.ErrInvalidContext) {
				t.Errorf("buffer of another context: %v", err)
			}
			mp, _, err := q.EnqueueMapBuffer(m, true, ur.MapRead, 0, 64)
			if err != nil {
				t.Fatal(err)
			}
			oq := f.QueueIn(t, other, ur.QueueProperties{})
			if _, err := oq.EnqueueUnmap(mp); !errors.Is(err, ur.ErrInvalidContext) {
				t.Errorf("unmap on a queue of another context: %v", err)
			}
			ev, err := q.EnqueueUnmap(mp)
			if err != nil {
				t.Fatal(err)
			}
			ev.Release()
		})
		f.Run(t, "UnmapTwice", func(t *testing.T) {
			mp, _, err := q.EnqueueMapBuffer(m, true, ur.MapWrite, 0, 8)
			if err != nil {
				t.Fatal(err)
			}
			ev, err := q.EnqueueUnmap(mp)
			if err != nil {
				t.Fatal(err)
			}
			if ev != nil {
				ev.Release()
			}
			if _, err := q.EnqueueUnmap(mp); !errors.Is(err, ur.ErrInvalidValue) {
				t.Errorf("second unmap: %v, want ErrInvalidValue", err)
			}
		})
		f.Run(t, "NilMapping", func(t *testing.T) {
			if _, err := q.EnqueueUnmap(nil); !errors.Is(err, ur.ErrInvalidNullPointer) {
				t.Errorf("nil mapping: %v", err)
			}
			var nilQ *ur.Queue
			if _, _, err := nilQ.EnqueueMapBuffer(m, true, ur.MapRead, 0, 8); !errors.Is(err, ur.ErrInvalidNullHandle) {
				t.Errorf("nil queue: %v", err)
			}
		})
		f.Run(t, "ReleasedWhileMapped", func(t *testing.T) {
			b := f.Buffer(t, ur.MemReadWrite, 64)
			ctx := f.Context(t)
			own, err := ctx.NewBuffer(ur.MemReadWrite, 64)
			if err != nil {
				t.Fatal(err)
			}
			_ = b
			mp, _, err := q.EnqueueMapBuffer(own, true, ur.MapWrite, 0, 64)
			if err != nil {
				t.Fatal(err)
			}
			if err := own.Release(); err != nil {
				t.Fatal(err)
			}
			// The mapping keeps the buffer until the unmap, which stores it.
			ev, err := q.EnqueueUnmap(mp)
			if err != nil {
				t.Fatalf("unmap of a released buffer's mapping: %v", err)
			}
			if ev != nil {
				ev.Wait(context.Background())
				ev.Release()
			}
		})
	})
}

// TestBufferUseHost: a buffer over host memory starts with its bytes, and
// its mappings are that memory, holding the buffer's bytes.
func TestBufferUseHost(t *testing.T) {
	forEachDevice(t, func(t *testing.T, f *Fixture) {
		ctx := f.Context(t)
		q := f.Queue(t)
		host := pattern(512, 5)
		m, err := ctx.NewBufferUseHost(ur.MemReadWrite, host)
		if err != nil {
			t.Fatal(err)
		}
		defer m.Release()
		got := make([]byte, 512)
		if err := q.ReadBuffer(m, 0, got); err != nil || !bytes.Equal(got, pattern(512, 5)) {
			t.Fatalf("buffer does not start with the host bytes: %v", err)
		}
		if err := q.WriteBuffer(m, 100, []byte{1, 2, 3}); err != nil {
			t.Fatal(err)
		}
		mp, _, err := q.EnqueueMapBuffer(m, true, ur.MapRead, 64, 128)
		if err != nil {
			t.Fatal(err)
		}
		if &mp.Bytes()[0] != &host[64] {
			t.Error("the mapping is not the host memory")
		}
		if host[100] != 1 || host[102] != 3 {
			t.Error("the host memory does not hold the buffer's bytes while mapped")
		}
		ev, err := q.EnqueueUnmap(mp)
		if err != nil {
			t.Fatal(err)
		}
		ev.Release()
		if &m.HostMemory()[0] != &host[0] {
			t.Error("HostMemory is not the host memory")
		}
		if _, err := ctx.NewBufferUseHost(ur.MemReadWrite, nil); !errors.Is(err, ur.ErrInvalidBufferSize) {
			t.Errorf("empty host memory: %v", err)
		}
	})
}

// TestBufferAllocHost: the mappings of an ALLOC_HOST_POINTER buffer are
// one host allocation.
func TestBufferAllocHost(t *testing.T) {
	forEachDevice(t, func(t *testing.T, f *Fixture) {
		ctx := f.Context(t)
		q := f.Queue(t)
		m, err := ctx.NewBufferAllocHost(ur.MemReadWrite, 256)
		if err != nil {
			t.Fatal(err)
		}
		defer m.Release()
		host := m.HostMemory()
		if len(host) != 256 {
			t.Fatalf("HostMemory has %d bytes", len(host))
		}
		mp, _, err := q.EnqueueMapBuffer(m, true, ur.MapWriteInvalidateRegion, 0, 256)
		if err != nil {
			t.Fatal(err)
		}
		if &mp.Bytes()[0] != &host[0] {
			t.Error("the mapping is not the buffer's host allocation")
		}
		copy(mp.Bytes(), pattern(256, 1))
		ev, err := q.EnqueueUnmap(mp)
		if err != nil {
			t.Fatal(err)
		}
		got := make([]byte, 256)
		rev, err := q.EnqueueRead(m, 0, got, ev)
		if err != nil {
			t.Fatal(err)
		}
		if err := ur.WaitAll(context.Background(), ev, rev); err != nil {
			t.Fatal(err)
		}
		ev.Release()
		rev.Release()
		if !bytes.Equal(got, pattern(256, 1)) {
			t.Error("the unmap did not store the mapping")
		}
		if _, err := ctx.NewBufferAllocHost(ur.MemReadWrite, 0); err == nil {
			t.Error("a zero-size buffer was made")
		}
	})
}
