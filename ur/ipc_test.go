package ur

import (
	"math/rand/v2"
	"testing"
)

// TestParseIPCHandleNeverPanics: any bytes parse to a handle or to "no
// handle", never a panic; a handle made here parses back.
func TestParseIPCHandleNeverPanics(t *testing.T) {
	forRandomHandles(1, ipcMagic, func(b []byte) { parseIPCHandle(b) })
	h := append([]byte(ipcMagic), 4, 'c', 'u', 'd', 'a')
	h = append(h, 7, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 9, 9)
	p, ok := parseIPCHandle(h)
	if !ok || p.adapter != "cuda" || p.pid != 7 || p.size != 256 || len(p.payload) != 2 {
		t.Errorf("parse = %+v, %v", p, ok)
	}
	if _, ok := parseIPCHandle(h[:len(h)-2]); ok {
		t.Error("a handle without payload parsed")
	}
}

// forRandomHandles calls parse with 20,000 random byte strings of up to
// 119 bytes, a third of them starting with magic, from the seed.
func forRandomHandles(seed uint64, magic string, parse func([]byte)) {
	r := rand.New(rand.NewPCG(seed, seed+1))
	for i := range 20000 {
		b := make([]byte, r.IntN(120))
		for j := range b {
			b[j] = byte(r.Uint32())
		}
		if i%3 == 0 && len(b) > len(magic) {
			copy(b, magic)
		}
		parse(b)
	}
}
