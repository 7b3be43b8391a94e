package conformance

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/gour-dev/gour/ur"
)

// newProgram creates a program from one of the adapter's device-code
// files, released at cleanup.
func (f *Fixture) newProgram(t testing.TB, ctx *ur.Context, file string) *ur.Program {
	t.Helper()
	p, err := f.DeviceCode(t).createProgram(ctx, f.Device, file)
	must(t, "creating the program of "+file, err)
	return cleanup(t, p)
}

// runKernelU32 launches k, a kernel whose only argument is a uint32
// buffer, over one work-item per element of in, and returns the buffer.
func runKernelU32(t testing.TB, q *ur.Queue, ctx *ur.Context, k *ur.Kernel, in []uint32) []uint32 {
	t.Helper()
	m, err := ctx.NewBufferFrom(ur.MemReadWrite, ur.AsBytes(in))
	must(t, "NewBufferFrom", err)
	defer m.Release()
	must(t, "SetArgMem", k.SetArgMem(0, m))
	must(t, "Launch", q.Launch(k, ur.Range1D(uint64(len(in)))))
	out := make([]uint32, len(in))
	must(t, "ReadBuffer", q.ReadBuffer(m, 0, ur.AsBytes(out)))
	return out
}

func TestProgramBuildFromSource(t *testing.T) {
	forEachDevice(t, func(t *testing.T, f *Fixture) {
		p := f.Program(t)
		if p.Context() != f.Context(t) {
			t.Errorf("Context() is not the context the program was made in")
		}
		if p.Native() == 0 {
			t.Errorf("Native() = 0")
		}
		devs, err := p.Devices()
		must(t, "Devices", err)
		if !slices.Equal(devs, []*ur.Device{f.Device}) {
			t.Errorf("Devices() = %v, want [%v]", devs, f.Device)
		}
		if _, err := p.BuildLog(f.Device); err != nil {
			t.Errorf("BuildLog after a good build: %v", err)
		}
	})
}

func TestProgramBuildFailure(t *testing.T) {
	forEachDevice(t, func(t *testing.T, f *Fixture) {
		p := f.newProgram(t, f.Context(t), "invalid")
		err := p.Build("")
		if err == nil {
			t.Fatal("Build of invalid source succeeded")
		}
		wantErr(t, "Build of invalid source", err, ur.ErrProgramBuildFailure)
		const ident = "gour_undeclared_identifier"
		if log := ur.BuildLogOf(err); !strings.Contains(log, ident) {
			t.Errorf("the error's build log does not name %s:\n%s", ident, log)
		}
		log, lerr := p.BuildLog(f.Device)
		must(t, "BuildLog", lerr)
		if !strings.Contains(log, ident) {
			t.Errorf("BuildLog(dev) does not name %s:\n%s", ident, log)
		}
		_, err = p.NewKernel("broken")
		if err == nil {
			t.Errorf("NewKernel of a program that failed to build succeeded")
		}
	})
}

func TestProgramBuildOptions(t *testing.T) {
	forEachDevice(t, func(t *testing.T, f *Fixture) {
		q := f.Queue(t)
		in := []uint32{1, 2, 3, 100}
		for _, tt := range []struct {
			options string
			scale   uint32
		}{
			{"", 1},
			{"-DSCALE=3", 3},
		} {
			k := f.KernelOf(t, f.ProgramWithOptions(t, tt.options), "scale")
			got := runKernelU32(t, q, f.Context(t), k, in)
			checkUint32s(t, "scale with options "+tt.options, got, func(i int) uint32 { return in[i] * tt.scale })
		}
	})
}

