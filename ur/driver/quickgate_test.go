package driver

import (
	"sync/atomic"
	"testing"
	"unsafe"

	"github.com/gour-dev/gour/internal/dl"
)

func TestQuickGate(t *testing.T) {
	var none *QuickGate
	none.Spend()
	none.Refill()
	if none.Take() {
		t.Error("a nil gate allowed a quick call")
	}
	busy := new(atomic.Int32)
	g := NewQuickGate(busy, 3)
	if g.Take() {
		t.Error("a gate never refilled allowed a quick call")
	}
	g.Refill()
	g.Spend() // another command: two quick calls left
	for i := range 2 {
		if !g.Take() {
			t.Fatalf("call %d within the budget refused", i+1)
		}
	}
	if g.Take() {
		t.Error("a call past the budget allowed")
	}
	g.Refill()
	busy.Add(1)
	if g.Take() {
		t.Error("a call allowed while the adapter is busy")
	}
	busy.Add(-1)
	if !g.Take() {
		t.Error("a call refused after the busy call ended")
	}
}

// NativeCall hands itself to dl as a dl.Launch: their common fields must
// lie at the same offsets, and a *QuickGate must be a *dl.QuickGate.
func TestNativeCallLayout(t *testing.T) {
	var c NativeCall
	var l dl.Launch
	offsets := []struct {
		field       string
		got, wanted uintptr
	}{
		{"Fn", unsafe.Offsetof(c.Fn), unsafe.Offsetof(l.Fn)},
		{"Args", unsafe.Offsetof(c.Args), unsafe.Offsetof(l.Args)},
		{"Gen", unsafe.Offsetof(c.Gen), unsafe.Offsetof(l.Gen)},
		{"Want", unsafe.Offsetof(c.Want), unsafe.Offsetof(l.Want)},
		{"Quick", unsafe.Offsetof(c.Quick), unsafe.Offsetof(l.Gate)},
	}
	for _, o := range offsets {
		if o.got != o.wanted {
			t.Errorf("NativeCall.%s at offset %d, dl.Launch's at %d", o.field, o.got, o.wanted)
		}
	}
	if unsafe.Sizeof(c.Args) != unsafe.Sizeof(l.Args) {
		t.Errorf("NativeArgs is %d bytes, dl.Args %d", unsafe.Sizeof(c.Args), unsafe.Sizeof(l.Args))
	}
	var g QuickGate
	if unsafe.Offsetof(g.gate) != 0 {
		t.Error("QuickGate's dl.QuickGate is not its first field")
	}
	for _, s := range []struct {
		status LaunchStatus
		dl     uintptr
	}{{Launched, dl.Launched}, {LaunchStale, dl.LaunchStale}, {LaunchFailed, dl.LaunchFailed}} {
		if uintptr(s.status) != s.dl {
			t.Errorf("%v is %d, dl's %d", s.status, s.status, s.dl)
		}
	}
}
