package driver

import (
	"sync/atomic"
	"testing"
)

func TestQuickGate(t *testing.T) {
	var none *QuickGate
	none.Spend()
	none.Refill()
	if none.Take() {
		t.Error("a nil gate allowed a quick call")
	}
	g := &QuickGate{Busy: new(atomic.Int32), Limit: 3}
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
	g.Busy.Add(1)
	if g.Take() {
		t.Error("a call allowed while the adapter is busy")
	}
	g.Busy.Add(-1)
	if !g.Take() {
		t.Error("a call refused after the busy call ended")
	}
}
