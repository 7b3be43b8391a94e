package conformance

import (
	"encoding/binary"
	"errors"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/gour-dev/gour/ur"
)

func TestKernelByName(t *testing.T) {
	forEachDevice(t, func(t *testing.T, f *Fixture) {
		p := f.Program(t)
		k := f.Kernel(t, "axpy")
		if k.Name() != "axpy" {
			t.Errorf("Name() = %q, want axpy", k.Name())
		}
		if k.Program() != p {
			t.Errorf("Program() is not the program the kernel was made from")
		}
		if k.Native() == 0 {
			t.Errorf("Native() = 0")
		}
	})
}

func TestKernelUnknownName(t *testing.T) {
	forEachDevice(t, func(t *testing.T, f *Fixture) {
		_, err := f.Program(t).NewKernel("gour_no_such_kernel")
		wantErr(t, "NewKernel(unknown)", err, ur.ErrInvalidKernelName)
	})
}

func TestKernelEmptyName(t *testing.T) {
	forEachDevice(t, func(t *testing.T, f *Fixture) {
		_, err := f.Program(t).NewKernel("")
		wantErr(t, "NewKernel(\"\")", err, ur.ErrInvalidKernelName)
	})
}

func TestKernelNumArgs(t *testing.T) {
	forEachDevice(t, func(t *testing.T, f *Fixture) {
		for _, tt := range []struct {
			name string
			args int
		}{
			{"axpy", 3}, {"iota", 1}, {"fill_u32", 2}, {"local_ids", 2}, {"group_sum", 3}, {"scalars", 11},
		} {
			f.Run(t, tt.name, func(t *testing.T) {
				k := f.Kernel(t, tt.name)
				if k.NumArgs() != tt.args {
					t.Errorf("NumArgs() = %d, want %d", k.NumArgs(), tt.args)
				}
				info, err := k.Info(f.Device)
				must(t, "Info", err)
				if int(info.NumArgs) != tt.args {
					t.Errorf("Info().NumArgs = %d, want %d", info.NumArgs, tt.args)
				}
			})
		}
	})
}

func TestKernelInfo(t *testing.T) {
	forEachDevice(t, func(t *testing.T, f *Fixture) {
		k := f.Kernel(t, "iota")
		info, err := k.Info(f.Device)
		must(t, "Info", err)
		if info.Name != "" && info.Name != "iota" {
			t.Errorf("Info().Name = %q, want iota", info.Name)
		}
		max := f.Device.Info().MaxWorkGroupSize
		if info.WorkGroupSize == 0 || info.WorkGroupSize > max {
			t.Errorf("Info().WorkGroupSize = %d, want in (0, %d]", info.WorkGroupSize, max)
		}
		if info.PreferredWorkGroupSizeMultiple == 0 || info.PreferredWorkGroupSizeMultiple > max {
			t.Errorf("Info().PreferredWorkGroupSizeMultiple = %d, want in (0, %d]", info.PreferredWorkGroupSizeMultiple, max)
		}
		_, err = k.Info(nil)
		wantErr(t, "Info(nil)", err, ur.ErrInvalidNullHandle)
	})
}

func TestKernelArgIndexOutOfRange(t *testing.T) {
	forEachDevice(t, func(t *testing.T, f *Fixture) {
		k := f.Kernel(t, "fill_u32") // 2 arguments
		m := f.Buffer(t, ur.MemReadWrite, 64)
		wantErr(t, "SetArgUint32(2)", k.SetArgUint32(2, 1), ur.ErrInvalidKernelArgumentIndex)
		wantErr(t, "SetArgInt32(-1)", k.SetArgInt32(-1, 1), ur.ErrInvalidKernelArgumentIndex)
		wantErr(t, "SetArgMem(5)", k.SetArgMem(5, m), ur.ErrInvalidKernelArgumentIndex)
		wantErr(t, "SetArgBytes(2)", k.SetArgBytes(2, []byte{1, 2, 3, 4}), ur.ErrInvalidKernelArgumentIndex)
		wantErr(t, "SetArgLocal(2)", k.SetArgLocal(2, 16), ur.ErrInvalidKernelArgumentIndex)
	})
}

