package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gour-dev/gour/adapters/cuda/nvrtc"
	"github.com/gour-dev/gour/bundle"
	"github.com/gour-dev/gour/cmd/internal/cli"
)

// buildConfig is what the build command's flags ask for.
type buildConfig struct {
	out         string
	split       bundle.SplitOptions
	cudaArchs   []string // cubins from CUDA C: sm_80, sm_90
	ptxArchs    []string // PTX from CUDA C: compute_80
	spirv       bool     // SPIR-V from OpenCL C
	noSource    bool
	skipMissing bool
	noNVRTC     bool // nvcc or nothing: no NVRTC fallback
	options     string
	kernels     []string // of binary inputs
	specs       []bundle.SpecConstant
	quiet       bool
	tools       tools
}

// tools are the compilers urpack runs, by path or name on the PATH.
type tools struct {
	nvcc, clang, llvmSPIRV string
}

// missingToolError is a target whose tool is not installed.
type missingToolError struct {
	target, tool string
	err          error
}

func (e *missingToolError) Error() string {
	return fmt.Sprintf("cannot build %s: %s not found (%v)", e.target, e.tool, e.err)
}

func build(args []string, stdout, stderr io.Writer) error {
	c := cli.New("urpack build", "-o OUT [flags] INPUT...", `
Build the targets asked for from each input and write them, with the
inputs, into one bundle. Inputs, by extension:

  FILE.cl      OpenCL C: split into images (see -split), kept as source;
               with -spirv also compiled to SPIR-V (clang, llvm-spirv)
  FILE.cu      CUDA C (extern "C" kernels): kept as source; cubins for each
               -cuda-arch and PTX for each -ptx-arch (nvcc, else NVRTC)
  FILE.spv     SPIR-V, as is
  FILE.ptx     PTX, as is, for the architecture of its .target
  FILE=TARGET  a binary for TARGET: cuda:sm_90 (or sm_90), level_zero:0x0bd5,
               opencl:DEVICE-NAME; its kernels come from -kernels

Flags may come before or after the inputs. Every run prints its progress
on standard error (-q silences it). The same inputs and flags give the
same bundle, byte for byte.`)
	cfg := buildConfig{}
	c.Flags.StringVar(&cfg.out, "o", "", "write the bundle to `FILE` (required)")
	split := c.Flags.String("split", "auto", "how OpenCL C is divided into images: auto (by requirements), kernel, module")
	var modules, aspects, specs listFlag
	c.Flags.Var(&modules, "module", "`NAME=K1,K2`: a module of kernels for -split module (repeatable)")
	c.Flags.Var(&aspects, "aspects", "`KERNEL=fp64+int64_atomics`: the aspects of a kernel, instead of those detected (repeatable)")
	c.Flags.Var(&specs, "spec", "`ID:NAME:KIND=DEFAULT`: a specialization constant of the source images, e.g. 3:BLOCK:uint32=256 (repeatable)")
	cudaArch := c.Flags.String("cuda-arch", "", "build CUDA C into cubins for these `ARCHS`, comma-separated: sm_80,sm_90")
	ptxArch := c.Flags.String("ptx-arch", "", "build CUDA C into PTX for these `ARCHS`: compute_80 (default: the oldest -cuda-arch, as a fallback)")
	c.Flags.BoolVar(&cfg.spirv, "spirv", false, "compile OpenCL C into SPIR-V (clang and llvm-spirv)")
	c.Flags.BoolVar(&cfg.noSource, "no-source", false, "leave the OpenCL C and CUDA C source images out")
	c.Flags.BoolVar(&cfg.skipMissing, "skip-missing", false, "skip, with a warning, a target whose tool is missing, instead of failing")
	c.Flags.BoolVar(&cfg.noNVRTC, "no-nvrtc", false, "build CUDA C with nvcc only, never with NVRTC where nvcc is missing")
	c.Flags.StringVar(&cfg.options, "options", "", "compile `OPTIONS` recorded in every image and passed to the compilers")
	kernels := c.Flags.String("kernels", "", "the kernels of the binary inputs, comma-separated")
	c.Flags.BoolVar(&cfg.quiet, "q", false, "print no progress")
	c.Flags.StringVar(&cfg.tools.nvcc, "nvcc", "nvcc", "the CUDA compiler")
	c.Flags.StringVar(&cfg.tools.clang, "clang", envOr("CLANG", "clang-15"), "the OpenCL C compiler for SPIR-V (default $CLANG, else clang-15)")
	c.Flags.StringVar(&cfg.tools.llvmSPIRV, "llvm-spirv", envOr("LLVM_SPIRV", "llvm-spirv-15"), "the LLVM to SPIR-V translator (default $LLVM_SPIRV, else llvm-spirv-15)")
	inputs, err := c.ParseInterleaved(args, stdout)
	if err != nil {
		return err
	}
	if cfg.out == "" {
		return cli.Usagef(c.Name, "-o is required")
	}
	if len(inputs) == 0 {
		return cli.Usagef(c.Name, "no input")
	}
	if cfg.split.Mode, err = bundle.ParseSplitMode(*split); err != nil {
		return cli.Usagef(c.Name, "-split: %s", message(err))
	}
	for _, m := range modules {
		name, list, ok := strings.Cut(m, "=")
		if !ok || name == "" || list == "" {
			return cli.Usagef(c.Name, "-module %q: want NAME=K1,K2", m)
		}
		cfg.split.Modules = append(cfg.split.Modules, bundle.Module{Name: name, Kernels: strings.Split(list, ",")})
	}
	if cfg.split.Mode == bundle.SplitPerModule && len(cfg.split.Modules) == 0 {
		return cli.Usagef(c.Name, "-split module needs at least one -module")
	}
	for _, a := range aspects {
		k, v, ok := strings.Cut(a, "=")
		set, err := bundle.ParseAspects(v)
		if !ok || k == "" || err != nil {
			return cli.Usagef(c.Name, "-aspects %q: want KERNEL=fp64+int64_atomics (%v)", a, message(err))
		}
		if cfg.split.Aspects == nil {
			cfg.split.Aspects = map[string]bundle.Aspects{}
		}
		cfg.split.Aspects[k] = set
	}
	for _, s := range specs {
		sc, err := parseSpec(s)
		if err != nil {
			return cli.Usagef(c.Name, "-spec %q: %v", s, err)
		}
		cfg.specs = append(cfg.specs, sc)
	}
	if cfg.cudaArchs, err = archList(*cudaArch, "sm_"); err != nil {
		return cli.Usagef(c.Name, "-cuda-arch: %v", err)
	}
	if cfg.ptxArchs, err = archList(*ptxArch, "compute_"); err != nil {
		return cli.Usagef(c.Name, "-ptx-arch: %v", err)
	}
	if len(cfg.ptxArchs) == 0 && len(cfg.cudaArchs) > 0 {
		cfg.ptxArchs = []string{"compute_" + strings.TrimPrefix(cfg.cudaArchs[0], "sm_")}
	}
	if *kernels != "" {
		cfg.kernels = strings.Split(*kernels, ",")
	}
	p := &packer{cfg: cfg, stderr: stderr}
	b, err := p.pack(inputs)
	var missing *missingToolError
	if errors.As(err, &missing) {
		return fmt.Errorf("%w; install it, name it with its flag (-nvcc, -clang, -llvm-spirv), or pass -skip-missing", err)
	}
	if err != nil {
		return err
	}
	data, err := b.Marshal()
	if err != nil {
		return err
	}
	if err := writeFileAtomic(cfg.out, data); err != nil {
		return err
	}
	p.progress("wrote %s: %d images, %d kernels, %d bytes", cfg.out, len(b.Images), len(b.Kernels()), len(data))
	return nil
}

