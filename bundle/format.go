package bundle

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io/fs"

	"github.com/gour-dev/gour/ur"
)

// The layout is documented byte by byte in doc.go; keep the two together.
const (
	magic         = "\x89URB\r\n\x1a\n"
	formatVersion = 1
	headerSize    = 32
	checksumSize  = 32
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// FormatError says what is wrong with the bytes given to Parse: where
// (the byte offset from the start of the bundle, the image and the field)
// and what. Parse returns it inside a *ur.Error carrying
// ur.ErrInvalidBinary, or ur.ErrUnsupportedVersion for a bundle written by
// a later version of the format.
type FormatError struct {
	Offset  int64  // where the field starts
	Image   int    // the image whose record holds the field; -1 for the header
	Field   string // "magic", "version", "kernels", "checksum", ...
	Problem string
}

func (e *FormatError) Error() string {
	where := "header"
	if e.Image >= 0 {
		where = fmt.Sprintf("image %d", e.Image)
	}
	return fmt.Sprintf("offset %d (%s, %s): %s", e.Offset, where, e.Field, e.Problem)
}

// Marshal returns the bundle in the bundle format. The output depends only
// on the images, in their order: the same bundle gives the same bytes.
// Each image's checksum is computed from its code. An invalid bundle (see
// Validate) is an error carrying ur.ErrInvalidValue.
func (b *Bundle) Marshal() ([]byte, error) {
	if err := b.Validate(); err != nil {
		err.(*ur.Error).Op = "bundle.Marshal"
		return nil, err
	}
	size := headerSize
	for i := range b.Images {
		size += recordSize(&b.Images[i])
	}
	out := make([]byte, headerSize, size)
	copy(out, magic)
	binary.LittleEndian.PutUint16(out[8:], formatVersion)
	binary.LittleEndian.PutUint32(out[12:], uint32(len(b.Images)))
	binary.LittleEndian.PutUint64(out[16:], uint64(size))
	for i := range b.Images {
		out = appendRecord(out, &b.Images[i])
	}
	binary.LittleEndian.PutUint32(out[24:], crc32.Checksum(out[headerSize:], castagnoli))
	return out, nil
}

// recordSize is the size of an image's record, its length prefix included.
func recordSize(im *Image) int {
	p := &im.Properties
	n := 4 + 1 + 4 + len(im.Target.Backend) + 4 + len(im.Target.Arch) + 4
	for _, k := range im.Kernels {
		n += 4 + len(k)
	}
	n += 8 + 4 + 4*len(p.SubGroupSizes) + 4
	for _, sc := range p.SpecConstants {
		n += 4 + 1 + 4 + len(sc.Name) + 4 + len(sc.Default)
	}
	n += 4 + len(p.CompileOptions) + 4 + len(p.LinkOptions)
	return n + checksumSize + 8 + len(im.Code)
}

func appendRecord(b []byte, im *Image) []byte {
	p := &im.Properties
	b = binary.LittleEndian.AppendUint32(b, uint32(recordSize(im)-4))
	b = append(b, byte(im.Format))
	b = appendString(b, im.Target.Backend)
	b = appendString(b, im.Target.Arch)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(im.Kernels)))
	for _, k := range im.Kernels {
		b = appendString(b, k)
	}
	b = binary.LittleEndian.AppendUint64(b, uint64(p.Aspects))
	b = binary.LittleEndian.AppendUint32(b, uint32(len(p.SubGroupSizes)))
	for _, n := range p.SubGroupSizes {
		b = binary.LittleEndian.AppendUint32(b, n)
	}
	b = binary.LittleEndian.AppendUint32(b, uint32(len(p.SpecConstants)))
	for _, sc := range p.SpecConstants {
		b = binary.LittleEndian.AppendUint32(b, sc.ID)
		b = append(b, byte(sc.Kind))
		b = appendString(b, sc.Name)
		b = appendString(b, string(sc.Default))
	}
	b = appendString(b, p.CompileOptions)
	b = appendString(b, p.LinkOptions)
	sum := Checksum(im.Code)
	b = append(b, sum[:]...)
	b = binary.LittleEndian.AppendUint64(b, uint64(len(im.Code)))
	return append(b, im.Code...)
}

func appendString(b []byte, s string) []byte {
	b = binary.LittleEndian.AppendUint32(b, uint32(len(s)))
	return append(b, s...)
}

