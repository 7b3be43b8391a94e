package cuda

import (
	"math/bits"
	"unsafe"

	"github.com/gour-dev/gour/adapters/cuda/internal/cu"
	"github.com/gour-dev/gour/ur/driver"
)

// kernel keeps its argument values in one arena of 8-byte words and the
// kernelParams array of pointers into it, so a launch passes heap memory
// to cuLaunchKernel and allocates nothing.
type kernel struct {
	p      *program
	fn     cu.Function
	name   string
	params []cu.ParamInfo // nil when the driver cannot say (CUDA < 12.4)
	arena  []uint64
	// ptrs is the kernelParams array cuLaunchKernel reads, a pointer to
	// each argument's words in arena; a slice of its own, apart from args,
	// because the launch passes it to the driver as it is.
	ptrs       []unsafe.Pointer
	args       []argSlot
	nset       int    // arguments set, of len(args)
	sharedMem  uint32 // bytes of dynamic shared memory, for every local argument
	maxThreads uint32
	// gen counts the changes that make a prepared launch stale: a new
	// argument layout, new shared memory (preparedLaunch).
	gen uint64
	// shared is the dynamic shared memory limit set on the function
	// (launchargs.go), shared with every kernel of the same CUfunction.
	shared *funcShared
	// on holds the kernel's function on each other device of the
	// program (a context of several devices; multidevice.go).
	on []kernelOn
}

// argSlot is what the kernel keeps of one argument besides its pointer.
type argSlot struct {
	word, words int    // its run of words in the arena
	set         bool   // a value was set
	local       uint64 // bytes of shared memory of a local argument, else 0
}

// bytes is the room the argument has in the arena.
func (a *argSlot) bytes() uintptr { return uintptr(a.words) * 8 }

func (p *program) NewKernel(name string) (driver.Kernel, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.module == 0 {
		return nil, driver.Errorf(driver.ResultInvalidProgramExecutable, "the program is not built")
	}
	l := p.dev.a.cu
	if err := p.dev.bindBusy(); err != nil {
		return nil, err
	}
	defer p.dev.unbindBusy()
	fn, r := l.ModuleGetFunction(p.module, name)
	if r != cu.Success {
		e := cuError("cuModuleGetFunction", r)
		e.Message += " for kernel " + name
		return nil, e
	}
	if p.dev.a.quick {
		// Loaded now, a kernel's launches never load it lazily, which
		// would make them wait for the device (driver.QuickGate).
		if err := check("cuFuncLoad", l.FuncLoad(fn)); err != nil {
			return nil, err
		}
	}
	k := &kernel{p: p, fn: fn, name: name}
	if l.HasFuncGetParamInfo() {
		params, r := l.FuncParams(fn, 4096)
		if err := check("cuFuncGetParamInfo", r); err != nil {
			return nil, err
		}
		k.params = params
		sizes := make([]uintptr, len(params))
		for i, p := range params {
			sizes[i] = p.Size
		}
		k.layout(sizes)
	}
	threads, _ := l.FuncGetAttribute(cu.FuncAttributeMaxThreadsPerBlock, fn)
	k.maxThreads = uint32(threads)
	k.shared = p.sharedOf(fn)
	if err := k.loadOthers(); err != nil {
		return nil, err
	}
	p.refs.Add(1)
	return k, nil
}

// layout gives the kernel an arena for arguments of the given sizes, each
// in its own run of words, none of them set.
func (k *kernel) layout(sizes []uintptr) {
	k.args = make([]argSlot, len(sizes))
	words := 0
	for i, size := range sizes {
		n := int((size + 7) / 8)
		k.args[i] = argSlot{word: words, words: n}
		words += n
	}
	k.arena = make([]uint64, max(words, 1))
	k.ptrs = make([]unsafe.Pointer, len(sizes))
	for i, a := range k.args {
		k.ptrs[i] = unsafe.Pointer(&k.arena[a.word])
	}
	k.nset = 0
	k.gen++
}

