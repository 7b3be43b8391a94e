package bundle

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/gour-dev/gour/ur"
)

// Format is the kind of code an image holds. The names are those of
// programmgr's image formats, so that an image maps onto one directly.
type Format uint8

// Image formats.
const (
	FormatOpenCLC Format = iota + 1 // OpenCL C source, built by an OpenCL driver
	FormatCUDAC                     // CUDA C++ source, built by NVRTC
	FormatSPIRV                     // SPIR-V, JIT-compiled by OpenCL (with IL) and Level Zero
	FormatPTX                       // PTX, JIT-compiled by the CUDA driver
	FormatNative                    // a device binary: cubin, Level Zero native binary, OpenCL program binary
)

var formatNames = [...]string{"", "opencl-c", "cuda-c", "spir-v", "ptx", "native"}

// String names the format: "opencl-c", "cuda-c", "spir-v", "ptx", "native".
func (f Format) String() string {
	if f.valid() {
		return formatNames[f]
	}
	return "Format(" + strconv.Itoa(int(f)) + ")"
}

// ParseFormat reads a format's name as String writes it.
func ParseFormat(s string) (Format, error) {
	if i := slices.Index(formatNames[:], s); i > 0 {
		return Format(i), nil
	}
	return 0, errorf(ur.ErrInvalidValue, "bundle.ParseFormat", "unknown format %q (want one of %s)", s, strings.Join(formatNames[1:], ", "))
}

func (f Format) valid() bool { return f >= FormatOpenCLC && f <= FormatNative }

// source reports whether the format is source text, built with the
// specialization constants as -D definitions.
func (f Format) source() bool { return f == FormatOpenCLC || f == FormatCUDAC }

// Backend names, as ur.Device.Backend reports them.
const (
	BackendOpenCL    = "opencl"
	BackendCUDA      = "cuda"
	BackendLevelZero = "level_zero"
)

// Target is what an image was built for: a backend and, for binaries and
// PTX, an architecture.
//
//   - a CUDA cubin: {cuda, sm_90}; "sm_90a" runs only on sm_90, "sm_90"
//     on every sm_9X device;
//   - PTX: {cuda, compute_80}, JIT-compiled on sm_80 and later;
//   - a Level Zero native binary: {level_zero, the device ID, "0x0bd5"};
//   - an OpenCL program binary: {opencl, the device name the driver reports};
//   - SPIR-V: {"", ""} for any backend taking SPIR-V, or one backend;
//   - source: {opencl, ""} for OpenCL C, {cuda, ""} for CUDA C.
type Target struct {
	Backend string
	Arch    string
}

// String is "cuda:sm_90", "level_zero:0x0bd5", "opencl" or "any".
func (t Target) String() string {
	b := t.Backend
	if b == "" {
		b = "any"
	}
	if t.Arch == "" {
		return b
	}
	return b + ":" + t.Arch
}

// SpecKind says how a specialization constant's bytes read as a value (for
// the -D definition of a source image). Values are little-endian.
type SpecKind uint8

// Specialization-constant kinds, the same as programmgr's.
const (
	SpecInt   SpecKind = iota // signed integer of 1, 2, 4 or 8 bytes
	SpecUint                  // unsigned integer of 1, 2, 4 or 8 bytes
	SpecFloat                 // IEEE 754 float (4 bytes) or double (8 bytes)
	SpecBool                  // 1 byte, zero is false
)

var specKindNames = [...]string{"int", "uint", "float", "bool"}

// String names the kind: "int", "uint", "float", "bool".
func (k SpecKind) String() string {
	if int(k) < len(specKindNames) {
		return specKindNames[k]
	}
	return "SpecKind(" + strconv.Itoa(int(k)) + ")"
}

// ParseSpecKind reads a kind's name as String writes it.
func ParseSpecKind(s string) (SpecKind, error) {
	if i := slices.Index(specKindNames[:], s); i >= 0 {
		return SpecKind(i), nil
	}
	return 0, errorf(ur.ErrInvalidValue, "bundle.ParseSpecKind", "unknown specialization constant kind %q (want int, uint, float or bool)", s)
}

// ValidSize reports whether a value of n bytes fits the kind.
func (k SpecKind) ValidSize(n int) bool {
	switch k {
	case SpecInt, SpecUint:
		return n == 1 || n == 2 || n == 4 || n == 8
	case SpecFloat:
		return n == 4 || n == 8
	case SpecBool:
		return n == 1
	}
	return false
}

