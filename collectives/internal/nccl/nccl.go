package nccl

import (
	"fmt"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/gour-dev/gour/internal/dl"
	"github.com/gour-dev/gour/internal/nvlib"
)

// UniqueIDBytes is NCCL_UNIQUE_ID_BYTES.
const UniqueIDBytes = 128

// UniqueID is ncclUniqueId.
type UniqueID [UniqueIDBytes]byte

// Comm is ncclComm_t.
type Comm uintptr

// Result is ncclResult_t.
type Result int32

// ncclResult_t values.
const (
	Success            Result = 0
	UnhandledCudaError Result = 1
	SystemError        Result = 2
	InternalError      Result = 3
	InvalidArgument    Result = 4
	InvalidUsage       Result = 5
	RemoteError        Result = 6
	InProgress         Result = 7
	Timeout            Result = 8
)

var resultNames = [...]string{"ncclSuccess", "ncclUnhandledCudaError", "ncclSystemError", "ncclInternalError",
	"ncclInvalidArgument", "ncclInvalidUsage", "ncclRemoteError", "ncclInProgress", "ncclTimeout"}

// Name is the enumerator's name, or "ncclResult(N)".
func (r Result) Name() string {
	if r >= 0 && int(r) < len(resultNames) {
		return resultNames[r]
	}
	return fmt.Sprintf("ncclResult(%d)", int32(r))
}

// DataType is ncclDataType_t.
type DataType int32

// ncclDataType_t values.
const (
	Int8     DataType = 0
	Uint8    DataType = 1
	Int32    DataType = 2
	Uint32   DataType = 3
	Int64    DataType = 4
	Uint64   DataType = 5
	Float16  DataType = 6
	Float32  DataType = 7
	Float64  DataType = 8
	Bfloat16 DataType = 9
)

// RedOp is ncclRedOp_t.
type RedOp int32

// ncclRedOp_t values.
const (
	Sum  RedOp = 0
	Prod RedOp = 1
	Max  RedOp = 2
	Min  RedOp = 3
	Avg  RedOp = 4 // NCCL 2.10
)

// Ctx is the CUDA context an NCCL call runs in: SetCurrent is the address
// of cuCtxSetCurrent and Handle the CUcontext. The zero Ctx makes no
// context current (calls that touch no GPU).
type Ctx struct {
	SetCurrent uintptr
	Handle     uintptr
}

// Library is NCCL for nvlib's finder: libnccl.so, then libnccl.so.2,
// through the loader's search path and in the CUDA toolkit's
// directories.
var Library = nvlib.Library{Name: "NCCL", Base: "libnccl.so", Versions: []string{"2"}}

// Lib is the resolved entry-point table; read-only after Load.
type Lib struct {
	lib *dl.Library

	getVersion       uintptr
	getUniqueID      uintptr
	commInitAll      uintptr
	commInitScalable uintptr // optional, 2.23
	commSplit        uintptr // optional, 2.18
	commDestroy      uintptr
	commAbort        uintptr
	commGetAsyncErr  uintptr
	getErrorString   uintptr
	getLastError     uintptr // optional, 2.13
	allReduce        uintptr
	broadcast        uintptr
	reduce           uintptr
	allGather        uintptr
	reduceScatter    uintptr
	send             uintptr // 2.7
	recv             uintptr // 2.7
	groupStart       uintptr
	groupEnd         uintptr
}

// Load opens the first of names that dlopen accepts, or NCCL as nvlib
// finds Library when names is empty, and resolves its entry points. The
// error says which names were tried and why each failed, or which
// symbol is missing.
func Load(names ...string) (*Lib, error) {
	l := &Lib{}
	if len(names) == 0 {
		lib, err := nvlib.Load(Library, nil, func(*dl.Library) []dl.Symbol { return l.symbols() })
		if err != nil {
			return nil, err
		}
		l.lib = lib
		return l, nil
	}
	lib, err := dl.Open(names...)
	if err != nil {
		return nil, err
	}
	if err := lib.Resolve(l.symbols()); err != nil {
		lib.Close()
		return nil, err
	}
	l.lib = lib
	return l, nil
}

