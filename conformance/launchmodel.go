package conformance

import (
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/gour-dev/gour/ur"
)

func TestLaunchArgs(t *testing.T) {
	forEachDevice(t, func(t *testing.T, f *Fixture) {
		q := f.Queue(t)
		k := f.Kernel(t, "fill_u32")
		out := f.Buffer(t, ur.MemReadWrite, 4*256)
		must(t, "Launch with arguments", q.Launch(k, ur.Range1D(256), ur.ArgBuffer(out), ur.ArgOf(uint32(41))))
		checkUint32s(t, "fill_u32 through Launch with arguments", readUint32s(t, q, out, 256), func(int) uint32 { return 41 })
		// The kernel's own arguments are untouched: a launch through them
		// still wants them set.
		wantErr(t, "Launch with the kernel's own arguments unset", q.Launch(k, ur.Range1D(256)), ur.ErrInvalidKernelArgs)
		f.Run(t, "LocalMemory", func(t *testing.T) {
			g := newGroupSum(t, f, 4*groupSumLocal)
			src := f.BufferFrom(t, ur.MemReadOnly, ur.AsBytes(iotaU32(groupSumLocal*groupSumGroups)))
			k := f.Kernel(t, "group_sum")
			ev, err := q.EnqueueLaunch(k, g.r, ur.LaunchOptions{}, ur.ArgBuffer(src), ur.ArgBuffer(g.dst), ur.ArgLocalMem(4*groupSumLocal))
			must(t, "EnqueueLaunch", err)
			must(t, "Wait", ev.Wait(t.Context()))
			ev.Release()
			g.check(t, q, "group sums through Launch with arguments")
		})
		f.Run(t, "Pointer", func(t *testing.T) {
			needUSM(t, f, ur.USMDevice)
			u := allocUSM(t, f, f.Context(t), ur.USMDevice, 4*512)
			must(t, "Launch with arguments", q.Launch(k, ur.Range1D(256), ur.ArgPtr(u.Ptr().Add(4*256)), ur.ArgOf(uint32(9))))
			got := make([]byte, 4*512)
			must(t, "CopyFromPtr", q.CopyFromPtr(got, u.Ptr()))
			if w := u32s(got); w[256] != 9 || w[511] != 9 {
				t.Errorf("fill_u32 on a pointer with an offset: [256] = %d, [511] = %d, want 9", w[256], w[511])
			}
		})
		f.Run(t, "PointersAndBuffers", func(t *testing.T) {
			needUSM(t, f, ur.USMDevice)
			launchPointersAndBuffers(t, f, q)
		})
		f.Run(t, "BadArguments", func(t *testing.T) {
			wantErr(t, "one argument of two", q.Launch(k, ur.Range1D(256), ur.ArgBuffer(out)), ur.ErrInvalidKernelArgs)
			wantErr(t, "the zero Arg", q.Launch(k, ur.Range1D(256), ur.ArgBuffer(out), ur.Arg{}), ur.ErrInvalidKernelArgs)
			err := q.Launch(k, ur.Range1D(256), ur.ArgOf(uint32(1)), ur.ArgBuffer(out))
			if !errors.Is(err, ur.ErrInvalidKernelArgumentSize) && !errors.Is(err, ur.ErrInvalidKernelArgs) && !errors.Is(err, ur.ErrInvalidArgument) {
				t.Errorf("swapped arguments: %v, want a typed argument error", err)
			}
			released := f.Buffer(t, ur.MemReadWrite, 64)
			must(t, "Release", released.Release())
			wantErr(t, "a released buffer", q.Launch(k, ur.Range1D(16), ur.ArgBuffer(released), ur.ArgOf(uint32(1))), ur.ErrInvalidMemObject)
		})
	})
}