// SpecConstant is one specialization constant of an image: its SPIR-V
// SpecId, the macro name a source image reads it through, its kind and
// its default value, which fixes its size.
type SpecConstant struct {
	ID      uint32
	Name    string
	Kind    SpecKind
	Default []byte
}

// Properties is an image's property set: what a device needs to run it
// and how it is built.
type Properties struct {
	// Aspects are the optional device features the image's code uses.
	Aspects Aspects
	// SubGroupSizes are the sub-group sizes its kernels require
	// (reqd_sub_group_size); a device must support each of them.
	// Sorted, without repeats.
	SubGroupSizes []uint32
	// SpecConstants, sorted by ID, without repeated IDs.
	SpecConstants  []SpecConstant
	CompileOptions string
	LinkOptions    string
}

// Image is one device image of a bundle: code for one target and the
// kernels it defines.
type Image struct {
	Target Target
	Format Format
	// Kernels are the kernels the image defines, sorted, without repeats;
	// at least one.
	Kernels    []string
	Properties Properties
	// Code is the source text, IL or binary. A parsed image's Code aliases
	// the bytes it was parsed from.
	Code []byte
	// Checksum is the SHA-256 of Code. Marshal fills it in; Parse checks it.
	Checksum [32]byte
}

// HasKernel reports whether the image defines the kernel.
func (im *Image) HasKernel(name string) bool {
	_, ok := slices.BinarySearch(im.Kernels, name)
	return ok
}

// String describes the image in a few words: "native cuda:sm_90 (3 kernels, fp64)".
func (im *Image) String() string {
	s := fmt.Sprintf("%s %s (%d kernel", im.Format, im.Target, len(im.Kernels))
	if len(im.Kernels) != 1 {
		s += "s"
	}
	if im.Properties.Aspects != 0 {
		s += ", " + im.Properties.Aspects.String()
	}
	return s + ")"
}

// Bundle is a set of device images for one set of kernels: ahead-of-time
// binaries per architecture, portable IL and source, each image holding
// some of the kernels. Marshal writes it; Parse reads it back.
type Bundle struct {
	Images []Image
}

