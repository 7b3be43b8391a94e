//go:build linux && amd64

#include "textflag.h"

// trampolineCtx is called by runtime.asmcgocall on the system stack with
// the C calling convention, DI pointing to a frame (call_amd64.go):
//
//	0 fn, 8 args (a1..a24), 16 result, 24 first, 32 firstArg, 40 firstResult
//
// When first is not 0 it calls first(firstArg) and, on a non-zero (int)
// result, stores it in firstResult and returns without calling fn. It
// then passes a1..a6 in registers and a7..a24 on the stack, calls fn and
// stores RAX in result. The 160-byte frame holds the 18 stack arguments
// and the frame pointer, and keeps SP 16-byte aligned at each CALL
// (8 return address + 8 saved BP + 160).
GLOBL ·trampolineCtxABI0(SB), NOPTR|RODATA, $8
DATA ·trampolineCtxABI0(SB)/8, $trampolineCtx(SB)
TEXT trampolineCtx(SB), NOSPLIT, $160
	MOVQ DI, 152(SP)
	MOVQ 24(DI), R10
	TESTQ R10, R10
	JEQ callfn
	MOVQ 32(DI), DI
	XORL AX, AX
	CALL R10
	MOVQ 152(SP), DI
	MOVL AX, AX
	MOVQ AX, 40(DI)
	TESTQ AX, AX
	JNE done

callfn:
	MOVQ 152(SP), DI
	MOVQ 8(DI), R11
	MOVQ 48(R11), AX
	MOVQ AX, 0(SP)
	MOVQ 56(R11), AX
	MOVQ AX, 8(SP)
	MOVQ 64(R11), AX
	MOVQ AX, 16(SP)
	MOVQ 72(R11), AX
	MOVQ AX, 24(SP)
	MOVQ 80(R11), AX
	MOVQ AX, 32(SP)
	MOVQ 88(R11), AX
	MOVQ AX, 40(SP)
	MOVQ 96(R11), AX
	MOVQ AX, 48(SP)
	MOVQ 104(R11), AX
	MOVQ AX, 56(SP)
	MOVQ 112(R11), AX
	MOVQ AX, 64(SP)
	MOVQ 120(R11), AX
	MOVQ AX, 72(SP)
	MOVQ 128(R11), AX
	MOVQ AX, 80(SP)
	MOVQ 136(R11), AX
	MOVQ AX, 88(SP)
	MOVQ 144(R11), AX
	MOVQ AX, 96(SP)
	MOVQ 152(R11), AX
	MOVQ AX, 104(SP)
	MOVQ 160(R11), AX
	MOVQ AX, 112(SP)
	MOVQ 168(R11), AX
	MOVQ AX, 120(SP)
	MOVQ 176(R11), AX
	MOVQ AX, 128(SP)
	MOVQ 184(R11), AX
	MOVQ AX, 136(SP)
	MOVQ 0(DI), R10
	MOVQ 0(R11), DI
	MOVQ 8(R11), SI
	MOVQ 16(R11), DX
	MOVQ 24(R11), CX
	MOVQ 32(R11), R8
	MOVQ 40(R11), R9
	XORL AX, AX
	CALL R10
	MOVQ 152(SP), DI
	MOVQ AX, 16(DI)

done:
	RET