func TestKernelArgWrongSize(t *testing.T) {
	forEachDevice(t, func(t *testing.T, f *Fixture) {
		for _, tt := range []struct {
			name  string
			set   func(k *ur.Kernel) error
			value string
		}{
			{"3BytesForUint", func(k *ur.Kernel) error { return k.SetArgBytes(1, []byte{1, 2, 3}) }, "3 bytes"},
			{"2BytesForUint", func(k *ur.Kernel) error { return k.SetArgBytes(1, []byte{1, 2}) }, "2 bytes"},
			{"Uint64ForUint", func(k *ur.Kernel) error { return k.SetArgUint64(1, 1) }, "a uint64"},
			{"EmptyForUint", func(k *ur.Kernel) error { return k.SetArgBytes(1, nil) }, "no bytes"},
		} {
			f.Run(t, tt.name, func(t *testing.T) {
				k := f.Kernel(t, "fill_u32") // (global uint*, uint)
				wantErr(t, "setting the uint argument to "+tt.value, tt.set(k), ur.ErrInvalidKernelArgumentSize)
			})
		}
	})
}

func TestKernelArgScalarTypes(t *testing.T) {
	forEachDevice(t, func(t *testing.T, f *Fixture) {
		q := f.Queue(t)
		k := f.Kernel(t, "scalars")
		out := f.BufferFrom(t, ur.MemReadWrite, make([]byte, 8*8))
		fout := f.BufferFrom(t, ur.MemReadWrite, make([]byte, 4))
		le := binary.LittleEndian
		must(t, "SetArgMem(0)", k.SetArgMem(0, out))
		must(t, "SetArgMem(1)", k.SetArgMem(1, fout))
		must(t, "char", k.SetArgBytes(2, []byte{0x80}))                          // -128
		must(t, "uchar", k.SetArgBytes(3, []byte{0xFE}))                         // 254
		must(t, "short", k.SetArgBytes(4, le.AppendUint16(nil, uint16(0x8001)))) // -32767
		must(t, "ushort", k.SetArgBytes(5, le.AppendUint16(nil, 0xFFFE)))        // 65534
		must(t, "int", k.SetArgInt32(6, -2_000_000_000))
		must(t, "uint", k.SetArgUint32(7, 4_000_000_000))
		must(t, "long", k.SetArgInt64(8, -9_000_000_000_000))
		must(t, "ulong", k.SetArgUint64(9, 0x8000_0000_0000_0001))
		must(t, "float", k.SetArgFloat32(10, 2.5))
		must(t, "Launch", q.Launch(k, ur.Range1D(1)))
		got := make([]int64, 8)
		must(t, "ReadBuffer", q.ReadBuffer(out, 0, ur.AsBytes(got)))
		ulong := uint64(0x8000_0000_0000_0001)
		want := []int64{-128, 254, -32767, 65534, -2_000_000_000, 4_000_000_000, -9_000_000_000_000, int64(ulong)}
		names := []string{"char", "uchar", "short", "ushort", "int", "uint", "long", "ulong"}
		for i := range want {
			if got[i] != want[i] {
				t.Errorf("%s argument arrived as %d, want %d", names[i], got[i], want[i])
			}
		}
		fgot := make([]float32, 1)
		must(t, "ReadBuffer", q.ReadBuffer(fout, 0, ur.AsBytes(fgot)))
		if fgot[0] != 2.5 {
			t.Errorf("float argument arrived as %v, want 2.5", fgot[0])
		}
	})
}