// packer builds the images of a bundle.
type packer struct {
	cfg    buildConfig
	stderr io.Writer
	images []bundle.Image
}

func (p *packer) progress(format string, args ...any) {
	if !p.cfg.quiet {
		fmt.Fprintf(p.stderr, "urpack: "+format+"\n", args...)
	}
}

func (p *packer) pack(inputs []string) (*bundle.Bundle, error) {
	for _, in := range inputs {
		path, target, isBinary := strings.Cut(in, "=")
		var err error
		switch ext := filepath.Ext(path); {
		case isBinary:
			err = p.binary(path, target)
		case ext == ".cl":
			err = p.openclC(path)
		case ext == ".cu":
			err = p.cudaC(path)
		case ext == ".spv":
			err = p.ready(path, bundle.FormatSPIRV)
		case ext == ".ptx":
			err = p.ready(path, bundle.FormatPTX)
		default:
			return nil, cli.Usagef("urpack build", "input %q: unknown extension %q (want .cl, .cu, .spv, .ptx, or FILE=TARGET for a binary)", in, ext)
		}
		if err != nil {
			return nil, err
		}
	}
	return &bundle.Bundle{Images: p.images}, nil
}

// add checks an image and appends it.
func (p *packer) add(im bundle.Image) error {
	im.Properties.CompileOptions = p.cfg.options
	im, err := bundle.NewImage(im)
	if err != nil {
		return err
	}
	p.images = append(p.images, im)
	return nil
}