// launchPointersAndBuffers launches axpy with x and y each a USM pointer
// (at an offset) or a buffer, mixed in one launch, the same argument
// changing from one kind to the other between launches of one kernel,
// from goroutines at once; then on a kernel whose own arguments are set
// as pointers.
func launchPointersAndBuffers(t *testing.T, f *Fixture, q *ur.Queue) {
	const n, goroutines, rounds = 256, 4, 3
	ctx := f.Context(t)
	xs := make([]float32, n)
	for i := range xs {
		xs[i] = float32(i)
	}
	xb := f.BufferFrom(t, ur.MemReadOnly, ur.AsBytes(xs))
	xu := allocUSM(t, f, ctx, ur.USMDevice, 4*(n+3)).Ptr().Add(4 * 3)
	must(t, "CopyToPtr(x)", q.CopyToPtr(xu, ur.AsBytes(xs)))
	// Each goroutine's y as a buffer and as a pointer.
	zero := make([]float32, n)
	yb, yu := make([]*ur.Mem, goroutines), make([]ur.Ptr, goroutines)
	for g := range goroutines {
		yb[g] = f.BufferFrom(t, ur.MemReadWrite, ur.AsBytes(zero))
		yu[g] = allocUSM(t, f, ctx, ur.USMDevice, 4*(n+1)).Ptr().Add(4)
	}
	// The kinds of x and y (pointer: true), launch by launch: mixed on a
	// new kernel, then each argument turned both ways.
	steps := [][2]bool{{true, false}, {false, true}, {true, true}, {false, false}, {true, false}, {false, true}, {false, false}, {true, true}}
	run := func(what string, k *ur.Kernel) {
		for g := range goroutines {
			must(t, "WriteBuffer(y)", q.WriteBuffer(yb[g], 0, ur.AsBytes(zero)))
			must(t, "CopyToPtr(y)", q.CopyToPtr(yu[g], ur.AsBytes(zero)))
		}
		wantB, wantU := make([]float32, goroutines), make([]float32, goroutines) // y[i] = want*x[i]
		var wg sync.WaitGroup
		errs := make([]error, goroutines)
		for g := range goroutines {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for r := range rounds * len(steps) {
					s := steps[(r+g)%len(steps)]
					a := float32(1 + (r+g)%3)
					x, y := ur.ArgBuffer(xb), ur.ArgBuffer(yb[g])
					if s[0] {
						x = ur.ArgPtr(xu)
					}
					if s[1] {
						y = ur.ArgPtr(yu[g])
						wantU[g] += a
					} else {
						wantB[g] += a
					}
					if err := q.Launch(k, ur.Range1D(n), ur.ArgOf(a), x, y); err != nil {
						errs[g] = fmt.Errorf("launch %d, x %s, y %s: %w", r, kindName(s[0]), kindName(s[1]), err)
						return
					}
				}
			}()
		}
		wg.Wait()
		for g, err := range errs {
			if err != nil {
				t.Fatalf("%s: goroutine %d: %v", what, g, err)
			}
		}
		for g := range goroutines {
			gotB, gotU := make([]float32, n), make([]float32, n)
			must(t, "ReadBuffer(y)", q.ReadBuffer(yb[g], 0, ur.AsBytes(gotB)))
			must(t, "CopyFromPtr(y)", q.CopyFromPtr(ur.AsBytes(gotU), yu[g]))
			for i := range n {
				if w := wantB[g] * xs[i]; gotB[i] != w {
					t.Fatalf("%s: goroutine %d: y in a buffer: [%d] = %v, want %v", what, g, i, gotB[i], w)
				}
				if w := wantU[g] * xs[i]; gotU[i] != w {
					t.Fatalf("%s: goroutine %d: y at a pointer: [%d] = %v, want %v", what, g, i, gotU[i], w)
				}
			}
		}
	}
	run("new kernel", f.Kernel(t, "axpy"))
	// Launches with arguments leave the kernel's own, here pointers,
	// as they are, and take buffers all the same.
	k := f.Kernel(t, "axpy")
	must(t, "SetArgPtr(x)", k.SetArgPtr(1, xu))
	must(t, "SetArgPtr(y)", k.SetArgPtr(2, yu[0]))
	run("kernel with pointer arguments", k)
}

func kindName(ptr bool) string {
	if ptr {
		return "a pointer"
	}
	return "a buffer"
}

func iotaU32(n int) []uint32 {
	out := make([]uint32, n)
	for i := range out {
		out[i] = uint32(i)
	}
	return out
}

