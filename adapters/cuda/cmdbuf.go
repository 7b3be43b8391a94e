package cuda

import (
	"strconv"

	"github.com/gour-dev/gour/adapters/cuda/internal/cu"
	"github.com/gour-dev/gour/ur/driver"
)

// This file is command buffers as CUDA graphs (driver.CommandBuffer).
// Each command is one node, or a few for a long fill pattern, that
// depends on the node recorded before it, so the graph runs its commands
// in the order recorded, as a queue would.

var (
	_ driver.CommandBufferContext = (*context)(nil)
	_ driver.CommandBuffer        = (*cmdbuf)(nil)
)

// cmdbuf is a CUDA graph and, once finalized, its executable graph. The
// front end serialises every call on one command buffer.
type cmdbuf struct {
	dev   *device
	graph cu.Graph
	exec  cu.GraphExec // 0 until Finalize
	// last is the node the next command depends on; 0 before the first.
	last cu.GraphNode
	// captured: the graph came from a stream capture (EndCapture), and
	// takes no Append.
	captured bool
}

// graphLaunch is a recorded launch, the Command UpdateLaunch takes. It
// keeps what the node was last given (the driver keeps its own copy), so
// that an update of the range keeps the arguments and the reverse.
type graphLaunch struct {
	node   cu.GraphNode
	k      *kernel
	props  driver.LaunchProperties
	params cu.KernelNodeParams
	args   *argTable // the argument values params.KernelParams points into
}

// graphCommand is any other recorded command: UpdateLaunch refuses it.
type graphCommand struct{ node cu.GraphNode }

// NewCommandBuffer creates an empty graph. Every executable graph can
// have its kernel nodes' parameters set (cuGraphExecKernelNodeSetParams),
// so Updatable needs nothing more.
func (c *context) NewCommandBuffer(dev driver.Device, _ driver.CommandBufferProperties) (driver.CommandBuffer, error) {
	d := c.own(dev)
	if !d.a.cu.HasGraphs() {
		return nil, driver.Errorf(driver.ResultUnsupportedFeature, "the CUDA driver lacks the graph calls the adapter uses (CUDA 12.0)")
	}
	if err := d.bind(); err != nil {
		return nil, err
	}
	defer unbind()
	g, r := d.a.cu.GraphCreate()
	if err := check("cuGraphCreate", r); err != nil {
		return nil, err
	}
	return &cmdbuf{dev: d, graph: g}, nil
}

func (cb *cmdbuf) recording() error {
	switch {
	case cb.captured:
		return driver.Errorf(driver.ResultInvalidOperation, "a captured command buffer takes no more commands")
	case cb.exec != 0:
		return driver.Errorf(driver.ResultInvalidOperation, "the command buffer is finalized")
	}
	return nil
}

// AppendLaunch adds a kernel node; the driver copies the argument values
// into the node, from the launch's own table, which the command keeps for
// UpdateLaunch. Cooperative launches and clusters are the node's launch
// attributes (cuGraphKernelNodeSetAttribute).
func (cb *cmdbuf) AppendLaunch(dk driver.Kernel, r driver.NDRange, args []driver.LaunchArg, props driver.LaunchProperties) (driver.Command, error) {
	if err := cb.recording(); err != nil {
		return nil, err
	}
	k := dk.(*kernel)
	gl := &graphLaunch{k: k, props: props, args: new(argTable)}
	if err := gl.set(cb.dev, &r, args, true); err != nil {
		return nil, err
	}
	l := cb.dev.a.cu
	var attrs [2]cu.LaunchAttribute
	n := launchAttrs(&attrs, &props)
	if err := cb.dev.bind(); err != nil {
		return nil, err
	}
	defer unbind()
	node, res := l.GraphAddKernelNode(cb.graph, &cb.last, &gl.params)
	if err := check("cuGraphAddKernelNode", res); err != nil {
		return nil, err
	}
	for i := range n {
		if res := l.GraphKernelNodeSetAttribute(node, &attrs[i]); res != cu.Success {
			e := cuError("cuGraphKernelNodeSetAttribute", res)
			e.Message += " (cooperative or cluster launch in a graph)"
			return nil, e
		}
	}
	gl.node, cb.last = node, node
	return gl, nil
}

