package trace

// Host events go on lanes: tracks that each hold events that nest or
// follow one another, never two that partly overlap, which is what a
// timeline viewer can draw. A goroutine's nested spans are recorded
// inner first (each at its end), so the outer one encloses the blocks
// the inner ones left on a lane and joins them: a goroutine's calls stay
// on one lane while no other goroutine's events cut across them, without
// reading a goroutine id (Go offers none, and reading the runtime's was a
// trick that any release could break). An event that fits no lane opens
// a new one.

// lane is one host track's recent past: its last few top-level blocks
// of nested events, in order and disjoint, and the latest end of the
// blocks it no longer keeps, before which nothing more is placed.
type lane struct {
	blocks  []block
	dropped int64
}

type block struct{ lo, hi int64 }

// laneBlocks is how many blocks a lane keeps: an event that would
// enclose more is put on another lane.
const laneBlocks = 8

// place puts the event from start to end on l if it partly overlaps
// nothing there: after every block, or enclosing every block that ends
// after it starts.
func (l *lane) place(start, end int64) bool {
	if start < l.dropped {
		return false
	}
	k := len(l.blocks)
	for k > 0 && l.blocks[k-1].hi > start {
		k--
	}
	for _, b := range l.blocks[k:] {
		if b.lo < start || b.hi > end {
			return false
		}
	}
	l.blocks = append(l.blocks[:k], block{start, end})
	if len(l.blocks) > laneBlocks {
		l.dropped = max(l.dropped, l.blocks[0].hi)
		l.blocks = append(l.blocks[:0], l.blocks[1:]...)
	}
	return true
}

// laneOf picks the lane (its track id, from 1) of a host event from start
// to end, and whether the lane is new (its name not yet written). The
// caller holds r.mu.
func (r *Recorder) laneOf(start, end int64) (tid int64, isNew bool) {
	for i := range r.lanes {
		if r.lanes[i].place(start, end) {
			return int64(i + 1), false
		}
	}
	r.lanes = append(r.lanes, lane{blocks: []block{{start, end}}})
	return int64(len(r.lanes)), true
}