// 64 goroutines launch one kernel with their own arguments at once, with
// no lock; every result is right (the suite runs under -race in make test).
func TestLaunchArgsConcurrent(t *testing.T) {
	forEachDevice(t, func(t *testing.T, f *Fixture) {
		const goroutines, launches, n = 64, 20, 256
		k := f.Kernel(t, "fill_u32")
		outs := make([]*ur.Mem, goroutines)
		for g := range outs {
			outs[g] = f.Buffer(t, ur.MemReadWrite, 4*n)
		}
		q := f.Queue(t)
		var wg sync.WaitGroup
		for g := range goroutines {
			wg.Go(func() {
				for i := range launches {
					if err := q.Launch(k, ur.Range1D(n), ur.ArgBuffer(outs[g]), ur.ArgOf(uint32(g*1000+i))); err != nil {
						t.Errorf("goroutine %d: %v", g, err)
						return
					}
				}
			})
		}
		wg.Wait()
		for g := range goroutines {
			checkUint32s(t, fmt.Sprintf("goroutine %d's buffer", g), readUint32s(t, q, outs[g], n), func(int) uint32 { return uint32(g*1000 + launches - 1) })
		}
	})
}

// A launch with arguments prepared once (ArgLaunch): new values with
// SetArg, launched by goroutines that each hold their own, on one kernel;
// bad arguments, released memory and a released ArgLaunch are refused.
func TestArgLaunch(t *testing.T) {
	forEachDevice(t, func(t *testing.T, f *Fixture) {
		const goroutines, launches, n = 16, 25, 256
		q, k := f.Queue(t), f.Kernel(t, "fill_u32")
		outs := make([]*ur.Mem, goroutines)
		for g := range outs {
			outs[g] = f.Buffer(t, ur.MemReadWrite, 4*n)
		}
		var wg sync.WaitGroup
		for g := range goroutines {
			wg.Go(func() {
				l, err := q.PrepareLaunchArgs(k, ur.Range1D(n), ur.LaunchProperties{}, ur.ArgBuffer(outs[g]), ur.ArgOf(uint32(0)))
				if err != nil {
					t.Errorf("goroutine %d: PrepareLaunchArgs: %v", g, err)
					return
				}
				defer l.Release()
				for i := range launches {
					if err := errors.Join(l.SetArg(1, ur.ArgOf(uint32(g*1000+i))), l.Launch()); err != nil {
						t.Errorf("goroutine %d: %v", g, err)
						return
					}
				}
			})
		}
		wg.Wait()
		for g := range goroutines {
			checkUint32s(t, fmt.Sprintf("goroutine %d's buffer", g), readUint32s(t, q, outs[g], n), func(int) uint32 { return uint32(g*1000 + launches - 1) })
		}
		f.Run(t, "NewBuffer", func(t *testing.T) {
			a, b := f.Buffer(t, ur.MemReadWrite, 4*n), f.Buffer(t, ur.MemReadWrite, 4*n)
			l, err := q.PrepareLaunchArgs(k, ur.Range1D(n), ur.LaunchProperties{}, ur.ArgBuffer(a), ur.ArgOf(uint32(5)))
			must(t, "PrepareLaunchArgs", err)
			defer l.Release()
			must(t, "Launch", l.Launch())
			must(t, "SetArg(buffer)", l.SetArg(0, ur.ArgBuffer(b)))
			must(t, "SetArg(value)", l.SetArg(1, ur.ArgOf(uint32(6))))
			must(t, "Launch", l.Launch())
			checkUint32s(t, "the first buffer", readUint32s(t, q, a, n), func(int) uint32 { return 5 })
			checkUint32s(t, "the buffer set after", readUint32s(t, q, b, n), func(int) uint32 { return 6 })
		})
		f.Run(t, "BadInput", func(t *testing.T) {
			out := f.Buffer(t, ur.MemReadWrite, 4*n)
			_, err := q.PrepareLaunchArgs(k, ur.Range1D(n), ur.LaunchProperties{}, ur.ArgBuffer(out))
			wantErr(t, "one argument of two", err, ur.ErrInvalidKernelArgs)
			l, err := q.PrepareLaunchArgs(k, ur.Range1D(n), ur.LaunchProperties{}, ur.ArgBuffer(out), ur.ArgOf(uint32(1)))
			must(t, "PrepareLaunchArgs", err)
			wantErr(t, "SetArg of a value for memory", l.SetArg(0, ur.ArgOf(uint32(1))), ur.ErrInvalidKernelArgs)
			wantErr(t, "SetArg of argument 2", l.SetArg(2, ur.ArgOf(uint32(1))), ur.ErrInvalidKernelArgumentIndex)
			wantErr(t, "SetArg of a value of the wrong size", l.SetArg(1, ur.ArgOf(uint64(1))), ur.ErrInvalidKernelArgumentSize)
			must(t, "Release the buffer", out.Release())
			wantErr(t, "Launch after its buffer was released", l.Launch(), ur.ErrInvalidMemObject)
			must(t, "Release", l.Release())
			wantErr(t, "Launch after Release", l.Launch(), ur.ErrInvalidValue)
		})
	})
}

