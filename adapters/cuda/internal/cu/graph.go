package cu

import (
	"runtime"
	"unsafe"

	"github.com/gour-dev/gour/internal/dl"
)

// This file binds the launch and queue model beyond cuLaunchKernel:
// cuLaunchKernelEx with launch attributes, CUDA graphs, stream capture,
// stream priorities and occupancy. Layouts are those of cuda.h of CUDA
// 12.x and 13.0 on a 64-bit System V platform (TestLaunchLayouts).

// More opaque CUDA handles.
type (
	// Graph is a CUgraph.
	Graph uintptr
	// GraphExec is a CUgraphExec, an instantiated graph.
	GraphExec uintptr
	// GraphNode is a CUgraphNode.
	GraphNode uintptr
)

// LaunchAttributeID is a CUlaunchAttributeID (also CUkernelNodeAttrID).
type LaunchAttributeID uint32

// Launch attributes (CUlaunchAttributeID) the adapter sets.
const (
	LaunchAttributeCooperative      LaunchAttributeID = 2 // CU_LAUNCH_ATTRIBUTE_COOPERATIVE (int)
	LaunchAttributeClusterDimension LaunchAttributeID = 4 // CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION (3 × unsigned int)
)

// LaunchAttribute is CUlaunchAttribute, 72 bytes: the id, 4 bytes of
// padding, then the 64-byte CUlaunchAttributeValue union, whose members
// the adapter uses are an int (cooperative) or three unsigned ints
// (clusterDim), both at its start: Value holds them as 32-bit words.
type LaunchAttribute struct {
	ID    LaunchAttributeID
	_     uint32
	Value [16]uint32
}

// LaunchConfig is CUlaunchConfig, 56 bytes.
type LaunchConfig struct {
	GridDimX, GridDimY, GridDimZ    uint32
	BlockDimX, BlockDimY, BlockDimZ uint32
	SharedMemBytes                  uint32
	_                               uint32
	Stream                          Stream
	Attrs                           *LaunchAttribute
	NumAttrs                        uint32
	_                               uint32
}

// KernelNodeParams is CUDA_KERNEL_NODE_PARAMS_v2 (what cuda.h of CUDA 12
// calls CUDA_KERNEL_NODE_PARAMS), 72 bytes; Kern and Ctx stay 0 for a
// CUfunction, whose context is its module's.
type KernelNodeParams struct {
	Func                            Function
	GridDimX, GridDimY, GridDimZ    uint32
	BlockDimX, BlockDimY, BlockDimZ uint32
	SharedMemBytes                  uint32
	_                               uint32
	KernelParams                    *unsafe.Pointer
	Extra                           *unsafe.Pointer
	Kern                            uintptr
	Ctx                             Context
}

// MemsetNodeParams is CUDA_MEMSET_NODE_PARAMS, 40 bytes: height rows of
// width elements of elementSize (1, 2 or 4) bytes, pitch bytes apart, set
// to value.
type MemsetNodeParams struct {
	Dst         DevicePtr
	Pitch       uintptr
	Value       uint32
	ElementSize uint32
	Width       uintptr
	Height      uintptr
}

// StreamCaptureMode is a CUstreamCaptureMode.
type StreamCaptureMode uint32

// Stream capture modes (CUstreamCaptureMode).
const (
	StreamCaptureModeGlobal      StreamCaptureMode = 0 // CU_STREAM_CAPTURE_MODE_GLOBAL
	StreamCaptureModeThreadLocal StreamCaptureMode = 1 // CU_STREAM_CAPTURE_MODE_THREAD_LOCAL
	StreamCaptureModeRelaxed     StreamCaptureMode = 2 // CU_STREAM_CAPTURE_MODE_RELAXED
)

// HasLaunchKernelEx reports whether cuLaunchKernelEx (CUDA 11.8) is
// exported.
func (l *Lib) HasLaunchKernelEx() bool { return l.launchKernelEx != 0 }

// HasGraphs reports whether the graph entry points the adapter uses (CUDA
// 12.0's _v2 kernel-node calls among them) are exported.
func (l *Lib) HasGraphs() bool {
	return l.graphCreate != 0 && l.graphDestroy != 0 && l.graphAddKernelNode != 0 &&
		l.graphAddMemcpyNode != 0 && l.graphAddMemsetNode != 0 && l.graphInstantiate != 0 &&
		l.graphLaunch != 0 && l.graphExecDestroy != 0 && l.graphExecKernelNodeSetParams != 0
}

// HasStreamCapture reports whether cuStreamBeginCapture_v2 and
// cuStreamEndCapture are exported.
func (l *Lib) HasStreamCapture() bool { return l.streamBeginCapture != 0 && l.streamEndCapture != 0 }

