//go:build linux && amd64

package dl

import "unsafe"

// frame is what the trampolines read: the function, where its twelve
// arguments are, a slot for the result and, for CallAfter, the function to
// call first. It lives on the caller's stack, which cannot move while the
// goroutine is inside the C call (the runtime neither grows nor shrinks the
// stack of a goroutine in a system call), and so can args. The trampoline
// reads the arguments where they are: copying 96 bytes into the frame cost
// a launch measurably. call_amd64.s relies on this layout.
type frame struct {
	fn          uintptr
	args        *Args
	result      uintptr
	first       uintptr
	firstArg    uintptr
	firstResult uintptr
}

// wideFrame is frame for WideArgs.
type wideFrame struct {
	fn          uintptr
	args        *WideArgs
	result      uintptr
	first       uintptr
	firstArg    uintptr
	firstResult uintptr
}

// The addresses of the assembly trampolines (call_amd64.s).
var trampolineABI0, trampolineAfterABI0, trampolineWideABI0, trampolineWideAfterABI0 uintptr

// runtimeCgocall switches to the system stack, leaves the Go scheduler's
// accounting as a cgo call does, and runs fn(arg) with the C ABI. The
// runtime exports it for purego, which gour already links.
//
//go:linkname runtimeCgocall runtime.cgocall
//go:noescape
func runtimeCgocall(fn uintptr, arg unsafe.Pointer) int32

// call is what purego.SyscallN does minus its generality: no pool, no
// 32-argument copies, no float registers. What it saves a call is most
// of what a Go launch path costs over C (docs/benchmarks.md, "Kernel
// launch: gour vs OpenCL from C, on PoCL").
func call(fn uintptr, args *Args) uintptr {
	f := frame{fn: fn, args: args}
	runtimeCgocall(trampolineABI0, unsafe.Pointer(&f))
	return f.result
}

func callAfter(first, firstArg, fn uintptr, args *Args) (uintptr, bool) {
	f := frame{fn: fn, args: args, first: first, firstArg: firstArg}
	runtimeCgocall(trampolineAfterABI0, unsafe.Pointer(&f))
	if f.firstResult != 0 {
		return f.firstResult, false
	}
	return f.result, true
}

func callWide(fn uintptr, args *WideArgs) uintptr {
	f := wideFrame{fn: fn, args: args}
	runtimeCgocall(trampolineWideABI0, unsafe.Pointer(&f))
	return f.result
}

func callWideAfter(first, firstArg, fn uintptr, args *WideArgs) (uintptr, bool) {
	f := wideFrame{fn: fn, args: args, first: first, firstArg: firstArg}
	runtimeCgocall(trampolineWideAfterABI0, unsafe.Pointer(&f))
	if f.firstResult != 0 {
		return f.firstResult, false
	}
	return f.result, true
}

// runtimeAsmcgocall is runtime.asmcgocall, the part of runtime.cgocall
// that switches to the system stack and calls fn(arg) with the C ABI,
// without the scheduler's accounting around it. The runtime calls libc the
// same way on the platforms where it goes through libc for calls that do
// not block. Reached from assembly (call_amd64.s), as it has no linkname.
//
//go:noescape
func runtimeAsmcgocall(fn uintptr, arg unsafe.Pointer) int32

func callLaunch(l *Launch) uintptr {
	if l.Gen != nil && *l.Gen != l.Want {
		return LaunchStale
	}
	f := frame{fn: l.Fn, args: &l.Args}
	if l.Gate.Take() {
		runtimeAsmcgocall(trampolineABI0, unsafe.Pointer(&f))
	} else {
		runtimeCgocall(trampolineABI0, unsafe.Pointer(&f))
	}
	if int32(f.result) != 0 {
		return LaunchFailed
	}
	return Launched
}

func callQuickIf(quick bool, fn uintptr, args *Args) uintptr {
	f := frame{fn: fn, args: args}
	if quick {
		runtimeAsmcgocall(trampolineABI0, unsafe.Pointer(&f))
	} else {
		runtimeCgocall(trampolineABI0, unsafe.Pointer(&f))
	}
	return f.result
}