func TestProgramCompileAndLink(t *testing.T) {
	forEachDevice(t, func(t *testing.T, f *Fixture) {
		ctx := f.Context(t)
		main := f.newProgram(t, ctx, "link_main")
		lib := f.newProgram(t, ctx, "link_lib")
		must(t, "Compile(link_main)", main.Compile(""))
		must(t, "Compile(link_lib)", lib.Compile(""))
		linked, err := ctx.Link("", []*ur.Program{main, lib})
		must(t, "Link", err)
		cleanup(t, linked)
		names, err := linked.KernelNames()
		must(t, "KernelNames", err)
		if !slices.Contains(names, "linked") {
			t.Errorf("KernelNames() = %q, want it to contain \"linked\"", names)
		}
		k := f.KernelOf(t, linked, "linked")
		got := runKernelU32(t, f.Queue(t), ctx, k, make([]uint32, 64))
		checkUint32s(t, "linked kernel", got, func(i int) uint32 { return uint32(3 * i) })
	})
}

func TestProgramLinkUnresolved(t *testing.T) {
	forEachDevice(t, func(t *testing.T, f *Fixture) {
		ctx := f.Context(t)
		main := f.newProgram(t, ctx, "link_main")
		must(t, "Compile(link_main)", main.Compile(""))
		p, err := ctx.Link("", []*ur.Program{main})
		if err == nil {
			// Some drivers defer the undefined symbol to kernel creation.
			defer p.Release()
			if _, kerr := p.NewKernel("linked"); kerr == nil {
				t.Fatal("Link of a program calling an undefined function succeeded, and so did NewKernel")
			}
			return
		}
		if !errors.Is(err, ur.ErrProgramLinkFailure) && !errors.Is(err, ur.ErrProgramBuildFailure) {
			t.Errorf("Link with an undefined function: got %v, want ErrProgramLinkFailure", err)
		}
	})
}

func TestProgramLinkNothing(t *testing.T) {
	forEachDevice(t, func(t *testing.T, f *Fixture) {
		_, err := f.Context(t).Link("", nil)
		wantErr(t, "Link of no programs", err, ur.ErrInvalidValue)
	})
}

func TestProgramBinaries(t *testing.T) {
	forEachDevice(t, func(t *testing.T, f *Fixture) {
		p := f.Program(t)
		bins, err := p.Binaries()
		must(t, "Binaries", err)
		if len(bins) != 1 || len(bins[0]) == 0 {
			t.Fatalf("Binaries() = %d binaries (sizes %v), want one non-empty", len(bins), lens(bins))
		}
		sizes, err := p.BinarySizes()
		must(t, "BinarySizes", err)
		if !slices.Equal(sizes, []uint64{uint64(len(bins[0]))}) {
			t.Errorf("BinarySizes() = %v, want [%d]", sizes, len(bins[0]))
		}
	})
}

func lens(bins [][]byte) []int {
	out := make([]int, len(bins))
	for i, b := range bins {
		out[i] = len(b)
	}
	return out
}

func TestProgramFromBinaries(t *testing.T) {
	forEachDevice(t, func(t *testing.T, f *Fixture) {
		bins, err := f.Program(t).Binaries()
		must(t, "Binaries", err)
		// A fresh context, so nothing is shared with the source program.
		ctx := f.NewContext(t)
		p, err := ctx.NewProgramFromBinaries([]*ur.Device{f.Device}, bins)
		must(t, "NewProgramFromBinaries", err)
		cleanup(t, p)
		must(t, "Build of the binary program", p.Build(""))
		k := f.KernelOf(t, p, "iota")
		got := runKernelU32(t, f.QueueIn(t, ctx, ur.QueueProperties{}), ctx, k, make([]uint32, 1000))
		checkUint32s(t, "iota from a binary program", got, func(i int) uint32 { return uint32(i) })
	})
}

func TestProgramEmptyBinary(t *testing.T) {
	forEachDevice(t, func(t *testing.T, f *Fixture) {
		_, err := f.Context(t).NewProgramFromBinaries([]*ur.Device{f.Device}, [][]byte{{}})
		wantErr(t, "NewProgramFromBinaries(empty)", err, ur.ErrInvalidBinary)
		_, err = f.Context(t).NewProgramFromBinaries([]*ur.Device{f.Device}, nil)
		wantErr(t, "NewProgramFromBinaries(1 device, 0 binaries)", err, ur.ErrInvalidValue)
	})
}

