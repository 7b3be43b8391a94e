package cache

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"time"
)

// On-disk format, version 1. Every file the cache writes for an entry
// starts with a 24-byte header:
//
//	offset  size  field
//	0       8     magic "\x89gour\r\n\x1a"
//	8       1     kind: 'S' (.src), 'B' (.bin) or 'U' (.use)
//	9       1     format version (1)
//	10      2     reserved, zero
//	12      4     CRC-32C (Castagnoli) of the payload, little-endian
//	16      8     payload length in bytes, little-endian; the file is exactly header + payload
//
// The .use payload is the entry's last use in Unix nanoseconds (8 bytes).
// The .bin payload is the entry's 16-byte nonce followed by the binary.
// The .src payload is, with u32/u64/i64 little-endian and str/bytes a
// u32 length followed by that many bytes:
//
//	nonce     [16]byte  random, the same as in the .bin: ties the two files together
//	created   i64       Unix nanoseconds when the entry was written
//	binLen    u64       length of the binary
//	binCRC    u32       CRC-32C of the .bin payload
//	device    5 × str   backend, platform, name, version, driver
//	images    u32 n, then n × [32]byte
//	spec      bytes
//	options   str       compile options, a NUL byte, link options (neither holds a NUL)
//	format    str
//	kernels   u32 n, then n × str
//	imageSize i64
//
// Nothing may follow. A reader checks every length against what is left
// before it allocates, so no file can make it allocate more than its own
// size or panic.
const (
	formatVersion = 1
	versionDir    = "v1" // <root>/<format-version>
	headerSize    = 24
	nonceSize     = 16

	kindSrc = 'S'
	kindBin = 'B'
	kindUse = 'U'

	// maxSrcPayload bounds a .src file: keys with more than this (huge
	// option strings or spec data) are not cached.
	maxSrcPayload = 16 << 20
	// maxBinPayload bounds a .bin file.
	maxBinPayload = 2 << 30
)

const magic = "\x89gour\r\n\x1a"

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// errBadFile says a file is not a valid cache file; the reason follows.
var errBadFile = errors.New("not a valid cache file")

func badf(format string, args ...any) error {
	return fmt.Errorf("%w: %s", errBadFile, fmt.Sprintf(format, args...))
}

// header builds the 24-byte header of a payload.
func header(kind byte, payload []byte) []byte {
	h := make([]byte, headerSize)
	copy(h, magic)
	h[8] = kind
	h[9] = formatVersion
	binary.LittleEndian.PutUint32(h[12:], crc32.Checksum(payload, castagnoli))
	binary.LittleEndian.PutUint64(h[16:], uint64(len(payload)))
	return h
}

// decodeFile checks the header of a whole file and returns its payload.
func decodeFile(b []byte, kind byte, maxPayload int) ([]byte, error) {
	if len(b) < headerSize {
		return nil, badf("%d bytes, shorter than the header", len(b))
	}
	if string(b[:8]) != magic {
		return nil, badf("bad magic")
	}
	if b[8] != kind {
		return nil, badf("kind %q, want %q", b[8], kind)
	}
	if b[9] != formatVersion {
		return nil, badf("format version %d, want %d", b[9], formatVersion)
	}
	if b[10] != 0 || b[11] != 0 {
		return nil, badf("reserved header bytes are not zero")
	}
	n := binary.LittleEndian.Uint64(b[16:])
	if n > uint64(maxPayload) || n != uint64(len(b)-headerSize) {
		return nil, badf("payload length %d, file holds %d", n, len(b)-headerSize)
	}
	p := b[headerSize:]
	if crc32.Checksum(p, castagnoli) != binary.LittleEndian.Uint32(b[12:]) {
		return nil, badf("checksum mismatch")
	}
	return p, nil
}

// srcRecord is the decoded payload of a .src file.
type srcRecord struct {
	Nonce   [nonceSize]byte
	Created time.Time
	BinLen  uint64
	BinCRC  uint32
	Key     Key
	Info    Info
}

// encodeSrc returns the whole .src file of r.
func encodeSrc(r *srcRecord) []byte {
	p := make([]byte, 0, 256+len(r.Key.Spec)+len(r.Key.CompileOptions)+len(r.Key.LinkOptions))
	p = append(p, r.Nonce[:]...)
	p = binary.LittleEndian.AppendUint64(p, uint64(r.Created.UnixNano()))
	p = binary.LittleEndian.AppendUint64(p, r.BinLen)
	p = binary.LittleEndian.AppendUint32(p, r.BinCRC)
	p = appendDevice(p, r.Key.Device)
	p = appendImages(p, r.Key.Images)
	p = appendBytes(p, r.Key.Spec)
	p = appendString(p, r.Key.options())
	p = appendString(p, r.Info.Format)
	p = binary.LittleEndian.AppendUint32(p, uint32(len(r.Info.Kernels)))
	for _, k := range r.Info.Kernels {
		p = appendString(p, k)
	}
	p = binary.LittleEndian.AppendUint64(p, uint64(r.Info.ImageSize))
	return append(header(kindSrc, p), p...)
}

