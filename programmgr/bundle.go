package programmgr

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"slices"
	"strings"

	"github.com/gour-dev/gour/bundle"
	"github.com/gour-dev/gour/ur"
)

// Bundle is an offload bundle (package bundle) ready for a Manager: each of
// its device images is an Image, so a program built from one is cached,
// in memory and on disk, as any image's is. Which image a device runs is
// chosen per request by GetBundleKernel. A Bundle is immutable and may be
// shared by any number of managers.
type Bundle struct {
	src    *bundle.Bundle
	images []*Image // images[i] is src.Images[i]
}

// NewBundle parses a bundle (bundle.Parse: a //go:embed []byte, say) and
// makes every image of it an Image. A malformed bundle is a *ur.Error
// carrying ur.ErrInvalidBinary.
func NewBundle(data []byte) (*Bundle, error) {
	b, err := bundle.Parse(data)
	if err != nil {
		return nil, err
	}
	return FromBundle(b)
}

// LoadBundle reads and parses the bundle at name in fsys (an embed.FS, or
// os.DirFS for a file), as NewBundle does.
func LoadBundle(fsys fs.FS, name string) (*Bundle, error) {
	b, err := bundle.ReadFS(fsys, name)
	if err != nil {
		return nil, err
	}
	return FromBundle(b)
}

// FromBundle makes a Bundle of b, a bundle parsed or built in memory. It
// keeps b, which must not change afterwards. An image the manager cannot
// take (a specialization constant of a source image whose name is not a C
// identifier) is an error carrying ur.ErrInvalidValue naming the image.
func FromBundle(b *bundle.Bundle) (*Bundle, error) {
	const op = "programmgr.FromBundle"
	if b == nil {
		return nil, newError(ur.ErrInvalidNullPointer, op, "bundle is nil")
	}
	if err := b.Validate(); err != nil {
		return nil, err
	}
	out := &Bundle{src: b, images: make([]*Image, len(b.Images))}
	for i := range b.Images {
		img, err := NewImage(imageDesc(&b.Images[i]))
		if err != nil {
			return nil, newError(ur.ErrInvalidValue, op, "image %d (%s): %v", i, &b.Images[i], err)
		}
		out.images[i] = img
	}
	return out, nil
}

// imageDesc describes a bundle image as an Image. The formats of the two
// packages are the same values, their specialization constants one type;
// of the aspects, the manager itself checks fp64 and fp16 (selection has
// checked them all).
func imageDesc(im *bundle.Image) ImageDesc {
	specs := slices.Clone(im.Properties.SpecConstants)
	return ImageDesc{
		Format:         Format(im.Format),
		Bytes:          im.Code,
		KernelNames:    im.Kernels,
		SpecConstants:  specs,
		CompileOptions: im.Properties.CompileOptions,
		LinkOptions:    im.Properties.LinkOptions,
		Requirements: Requirements{
			FP64: im.Properties.Aspects&bundle.AspectFP64 != 0,
			FP16: im.Properties.Aspects&bundle.AspectFP16 != 0,
		},
	}
}

// Source returns the parsed bundle; it must not be changed.
func (b *Bundle) Source() *bundle.Bundle { return b.src }

// Images returns the bundle's images as Images, in bundle order.
func (b *Bundle) Images() []*Image { return slices.Clone(b.images) }

// Kernels lists every kernel of the bundle, sorted.
func (b *Bundle) Kernels() []string { return b.src.Kernels() }

// Select chooses the image that a device described by dev runs kernel
// with the spec-constant values given (bundle.Select): an exact native
// match over a compatible native binary over IL the device JIT-compiles
// over source, skipping images that lack the kernel, that need aspects
// the device lacks, or that were built ahead of time (native, PTX) for
// the constants' defaults when other values are asked for. The Selection
// says why every other image was passed over. A description written by
// hand (a CUDA device of another architecture) shows what that device
// would run.
//
// When no image fits, the error is a *ur.Error: ur.ErrInvalidKernelName
// for a kernel the bundle lacks, ur.ErrUnsupportedFeature naming the
// aspects when only images needing them define the kernel,
// ur.ErrInvalidBinary otherwise, with each image's reason.
func (b *Bundle) Select(dev bundle.Device, kernel string, spec SpecValues) (*Image, *bundle.Selection, error) {
	sel, err := b.src.Select(dev, bundle.Request{Kernels: []string{kernel}, SpecValues: spec.Map()})
	if err != nil {
		return nil, nil, err
	}
	return b.images[sel.Index], sel, nil
}

// bundleKey is one selection a manager remembers: bundle, device, kernel
// and spec-constant values as given.
type bundleKey struct {
	bundle *Bundle
	device *ur.Device
	kernel string
	spec   SpecValues
}

// bundleChoice is a remembered selection: the image, the values to build
// it with, and the Selection; or the error.
type bundleChoice struct {
	image *Image
	spec  SpecValues
	sel   *bundle.Selection
	err   error
}

// choiceMap is a manager's remembered selections, replaced whole when one
// is added, as the fast kernel cache is, so that a lookup takes no lock.
type choiceMap = map[bundleKey]*bundleChoice

