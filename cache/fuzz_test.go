package cache

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// maxFuzzInput keeps inputs small: the bounds on sizes are unit-tested,
// and large inputs only slow the fuzzer's minimization down.
const maxFuzzInput = 64 << 10

// The readers of .src and .bin files must survive anything a file holds;
// whatever they accept must be exactly what the writer produces for the
// decoded value (the encoding is canonical).

func FuzzReadSrc(f *testing.F) {
	for _, s := range seedSrcs() {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > maxFuzzInput {
			return
		}
		// As a whole file, and as a payload behind a valid header (so that
		// the fuzzer reaches the record decoder past the checksum).
		for _, file := range [][]byte{data, append(header(kindSrc, data), data...)} {
			rec, err := decodeSrc(file)
			if err != nil {
				continue
			}
			if again := encodeSrc(rec); !bytes.Equal(again, file) {
				t.Fatalf("accepted a non-canonical file:\n%x\nre-encodes as\n%x", file, again)
			}
		}
	})
}

func FuzzReadBin(f *testing.F) {
	for _, s := range seedBins() {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > maxFuzzInput {
			return
		}
		for _, file := range [][]byte{data, append(header(kindBin, data), data...)} {
			nonce, bin, _, err := decodeBin(file)
			if err != nil {
				continue
			}
			if again := encodeBin(nonce, bin); !bytes.Equal(again, file) {
				t.Fatal("accepted a non-canonical file")
			}
		}
	})
}

// FuzzLookup puts arbitrary .src and .bin files where an entry belongs
// and looks the entry up: no panic, and a hit only for a valid pair.
func FuzzLookup(f *testing.F) {
	srcs, bins := seedSrcs(), seedBins()
	for i := range srcs {
		f.Add(srcs[i], bins[i%len(bins)])
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, src, bin []byte) {
		if len(src)+len(bin) > maxFuzzInput {
			return
		}
		c := mustOpen(t, dir)
		k := fuzzKey()
		leaf, err := c.ensureLeaf(leafRel(c.hash, k))
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(leaf, "0.src"), src, 0o600)
		os.WriteFile(filepath.Join(leaf, "0.bin"), bin, 0o600)
		e, ok := c.Get(k)
		if ok {
			rec, err1 := decodeSrc(src)
			_, b, _, err2 := decodeBin(bin)
			if err1 != nil || err2 != nil || !rec.Key.Equal(k) || !bytes.Equal(b, e.Binary) {
				t.Fatal("served an invalid entry")
			}
		}
		os.Remove(filepath.Join(leaf, "0.src"))
		os.Remove(filepath.Join(leaf, "0.bin"))
	})
}

func fuzzKey() Key {
	return Key{Device: testDevice, Images: [][32]byte{{1, 2, 3}}, Spec: []byte{'1', 0, '3'}, CompileOptions: "-O2"}
}

// seedSrcs returns valid .src files and damaged copies.
func seedSrcs() [][]byte {
	full := &srcRecord{
		Nonce: [16]byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}, Created: time.Unix(1700000000, 5),
		BinLen: 5, Key: fuzzKey(), Info: Info{Format: "cubin", Kernels: []string{"axpy", "scale"}, ImageSize: 754000},
	}
	_, _, full.BinCRC, _ = decodeBin(encodeBin(full.Nonce, []byte("hello")))
	valid := encodeSrc(full)
	empty := encodeSrc(&srcRecord{})
	flipped := bytes.Clone(valid)
	flipped[len(flipped)-3] ^= 1
	// Counts and lengths past the end, with a valid checksum: the kernel
	// count of the empty record is the u32 at payload offset
	// 16+8+8+4 + 5*4 + 4+4+4+4 = 72, the options length at 64.
	bigCount := bytes.Clone(empty)
	copy(bigCount[headerSize+72:], []byte{0xff, 0xff, 0xff, 0x7f})
	bigString := bytes.Clone(empty)
	copy(bigString[headerSize+64:], []byte{0xff, 0xff, 0xff, 0xff})
	return [][]byte{valid, empty, valid[:len(valid)/2], flipped, withCRC(bigCount), {}, []byte(magic), withCRC(bigString)}
}

// withCRC fixes the header checksum of a damaged file.
func withCRC(b []byte) []byte {
	copy(b, header(b[8], b[headerSize:]))
	return b
}

func seedBins() [][]byte {
	var n [16]byte
	valid := encodeBin(n, []byte("hello"))
	flipped := bytes.Clone(valid)
	flipped[headerSize+2] ^= 1
	return [][]byte{valid, encodeBin(n, nil), valid[:headerSize+3], flipped, valid[:headerSize], withCRC(bytes.Clone(valid[:headerSize+3]))}
}

// TestWriteSeedCorpus writes the seeds to testdata/fuzz so that plain
// "go test" runs them as tests: GOUR_CACHE_WRITE_CORPUS=1 go test -run TestWriteSeedCorpus
func TestWriteSeedCorpus(t *testing.T) {
	if os.Getenv("GOUR_CACHE_WRITE_CORPUS") == "" {
		t.Skip("set GOUR_CACHE_WRITE_CORPUS=1 to regenerate testdata/fuzz")
	}
	write := func(target string, i int, args ...[]byte) {
		var b bytes.Buffer
		b.WriteString("go test fuzz v1\n")
		for _, a := range args {
			fmt.Fprintf(&b, "[]byte(%q)\n", a)
		}
		dir := filepath.Join("testdata", "fuzz", target)
		os.MkdirAll(dir, 0o755)
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("seed%02d", i)), b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	srcs, bins := seedSrcs(), seedBins()
	for i, s := range srcs {
		write("FuzzReadSrc", i, s)
		write("FuzzLookup", i, s, bins[i%len(bins)])
	}
	for i, b := range bins {
		write("FuzzReadBin", i, b)
	}
}
