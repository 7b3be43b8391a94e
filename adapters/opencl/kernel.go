package opencl

import (
	"strings"
	"sync/atomic"
	"unsafe"

	"github.com/gour-dev/gour/adapters/opencl/internal/cl"
	"github.com/gour-dev/gour/ur/driver"
)

type kernel struct {
	lib    *cl.Lib
	ctx    *context
	handle cl.Kernel
	args   argKernels // for launches with arguments (launchargs.go)
	// ptrArgs: SetArgPointer set an argument of handle, which a clone
	// would carry (launchargs.go).
	ptrArgs atomic.Bool
	// guard orders the kernel's launches across queues where the driver
	// needs it (poclguard.go); nil elsewhere.
	guard *launchGuard
}

func (k *kernel) Native() uintptr { return uintptr(k.handle) }
func (k *kernel) Release() error {
	err := k.releaseArgKernels()
	if err2 := check("clReleaseKernel", k.lib.ReleaseKernel(k.handle)); err2 != nil {
		return err2
	}
	return err
}

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
		info.Args = k.argInfo(info.NumArgs, d.(*device).info.AddressBits)
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

// argInfo describes the kernel's arguments with clGetKernelArgInfo; nil
// where the driver does not answer (a program from binaries, or built
// without -cl-kernel-arg-info on a driver that wants it). The address
// qualifier tells a buffer from local memory from a value; the type name
// the size of a value (0 for a struct or typedef, whose size it does not
// tell).
func (k *kernel) argInfo(n uint32, addressBits uint32) []driver.ArgInfo {
	args := make([]driver.ArgInfo, n)
	for i := range n {
		b, st := k.lib.KernelArgInfo(k.handle, i, cl.KernelArgAddressQualifier)
		if st != cl.Success {
			return nil
		}
		a := &args[i]
		if b, st := k.lib.KernelArgInfo(k.handle, i, cl.KernelArgTypeName); st == cl.Success {
			a.TypeName = cl.CString(b)
		}
		if b, st := k.lib.KernelArgInfo(k.handle, i, cl.KernelArgName); st == cl.Success {
			a.Name = cl.CString(b)
		}
		pointer := strings.HasSuffix(a.TypeName, "*")
		switch cl.Uint32(b) {
		case cl.KernelArgAddressGlobal, cl.KernelArgAddressConstant:
			if pointer {
				a.Kind, a.Size = driver.ArgMem, uint64(addressBits/8)
			} // else an image or a pipe: ArgUnknown, set by the driver's rules
		case cl.KernelArgAddressLocal:
			a.Kind, a.Size = driver.ArgLocal, uint64(addressBits/8)
		case cl.KernelArgAddressPrivate:
			a.Kind, a.Size = driver.ArgValue, cl.ArgTypeSize(a.TypeName, addressBits)
		}
	}
	return args
}

// argInfoOption makes a compiler keep what clGetKernelArgInfo reports
// (PoCL and NVIDIA answer CL_KERNEL_ARG_INFO_NOT_AVAILABLE without it).
const argInfoOption = "-cl-kernel-arg-info"

// withArgInfo adds argInfoOption to the options of a build from source
// for OpenCL 1.2 devices and later (1.1 compilers may reject it), so that
// the front end can check the arguments kernels are given. It changes
// nothing the kernels do. A program from binaries has no argument
// information to keep.
func (p *program) withArgInfo(devs []driver.Device, options string) string {
	if p.origin != fromSource || strings.Contains(options, argInfoOption) {
		return options
	}
	for _, d := range devs {
		if v := d.(*device).info.DeviceVersion; strings.HasPrefix(v, "OpenCL 1.0") || strings.HasPrefix(v, "OpenCL 1.1") {
			return options
		}
	}
	return strings.TrimSpace(options + " " + argInfoOption)
}

// SetArgPointer sets a pointer argument with clSetKernelArgMemPointerINTEL
// or clSetKernelArgSVMPointer; either may point inside an allocation.
// OpenCL keeps the value with the kernel, as it does clSetKernelArg's, so
// a prepared launch (one clEnqueueNDRangeKernel naming the kernel) takes
// it at its next launch and never goes stale.
func (k *kernel) SetArgPointer(index uint32, ptr uintptr) error {
	k.ptrArgs.Store(true)
	switch k.ctx.via {
	case usmIntel:
		return check("clSetKernelArgMemPointerINTEL", k.ctx.intel.SetKernelArgMemPointer(k.handle, index, ptr))
	case usmSVM:
		return check("clSetKernelArgSVMPointer", k.lib.SetKernelArgSVMPointer(k.handle, index, ptr))
	}
	return k.ctx.noUSM()
}