// grow makes room for argument index of size bytes when the driver gave no
// parameter list; the arena is rebuilt and the values kept.
func (k *kernel) grow(index int, size uintptr) {
	if index < len(k.args) && k.args[index].bytes() >= size {
		return
	}
	sizes := make([]uintptr, max(len(k.args), index+1))
	for i := range k.args {
		sizes[i] = k.args[i].bytes()
	}
	sizes[index] = max(sizes[index], size)
	prev, prevArena, nset := k.args, k.arena, k.nset
	k.layout(sizes)
	for i, a := range prev {
		copy(k.arena[k.args[i].word:], prevArena[a.word:a.word+a.words])
		k.args[i].set, k.args[i].local = a.set, a.local
	}
	k.nset = nset
}

func (k *kernel) Native() uintptr { return uintptr(k.fn) }
func (k *kernel) Release() error  { return k.p.unref() }

// argBytes returns the storage of argument index after checking it against
// the kernel's parameter list.
func (k *kernel) argBytes(index uint32, size uintptr) ([]byte, error) {
	i := int(index)
	if k.params == nil {
		k.grow(i, size)
	} else {
		if i >= len(k.params) {
			return nil, driver.Errorf(driver.ResultInvalidKernelArgumentIndex, "argument %d: kernel %s takes %d", i, k.name, len(k.params))
		}
		if k.params[i].Size != size {
			return nil, driver.Errorf(driver.ResultInvalidKernelArgumentSize, "argument %d of kernel %s is %d bytes, not %d", i, k.name, k.params[i].Size, size)
		}
	}
	if !k.args[i].set {
		k.args[i].set = true
		k.nset++
	}
	return unsafe.Slice((*byte)(k.ptrs[i]), size), nil
}

func (k *kernel) SetArgValue(index uint32, value []byte) error {
	b, err := k.argBytes(index, uintptr(len(value)))
	if err != nil {
		return err
	}
	copy(b, value)
	k.setLocal(int(index), 0)
	return nil
}

func (k *kernel) SetArgMem(index uint32, m driver.Mem) error {
	mm := m.(*mem)
	b, err := k.argBytes(index, unsafe.Sizeof(mm.ptr))
	if err != nil {
		return err
	}
	*(*cu.DevicePtr)(unsafe.Pointer(&b[0])) = mm.arg() // an image's surface object (image.go)
	k.setLocal(int(index), 0)
	return nil
}

// SetArgPointer sets a USM pointer as the argument: the 8-byte address,
// stored as SetArgMem stores a buffer's, so prepared launches, which read
// the arena, stay valid.
func (k *kernel) SetArgPointer(index uint32, ptr uintptr) error {
	b, err := k.argBytes(index, unsafe.Sizeof(cu.DevicePtr(0)))
	if err != nil {
		return err
	}
	*(*cu.DevicePtr)(unsafe.Pointer(&b[0])) = cu.DevicePtr(ptr)
	k.setLocal(int(index), 0)
	return nil
}

// SetArgLocal reserves size bytes of dynamic shared memory; the argument
// receives its byte offset there, as a 4- or 8-byte integer.
func (k *kernel) SetArgLocal(index uint32, size uint64) error {
	argSize := uintptr(8)
	if k.params != nil && int(index) < len(k.params) {
		argSize = k.params[index].Size
	}
	if argSize != 4 && argSize != 8 {
		return driver.Errorf(driver.ResultInvalidKernelArgumentSize, "local argument %d must be a 4- or 8-byte offset, not %d bytes", index, argSize)
	}
	if _, err := k.argBytes(index, argSize); err != nil {
		return err
	}
	k.setLocal(int(index), size)
	return nil
}

// setLocal records argument i's shared-memory size and lays every local
// argument out again, 16-byte aligned, writing each its offset.
func (k *kernel) setLocal(i int, size uint64) {
	if k.args[i].local == size {
		return
	}
	k.args[i].local = size
	k.gen++
	var off uint64
	for j, a := range k.args {
		if a.local == 0 {
			continue
		}
		if k.params != nil && k.params[j].Size == 4 {
			*(*uint32)(k.ptrs[j]) = uint32(off)
		} else {
			*(*uint64)(k.ptrs[j]) = off
		}
		off += (a.local + 15) &^ 15
	}
	k.sharedMem = uint32(off)
}

