package compare

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gour-dev/gour/compare/record"
)

// scriptedChildren makes the children shell scripts: the k-th child
// started (from 0) runs script k, or the last one. It returns how many
// children were started so far.
func scriptedChildren(t *testing.T, scripts ...string) (starts func() int) {
	t.Helper()
	dir := t.TempDir()
	count := filepath.Join(dir, "starts")
	var b strings.Builder
	b.WriteString("#!/bin/sh\nn=$(cat " + count + " 2>/dev/null || echo 0)\necho $((n+1)) > " + count + "\ncase $n in\n")
	for k, s := range scripts {
		pat := string(rune('0' + k))
		if k == len(scripts)-1 {
			pat = "*"
		}
		b.WriteString(pat + ")\n" + s + "\n;;\n")
	}
	b.WriteString("esac\n")
	exe := filepath.Join(dir, "child")
	if err := os.WriteFile(exe, []byte(b.String()), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat("/bin/sh"); err != nil {
		t.Skip("no /bin/sh")
	}
	old := childExecutable
	childExecutable = func() (string, error) { return exe, nil }
	t.Cleanup(func() { childExecutable = old })
	return func() int {
		data, _ := os.ReadFile(count) // none until a child starts
		n, _ := strconv.Atoi(strings.TrimSpace(string(data)))
		return n
	}
}

// A child that dies on an item has that item recorded as failed, with the
// end of its stderr, and a new child goes on with the items after it,
// past a line that is not the protocol.
func TestSuperviseRestartsAfterACrash(t *testing.T) {
	starts := scriptedChildren(t,
		`echo '{"start":"a"}'; echo '{"metric":{"name":"a","check":"ok"}}'; echo '{"start":"b"}'; echo "driver crashed" >&2; exit 3`,
		`echo 'a driver talking'; echo '{"start":"c"}'; echo '{"metric":{"name":"c","check":"ok"}}'`)
	var steps []string
	got := supervise(t.Context(), metricsProtocol, childConfig{}, []string{"a", "b", "c"}, 10*time.Second, nil, func(name string) { steps = append(steps, name) })
	if len(got) != 3 || got[0].Check != record.CheckOK || got[2].Check != record.CheckOK {
		t.Fatalf("records %+v, want a and c ok", got)
	}
	if b := got[1]; b.Name != "b" || b.Check != record.CheckError || !strings.Contains(b.Detail, "exit status 3") || !strings.Contains(b.Detail, "driver crashed") {
		t.Errorf("b = %+v, want an error with the exit status and the stderr", b)
	}
	if !slices.Equal(steps, []string{"a", "b", "c"}) || starts() != 2 {
		t.Errorf("steps %v from %d children, want a, b, c from 2", steps, starts())
	}
}

// A child that dies before its first item fails every item with its
// error, and no second child is started: it would die the same way.
func TestSuperviseStopsWithoutProgress(t *testing.T) {
	starts := scriptedChildren(t, `echo "no device" >&2; exit 1`)
	got := supervise(t.Context(), casesProtocol, childConfig{}, []string{"TestA", "TestB"}, 10*time.Second, nil, func(string) {})
	if len(got) != 2 || starts() != 1 {
		t.Fatalf("%+v from %d children, want 2 cases from 1", got, starts())
	}
	for _, c := range got {
		if c.Status != record.Fail || !strings.Contains(c.Reason, "no device") {
			t.Errorf("%+v, want failed with the child's stderr", c)
		}
	}
}

// A cancelled run starts no child.
func TestSuperviseCancelled(t *testing.T) {
	starts := scriptedChildren(t, `exit 0`)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if got := supervise(ctx, metricsProtocol, childConfig{}, []string{"a"}, time.Second, nil, func(string) {}); len(got) != 0 {
		t.Errorf("records %+v after the run was cancelled", got)
	}
	if n := starts(); n != 0 {
		t.Errorf("%d children started after the run was cancelled", n)
	}
}
