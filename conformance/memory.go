package conformance

import (
	"bytes"
	"fmt"
	"slices"
	"testing"

	"github.com/gour-dev/gour/ur"
)

func TestMemoryCreate(t *testing.T) {
	forEachDevice(t, func(t *testing.T, f *Fixture) {
		for _, tt := range []struct {
			name  string
			flags ur.MemFlags
		}{
			{"ReadWrite", ur.MemReadWrite},
			{"ReadOnly", ur.MemReadOnly},
			{"WriteOnly", ur.MemWriteOnly},
		} {
			f.Run(t, tt.name, func(t *testing.T) {
				const size = 4096
				m := f.Buffer(t, tt.flags, size)
				if m.Size() != size {
					t.Errorf("Size() = %d, want %d", m.Size(), size)
				}
				if m.Context() != f.Context(t) {
					t.Errorf("Context() is not the context the buffer was made in")
				}
				if m.Native() == 0 {
					t.Errorf("Native() = 0")
				}
			})
		}
	})
}

func TestMemoryCreateFromHost(t *testing.T) {
	forEachDevice(t, func(t *testing.T, f *Fixture) {
		for _, flags := range []ur.MemFlags{ur.MemReadWrite, ur.MemReadOnly} {
			f.Run(t, fmt.Sprintf("flags%d", flags), func(t *testing.T) {
				data := pattern(3000, 9)
				m := f.BufferFrom(t, flags, data)
				if m.Size() != uint64(len(data)) {
					t.Errorf("Size() = %d, want %d", m.Size(), len(data))
				}
				data2 := bytes.Clone(data)
				clear(data) // the buffer holds a copy
				got := make([]byte, len(data2))
				must(t, "ReadBuffer", f.Queue(t).ReadBuffer(m, 0, got))
				if i := firstDiff(got, data2); i >= 0 {
					t.Errorf("buffer made from host data reads back differently: byte %d = %#x, want %#x (all zero: %v)",
						i, got[i], data2[i], !slices.ContainsFunc(got, func(b byte) bool { return b != 0 }))
				}
			})
		}
	})
}

func TestMemoryZeroSize(t *testing.T) {
	forEachDevice(t, func(t *testing.T, f *Fixture) {
		_, err := f.Context(t).NewBuffer(ur.MemReadWrite, 0)
		wantErr(t, "NewBuffer(0)", err, ur.ErrInvalidBufferSize)
		_, err = f.Context(t).NewBufferFrom(ur.MemReadWrite, nil)
		wantErr(t, "NewBufferFrom(nil)", err, ur.ErrInvalidBufferSize)
	})
}

func TestMemoryOversized(t *testing.T) {
	forEachDevice(t, func(t *testing.T, f *Fixture) {
		max := f.Device.Info().MaxMemAllocSize
		if max == 0 {
			t.Skip("device reports no MaxMemAllocSize")
		}
		m, err := f.Context(t).NewBuffer(ur.MemReadWrite, max+1)
		if err == nil {
			m.Release()
		}
		wantErr(t, fmt.Sprintf("NewBuffer(MaxMemAllocSize+1 = %d)", max+1), err, ur.ErrInvalidBufferSize)
	})
}

func TestMemoryBadFlags(t *testing.T) {
	forEachDevice(t, func(t *testing.T, f *Fixture) {
		for _, tt := range []struct {
			name  string
			flags ur.MemFlags
		}{
			{"none", 0},
			{"ReadWrite|ReadOnly", ur.MemReadWrite | ur.MemReadOnly},
			{"ReadOnly|WriteOnly", ur.MemReadOnly | ur.MemWriteOnly},
			{"unknown bit", 1 << 20},
		} {
			f.Run(t, tt.name, func(t *testing.T) {
				m, err := f.Context(t).NewBuffer(tt.flags, 64)
				if err == nil {
					m.Release()
				}
				wantErr(t, fmt.Sprintf("NewBuffer(flags %#x)", uint32(tt.flags)), err, ur.ErrInvalidValue)
			})
		}
	})
}

func TestMemoryRoundTrip(t *testing.T) {
	forEachDevice(t, func(t *testing.T, f *Fixture) {
		for _, size := range []int{1, 3, 4096, 1 << 20} {
			f.Run(t, fmt.Sprintf("%dB", size), func(t *testing.T) {
				q := f.Queue(t)
				m := f.Buffer(t, ur.MemReadWrite, uint64(size))
				src := pattern(size, 3)
				must(t, "WriteBuffer", q.WriteBuffer(m, 0, src))
				got := make([]byte, size)
				must(t, "ReadBuffer", q.ReadBuffer(m, 0, got))
				if !bytes.Equal(got, src) {
					t.Errorf("round trip of %d bytes: data differs", size)
				}
			})
		}
	})
}

