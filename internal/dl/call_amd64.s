//go:build linux && amd64

#include "textflag.h"

// trampoline is called by runtime.asmcgocall on the system stack with the
// C calling convention: DI points to a frame {fn, a1..a12, result}. It
// passes a1..a6 in registers and a7..a12 on the stack, calls fn and stores
// RAX in result. The 64-byte frame keeps SP 16-byte aligned at the CALL
// (8 return address + 8 saved BP + 64).
GLOBL ·trampolineABI0(SB), NOPTR|RODATA, $8
DATA ·trampolineABI0(SB)/8, $trampoline(SB)
TEXT trampoline(SB), NOSPLIT, $64
	MOVQ DI, 56(SP)   // keep the frame pointer across the call
	MOVQ DI, R11
	MOVQ 56(R11), R12 // a7
	MOVQ R12, 0(SP)
	MOVQ 64(R11), R12 // a8
	MOVQ R12, 8(SP)
	MOVQ 72(R11), R12 // a9
	MOVQ R12, 16(SP)
	MOVQ 80(R11), R12 // a10
	MOVQ R12, 24(SP)
	MOVQ 88(R11), R12 // a11
	MOVQ R12, 32(SP)
	MOVQ 96(R11), R12 // a12
	MOVQ R12, 40(SP)
	MOVQ 8(R11), DI   // a1
	MOVQ 16(R11), SI  // a2
	MOVQ 24(R11), DX  // a3
	MOVQ 32(R11), CX  // a4
	MOVQ 40(R11), R8  // a5
	MOVQ 48(R11), R9  // a6
	MOVQ 0(R11), R10  // fn
	XORL AX, AX       // no vector registers used, for variadic callees
	CALL R10
	MOVQ 56(SP), DI
	MOVQ AX, 104(DI)  // result
	RET
