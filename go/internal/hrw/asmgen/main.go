// Command asmgen writes the amd64 owner kernels of package hrw, argmax_amd64.s and their Go
// declarations argmax_amd64_decl.go, with avo. It is a module of its own so that the hrwhash
// module does not depend on avo; `make -C go asm` runs it and `make -C go check-asm` diffs its
// output against the committed files.
//
// Each kernel computes the scores of SPEC.md section 3 for whole blocks of lanes and returns the
// highest score with the first lane that has it, as the pure-Go argmax does; the Go wrapper
// scores the lanes past the last block.
package main

import (
	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"
)

// mix is SPEC.md section 3's multiplier M.
const mix = 0xD6E8FEB86659FD93

// flip turns the signed 64-bit compares of AVX2 into unsigned ones.
const flip = 0x8000000000000000

func main() {
	ConstraintExpr("amd64,gc,!purego")

	iota := GLOBL("lanePositions", RODATA|NOPTR)
	for i := 0; i < 16; i++ {
		DATA(8*i, U64(uint64(i)))
	}

	avx2(iota)
	avx512(iota)
	cpuid()
	Generate()
}

// broadcastY puts the 64-bit constant c in every lane of a new YMM register.
//
// Every move between general and vector registers is VEX-encoded (VMOVQ, not MOVQ): a legacy SSE
// instruction while the upper halves of the YMM registers are in use costs a state transition,
// measured at about 3 µs a call on the Xeon of BENCHMARKS.md.
func broadcastY(c uint64) reg.VecVirtual {
	g := GP64()
	MOVQ(U64(c), g)
	x := XMM()
	VMOVQ(g, x)
	y := YMM()
	VPBROADCASTQ(x, y)
	return y
}

// constY is a read-only 32-byte vector with c in every lane, for a memory operand.
func constY(name string, c uint64) Mem {
	m := GLOBL(name, RODATA|NOPTR)
	for i := 0; i < 4; i++ {
		DATA(8*i, U64(c))
	}
	return m
}