func TestKernelAxpy(t *testing.T) {
	forEachDevice(t, func(t *testing.T, f *Fixture) {
		const n = 4099
		xs, ys := make([]float32, n), make([]float32, n)
		for i := range xs {
			xs[i], ys[i] = float32(i), float32(n-i)
		}
		q := f.Queue(t)
		x := f.BufferFrom(t, ur.MemReadOnly, ur.AsBytes(xs))
		y := f.BufferFrom(t, ur.MemReadWrite, ur.AsBytes(ys))
		k := f.Kernel(t, "axpy")
		must(t, "SetArgFloat32", k.SetArgFloat32(0, 0.5))
		must(t, "SetArgMem(x)", k.SetArgMem(1, x))
		must(t, "SetArgMem(y)", k.SetArgMem(2, y))
		must(t, "Launch", q.Launch(k, ur.Range1D(n)))
		got := make([]float32, n)
		must(t, "ReadBuffer", q.ReadBuffer(y, 0, ur.AsBytes(got)))
		for i := range got {
			if want := 0.5*xs[i] + ys[i]; got[i] != want {
				t.Fatalf("y[%d] = %v, want %v", i, got[i], want)
			}
		}
	})
}

func TestKernelAxpyFloat64(t *testing.T) {
	forEachDevice(t, func(t *testing.T, f *Fixture) {
		if !f.Device.Info().FP64 {
			t.Skip("device has no fp64")
		}
		const n = 1000
		xs, ys := make([]float64, n), make([]float64, n)
		for i := range xs {
			xs[i], ys[i] = math.Pi*float64(i), 1e-12*float64(i)
		}
		q := f.Queue(t)
		x := f.BufferFrom(t, ur.MemReadOnly, ur.AsBytes(xs))
		y := f.BufferFrom(t, ur.MemReadWrite, ur.AsBytes(ys))
		k := f.Kernel(t, "axpy_f64")
		must(t, "SetArgFloat64", k.SetArgFloat64(0, 1.0/3))
		must(t, "SetArgMem(x)", k.SetArgMem(1, x))
		must(t, "SetArgMem(y)", k.SetArgMem(2, y))
		must(t, "Launch", q.Launch(k, ur.Range1D(n)))
		got := make([]float64, n)
		must(t, "ReadBuffer", q.ReadBuffer(y, 0, ur.AsBytes(got)))
		for i := range got {
			want := 1.0/3*xs[i] + ys[i]
			if math.Abs(got[i]-want) > 1e-12*math.Max(1, math.Abs(want)) {
				t.Fatalf("y[%d] = %v, want %v (double precision)", i, got[i], want)
			}
		}
	})
}

// groupSum is the kernel group_sum set up to sum each work-group's slice
// of 0, 1, 2, ... into dst through local memory, with the range to launch
// it over.
type groupSum struct {
	k   *ur.Kernel
	dst *ur.Mem
	r   ur.NDRange
}

const groupSumLocal, groupSumGroups = 64, 16

// newGroupSum sets group_sum up with localBytes of local memory, skipping
// the test where the kernel cannot run groupSumLocal work-items a group.
func newGroupSum(t *testing.T, f *Fixture, localBytes uint64) groupSum {
	t.Helper()
	const local, groups = groupSumLocal, groupSumGroups
	k := f.Kernel(t, "group_sum")
	info, err := k.Info(f.Device)
	must(t, "Info", err)
	if info.WorkGroupSize < local {
		t.Skipf("kernel work-group size limit %d < %d", info.WorkGroupSize, local)
	}
	in := make([]uint32, local*groups)
	for i := range in {
		in[i] = uint32(i)
	}
	src := f.BufferFrom(t, ur.MemReadOnly, ur.AsBytes(in))
	dst := f.Buffer(t, ur.MemReadWrite, 4*groups)
	must(t, "SetArgMem(0)", k.SetArgMem(0, src))
	must(t, "SetArgMem(1)", k.SetArgMem(1, dst))
	must(t, "SetArgLocal(2)", k.SetArgLocal(2, localBytes))
	r := ur.Range1D(local * groups)
	r.Local[0] = local
	return groupSum{k: k, dst: dst, r: r}
}

// check reads dst and compares each group's sum of g*local .. g*local+local-1.
func (g groupSum) check(t *testing.T, q *ur.Queue, what string) {
	t.Helper()
	const local = groupSumLocal
	checkUint32s(t, what, readUint32s(t, q, g.dst, groupSumGroups), func(group int) uint32 {
		first := uint32(group * local)
		return local*first + local*(local-1)/2
	})
}