func (p *packer) read(path string) ([]byte, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err // names the file
	}
	return b, nil
}

// openclC splits an OpenCL C file and adds, per part, its source and,
// with -spirv, its SPIR-V.
func (p *packer) openclC(path string) error {
	src, err := p.read(path)
	if err != nil {
		return err
	}
	a, err := bundle.Analyze(bundle.FormatOpenCLC, src)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	parts, err := a.Split(p.cfg.split)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	p.progress("%s: %d kernels in %d parts (split %s)", path, len(a.Kernels), len(parts), p.cfg.split.Mode)
	for _, part := range parts {
		props := bundle.Properties{Aspects: part.Aspects, SubGroupSizes: part.SubGroupSizes, SpecConstants: p.cfg.specs}
		if p.cfg.spirv {
			spv, err := p.compileSPIRV(path, part)
			var missing *missingToolError
			switch {
			case errors.As(err, &missing) && p.cfg.skipMissing:
				p.progress("warning: skipped: %v", err)
			case err != nil:
				return err
			default:
				sa, err := bundle.Analyze(bundle.FormatSPIRV, spv)
				if err != nil {
					return fmt.Errorf("%s: the SPIR-V of part %s: %w", path, part.Name, err)
				}
				sp := props
				sp.SpecConstants = sa.SpecConstants
				if len(sa.Kernels) > 0 {
					sp.Aspects |= sa.Kernels[0].Aspects // the module's capabilities
				}
				if err := p.add(bundle.Image{Format: bundle.FormatSPIRV, Kernels: part.Kernels, Properties: sp, Code: spv}); err != nil {
					return err
				}
			}
		}
		if !p.cfg.noSource {
			im := bundle.Image{Target: bundle.Target{Backend: bundle.BackendOpenCL}, Format: bundle.FormatOpenCLC, Kernels: part.Kernels, Properties: props, Code: part.Code}
			if err := p.add(im); err != nil {
				return err
			}
		}
	}
	return nil
}