func TestProgramGarbageBinary(t *testing.T) {
	forEachDevice(t, func(t *testing.T, f *Fixture) {
		garbage := []byte(strings.Repeat("this is not a device binary, ", 64))
		p, err := f.Context(t).NewProgramFromBinaries([]*ur.Device{f.Device}, [][]byte{garbage})
		if err == nil {
			// Some drivers check the binary only when building it.
			cleanup(t, p)
			err = p.Build("")
			if err == nil {
				t.Fatal("a garbage binary was accepted and built")
			}
			t.Logf("the garbage binary failed at Build: %v", err)
		} else {
			t.Logf("the garbage binary failed at NewProgramFromBinaries: %v", err)
		}
		wantErr(t, "program from a garbage binary", err, ur.ErrInvalidBinary)
	})
}

func TestProgramKernelNames(t *testing.T) {
	forEachDevice(t, func(t *testing.T, f *Fixture) {
		names, err := f.Program(t).KernelNames()
		must(t, "KernelNames", err)
		want := []string{"axpy", "iota", "fill_u32", "add_one", "index2d", "index3d", "local_ids", "group_sum", "scale", "scalars"}
		if f.Device.Info().FP64 {
			want = append(want, "axpy_f64")
		}
		slices.Sort(names)
		slices.Sort(want)
		if !slices.Equal(names, want) {
			t.Errorf("KernelNames() = %q, want %q", names, want)
		}
	})
}

func TestProgramKernelNamesBeforeBuild(t *testing.T) {
	forEachDevice(t, func(t *testing.T, f *Fixture) {
		p := f.newProgram(t, f.Context(t), "kernels")
		if names, err := p.KernelNames(); err == nil {
			t.Errorf("KernelNames of an unbuilt program = %q, want an error", names)
		}
	})
}

func TestProgramFromIL(t *testing.T) {
	forEachDevice(t, func(t *testing.T, f *Fixture) {
		// The SPIR-V magic number and a minimal header; not a valid module.
		header := []byte{0x03, 0x02, 0x23, 0x07, 0x00, 0x00, 0x01, 0x00, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0}
		if f.Device.Info().ILVersions == "" {
			p, err := f.Context(t).NewProgramFromIL(header)
			if err == nil {
				p.Release()
			}
			wantErr(t, "NewProgramFromIL on a device that takes no IL", err, ur.ErrUnsupportedFeature)
			return
		}
		// The device takes IL: build the backend's IL file (PTX for CUDA)
		// and run its iota.
		code := f.DeviceCode(t)
		il, ok, err := code.readIL()
		if !ok {
			t.Skipf("device takes IL (%s), but the %s device code has none (DeviceCode.IL)", f.Device.Info().ILVersions, f.Backend)
		}
		must(t, "reading the IL test data", err)
		ctx := f.Context(t)
		p, err := ctx.NewProgramFromIL(il)
		must(t, "NewProgramFromIL("+code.IL+")", err)
		cleanup(t, p)
		must(t, "Build of the IL program", p.Build(""))
		k := f.KernelOf(t, p, "iota")
		got := runKernelU32(t, f.Queue(t), ctx, k, make([]uint32, 1000))
		checkUint32s(t, "iota from an IL program", got, func(i int) uint32 { return uint32(i) })
	})
}

func TestProgramEmptyIL(t *testing.T) {
	forEachDevice(t, func(t *testing.T, f *Fixture) {
		_, err := f.Context(t).NewProgramFromIL(nil)
		wantErr(t, "NewProgramFromIL(nil)", err, ur.ErrInvalidValue)
	})
}

func TestProgramEmptySource(t *testing.T) {
	forEachDevice(t, func(t *testing.T, f *Fixture) {
		_, err := f.Context(t).NewProgramFromSource("")
		wantErr(t, "NewProgramFromSource(\"\")", err, ur.ErrInvalidValue)
	})
}