func TestKernelLocalMemory(t *testing.T) {
	forEachDevice(t, func(t *testing.T, f *Fixture) {
		g := newGroupSum(t, f, 4*groupSumLocal)
		q := f.Queue(t)
		must(t, "Launch", q.Launch(g.k, g.r))
		g.check(t, q, "group sums")
	})
}

func TestKernelLocalMemoryZeroSize(t *testing.T) {
	forEachDevice(t, func(t *testing.T, f *Fixture) {
		k := f.Kernel(t, "group_sum")
		wantErr(t, "SetArgLocal(2, 0)", k.SetArgLocal(2, 0), ur.ErrInvalidKernelArgumentSize)
	})
}

func TestKernelReleased(t *testing.T) {
	forEachDevice(t, func(t *testing.T, f *Fixture) {
		k, err := f.Program(t).NewKernel("iota")
		must(t, "NewKernel", err)
		m := f.Buffer(t, ur.MemReadWrite, 64)
		must(t, "Release", k.Release())
		wantErr(t, "SetArgMem on a released kernel", k.SetArgMem(0, m), ur.ErrInvalidKernel)
		wantErr(t, "SetArgInt32 on a released kernel", k.SetArgInt32(0, 1), ur.ErrInvalidKernel)
		_, err = k.Info(f.Device)
		wantErr(t, "Info of a released kernel", err, ur.ErrInvalidKernel)
		wantErr(t, "Launch of a released kernel", f.Queue(t).Launch(k, ur.Range1D(16)), ur.ErrInvalidKernel)
		wantErr(t, "second Release", k.Release(), ur.ErrInvalidKernel)
	})
}

func TestKernelNilMem(t *testing.T) {
	forEachDevice(t, func(t *testing.T, f *Fixture) {
		k := f.Kernel(t, "iota")
		wantErr(t, "SetArgMem(0, nil)", k.SetArgMem(0, nil), ur.ErrInvalidNullHandle)
		var nk *ur.Kernel
		wantErr(t, "nil Kernel.SetArgInt32", nk.SetArgInt32(0, 1), ur.ErrInvalidNullHandle)
	})
}

func TestKernelReleasedMem(t *testing.T) {
	forEachDevice(t, func(t *testing.T, f *Fixture) {
		k := f.Kernel(t, "iota")
		m, err := f.Context(t).NewBuffer(ur.MemReadWrite, 64)
		must(t, "NewBuffer", err)
		must(t, "Release", m.Release())
		wantErr(t, "SetArgMem(released buffer)", k.SetArgMem(0, m), ur.ErrInvalidMemObject)
	})
}

func TestKernelMemOfOtherContext(t *testing.T) {
	forEachDevice(t, func(t *testing.T, f *Fixture) {
		k := f.Kernel(t, "iota")
		m := f.BufferIn(t, f.NewContext(t), ur.MemReadWrite, 64)
		wantErr(t, "SetArgMem(buffer of another context)", k.SetArgMem(0, m), ur.ErrInvalidContext)
	})
}

// Resetting an argument between launches takes effect.
func TestKernelArgsAreState(t *testing.T) {
	forEachDevice(t, func(t *testing.T, f *Fixture) {
		q := f.Queue(t)
		k := f.Kernel(t, "fill_u32")
		a, b := f.Buffer(t, ur.MemReadWrite, 4*32), f.Buffer(t, ur.MemReadWrite, 4*32)
		must(t, "SetArgMem(a)", k.SetArgMem(0, a))
		must(t, "SetArgUint32(7)", k.SetArgUint32(1, 7))
		must(t, "Launch", q.Launch(k, ur.Range1D(32)))
		must(t, "SetArgMem(b)", k.SetArgMem(0, b))
		must(t, "SetArgUint32(9)", k.SetArgUint32(1, 9))
		must(t, "Launch", q.Launch(k, ur.Range1D(32)))
		checkUint32s(t, "a", readUint32s(t, q, a, 32), func(int) uint32 { return 7 })
		checkUint32s(t, "b", readUint32s(t, q, b, 32), func(int) uint32 { return 9 })
	})
}