func TestMemoryNonBlockingRoundTrip(t *testing.T) {
	forEachDevice(t, func(t *testing.T, f *Fixture) {
		q := f.Queue(t)
		const size = 1 << 16
		m := f.Buffer(t, ur.MemReadWrite, size)
		src := pattern(size, 4)
		wev, err := q.EnqueueWrite(m, 0, src)
		must(t, "EnqueueWrite", err)
		cleanup(t, wev)
		got := make([]byte, size)
		rev, err := q.EnqueueRead(m, 0, got, wev)
		must(t, "EnqueueRead", err)
		cleanup(t, rev)
		must(t, "Wait", rev.Wait(t.Context()))
		if !bytes.Equal(got, src) {
			t.Errorf("non-blocking round trip: data differs")
		}
	})
}

func TestMemoryOffsets(t *testing.T) {
	forEachDevice(t, func(t *testing.T, f *Fixture) {
		q := f.Queue(t)
		const size = 1024
		m := f.Buffer(t, ur.MemReadWrite, size)
		must(t, "WriteBuffer zeros", q.WriteBuffer(m, 0, make([]byte, size)))
		part := pattern(100, 50)
		must(t, "WriteBuffer at 300", q.WriteBuffer(m, 300, part))
		got := make([]byte, 100)
		must(t, "ReadBuffer at 300", q.ReadBuffer(m, 300, got))
		if !bytes.Equal(got, part) {
			t.Errorf("read at offset 300 differs from what was written there")
		}
		all := make([]byte, size)
		must(t, "ReadBuffer all", q.ReadBuffer(m, 0, all))
		want := make([]byte, size)
		copy(want[300:], part)
		if !bytes.Equal(all, want) {
			t.Errorf("write at offset 300 touched bytes outside [300, 400)")
		}
		last := make([]byte, 1)
		must(t, "ReadBuffer of the last byte", q.ReadBuffer(m, size-1, last))
	})
}

func TestMemoryOutOfRange(t *testing.T) {
	forEachDevice(t, func(t *testing.T, f *Fixture) {
		const size = 256
		q := f.Queue(t)
		m := f.Buffer(t, ur.MemReadWrite, size)
		for _, tt := range []struct {
			name   string
			write  bool
			offset uint64
			n      int
		}{
			{"read past end", false, 0, size + 1},
			{"read at offset past end", false, 200, 57},
			{"read offset beyond size", false, size + 1, 1},
			{"read empty", false, 0, 0},
			{"write past end", true, 0, size + 1},
			{"write at offset past end", true, size - 1, 2},
			{"write offset overflow", true, ^uint64(0), 2},
			{"write empty", true, 0, 0},
		} {
			f.Run(t, tt.name, func(t *testing.T) {
				buf := make([]byte, tt.n)
				var err error
				if tt.write {
					err = q.WriteBuffer(m, tt.offset, buf)
				} else {
					err = q.ReadBuffer(m, tt.offset, buf)
				}
				wantErr(t, tt.name, err, ur.ErrInvalidSize)
			})
		}
	})
}

func TestMemoryCopy(t *testing.T) {
	forEachDevice(t, func(t *testing.T, f *Fixture) {
		const size = 4096
		q := f.Queue(t)
		src := f.BufferFrom(t, ur.MemReadWrite, pattern(size, 11))
		for _, tt := range []struct {
			name              string
			srcOff, dstOff, n uint64
		}{
			{"whole", 0, 0, size},
			{"offsets", 100, 1000, 777},
			{"one byte at end", size - 1, size - 1, 1},
		} {
			f.Run(t, tt.name, func(t *testing.T) {
				dst := f.BufferFrom(t, ur.MemReadWrite, make([]byte, size))
				ev, err := q.EnqueueCopy(src, dst, tt.srcOff, tt.dstOff, tt.n)
				must(t, "EnqueueCopy", err)
				cleanup(t, ev)
				must(t, "Wait", ev.Wait(t.Context()))
				got := make([]byte, size)
				must(t, "ReadBuffer", q.ReadBuffer(dst, 0, got))
				want := make([]byte, size)
				copy(want[tt.dstOff:tt.dstOff+tt.n], pattern(size, 11)[tt.srcOff:tt.srcOff+tt.n])
				if !bytes.Equal(got, want) {
					t.Errorf("copy of %d bytes from %d to %d: destination differs", tt.n, tt.srcOff, tt.dstOff)
				}
			})
		}
	})
}

