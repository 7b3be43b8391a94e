package programmgr

import (
	"path/filepath"
	"testing"

	"github.com/gour-dev/gour/trace"
)

// TestGetKernelSpan checks that GetKernel is a span on an active trace,
// a fast hit included, and that untraced calls still take the fast cache.
func TestGetKernelSpan(t *testing.T) {
	if trace.Active() != nil {
		t.Skip("a trace is being recorded (GOUR_TRACE)")
	}
	f := newFixture(t, Options{}, 1)
	img := image(t, 1, "k")
	f.getKernel(img, "k").Release() // untraced: builds
	f.getKernel(img, "k").Release() // untraced: a fast hit
	if s := f.m.Stats(); s.FastHits != 1 {
		t.Fatalf("untraced: %d fast hits, want 1", s.FastHits)
	}

	path := filepath.Join(t.TempDir(), "programmgr.json")
	if _, err := trace.Start(path, trace.Options{}); err != nil {
		t.Fatal(err)
	}
	f.getKernel(img, "k").Release()              // a fast hit
	f.getKernel(image(t, 2, "k"), "k").Release() // a miss
	if err := trace.Stop(); err != nil {
		t.Fatal(err)
	}
	if s := f.m.Stats(); s.FastHits != 2 {
		t.Errorf("traced: %d fast hits in all, want 2", s.FastHits)
	}
	events, err := trace.ValidateFile(path)
	if err != nil {
		t.Fatal(err)
	}
	spans := 0
	for _, e := range events {
		if e.Cat == "programmgr" && e.Name == "programmgr.GetKernel" && e.Ph == "X" {
			spans++
		}
	}
	if spans != 2 {
		t.Errorf("%d programmgr.GetKernel spans in the trace, want 2 (a fast hit and a miss)", spans)
	}
}