// compileSPIRV compiles one part of OpenCL C as scripts/spirv.sh does:
// clang to LLVM bitcode for spir64, then llvm-spirv to SPIR-V 1.0. A part
// that does not need fp64 is compiled with cl_khr_fp64 off, so that code
// under #if defined(cl_khr_fp64) drops out and the module declares no
// Float64 capability.
func (p *packer) compileSPIRV(path string, part bundle.Part) ([]byte, error) {
	target := fmt.Sprintf("SPIR-V of %s part %s", path, part.Name)
	clang, err := exec.LookPath(p.cfg.tools.clang)
	if err != nil {
		return nil, &missingToolError{target, p.cfg.tools.clang, err}
	}
	translator, err := exec.LookPath(p.cfg.tools.llvmSPIRV)
	if err != nil {
		return nil, &missingToolError{target, p.cfg.tools.llvmSPIRV, err}
	}
	dir, err := os.MkdirTemp("", "urpack")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	bc, spv := filepath.Join(dir, "part.bc"), filepath.Join(dir, "part.spv")
	args := []string{"-c", "-target", "spir64", "-cl-std=CL1.2", "-O2", "-emit-llvm"}
	if part.Aspects&bundle.AspectFP64 == 0 {
		args = append(args, "-Xclang", "-cl-ext=-cl_khr_fp64")
	}
	args = append(args, strings.Fields(p.cfg.options)...)
	args = append(args, "-o", bc, "-x", "cl", "-")
	if err := p.runTool(target, part.Code, clang, args...); err != nil {
		return nil, err
	}
	if err := p.runTool(target, nil, translator, "--spirv-max-version=1.0", bc, "-o", spv); err != nil {
		return nil, err
	}
	return os.ReadFile(spv)
}

// cudaC adds the source of a CUDA C file, a cubin per -cuda-arch and PTX
// per -ptx-arch. CUDA C is one image per target, with every kernel: every
// CUDA device has the aspects a split would separate.
func (p *packer) cudaC(path string) error {
	src, err := p.read(path)
	if err != nil {
		return err
	}
	a, err := bundle.Analyze(bundle.FormatCUDAC, src)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if len(a.Kernels) == 0 {
		return fmt.Errorf("%s: no __global__ kernel found", path)
	}
	var kernels []string
	var aspects bundle.Aspects
	for _, k := range a.Kernels {
		kernels = append(kernels, k.Name)
		aspects |= k.Aspects
	}
	props := bundle.Properties{Aspects: aspects, SpecConstants: p.cfg.specs}
	p.progress("%s: %d kernels", path, len(kernels))
	targets := append(slices.Clone(p.cfg.cudaArchs), p.cfg.ptxArchs...)
	for _, arch := range targets {
		format, kind := bundle.FormatNative, "-cubin"
		if strings.HasPrefix(arch, "compute_") {
			format, kind = bundle.FormatPTX, "-ptx"
		}
		code, err := p.compileCUDA(path, src, kind, arch)
		var missing *missingToolError
		switch {
		case errors.As(err, &missing) && p.cfg.skipMissing:
			p.progress("warning: skipped: %v", err)
			continue
		case err != nil:
			return err
		}
		im := bundle.Image{Target: bundle.Target{Backend: bundle.BackendCUDA, Arch: arch}, Format: format, Kernels: kernels, Properties: props, Code: code}
		if err := p.add(im); err != nil {
			return err
		}
	}
	if p.cfg.noSource {
		return nil
	}
	return p.add(bundle.Image{Target: bundle.Target{Backend: bundle.BackendCUDA}, Format: bundle.FormatCUDAC, Kernels: kernels, Properties: props, Code: src})
}

// compileCUDA compiles a CUDA C file into a cubin (kind -cubin, sm_XY) or
// PTX (-ptx, compute_XY) with nvcc, or, where nvcc is missing, with NVRTC
// (unless -no-nvrtc): the same code, without a toolkit installed.
func (p *packer) compileCUDA(path string, src []byte, kind, arch string) ([]byte, error) {
	target := fmt.Sprintf("cuda:%s from %s", arch, path)
	nvcc, err := exec.LookPath(p.cfg.tools.nvcc)
	if err == nil {
		return p.nvcc(target, nvcc, path, kind, arch)
	}
	if p.cfg.noNVRTC {
		return nil, &missingToolError{target, p.cfg.tools.nvcc, err}
	}
	if nverr := nvrtc.Available(); nverr != nil {
		return nil, &missingToolError{target, p.cfg.tools.nvcc + " (or NVRTC)", fmt.Errorf("%v; %v", err, nverr)}
	}
	return p.nvrtc(target, path, src, arch)
}

