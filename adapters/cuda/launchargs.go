package cuda

import (
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/gour-dev/gour/adapters/cuda/internal/cu"
	"github.com/gour-dev/gour/ur/driver"
)

// This file is the launch with arguments (driver.ArgLauncher): the
// kernelParams array is built per launch in pooled scratch, never in the
// kernel, so any number of goroutines launch one kernel at once with no
// lock, and a launch allocates nothing.

var _ driver.ArgLauncher = (*queue)(nil)

// argTable is one launch's scratch: the argument values, each in its own
// run of 8-byte words as in the kernel's arena, the kernelParams array
// pointing into them, and cuLaunchKernelEx's configuration. It is heap
// memory from a pool, so what the driver reads during the call cannot
// move, and it goes back to the pool once the launch call has returned:
// cuLaunchKernel and cuLaunchKernelEx copy the values, and
// cuGraphAddKernelNode and cuGraphExecKernelNodeSetParams copy them into
// the node.
type argTable struct {
	arena []uint64
	ptrs  []unsafe.Pointer
	cfg   cu.LaunchConfig
	attrs [2]cu.LaunchAttribute
	call  driver.NativeCall // the cuLaunchKernel of an in-order queue's launch
}

var argTables = sync.Pool{New: func() any { return new(argTable) }}

// localAlign is the alignment of each local argument in dynamic shared
// memory, as SetArgLocal lays them out.
const localAlign = 16

func alignLocal(n uint64) uint64 { return (n + localAlign - 1) &^ (localAlign - 1) }

// argSize is the size the kernel's parameter i has, or, where the driver
// gave no parameter list, the size the argument brings: a pointer and a
// local offset are 8 bytes, as SetArgMem and SetArgLocal store them.
func (k *kernel) argSize(i int, a *driver.LaunchArg) (uintptr, error) {
	if k.params != nil {
		size := k.params[i].Size
		switch a.Kind {
		case driver.ArgValue:
			if uint64(size) != a.Size {
				return 0, driver.Errorf(driver.ResultInvalidKernelArgumentSize, "argument %d of kernel %s is %d bytes, not %d", i, k.name, size, a.Size)
			}
		case driver.ArgMem:
			if size != 8 {
				return 0, driver.Errorf(driver.ResultInvalidKernelArgumentSize, "argument %d of kernel %s is %d bytes, not a pointer", i, k.name, size)
			}
		case driver.ArgLocal:
			if size != 4 && size != 8 {
				return 0, driver.Errorf(driver.ResultInvalidKernelArgumentSize, "local argument %d must be a 4- or 8-byte offset, not %d bytes", i, size)
			}
		}
		return size, nil
	}
	if a.Kind == driver.ArgValue {
		return uintptr(a.Size), nil
	}
	return 8, nil
}

// fill lays args out for a launch of k and returns the launch's dynamic
// shared memory: dynamic bytes for the kernel's own extern __shared__
// arrays first, from offset 0, then each local argument, 16-byte
// aligned, its offset written as the argument, as SetArgLocal does.
func (t *argTable) fill(k *kernel, args []driver.LaunchArg, dynamic uint64) (uint64, error) {
	if k.params != nil && len(args) != len(k.params) {
		return 0, driver.Errorf(driver.ResultInvalidKernelArgs, "kernel %s takes %d arguments, the launch gives %d", k.name, len(k.params), len(args))
	}
	words := 0
	for i := range args {
		size, err := k.argSize(i, &args[i])
		if err != nil {
			return 0, err
		}
		words += int((size + 7) / 8)
	}
	if cap(t.arena) < words {
		t.arena = make([]uint64, words)
	}
	if cap(t.ptrs) < len(args) {
		t.ptrs = make([]unsafe.Pointer, len(args))
	}
	t.arena, t.ptrs = t.arena[:words], t.ptrs[:len(args)]
	shared := dynamic
	local := alignLocal(dynamic)
	w := 0
	for i := range args {
		a := &args[i]
		size, _ := k.argSize(i, a)
		p := unsafe.Pointer(&t.arena[w])
		t.ptrs[i] = p
		w += int((size + 7) / 8)
		switch a.Kind {
		case driver.ArgValue, driver.ArgMem:
			if err := writeArg(p, size, a, k, i); err != nil {
				return 0, err
			}
		case driver.ArgLocal:
			if size == 4 {
				*(*uint32)(p) = uint32(local)
			} else {
				*(*uint64)(p) = local
			}
			local += alignLocal(a.Size)
			shared = local
		default:
			return 0, driver.Errorf(driver.ResultInvalidKernelArgs, "argument %d of kernel %s has no kind", i, k.name)
		}
	}
	if shared > 1<<32-1 {
		return 0, driver.Errorf(driver.ResultOutOfResources, "kernel %s: %d bytes of dynamic shared memory", k.name, shared)
	}
	return shared, nil
}