// symbols is the entry-point table.
func (l *Lib) symbols() []dl.Symbol {
	return []dl.Symbol{
		{Name: "ncclGetVersion", Addr: &l.getVersion},
		{Name: "ncclGetUniqueId", Addr: &l.getUniqueID},
		{Name: "ncclCommInitAll", Addr: &l.commInitAll},
		{Name: "ncclCommInitRankScalable", Addr: &l.commInitScalable, Optional: true},
		{Name: "ncclCommSplit", Addr: &l.commSplit, Optional: true},
		{Name: "ncclCommDestroy", Addr: &l.commDestroy},
		{Name: "ncclCommAbort", Addr: &l.commAbort},
		{Name: "ncclCommGetAsyncError", Addr: &l.commGetAsyncErr},
		{Name: "ncclGetErrorString", Addr: &l.getErrorString},
		{Name: "ncclGetLastError", Addr: &l.getLastError, Optional: true},
		{Name: "ncclAllReduce", Addr: &l.allReduce},
		{Name: "ncclBroadcast", Addr: &l.broadcast},
		{Name: "ncclReduce", Addr: &l.reduce},
		{Name: "ncclAllGather", Addr: &l.allGather},
		{Name: "ncclReduceScatter", Addr: &l.reduceScatter},
		{Name: "ncclSend", Addr: &l.send},
		{Name: "ncclRecv", Addr: &l.recv},
		{Name: "ncclGroupStart", Addr: &l.groupStart},
		{Name: "ncclGroupEnd", Addr: &l.groupEnd},
	}
}

// Name is the file name dlopen accepted.
func (l *Lib) Name() string { return l.lib.Name }

// Close releases the library.
func (l *Lib) Close() error { return l.lib.Close() }

// CanInitRank reports whether the library has ncclCommInitRankScalable
// and ncclCommSplit, which communicators of several processes need.
func (l *Lib) CanInitRank() bool { return l.commInitScalable != 0 && l.commSplit != 0 }

func (l *Lib) call(c Ctx, fn uintptr, args *dl.Args) Result {
	if c.SetCurrent == 0 {
		return Result(int32(dl.Call(fn, args)))
	}
	r, ok := dl.CallAfter(c.SetCurrent, c.Handle, fn, args)
	if !ok {
		// cuCtxSetCurrent failed: the CUDA error, reported as NCCL's.
		return UnhandledCudaError
	}
	return Result(int32(r))
}

// frameCall calls fn with f's arguments in c and releases f; out reads
// f's output slots (dl.Frame.Slot) before that.
func (l *Lib) frameCall(c Ctx, fn uintptr, f *dl.Frame, out func(f *dl.Frame)) Result {
	r := l.call(c, fn, &f.Args)
	if out != nil {
		out(f)
	}
	f.Release()
	return r
}

// Version is ncclGetVersion: the library's NCCL_VERSION_CODE (22703 for
// 2.27.3).
func (l *Lib) Version() (v int, r Result) {
	f := dl.NewFrame()
	f.Args[0] = f.Out(0)
	r = l.frameCall(Ctx{}, l.getVersion, f, func(f *dl.Frame) { v = int(*(*int32)(f.Slot(0))) })
	return v, r
}

// GetUniqueID is ncclGetUniqueId. It starts NCCL's bootstrap listener in
// this process, which ranks reach through the id.
func (l *Lib) GetUniqueID() (UniqueID, Result) {
	id := new(UniqueID)
	f := dl.NewFrame()
	f.Args[0] = f.Ptr(0, unsafe.Pointer(id))
	r := l.frameCall(Ctx{}, l.getUniqueID, f, nil)
	return *id, r
}

// CommInitAll is ncclCommInitAll over the CUDA devices devs (ordinals):
// one communicator per device, in this process.
func (l *Lib) CommInitAll(devs []int32) ([]Comm, Result) {
	if len(devs) == 0 {
		return nil, InvalidArgument
	}
	comms := make([]Comm, len(devs))
	d := append([]int32(nil), devs...)
	f := dl.NewFrame()
	f.Args[0] = f.Ptr(0, unsafe.Pointer(&comms[0]))
	f.Args[1] = uintptr(len(d))
	f.Args[2] = f.Ptr(1, unsafe.Pointer(&d[0]))
	r := l.frameCall(Ctx{}, l.commInitAll, f, nil)
	return comms, r
}

