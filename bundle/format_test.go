package bundle

import (
	"bytes"
	"encoding/binary"
	"errors"
	"flag"
	"hash/crc32"
	"os"
	"reflect"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/gour-dev/gour/ur"
)

var update = flag.Bool("update", false, "rewrite testdata/sample.urb")

func TestMarshalRoundTrip(t *testing.T) {
	b := sampleBundle(t)
	data, err := b.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	got, err := Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, b) {
		t.Errorf("Parse(Marshal(b)) differs from b")
	}
	again, err := got.Marshal()
	if err != nil || !bytes.Equal(again, data) {
		t.Errorf("Marshal(Parse(data)) differs from data (%v)", err)
	}
}

// TestMarshalDeterministic: the same inputs give the same bytes, in this
// process (a bundle built twice) and across versions of the code (the
// committed sample.urb).
func TestMarshalDeterministic(t *testing.T) {
	first, err := sampleBundle(t).Marshal()
	if err != nil {
		t.Fatal(err)
	}
	second, err := sampleBundle(t).Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(first, second) {
		t.Fatal("two bundles built from the same inputs differ")
	}
	if *update {
		if err := os.WriteFile("testdata/sample.urb", first, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	golden := readFile(t, "testdata/sample.urb")
	if !bytes.Equal(first, golden) {
		t.Errorf("the sample bundle is not testdata/sample.urb byte for byte (%d and %d bytes): the format changed? go test -run TestMarshalDeterministic -update rewrites it", len(first), len(golden))
	}
}

func TestReadFS(t *testing.T) {
	data := readFile(t, "testdata/sample.urb")
	b, err := ReadFS(fstest.MapFS{"k.urb": {Data: data}}, "k.urb")
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Images) != 9 || !slicesEqual(b.Kernels(), []string{"add_one", "axpy", "axpy_f64", "fill_u32", "group_sum", "index2d", "index3d", "iota", "local_ids", "scalars", "scale"}) {
		t.Errorf("ReadFS: %d images, kernels %v", len(b.Images), b.Kernels())
	}
	if _, err := ReadFS(fstest.MapFS{}, "missing.urb"); !errors.Is(err, ur.ErrInvalidValue) {
		t.Errorf("ReadFS(missing) = %v, want ur.ErrInvalidValue", err)
	}
}

func slicesEqual(a, b []string) bool { return strings.Join(a, ",") == strings.Join(b, ",") }

// reseal fixes the length and CRC of a bundle the test changed, so that
// Parse looks past them.
func reseal(data []byte) []byte {
	binary.LittleEndian.PutUint64(data[16:], uint64(len(data)))
	binary.LittleEndian.PutUint32(data[24:], crc32.Checksum(data[headerSize:], castagnoli))
	return data
}

func TestParseRefusesBadBundles(t *testing.T) {
	good, err := sampleBundle(t).Marshal()
	if err != nil {
		t.Fatal(err)
	}
	first := headerSize + 4 // the first record's format byte
	for _, tc := range []struct {
		name   string
		edit   func([]byte) []byte
		code   ur.Result
		offset int64
		image  int
		field  string
		says   string
	}{
		{"empty", func([]byte) []byte { return nil }, ur.ErrInvalidBinary, 0, -1, "header", "truncated: 0 bytes"},
		{"not a bundle", func([]byte) []byte { return []byte("\x7fELF\x02\x01\x01") }, ur.ErrInvalidBinary, 0, -1, "magic", "not a bundle"},
		{"truncated header", func(b []byte) []byte { return b[:20] }, ur.ErrInvalidBinary, 20, -1, "header", "truncated"},
		{"truncated", func(b []byte) []byte { return b[:len(b)-100] }, ur.ErrInvalidBinary, 16, -1, "length", "truncated"},
		{"trailing bytes", func(b []byte) []byte { return append(b, 0) }, ur.ErrInvalidBinary, 16, -1, "length", "trailing bytes"},
		{"future version", func(b []byte) []byte { b[8] = 2; return b }, ur.ErrUnsupportedVersion, 8, -1, "version", "format version 2 is newer"},
		{"version 0", func(b []byte) []byte { b[8] = 0; return b }, ur.ErrInvalidBinary, 8, -1, "version", "unknown format version 0"},
		{"flags", func(b []byte) []byte { b[10] = 1; return b }, ur.ErrInvalidBinary, 10, -1, "flags", ""},
		{"corrupted", func(b []byte) []byte { b[len(b)/2] ^= 0x40; return b }, ur.ErrInvalidBinary, 24, -1, "checksum", "corrupted"},
		{"records missing", func(b []byte) []byte { return reseal(b[:headerSize]) }, ur.ErrInvalidBinary, 12, -1, "image count", "9 images cannot fit in 0 bytes"},
		{"no image", func(b []byte) []byte { binary.LittleEndian.PutUint32(b[12:], 0); return b }, ur.ErrInvalidBinary, 12, -1, "image count", "no image"},
		{"image count too large", func(b []byte) []byte { b[12] = 0xff; b[13] = 0xff; return b }, ur.ErrInvalidBinary, 12, -1, "image count", "cannot fit"},
		{"image count too small", func(b []byte) []byte { b[12]--; return b }, ur.ErrInvalidBinary, int64(len(good) - len(lastRecord(t, good))), -1, "end", "bytes after the last image"},
		{"unknown format", func(b []byte) []byte { b[first] = 9; return reseal(b) }, ur.ErrInvalidBinary, int64(first), 0, "format", "unknown format 9"},
		{"record length", func(b []byte) []byte { b[headerSize] += 1; return reseal(b) }, ur.ErrInvalidBinary, -1, 0, "", ""},
		{"image checksum", func(b []byte) []byte { b[len(b)-1] ^= 1; return reseal(b) }, ur.ErrInvalidBinary, int64(len(good) - len(lastRecord(t, good)) + 4 + lastRecordSumOffset(t, good)), 8, "checksum", "SHA-256"},
		{"unsorted kernels", swapKernels, ur.ErrInvalidBinary, -1, 0, "kernels", "not sorted or repeated"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := tc.edit(bytes.Clone(good))
			b, err := Parse(data)
			if b != nil || err == nil {
				t.Fatalf("Parse = %v, nil; want an error", b)
			}
			var ue *ur.Error
			var fe *FormatError
			if !errors.As(err, &ue) || ue.Result != tc.code || !errors.As(err, &fe) {
				t.Fatalf("Parse = %v; want a *ur.Error carrying %v around a *FormatError", err, tc.code)
			}
			if (tc.offset >= 0 && fe.Offset != tc.offset) || fe.Image != tc.image || (tc.field != "" && fe.Field != tc.field) || !strings.Contains(fe.Problem, tc.says) {
				t.Errorf("Parse = %v\nwant offset %d, image %d, field %q, saying %q", err, tc.offset, tc.image, tc.field, tc.says)
			}
		})
	}
}