// set fills the node parameters for a launch over r (nil: keep) with args
// (nil: keep, unless first: the launch's first arguments).
func (gl *graphLaunch) set(d *device, r *driver.NDRange, args []driver.LaunchArg, first bool) error {
	k := gl.k
	if r != nil {
		geo, err := d.geometryOf(k, r, false)
		if err != nil {
			return err
		}
		p := &gl.params
		p.Func = k.fnOn(d)
		p.GridDimX, p.GridDimY, p.GridDimZ = geo.grid[0], geo.grid[1], geo.grid[2]
		p.BlockDimX, p.BlockDimY, p.BlockDimZ = geo.block[0], geo.block[1], geo.block[2]
	}
	if args != nil || first {
		t := new(argTable)
		shared, err := t.fill(k, args, gl.props.DynamicLocalMem)
		if err != nil {
			return err
		}
		if err := k.ensureShared(d, shared); err != nil {
			return err
		}
		gl.args = t
		gl.params.SharedMemBytes = uint32(shared)
		gl.params.KernelParams = t.params()
	}
	return nil
}

// AppendCopy adds a copy node between buffers.
func (cb *cmdbuf) AppendCopy(src, dst driver.Mem, srcOffset, dstOffset, size uint64) (driver.Command, error) {
	return cb.copyNode(cu.MemoryTypeDevice, dst.(*mem).ptr+cu.DevicePtr(dstOffset), src.(*mem).ptr+cu.DevicePtr(srcOffset), size)
}

// AppendUSMCopy adds a copy node between USM pointers, which unified
// addressing tells apart. A graph keeps the addresses, so pageable host
// memory, which a stream's copy stages at the enqueue, cannot take part.
func (cb *cmdbuf) AppendUSMCopy(dst, src uintptr, size uint64) (driver.Command, error) {
	return cb.copyNode(cu.MemoryTypeUnified, cu.DevicePtr(dst), cu.DevicePtr(src), size)
}

// copyNode adds a one-row CUDA_MEMCPY3D of size bytes.
func (cb *cmdbuf) copyNode(t cu.MemoryType, dst, src cu.DevicePtr, size uint64) (driver.Command, error) {
	if err := cb.recording(); err != nil {
		return nil, err
	}
	p := &cu.Memcpy3D{
		SrcMemoryType: t, SrcDevice: src, SrcPitch: size, SrcHeight: 1,
		DstMemoryType: t, DstDevice: dst, DstPitch: size, DstHeight: 1,
		WidthInBytes: size, Height: 1, Depth: 1,
	}
	d := cb.dev
	if err := d.bind(); err != nil {
		return nil, err
	}
	defer unbind()
	node, r := d.a.cu.GraphAddMemcpyNode(cb.graph, &cb.last, p, d.ctx)
	if err := check("cuGraphAddMemcpyNode", r); err != nil {
		return nil, err
	}
	cb.last = node
	return &graphCommand{node: node}, nil
}

func (cb *cmdbuf) AppendFill(m driver.Mem, pattern []byte, offset, size uint64) (driver.Command, error) {
	return cb.fillNodes(m.(*mem).ptr+cu.DevicePtr(offset), pattern, size)
}

func (cb *cmdbuf) AppendUSMFill(ptr uintptr, pattern []byte, size uint64) (driver.Command, error) {
	return cb.fillNodes(cu.DevicePtr(ptr), pattern, size)
}