func TestMemoryCopyWithinBuffer(t *testing.T) {
	forEachDevice(t, func(t *testing.T, f *Fixture) {
		const size = 1024
		q := f.Queue(t)
		data := pattern(size, 13)
		m := f.BufferFrom(t, ur.MemReadWrite, data)
		// Adjacent, not overlapping: [0,512) → [512,1024).
		ev, err := q.EnqueueCopy(m, m, 0, 512, 512)
		must(t, "EnqueueCopy of adjacent ranges", err)
		cleanup(t, ev)
		got := make([]byte, size)
		must(t, "ReadBuffer", q.ReadBuffer(m, 0, got))
		want := append(bytes.Clone(data[:512]), data[:512]...)
		if !bytes.Equal(got, want) {
			t.Errorf("copy within one buffer: data differs")
		}
	})
}

func TestMemoryOverlappingCopy(t *testing.T) {
	forEachDevice(t, func(t *testing.T, f *Fixture) {
		q := f.Queue(t)
		m := f.Buffer(t, ur.MemReadWrite, 1024)
		for _, tt := range []struct{ src, dst, n uint64 }{
			{0, 100, 200}, {100, 0, 200}, {0, 0, 1024}, {1000, 1010, 14}, {5, 5, 1},
		} {
			_, err := q.EnqueueCopy(m, m, tt.src, tt.dst, tt.n)
			wantErr(t, fmt.Sprintf("EnqueueCopy(%d→%d, %d bytes) in one buffer", tt.src, tt.dst, tt.n), err, ur.ErrOverlappingRegions)
		}
	})
}

func TestMemoryCopyOutOfRange(t *testing.T) {
	forEachDevice(t, func(t *testing.T, f *Fixture) {
		q := f.Queue(t)
		a, b := f.Buffer(t, ur.MemReadWrite, 256), f.Buffer(t, ur.MemReadWrite, 128)
		_, err := q.EnqueueCopy(a, b, 0, 0, 256)
		wantErr(t, "EnqueueCopy past the destination's end", err, ur.ErrInvalidSize)
		_, err = q.EnqueueCopy(b, a, 64, 0, 65)
		wantErr(t, "EnqueueCopy past the source's end", err, ur.ErrInvalidSize)
		_, err = q.EnqueueCopy(a, b, 0, 0, 0)
		wantErr(t, "EnqueueCopy of 0 bytes", err, ur.ErrInvalidSize)
	})
}

func TestMemoryFill(t *testing.T) {
	forEachDevice(t, func(t *testing.T, f *Fixture) {
		const size = 4096
		q := f.Queue(t)
		for _, n := range []int{1, 2, 4, 8, 16, 32, 64, 128} {
			f.Run(t, fmt.Sprintf("pattern%d", n), func(t *testing.T) {
				m := f.BufferFrom(t, ur.MemReadWrite, make([]byte, size))
				pat := pattern(n, 0xA1)
				// Fill the middle, leave a pattern-sized margin at each end.
				off, length := uint64(n), uint64(size-2*n)
				ev, err := q.EnqueueFill(m, pat, off, length)
				must(t, "EnqueueFill", err)
				cleanup(t, ev)
				must(t, "Wait", ev.Wait(t.Context()))
				got := make([]byte, size)
				must(t, "ReadBuffer", q.ReadBuffer(m, 0, got))
				for i, b := range got {
					want := byte(0)
					if uint64(i) >= off && uint64(i) < off+length {
						want = pat[(uint64(i)-off)%uint64(n)]
					}
					if b != want {
						t.Fatalf("byte %d = %#x, want %#x", i, b, want)
					}
				}
			})
		}
	})
}

