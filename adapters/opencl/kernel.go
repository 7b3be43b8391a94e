package opencl

import (
	"unsafe"

	"github.com/gour-dev/gour/adapters/opencl/internal/cl"
	"github.com/gour-dev/gour/ur/driver"
)

type kernel struct {
	lib    *cl.Lib
	handle cl.Kernel
}

func (k *kernel) Native() uintptr { return uintptr(k.handle) }
func (k *kernel) Release() error  { return check("clReleaseKernel", k.lib.ReleaseKernel(k.handle)) }

// The setters pass pointers into memory the caller keeps on the heap (the
// value slice, the mem struct), so they allocate nothing.

func (k *kernel) SetArgValue(index uint32, value []byte) error {
	return check("clSetKernelArg", k.lib.SetKernelArg(k.handle, index, uintptr(len(value)), unsafe.Pointer(&value[0])))
}

func (k *kernel) SetArgMem(index uint32, m driver.Mem) error {
	mm := m.(*mem)
	return check("clSetKernelArg", k.lib.SetKernelArg(k.handle, index, unsafe.Sizeof(mm.handle), unsafe.Pointer(&mm.handle)))
}

func (k *kernel) SetArgLocal(index uint32, size uint64) error {
	return check("clSetKernelArg", k.lib.SetKernelArg(k.handle, index, uintptr(size), nil))
}

func (k *kernel) Info(d driver.Device) (driver.KernelInfo, error) {
	var info driver.KernelInfo
	b, st := k.lib.KernelInfo(k.handle, cl.KernelFunctionName)
	if err := check("clGetKernelInfo", st); err != nil {
		return info, err
	}
	info.Name = cl.CString(b)
	if b, st = k.lib.KernelInfo(k.handle, cl.KernelNumArgs); st == cl.Success {
		info.NumArgs = cl.Uint32(b)
	}
	dev := d.(*device).handle
	wg := func(param uint32) ([]byte, error) {
		b, st := k.lib.KernelWorkGroupInfo(k.handle, dev, param)
		return b, check("clGetKernelWorkGroupInfo", st)
	}
	if b, err := wg(cl.KernelWorkGroupSize); err == nil {
		info.WorkGroupSize = uint64(cl.Uintptr(b))
	} else {
		return info, err
	}
	if b, err := wg(cl.KernelPreferredWorkGroupSizeMultiple); err == nil {
		info.PreferredWorkGroupSizeMultiple = uint64(cl.Uintptr(b))
	}
	if b, err := wg(cl.KernelCompileWorkGroupSize); err == nil {
		for i, s := range cl.Uintptrs(b) {
			if i < 3 {
				info.CompileWorkGroupSize[i] = uint64(s)
			}
		}
	}
	if b, err := wg(cl.KernelLocalMemSize); err == nil {
		info.LocalMemSize = cl.Uint64(b)
	}
	if b, err := wg(cl.KernelPrivateMemSize); err == nil {
		info.PrivateMemSize = cl.Uint64(b)
	}
	return info, nil
}