func (k *kernel) Info(dev driver.Device) (driver.KernelInfo, error) {
	l := k.p.dev.a.cu
	fn := k.fnOn(k.p.deviceOf(dev))
	attr := func(a cu.FunctionAttribute) uint64 {
		v, _ := l.FuncGetAttribute(a, fn)
		return uint64(v)
	}
	info := driver.KernelInfo{
		Name:                           k.name,
		NumArgs:                        driver.NumArgsUnknown,
		WorkGroupSize:                  uint64(k.maxThreads),
		PreferredWorkGroupSizeMultiple: 32, // the warp
		LocalMemSize:                   attr(cu.FuncAttributeSharedSizeBytes),
		PrivateMemSize:                 attr(cu.FuncAttributeLocalSizeBytes),
	}
	if k.params != nil {
		// cuFuncGetParamInfo tells each parameter's size, not whether it
		// is a pointer: the kind stays unknown.
		info.NumArgs = uint32(len(k.params))
		info.Args = make([]driver.ArgInfo, len(k.params))
		for i, p := range k.params {
			info.Args[i] = driver.ArgInfo{Kind: driver.ArgUnknown, Size: uint64(p.Size)}
		}
	}
	return info, nil
}

// Launch is the hot path: with no wait list and no event it allocates
// nothing.
func (q *queue) Launch(dk driver.Kernel, r driver.NDRange, wait []driver.Event, wantEvent bool) (driver.Event, error) {
	k := dk.(*kernel)
	geo, err := q.dev.geometry(k, &r)
	if err != nil {
		return nil, err
	}
	if k.sharedMem != 0 {
		if err := k.ensureShared(q.dev, uint64(k.sharedMem)); err != nil {
			return nil, err
		}
	}
	grid, block := geo.grid, geo.block
	fn := k.fnOn(q.dev)
	q.quick.Spend()
	if len(wait) == 0 && !wantEvent && q.ooo == nil {
		// The common launch: one cuLaunchKernel, no thread lock (cu.Lib.LaunchKernelIn).
		res := q.cu.LaunchKernelIn(q.dev.ctx, fn, grid[0], grid[1], grid[2], block[0], block[1], block[2], k.sharedMem, q.stream, geo.params, nil)
		return nil, check("cuLaunchKernel", res)
	}
	if err := q.dev.bind(); err != nil {
		return nil, err
	}
	defer unbind()
	s := q.pick()
	e, err := q.begin(s, wait, wantEvent)
	if err != nil {
		return nil, err
	}
	res := q.cu.LaunchKernel(fn, grid[0], grid[1], grid[2], block[0], block[1], block[2], k.sharedMem, s, geo.params, nil)
	return q.finish(s, "cuLaunchKernel", e, res)
}

// PrepareLaunch checks a launch of dk over r as Launch does and returns it
// as one cuLaunchKernel call, a driver.NativeCall, current until the
// kernel's argument layout or shared memory changes (kernel.gen). The call
// is made on whatever OS thread the launch runs, without setting the
// context, as Launch's common path does; a driver that wants the context
// current fails it, and the front end then launches through Launch, which
// sets it. It is quick (it skips the scheduler's system-call accounting)
// while the queue's gate allows. On an out-of-order queue every launch of
// one prepared launch goes to the stream picked when it was prepared:
// ordering more than the queue promises, never less.
func (q *queue) PrepareLaunch(dk driver.Kernel, r driver.NDRange) (driver.PreparedLaunch, error) {
	k := dk.(*kernel)
	geo, err := q.dev.geometry(k, &r)
	if err != nil {
		return nil, err
	}
	if err := k.ensureShared(q.dev, uint64(k.sharedMem)); err != nil {
		return nil, err
	}
	grid, block := geo.grid, geo.block
	fn, args := q.cu.LaunchKernelCall(k.fnOn(q.dev), grid[0], grid[1], grid[2], block[0], block[1], block[2], k.sharedMem, q.pick(), geo.params)
	if fn == 0 {
		return nil, driver.Errorf(driver.ResultUnsupportedFeature, "the driver has no cuLaunchKernel")
	}
	// Keep: args points into the kernel's parameter table.
	return &driver.NativeCall{Fn: fn, Args: driver.NativeArgs(args), Gen: &k.gen, Want: k.gen, Quick: q.quick, Keep: k}, nil
}

