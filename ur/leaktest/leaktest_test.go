package leaktest_test

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"

	_ "github.com/gour-dev/gour/adapters/all"
	"github.com/gour-dev/gour/internal/harness/testenv"
	"github.com/gour-dev/gour/ur"
	"github.com/gour-dev/gour/ur/leaktest"
)

func TestMain(m *testing.M) { os.Exit(leaktest.Main(m)) }

const childEnv = "GOUR_LEAKTEST_CHILD"

// TestLeakingTestFails runs TestLeaksOnPurpose in a child with leak
// checking on: the run fails and names the line that made the buffer.
func TestLeakingTestFails(t *testing.T) {
	testenv.Devices(t)
	if os.Getenv(childEnv) != "" {
		t.Skip("the child")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestLeaksOnPurpose$", "-test.count=1")
	cmd.Env = append(os.Environ(), childEnv+"=1", "GOUR_LEAK_CHECK=1")
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatalf("a test that leaks passed:\n%s", out)
	}
	for _, want := range []string{"handles never released", "Mem #", "leaktest_test.go:", "TestLeaksOnPurpose"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("the output lacks %q:\n%s", want, out)
		}
	}
}

// TestLeaksOnPurpose leaks a buffer, in the child only.
func TestLeaksOnPurpose(t *testing.T) {
	if os.Getenv(childEnv) == "" {
		t.Skip("only in TestLeakingTestFails's child")
	}
	dev := testenv.Devices(t)[0]
	ctx, err := ur.NewContext(dev)
	if err != nil {
		t.Fatal(err)
	}
	defer ctx.Release()
	if _, err := ctx.NewBuffer(ur.MemReadWrite, 64); err != nil { // the leak
		t.Fatal(err)
	}
}

// TestCheck: Check fails a test with its own leaks; here it is given a
// recorder that notes the failure instead.
func TestCheck(t *testing.T) {
	dev := testenv.Devices(t)[0]
	rec := &recorder{TB: t}
	leaktest.Check(rec)
	ctx, err := ur.NewContext(dev)
	if err != nil {
		t.Fatal(err)
	}
	m, _ := ctx.NewBuffer(ur.MemReadWrite, 64)
	rec.runCleanups()
	if !strings.Contains(rec.msg, "Mem #") || !strings.Contains(rec.msg, "Context #") {
		t.Errorf("Check reported %q", rec.msg)
	}
	m.Release()
	ctx.Release()
}

type recorder struct {
	testing.TB
	msg      string
	cleanups []func()
}

func (r *recorder) Cleanup(f func())               { r.cleanups = append(r.cleanups, f) }
func (r *recorder) Errorf(format string, a ...any) { r.msg += fmt.Sprintf(format, a...) }
func (r *recorder) Helper()                        {}
func (r *recorder) runCleanups() {
	for _, f := range r.cleanups {
		f()
	}
}
