package gomlx_test

import (
	"bytes"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gomlx/compute/gobackend"
	"github.com/gomlx/compute/support/backendtest"
)

// TestReferenceSuite runs GoMLX's conformance suite for backends against
// GoMLX's own pure-Go CPU backend (package gobackend of the same compute
// module, so of the same suite version): the reference that
// TestSuiteCounts compares gour's counts with. It runs only where
// referenceEnv is 1, as in TestSuiteCounts's child process: its failures
// are the reference's, not gour's, and TestSuiteCounts only logs them.
func TestReferenceSuite(t *testing.T) {
	if os.Getenv(referenceEnv) != "1" {
		t.Skipf("the reference backend's suite runs in TestSuiteCounts (or with %s=1)", referenceEnv)
	}
	b, err := gobackend.New("")
	if err != nil {
		t.Fatalf("go backend: %v", err)
	}
	t.Cleanup(b.Finalize)
	backendtest.RunAll(t, b, nil)
}

// Suites that TestSuiteCounts counts: gour's and the reference's.
const (
	gourSuite      = "TestBackendSuite"
	referenceSuite = "TestReferenceSuite"

	// referenceEnv, set to 1, runs TestReferenceSuite.
	referenceEnv = "GOUR_REFERENCE_SUITE"
)

// TestSuiteCounts runs TestBackendSuite and TestReferenceSuite in a child
// process of this test binary (the testing package tells a test nothing of
// its subtests' subtests, so the child's -test.v lines are read instead)
// and logs, for each, how many innermost subtests (those with no subtest
// of their own that ran) passed, were skipped and failed, and then the
// subtests gour skips under which the reference passes, by operation
// family. It fails only where a subtest of gour's suite fails; gour passing
// fewer than the reference is logged, not failed. Not with -short.
func TestSuiteCounts(t *testing.T) {
	if testing.Short() {
		t.Skip("runs both suites again in a child process: not with -short")
	}
	args := []string{
		"-test.run=^(" + gourSuite + "|" + referenceSuite + ")$",
		"-test.v", "-test.count=1",
	}
	if d, ok := t.Deadline(); ok {
		// The child stops, and reports which test hangs, before this test
		// is killed with it.
		if left := time.Until(d) - 30*time.Second; left > 0 {
			args = append(args, "-test.timeout="+left.String())
		}
	}
	cmd := exec.CommandContext(t.Context(), os.Args[0], args...)
	cmd.Env = append(os.Environ(), referenceEnv+"=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, runErr := cmd.Output()
	results := parseResults(stdout)

	for _, suite := range []string{gourSuite, referenceSuite} {
		if _, ok := results[suite]; !ok {
			msg := fmt.Sprintf("the child process did not finish %s (%v); its output ends:\n%s%s",
				suite, runErr, tail(stdout, 4000), tail(stderr.Bytes(), 4000))
			if suite == gourSuite {
				t.Fatal(msg)
			}
			t.Log(msg)
		}
	}

	leaves := innermost(results)
	counts := func(suite string) (pass, skip, fail int) {
		for name, status := range leaves {
			if !strings.HasPrefix(name, suite+"/") {
				continue
			}
			switch status {
			case "PASS":
				pass++
			case "SKIP":
				skip++
			case "FAIL":
				fail++
			}
		}
		return
	}
	gp, gs, gf := counts(gourSuite)
	rp, rs, rf := counts(referenceSuite)
	t.Logf("innermost subtests of backendtest.RunAll: gour %d passed, %d skipped, %d failed; reference (GoMLX's go backend) %d passed, %d skipped, %d failed",
		gp, gs, gf, rp, rs, rf)

	// The subtests gour skips, by family (the suite's group and the
	// operation: "SpecialOps/Gather"), with the reference's passes under
	// each.
	type family struct {
		skipped  []string // gour's skipped innermost subtests, below the family
		refPass  int      // the reference's passes under them
		refKnown bool     // whether the reference ran any of them
	}
	families := map[string]*family{}
	for name, status := range leaves {
		rel, ok := strings.CutPrefix(name, gourSuite+"/")
		if !ok || status != "SKIP" {
			continue
		}
		parts := strings.SplitN(rel, "/", 3)
		key := strings.Join(parts[:min(2, len(parts))], "/")
		f := families[key]
		if f == nil {
			f = &family{}
			families[key] = f
		}
		f.skipped = append(f.skipped, strings.TrimPrefix(strings.TrimPrefix(rel, key), "/"))
		ref := referenceSuite + "/" + rel
		for rname, rstatus := range leaves {
			if rname == ref || strings.HasPrefix(rname, ref+"/") {
				f.refKnown = true
				if rstatus == "PASS" {
					f.refPass++
				}
			}
		}
	}
	var gap, both []string
	for _, key := range slices.Sorted(maps.Keys(families)) {
		f := families[key]
		slices.Sort(f.skipped)
		what := key
		if n := len(f.skipped); n > 12 {
			what += " [" + strings.Join(f.skipped[:12], " ") + fmt.Sprintf(" and %d more]", n-12)
		} else if n > 1 || f.skipped[0] != "" {
			what += " [" + strings.Join(f.skipped, " ") + "]"
		}
		if f.refPass > 0 {
			gap = append(gap, fmt.Sprintf("%s: gour skips %d, the reference passes %d", what, len(f.skipped), f.refPass))
		} else {
			both = append(both, what)
		}
	}
	t.Logf("gour skips, the reference passes (%d families):\n\t%s", len(gap), strings.Join(gap, "\n\t"))
	if len(both) > 0 {
		t.Logf("gour skips, the reference passes none of them (%d families):\n\t%s", len(both), strings.Join(both, "\n\t"))
	}
	if rf > 0 || results[referenceSuite] == "FAIL" {
		var failed []string
		for name, status := range leaves {
			if status == "FAIL" && strings.HasPrefix(name, referenceSuite+"/") {
				failed = append(failed, name)
			}
		}
		slices.Sort(failed)
		t.Logf("the reference fails (not counted against gour): %s", strings.Join(failed, " "))
	}

	var failed []string
	for name, status := range results {
		if status == "FAIL" && (name == gourSuite || strings.HasPrefix(name, gourSuite+"/")) {
			failed = append(failed, name)
		}
	}
	slices.Sort(failed)
	if len(failed) > 0 {
		t.Errorf("gour fails %d innermost subtests of the suite: %s", gf, strings.Join(failed, " "))
	}
}

// resultLine is a test's result in -test.v output, at any depth.
var resultLine = regexp.MustCompile(`^\s*--- (PASS|FAIL|SKIP): (\S+) \(`)

// parseResults returns the status (PASS, FAIL or SKIP) of every test and
// subtest whose result line is in the -test.v output out.
func parseResults(out []byte) map[string]string {
	results := map[string]string{}
	for line := range strings.Lines(string(out)) {
		if m := resultLine.FindStringSubmatch(line); m != nil {
			results[m[2]] = m[1]
		}
	}
	return results
}

// innermost returns those of results that have no subtest in results.
func innermost(results map[string]string) map[string]string {
	parents := map[string]bool{}
	for name := range results {
		for i := range len(name) {
			if name[i] == '/' {
				parents[name[:i]] = true
			}
		}
	}
	leaves := map[string]string{}
	for name, status := range results {
		if !parents[name] {
			leaves[name] = status
		}
	}
	return leaves
}

// tail returns the last n bytes of b, at most.
func tail(b []byte, n int) string {
	return string(b[max(0, len(b)-n):])
}