// A buffer released while it is set as a kernel argument must not crash
// the launch: ur either keeps the buffer alive for the kernel or fails the
// launch. A crash would take the whole suite down, so the scenario runs in
// a child process (the test binary, re-executed).
func TestKernelLaunchAfterArgReleased(t *testing.T) {
	if os.Getenv(envChild) != "" {
		runAsChild(t, func(t *testing.T, f *Fixture) {
			q := f.Queue(t)
			k := f.Kernel(t, "fill_u32")
			m, err := f.Context(t).NewBuffer(ur.MemReadWrite, 4<<20)
			must(t, "NewBuffer", err)
			must(t, "SetArgMem", k.SetArgMem(0, m))
			must(t, "SetArgUint32", k.SetArgUint32(1, 5))
			must(t, "Mem.Release", m.Release())
			for range 8 { // new buffers may reuse the released memory
				f.Buffer(t, ur.MemReadWrite, 4<<20)
			}
			err = q.Launch(k, ur.Range1D(1<<20))
			if err != nil && !errors.Is(err, ur.ErrInvalidMemObject) && !errors.Is(err, ur.ErrInvalidKernelArgs) {
				t.Errorf("Launch with a released buffer argument: got %v, want success, ErrInvalidMemObject or ErrInvalidKernelArgs", err)
			}
			must(t, "Finish", q.Finish())
		})
		return
	}
	forEachDevice(t, func(t *testing.T, f *Fixture) {
		f.RunInChild(t)
	})
}

// wantErrSaying is wantErr, and the message says each of want.
func wantErrSaying(t testing.TB, what string, err error, code ur.Result, want ...string) {
	t.Helper()
	wantErr(t, what, err, code)
	for _, w := range want {
		if err != nil && !strings.Contains(err.Error(), w) {
			t.Errorf("%s: %q does not say %q", what, err, w)
		}
	}
}

// An argument given a value of the wrong size, or a buffer for a value,
// or a value for a buffer, is refused with an error naming the argument
// and the kernel, whatever the adapter can tell of the arguments.
func TestKernelArgErrorsNameTheArgument(t *testing.T) {
	forEachDevice(t, func(t *testing.T, f *Fixture) {
		k := f.Kernel(t, "fill_u32") // (global uint *out, uint value)
		m := f.Buffer(t, ur.MemReadWrite, 64)
		wantErrSaying(t, "3 bytes for the uint", k.SetArgBytes(1, []byte{1, 2, 3}), ur.ErrInvalidKernelArgumentSize, "argument 1", "fill_u32", "3 bytes")
		wantErrSaying(t, "a buffer for the uint", k.SetArgMem(1, m), ur.ErrInvalidKernelArgumentSize, "argument 1", "fill_u32", "buffer")
		wantErrSaying(t, "a uint for the buffer", k.SetArgUint32(0, 1), ur.ErrInvalidKernelArgumentSize, "argument 0", "fill_u32", "4 bytes")
	})
}

// Kernel.Args, where the adapter describes arguments, agrees with the
// kernel's signature.
func TestKernelArgsDescribeTheSignature(t *testing.T) {
	forEachDevice(t, func(t *testing.T, f *Fixture) {
		k := f.Kernel(t, "fill_u32") // (global uint *out, uint value)
		args := k.Args()
		if args == nil {
			if f.Device.Backend() == "opencl" {
				t.Errorf("Args() = nil: the OpenCL adapter builds from source with -cl-kernel-arg-info, and describes every argument")
			}
			return
		}
		if len(args) != k.NumArgs() {
			t.Fatalf("Args() has %d entries for %d arguments", len(args), k.NumArgs())
		}
		if a := args[0]; a.Kind != ur.ArgMem && a.Kind != ur.ArgUnknown || a.Size != 0 && a.Size != uint64(f.Device.Info().AddressBits/8) {
			t.Errorf("Args()[0] = %+v, want a buffer (a pointer of %d bits)", a, f.Device.Info().AddressBits)
		}
		if a := args[1]; a.Kind != ur.ArgValue && a.Kind != ur.ArgUnknown || a.Size != 0 && a.Size != 4 {
			t.Errorf("Args()[1] = %+v, want a value of 4 bytes", a)
		}
	})
}