// Kernels lists every kernel of the bundle, sorted.
func (b *Bundle) Kernels() []string {
	var out []string
	for i := range b.Images {
		out = append(out, b.Images[i].Kernels...)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// Limits of what a bundle may hold; they keep a hostile file from making
// Parse allocate much, and names printable.
const (
	maxName       = 1 << 10 // a kernel, spec constant, backend or architecture name
	maxOptions    = 1 << 16 // compile or link options
	maxSpecValue  = 8       // bytes of a specialization constant
	maxImages     = 1 << 16
	maxImageCode  = 1 << 31 // bytes of one image
	maxSubGroup   = 1 << 10
	maxSubGroupNs = 16
)

// Validate checks the bundle as Marshal and Parse do: every image has a
// known format on a backend that takes it, kernels and specialization
// constants in canonical order, and names within limits. The error is a
// *ur.Error carrying ur.ErrInvalidValue that names the image and field.
func (b *Bundle) Validate() error {
	if len(b.Images) == 0 {
		return errorf(ur.ErrInvalidValue, "bundle.Validate", "the bundle holds no image")
	}
	if len(b.Images) > maxImages {
		return errorf(ur.ErrInvalidValue, "bundle.Validate", "%d images, more than %d", len(b.Images), maxImages)
	}
	for i := range b.Images {
		if err := b.Images[i].validate(); err != nil {
			return errorf(ur.ErrInvalidValue, "bundle.Validate", "image %d: %s", i, err)
		}
	}
	return nil
}

// fieldProblem is what is wrong with one field of an image.
type fieldProblem struct {
	field, problem string
}

func bad(field, format string, args ...any) *fieldProblem {
	return &fieldProblem{field: field, problem: fmt.Sprintf(format, args...)}
}

func (p *fieldProblem) String() string { return p.field + ": " + p.problem }

// validate checks one image; Parse reports the field it names.
func (im *Image) validate() *fieldProblem {
	t := im.Target
	if p := checkName("target backend", t.Backend, true); p != nil {
		return p
	}
	// An OpenCL device name, the architecture of its program binaries,
	// has spaces ("NVIDIA H100 80GB HBM3"): spaces inside are allowed.
	if p := checkName("target arch", strings.ReplaceAll(t.Arch, " ", "_"), true); p != nil {
		return p
	}
	if strings.TrimSpace(t.Arch) != t.Arch {
		return bad("target arch", "%q begins or ends with a space", t.Arch)
	}
	switch im.Format {
	case FormatOpenCLC:
		if t != (Target{Backend: BackendOpenCL}) {
			return bad("target", "OpenCL C source is for the opencl backend with no architecture, not %s", t)
		}
	case FormatCUDAC:
		if t != (Target{Backend: BackendCUDA}) {
			return bad("target", "CUDA C source is for the cuda backend with no architecture, not %s", t)
		}
	case FormatSPIRV:
		if t.Arch != "" || (t.Backend != "" && t.Backend != BackendOpenCL && t.Backend != BackendLevelZero) {
			return bad("target", "SPIR-V is for any backend, opencl or level_zero, with no architecture, not %s", t)
		}
	case FormatPTX:
		if _, ok := parseComputeArch(t.Arch, "compute_"); t.Backend != BackendCUDA || !ok {
			return bad("target", "PTX is for cuda:compute_XY, not %s", t)
		}
	case FormatNative:
		if t.Backend == "" || t.Arch == "" {
			return bad("target", "a native binary names its backend and architecture, not %s", t)
		}
		if _, ok := parseComputeArch(t.Arch, "sm_"); t.Backend == BackendCUDA && !ok {
			return bad("target", "a CUDA binary is for cuda:sm_XY, not %s", t)
		}
	default:
		return bad("format", "unknown format %d", uint8(im.Format))
	}
	if len(im.Kernels) == 0 {
		return bad("kernels", "no kernel")
	}
	for i, k := range im.Kernels {
		if p := checkName("kernel name", k, false); p != nil {
			return p
		}
		if i > 0 && im.Kernels[i-1] >= k {
			return bad("kernels", "%q after %q: not sorted or repeated", k, im.Kernels[i-1])
		}
	}
	p := &im.Properties
	if unknown := p.Aspects &^ allAspects; unknown != 0 {
		return bad("aspects", "unknown aspect bits %#x", uint64(unknown))
	}
	if len(p.SubGroupSizes) > maxSubGroupNs {
		return bad("sub-group sizes", "%d sizes, more than %d", len(p.SubGroupSizes), maxSubGroupNs)
	}
	for i, n := range p.SubGroupSizes {
		if n == 0 || n > maxSubGroup {
			return bad("sub-group sizes", "size %d out of range 1..%d", n, maxSubGroup)
		}
		if i > 0 && p.SubGroupSizes[i-1] >= n {
			return bad("sub-group sizes", "%d after %d: not sorted or repeated", n, p.SubGroupSizes[i-1])
		}
	}
	for i, sc := range p.SpecConstants {
		if i > 0 && p.SpecConstants[i-1].ID >= sc.ID {
			return bad("spec constants", "ID %d after %d: not sorted or repeated", sc.ID, p.SpecConstants[i-1].ID)
		}
		if p := checkName("spec constant name", sc.Name, true); p != nil {
			return p
		}
		if im.Format.source() && sc.Name == "" {
			return bad("spec constants", "ID %d has no name, which a source image needs for its -D definition", sc.ID)
		}
		if int(sc.Kind) >= len(specKindNames) {
			return bad("spec constants", "ID %d: unknown kind %d", sc.ID, uint8(sc.Kind))
		}
		if !sc.Kind.ValidSize(len(sc.Default)) {
			return bad("spec constants", "ID %d: a %d-byte default does not fit kind %s", sc.ID, len(sc.Default), sc.Kind)
		}
	}
	for _, o := range [...]struct{ name, v string }{{"compile options", p.CompileOptions}, {"link options", p.LinkOptions}} {
		if len(o.v) > maxOptions {
			return bad(o.name, "%d bytes, more than %d", len(o.v), maxOptions)
		}
		if strings.IndexByte(o.v, 0) >= 0 {
			return bad(o.name, "holds a NUL byte")
		}
	}
	if len(im.Code) == 0 {
		return bad("code", "empty")
	}
	if len(im.Code) > maxImageCode {
		return bad("code", "%d bytes, more than %d", len(im.Code), maxImageCode)
	}
	return nil
}

// checkName refuses names that are too long or hold control characters or
// spaces, which would break messages and option strings.
func checkName(field, s string, emptyOK bool) *fieldProblem {
	if s == "" && !emptyOK {
		return bad(field, "empty")
	}
	if len(s) > maxName {
		return bad(field, "%d bytes, more than %d", len(s), maxName)
	}
	for _, r := range s {
		if r <= ' ' || r == 0x7f || r == '\uFFFD' {
			return bad(field, "%q holds a space, control character or invalid UTF-8", s)
		}
	}
	return nil
}

// parseComputeArch reads "sm_90", "sm_90a" or "compute_80" (with prefix
// "sm_" or "compute_"): the compute capability times ten plus the minor
// version, and whether the architecture-specific suffix "a" is present.
func parseComputeArch(arch, prefix string) (cc cudaArch, ok bool) {
	s, found := strings.CutPrefix(arch, prefix)
	if !found {
		return cudaArch{}, false
	}
	specific := strings.HasSuffix(s, "a")
	s = strings.TrimSuffix(s, "a")
	if len(s) < 2 || len(s) > 4 {
		return cudaArch{}, false
	}
	n, err := strconv.Atoi(s)
	if err != nil || s[0] == '0' || s[0] == '+' || s[0] == '-' {
		return cudaArch{}, false
	}
	return cudaArch{major: n / 10, minor: n % 10, specific: specific}, true
}

// cudaArch is a compute capability: sm_90a is {9, 0, true}.
type cudaArch struct {
	major, minor int
	specific     bool
}

func (a cudaArch) number() int { return a.major*10 + a.minor }

// Checksum returns the SHA-256 of code, the checksum an image records.
func Checksum(code []byte) [32]byte { return sha256.Sum256(code) }

// canonical returns a copy of im in canonical order (kernels, sub-group
// sizes and spec constants sorted, repeats dropped, checksum filled in),
// which NewImage and the split functions use.
func canonical(im Image) Image {
	im.Kernels = slices.Compact(slices.Sorted(slices.Values(im.Kernels)))
	p := &im.Properties
	p.SubGroupSizes = slices.Compact(slices.Sorted(slices.Values(p.SubGroupSizes)))
	p.SpecConstants = slices.Clone(p.SpecConstants)
	slices.SortStableFunc(p.SpecConstants, func(a, b SpecConstant) int { return cmpUint32(a.ID, b.ID) })
	p.SpecConstants = slices.CompactFunc(p.SpecConstants, func(a, b SpecConstant) bool { return a.ID == b.ID })
	im.Checksum = Checksum(im.Code)
	return im
}

func cmpUint32(a, b uint32) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// NewImage puts im in canonical order (kernels, sub-group sizes and
// specialization constants sorted; repeated kernel names and sizes
// dropped; a repeated spec constant ID keeps its first declaration), fills
// in its checksum and validates it.
func NewImage(im Image) (Image, error) {
	im = canonical(im)
	if p := im.validate(); p != nil {
		return Image{}, errorf(ur.ErrInvalidValue, "bundle.NewImage", "%s", p)
	}
	return im, nil
}

// defaultsOnly reports whether values (spec constant ID → bytes) leave
// every constant of the image at its default, and if not, which does not.
func (p *Properties) defaultsOnly(values map[uint32][]byte) (nonDefault uint32, ok bool) {
	for id, v := range values {
		i, found := slices.BinarySearchFunc(p.SpecConstants, id, func(sc SpecConstant, id uint32) int { return cmpUint32(sc.ID, id) })
		if found && !bytes.Equal(p.SpecConstants[i].Default, v) {
			return id, false
		}
	}
	return 0, true
}

// String is "3 BLOCK uint32 = 256": the ID, the name (when it has one),
// the kind with its size in bits, and the default.
func (sc SpecConstant) String() string {
	s := strconv.FormatUint(uint64(sc.ID), 10)
	if sc.Name != "" {
		s += " " + sc.Name
	}
	kind := sc.Kind.String()
	if sc.Kind != SpecBool {
		kind += strconv.Itoa(8 * len(sc.Default))
	}
	return s + " " + kind + " = " + sc.Kind.Format(sc.Default)
}

// Format writes a value of the kind as text: "-3", "256", "0.5", "true";
// a size the kind does not allow gives the bytes in hex.
func (k SpecKind) Format(v []byte) string {
	if !k.ValidSize(len(v)) {
		return fmt.Sprintf("%#x", v)
	}
	var u uint64
	for i := len(v) - 1; i >= 0; i-- {
		u = u<<8 | uint64(v[i])
	}
	switch k {
	case SpecInt:
		shift := 64 - 8*len(v)
		return strconv.FormatInt(int64(u<<shift)>>shift, 10)
	case SpecUint:
		return strconv.FormatUint(u, 10)
	case SpecFloat:
		if len(v) == 4 {
			return strconv.FormatFloat(float64(math.Float32frombits(uint32(u))), 'g', -1, 32)
		}
		return strconv.FormatFloat(math.Float64frombits(u), 'g', -1, 64)
	}
	return strconv.FormatBool(u != 0)
}