// lastRecord returns the bytes of the last image record of a bundle.
func lastRecord(t *testing.T, data []byte) []byte {
	off := headerSize
	var rec []byte
	for off < len(data) {
		n := int(binary.LittleEndian.Uint32(data[off:]))
		rec = data[off : off+4+n]
		off += 4 + n
	}
	return rec
}

// lastRecordSumOffset is where the checksum starts in the last record,
// after its length field.
func lastRecordSumOffset(t *testing.T, data []byte) int {
	b := sampleBundle(t)
	im := &b.Images[len(b.Images)-1]
	return recordSize(im) - 4 - checksumSize - 8 - len(im.Code)
}

// swapKernels renames image 0's first kernel, add_one, to zzz_one: the
// same length, now out of order.
func swapKernels(b []byte) []byte {
	i := bytes.Index(b, []byte("add_one"))
	copy(b[i:], "zzz_one")
	return reseal(b)
}

func TestMarshalRefusesInvalidBundles(t *testing.T) {
	valid := Image{Target: Target{Backend: BackendOpenCL}, Format: FormatOpenCLC, Kernels: []string{"k"}, Code: []byte("kernel void k() {}")}
	for _, tc := range []struct {
		name string
		edit func(*Image)
		says string
	}{
		{"no kernel", func(im *Image) { im.Kernels = nil }, "kernels: no kernel"},
		{"repeated kernel", func(im *Image) { im.Kernels = []string{"k", "k"} }, "not sorted or repeated"},
		{"kernel with a space", func(im *Image) { im.Kernels = []string{"a b"} }, "kernel name"},
		{"arch ending in a space", func(im *Image) { im.Target.Arch += " " }, "target arch"},
		{"arch with a tab", func(im *Image) { im.Target.Arch += "\tx" }, "target arch"},
		{"OpenCL C for CUDA", func(im *Image) { im.Target.Backend = BackendCUDA }, "OpenCL C source is for the opencl backend"},
		{"cubin without sm_", func(im *Image) { im.Format, im.Target = FormatNative, Target{BackendCUDA, "90"} }, "a CUDA binary is for cuda:sm_XY"},
		{"PTX for sm_", func(im *Image) { im.Format, im.Target = FormatPTX, Target{BackendCUDA, "sm_90"} }, "PTX is for cuda:compute_XY"},
		{"native without arch", func(im *Image) { im.Format, im.Target = FormatNative, Target{Backend: BackendLevelZero} }, "names its backend and architecture"},
		{"unknown aspect", func(im *Image) { im.Properties.Aspects = 1 << 40 }, "unknown aspect bits"},
		{"spec default size", func(im *Image) {
			im.Properties.SpecConstants = []SpecConstant{{ID: 1, Name: "N", Kind: SpecInt, Default: []byte{1, 2, 3}}}
		}, "a 3-byte default does not fit kind int"},
		{"spec without a name in source", func(im *Image) {
			im.Properties.SpecConstants = []SpecConstant{{ID: 1, Kind: SpecBool, Default: []byte{1}}}
		}, "needs for its -D definition"},
		{"NUL in options", func(im *Image) { im.Properties.CompileOptions = "-DX\x00" }, "NUL"},
		{"empty code", func(im *Image) { im.Code = nil }, "code: empty"},
	} {
		im := valid
		tc.edit(&im)
		_, err := (&Bundle{Images: []Image{valid, im}}).Marshal()
		if !errors.Is(err, ur.ErrInvalidValue) || !strings.Contains(err.Error(), "image 1: ") || !strings.Contains(err.Error(), tc.says) {
			t.Errorf("%s: Marshal = %v, want ur.ErrInvalidValue naming image 1 and saying %q", tc.name, err, tc.says)
		}
	}
	if _, err := (&Bundle{}).Marshal(); !errors.Is(err, ur.ErrInvalidValue) {
		t.Errorf("Marshal of an empty bundle = %v, want ur.ErrInvalidValue", err)
	}
}