// writeArg writes value or memory argument i of k, size bytes, at p in
// an argument table.
func writeArg(p unsafe.Pointer, size uintptr, a *driver.LaunchArg, k *kernel, i int) error {
	switch {
	case a.Kind == driver.ArgMem && a.Mem != nil:
		*(*cu.DevicePtr)(p) = a.Mem.(*mem).arg()
	case a.Kind == driver.ArgMem:
		*(*cu.DevicePtr)(p) = cu.DevicePtr(a.Ptr)
	case a.Bytes != nil:
		copy(unsafe.Slice((*byte)(p), size), a.Bytes)
	case size <= 8:
		*(*uint64)(p) = a.Bits
	default:
		return driver.Errorf(driver.ResultInvalidKernelArgumentSize, "argument %d of kernel %s: a %d-byte value without its bytes", i, k.name, size)
	}
	return nil
}

// params is the kernelParams array, nil without arguments.
func (t *argTable) params() *unsafe.Pointer {
	if len(t.ptrs) == 0 {
		return nil
	}
	return &t.ptrs[0]
}

// config fills cuLaunchKernelEx's configuration for a launch of geo with
// props' attributes.
func (t *argTable) config(geo *geometry, shared uint32, s cu.Stream, props *driver.LaunchProperties) *cu.LaunchConfig {
	t.cfg = cu.LaunchConfig{
		GridDimX: geo.grid[0], GridDimY: geo.grid[1], GridDimZ: geo.grid[2],
		BlockDimX: geo.block[0], BlockDimY: geo.block[1], BlockDimZ: geo.block[2],
		SharedMemBytes: shared, Stream: s, Attrs: &t.attrs[0],
	}
	n := launchAttrs(&t.attrs, props)
	t.cfg.NumAttrs = uint32(n)
	return &t.cfg
}

// launchAttrs writes the attributes props asks for and returns how many.
func launchAttrs(attrs *[2]cu.LaunchAttribute, props *driver.LaunchProperties) int {
	n := 0
	if props.Cooperative {
		attrs[n] = cu.LaunchAttribute{ID: cu.LaunchAttributeCooperative}
		attrs[n].Value[0] = 1
		n++
	}
	if props.ClusterDims != [3]uint32{} {
		attrs[n] = cu.LaunchAttribute{ID: cu.LaunchAttributeClusterDimension}
		copy(attrs[n].Value[:3], props.ClusterDims[:])
		n++
	}
	return n
}

// extended reports a launch that needs cuLaunchKernelEx.
func extended(props *driver.LaunchProperties) bool {
	return props.Cooperative || props.ClusterDims != [3]uint32{}
}

// funcShared is what the adapter set of a CUfunction's
// CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES: shared by every kernel
// of that function (cuModuleGetFunction gives one handle per name), so
// that one kernel never lowers the limit another relies on.
type funcShared struct {
	limit atomic.Uint64 // the largest dynamic shared memory a launch may ask
	mu    sync.Mutex    // serialises raising it
}

// ensureShared makes sure k's function may launch with n bytes of dynamic
// shared memory: beyond the default (48 KiB less static shared memory) it
// raises the function's limit, once per new size, under a lock so that
// concurrent launches raise it once and never lower it.
func (k *kernel) ensureShared(d *device, n uint64) error {
	fs := k.sharedOn(d)
	if fs == nil || n <= fs.limit.Load() {
		return nil
	}
	return k.raiseShared(d, fs, n)
}

// raiseShared raises the limit fs of k's function on d to n bytes.
func (k *kernel) raiseShared(d *device, fs *funcShared, n uint64) error {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	if n <= fs.limit.Load() {
		return nil
	}
	if err := d.bind(); err != nil {
		return err
	}
	defer unbind()
	if r := d.a.cu.FuncSetAttribute(k.fnOn(d), cu.FuncAttributeMaxDynamicSharedSizeBytes, int32(min(n, 1<<31-1))); r != cu.Success {
		e := cuError("cuFuncSetAttribute", r)
		e.Message += " (CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES) for kernel " + k.name
		if r == cu.InvalidValue {
			e.Result = driver.ResultOutOfResources
		}
		return e
	}
	fs.limit.Store(n)
	return nil
}