// LaunchKernelEx calls cuLaunchKernelEx with config, which carries the
// grid, block, shared memory, stream and attributes. Like LaunchKernel it
// allocates nothing: config, its attributes, params and the values they
// point to must be heap memory the caller keeps.
func (l *Lib) LaunchKernelEx(config *LaunchConfig, fn Function, params, extra *unsafe.Pointer) Result {
	if l.launchKernelEx == 0 {
		return NotSupported
	}
	args := dl.Args{uintptr(unsafe.Pointer(config)), uintptr(fn), uintptr(unsafe.Pointer(params)), uintptr(unsafe.Pointer(extra))}
	r := result(dl.Call(l.launchKernelEx, &args))
	runtime.KeepAlive(config)
	runtime.KeepAlive(params)
	runtime.KeepAlive(extra)
	return r
}

// LaunchKernelExIn is LaunchKernelEx for a function of context ctx from
// whatever OS thread, as LaunchKernelIn: a driver that refuses the launch
// gets ctx made current and the launch again, in one C call.
func (l *Lib) LaunchKernelExIn(ctx Context, config *LaunchConfig, fn Function, params, extra *unsafe.Pointer) Result {
	if l.launchKernelEx == 0 || l.ctxSetCurrent == 0 {
		return NotSupported
	}
	args := dl.Args{uintptr(unsafe.Pointer(config)), uintptr(fn), uintptr(unsafe.Pointer(params)), uintptr(unsafe.Pointer(extra))}
	r := result(dl.Call(l.launchKernelEx, &args))
	if r != Success {
		rr, _ := dl.CallAfter(l.ctxSetCurrent, uintptr(ctx), l.launchKernelEx, &args)
		r = result(rr)
	}
	runtime.KeepAlive(config)
	runtime.KeepAlive(params)
	runtime.KeepAlive(extra)
	return r
}

// GraphCreate calls cuGraphCreate (flags must be 0).
func (l *Lib) GraphCreate() (Graph, Result) {
	f := dl.NewFrame()
	f.Args = dl.Args{f.Out(0), 0}
	r, out, _ := call(f, l.graphCreate)
	return Graph(out[0]), r
}

// GraphDestroy calls cuGraphDestroy: the graph and its nodes; executable
// graphs instantiated from it are independent of it.
func (l *Lib) GraphDestroy(g Graph) Result { return call1(l.graphDestroy, uintptr(g)) }

// deps is the dependency list of a node added after dep (0: none).
func deps(f *dl.Frame, slot int, dep *GraphNode) (uintptr, uintptr) {
	if *dep == 0 {
		return 0, 0
	}
	return f.Ptr(slot, unsafe.Pointer(dep)), 1
}

// GraphAddKernelNode calls cuGraphAddKernelNode_v2: a kernel node of g
// that depends on *dep (none when *dep is 0). The driver copies p and the
// parameter values p.KernelParams points to: the node owns its copy.
func (l *Lib) GraphAddKernelNode(g Graph, dep *GraphNode, p *KernelNodeParams) (GraphNode, Result) {
	f := dl.NewFrame()
	dp, n := deps(f, 0, dep)
	f.Args = dl.Args{f.Out(0), uintptr(g), dp, n, f.Ptr(1, unsafe.Pointer(p))}
	f.Ptr(2, unsafe.Pointer(p.KernelParams))
	r, out, _ := call(f, l.graphAddKernelNode)
	return GraphNode(out[0]), r
}

// GraphAddMemcpyNode calls cuGraphAddMemcpyNode: a copy node of g in
// context ctx, after *dep.
func (l *Lib) GraphAddMemcpyNode(g Graph, dep *GraphNode, p *Memcpy3D, ctx Context) (GraphNode, Result) {
	f := dl.NewFrame()
	dp, n := deps(f, 0, dep)
	f.Args = dl.Args{f.Out(0), uintptr(g), dp, n, f.Ptr(1, unsafe.Pointer(p)), uintptr(ctx)}
	r, out, _ := call(f, l.graphAddMemcpyNode)
	return GraphNode(out[0]), r
}

// GraphAddMemsetNode calls cuGraphAddMemsetNode: a memset node of g in
// context ctx, after *dep.
func (l *Lib) GraphAddMemsetNode(g Graph, dep *GraphNode, p *MemsetNodeParams, ctx Context) (GraphNode, Result) {
	f := dl.NewFrame()
	dp, n := deps(f, 0, dep)
	f.Args = dl.Args{f.Out(0), uintptr(g), dp, n, f.Ptr(1, unsafe.Pointer(p)), uintptr(ctx)}
	r, out, _ := call(f, l.graphAddMemsetNode)
	return GraphNode(out[0]), r
}