func TestProgramSpecConstantOnSource(t *testing.T) {
	forEachDevice(t, func(t *testing.T, f *Fixture) {
		if f.DeviceCode(t).ILOnly {
			t.Skipf("%s has no programs from source", f.Backend)
		}
		p := f.newProgram(t, f.Context(t), "kernels")
		err := p.SetSpecConstant(0, []byte{1, 0, 0, 0})
		f.Run(t, "Fails", func(t *testing.T) {
			if err == nil {
				t.Fatal("SetSpecConstant on a program from source succeeded")
			}
		})
		f.Run(t, "Code", func(t *testing.T) {
			// ur.Program.SetSpecConstant: "Programs from source give
			// ErrUnsupportedFeature."
			wantErr(t, "SetSpecConstant on a program from source", err, ur.ErrUnsupportedFeature)
		})
		wantErr(t, "SetSpecConstant with an empty value", p.SetSpecConstant(0, nil), ur.ErrInvalidValue)
	})
}

func TestProgramReleased(t *testing.T) {
	forEachDevice(t, func(t *testing.T, f *Fixture) {
		p, err := f.DeviceCode(t).createProgram(f.Context(t), f.Device, "kernels")
		must(t, "creating the program", err)
		must(t, "Release", p.Release())
		wantErr(t, "Build of a released program", p.Build(""), ur.ErrInvalidProgram)
		_, err = p.NewKernel("iota")
		wantErr(t, "NewKernel of a released program", err, ur.ErrInvalidProgram)
		_, err = p.Binaries()
		wantErr(t, "Binaries of a released program", err, ur.ErrInvalidProgram)
		wantErr(t, "second Release", p.Release(), ur.ErrInvalidProgram)
	})
}

// A kernel stays usable after its program is released.
func TestProgramKernelOutlivesProgram(t *testing.T) {
	forEachDevice(t, func(t *testing.T, f *Fixture) {
		ctx := f.Context(t)
		bins, err := f.Program(t).Binaries()
		must(t, "Binaries", err)
		p, err := ctx.NewProgramFromBinaries([]*ur.Device{f.Device}, bins)
		must(t, "NewProgramFromBinaries", err)
		must(t, "Build", p.Build(""))
		k, err := p.NewKernel("iota")
		must(t, "NewKernel", err)
		cleanup(t, k)
		must(t, "Program.Release", p.Release())
		got := runKernelU32(t, f.Queue(t), ctx, k, make([]uint32, 100))
		checkUint32s(t, "iota after Program.Release", got, func(i int) uint32 { return uint32(i) })
	})
}

func TestProgramNilArguments(t *testing.T) {
	forEachDevice(t, func(t *testing.T, f *Fixture) {
		_, err := f.Program(t).BuildLog(nil)
		wantErr(t, "BuildLog(nil)", err, ur.ErrInvalidNullHandle)
		_, err = f.Context(t).NewProgramFromBinaries([]*ur.Device{nil}, [][]byte{{1}})
		wantErr(t, "NewProgramFromBinaries(nil device)", err, ur.ErrInvalidNullHandle)
		var p *ur.Program
		wantErr(t, "nil Program.Build", p.Build(""), ur.ErrInvalidNullHandle)
		_, err = f.Context(t).Link("", []*ur.Program{nil})
		wantErr(t, "Link(nil program)", err, ur.ErrInvalidNullHandle)
	})
}

func TestProgramLinkForeignOrReleased(t *testing.T) {
	forEachDevice(t, func(t *testing.T, f *Fixture) {
		ctx := f.Context(t)
		foreign := f.newProgram(t, f.NewContext(t), "link_lib")
		_, err := ctx.Link("", []*ur.Program{foreign})
		wantErr(t, "Link of a program of another context", err, ur.ErrInvalidProgram)
		released, err := f.DeviceCode(t).createProgram(ctx, f.Device, "link_lib")
		must(t, "creating the program", err)
		must(t, "Release", released.Release())
		_, err = ctx.Link("", []*ur.Program{released})
		wantErr(t, "Link of a released program", err, ur.ErrInvalidProgram)
	})
}
