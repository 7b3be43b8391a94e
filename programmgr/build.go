package programmgr

import (
	"context"
	"fmt"
	"strings"

	"github.com/gour-dev/gour/trace"
	"github.com/gour-dev/gour/ur"
)

// maxOOMRetries bounds the evict-everything-and-retry rounds after an
// out-of-memory error (DPC++ retries without bound).
const maxOOMRetries = 2

// retryOOM runs attempt; when it fails with OUT_OF_HOST_MEMORY,
// OUT_OF_DEVICE_MEMORY or OUT_OF_RESOURCES, it evicts everything evictable
// and runs it again, at most maxOOMRetries times, then returns the error.
// A cancelled ctx stops it before an attempt.
func (m *Manager) retryOOM(ctx context.Context, what string, attempt func() error) error {
	for retry := 0; ; retry++ {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("programmgr: %s: %w", what, context.Cause(ctx))
		}
		err := attempt()
		if err == nil || !isOutOfMemory(err) || retry == maxOOMRetries {
			return err
		}
		m.stats.oomRetries.Add(1)
		if m.traceOn {
			m.cfg.logger.Info("programmgr: in-memory cache evict-all", "reason", ur.ResultOf(err).String(), "while", what, "retry", retry+1)
		}
		m.mu.Lock()
		m.evictAll()
		m.unlock()
	}
}

// buildProgram builds img for devs, retrying after out-of-memory errors.
// The result has no references yet.
func (m *Manager) buildProgram(ctx context.Context, img *Image, devs []*ur.Device, spec SpecValues, options string) (*Program, error) {
	opts := m.cfg.optionsFor(img, spec, options)
	built := img // the image built: img, or img to be compiled to SPIR-V
	if needsSPIRV(img.format, devs) {
		var err error
		if built, opts, err = m.viaSPIRV(img, devs, opts); err != nil {
			return nil, err
		}
	}
	var p *Program
	err := m.retryOOM(ctx, "building image "+img.id.Short(), func() error {
		var err error
		p, err = m.buildOrLoad(ctx, built, devs, spec, opts)
		return err
	})
	if err != nil {
		return nil, err
	}
	p.image = img
	p.options = options
	return p, nil
}

// buildOnce creates and builds one program from img:
//
//   - OpenCL C and CUDA C: from source, spec constants as -D definitions;
//     OpenCL C for a device that takes SPIR-V but no source (Level
//     Zero): compiled to SPIR-V first (see viaSPIRV), then from IL;
//   - SPIR-V: from IL, spec constants set with SetSpecConstant (the
//     adapter says ErrUnsupportedFeature where it cannot);
//   - PTX: from IL, no spec constants;
//   - native: from the binary (the same for every device), no spec
//     constants.
//
// Then it builds, or, when there are link options, compiles and links.
func (m *Manager) buildOnce(ctx context.Context, img *Image, devs []*ur.Device, spec SpecValues, opts buildOptions) (*Program, error) {
	defer trace.Begin("programmgr", "programmgr.build").End()
	const op = "programmgr.build"
	if p, ok, err := m.sharedBuild(ctx, img, devs, spec, opts); ok {
		return p, err
	}
	m.waitHook()
	m.stats.builds.Add(1)
	var (
		up  *ur.Program
		err error
	)
	switch img.format {
	case FormatOpenCLC, FormatCUDAC:
		if img.spirv != nil {
			var il []byte
			if il, err = m.compileSPIRV(ctx, img); err != nil {
				return nil, err
			}
			up, err = m.ctx.NewProgramFromIL(il)
			break
		}
		up, err = m.ctx.NewProgramFromSource(string(img.bytes))
	case FormatSPIRV, FormatPTX:
		up, err = m.ctx.NewProgramFromIL(img.bytes)
	case FormatNative:
		bins := make([][]byte, len(devs))
		for i := range bins {
			bins[i] = img.bytes
		}
		up, err = m.ctx.NewProgramFromBinaries(devs, bins)
	}
	if err != nil {
		return nil, err
	}
	ok := false
	defer func() {
		if !ok {
			up.Release()
		}
	}()
	switch {
	case img.format == FormatSPIRV:
		var serr error
		spec.each(func(id uint32, v string) bool {
			serr = up.SetSpecConstant(id, []byte(v))
			return serr == nil
		})
		if serr != nil {
			return nil, serr
		}
	case !img.format.source() && !spec.IsZero():
		return nil, newError(ur.ErrUnsupportedFeature, op, "a %s image takes no specialization constants (values given: %s)", img.format, spec)
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("programmgr: building image %s: %w", img.id.Short(), context.Cause(ctx))
	}
	if opts.link == "" {
		if err := up.Build(opts.compile, devs...); err != nil {
			return nil, err
		}
	} else {
		if err := up.Compile(opts.compile, devs...); err != nil {
			return nil, err
		}
		linked, err := m.ctx.Link(opts.link, []*ur.Program{up}, devs...)
		if err != nil {
			return nil, err
		}
		up.Release()
		up = linked
	}
	size, err := programSize(up)
	if err != nil {
		return nil, err
	}
	ok = true
	return &Program{m: m, ur: up, image: img, devices: devs, spec: spec, size: size}, nil
}

// programSize is the sum of the program's binary sizes; 0 when the adapter
// cannot give binaries.
func programSize(p *ur.Program) (int64, error) {
	sizes, err := p.BinarySizes()
	if err != nil {
		if ur.ResultOf(err) == ur.ErrUnsupportedFeature {
			return 0, nil
		}
		return 0, err
	}
	var n int64
	for _, s := range sizes {
		n += int64(s)
	}
	return n, nil
}

// buildKernel creates kernel name of p, retrying after out-of-memory
// errors. The result has no references yet; it holds one to p.
func (m *Manager) buildKernel(ctx context.Context, p *Program, name string, dev *ur.Device) (*Kernel, error) {
	defer trace.Begin("programmgr", "programmgr.buildKernel").End()
	var uk *ur.Kernel
	err := m.retryOOM(ctx, "creating kernel "+name, func() error {
		m.stats.kernelBuilds.Add(1)
		var err error
		uk, err = p.ur.NewKernel(name)
		return err
	})
	if err != nil {
		return nil, err
	}
	p.refs.n.Add(1)
	return &Kernel{m: m, ur: uk, program: p, name: name, device: dev}, nil
}

// traceProgram logs one in-memory cache event of a program (SYCL_CACHE_TRACE
// bit 2).
func (m *Manager) traceProgram(op string, p *Program) {
	names := make([]string, len(p.devices))
	for i, d := range p.devices {
		names[i] = d.Name()
	}
	m.cfg.logger.Info("programmgr: in-memory cache "+op, "cache", "program",
		"image", p.image.id.Short(), "devices", strings.Join(names, ","),
		"spec", p.spec.String(), "options", p.options, "size", p.size)
}

// traceKernel logs one in-memory cache event of a kernel; cache is
// "kernel" or "fast-kernel".
func (m *Manager) traceKernel(op, cache string, k *Kernel) {
	m.cfg.logger.Info("programmgr: in-memory cache "+op, "cache", cache,
		"kernel", k.name, "device", k.device.Name(),
		"image", k.program.image.id.Short(), "spec", k.program.spec.String(), "options", k.program.options)
}