// argGeometry is the grid and block of a launch of k over r with its
// arguments, and whether props need cuLaunchKernelEx.
func (q *queue) argGeometry(k *kernel, r *driver.NDRange, props *driver.LaunchProperties) (geometry, bool, error) {
	geo, err := q.dev.geometryOf(k, r, false)
	if err != nil {
		return geo, false, err
	}
	ex := extended(props)
	if ex && !q.cu.HasLaunchKernelEx() {
		return geo, ex, driver.Errorf(driver.ResultUnsupportedFeature, "cooperative and cluster launches need cuLaunchKernelEx (CUDA 11.8)")
	}
	return geo, ex, nil
}

// LaunchWithArgs launches dk over r with args, leaving the kernel's own
// arguments alone. Without a wait list, an event or launch attributes it
// is one cuLaunchKernel with a kernelParams array from pooled scratch,
// a quick call where the queue's gate allows, as a prepared launch's, and
// allocates nothing; on an in-order queue the launches of goroutines
// launching at once are combined (combine.go). Cooperative launches and
// clusters are cuLaunchKernelEx.
func (q *queue) LaunchWithArgs(dk driver.Kernel, r driver.NDRange, args []driver.LaunchArg, props driver.LaunchProperties, wait []driver.Event, wantEvent bool) (driver.Event, error) {
	k := dk.(*kernel)
	geo, ex, err := q.argGeometry(k, &r, &props)
	if err != nil {
		return nil, err
	}
	t := argTables.Get().(*argTable)
	defer argTables.Put(t)
	shared, err := t.fill(k, args, props.DynamicLocalMem)
	if err != nil {
		return nil, err
	}
	if err := k.ensureShared(q.dev, shared); err != nil {
		return nil, err
	}
	fn := k.fnOn(q.dev)
	s := q.pick()
	if len(wait) == 0 && !wantEvent && !ex && q.ooo == nil {
		// The usual launch: one cuLaunchKernel, quick where the gate
		// allows, as a PreparedLaunch's, combined with those of other
		// goroutines launching at once.
		call, cargs := q.cu.LaunchKernelCall(fn, geo.grid[0], geo.grid[1], geo.grid[2], geo.block[0], geo.block[1], geo.block[2], uint32(shared), s, t.params())
		if call == 0 {
			return nil, driver.Errorf(driver.ResultUnsupportedFeature, "the driver has no cuLaunchKernel")
		}
		t.call = driver.NativeCall{Fn: call, Args: driver.NativeArgs(cargs), Quick: q.quick}
		res := q.combine.launch(q, &t.call)
		t.call = driver.NativeCall{}
		return nil, launchCheck(false, res)
	}
	q.quick.Spend()
	if len(wait) == 0 && !wantEvent {
		var res cu.Result
		if ex {
			res = q.cu.LaunchKernelExIn(q.dev.ctx, t.config(&geo, uint32(shared), s, &props), fn, t.params(), nil)
		} else {
			res = q.cu.LaunchKernelIn(q.dev.ctx, fn, geo.grid[0], geo.grid[1], geo.grid[2], geo.block[0], geo.block[1], geo.block[2], uint32(shared), s, t.params(), nil)
		}
		return nil, launchCheck(ex, res)
	}
	if err := q.dev.bind(); err != nil {
		return nil, err
	}
	defer unbind()
	e, err := q.begin(s, wait, wantEvent)
	if err != nil {
		return nil, err
	}
	var res cu.Result
	if ex {
		res = q.cu.LaunchKernelEx(t.config(&geo, uint32(shared), s, &props), fn, t.params(), nil)
	} else {
		res = q.cu.LaunchKernel(fn, geo.grid[0], geo.grid[1], geo.grid[2], geo.block[0], geo.block[1], geo.block[2], uint32(shared), s, t.params(), nil)
	}
	if ex {
		return q.finish(s, "cuLaunchKernelEx", e, res)
	}
	return q.finish(s, "cuLaunchKernel", e, res)
}

// launchCheck names the launch call that failed.
func launchCheck(ex bool, r cu.Result) error {
	if r == cu.Success {
		return nil
	}
	if ex {
		return cuError("cuLaunchKernelEx", r)
	}
	return cuError("cuLaunchKernel", r)
}

var _ driver.ArgLaunchPreparer = (*queue)(nil)