// avx2 is the kernel for 16 lanes a step: four accumulators of four lanes, so that four chains
// of compare and blend are in flight. AVX2 has no 64-bit lane multiply, so folded * M is three
// 32x32->64 multiplies: lo*Mlo + ((hi*Mlo + lo*Mhi) << 32), where hi(folded) = x >> 32 because
// the fold leaves the top half of x as it was. The constants stay in memory and each
// accumulator keeps the step of its best score, not its lane, so that everything fits in the
// sixteen YMM registers.
func avx2(iota Mem) {
	mloM := constY("avx2MixLo", mix&0xFFFFFFFF)
	mhiM := constY("avx2MixHi", mix>>32)
	flipM := constY("avx2Flip", flip)
	oneM := constY("avx2One", 1)

	TEXT("argmaxAVX2", NOSPLIT, "func(kd uint64, lanes []uint64) (best uint64, at int)")
	Doc("argmaxAVX2 is argmax over the first len(lanes) &^ 15 lanes (at least 16) with AVX2.")
	ptr := Load(Param("lanes").Base(), GP64())
	n := Load(Param("lanes").Len(), GP64())
	SHRQ(Imm(4), n)
	kx := XMM()
	VMOVQ(Load(Param("kd"), GP64()), kx)
	k := YMM()
	VPBROADCASTQ(kx, k)
	mlo := YMM()
	VMOVDQU(mloM, mlo)
	step := YMM()
	VPXOR(step, step, step)
	// Every lane starts at score 0 (flipped) and step 0, its own first position, which is what
	// that position holds if nothing beats 0.
	var best, pos [4]reg.VecVirtual
	for h := 0; h < 4; h++ {
		best[h], pos[h] = YMM(), YMM()
		VMOVDQU(flipM, best[h])
		VPXOR(pos[h], pos[h], pos[h])
	}

	Label("avx2_loop")
	for h := 0; h < 4; h++ {
		x, hi, lo := YMM(), YMM(), YMM()
		VPXOR(Mem{Base: ptr, Disp: 32 * h}, k, x)
		VPSRLQ(Imm(32), x, hi)
		VPXOR(hi, x, x)
		VPMULUDQ(mlo, x, lo)
		VPMULUDQ(mlo, hi, hi)
		VPMULUDQ(mhiM, x, x)
		VPADDQ(x, hi, hi)
		VPSLLQ(Imm(32), hi, hi)
		VPADDQ(hi, lo, lo)
		VPXOR(flipM, lo, lo)
		// Strictly greater: of equal scores in one lane the earlier step stays.
		VPCMPGTQ(best[h], lo, hi)
		VPBLENDVB(hi, lo, best[h], best[h])
		VPBLENDVB(hi, step, pos[h], pos[h])
	}
	VPADDQ(oneM, step, step)
	ADDQ(Imm(128), ptr)
	DECQ(n)
	JNZ(LabelRef("avx2_loop"))

	Comment("Steps to positions: step * 16 + accumulator * 4 + lane.")
	for h := 0; h < 4; h++ {
		VPSLLQ(Imm(4), pos[h], pos[h])
		VPADDQ(iota.Offset(32*h), pos[h], pos[h])
	}

	Comment("The highest score in every lane of m, by compare and blend (signed, as flipped).")
	m, t, gt := YMM(), YMM(), YMM()
	VMOVDQU(best[0], m)
	for h := 1; h < 4; h++ {
		VPCMPGTQ(m, best[h], gt)
		VPBLENDVB(gt, best[h], m, m)
	}
	VPERM2I128(Imm(1), m, m, t)
	VPCMPGTQ(m, t, gt)
	VPBLENDVB(gt, t, m, m)
	VPSHUFD(Imm(0x4E), m, t)
	VPCMPGTQ(m, t, gt)
	VPBLENDVB(gt, t, m, m)

	Comment("Of the positions that hold it, the smallest: the others become MaxInt64.")
	big := YMM()
	VPCMPEQQ(big, big, big)
	VPSRLQ(Imm(1), big, big)
	for h := 0; h < 4; h++ {
		VPCMPEQQ(m, best[h], gt)
		VPBLENDVB(gt, pos[h], big, pos[h])
	}
	q := pos[0]
	for h := 1; h < 4; h++ {
		VPCMPGTQ(pos[h], q, gt)
		VPBLENDVB(gt, pos[h], q, q)
	}
	VPERM2I128(Imm(1), q, q, t)
	VPCMPGTQ(t, q, gt)
	VPBLENDVB(gt, t, q, q)
	VPSHUFD(Imm(0x4E), q, t)
	VPCMPGTQ(t, q, gt)
	VPBLENDVB(gt, t, q, q)

	s, at := GP64(), GP64()
	VMOVQ(m.AsX(), s)
	fg := GP64()
	MOVQ(U64(flip), fg)
	XORQ(fg, s)
	VMOVQ(q.AsX(), at)
	VZEROUPPER()
	Store(s, ReturnIndex(0))
	Store(at, ReturnIndex(1))
	RET()
}

