package collectives

import (
	"context"
	"errors"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gour-dev/gour/collectives/internal/nccl"
)

// standInNCCL builds the stand-in libnccl of internal/nccl's tests, which
// behaves as NCCL 2.18 to 2.28 do for non-blocking communicators.
func standInNCCL(t *testing.T) *nccl.Lib {
	t.Helper()
	cc, err := exec.LookPath("cc")
	if err != nil {
		t.Skip("no C compiler to build the stand-in library")
	}
	so := filepath.Join(t.TempDir(), "libnccl.so.2")
	if out, err := exec.Command(cc, "-shared", "-fPIC", "-o", so, "internal/nccl/testdata/fake_nccl.c").CombinedOutput(); err != nil {
		t.Fatalf("building the stand-in: %v\n%s", err, out)
	}
	l, err := nccl.Load(so)
	if err != nil {
		t.Fatalf("Load(stand-in): %v", err)
	}
	t.Cleanup(func() { l.Close() })
	return l
}

// joinedParent is a non-blocking communicator of the stand-in whose
// set-up is done, as Join has it before the split.
func joinedParent(t *testing.T, lib *nccl.Lib, rank, nranks int) *ncclBackend {
	t.Helper()
	comm, r := lib.CommInitRank(nccl.Ctx{}, nccl.UniqueID{}, nranks, rank, false)
	if r != nccl.InProgress {
		t.Fatalf("CommInitRank = %v", r.Name())
	}
	b := &ncclBackend{lib: lib, comm: comm, rank: rank, timeout: 5 * time.Second}
	if err := b.wait("Join", "ncclCommInitRankScalable", context.Background()); err != nil {
		t.Fatalf("wait: %v", err)
	}
	return b
}

// TestSplitOfNonBlocking: ncclCommSplit of a non-blocking communicator
// returns ncclSuccess with no communicator yet; Join waits for the
// parent's state and then takes the child NCCL wrote.
func TestSplitOfNonBlocking(t *testing.T) {
	lib := standInNCCL(t)
	b := joinedParent(t, lib, 1, 2)
	if err := b.splitBlocking("Join", context.Background()); err != nil {
		t.Fatalf("splitBlocking: %v", err)
	}
	if b.comm != 0x2101 || b.parent != 0x2001 {
		t.Errorf("comm, parent = %#x, %#x; want 0x2101, 0x2001", b.comm, b.parent)
	}
}

// TestSplitFails: a split that fails names ncclCommSplit and NCCL's
// result, and leaves nothing behind.
func TestSplitFails(t *testing.T) {
	lib := standInNCCL(t)
	b := joinedParent(t, lib, 99, 100) // the stand-in fails splits keyed 99
	err := b.splitBlocking("Join", context.Background())
	var e *Error
	if !errors.As(err, &e) || e.NativeName != "ncclRemoteError" || !strings.Contains(err.Error(), "ncclCommSplit") ||
		strings.Contains(err.Error(), "ncclSuccess") || !errors.Is(err, ErrAborted) {
		t.Fatalf("splitBlocking = %v; want ErrAborted naming ncclCommSplit and ncclRemoteError", err)
	}
	if b.comm != 0 || b.parent != 0 {
		t.Errorf("comm, parent = %#x, %#x after a failed split; want 0, 0", b.comm, b.parent)
	}
}
