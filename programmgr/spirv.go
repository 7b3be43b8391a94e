package programmgr

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/gour-dev/gour/programmgr/internal/clspirv"
	"github.com/gour-dev/gour/ur"
)

// OpenCL C on devices that take SPIR-V but no source (Level Zero): the
// manager compiles the image to SPIR-V with offline tools (package
// clspirv: clang, then the LLVM/SPIR-V translator) and builds that. The
// image built is a derived one, whose ID covers the source image's, the
// toolchain's versions and clang's options: the persistent cache keys
// on it, so a binary is never served for another compiler or other
// options, and the key says that the program went through SPIR-V.

// spirvPlan is how a derived image is compiled to SPIR-V.
type spirvPlan struct {
	tc     *clspirv.Toolchain
	in     clspirv.Input // Source is the image's bytes, set at compile time
	source ImageID       // the OpenCL C image's own ID, for logs
}

// needsSPIRV reports whether every device of devs builds an image of
// format f through SPIR-V (route).
func needsSPIRV(f Format, devs []*ur.Device) bool {
	if len(devs) == 0 {
		return false
	}
	for _, d := range devs {
		if _, via := route(f, d); !via {
			return false
		}
	}
	return true
}

// spirvEncodingVersion numbers the derived images' ID encoding.
const spirvEncodingVersion = 1

// viaSPIRV finds the tools and returns the image to build in img's place,
// to be compiled to SPIR-V, with the options divided: clang's (the -D
// definitions of spec constants among them) go into the derived image,
// the driver's stay in the options returned. Missing tools give a
// *ur.Error carrying ur.ErrUnsupportedFeature.
func (m *Manager) viaSPIRV(img *Image, devs []*ur.Device, opts buildOptions) (*Image, buildOptions, error) {
	tc, err := clspirv.Find(nil)
	if err != nil {
		return nil, opts, &ur.Error{
			Result: ur.ResultOf(err), Op: "programmgr.build", Err: err,
			Message: fmt.Sprintf("image %s is OpenCL C, which the %s adapter builds only from SPIR-V: %v", img.id.Short(), devs[0].Backend(), err),
		}
	}
	clang, driver := clspirv.SplitOptions(opts.compile)
	in := clspirv.Input{Args: clang, FP64: true, FP16: true}
	for _, d := range devs {
		info := d.Info()
		in.FP64 = in.FP64 && info.FP64
		in.FP16 = in.FP16 && info.FP16
	}
	derived := *img
	derived.spirv = &spirvPlan{tc: tc, in: in, source: img.id}
	h := sha256.New()
	var buf [4]byte
	str := func(s string) {
		binary.LittleEndian.PutUint32(buf[:], uint32(len(s)))
		h.Write(buf[:])
		h.Write([]byte(s))
	}
	h.Write([]byte("gour/programmgr/opencl-c-to-spir-v\x00"))
	binary.LittleEndian.PutUint32(buf[:], spirvEncodingVersion)
	h.Write(buf[:])
	h.Write(img.id[:])
	str(tc.Version)
	for _, a := range clspirv.ClangArgs(in) {
		str(a)
	}
	str("--")
	for _, a := range clang {
		str(a)
	}
	str("--")
	for _, a := range clspirv.SPIRVArgs {
		str(a)
	}
	h.Sum(derived.id[:0])
	opts.compile = driver
	return &derived, opts, nil
}

// compileSPIRV compiles a derived image to SPIR-V. A tool's failure is a
// *ur.Error carrying ur.ErrProgramBuildFailure, with the command and the
// tool's output as its BuildLog, so that the manager remembers it as it
// remembers a driver's compile error; a timeout or a cancelled context is
// not, and a waiting caller tries again.
func (m *Manager) compileSPIRV(ctx context.Context, img *Image) ([]byte, error) {
	plan := img.spirv
	in := plan.in
	in.Source = img.bytes
	start := time.Now()
	il, err := plan.tc.Compile(ctx, in)
	if m.cfg.trace&TraceKernelCompiler != 0 {
		m.cfg.logger.Info("programmgr: kernel compiler: OpenCL C to SPIR-V", "image", plan.source.Short(),
			"clang", plan.tc.Clang, "llvm-spirv", plan.tc.LLVMSPIRV, "options", strings.Join(in.Args, " "),
			"fp64", in.FP64, "bytes", len(il), "took", time.Since(start), "err", err)
	}
	if err == nil {
		return il, nil
	}
	var ce *clspirv.CompileError
	if errors.As(err, &ce) {
		return nil, &ur.Error{
			Result:   ur.ErrProgramBuildFailure,
			Op:       "programmgr.build",
			Message:  fmt.Sprintf("compiling image %s from OpenCL C to SPIR-V: %v", plan.source.Short(), ce),
			BuildLog: "$ " + ce.Tool + " " + strings.Join(ce.Args, " ") + "\n" + ce.Log,
			Err:      ce,
		}
	}
	return nil, fmt.Errorf("programmgr: compiling image %s from OpenCL C to SPIR-V: %w", plan.source.Short(), err)
}