// GraphKernelNodeSetAttribute calls cuGraphKernelNodeSetAttribute with
// the value of a (its ID names the attribute). NotSupported when missing.
func (l *Lib) GraphKernelNodeSetAttribute(n GraphNode, a *LaunchAttribute) Result {
	f := dl.NewFrame()
	f.Args = dl.Args{uintptr(n), uintptr(a.ID), f.Ptr(0, unsafe.Pointer(&a.Value))}
	r, _, _ := call(f, l.graphKernelNodeSetAttribute)
	return r
}

// GraphInstantiate calls cuGraphInstantiateWithFlags.
func (l *Lib) GraphInstantiate(g Graph, flags uint64) (GraphExec, Result) {
	f := dl.NewFrame()
	f.Args = dl.Args{f.Out(0), uintptr(g), uintptr(flags)}
	r, out, _ := call(f, l.graphInstantiate)
	return GraphExec(out[0]), r
}

// GraphLaunch calls cuGraphLaunch: e runs in stream s, after what s ran
// before and after e's previous launches.
func (l *Lib) GraphLaunch(e GraphExec, s Stream) Result {
	f := dl.NewFrame()
	f.Args = dl.Args{uintptr(e), uintptr(s)}
	r, _, _ := call(f, l.graphLaunch)
	return r
}

// GraphExecDestroy calls cuGraphExecDestroy. A launch of e in flight is
// not cut short: the driver frees e when it completes.
func (l *Lib) GraphExecDestroy(e GraphExec) Result { return call1(l.graphExecDestroy, uintptr(e)) }

// GraphExecKernelNodeSetParams calls cuGraphExecKernelNodeSetParams_v2:
// node n of e takes p (same function) for launches of e made afterwards;
// the driver copies p and the values it points to.
func (l *Lib) GraphExecKernelNodeSetParams(e GraphExec, n GraphNode, p *KernelNodeParams) Result {
	f := dl.NewFrame()
	f.Args = dl.Args{uintptr(e), uintptr(n), f.Ptr(0, unsafe.Pointer(p))}
	f.Ptr(1, unsafe.Pointer(p.KernelParams))
	r, _, _ := call(f, l.graphExecKernelNodeSetParams)
	return r
}

// StreamBeginCapture calls cuStreamBeginCapture_v2: what is enqueued on s
// from now on is recorded into a graph instead of run.
func (l *Lib) StreamBeginCapture(s Stream, mode StreamCaptureMode) Result {
	f := dl.NewFrame()
	f.Args = dl.Args{uintptr(s), uintptr(mode)}
	r, _, _ := call(f, l.streamBeginCapture)
	return r
}

// StreamEndCapture calls cuStreamEndCapture: the graph recorded since
// StreamBeginCapture.
func (l *Lib) StreamEndCapture(s Stream) (Graph, Result) {
	f := dl.NewFrame()
	f.Args = dl.Args{uintptr(s), f.Out(0)}
	r, out, _ := call(f, l.streamEndCapture)
	return Graph(out[0]), r
}

// StreamCreateWithPriority calls cuStreamCreateWithPriority; a lower
// number is a higher priority (see CtxGetStreamPriorityRange).
func (l *Lib) StreamCreateWithPriority(flags uint32, priority int32) (Stream, Result) {
	f := dl.NewFrame()
	f.Args = dl.Args{f.Out(0), uintptr(flags), uintptr(priority)}
	r, out, _ := call(f, l.streamCreateWithPriority)
	return Stream(out[0]), r
}

// CtxGetStreamPriorityRange calls cuCtxGetStreamPriorityRange in the
// current context: least is the lowest priority (the default, 0 on every
// GPU so far), greatest the highest, a smaller number.
func (l *Lib) CtxGetStreamPriorityRange() (least, greatest int32, r Result) {
	f := dl.NewFrame()
	f.Args = dl.Args{f.Out(0), f.Out(1)}
	r, out, _ := call(f, l.ctxGetStreamPriorityRange)
	return int32At(&out[0]), int32At(&out[1]), r
}

// OccupancyMaxActiveBlocksPerMultiprocessor calls
// cuOccupancyMaxActiveBlocksPerMultiprocessor: how many blocks of
// blockSize threads and dynamicSMem bytes of dynamic shared memory fit on
// one multiprocessor at once.
func (l *Lib) OccupancyMaxActiveBlocksPerMultiprocessor(fn Function, blockSize int32, dynamicSMem uintptr) (int32, Result) {
	f := dl.NewFrame()
	f.Args = dl.Args{f.Out(0), uintptr(fn), uintptr(blockSize), dynamicSMem}
	r, out, _ := call(f, l.occupancyMaxActiveBlocks)
	return int32At(&out[0]), r
}
