package cltrace

import (
	"cmp"
	"fmt"
	"io"
	"maps"
	"slices"
	"sync/atomic"
)

// counter counts the calls of one driver method. Counters are made once,
// at package initialisation, so that counting a call is one atomic add.
type counter struct {
	name string
	n    atomic.Uint64
}

var counters []*counter

func newCounter(name string) *counter {
	c := &counter{name: name}
	counters = append(counters, c)
	return c
}

func (c *counter) add() { c.n.Add(1) }

// Counts returns how many times each driver method of every cltrace
// adapter has been called in this process, by "Type.Method" name
// ("Queue.Launch", "PreparedLaunch.Launch"); methods never called are
// left out.
func Counts() map[string]uint64 {
	out := map[string]uint64{}
	for _, c := range counters {
		if n := c.n.Load(); n > 0 {
			out[c.name] = n
		}
	}
	return out
}

// WriteCounts writes Counts to w, one "count method" line per method,
// most called first.
func WriteCounts(w io.Writer) error {
	counts := Counts()
	names := slices.SortedFunc(maps.Keys(counts), func(a, b string) int {
		return cmp.Or(cmp.Compare(counts[b], counts[a]), cmp.Compare(a, b))
	})
	for _, name := range names {
		if _, err := fmt.Fprintf(w, "%10d %s\n", counts[name], name); err != nil {
			return err
		}
	}
	return nil
}
