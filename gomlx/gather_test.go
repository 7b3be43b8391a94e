package gomlx

import (
	"slices"
	"testing"

	gc "github.com/gomlx/compute"
	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/compute/shapes"
)

// TestGatherRows checks Gather as an embedding lookup of rows of an int64
// table by uint8 indices with an implicit index vector axis, an index past
// the end clamped to the last row.
func TestGatherRows(t *testing.T) {
	b := newTestBackend(t)
	table := make([]int64, 5*3)
	for i := range table {
		table[i] = int64(i*i) << 33
	}
	got := run1[int64](t, b, shapes.Make(dtypes.Int64, 5, 3), table, func(f gc.Function, x gc.Value) (gc.Value, error) {
		idx, err := f.Constant([]uint8{4, 0, 200, 2}, 2, 2)
		if err != nil {
			return nil, err
		}
		return f.Gather(x, idx, 2, []int{2}, []int{0}, []int{0}, []int{1, 3}, false)
	})
	var want []int64
	for _, r := range []int{4, 0, 4, 2} {
		want = append(want, table[3*r:3*r+3]...)
	}
	if !slices.Equal(got, want) {
		t.Errorf("Gather: got %v, want %v", got, want)
	}
}
