//go:build linux && amd64

#include "textflag.h"

// Both trampolines are called by runtime.asmcgocall on the system stack
// with the C calling convention: DI points to a frame (call_amd64.go)
//
//	0 fn, 8 args (a pointer to a1..a12), 16 result, 24 first, 32 firstArg, 40 firstResult
//
// They pass a1..a6 in registers and a7..a12 on the stack, call fn and
// store RAX in result. The 64-byte frame keeps SP 16-byte aligned at each
// CALL (8 return address + 8 saved BP + 64).

#define CALL_FN \
	MOVQ 56(SP), R10 \
	MOVQ 8(R10), R11 \
	MOVQ 48(R11), R12 \
	MOVQ R12, 0(SP) \
	MOVQ 56(R11), R12 \
	MOVQ R12, 8(SP) \
	MOVQ 64(R11), R12 \
	MOVQ R12, 16(SP) \
	MOVQ 72(R11), R12 \
	MOVQ R12, 24(SP) \
	MOVQ 80(R11), R12 \
	MOVQ R12, 32(SP) \
	MOVQ 88(R11), R12 \
	MOVQ R12, 40(SP) \
	MOVQ 0(R11), DI \
	MOVQ 8(R11), SI \
	MOVQ 16(R11), DX \
	MOVQ 24(R11), CX \
	MOVQ 32(R11), R8 \
	MOVQ 40(R11), R9 \
	MOVQ 0(R10), R10 \
	XORL AX, AX \
	CALL R10 \
	MOVQ 56(SP), DI \
	MOVQ AX, 16(DI)

GLOBL ·trampolineABI0(SB), NOPTR|RODATA, $8
DATA ·trampolineABI0(SB)/8, $trampoline(SB)
TEXT trampoline(SB), NOSPLIT, $64
	MOVQ DI, 56(SP) // keep the frame pointer across the call
	CALL_FN
	RET

// trampolineAfter first calls first(firstArg); a non-zero (32-bit) result
// is stored in firstResult and fn is not called.
GLOBL ·trampolineAfterABI0(SB), NOPTR|RODATA, $8
DATA ·trampolineAfterABI0(SB)/8, $trampolineAfter(SB)
TEXT trampolineAfter(SB), NOSPLIT, $64
	MOVQ DI, 56(SP)
	MOVQ 24(DI), R10 // first
	MOVQ 32(DI), DI  // firstArg
	XORL AX, AX
	CALL R10
	MOVQ 56(SP), DI
	MOVL AX, AX       // the C result is an int: keep its 32 bits
	MOVQ AX, 40(DI)
	TESTQ AX, AX
	JNE done
	CALL_FN
done:
	RET

// The wide trampolines are the same for WideArgs: a1..a6 in registers,
// a7..a24 on the stack. Their 160-byte frame holds the 18 stack arguments
// and the frame pointer, and keeps SP 16-byte aligned at each CALL
// (8 return address + 8 saved BP + 160).

#define CALL_WIDE \
	MOVQ 152(SP), R10 \
	MOVQ 8(R10), R11 \
	MOVQ 48(R11), R12 \
	MOVQ R12, 0(SP) \
	MOVQ 56(R11), R12 \
	MOVQ R12, 8(SP) \
	MOVQ 64(R11), R12 \
	MOVQ R12, 16(SP) \
	MOVQ 72(R11), R12 \
	MOVQ R12, 24(SP) \
	MOVQ 80(R11), R12 \
	MOVQ R12, 32(SP) \
	MOVQ 88(R11), R12 \
	MOVQ R12, 40(SP) \
	MOVQ 96(R11), R12 \
	MOVQ R12, 48(SP) \
	MOVQ 104(R11), R12 \
	MOVQ R12, 56(SP) \
	MOVQ 112(R11), R12 \
	MOVQ R12, 64(SP) \
	MOVQ 120(R11), R12 \
	MOVQ R12, 72(SP) \
	MOVQ 128(R11), R12 \
	MOVQ R12, 80(SP) \
	MOVQ 136(R11), R12 \
	MOVQ R12, 88(SP) \
	MOVQ 144(R11), R12 \
	MOVQ R12, 96(SP) \
	MOVQ 152(R11), R12 \
	MOVQ R12, 104(SP) \
	MOVQ 160(R11), R12 \
	MOVQ R12, 112(SP) \
	MOVQ 168(R11), R12 \
	MOVQ R12, 120(SP) \
	MOVQ 176(R11), R12 \
	MOVQ R12, 128(SP) \
	MOVQ 184(R11), R12 \
	MOVQ R12, 136(SP) \
	MOVQ 0(R11), DI \
	MOVQ 8(R11), SI \
	MOVQ 16(R11), DX \
	MOVQ 24(R11), CX \
	MOVQ 32(R11), R8 \
	MOVQ 40(R11), R9 \
	MOVQ 0(R10), R10 \
	XORL AX, AX \
	CALL R10 \
	MOVQ 152(SP), DI \
	MOVQ AX, 16(DI)

GLOBL ·trampolineWideABI0(SB), NOPTR|RODATA, $8
DATA ·trampolineWideABI0(SB)/8, $trampolineWide(SB)
TEXT trampolineWide(SB), NOSPLIT, $160
	MOVQ DI, 152(SP)
	CALL_WIDE
	RET

GLOBL ·trampolineWideAfterABI0(SB), NOPTR|RODATA, $8
DATA ·trampolineWideAfterABI0(SB)/8, $trampolineWideAfter(SB)
TEXT trampolineWideAfter(SB), NOSPLIT, $160
	MOVQ DI, 152(SP)
	MOVQ 24(DI), R10
	MOVQ 32(DI), DI
	XORL AX, AX
	CALL R10
	MOVQ 152(SP), DI
	MOVL AX, AX
	MOVQ AX, 40(DI)
	TESTQ AX, AX
	JNE wdone
	CALL_WIDE
wdone:
	RET

// runtimeAsmcgocall(fn, arg uintptr) int32 jumps to runtime·asmcgocall,
// whose frame and arguments are the same.
TEXT ·runtimeAsmcgocall(SB), NOSPLIT, $0-20
	JMP runtime·asmcgocall(SB)