// fillNodes adds memset nodes: one of the pattern's width for 1, 2 and 4
// bytes; for a longer pattern of whole 32-bit words, one strided memset
// per word of the pattern (a column of size/len(pattern) rows, one word
// wide, the pattern's length apart), as the queue's fill does, chained.
// Memset nodes have no other element size, so any other pattern, and a
// strided memset the driver refuses, is ResultUnsupportedFeature.
func (cb *cmdbuf) fillNodes(ptr cu.DevicePtr, pattern []byte, size uint64) (driver.Command, error) {
	if err := cb.recording(); err != nil {
		return nil, err
	}
	n := uint64(len(pattern))
	var nodes []cu.MemsetNodeParams
	switch {
	case n == 1:
		nodes = []cu.MemsetNodeParams{{Dst: ptr, Value: uint32(pattern[0]), ElementSize: 1, Width: uintptr(size), Height: 1, Pitch: uintptr(size)}}
	case n == 2:
		nodes = []cu.MemsetNodeParams{{Dst: ptr, Value: uint32(pattern[0]) | uint32(pattern[1])<<8, ElementSize: 2, Width: uintptr(size / 2), Height: 1, Pitch: uintptr(size)}}
	case n == 4:
		nodes = []cu.MemsetNodeParams{{Dst: ptr, Value: word(pattern), ElementSize: 4, Width: uintptr(size / 4), Height: 1, Pitch: uintptr(size)}}
	case n > 4 && n%4 == 0:
		for w := uint64(0); w < n; w += 4 {
			nodes = append(nodes, cu.MemsetNodeParams{Dst: ptr + cu.DevicePtr(w), Value: word(pattern[w:]), ElementSize: 4, Width: 1, Height: uintptr(size / n), Pitch: uintptr(n)})
		}
	default:
		return nil, driver.Errorf(driver.ResultUnsupportedFeature, "CUDA graph memset nodes cannot fill with a %d-byte pattern (1, 2, 4 or a multiple of 4 bytes)", n)
	}
	d := cb.dev
	if err := d.bind(); err != nil {
		return nil, err
	}
	defer unbind()
	last := cb.last
	for i := range nodes {
		node, r := d.a.cu.GraphAddMemsetNode(cb.graph, &last, &nodes[i], d.ctx)
		if r != cu.Success {
			e := cuError("cuGraphAddMemsetNode", r)
			if n > 4 {
				e.Result = driver.ResultUnsupportedFeature
				e.Message += " (a strided memset node for a " + strconv.FormatUint(n, 10) + "-byte fill pattern)"
			}
			// Nodes added before stay in the graph, unconnected to what
			// follows: they fill part of the range, which a command that
			// failed leaves undefined anyway.
			return nil, e
		}
		last = node
	}
	cb.last = last
	return &graphCommand{node: last}, nil
}

// Finalize instantiates the graph.
func (cb *cmdbuf) Finalize() error {
	if cb.exec != 0 {
		return driver.Errorf(driver.ResultInvalidOperation, "the command buffer is finalized")
	}
	d := cb.dev
	if err := d.bind(); err != nil {
		return err
	}
	defer unbind()
	e, r := d.a.cu.GraphInstantiate(cb.graph, 0)
	if err := check("cuGraphInstantiateWithFlags", r); err != nil {
		return err
	}
	cb.exec = e
	return nil
}

// Enqueue is cuGraphLaunch on one of the queue's streams, after the wait
// list, as the queue's other commands.
func (cb *cmdbuf) Enqueue(dq driver.Queue, wait []driver.Event, wantEvent bool) (driver.Event, error) {
	if cb.exec == 0 {
		return nil, driver.Errorf(driver.ResultInvalidOperation, "finalize the command buffer before enqueuing it")
	}
	q := dq.(*queue)
	exec := cb.exec
	return q.enqueue("cuGraphLaunch", false, wait, wantEvent, func(s cu.Stream) cu.Result {
		return q.cu.GraphLaunch(exec, s)
	})
}

// UpdateLaunch sets a recorded launch's new arguments and range on the
// executable graph (cuGraphExecKernelNodeSetParams), for the replays
// enqueued afterwards; replays already enqueued run as they were.
func (cb *cmdbuf) UpdateLaunch(cmd driver.Command, args []driver.LaunchArg, r *driver.NDRange) error {
	gl, ok := cmd.(*graphLaunch)
	if !ok {
		return driver.Errorf(driver.ResultInvalidValue, "only launches can be updated")
	}
	if cb.exec == 0 {
		return driver.Errorf(driver.ResultInvalidOperation, "finalize the command buffer before updating its commands")
	}
	next := *gl
	if err := next.set(cb.dev, r, args, false); err != nil {
		return err
	}
	d := cb.dev
	if err := d.bind(); err != nil {
		return err
	}
	defer unbind()
	if err := check("cuGraphExecKernelNodeSetParams", d.a.cu.GraphExecKernelNodeSetParams(cb.exec, gl.node, &next.params)); err != nil {
		return err
	}
	*gl = next
	return nil
}

func (cb *cmdbuf) Emulated() bool { return false }

// Release destroys the executable graph and the graph at once:
// cuGraphExecDestroy lets a replay in flight complete and frees the
// executable graph afterwards, and the executable graph does not need
// the graph it was instantiated from.
func (cb *cmdbuf) Release() error {
	d := cb.dev
	if err := d.bind(); err != nil {
		return err
	}
	defer unbind()
	var err error
	if cb.exec != 0 {
		err = check("cuGraphExecDestroy", d.a.cu.GraphExecDestroy(cb.exec))
	}
	if e := check("cuGraphDestroy", d.a.cu.GraphDestroy(cb.graph)); err == nil {
		err = e
	}
	return err
}