func TestCommandBuffer(t *testing.T) {
	forEachDevice(t, func(t *testing.T, f *Fixture) {
		const n, adds = 1024, 50
		ctx, q := f.Context(t), f.Queue(t)
		a := f.Buffer(t, ur.MemReadWrite, 4*n)
		b := f.Buffer(t, ur.MemReadWrite, 4*n)
		cb, err := ctx.NewCommandBuffer(f.Device, ur.CommandBufferOptions{Updatable: true})
		must(t, "NewCommandBuffer", err)
		defer cb.Release()
		t.Logf("emulated: %v", cb.Emulated())
		_, err = cb.AppendFill(a, []byte{7, 0, 0, 0}, 0, 4*n)
		must(t, "AppendFill", err)
		add := f.Kernel(t, "add_one")
		var last *ur.Command
		for range adds {
			last, err = cb.AppendLaunch(add, ur.Range1D(n), ur.LaunchProperties{}, ur.ArgBuffer(a))
			must(t, "AppendLaunch", err)
		}
		_, err = cb.AppendCopy(a, b, 0, 0, 4*n)
		must(t, "AppendCopy", err)
		_, err = q.EnqueueCommandBuffer(cb)
		wantErr(t, "enqueue before Finalize", err, ur.ErrInvalidOperation)
		must(t, "Finalize", cb.Finalize())
		_, err = cb.AppendCopy(a, b, 0, 0, 4)
		wantErr(t, "record after Finalize", err, ur.ErrInvalidOperation)
		for round := range 3 {
			ev, err := q.EnqueueCommandBuffer(cb)
			must(t, "EnqueueCommandBuffer", err)
			must(t, "Wait", ev.Wait(t.Context()))
			ev.Release()
			checkUint32s(t, fmt.Sprintf("replay %d", round), readUint32s(t, q, b, n), func(int) uint32 { return 7 + adds })
		}
		// The last add_one now runs on b, over its first half only.
		half := ur.Range1D(n / 2)
		must(t, "UpdateLaunch", cb.UpdateLaunch(last, &half, ur.ArgBuffer(b)))
		ev, err := q.EnqueueCommandBuffer(cb)
		must(t, "EnqueueCommandBuffer after UpdateLaunch", err)
		must(t, "Wait", ev.Wait(t.Context()))
		ev.Release()
		// The copy after it overwrote b with a (7 + adds - 1 everywhere).
		checkUint32s(t, "after the update", readUint32s(t, q, b, n), func(int) uint32 { return 7 + adds - 1 })
		got := readUint32s(t, q, a, n)
		if got[0] != 7+adds-1 {
			t.Errorf("a[0] = %d after the update, want %d", got[0], 7+adds-1)
		}
		f.Run(t, "BadUse", func(t *testing.T) {
			other, err := ctx.NewCommandBuffer(f.Device, ur.CommandBufferOptions{})
			must(t, "NewCommandBuffer", err)
			defer other.Release()
			wantErr(t, "update a command of another buffer", other.UpdateLaunch(last, nil, ur.ArgBuffer(a)), ur.ErrInvalidValue)
			plain, err := ctx.NewCommandBuffer(f.Device, ur.CommandBufferOptions{})
			must(t, "NewCommandBuffer", err)
			defer plain.Release()
			c, err := plain.AppendLaunch(add, ur.Range1D(n), ur.LaunchProperties{}, ur.ArgBuffer(a))
			must(t, "AppendLaunch", err)
			must(t, "Finalize", plain.Finalize())
			wantErr(t, "update without Updatable", plain.UpdateLaunch(c, nil, ur.ArgBuffer(b)), ur.ErrInvalidOperation)
			wantErr(t, "Finalize twice", plain.Finalize(), ur.ErrInvalidOperation)
			_, err = plain.AppendLaunch(add, ur.Range1D(n), ur.LaunchProperties{}, ur.ArgBuffer(a))
			wantErr(t, "record into a finalized buffer", err, ur.ErrInvalidOperation)
			oq := f.QueueIn(t, f.NewContext(t), ur.QueueProperties{})
			_, err = oq.EnqueueCommandBuffer(plain)
			wantErr(t, "enqueue on another context's queue", err, ur.ErrInvalidQueue)
		})
		f.Run(t, "ReleasedWhileRunning", func(t *testing.T) {
			cb2, err := ctx.NewCommandBuffer(f.Device, ur.CommandBufferOptions{})
			must(t, "NewCommandBuffer", err)
			for range adds {
				_, err := cb2.AppendLaunch(add, ur.Range1D(n), ur.LaunchProperties{}, ur.ArgBuffer(a))
				must(t, "AppendLaunch", err)
			}
			must(t, "Finalize", cb2.Finalize())
			before := readUint32s(t, q, a, 1)[0]
			ev, err := q.EnqueueCommandBuffer(cb2)
			must(t, "EnqueueCommandBuffer", err)
			must(t, "Release while it may run", cb2.Release())
			must(t, "Wait", ev.Wait(t.Context()))
			ev.Release()
			if got := readUint32s(t, q, a, 1)[0]; got != before+adds {
				t.Errorf("after a replay whose buffer was released: %d, want %d", got, before+adds)
			}
		})
	})
}

