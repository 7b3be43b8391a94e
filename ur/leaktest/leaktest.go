// Package leaktest fails a test binary whose tests leave gour handles
// unreleased, when ur's leak checking is on (GOUR_LEAK_CHECK=1 or
// UR_ENABLE_LAYERS=UR_LAYER_LEAK_CHECKING):
//
//	func TestMain(m *testing.M) { os.Exit(leaktest.Main(m)) }
//
// It also stops a trace the run recorded (ur.StopTrace), so that the trace
// ends whole.
package leaktest

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/gour-dev/gour/ur"
)

// Main runs the tests and returns their exit code, 1 when they passed but
// left handles unreleased; those are listed on stderr with where each was
// made.
func Main(m *testing.M) int { return After(m.Run()) }

// After is Main's check after a run that returned code, for a TestMain
// that runs the tests its own way.
func After(code int) int {
	if err := ur.StopTrace(); err != nil {
		fmt.Fprintln(os.Stderr, "gour:", err)
	}
	if !ur.LeakCheckEnabled() {
		return code
	}
	if err := ur.CheckLeaks(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		fmt.Fprintln(os.Stderr, "FAIL: handles leaked (leak checking is on: GOUR_LEAK_CHECK, UR_ENABLE_LAYERS)")
		if code == 0 {
			code = 1
		}
	}
	return code
}

// Check fails t at its end with the handles made during t and never
// released. Leak checking must be on (Check turns it on). Not for
// parallel tests: it sees the handles of every test running meanwhile.
func Check(t testing.TB) {
	t.Helper()
	ur.EnableLayers(ur.LayerOptions{LeakCheck: true})
	before := map[uint64]bool{}
	for _, l := range ur.Leaks() {
		before[l.ID] = true
	}
	t.Cleanup(func() {
		var fresh []ur.Leak
		for _, l := range ur.Leaks() {
			if !before[l.ID] {
				fresh = append(fresh, l)
			}
		}
		if len(fresh) > 0 {
			var b strings.Builder
			ur.WriteLeaks(&b, fresh)
			t.Errorf("%d handles made by the test were never released:\n%s", len(fresh), b.String())
		}
	})
}