// FuzzParse checks that no input makes Parse panic, hang or allocate
// wildly, and that what it accepts marshals back to the same bytes. Each
// input is also parsed with its length and CRC fixed, so that the fuzzer
// reaches the image records.
func FuzzParse(f *testing.F) {
	if data, err := os.ReadFile("testdata/sample.urb"); err == nil {
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		check := func(data []byte) {
			b, err := Parse(data)
			if err != nil {
				var fe *FormatError
				if b != nil || !errors.As(err, &fe) {
					t.Fatalf("Parse = %v, %v: want nil and a *FormatError", b, err)
				}
				return
			}
			out, err := b.Marshal()
			if err != nil || !bytes.Equal(out, data) {
				t.Fatalf("a parsed bundle marshals to other bytes (%v)", err)
			}
		}
		check(data)
		if len(data) >= headerSize {
			check(reseal(bytes.Clone(data)))
		}
	})
}

// TestOpenCLDeviceNameTarget: an OpenCL program binary's architecture is
// the device name, spaces included, and round-trips as it is.
func TestOpenCLDeviceNameTarget(t *testing.T) {
	const name = "NVIDIA H100 80GB HBM3"
	im, err := NewImage(Image{Target: Target{BackendOpenCL, name}, Format: FormatNative, Kernels: []string{"k"}, Code: []byte("binary")})
	if err != nil {
		t.Fatal(err)
	}
	data, err := (&Bundle{Images: []Image{im}}).Marshal()
	if err != nil {
		t.Fatal(err)
	}
	b, err := Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	s, err := b.Select(Device{Backend: BackendOpenCL, Arch: name}, Request{Kernels: []string{"k"}})
	if err != nil || s.Rank != RankExact {
		t.Errorf("Select on %q = %v, %v; want an exact native match", name, s, err)
	}
}