// nvrtc compiles CUDA C with NVRTC: -arch=sm_XY gives the cubin,
// -arch=compute_XY the PTX. The compile options go to NVRTC as they are.
func (p *packer) nvrtc(target, path string, src []byte, arch string) ([]byte, error) {
	start := time.Now()
	options := append([]string{"-arch=" + arch}, strings.Fields(p.cfg.options)...)
	p.progress("%s: NVRTC %s", target, strings.Join(options, " "))
	ptx, cubin, _, err := nvrtc.Compile(string(src), filepath.Base(path), options)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", target, err) // a compile error carries NVRTC's log
	}
	p.progress("%s: done in %v", target, time.Since(start).Round(time.Millisecond))
	if strings.HasPrefix(arch, "sm_") {
		return cubin, nil
	}
	return ptx, nil
}

// nvcc compiles a CUDA C file into a cubin (-cubin, sm_XY) or PTX (-ptx,
// compute_XY).
func (p *packer) nvcc(target, nvcc, path, kind, arch string) ([]byte, error) {
	dir, err := os.MkdirTemp("", "urpack")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	out := filepath.Join(dir, "out")
	args := append([]string{kind, "-arch=" + arch}, strings.Fields(p.cfg.options)...)
	args = append(args, "-o", out, path)
	if err := p.runTool(target, nil, nvcc, args...); err != nil {
		return nil, err
	}
	return os.ReadFile(out)
}

// runTool runs a compiler, printing what it runs and how long it took;
// a failure carries the tool's output.
func (p *packer) runTool(target string, stdin []byte, tool string, args ...string) error {
	start := time.Now()
	cmd := exec.CommandContext(context.Background(), tool, args...)
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	p.progress("%s: %s %s", target, filepath.Base(tool), strings.Join(args, " "))
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%s: %s failed: %v\n%s", target, filepath.Base(tool), err, strings.TrimSpace(out.String()))
	}
	p.progress("%s: done in %v", target, time.Since(start).Round(time.Millisecond))
	return nil
}

// ready adds SPIR-V or PTX as it is, with the kernels, aspects and
// specialization constants read from it.
func (p *packer) ready(path string, format bundle.Format) error {
	code, err := p.read(path)
	if err != nil {
		return err
	}
	a, err := bundle.Analyze(format, code)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	im := bundle.Image{Format: format, Code: code, Properties: bundle.Properties{SpecConstants: a.SpecConstants}}
	for _, k := range a.Kernels {
		im.Kernels = append(im.Kernels, k.Name)
		im.Properties.Aspects |= k.Aspects
		if as, ok := p.cfg.split.Aspects[k.Name]; ok {
			im.Properties.Aspects |= as
		}
		im.Properties.SubGroupSizes = append(im.Properties.SubGroupSizes, k.SubGroupSizes...)
	}
	if format == bundle.FormatPTX {
		im.Target = bundle.Target{Backend: bundle.BackendCUDA, Arch: a.PTXTarget}
	}
	p.progress("%s: %s, %d kernels", path, format, len(im.Kernels))
	return p.add(im)
}

// binary adds a device binary for target, with the kernels of -kernels.
func (p *packer) binary(path, target string) error {
	t, err := parseTarget(target)
	if err != nil {
		return cli.Usagef("urpack build", "input %s=%s: %v", path, target, err)
	}
	if len(p.cfg.kernels) == 0 {
		return cli.Usagef("urpack build", "input %s=%s: a binary's kernels cannot be read from it: name them with -kernels", path, target)
	}
	code, err := p.read(path)
	if err != nil {
		return err
	}
	im := bundle.Image{Target: t, Format: bundle.FormatNative, Kernels: p.cfg.kernels, Code: code}
	for _, k := range p.cfg.kernels {
		im.Properties.Aspects |= p.cfg.split.Aspects[k]
	}
	p.progress("%s: native %s, %d kernels", path, t, len(im.Kernels))
	return p.add(im)
}

