package compare

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gour-dev/gour/compare/record"
)

// TestCaseInChildProcess runs a case that re-runs itself in a process of
// its own (Fixture.RunInChild) through Run: the re-run must run that case
// alone, so the case passes in about the time it takes in go test.
func TestCaseInChildProcess(t *testing.T) {
	opts := quick(t)
	opts.Metrics = []string{}
	opts.Cases = []string{"TestKernelLaunchAfterArgReleased", "TestContextOneDevice"}
	opts.CaseTimeout = time.Minute
	rec, err := Run(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	cs := rec.Devices[0].Conformance
	if len(cs) != 2 || cs[0].Status != record.Pass || cs[1].Status != record.Pass {
		t.Fatalf("cases %+v, want both passed", cs)
	}
	if cs[0].Duration > 20 {
		t.Errorf("%s took %.1fs: its child process did more than the case", cs[0].Name, cs[0].Duration)
	}
}

// TestConformanceChildKeepsRunPattern starts a conformance child the way
// Fixture.RunInChild re-executes the program under Run: with the case's
// -test.run pattern and the child settings of its parent, which name more
// cases. It must run the one case, in the child's mode, and nothing else.
func TestConformanceChildKeepsRunPattern(t *testing.T) {
	opts := quick(t)
	dev := describe(opts.Devices[0]).ID
	cfg := childConfig{Device: dev, Items: []string{"TestContextOneDevice", "TestKernelLaunchAfterArgReleased", "TestEnqueueLaunch1D"}}
	cmd := childCommand(t.Context(), childConformance, cfg, []string{"GOUR_CTS_CHILD=" + dev, "ONEAPI_DEVICE_SELECTOR=" + dev})
	cmd.Args = append(cmd.Args, "-test.run=^TestKernelLaunchAfterArgReleased$/^TestKernelLaunchAfterArgReleased$", "-test.v", "-test.count=1")
	start := time.Now()
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	runs := regexp.MustCompile(`(?m)^=== RUN\s+(\S+)$`).FindAllSubmatch(out, -1)
	for _, r := range runs {
		if name := string(r[1]); !strings.HasPrefix(name, "TestKernelLaunchAfterArgReleased") {
			t.Errorf("the child ran %s: want TestKernelLaunchAfterArgReleased alone\n%s", name, out)
		}
	}
	if !bytes.Contains(out, []byte("--- PASS: TestKernelLaunchAfterArgReleased/TestKernelLaunchAfterArgReleased ")) ||
		!bytes.Contains(out, []byte("child process for "+dev)) {
		t.Errorf("the child did not pass the case in its child mode:\n%s", out)
	}
	t.Logf("the re-executed child took %v", time.Since(start).Round(time.Millisecond))
}

// TestKillGroupOnCancel cancels a child whose own child keeps the output
// pipe open: the whole group dies, and Wait returns at once rather than
// when that grandchild ends (or after WaitDelay).
func TestKillGroupOnCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	cmd := exec.CommandContext(ctx, "sh", "-c", "sleep 60 & echo $!; wait")
	killGroupOnCancel(cmd)
	cmd.WaitDelay = childWaitDelay
	var out bytes.Buffer
	cmd.Stdout = &out
	if err := cmd.Start(); err != nil {
		t.Skipf("no sh: %v", err)
	}
	time.Sleep(200 * time.Millisecond)
	start := time.Now()
	cancel()
	cmd.Wait()
	if took := time.Since(start); took > time.Second {
		t.Errorf("Wait took %v after the cancel: the grandchild outlived its parent", took)
	}
	var pid int
	if _, err := fmt.Sscan(out.String(), &pid); err != nil {
		t.Fatalf("the grandchild's pid: %q: %v", out.String(), err)
	}
	time.Sleep(100 * time.Millisecond)
	if alive(pid) {
		syscall.Kill(pid, syscall.SIGKILL)
		t.Errorf("the grandchild %d is still alive", pid)
	}
}

// alive reports whether process pid runs: it exists and is not a zombie
// waiting for a parent (here, whatever adopted it) to reap it.
func alive(pid int) bool {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return syscall.Kill(pid, 0) == nil // no /proc: a zombie counts as alive
	}
	_, after, _ := strings.Cut(string(stat), ") ")
	return !strings.HasPrefix(after, "Z") && !strings.HasPrefix(after, "X")
}
