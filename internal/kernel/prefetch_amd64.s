//go:build amd64 && !purego

#include "textflag.h"

// func prefetchRows(base unsafe.Pointer, idx []int32, stride int, last int)
//
// For each j in idx, PREFETCHT0 every 64 bytes of the row at base +
// j·stride from its first byte to its byte last, and that byte.
TEXT ·prefetchRows(SB), NOSPLIT, $0-48
	MOVQ base+0(FP), SI
	MOVQ idx_base+8(FP), DI
	MOVQ idx_len+16(FP), CX
	MOVQ stride+32(FP), BX
	MOVQ last+40(FP), DX
	TESTQ CX, CX
	JZ done
row:
	MOVLQSX (DI), AX
	IMULQ BX, AX
	ADDQ SI, AX
	XORQ R8, R8
line:
	PREFETCHT0 (AX)(R8*1)
	ADDQ $64, R8
	CMPQ R8, DX
	JLT line
	PREFETCHT0 (AX)(DX*1)
	ADDQ $4, DI
	DECQ CX
	JNZ row
done:
	RET

// func prefetchRows16(base unsafe.Pointer, idx []uint16, stride int, last int)
//
// prefetchRows for 2-byte offsets: for each j in idx, PREFETCHT0 every 64
// bytes of the row at base + j·stride from its first byte to its byte
// last, and that byte.
TEXT ·prefetchRows16(SB), NOSPLIT, $0-48
	MOVQ base+0(FP), SI
	MOVQ idx_base+8(FP), DI
	MOVQ idx_len+16(FP), CX
	MOVQ stride+32(FP), BX
	MOVQ last+40(FP), DX
	TESTQ CX, CX
	JZ done
row:
	MOVWQZX (DI), AX
	IMULQ BX, AX
	ADDQ SI, AX
	XORQ R8, R8
line:
	PREFETCHT0 (AX)(R8*1)
	ADDQ $64, R8
	CMPQ R8, DX
	JLT line
	PREFETCHT0 (AX)(DX*1)
	ADDQ $2, DI
	DECQ CX
	JNZ row
done:
	RET

// func prefetchLine(p unsafe.Pointer)
TEXT ·prefetchLine(SB), NOSPLIT, $0-8
	MOVQ p+0(FP), AX
	PREFETCHT0 (AX)
	RET
