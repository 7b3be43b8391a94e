package opencl

import (
	"unsafe"

	"github.com/gour-dev/gour/adapters/opencl/internal/cl"
	"github.com/gour-dev/gour/ur/driver"
)

// Attributes reads clGetKernelWorkGroupInfo: the kernel's largest
// work-group, preferred multiple, static local and private memory. The
// largest dynamic local memory is the device's local memory less the
// static. Sub-group sizes come from CL_DEVICE_SUB_GROUP_SIZES_INTEL where
// the device has cl_intel_required_subgroup_size, else from
// clGetKernelSubGroupInfo's largest sub-group for the largest work-group
// (OpenCL 2.1 or cl_khr_subgroups); none where the driver answers
// neither. OpenCL reports no register counts.
func (k *kernel) Attributes(dev driver.Device) (driver.KernelAttrs, error) {
	d := dev.(*device)
	var a driver.KernelAttrs
	wg := func(param uint32) ([]byte, error) {
		b, st := k.lib.KernelWorkGroupInfo(k.handle, d.handle, param)
		return b, check("clGetKernelWorkGroupInfo", st)
	}
	b, err := wg(cl.KernelWorkGroupSize)
	if err != nil {
		return a, err
	}
	a.MaxWorkGroupSize = uint64(cl.Uintptr(b))
	if b, err := wg(cl.KernelPreferredWorkGroupSizeMultiple); err == nil {
		a.PreferredGroupMultiple = uint64(cl.Uintptr(b))
	}
	if b, err := wg(cl.KernelLocalMemSize); err == nil {
		a.StaticLocalMemSize = cl.Uint64(b)
	}
	if b, err := wg(cl.KernelPrivateMemSize); err == nil {
		a.PrivateMemSize = cl.Uint64(b)
	}
	if d.info.LocalMemSize > a.StaticLocalMemSize {
		a.MaxDynamicLocalMem = d.info.LocalMemSize - a.StaticLocalMemSize
	}
	if d.hasExtension("cl_intel_required_subgroup_size") {
		if b, st := k.lib.DeviceInfo(d.handle, cl.DeviceSubGroupSizesINTEL); st == cl.Success {
			for _, s := range cl.Uintptrs(b) {
				a.SubGroupSizes = append(a.SubGroupSizes, uint32(s))
			}
		}
	}
	if a.SubGroupSizes == nil {
		local := &[1]uintptr{uintptr(a.MaxWorkGroupSize)}
		if n, st := k.lib.KernelSubGroupInfo(k.handle, d.handle, cl.KernelMaxSubGroupSizeForNDRange, unsafe.Pointer(local), unsafe.Sizeof(*local)); st == cl.Success && n > 0 {
			a.SubGroupSizes = []uint32{uint32(n)}
		}
	}
	return a, nil
}

// SuggestLocalSize asks clGetKernelSuggestedLocalWorkSizeKHR
// (cl_khr_suggested_local_work_size) on the context's own queue where the
// device has it. Otherwise it chooses: in each dimension, from the first,
// the largest divisor of the global size that fits what the kernel's
// largest work-group leaves (CL_KERNEL_WORK_GROUP_SIZE over the sizes
// chosen before it, and CL_DEVICE_MAX_WORK_ITEM_SIZES), or a divisor at
// least half as large that is a multiple of
// CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE where there is one. A
// prime global size larger than the work-group limit has no divisor but 1,
// so it gets work-groups of one item: round such a size up and have the
// kernel skip the items past the end (ur.Kernel.SuggestLocalSize says so).
// Dynamic local memory does not enter the choice: OpenCL's local memory
// does not shrink the work-group.
func (k *kernel) SuggestLocalSize(dev driver.Device, r driver.NDRange, dynamicLocalMem uint64) ([3]uint64, error) {
	d := dev.(*device)
	if fn := d.p.suggestFunc(); fn != 0 && d.hasExtension("cl_khr_suggested_local_work_size") {
		q, err := k.ctx.internalQueue(d)
		if err != nil {
			return [3]uint64{}, err
		}
		sizes := new([2][3]uintptr)
		var offset *[3]uintptr
		for i := range r.Dims {
			sizes[0][i], sizes[1][i] = uintptr(r.Offset[i]), uintptr(r.Global[i])
			if r.Offset[i] != 0 {
				offset = &sizes[0]
			}
		}
		local, st := cl.SuggestedLocalSize(fn, q, k.handle, r.Dims, offset, &sizes[1])
		if err := check("clGetKernelSuggestedLocalWorkSizeKHR", st); err != nil {
			return [3]uint64{}, err
		}
		out := [3]uint64{1, 1, 1}
		for i := range r.Dims {
			out[i] = uint64(local[i])
		}
		return out, nil
	}
	attrs, err := k.Attributes(dev)
	if err != nil {
		return [3]uint64{}, err
	}
	return chooseLocalSize(r, attrs.MaxWorkGroupSize, attrs.PreferredGroupMultiple, d.info.MaxWorkItemSizes), nil
}

