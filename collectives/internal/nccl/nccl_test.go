package nccl

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"unsafe"

	"github.com/gour-dev/gour/internal/dl"
)

// standIn builds testdata/fake_nccl.c and loads it as Load would.
func standIn(t *testing.T) *Lib {
	t.Helper()
	cc, err := exec.LookPath("cc")
	if err != nil {
		t.Skip("no C compiler to build the stand-in library")
	}
	so := filepath.Join(t.TempDir(), "libnccl.so.2")
	if out, err := exec.Command(cc, "-shared", "-fPIC", "-o", so, "testdata/fake_nccl.c").CombinedOutput(); err != nil {
		t.Fatalf("building the stand-in: %v\n%s", err, out)
	}
	l, err := Load(so)
	if err != nil {
		t.Fatalf("Load(stand-in): %v", err)
	}
	t.Cleanup(func() { l.Close() })
	return l
}

func lastCall(t *testing.T, l *Lib) string {
	t.Helper()
	fn, err := l.lib.Lookup("fake_last")
	if err != nil {
		t.Fatal(err)
	}
	p := dl.Call(fn, &dl.Args{})
	return dl.GoString(*(*unsafe.Pointer)(unsafe.Pointer(&p)))
}

// TestCallsThroughStandIn: every entry point takes its arguments as the
// C API says: sizes, enums, handles, the id by pointer, the config's
// layout, and a context made current in the same call.
func TestCallsThroughStandIn(t *testing.T) {
	l := standIn(t)
	set, err := l.lib.Lookup("fake_set_current")
	if err != nil {
		t.Fatal(err)
	}
	ctx := Ctx{SetCurrent: set, Handle: 0xc0}
	check := func(what string, r Result, want Result, call string) {
		t.Helper()
		if got := lastCall(t, l); r != want || got != call {
			t.Errorf("%s = %v, recorded %q; want %v, %q", what, r.Name(), got, want.Name(), call)
		}
	}
	if v, r := l.Version(); v != 22703 || r != Success {
		t.Errorf("Version = %d, %v", v, r)
	}
	id, r := l.GetUniqueID()
	if r != Success || id[5] != 5 || id[127] != 127 {
		t.Errorf("GetUniqueID = %v, %v", id[:8], r)
	}
	comms, r := l.CommInitAll([]int32{3, 1})
	check("CommInitAll", r, Success, "CommInitAll 2 3 1")
	if len(comms) != 2 || comms[0] != 0x1003 || comms[1] != 0x1001 {
		t.Errorf("CommInitAll = %#x", comms)
	}
	c, r := l.CommInitRank(ctx, id, 4, 2, false)
	check("CommInitRank", r, InProgress, "CommInitRankScalable 4 2 1 1 127 size=24 magic=0xcafebeef version=21400 blocking=0")
	if c != 0x2002 {
		t.Errorf("CommInitRank comm = %#x", c)
	}
	// NCCL's non-blocking set-up: the function's result and the state
	// through the out pointer are two things.
	if s, r := l.CommGetAsyncError(c); s != InProgress || r != Success {
		t.Errorf("CommGetAsyncError during the set-up = %v, %v; want ncclInProgress, ncclSuccess", s.Name(), r.Name())
	}
	if s, r := l.CommGetAsyncError(c); s != Success || r != Success {
		t.Errorf("CommGetAsyncError after the set-up = %v, %v", s.Name(), r.Name())
	}
	// A split of a non-blocking parent returns ncclSuccess with no
	// communicator yet: NCCL writes it once the parent's state leaves
	// ncclInProgress.
	split, r := l.CommSplit(ctx, c, 0, 2, true)
	check("CommSplit", r, Success, "CommSplit 0x2002 0 2 blocking=1")
	if got := split.Comm(); got != 0 {
		t.Errorf("CommSplit's communicator before the split is done = %#x; want 0", got)
	}
	if s, r := l.CommGetAsyncError(c); s != InProgress || r != Success {
		t.Errorf("parent's CommGetAsyncError during the split = %v, %v", s.Name(), r.Name())
	}
	if s, r := l.CommGetAsyncError(c); s != Success || r != Success {
		t.Errorf("parent's CommGetAsyncError after the split = %v, %v", s.Name(), r.Name())
	}
	child := split.Comm()
	if child != 0x2102 {
		t.Errorf("CommSplit = %#x", child)
	}
	if _, r := l.CommGetAsyncError(0); r != InvalidArgument {
		t.Errorf("CommGetAsyncError(NULL) = %v", r.Name())
	}
	check("AllReduce", l.AllReduce(ctx, 0x10, 0x20, 1<<33, Bfloat16, Avg, c, 0x30), Success, "AllReduce 0x10 0x20 8589934592 9 4 0x2002 0x30")
	check("Broadcast", l.Broadcast(ctx, 0, 0x20, 7, Float32, 1, c, 0), Success, "Broadcast (nil) 0x20 7 7 1 0x2002 (nil)")
	check("Reduce", l.Reduce(ctx, 0x10, 0x20, 7, Int64, Max, 3, c, 0x30), Success, "Reduce 0x10 0x20 7 4 2 3 0x2002 0x30")
	check("AllGather", l.AllGather(ctx, 0x10, 0x20, 9, Uint8, c, 0x30), Success, "AllGather 0x10 0x20 9 1 0x2002 0x30")
	check("ReduceScatter", l.ReduceScatter(ctx, 0x10, 0x20, 9, Float16, Min, c, 0x30), InvalidUsage, "ReduceScatter 0x10 0x20 9 6 3 0x2002 0x30")
	check("Send", l.Send(ctx, 0x10, 5, Int32, 1, c, 0x30), Success, "Send 0x10 5 2 1 0x2002 0x30")
	check("Recv", l.Recv(ctx, 0x20, 5, Float64, 0, c, 0x30), Success, "Recv 0x20 5 8 0 0x2002 0x30")
	check("GroupStart", l.GroupStart(), Success, "GroupStart")
	check("GroupEnd", l.GroupEnd(), Success, "GroupEnd")
	check("CommAbort", l.CommAbort(ctx, c), Success, "CommAbort 0x2002")
	check("CommDestroy", l.CommDestroy(Ctx{}, child), Success, "CommDestroy 0x2102")
	if s := l.ErrorString(InvalidUsage); s != "stand-in error 5" {
		t.Errorf("ErrorString = %q", s)
	}
	if s := l.LastError(c); s != "stand-in last error" {
		t.Errorf("LastError = %q", s)
	}
	// A context that cannot be made current: the call is not made.
	r = l.AllReduce(Ctx{SetCurrent: set, Handle: 0xbad}, 1, 2, 3, Float32, Sum, c, 0)
	if got := lastCall(t, l); r != UnhandledCudaError || !strings.HasPrefix(got, "set 0xbad;") {
		t.Errorf("AllReduce in a bad context = %v, recorded %q", r, got)
	}
	if !l.CanInitRank() {
		t.Error("CanInitRank = false with ncclCommInitRankScalable and ncclCommSplit")
	}
}

// TestLoadMissing: a library that is not there is an error naming it.
func TestLoadMissing(t *testing.T) {
	_, err := Load("/nonexistent/libnccl.so.2")
	if err == nil || !strings.Contains(err.Error(), "libnccl.so.2") {
		t.Errorf("Load(missing) = %v", err)
	}
}
