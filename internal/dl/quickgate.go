package dl

import "sync/atomic"

// QuickGate decides, call by call, whether a launch may be a quick call
// (CallLaunch): while the queue has budget left and nothing the adapter
// has in flight can make the call wait. driver.QuickGate is its public
// face, which documents the rules; it lives here so that CallLaunch takes
// the decision in the frame that makes the call.
type QuickGate struct {
	budget atomic.Int64
	busy   *atomic.Int32
	limit  int64
}

// NewQuickGate returns a gate of limit calls per Refill, closed while
// *busy is not zero; its budget is empty until the first Refill.
func NewQuickGate(busy *atomic.Int32, limit int64) *QuickGate {
	return &QuickGate{busy: busy, limit: limit}
}

// Take counts the next call against the budget and reports whether it may
// be quick. A nil gate never allows one.
func (g *QuickGate) Take() bool {
	return g != nil && g.budget.Add(-1) >= 0 && g.busy.Load() == 0
}

// Spend counts a command enqueued some other way. It does nothing on a
// nil gate.
func (g *QuickGate) Spend() {
	if g != nil {
		g.budget.Add(-1)
	}
}

// Refill restores the budget. It does nothing on a nil gate.
func (g *QuickGate) Refill() {
	if g != nil {
		g.budget.Store(g.limit)
	}
}
