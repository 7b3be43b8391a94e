package cuda

import (
	"github.com/gour-dev/gour/adapters/cuda/internal/cu"
	"github.com/gour-dev/gour/ur/driver"
)

// This file is what the compiler made of a kernel (driver.KernelAttributes)
// and a program's global variables (driver.GlobalsProgram).

var (
	_ driver.KernelAttributes = (*kernel)(nil)
	_ driver.GlobalsProgram   = (*program)(nil)
)

// warpSize is the sub-group size of every NVIDIA GPU so far; the device
// attribute is read where it matters.
const warpSize = 32

// Attributes reads cuFuncGetAttribute. MaxDynamicLocalMem is the device's
// opt-in limit (MAX_SHARED_MEMORY_PER_BLOCK_OPTIN) less the kernel's
// static shared memory: what a launch may ask for, the adapter raising
// the function's limit beyond 48 KiB itself.
func (k *kernel) Attributes(driver.Device) (driver.KernelAttrs, error) {
	d := k.p.dev
	if err := d.bind(); err != nil {
		return driver.KernelAttrs{}, err
	}
	defer unbind()
	l := d.a.cu
	var err error
	attr := func(a cu.FunctionAttribute) uint64 {
		v, r := l.FuncGetAttribute(a, k.fn)
		if e := check("cuFuncGetAttribute", r); e != nil && err == nil {
			err = e
		}
		return uint64(max(v, 0))
	}
	a := driver.KernelAttrs{
		Registers:          uint32(attr(cu.FuncAttributeNumRegs)),
		PrivateMemSize:     attr(cu.FuncAttributeLocalSizeBytes),
		StaticLocalMemSize: attr(cu.FuncAttributeSharedSizeBytes),
		MaxWorkGroupSize:   attr(cu.FuncAttributeMaxThreadsPerBlock),
	}
	if err != nil {
		return driver.KernelAttrs{}, err
	}
	warp, r := l.DeviceGetAttribute(cu.DeviceAttributeWarpSize, d.ordinal)
	if r != cu.Success || warp <= 0 {
		warp = warpSize
	}
	a.PreferredGroupMultiple = uint64(warp)
	a.SubGroupSizes = []uint32{uint32(warp)}
	optin, r := l.DeviceGetAttribute(cu.DeviceAttributeMaxSharedMemoryPerBlockOptin, d.ordinal)
	if r == cu.Success && uint64(optin) > a.StaticLocalMemSize {
		a.MaxDynamicLocalMem = uint64(optin) - a.StaticLocalMemSize
	} else {
		a.MaxDynamicLocalMem = attr(cu.FuncAttributeMaxDynamicSharedSizeBytes)
	}
	return a, nil
}

// SuggestLocalSize asks cuOccupancyMaxPotentialBlockSize for the block
// size of the best occupancy with dynamicLocalMem bytes of dynamic shared
// memory (no per-size callback: the size is the same for every block
// size), then shapes it to r: each dimension in turn, x first, takes the
// largest divisor of its global size that fits in what the block has
// left, so the suggestion divides the global size, as gour's launches
// need. A global size without a divisor near the block size gets a
// small one: a prime global size larger than the block gets 1 in that
// dimension. Such a range is better rounded up to a multiple of the
// block size, the kernel skipping the items past the end.
func (k *kernel) SuggestLocalSize(_ driver.Device, r driver.NDRange, dynamicLocalMem uint64) ([3]uint64, error) {
	d := k.p.dev
	l := d.a.cu
	if !l.HasOccupancy() {
		return [3]uint64{}, driver.Errorf(driver.ResultUnsupportedFeature, "the CUDA driver has no cuOccupancyMaxPotentialBlockSize")
	}
	if err := d.bind(); err != nil {
		return [3]uint64{}, err
	}
	defer unbind()
	_, block, res := l.OccupancyMaxPotentialBlockSize(k.fn, uintptr(dynamicLocalMem), int32(k.maxThreads))
	if err := check("cuOccupancyMaxPotentialBlockSize", res); err != nil {
		return [3]uint64{}, err
	}
	return shapeBlock(uint64(max(block, 1)), &r, d.maxBlock), nil
}

// shapeBlock spreads a block of up to total work-items over r's
// dimensions, each a divisor of its global size within the device's
// limit for that dimension.
func shapeBlock(total uint64, r *driver.NDRange, maxBlock [3]uint32) [3]uint64 {
	local := [3]uint64{1, 1, 1}
	left := total
	for i := range r.Dims {
		b := largestDivisor(r.Global[i], min(left, uint64(maxBlock[i])))
		local[i] = b
		left /= b
	}
	return local
}

// MaxCooperativeGroups is cuOccupancyMaxActiveBlocksPerMultiprocessor for
// a block of local's work-items times the multiprocessors: a cooperative
// launch must have every block resident at once.
func (k *kernel) MaxCooperativeGroups(_ driver.Device, local [3]uint64, dynamicLocalMem uint64) (uint64, error) {
	d := k.p.dev
	block := max(local[0], 1) * max(local[1], 1) * max(local[2], 1)
	if block > uint64(k.maxThreads) && k.maxThreads != 0 {
		return 0, driver.Errorf(driver.ResultInvalidWorkGroupSize, "a work-group of %d exceeds kernel %s's limit of %d", block, k.name, k.maxThreads)
	}
	if err := d.bind(); err != nil {
		return 0, err
	}
	defer unbind()
	n, r := d.a.cu.OccupancyMaxActiveBlocksPerMultiprocessor(k.fn, int32(block), uintptr(dynamicLocalMem))
	if err := check("cuOccupancyMaxActiveBlocksPerMultiprocessor", r); err != nil {
		return 0, err
	}
	return uint64(max(n, 0)) * uint64(d.info.ComputeUnits), nil
}

// Global is cuModuleGetGlobal_v2 in the program's module: a __device__ or
// __constant__ variable, by its (mangled) name. Device memory, which the
// queue's USM copies reach by its address.
func (p *program) Global(_ driver.Device, name string) (uintptr, uint64, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.module == 0 {
		return 0, 0, driver.Errorf(driver.ResultInvalidProgramExecutable, "the program is not built")
	}
	l := p.dev.a.cu
	if !l.HasModuleGetGlobal() {
		return 0, 0, driver.Errorf(driver.ResultUnsupportedFeature, "the CUDA driver has no cuModuleGetGlobal_v2")
	}
	if err := p.dev.bind(); err != nil {
		return 0, 0, err
	}
	defer unbind()
	ptr, size, r := l.ModuleGetGlobal(p.module, name)
	if r == cu.NotFound {
		return 0, 0, driver.Errorf(driver.ResultInvalidValue, "the program has no global variable %q", name)
	}
	if err := check("cuModuleGetGlobal", r); err != nil {
		return 0, 0, err
	}
	return uintptr(ptr), size, nil
}