// GetBundleKernel returns the kernel called name, built for dev from the
// image of b that dev should run (Bundle.Select on the device's
// description, bundle.DescribeDevice), with the spec-constant values and
// build options given. Everything else is GetKernel's: the caller owns one
// reference and must Release it; a JIT-compiled or source image is built
// once and its binary stored in the persistent cache; a native image is
// loaded as it is and never stored again.
//
// An image built ahead of time holds the specialization constants'
// defaults, so with other values the bundle's IL or source image is
// built instead; when only native images define the kernel, such values
// are an error. A kernel only images needing an aspect the device lacks
// (fp64) define is an error carrying ur.ErrUnsupportedFeature that names
// the aspect; the bundle's other kernels still run there.
//
// The manager remembers the choice per (bundle, device, kernel, values),
// so that a repeated request costs one lock-free map lookup before the
// fast kernel cache; with SYCL_CACHE_TRACE bit TraceBundleSelection set it
// logs each choice when it makes it, with why the other images were not
// chosen. A bundle is not an Image, and GetKernel does not take one,
// because the image depends on the device asking.
func (m *Manager) GetBundleKernel(ctx context.Context, b *Bundle, name string, dev *ur.Device, spec SpecValues, options string) (*Kernel, error) {
	c, err := m.bundleChoice("programmgr.GetBundleKernel", b, name, dev, spec)
	if err != nil {
		return nil, err
	}
	return m.GetKernel(ctx, c.image, name, dev, c.spec, options)
}

// SelectImage returns the image of b that GetBundleKernel builds for
// kernel name on dev with the values given, and the Selection saying why.
// The choice is remembered, as GetBundleKernel's is.
func (m *Manager) SelectImage(b *Bundle, name string, dev *ur.Device, spec SpecValues) (*Image, *bundle.Selection, error) {
	c, err := m.bundleChoice("programmgr.SelectImage", b, name, dev, spec)
	if err != nil {
		return nil, nil, err
	}
	return c.image, c.sel, nil
}

// bundleChoice returns the remembered choice for the request, choosing
// (and tracing) on first use.
func (m *Manager) bundleChoice(op string, b *Bundle, name string, dev *ur.Device, spec SpecValues) (*bundleChoice, error) {
	if b == nil {
		return nil, newError(ur.ErrInvalidNullPointer, op, "bundle is nil")
	}
	if dev == nil {
		return nil, newError(ur.ErrInvalidNullHandle, op, "device is nil")
	}
	key := bundleKey{bundle: b, device: dev, kernel: name, spec: spec}
	if cm := m.choices.Load(); cm != nil {
		if c := (*cm)[key]; c != nil {
			return c, reop(op, c.err)
		}
	}
	if _, ok := m.devIndex[dev]; !ok {
		return nil, newError(ur.ErrInvalidDevice, op, "device %q is not in the manager's context", dev.Name())
	}
	c := &bundleChoice{}
	c.image, c.sel, c.err = b.Select(m.describe(dev), name, spec)
	if c.err == nil {
		c.err = b.checkSpecIDs(name, spec)
	}
	if c.err == nil {
		c.spec = spec
		if f := c.image.format; f == FormatNative || f == FormatPTX {
			// Chosen only when every value is its default (or one the
			// image does not declare): the binary holds them already.
			c.spec = SpecValues{}
		}
	}
	if m.cfg.trace&TraceBundleSelection != 0 {
		m.traceChoice(b, name, dev, spec, c)
	}
	m.mu.Lock()
	if !m.closed {
		cur := m.choices.Load()
		next := choiceMap{}
		if cur != nil {
			next = maps.Clone(*cur)
		}
		next[key] = c
		m.choices.Store(&next)
	}
	m.mu.Unlock()
	return c, reop(op, c.err)
}

// checkSpecIDs refuses a value for a constant that no image of kernel
// declares, as GetKernel does for one image: selection passes over such
// IDs (an image built ahead of time without a constant does not use it).
func (b *Bundle) checkSpecIDs(kernel string, spec SpecValues) error {
	var err error
	spec.each(func(id uint32, _ string) bool {
		for _, img := range b.images {
			if _, ok := img.specConstant(id); ok && img.hasKernel(kernel) {
				return true
			}
		}
		err = newError(ur.ErrInvalidSpecID, "bundle", "no image of kernel %q declares spec constant %d", kernel, id)
		return false
	})
	return err
}

// describe is bundle.DescribeDevice, unless a test describes devices
// otherwise (an OpenCL device without fp64).
func (m *Manager) describe(dev *ur.Device) bundle.Device {
	if m.describeDevice != nil {
		return m.describeDevice(dev)
	}
	return bundle.DescribeDevice(dev)
}

// reop gives a selection error the manager's call as its Op.
func reop(op string, err error) error {
	if err == nil {
		return nil // before e, whose address errors.As takes: the hit path allocates nothing
	}
	var e *ur.Error
	if !errors.As(err, &e) {
		return err
	}
	c := *e
	c.Op = op
	return &c
}

// traceChoice logs one choice of a bundle image (SYCL_CACHE_TRACE bit
// TraceBundleSelection): the image and its rank, and why each other image
// was passed over.
func (m *Manager) traceChoice(b *Bundle, name string, dev *ur.Device, spec SpecValues, c *bundleChoice) {
	if c.err != nil {
		m.cfg.logger.Info("programmgr: bundle selection failed", "kernel", name, "device", dev.Name(),
			"spec", spec.String(), "images", len(b.images), "err", c.err.Error())
		return
	}
	why := make([]string, len(c.sel.Rejected))
	for i, r := range c.sel.Rejected {
		why[i] = r.String()
	}
	m.cfg.logger.Info("programmgr: bundle image chosen", "kernel", name, "device", dev.Name(),
		"spec", spec.String(), "chosen", c.sel.String(), "image", c.image.id.Short(),
		"rejected", strings.Join(why, "; "))
}

// String describes the bundle: "bundle of 5 images, 3 kernels".
func (b *Bundle) String() string {
	return fmt.Sprintf("bundle of %d images, %d kernels", len(b.images), len(b.Kernels()))
}