// chooseLocalSize is SuggestLocalSize's choice without the extension.
func chooseLocalSize(r driver.NDRange, maxGroup, multiple uint64, maxItems [3]uint64) [3]uint64 {
	out := [3]uint64{1, 1, 1}
	left := max(maxGroup, 1)
	for i := range r.Dims {
		limit := left
		if maxItems[i] != 0 {
			limit = min(limit, maxItems[i])
		}
		best, bestMultiple := uint64(1), uint64(0)
		g := r.Global[i]
		for s := min(limit, g); s >= 1; s-- {
			if g%s != 0 {
				continue
			}
			if best == 1 {
				best = s
			}
			if multiple > 1 && s%multiple == 0 {
				bestMultiple = s
				break
			}
			if multiple <= 1 {
				break
			}
		}
		if bestMultiple != 0 && 2*bestMultiple >= best {
			best = bestMultiple
		}
		out[i] = best
		left /= best
	}
	return out
}

// MaxCooperativeGroups: OpenCL has no cooperative launches.
func (k *kernel) MaxCooperativeGroups(driver.Device, [3]uint64, uint64) (uint64, error) {
	return 0, driver.Errorf(driver.ResultUnsupportedFeature, "OpenCL has no cooperative launches")
}

// Global returns a program-scope global variable's device address with
// clGetDeviceGlobalVariablePointerINTEL (cl_intel_global_variable_pointers);
// the address is USM the queue's USM copies reach. Other drivers give
// ErrUnsupportedFeature: core OpenCL has no way to reach a program's
// globals from the host.
func (p *program) Global(dev driver.Device, name string) (uintptr, uint64, error) {
	d := dev.(*device)
	fn := d.p.globalFunc()
	if fn == 0 || !d.hasExtension("cl_intel_global_variable_pointers") {
		return 0, 0, driver.Errorf(driver.ResultUnsupportedFeature, "device %q cannot reach program globals from the host (no cl_intel_global_variable_pointers, clGetDeviceGlobalVariablePointerINTEL)", d.info.Name)
	}
	ptr, size, st := cl.GlobalVariablePointer(fn, d.handle, p.handle, name)
	if st == cl.InvalidArgValue {
		return 0, 0, driver.Errorf(driver.ResultInvalidGlobalName, "program has no global variable %q", name)
	}
	if err := check("clGetDeviceGlobalVariablePointerINTEL", st); err != nil {
		return 0, 0, err
	}
	return ptr, uint64(size), nil
}

// suggestFunc and globalFunc look up the platform's extension functions
// once.
func (p *platform) suggestFunc() uintptr {
	p.extOnce.Do(p.loadExtensions)
	return p.suggest
}

func (p *platform) globalFunc() uintptr {
	p.extOnce.Do(p.loadExtensions)
	return p.global
}

func (p *platform) loadExtensions() {
	p.suggest = p.a.lib.SuggestedLocalSizeFunc(p.handle)
	p.global = p.a.lib.GlobalVariablePointerFunc(p.handle)
}

var (
	_ driver.KernelAttributes = (*kernel)(nil)
	_ driver.GlobalsProgram   = (*program)(nil)
)