// preparedArgs is a launch with its own argument table (ur.ArgLaunch):
// the table is laid out once, SetArg rewrites one argument's words in
// place, and a launch without launch attributes is the one cuLaunchKernel
// call of a NativeCall, as a PreparedLaunch is.
type preparedArgs struct {
	q      *queue
	k      *kernel
	fn     cu.Function // k's function on q's device
	geo    geometry
	shared uint32
	stream cu.Stream
	props  driver.LaunchProperties
	t      argTable
	locals []uint64  // each local argument's size, which SetArg keeps
	sizes  []uintptr // each argument's size in the table
	call   *driver.NativeCall
}

// PrepareArgLaunch lays out a launch of dk over r with args once.
func (q *queue) PrepareArgLaunch(dk driver.Kernel, r driver.NDRange, args []driver.LaunchArg, props driver.LaunchProperties) (driver.PreparedArgLaunch, error) {
	k := dk.(*kernel)
	geo, ex, err := q.argGeometry(k, &r, &props)
	if err != nil {
		return nil, err
	}
	p := &preparedArgs{q: q, k: k, geo: geo, stream: q.pick(), props: props, locals: make([]uint64, len(args)), sizes: make([]uintptr, len(args))}
	shared, err := p.t.fill(k, args, props.DynamicLocalMem)
	if err != nil {
		return nil, err
	}
	if err := k.ensureShared(q.dev, shared); err != nil {
		return nil, err
	}
	p.shared, p.fn = uint32(shared), k.fnOn(q.dev)
	for i := range args {
		p.sizes[i], _ = k.argSize(i, &args[i]) // fill checked them
		if args[i].Kind == driver.ArgLocal {
			p.locals[i] = args[i].Size
		}
	}
	if !ex {
		fn, cargs := q.cu.LaunchKernelCall(p.fn, geo.grid[0], geo.grid[1], geo.grid[2], geo.block[0], geo.block[1], geo.block[2], p.shared, p.stream, p.t.params())
		if fn != 0 {
			// Keep: the arguments point into p's table.
			p.call = &driver.NativeCall{Fn: fn, Args: driver.NativeArgs(cargs), Quick: q.quick, Keep: p}
		}
	}
	return p, nil
}

func (p *preparedArgs) Native() *driver.NativeCall { return p.call }

// Value is argument i's words in the table, which the launch call reads.
func (p *preparedArgs) Value(i int) []byte {
	if i < 0 || i >= len(p.t.ptrs) || p.locals[i] != 0 {
		return nil
	}
	return unsafe.Slice((*byte)(p.t.ptrs[i]), p.sizes[i])
}

// Launch is the launch through the adapter's own calls: cuLaunchKernelEx
// for launch attributes, else cuLaunchKernel making the context current
// where the driver wants it.
func (p *preparedArgs) Launch() driver.LaunchStatus {
	q, g := p.q, &p.geo
	q.quick.Spend()
	var res cu.Result
	if extended(&p.props) {
		res = q.cu.LaunchKernelExIn(q.dev.ctx, p.t.config(g, p.shared, p.stream, &p.props), p.fn, p.t.params(), nil)
	} else {
		res = q.cu.LaunchKernelIn(q.dev.ctx, p.fn, g.grid[0], g.grid[1], g.grid[2], g.block[0], g.block[1], g.block[2], p.shared, p.stream, p.t.params(), nil)
	}
	if res != cu.Success {
		return driver.LaunchFailed
	}
	return driver.Launched
}

// SetArg rewrites argument i's words in the table; a local argument keeps
// its size, since its offset and the launch's shared memory follow from it.
func (p *preparedArgs) SetArg(i int, a driver.LaunchArg) error {
	if i < 0 || i >= len(p.t.ptrs) {
		return driver.Errorf(driver.ResultInvalidKernelArgumentIndex, "kernel %s was prepared with %d arguments, not an argument %d", p.k.name, len(p.t.ptrs), i)
	}
	size, err := p.k.argSize(i, &a)
	if err != nil {
		return err
	}
	if size != p.sizes[i] {
		return driver.Errorf(driver.ResultInvalidKernelArgumentSize, "argument %d of kernel %s was prepared with %d bytes, not %d", i, p.k.name, p.sizes[i], size)
	}
	switch a.Kind {
	case driver.ArgValue, driver.ArgMem:
		return writeArg(p.t.ptrs[i], size, &a, p.k, i)
	case driver.ArgLocal:
		if a.Size != p.locals[i] {
			return driver.Errorf(driver.ResultInvalidKernelArgumentSize, "local argument %d of kernel %s was prepared with %d bytes, not %d", i, p.k.name, p.locals[i], a.Size)
		}
	default:
		return driver.Errorf(driver.ResultInvalidKernelArgs, "argument %d of kernel %s has no kind", i, p.k.name)
	}
	return nil
}