// Parse reads a bundle. It checks everything: the header, the CRC-32C of
// the whole bundle, every length against what is left, each image's
// fields and its SHA-256; it never allocates more than the input's size
// and never panics. The images' Code aliases data, which must not change
// while the bundle is in use.
//
// A bad bundle is a *ur.Error carrying ur.ErrInvalidBinary (a truncated,
// corrupted or malformed bundle) or ur.ErrUnsupportedVersion (one written
// by a later format version), wrapping a *FormatError that gives the
// offset, image and field.
func Parse(data []byte) (*Bundle, error) {
	const op = "bundle.Parse"
	b, fe := parse(data)
	if fe == nil {
		return b, nil
	}
	code := ur.ErrInvalidBinary
	if fe.Field == "version" && fe.Image < 0 && data[8] > formatVersion {
		code = ur.ErrUnsupportedVersion
	}
	return nil, &ur.Error{Result: code, Op: op, Message: "not a valid bundle: " + fe.Error(), Err: fe}
}

// ReadFS reads and parses the bundle at name in fsys: with an embed.FS,
//
//	//go:embed kernels.urb
//	var files embed.FS
//	b, err := bundle.ReadFS(files, "kernels.urb")
//
// is all it takes to load an embedded bundle. (A //go:embed []byte
// variable goes to Parse directly.)
func ReadFS(fsys fs.FS, name string) (*Bundle, error) {
	data, err := fs.ReadFile(fsys, name)
	if err != nil {
		return nil, &ur.Error{Result: ur.ErrInvalidValue, Op: "bundle.ReadFS", Message: err.Error(), Err: err}
	}
	return Parse(data)
}

func parse(data []byte) (*Bundle, *FormatError) {
	header := func(off int64, field, format string, args ...any) *FormatError {
		return &FormatError{Offset: off, Image: -1, Field: field, Problem: fmt.Sprintf(format, args...)}
	}
	if len(data) < headerSize {
		n := min(len(data), len(magic))
		if !bytes.Equal(data[:n], []byte(magic)[:n]) {
			return nil, header(0, "magic", "not a bundle (the file does not start with the bundle magic)")
		}
		return nil, header(int64(len(data)), "header", "truncated: %d bytes, shorter than the %d-byte header", len(data), headerSize)
	}
	if string(data[:8]) != magic {
		return nil, header(0, "magic", "not a bundle (the file does not start with the bundle magic)")
	}
	if v := binary.LittleEndian.Uint16(data[8:]); v != formatVersion {
		if v > formatVersion {
			return nil, header(8, "version", "format version %d is newer than this reader's (%d): update gour", v, formatVersion)
		}
		return nil, header(8, "version", "unknown format version %d (this reader reads %d)", v, formatVersion)
	}
	if f := binary.LittleEndian.Uint16(data[10:]); f != 0 {
		return nil, header(10, "flags", "unknown flags %#04x", f)
	}
	if r := binary.LittleEndian.Uint32(data[28:]); r != 0 {
		return nil, header(28, "reserved", "reserved bytes are not zero")
	}
	if n := binary.LittleEndian.Uint64(data[16:]); n != uint64(len(data)) {
		if n > uint64(len(data)) {
			return nil, header(16, "length", "truncated: the header says %d bytes, %d are here", n, len(data))
		}
		return nil, header(16, "length", "the header says %d bytes, %d are here: trailing bytes", n, len(data))
	}
	if got, want := crc32.Checksum(data[headerSize:], castagnoli), binary.LittleEndian.Uint32(data[24:]); got != want {
		return nil, header(24, "checksum", "CRC-32C of the contents is %#08x, the header says %#08x: the bundle is corrupted", got, want)
	}
	count := binary.LittleEndian.Uint32(data[12:])
	// Each record takes at least minRecord bytes, which bounds the
	// allocation below by the input's size.
	const minRecord = 4 + 1 + 4 + 4 + 4 + 8 + 4 + 4 + 4 + 4 + checksumSize + 8
	if count == 0 {
		return nil, header(12, "image count", "no image")
	}
	if uint64(count)*minRecord > uint64(len(data)-headerSize) || count > maxImages {
		return nil, header(12, "image count", "%d images cannot fit in %d bytes", count, len(data)-headerSize)
	}
	b := &Bundle{Images: make([]Image, count)}
	d := &decoder{data: data, off: headerSize}
	for i := range b.Images {
		d.image = i
		if fe := d.record(&b.Images[i]); fe != nil {
			return nil, fe
		}
	}
	if d.off != len(data) {
		return nil, &FormatError{Offset: int64(d.off), Image: -1, Field: "end", Problem: fmt.Sprintf("%d bytes after the last image", len(data)-d.off)}
	}
	return b, nil
}

// decoder reads the fields of image records; the first error sticks.
type decoder struct {
	data  []byte
	off   int // the next byte to read
	end   int // the end of the current record
	image int
	err   *FormatError
}

func (d *decoder) fail(off int, field, format string, args ...any) {
	if d.err == nil {
		d.err = &FormatError{Offset: int64(off), Image: d.image, Field: field, Problem: fmt.Sprintf(format, args...)}
	}
}