// config is the prefix of ncclConfig_t that NCCL 2.14 defined: NCCL
// reads the size a caller gives and takes its defaults for the fields
// past it (parseCommConfig), so the struct stays valid on every later
// version.
type config struct {
	size     uint64
	magic    uint32
	version  uint32
	blocking int32
	_        int32
}

// configMagic is NCCL_API_MAGIC; configVersion is NCCL_VERSION(2,14,0),
// the version whose ncclConfig_t ends with blocking.
const (
	configMagic   = 0xcafebeef
	configVersion = 21400
)

// CommInitRank is ncclCommInitRankScalable with a single id: this
// process's rank of nranks, on the device current in c. With blocking
// false the communicator comes back at once, its state InProgress until
// every rank has joined (CommGetAsyncError); CommAbort gives it up.
func (l *Lib) CommInitRank(c Ctx, id UniqueID, nranks, rank int, blocking bool) (Comm, Result) {
	if l.commInitScalable == 0 {
		return 0, InvalidUsage
	}
	type block struct {
		comm Comm
		id   UniqueID
		cfg  config
	}
	b := &block{id: id, cfg: config{size: uint64(unsafe.Sizeof(config{})), magic: configMagic, version: configVersion}}
	if blocking {
		b.cfg.blocking = 1
	}
	f := dl.NewFrame()
	f.Args = dl.Args{f.Ptr(0, unsafe.Pointer(&b.comm)), uintptr(nranks), uintptr(rank), 1,
		f.Ptr(1, unsafe.Pointer(&b.id)), f.Ptr(2, unsafe.Pointer(&b.cfg))}
	r := l.frameCall(c, l.commInitScalable, f, nil)
	return b.comm, r
}

// Split is where ncclCommSplit leaves the new communicator. NCCL writes
// it when the split is done, and a split of a non-blocking communicator is
// done later, by a thread of NCCL's: ncclCommSplit returns ncclSuccess
// (never ncclInProgress: its group's result is dropped) with the
// communicator still NULL, the parent's state (CommGetAsyncError of the
// parent) is InProgress until the split ends, and then Comm is the child
// (a failed one where the parent's state is an error, to be aborted; NULL
// where NCCL failed before making one). The Split must therefore stay
// reachable until the parent's state has left InProgress or the parent
// was aborted; Abandon keeps it for good otherwise.
type Split struct {
	comm uintptr // written by NCCL, possibly from its own thread
}

// Comm is the new communicator, 0 while NCCL has not written it.
func (s *Split) Comm() Comm { return Comm(atomic.LoadUintptr(&s.comm)) }

var abandoned struct {
	sync.Mutex
	splits []*Split
}

// Abandon keeps s reachable for the rest of the process, for a caller
// that gives up on a split NCCL may still be writing.
func (s *Split) Abandon() {
	abandoned.Lock()
	abandoned.splits = append(abandoned.splits, s)
	abandoned.Unlock()
}

// CommSplit is ncclCommSplit: the ranks of comm that pass the same color
// make a new communicator, ordered by key, blocking or not (its config;
// whether the split itself is asynchronous is the parent's). See Split
// for when the new communicator is there.
func (l *Lib) CommSplit(c Ctx, comm Comm, color, key int, blocking bool) (*Split, Result) {
	s := new(Split)
	if l.commSplit == 0 {
		return s, InvalidUsage
	}
	cfg := &config{size: uint64(unsafe.Sizeof(config{})), magic: configMagic, version: configVersion}
	if blocking {
		cfg.blocking = 1
	}
	f := dl.NewFrame()
	f.Args = dl.Args{uintptr(comm), uintptr(color), uintptr(key), f.Ptr(0, unsafe.Pointer(&s.comm)), f.Ptr(1, unsafe.Pointer(cfg))}
	r := l.frameCall(c, l.commSplit, f, nil)
	return s, r
}

// CommDestroy is ncclCommDestroy.
func (l *Lib) CommDestroy(c Ctx, comm Comm) Result {
	return l.call(c, l.commDestroy, &dl.Args{uintptr(comm)})
}

