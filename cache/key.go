package cache

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"slices"
	"strings"
)

// DeviceKey names the device a binary was built for. Every field is part
// of the key: a new driver version, for instance, is a different device,
// so a driver upgrade never meets the binaries of the old driver.
type DeviceKey struct {
	Backend  string // the adapter: "opencl", "cuda", "level_zero"
	Platform string // the platform's name
	Name     string // the device's name
	Version  string // the device version (e.g. "OpenCL 3.0 PoCL ...", "CUDA 9.0")
	Driver   string // the driver version
}

// Key is everything a built binary depends on. Two keys are the same
// entry exactly when every field is equal (Spec compares as bytes, a nil
// and an empty Spec or Images are equal).
type Key struct {
	Device DeviceKey
	// Images are the IDs of the device images the program was built from,
	// in the order they were given to the build or link: the caller's
	// stable content hashes.
	Images [][32]byte
	// Spec holds the specialization-constant values of the build in a
	// canonical encoding of the caller's choosing (opaque bytes).
	Spec []byte
	// CompileOptions and LinkOptions are the final options of the build,
	// already combined by the caller (image options, environment, API).
	// Drivers take them as C strings, so neither may hold a NUL byte: a
	// key whose options do is not cacheable.
	CompileOptions, LinkOptions string
}

// Equal reports whether k and o are the same key.
func (k Key) Equal(o Key) bool {
	return k.Device == o.Device && bytes.Equal(k.Spec, o.Spec) &&
		k.CompileOptions == o.CompileOptions && k.LinkOptions == o.LinkOptions &&
		slices.Equal(k.Images, o.Images)
}

// optionSep separates the compile from the link options in the key's
// encoding; options never hold it (see Key).
const optionSep = "\x00"

// options is the encoding of the two option strings: compile options,
// NUL, link options — unambiguous because neither holds a NUL.
func (k Key) options() string { return k.CompileOptions + optionSep + k.LinkOptions }

// validOptions reports whether the option strings can be encoded.
func (k Key) validOptions() bool {
	return !strings.Contains(k.CompileOptions, optionSep) && !strings.Contains(k.LinkOptions, optionSep)
}

// splitOptions decodes options; ok is false when s is not an encoding
// made by options.
func splitOptions(s string) (compile, link string, ok bool) {
	compile, link, ok = strings.Cut(s, optionSep)
	return compile, link, ok && !strings.Contains(link, optionSep)
}

// Info describes an entry; it is stored beside the key for listings
// (urcache ls) and is not part of the key.
type Info struct {
	Format    string   // the binary's format, e.g. "cubin", "native"
	Kernels   []string // kernel names the binary defines
	ImageSize int64    // size of the device image(s) the binary was built from, in bytes
}

// hashFunc maps a domain-tagged canonical encoding to a directory name.
// Tests replace it to force collisions.
type hashFunc func(data []byte) [32]byte

func sha256Hash(data []byte) [32]byte { return sha256.Sum256(data) }

// Domain tags keep the four directory hashes apart.
const (
	tagDevice  = "gour.cache.v1.device\x00"
	tagImages  = "gour.cache.v1.images\x00"
	tagSpec    = "gour.cache.v1.spec\x00"
	tagOptions = "gour.cache.v1.options\x00"
)

// appendString appends a 32-bit little-endian length and the bytes.
func appendString(b []byte, s string) []byte {
	b = binary.LittleEndian.AppendUint32(b, uint32(len(s)))
	return append(b, s...)
}

func appendBytes(b []byte, s []byte) []byte {
	b = binary.LittleEndian.AppendUint32(b, uint32(len(s)))
	return append(b, s...)
}

func appendDevice(b []byte, d DeviceKey) []byte {
	for _, s := range [...]string{d.Backend, d.Platform, d.Name, d.Version, d.Driver} {
		b = appendString(b, s)
	}
	return b
}

func appendImages(b []byte, ids [][32]byte) []byte {
	b = binary.LittleEndian.AppendUint32(b, uint32(len(ids)))
	for _, id := range ids {
		b = append(b, id[:]...)
	}
	return b
}

// deviceDir is the directory name of a device: hex SHA-256 of its
// canonical encoding. urcache uses it to group entries.
func deviceDir(h hashFunc, d DeviceKey) string {
	return hexHash(h, appendDevice([]byte(tagDevice), d))
}

// leafRel returns the four directory names of a key, below the format
// version directory.
func leafRel(h hashFunc, k Key) [4]string {
	return [4]string{
		deviceDir(h, k.Device),
		hexHash(h, appendImages([]byte(tagImages), k.Images)),
		hexHash(h, appendBytes([]byte(tagSpec), k.Spec)),
		hexHash(h, appendString([]byte(tagOptions), k.options())),
	}
}

func hexHash(h hashFunc, data []byte) string {
	sum := h(data)
	return hex.EncodeToString(sum[:])
}

// isHashName reports whether name can be a directory name made by
// hexHash: 64 lower-case hex digits.
func isHashName(name string) bool {
	if len(name) != 2*sha256.Size {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}
