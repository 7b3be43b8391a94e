package programmgr

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"hash"
	"slices"
	"strings"

	"github.com/gour-dev/gour/bundle"
	"github.com/gour-dev/gour/ur"
)

// Format is the kind of code a device image holds.
type Format uint8

// Image formats.
const (
	// FormatOpenCLC is OpenCL C source, built by the OpenCL adapter.
	FormatOpenCLC Format = iota + 1
	// FormatCUDAC is CUDA C++ source, built by NVRTC in the CUDA adapter.
	FormatCUDAC
	// FormatSPIRV is SPIR-V intermediate language (OpenCL, Level Zero).
	FormatSPIRV
	// FormatPTX is PTX assembly, JIT-compiled by the CUDA driver.
	FormatPTX
	// FormatNative is a device binary (cubin, fatbin, an OpenCL program
	// binary, a Level Zero native binary), loaded as is.
	FormatNative
)

var formatNames = [...]string{"", "opencl-c", "cuda-c", "spir-v", "ptx", "native"}

// String names the format: "opencl-c", "cuda-c", "spir-v", "ptx", "native".
func (f Format) String() string {
	if int(f) < len(formatNames) && f != 0 {
		return formatNames[f]
	}
	return fmt.Sprintf("Format(%d)", uint8(f))
}

func (f Format) valid() bool { return f >= FormatOpenCLC && f <= FormatNative }

// source reports whether the format is source code, whose specialization
// constants become -D definitions at build time.
func (f Format) source() bool { return f == FormatOpenCLC || f == FormatCUDAC }

// SpecKind says how the bytes of a specialization constant are read when
// they must be written as text (a -D definition for a source image). All
// values are little-endian. It is the offload bundles' type
// (bundle.SpecKind), so that a bundle's images are program manager images
// as they are.
type SpecKind = bundle.SpecKind

// Specialization-constant kinds. The zero value, SpecInt, reads the bytes
// as a signed integer of the default's size, so an image that only gives
// sizes gets integers.
const (
	SpecInt   = bundle.SpecInt   // signed integer of 1, 2, 4 or 8 bytes
	SpecUint  = bundle.SpecUint  // unsigned integer of 1, 2, 4 or 8 bytes
	SpecFloat = bundle.SpecFloat // IEEE 754 float (4 bytes) or double (8 bytes)
	SpecBool  = bundle.SpecBool  // 1 byte; zero is false, anything else true
)

// SpecConstant declares one specialization constant of an image and its
// default value. ID is the SPIR-V SpecId (IL images); Name is the macro a
// source image uses (OpenCL C and CUDA C images get -DName=value); Default
// fixes the value's size. It is bundle.SpecConstant.
type SpecConstant = bundle.SpecConstant

// Requirements are device features an image needs.
type Requirements struct {
	FP64 bool // double precision (cl_khr_fp64, any CUDA device)
	FP16 bool // half precision (cl_khr_fp16)
}

// ImageDesc describes a device image. NewImage checks it and makes an
// immutable Image of it.
type ImageDesc struct {
	Format         Format
	Bytes          []byte   // source text, IL or binary
	KernelNames    []string // the kernels the image defines; empty = unknown
	SpecConstants  []SpecConstant
	CompileOptions string
	LinkOptions    string
	Requirements   Requirements
}

// ImageID is an image's content hash: SHA-256 over a versioned, canonical
// encoding of every field of the image. It is the same in every process,
// on every machine and with every Go version.
type ImageID [32]byte

// String is the ID in hex.
func (id ImageID) String() string { return hex.EncodeToString(id[:]) }

// Short is the first 12 hex digits, for logs.
func (id ImageID) Short() string { return hex.EncodeToString(id[:6]) }

// Image is a device image: the unit an application ships. It is immutable:
// NewImage copies what it is given, and the accessors return copies.
type Image struct {
	id       ImageID
	format   Format
	bytes    []byte
	kernels  []string // sorted, unique
	specs    []SpecConstant
	compile  string
	link     string
	requires Requirements
	// spirv, set only on the images the manager derives to compile
	// OpenCL C to SPIR-V (see viaSPIRV), says how.
	spirv *spirvPlan
}