// CommAbort is ncclCommAbort.
func (l *Lib) CommAbort(c Ctx, comm Comm) Result {
	return l.call(c, l.commAbort, &dl.Args{uintptr(comm)})
}

// CommGetAsyncError is ncclCommGetAsyncError: the communicator's state
// (InProgress while a non-blocking call is under way, an error once one
// failed).
func (l *Lib) CommGetAsyncError(comm Comm) (state, r Result) {
	f := dl.NewFrame()
	f.Args[0], f.Args[1] = uintptr(comm), f.Out(0)
	r = l.frameCall(Ctx{}, l.commGetAsyncErr, f, func(f *dl.Frame) { state = Result(*(*int32)(f.Slot(0))) })
	return state, r
}

// ErrorString is ncclGetErrorString.
func (l *Lib) ErrorString(r Result) string {
	p := dl.Call(l.getErrorString, &dl.Args{uintptr(uint32(r))})
	return dl.GoString(*(*unsafe.Pointer)(unsafe.Pointer(&p)))
}

// LastError is ncclGetLastError: NCCL's message about the last failure;
// "" where the library has none.
func (l *Lib) LastError(comm Comm) string {
	if l.getLastError == 0 {
		return ""
	}
	p := dl.Call(l.getLastError, &dl.Args{uintptr(comm)})
	return dl.GoString(*(*unsafe.Pointer)(unsafe.Pointer(&p)))
}

// AllReduce is ncclAllReduce.
func (l *Lib) AllReduce(c Ctx, send, recv uintptr, count uint64, dt DataType, op RedOp, comm Comm, stream uintptr) Result {
	return l.call(c, l.allReduce, &dl.Args{send, recv, uintptr(count), uintptr(dt), uintptr(op), uintptr(comm), stream})
}

// Broadcast is ncclBroadcast.
func (l *Lib) Broadcast(c Ctx, send, recv uintptr, count uint64, dt DataType, root int, comm Comm, stream uintptr) Result {
	return l.call(c, l.broadcast, &dl.Args{send, recv, uintptr(count), uintptr(dt), uintptr(root), uintptr(comm), stream})
}

// Reduce is ncclReduce.
func (l *Lib) Reduce(c Ctx, send, recv uintptr, count uint64, dt DataType, op RedOp, root int, comm Comm, stream uintptr) Result {
	return l.call(c, l.reduce, &dl.Args{send, recv, uintptr(count), uintptr(dt), uintptr(op), uintptr(root), uintptr(comm), stream})
}

// AllGather is ncclAllGather; count is what each rank sends.
func (l *Lib) AllGather(c Ctx, send, recv uintptr, count uint64, dt DataType, comm Comm, stream uintptr) Result {
	return l.call(c, l.allGather, &dl.Args{send, recv, uintptr(count), uintptr(dt), uintptr(comm), stream})
}

// ReduceScatter is ncclReduceScatter; count is what each rank receives.
func (l *Lib) ReduceScatter(c Ctx, send, recv uintptr, count uint64, dt DataType, op RedOp, comm Comm, stream uintptr) Result {
	return l.call(c, l.reduceScatter, &dl.Args{send, recv, uintptr(count), uintptr(dt), uintptr(op), uintptr(comm), stream})
}

// Send is ncclSend.
func (l *Lib) Send(c Ctx, buf uintptr, count uint64, dt DataType, peer int, comm Comm, stream uintptr) Result {
	return l.call(c, l.send, &dl.Args{buf, uintptr(count), uintptr(dt), uintptr(peer), uintptr(comm), stream})
}

// Recv is ncclRecv.
func (l *Lib) Recv(c Ctx, buf uintptr, count uint64, dt DataType, peer int, comm Comm, stream uintptr) Result {
	return l.call(c, l.recv, &dl.Args{buf, uintptr(count), uintptr(dt), uintptr(peer), uintptr(comm), stream})
}

// GroupStart is ncclGroupStart. NCCL keeps the group per OS thread: the
// caller must stay on one thread until GroupEnd.
func (l *Lib) GroupStart() Result { return l.call(Ctx{}, l.groupStart, &dl.Args{}) }

// GroupEnd is ncclGroupEnd.
func (l *Lib) GroupEnd() Result { return l.call(Ctx{}, l.groupEnd, &dl.Args{}) }