// srcSize is the size encodeSrc would produce, without building it.
func srcSize(k Key, info Info) int {
	n := headerSize + nonceSize + 8 + 8 + 4
	d := k.Device
	n += 5*4 + len(d.Backend) + len(d.Platform) + len(d.Name) + len(d.Version) + len(d.Driver)
	n += 4 + 32*len(k.Images) + 4 + len(k.Spec) + 4 + len(k.CompileOptions) + 1 + len(k.LinkOptions) + 4 + len(info.Format) + 4
	for _, s := range info.Kernels {
		n += 4 + len(s)
	}
	return n + 8
}

// decodeSrc reads a whole .src file.
func decodeSrc(b []byte) (*srcRecord, error) {
	p, err := decodeFile(b, kindSrc, maxSrcPayload)
	if err != nil {
		return nil, err
	}
	d := decoder{b: p}
	r := &srcRecord{}
	copy(r.Nonce[:], d.next(nonceSize))
	r.Created = time.Unix(0, int64(d.u64()))
	r.BinLen = d.u64()
	r.BinCRC = d.u32()
	dev := &r.Key.Device
	for _, s := range [...]*string{&dev.Backend, &dev.Platform, &dev.Name, &dev.Version, &dev.Driver} {
		*s = d.str()
	}
	if n := d.count(32); n > 0 {
		r.Key.Images = make([][32]byte, n)
		for i := range r.Key.Images {
			copy(r.Key.Images[i][:], d.next(32))
		}
	}
	if s := d.bytes(); len(s) > 0 {
		r.Key.Spec = s
	}
	var ok bool
	if r.Key.CompileOptions, r.Key.LinkOptions, ok = splitOptions(d.str()); !ok && d.err == nil {
		return nil, badf("options are not compile options, NUL, link options")
	}
	r.Info.Format = d.str()
	if n := d.count(4); n > 0 {
		r.Info.Kernels = make([]string, n)
		for i := range r.Info.Kernels {
			r.Info.Kernels[i] = d.str()
		}
	}
	r.Info.ImageSize = int64(d.u64())
	if d.err != nil {
		return nil, d.err
	}
	if len(d.b) != 0 {
		return nil, badf("%d bytes after the record", len(d.b))
	}
	if r.BinLen > maxBinPayload-nonceSize {
		return nil, badf("binary length %d too large", r.BinLen)
	}
	return r, nil
}

// encodeBin returns the whole .bin file of a binary.
func encodeBin(nonce [nonceSize]byte, bin []byte) []byte {
	p := make([]byte, 0, headerSize+nonceSize+len(bin))
	p = append(p, make([]byte, headerSize)...)
	p = append(p, nonce[:]...)
	p = append(p, bin...)
	copy(p, header(kindBin, p[headerSize:]))
	return p
}

// decodeBin reads a whole .bin file: the nonce, the binary (aliasing b)
// and the payload checksum.
func decodeBin(b []byte) (nonce [nonceSize]byte, bin []byte, crc uint32, err error) {
	p, err := decodeFile(b, kindBin, maxBinPayload)
	if err != nil {
		return nonce, nil, 0, err
	}
	if len(p) < nonceSize {
		return nonce, nil, 0, badf("binary payload shorter than its nonce")
	}
	copy(nonce[:], p)
	return nonce, p[nonceSize:], binary.LittleEndian.Uint32(b[12:]), nil
}

// decoder reads the fields of a payload; the first error sticks and every
// later read returns zero values.
type decoder struct {
	b   []byte
	err error
}

func (d *decoder) next(n int) []byte {
	if d.err != nil {
		return nil
	}
	if n < 0 || n > len(d.b) {
		d.err = badf("truncated record")
		return nil
	}
	s := d.b[:n:n]
	d.b = d.b[n:]
	return s
}

func (d *decoder) u32() uint32 {
	if s := d.next(4); s != nil {
		return binary.LittleEndian.Uint32(s)
	}
	return 0
}

func (d *decoder) u64() uint64 {
	if s := d.next(8); s != nil {
		return binary.LittleEndian.Uint64(s)
	}
	return 0
}

// count reads an element count and checks that that many elements of at
// least minSize bytes each can follow.
func (d *decoder) count(minSize int) int {
	n := d.u32()
	if d.err != nil {
		return 0
	}
	if uint64(n)*uint64(minSize) > uint64(len(d.b)) {
		d.err = badf("count %d exceeds the record", n)
		return 0
	}
	return int(n)
}

func (d *decoder) bytes() []byte {
	n := d.u32()
	if d.err != nil {
		return nil
	}
	if uint64(n) > uint64(len(d.b)) {
		d.err = badf("length %d exceeds the record", n)
		return nil
	}
	return d.next(int(n))
}

func (d *decoder) str() string { return string(d.bytes()) }