// avx512 is the kernel for 16 lanes a step: two accumulators of eight lanes, with AVX512DQ's
// 64-bit lane multiply and AVX-512's unsigned compares into mask registers.
func avx512(iota Mem) {
	TEXT("argmaxAVX512", NOSPLIT, "func(kd uint64, lanes []uint64) (best uint64, at int)")
	Doc("argmaxAVX512 is argmax over the first len(lanes) &^ 15 lanes (at least 16) with AVX-512 (F, DQ, VL).")
	ptr := Load(Param("lanes").Base(), GP64())
	n := Load(Param("lanes").Len(), GP64())
	SHRQ(Imm(4), n)
	k := ZMM()
	VPBROADCASTQ(Load(Param("kd"), GP64()), k)
	g := GP64()
	MOVQ(U64(mix), g)
	mz := ZMM()
	VPBROADCASTQ(g, mz)
	MOVQ(U64(16), g)
	step := ZMM()
	VPBROADCASTQ(g, step)
	var best, pos, idx [2]reg.VecVirtual
	for h := 0; h < 2; h++ {
		best[h], pos[h], idx[h] = ZMM(), ZMM(), ZMM()
		VPXORQ(best[h], best[h], best[h])
		VMOVDQU64(iota.Offset(64*h), idx[h])
		VMOVDQA64(idx[h], pos[h])
	}

	Label("avx512_loop")
	for h := 0; h < 2; h++ {
		x, hi, gt := ZMM(), ZMM(), reg.K1
		if h == 1 {
			gt = reg.K2
		}
		VPXORQ(Mem{Base: ptr, Disp: 64 * h}, k, x)
		VPSRLQ(Imm(32), x, hi)
		VPXORQ(hi, x, x)
		VPMULLQ(mz, x, x)
		// Strictly greater: of equal scores in one lane the earlier position stays.
		VPCMPUQ(Imm(6), best[h], x, gt)
		VPMAXUQ(x, best[h], best[h])
		VPBLENDMQ(idx[h], pos[h], gt, pos[h])
		VPADDQ(step, idx[h], idx[h])
	}
	ADDQ(Imm(128), ptr)
	DECQ(n)
	JNZ(LabelRef("avx512_loop"))

	Comment("The highest score, in every lane of m.")
	m, t := ZMM(), ZMM()
	VPMAXUQ(best[0], best[1], m)
	VEXTRACTI64X4(Imm(1), m, t.AsY())
	VPMAXUQ(t.AsY(), m.AsY(), m.AsY())
	VEXTRACTI128(Imm(1), m.AsY(), t.AsX())
	VPMAXUQ(t.AsX(), m.AsX(), m.AsX())
	VPSHUFD(Imm(0x4E), m.AsX(), t.AsX())
	VPMAXUQ(t.AsX(), m.AsX(), m.AsX())
	VPBROADCASTQ(m.AsX(), m)

	Comment("Of the positions that hold it, the smallest: the others become MaxUint64.")
	ones := ZMM()
	VPTERNLOGQ(Imm(0xFF), ones, ones, ones)
	var q [2]reg.VecVirtual
	for h := 0; h < 2; h++ {
		eq := reg.K1
		if h == 1 {
			eq = reg.K2
		}
		q[h] = ZMM()
		VPCMPEQQ(m, best[h], eq)
		VPBLENDMQ(pos[h], ones, eq, q[h])
	}
	VPMINUQ(q[0], q[1], q[0])
	VEXTRACTI64X4(Imm(1), q[0], t.AsY())
	VPMINUQ(t.AsY(), q[0].AsY(), q[0].AsY())
	VEXTRACTI128(Imm(1), q[0].AsY(), t.AsX())
	VPMINUQ(t.AsX(), q[0].AsX(), q[0].AsX())
	VPSHUFD(Imm(0x4E), q[0].AsX(), t.AsX())
	VPMINUQ(t.AsX(), q[0].AsX(), q[0].AsX())

	s, at := GP64(), GP64()
	VMOVQ(m.AsX(), s)
	VMOVQ(q[0].AsX(), at)
	VZEROUPPER()
	Store(s, ReturnIndex(0))
	Store(at, ReturnIndex(1))
	RET()
}

// cpuid and xgetbv are what the dispatch needs to know which kernels the CPU and the operating
// system support, without a dependency on golang.org/x/sys/cpu.
func cpuid() {
	TEXT("cpuid", NOSPLIT, "func(leaf, sub uint32) (a, b, c, d uint32)")
	Doc("cpuid executes CPUID with EAX = leaf and ECX = sub.")
	Load(Param("leaf"), reg.EAX)
	Load(Param("sub"), reg.ECX)
	CPUID()
	Store(reg.EAX, ReturnIndex(0))
	Store(reg.EBX, ReturnIndex(1))
	Store(reg.ECX, ReturnIndex(2))
	Store(reg.EDX, ReturnIndex(3))
	RET()

	TEXT("xgetbv", NOSPLIT, "func() (lo uint32)")
	Doc("xgetbv is the low half of XCR0: which register states the operating system saves.")
	XORL(reg.ECX, reg.ECX)
	XGETBV()
	Store(reg.EAX, ReturnIndex(0))
	RET()
}