// geometry is what cuLaunchKernel takes of a launch besides the function,
// its shared memory and the stream.
type geometry struct {
	grid, block [3]uint32
	params      *unsafe.Pointer // the kernel's parameter table; nil without parameters
}

// geometry checks a launch of k over r with the kernel's own arguments
// and turns its global and local sizes into CUDA's grid and block.
// Without a local size it picks the largest block that divides the
// global size.
func (d *device) geometry(k *kernel, r *driver.NDRange) (geometry, error) {
	return d.geometryOf(k, r, true)
}

// geometryOf is geometry; own says the launch takes the kernel's own
// arguments, which must all be set and give the parameter table. A launch
// with its arguments (launchargs.go) brings both.
func (d *device) geometryOf(k *kernel, r *driver.NDRange, own bool) (geometry, error) {
	if r.Offset != [3]uint64{} {
		return geometry{}, driver.Errorf(driver.ResultUnsupportedFeature, "CUDA has no global offset (offset %v)", r.Offset)
	}
	if own && k.nset != len(k.args) { // args has an entry per parameter the driver reported
		return geometry{}, driver.Errorf(driver.ResultInvalidKernelArgs, "kernel %s: %d of %d arguments set", k.name, k.nset, len(k.args))
	}
	geo := geometry{grid: [3]uint32{1, 1, 1}, block: [3]uint32{1, 1, 1}}
	grid, block := &geo.grid, &geo.block
	limit := uint64(k.maxThreads)
	if limit == 0 {
		limit = 1024
	}
	for i := range r.Dims {
		g, b := r.Global[i], r.Local[i]
		if b == 0 {
			b = largestDivisor(g, min(limit, uint64(d.maxBlock[i])))
		}
		switch {
		case b > uint64(d.maxBlock[i]) || b > limit:
			return geometry{}, driver.Errorf(driver.ResultInvalidWorkGroupSize, "local size %d in dimension %d exceeds the kernel's limit %d", b, i, min(limit, uint64(d.maxBlock[i])))
		case g > uint64(d.maxGrid[i])*b:
			return geometry{}, driver.Errorf(driver.ResultInvalidGlobalWidthDimension, "global size %d in dimension %d needs more than %d blocks", g, i, d.maxGrid[i])
		}
		if b&(b-1) == 0 { // the usual power of two: shifts, not divisions
			shift := bits.TrailingZeros64(b)
			grid[i], limit = uint32(g>>shift), limit>>shift
		} else {
			grid[i], limit = uint32(g/b), limit/b
		}
		block[i] = uint32(b)
	}
	if uint64(block[0])*uint64(block[1])*uint64(block[2]) > uint64(k.maxThreads) && k.maxThreads != 0 {
		return geometry{}, driver.Errorf(driver.ResultInvalidWorkGroupSize, "work-group of %d×%d×%d exceeds the kernel's limit of %d work-items", block[0], block[1], block[2], k.maxThreads)
	}
	if own && len(k.ptrs) > 0 {
		geo.params = &k.ptrs[0]
	}
	return geo, nil
}

// largestDivisor returns the largest divisor of n that is at most limit:
// in the usual case a power of two, found without a division (launches
// pay for this), else by a search.
func largestDivisor(n, limit uint64) uint64 {
	top := min(limit, n)
	if top == 0 {
		return 1
	}
	best := n & -n // the largest power of two dividing n
	for best > top {
		best >>= 1
	}
	if best == top {
		return best
	}
	for b := top; b > best; b-- {
		if n%b == 0 {
			return b
		}
	}
	return best
}
