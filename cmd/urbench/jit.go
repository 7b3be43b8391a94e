package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/gour-dev/gour/cmd/internal/cli"
	"github.com/gour-dev/gour/ur"
)

// generatePTX writes a module of n kernels, each a chain of dependent
// floating-point operations long enough that the JIT has real work, about
// the size of the kernels of a numerical library.
func generatePTX(n, opsPerKernel int) string {
	var b strings.Builder
	b.WriteString(".version 7.0\n.target sm_52\n.address_size 64\n\n")
	for k := range n {
		fmt.Fprintf(&b, ".visible .entry kernel_%03d(.param .u64 out, .param .f32 a)\n{\n", k)
		b.WriteString("\t.reg .b32 %r<4>;\n\t.reg .f32 %f<8>;\n\t.reg .b64 %rd<4>;\n")
		b.WriteString("\tld.param.u64 %rd1, [out];\n\tcvta.to.global.u64 %rd1, %rd1;\n\tld.param.f32 %f1, [a];\n")
		b.WriteString("\tmov.u32 %r1, %ctaid.x;\n\tmov.u32 %r2, %ntid.x;\n\tmov.u32 %r3, %tid.x;\n\tmad.lo.s32 %r1, %r1, %r2, %r3;\n")
		b.WriteString("\tcvt.rn.f32.u32 %f2, %r1;\n")
		for i := range opsPerKernel {
			switch i % 4 {
			case 0:
				fmt.Fprintf(&b, "\tfma.rn.f32 %%f2, %%f2, %%f1, 0f%08X;\n", 0x3F800000+uint32(k*opsPerKernel+i)%4096)
			case 1:
				b.WriteString("\tmul.f32 %f3, %f2, %f2;\n")
			case 2:
				b.WriteString("\tadd.f32 %f2, %f2, %f3;\n")
			case 3:
				b.WriteString("\tsqrt.approx.f32 %f2, %f2;\n")
			}
		}
		b.WriteString("\tmul.wide.u32 %rd2, %r1, 4;\n\tadd.s64 %rd3, %rd1, %rd2;\n\tst.global.f32 [%rd3], %f2;\n\tret;\n}\n\n")
	}
	return b.String()
}

// jitCommand is `urbench jit`.
func jitCommand() (*cli.Command, func(io.Writer) error) {
	c := cli.New("urbench jit", "[-device SELECTOR] [-kernels N] [-ops N] [-loads N]", `
Generate a PTX module of many kernels, build it through gour with the CUDA
driver's JIT (run with CUDA_CACHE_DISABLE=1 for a cold JIT), take the cubin
the program hands back and time creating the program from it instead.
It runs on the first CUDA device the selector lets through.`)
	kernels := c.Flags.Int("kernels", 200, "kernels in the generated module")
	ops := c.Flags.Int("ops", 120, "arithmetic instructions per kernel")
	loads := c.Flags.Int("loads", 10, "times the cubin is loaded, for a median")
	c.DeviceFlag()
	return c, func(w io.Writer) error {
		if *kernels < 1 || *ops < 1 || *loads < 1 {
			return cli.Usagef(c.Name, "-kernels, -ops and -loads must be at least 1")
		}
		return jit(w, c, *kernels, *ops, *loads)
	}
}

// jit times the JIT of a generated module against loading its cubin.
func jit(w io.Writer, c *cli.Command, kernels, ops, loads int) error {
	dev, ctx, err := firstContext(c, "cuda")
	if err != nil {
		return err
	}
	defer ctx.Release()
	ptx := generatePTX(kernels, ops)

	start := time.Now()
	prog, err := ctx.NewProgramFromIL([]byte(ptx))
	if err != nil {
		return err
	}
	if err := prog.Build(""); err != nil {
		return err
	}
	jitTime := time.Since(start)
	bins, err := prog.Binaries()
	if err != nil {
		return err
	}
	names, err := prog.KernelNames()
	if err != nil {
		return err
	}
	prog.Release()

	var loadTimes []float64
	for range loads {
		start := time.Now()
		p, err := ctx.NewProgramFromBinaries([]*ur.Device{dev}, bins)
		if err != nil {
			return err
		}
		if err := p.Build(""); err != nil {
			return err
		}
		k, err := p.NewKernel(names[len(names)-1])
		if err != nil {
			return err
		}
		loadTimes = append(loadTimes, float64(time.Since(start).Nanoseconds()))
		k.Release()
		p.Release()
	}
	load := median(loadTimes)
	fmt.Fprintf(w, "module: %d kernels, PTX %d bytes, cubin %d bytes (CUDA_CACHE_DISABLE=%q)\n",
		len(names), len(ptx), len(bins[0]), os.Getenv("CUDA_CACHE_DISABLE"))
	fmt.Fprintf(w, "build from PTX (JIT): %.1f ms\n", float64(jitTime.Nanoseconds())/1e6)
	fmt.Fprintf(w, "program from handed-back cubin: %.3f ms (median of %d)\n", load/1e6, loads)
	fmt.Fprintf(w, "ratio JIT/cubin: %.0fx\n", float64(jitTime.Nanoseconds())/load)
	return nil
}

// cDialect is how a C dialect writes generatePTX's kernels.
type cDialect struct {
	head      string // the kernel's signature and index, %03d its number
	fma, sqrt string // the float functions
}

var (
	cudaC = cDialect{
		head: "extern \"C\" __global__ void kernel_%03d(float* out, float a) {\n" +
			"\tunsigned int i = blockIdx.x * blockDim.x + threadIdx.x;\n",
		fma: "fmaf", sqrt: "sqrtf",
	}
	openCLC = cDialect{
		head: "__kernel void kernel_%03d(__global float *out, float a) {\n\tuint i = get_global_id(0);\n",
		fma:  "fma", sqrt: "native_sqrt",
	}
)

// generateC writes generatePTX's module in C dialect d: n kernels, each a
// chain of opsPerKernel dependent floating-point operations, so that
// compiling and JIT-compiling them is real work.
func generateC(d cDialect, n, opsPerKernel int) string {
	var b strings.Builder
	for k := range n {
		fmt.Fprintf(&b, d.head, k)
		b.WriteString("\tfloat x = (float)i, y = 0.0f;\n")
		for i := range opsPerKernel {
			switch i % 4 {
			case 0:
				fmt.Fprintf(&b, "\tx = %s(x, a, %d.0f);\n", d.fma, 1+(k*opsPerKernel+i)%4096)
			case 1:
				b.WriteString("\ty = x * x;\n")
			case 2:
				b.WriteString("\tx = x + y;\n")
			case 3:
				fmt.Fprintf(&b, "\tx = %s(x);\n", d.sqrt)
			}
		}
		b.WriteString("\tout[i] = x;\n}\n\n")
	}
	return b.String()
}
