package collectives_test

import (
	"path/filepath"
	"testing"

	"github.com/gour-dev/gour/collectives"
	"github.com/gour-dev/gour/dtype"
	"github.com/gour-dev/gour/trace"
	"github.com/gour-dev/gour/ur"
)

// TestTraceSpans: while a trace records, each rank's all-reduce in a
// group is a span of category "collectives" with the backend, the rank
// and the sizes, on every backend.
func TestTraceSpans(t *testing.T) {
	qs, _ := rankQueues(t)
	for _, b := range backends(qs) {
		t.Run(string(b), func(t *testing.T) {
			comms := newGroup(t, qs, collectives.WithBackend(b))
			path := filepath.Join(t.TempDir(), "t.json")
			if err := ur.StartTrace(path); err != nil {
				t.Fatal(err)
			}
			checkAllReduce(t, qs, comms, dtype.Float32, collectives.Sum, 37)
			if err := ur.StopTrace(); err != nil {
				t.Fatal(err)
			}
			evs, err := trace.ValidateFile(path)
			if err != nil {
				t.Fatal(err)
			}
			ranks := map[float64]bool{}
			for _, ev := range evs {
				if ev.Cat != "collectives" || ev.Name != "collectives.AllReduce" {
					continue
				}
				if ev.Args["backend"] != string(b) || ev.Args["count"] != 37.0 || ev.Args["type"] != "float32" || ev.Args["ranks"] != 2.0 {
					t.Errorf("span args %v, want backend %s, count 37, type float32, ranks 2", ev.Args, b)
				}
				r, _ := ev.Args["rank"].(float64)
				ranks[r] = true
			}
			if !ranks[0] || !ranks[1] {
				t.Errorf("all-reduce spans of ranks %v, want 0 and 1", ranks)
			}
		})
	}
}