func TestQueueFeatures(t *testing.T) {
	forEachDevice(t, func(t *testing.T, f *Fixture) {
		q := f.Queue(t)
		ev := newFillEvent(t, f, q)
		done := make(chan ur.EventStatus, 1)
		must(t, "OnComplete", ev.OnComplete(func(st ur.EventStatus, err error) {
			if err != nil {
				t.Errorf("OnComplete: %v", err)
			}
			done <- st
		}))
		must(t, "Release before the callback", ev.Release())
		select {
		case st := <-done:
			if st != ur.EventComplete {
				t.Errorf("callback status %v, want complete", st)
			}
		case <-time.After(30 * time.Second):
			t.Fatal("the completion callback never ran")
		}
		must(t, "Finish", q.Finish())
		empty, err := q.IsEmpty()
		if errors.Is(err, ur.ErrUnsupportedFeature) {
			t.Logf("IsEmpty: %v", err)
		} else {
			must(t, "IsEmpty", err)
			if !empty {
				t.Errorf("IsEmpty after Finish = false")
			}
		}
		f.Run(t, "OutOfOrder", func(t *testing.T) {
			ooo, err := f.Context(t).NewQueue(f.Device, ur.QueueProperties{OutOfOrder: true})
			if errors.Is(err, ur.ErrUnsupportedFeature) || errors.Is(err, ur.ErrInvalidQueueProperties) {
				t.Skipf("no out-of-order queues here: %v", err)
			}
			must(t, "NewQueue(OutOfOrder)", err)
			defer ooo.Release()
			k := f.Kernel(t, "fill_u32")
			a, b := f.Buffer(t, ur.MemReadWrite, 4*1024), f.Buffer(t, ur.MemReadWrite, 4*1024)
			e1, err := ooo.EnqueueLaunch(k, ur.Range1D(1024), ur.LaunchOptions{}, ur.ArgBuffer(a), ur.ArgOf(uint32(1)))
			must(t, "launch 1", err)
			e2, err := ooo.EnqueueLaunch(k, ur.Range1D(1024), ur.LaunchOptions{}, ur.ArgBuffer(b), ur.ArgOf(uint32(2)))
			must(t, "launch 2", err)
			bar, err := ooo.EnqueueBarrier(e1, e2)
			if errors.Is(err, ur.ErrUnsupportedFeature) {
				e1.Release()
				e2.Release()
				must(t, "Finish", ooo.Finish())
				t.Skipf("out-of-order queues without barriers: %v", err)
			}
			must(t, "EnqueueBarrier", err)
			e3, err := ooo.EnqueueCopy(a, b, 0, 0, 4*512)
			must(t, "copy after the barrier", err)
			must(t, "Wait", e3.Wait(t.Context()))
			for _, e := range []*ur.Event{e1, e2, bar, e3} {
				e.Release()
			}
			must(t, "Finish", ooo.Finish())
			got := readUint32s(t, q, b, 1024)
			if got[0] != 1 || got[1023] != 2 {
				t.Errorf("after two fills, a barrier and a copy: b[0] = %d, b[1023] = %d, want 1, 2", got[0], got[1023])
			}
		})
		f.Run(t, "Priority", func(t *testing.T) {
			for _, p := range []int{-1, 1} {
				pq, err := f.Context(t).NewQueue(f.Device, ur.QueueProperties{Priority: p})
				if errors.Is(err, ur.ErrUnsupportedFeature) || errors.Is(err, ur.ErrInvalidQueueProperties) {
					t.Skipf("no queue priorities here: %v", err)
				}
				must(t, fmt.Sprintf("NewQueue(Priority %d)", p), err)
				out := f.Buffer(t, ur.MemReadWrite, 64)
				must(t, "Launch with arguments", pq.Launch(f.Kernel(t, "fill_u32"), ur.Range1D(16), ur.ArgBuffer(out), ur.ArgOf(uint32(p+10))))
				must(t, "Finish", pq.Finish())
				must(t, "Release", pq.Release())
			}
		})
	})
}