// NewImage checks desc and returns the image it describes. A bad
// description gives an error carrying ur.ErrInvalidValue that says what is
// wrong.
func NewImage(desc ImageDesc) (*Image, error) {
	const op = "programmgr.NewImage"
	bad := func(format string, args ...any) (*Image, error) {
		return nil, newError(ur.ErrInvalidValue, op, format, args...)
	}
	if !desc.Format.valid() {
		return bad("unknown image format %d", uint8(desc.Format))
	}
	if len(desc.Bytes) == 0 {
		return bad("%s image has no bytes", desc.Format)
	}
	img := &Image{
		format:   desc.Format,
		bytes:    bytes.Clone(desc.Bytes),
		compile:  desc.CompileOptions,
		link:     desc.LinkOptions,
		requires: desc.Requirements,
	}
	for _, name := range desc.KernelNames {
		if name == "" || strings.IndexByte(name, 0) >= 0 {
			return bad("kernel name %q is empty or holds a NUL byte", name)
		}
	}
	img.kernels = slices.Compact(slices.Sorted(slices.Values(desc.KernelNames)))
	img.specs = make([]SpecConstant, 0, len(desc.SpecConstants))
	for _, sc := range desc.SpecConstants {
		if !sc.Kind.ValidSize(len(sc.Default)) {
			return bad("spec constant %d (%s): a %s cannot have a %d-byte default", sc.ID, sc.Name, sc.Kind, len(sc.Default))
		}
		if desc.Format.source() && !isIdentifier(sc.Name) {
			return bad("spec constant %d of a %s image needs a C identifier as its name, not %q", sc.ID, desc.Format, sc.Name)
		}
		if sc.Name != "" && !isIdentifier(sc.Name) {
			return bad("spec constant %d: name %q is not an identifier", sc.ID, sc.Name)
		}
		for _, o := range img.specs {
			if o.ID == sc.ID {
				return bad("spec constant ID %d is declared twice", sc.ID)
			}
			if sc.Name != "" && o.Name == sc.Name {
				return bad("spec constant name %q is declared twice", sc.Name)
			}
		}
		sc.Default = bytes.Clone(sc.Default)
		img.specs = append(img.specs, sc)
	}
	slices.SortFunc(img.specs, func(a, b SpecConstant) int { return int64Cmp(int64(a.ID), int64(b.ID)) })
	h := sha256.New()
	img.encode(h)
	h.Sum(img.id[:0])
	return img, nil
}

func int64Cmp(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func isIdentifier(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		letter := r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z'
		if !letter && (i == 0 || r < '0' || r > '9') {
			return false
		}
	}
	return true
}

// imageEncodingVersion numbers the canonical encoding hashed into an
// ImageID. Changing the encoding must change the version, so that IDs of
// different encodings never meet (the persistent cache keys on them).
const imageEncodingVersion = 1

// encode writes the canonical encoding: a domain tag, the version, then
// every field in a fixed order, integers little-endian, byte strings
// prefixed with their 64-bit length, lists with their 32-bit count, kernel
// names sorted and unique, spec constants sorted by ID.
func (img *Image) encode(h hash.Hash) {
	var buf [8]byte
	u8 := func(v uint8) { h.Write([]byte{v}) }
	u32 := func(v uint32) { binary.LittleEndian.PutUint32(buf[:4], v); h.Write(buf[:4]) }
	u64 := func(v uint64) { binary.LittleEndian.PutUint64(buf[:], v); h.Write(buf[:]) }
	field := func(b []byte) { u64(uint64(len(b))); h.Write(b) }
	str := func(s string) { field([]byte(s)) }

	h.Write([]byte("gour/programmgr/image\x00"))
	u32(imageEncodingVersion)
	u8(uint8(img.format))
	field(img.bytes)
	u32(uint32(len(img.kernels)))
	for _, k := range img.kernels {
		str(k)
	}
	u32(uint32(len(img.specs)))
	for _, sc := range img.specs {
		u32(sc.ID)
		str(sc.Name)
		u8(uint8(sc.Kind))
		field(sc.Default)
	}
	str(img.compile)
	str(img.link)
	var req uint64
	if img.requires.FP64 {
		req |= 1
	}
	if img.requires.FP16 {
		req |= 2
	}
	u64(req)
}

// ID is the image's content hash.
func (img *Image) ID() ImageID { return img.id }

// Format is the kind of code the image holds.
func (img *Image) Format() Format { return img.format }

// Bytes returns a copy of the image's code.
func (img *Image) Bytes() []byte { return bytes.Clone(img.bytes) }

// KernelNames returns the kernels the image defines, sorted; nil when the
// image did not say.
func (img *Image) KernelNames() []string { return slices.Clone(img.kernels) }

// SpecConstants returns the image's specialization constants, sorted by ID.
func (img *Image) SpecConstants() []SpecConstant {
	out := slices.Clone(img.specs)
	for i := range out {
		out[i].Default = bytes.Clone(out[i].Default)
	}
	return out
}

// CompileOptions are the image's own compile options.
func (img *Image) CompileOptions() string { return img.compile }

// LinkOptions are the image's own link options.
func (img *Image) LinkOptions() string { return img.link }

// Requirements are the device features the image needs.
func (img *Image) Requirements() Requirements { return img.requires }

// Desc returns a description equal to the image's, to derive a new image
// from it.
func (img *Image) Desc() ImageDesc {
	return ImageDesc{
		Format:         img.format,
		Bytes:          img.Bytes(),
		KernelNames:    img.KernelNames(),
		SpecConstants:  img.SpecConstants(),
		CompileOptions: img.compile,
		LinkOptions:    img.link,
		Requirements:   img.requires,
	}
}

// hasKernel reports whether the image may define name: true when the image
// lists no kernel names.
func (img *Image) hasKernel(name string) bool {
	if len(img.kernels) == 0 {
		return true
	}
	_, found := slices.BinarySearch(img.kernels, name)
	return found
}

// specConstant returns the declaration of spec constant id.
func (img *Image) specConstant(id uint32) (*SpecConstant, bool) {
	i, found := slices.BinarySearchFunc(img.specs, id, func(sc SpecConstant, id uint32) int {
		return int64Cmp(int64(sc.ID), int64(id))
	})
	if !found {
		return nil, false
	}
	return &img.specs[i], true
}