// A name the program does not have is refused with the names it has,
// where the adapter can list them.
func TestKernelUnknownNameListsKernels(t *testing.T) {
	forEachDevice(t, func(t *testing.T, f *Fixture) {
		p := f.Program(t)
		_, err := p.NewKernel("gour_no_such_kernel")
		wantErrSaying(t, "NewKernel(unknown)", err, ur.ErrInvalidKernelName, "gour_no_such_kernel")
		if names, nerr := p.KernelNames(); nerr == nil && len(names) > 0 && err != nil {
			for _, name := range names {
				if !strings.Contains(err.Error(), name) {
					t.Errorf("NewKernel(unknown) = %q: does not list kernel %s", err, name)
				}
			}
		}
	})
}

// A launch with an argument never set names the argument, on every
// adapter (CUDA would otherwise launch with garbage).
func TestKernelLaunchNamesUnsetArgument(t *testing.T) {
	forEachDevice(t, func(t *testing.T, f *Fixture) {
		q := f.Queue(t)
		k := f.Kernel(t, "fill_u32")
		must(t, "SetArgMem", k.SetArgMem(0, f.Buffer(t, ur.MemReadWrite, 64)))
		wantErrSaying(t, "Launch with argument 1 unset", q.Launch(k, ur.Range1D(16)), ur.ErrInvalidKernelArgs, "argument 1", "fill_u32")
		_, err := q.EnqueueLaunch(k, ur.Range1D(16), ur.LaunchOptions{})
		wantErrSaying(t, "EnqueueLaunch with argument 1 unset", err, ur.ErrInvalidKernelArgs, "argument 1")
		_, err = q.PrepareLaunch(k, ur.Range1D(16))
		wantErrSaying(t, "PrepareLaunch with argument 1 unset", err, ur.ErrInvalidKernelArgs, "argument 1")
		must(t, "Finish", q.Finish())
	})
}

// A local size over the kernel's or the device's maximum is refused with
// the maximum in the message.
func TestKernelLaunchOverWorkGroupLimit(t *testing.T) {
	forEachDevice(t, func(t *testing.T, f *Fixture) {
		q := f.Queue(t)
		k := f.Kernel(t, "iota")
		info, err := k.Info(f.Device)
		must(t, "Info", err)
		local := 2 * info.WorkGroupSize
		must(t, "SetArgMem", k.SetArgMem(0, f.Buffer(t, ur.MemReadWrite, 4*local)))
		r := ur.Range1D(local).WithLocal(local)
		if maxItems := f.Device.Info().MaxWorkItemSizes[0]; local > maxItems {
			wantErrSaying(t, "Launch over the device's work-item size", q.Launch(k, r), ur.ErrInvalidWorkItemSize,
				"dimension 0", strconv.FormatUint(maxItems, 10))
		} else {
			wantErrSaying(t, "Launch over the kernel's work-group size", q.Launch(k, r), ur.ErrInvalidWorkGroupSize,
				"iota", strconv.FormatUint(info.WorkGroupSize, 10))
		}
		must(t, "Finish", q.Finish())
	})
}

// NDRange.WithLocal sets the work-group size the kernel runs with.
func TestKernelLaunchWithLocal(t *testing.T) {
	forEachDevice(t, func(t *testing.T, f *Fixture) {
		const n, local = 256, 16
		q := f.Queue(t)
		k := f.Kernel(t, "local_ids")
		out := f.Buffer(t, ur.MemReadWrite, 4*n)
		sizes := f.Buffer(t, ur.MemReadWrite, 4)
		must(t, "SetArgMem(0)", k.SetArgMem(0, out))
		must(t, "SetArgMem(1)", k.SetArgMem(1, sizes))
		must(t, "Launch", q.Launch(k, ur.Range1D(n).WithLocal(local)))
		got := make([]byte, 4)
		must(t, "ReadBuffer", q.ReadBuffer(sizes, 0, got))
		if size := binary.LittleEndian.Uint32(got); size != local {
			t.Errorf("get_local_size(0) = %d, want %d", size, local)
		}
	})
}