func TestKernelAttributesAndSuggestedSize(t *testing.T) {
	forEachDevice(t, func(t *testing.T, f *Fixture) {
		k := f.Kernel(t, "fill_u32")
		attrs, err := k.Attributes(f.Device)
		if errors.Is(err, ur.ErrUnsupportedFeature) {
			t.Skipf("no kernel attributes here: %v", err)
		}
		must(t, "Attributes", err)
		if attrs.MaxWorkGroupSize == 0 || attrs.MaxWorkGroupSize > f.Device.Info().MaxWorkGroupSize {
			t.Errorf("MaxWorkGroupSize %d, want 1..%d", attrs.MaxWorkGroupSize, f.Device.Info().MaxWorkGroupSize)
		}
		t.Logf("%+v", attrs)
		for _, global := range []uint64{1 << 20, 1021, 1000} {
			local, err := k.SuggestLocalSize(f.Device, ur.Range1D(global), 0)
			must(t, fmt.Sprintf("SuggestLocalSize(%d)", global), err)
			if local[0] == 0 || global%local[0] != 0 || local[0] > attrs.MaxWorkGroupSize {
				t.Errorf("SuggestLocalSize(%d) = %v: want a divisor of the global size up to %d", global, local, attrs.MaxWorkGroupSize)
			}
			out := f.Buffer(t, ur.MemReadWrite, 4*global)
			q := f.Queue(t)
			must(t, "Launch with arguments with the suggested size", q.Launch(k, ur.Range1D(global).WithLocal(local[0]), ur.ArgBuffer(out), ur.ArgOf(uint32(3))))
			must(t, "Finish", q.Finish())
		}
	})
}

func TestProgramGlobal(t *testing.T) {
	forEachDevice(t, func(t *testing.T, f *Fixture) {
		p := f.Program(t)
		g, err := p.Global(f.Device, "gour_global_counter")
		if errors.Is(err, ur.ErrUnsupportedFeature) {
			if f.Backend == "cuda" {
				t.Fatalf("Program.Global on CUDA: %v", err)
			}
			t.Skipf("no program globals here: %v", err)
		}
		must(t, "Global", err)
		defer g.Free()
		if g.Size() != 4 {
			t.Errorf("the global's size is %d, want 4", g.Size())
		}
		q := f.Queue(t)
		must(t, "CopyToPtr", q.CopyToPtr(g.Ptr(), []byte{42, 0, 0, 0}))
		got := make([]byte, 4)
		must(t, "CopyFromPtr", q.CopyFromPtr(got, g.Ptr()))
		if got[0] != 42 {
			t.Errorf("the global reads %v, want 42", got)
		}
		_, err = p.Global(f.Device, "no_such_global")
		if err == nil {
			t.Errorf("Global of an unknown name succeeded")
		}
	})
}