// next returns the next n bytes of the record, or nil (and an error naming
// field) when the record has fewer.
func (d *decoder) next(n uint64, field string) []byte {
	if d.err != nil {
		return nil
	}
	if n > uint64(d.end-d.off) {
		d.fail(d.off, field, "truncated: %d bytes needed, %d left in the record", n, d.end-d.off)
		return nil
	}
	s := d.data[d.off : d.off+int(n) : d.off+int(n)]
	d.off += int(n)
	return s
}

func (d *decoder) u32(field string) uint32 {
	if s := d.next(4, field); s != nil {
		return binary.LittleEndian.Uint32(s)
	}
	return 0
}

func (d *decoder) u64(field string) uint64 {
	if s := d.next(8, field); s != nil {
		return binary.LittleEndian.Uint64(s)
	}
	return 0
}

// count reads an element count and checks that that many elements of at
// least minSize bytes can follow.
func (d *decoder) count(field string, minSize, limit int) int {
	at := d.off
	n := d.u32(field)
	if d.err != nil {
		return 0
	}
	if n > uint32(limit) || uint64(n)*uint64(minSize) > uint64(d.end-d.off) {
		d.fail(at, field, "count %d does not fit the record", n)
		return 0
	}
	return int(n)
}

func (d *decoder) str(field string, limit int) string {
	at := d.off
	n := d.u32(field)
	if d.err == nil && n > uint32(limit) {
		d.fail(at, field, "length %d, more than %d", n, limit)
	}
	return string(d.next(uint64(n), field))
}

// record reads one image record into im.
func (d *decoder) record(im *Image) *FormatError {
	start := d.off
	d.end = len(d.data)
	n := d.u32("record length")
	if d.err != nil {
		return d.err
	}
	if uint64(n) > uint64(len(d.data)-d.off) {
		d.fail(start, "record length", "truncated: the record says %d bytes, %d are left", n, len(d.data)-d.off)
		return d.err
	}
	d.end = d.off + int(n)
	at := d.off
	f := d.next(1, "format")
	if d.err != nil {
		return d.err
	}
	if im.Format = Format(f[0]); !im.Format.valid() {
		d.fail(at, "format", "unknown format %d", uint8(im.Format))
		return d.err
	}
	targetAt := d.off
	im.Target.Backend = d.str("target backend", maxName)
	im.Target.Arch = d.str("target arch", maxName)
	kernelsAt := d.off
	if k := d.count("kernels", 4, maxImageCode); k > 0 {
		im.Kernels = make([]string, k)
		for i := range im.Kernels {
			im.Kernels[i] = d.str("kernels", maxName)
		}
	}
	p := &im.Properties
	aspectsAt := d.off
	p.Aspects = Aspects(d.u64("aspects"))
	sgAt := d.off
	if k := d.count("sub-group sizes", 4, maxSubGroupNs); k > 0 {
		p.SubGroupSizes = make([]uint32, k)
		for i := range p.SubGroupSizes {
			p.SubGroupSizes[i] = d.u32("sub-group sizes")
		}
	}
	specAt := d.off
	if k := d.count("spec constants", 4+1+4+4, maxImageCode); k > 0 {
		p.SpecConstants = make([]SpecConstant, k)
		for i := range p.SpecConstants {
			sc := &p.SpecConstants[i]
			sc.ID = d.u32("spec constants")
			if s := d.next(1, "spec constants"); s != nil {
				sc.Kind = SpecKind(s[0])
			}
			sc.Name = d.str("spec constants", maxName)
			sc.Default = []byte(d.str("spec constants", maxSpecValue))
		}
	}
	optionsAt := d.off
	p.CompileOptions = d.str("compile options", maxOptions)
	p.LinkOptions = d.str("link options", maxOptions)
	sumAt := d.off
	copy(im.Checksum[:], d.next(checksumSize, "checksum"))
	codeAt := d.off
	im.Code = d.next(d.u64("code"), "code")
	if d.err != nil {
		return d.err
	}
	if d.off != d.end {
		d.fail(d.off, "record length", "%d bytes left in the record after the code", d.end-d.off)
		return d.err
	}
	if p := im.validate(); p != nil {
		// Point at the field the problem is in.
		off := map[string]int{
			"target": targetAt, "target backend": targetAt, "target arch": targetAt,
			"kernels": kernelsAt, "kernel name": kernelsAt, "aspects": aspectsAt,
			"sub-group sizes": sgAt, "spec constants": specAt, "spec constant name": specAt,
			"compile options": optionsAt, "link options": optionsAt, "code": codeAt, "format": at,
		}[p.field]
		d.fail(off, p.field, "%s", p.problem)
		return d.err
	}
	if Checksum(im.Code) != im.Checksum {
		d.fail(sumAt, "checksum", "the SHA-256 of the %d-byte code does not match the one recorded: the image is corrupted", len(im.Code))
	}
	return d.err
}