// parseTarget reads a binary's target: "cuda:sm_90", "sm_90",
// "level_zero:0x0bd5", "opencl:NAME".
func parseTarget(s string) (bundle.Target, error) {
	if strings.HasPrefix(s, "sm_") {
		return bundle.Target{Backend: bundle.BackendCUDA, Arch: s}, nil
	}
	backend, arch, ok := strings.Cut(s, ":")
	switch {
	case !ok || arch == "":
		return bundle.Target{}, fmt.Errorf("target %q: want BACKEND:ARCH, such as cuda:sm_90 or level_zero:0x0bd5", s)
	case backend != bundle.BackendCUDA && backend != bundle.BackendLevelZero && backend != bundle.BackendOpenCL:
		return bundle.Target{}, fmt.Errorf("target %q: unknown backend %q (want cuda, level_zero or opencl)", s, backend)
	}
	return bundle.Target{Backend: backend, Arch: arch}, nil
}

// archList reads comma-separated architectures, each with prefix.
func archList(s, prefix string) ([]string, error) {
	if s == "" {
		return nil, nil
	}
	var out []string
	for _, a := range strings.Split(s, ",") {
		n, ok := strings.CutPrefix(a, prefix)
		if _, err := strconv.Atoi(strings.TrimSuffix(n, "a")); !ok || err != nil {
			return nil, fmt.Errorf("%q is not %sXY", a, prefix)
		}
		if !slices.Contains(out, a) {
			out = append(out, a)
		}
	}
	return out, nil
}

// parseSpec reads ID:NAME:KIND=DEFAULT, KIND being int8..int64,
// uint8..uint64, float32, float64 or bool.
func parseSpec(s string) (bundle.SpecConstant, error) {
	head, value, ok := strings.Cut(s, "=")
	fields := strings.Split(head, ":")
	if !ok || len(fields) != 3 {
		return bundle.SpecConstant{}, errors.New("want ID:NAME:KIND=DEFAULT, e.g. 3:BLOCK:uint32=256")
	}
	id, err := strconv.ParseUint(fields[0], 10, 32)
	if err != nil {
		return bundle.SpecConstant{}, fmt.Errorf("ID %q is not a number", fields[0])
	}
	sc := bundle.SpecConstant{ID: uint32(id), Name: fields[1]}
	kind := fields[2]
	bitsText := strings.TrimLeft(kind, "abcdefghijklmnopqrstuvwxyz")
	base := strings.TrimSuffix(kind, bitsText)
	size := 0
	switch {
	case base == "bool" && bitsText == "",
		(base == "int" || base == "uint") && (bitsText == "8" || bitsText == "16" || bitsText == "32" || bitsText == "64"),
		base == "float" && (bitsText == "32" || bitsText == "64"):
		n, _ := strconv.Atoi(bitsText)
		size = n / 8
	default:
		return sc, fmt.Errorf("unknown kind %q (want int8..int64, uint8..uint64, float32, float64 or bool)", kind)
	}
	var u uint64
	switch base {
	case "int":
		sc.Kind = bundle.SpecInt
		v, e := strconv.ParseInt(value, 0, 8*size)
		u, err = uint64(v), e
	case "uint":
		sc.Kind = bundle.SpecUint
		u, err = strconv.ParseUint(value, 0, 8*size)
	case "float":
		sc.Kind = bundle.SpecFloat
		var f float64
		f, err = strconv.ParseFloat(value, 8*size)
		if size == 4 {
			u = uint64(math.Float32bits(float32(f)))
		} else {
			u = math.Float64bits(f)
		}
	case "bool":
		sc.Kind, size = bundle.SpecBool, 1
		var b bool
		b, err = strconv.ParseBool(value)
		if b {
			u = 1
		}
	}
	if err != nil {
		return sc, fmt.Errorf("default %q is not a %s: %v", value, kind, errors.Unwrap(err))
	}
	for i := range size {
		sc.Default = append(sc.Default, byte(u>>(8*i)))
	}
	return sc, nil
}

// writeFileAtomic writes data to path through a temporary file in the
// same directory, so that a failed build never leaves half a bundle.
func writeFileAtomic(path string, data []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(f.Name(), 0o644)
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		os.Remove(f.Name())
	}
	return err
}

func envOr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

// message is err's text, "" for nil.
func message(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