func TestMemoryFillBadPattern(t *testing.T) {
	forEachDevice(t, func(t *testing.T, f *Fixture) {
		q := f.Queue(t)
		m := f.Buffer(t, ur.MemReadWrite, 1024)
		for _, n := range []int{0, 3, 6, 256} {
			_, err := q.EnqueueFill(m, make([]byte, n), 0, 768)
			wantErr(t, fmt.Sprintf("EnqueueFill with a %d-byte pattern", n), err, ur.ErrInvalidValue)
		}
		_, err := q.EnqueueFill(m, make([]byte, 4), 2, 8)
		wantErr(t, "EnqueueFill at an offset not a multiple of the pattern", err, ur.ErrInvalidSize)
		_, err = q.EnqueueFill(m, make([]byte, 4), 0, 6)
		wantErr(t, "EnqueueFill of a size not a multiple of the pattern", err, ur.ErrInvalidSize)
		_, err = q.EnqueueFill(m, make([]byte, 4), 1020, 8)
		wantErr(t, "EnqueueFill past the end", err, ur.ErrInvalidSize)
	})
}

func TestMemoryReleased(t *testing.T) {
	forEachDevice(t, func(t *testing.T, f *Fixture) {
		q := f.Queue(t)
		m, err := f.Context(t).NewBuffer(ur.MemReadWrite, 64)
		must(t, "NewBuffer", err)
		must(t, "Release", m.Release())
		wantErr(t, "ReadBuffer of a released buffer", q.ReadBuffer(m, 0, make([]byte, 8)), ur.ErrInvalidMemObject)
		wantErr(t, "WriteBuffer of a released buffer", q.WriteBuffer(m, 0, make([]byte, 8)), ur.ErrInvalidMemObject)
		_, err = q.EnqueueFill(m, []byte{1}, 0, 8)
		wantErr(t, "EnqueueFill of a released buffer", err, ur.ErrInvalidMemObject)
		other := f.Buffer(t, ur.MemReadWrite, 64)
		_, err = q.EnqueueCopy(other, m, 0, 0, 8)
		wantErr(t, "EnqueueCopy to a released buffer", err, ur.ErrInvalidMemObject)
		wantErr(t, "second Release", m.Release(), ur.ErrInvalidMemObject)
	})
}

func TestMemoryNilBuffer(t *testing.T) {
	forEachDevice(t, func(t *testing.T, f *Fixture) {
		q := f.Queue(t)
		wantErr(t, "ReadBuffer(nil)", q.ReadBuffer(nil, 0, make([]byte, 8)), ur.ErrInvalidNullHandle)
		var m *ur.Mem
		wantErr(t, "nil Mem.Release", m.Release(), ur.ErrInvalidNullHandle)
	})
}

func TestMemoryOtherContext(t *testing.T) {
	forEachDevice(t, func(t *testing.T, f *Fixture) {
		q := f.Queue(t) // in the shared context
		m := f.BufferIn(t, f.NewContext(t), ur.MemReadWrite, 64)
		wantErr(t, "ReadBuffer of another context's buffer", q.ReadBuffer(m, 0, make([]byte, 8)), ur.ErrInvalidContext)
	})
}

// firstDiff returns the index of the first byte where a and b differ, or
// -1 when they are equal.
func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	if len(a) != len(b) {
		return min(len(a), len(b))
	}
	return -1
}

// A range whose end does not fit in 64 bits is refused with the numbers
// given and the buffer's size, by every call that takes a range.
func TestMemoryHugeOffsetSaysTheBufferSize(t *testing.T) {
	forEachDevice(t, func(t *testing.T, f *Fixture) {
		const size = 256
		huge := ^uint64(0) - 2
		q := f.Queue(t)
		m := f.Buffer(t, ur.MemReadWrite, size)
		other := f.Buffer(t, ur.MemReadWrite, size)
		say := []string{"18446744073709551613", "256 bytes"}
		wantErrSaying(t, "ReadBuffer", q.ReadBuffer(m, huge, make([]byte, 5)), ur.ErrInvalidSize, say...)
		wantErrSaying(t, "WriteBuffer", q.WriteBuffer(m, huge, make([]byte, 5)), ur.ErrInvalidSize, say...)
		_, err := q.EnqueueCopy(m, other, huge, 0, 5)
		wantErrSaying(t, "EnqueueCopy from a huge offset", err, ur.ErrInvalidSize, say...)
		_, err = q.EnqueueCopy(m, other, 0, 8, huge)
		wantErrSaying(t, "EnqueueCopy of a huge size", err, ur.ErrInvalidSize, "18446744073709551613 bytes", "256 bytes")
		_, err = q.EnqueueFill(m, []byte{0}, huge, 5)
		wantErrSaying(t, "EnqueueFill", err, ur.ErrInvalidSize, say...)
	})
}
