// Command asmgen writes the amd64 kernels of package hrw, argmax_amd64.s and their Go
// declarations argmax_amd64_decl.go, with avo. It is a module of its own so that the hrwhash
// module does not depend on avo; `make -C go asm` runs it and `make -C go check-asm` diffs its
// output against the committed files.
//
// Each kernel computes the scores of SPEC.md section 3 from folded lanes (see fold in hrw.go) and
// returns the highest score with the first lane that has it, as the pure-Go argmax does. The
// AVX-512 kernel takes whole blocks of 16 lanes and the Go wrapper scores the lanes past the last
// one; the AVX2 kernel takes them all, its last block overlapping the one before.
//
// The top-k kernels (hitsAVX2, hitsAVX512) are the threshold pass of a ranking: the positions of
// the lanes whose score is above a bound, in order; the Go wrapper passes the last few lanes.
// Where fewer lanes are ranked, topKeysAVX512 keys every lane and keeps the four highest keys
// (topKeysNarrowAVX512 with 32-bit keys, for more lanes).
package main

import (
	"fmt"
	"math/bits"

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

	avx2()
	avx512(iota)
	hitsAVX2()
	hitsAVX512()
	topKeysKernel(wideKeys, iota)
	topKeysKernel(narrowKeys, iota)
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

// scoresY puts in the high half of each lane of s the high half of the score of the four lanes
// at m, (fk ^ lane) * M mod 2^64 (the lanes and fk are folded: see fold in hrw.go). AVX2 has no
// 64-bit lane multiply; with lo and hi the halves of x = fk ^ lane, the high half is
// hi(lo*Mlo) + lo*Mhi + hi*Mlo mod 2^32: one 32x32->64 multiply (VPMULUDQ) and one pair of
// 32-bit multiplies (VPMULLD by mswap, whose halves are Mhi and Mlo), summed in 32-bit lanes
// after a swap of halves (a shuffle, off the ports the multiplies and shifts need). The low
// halves of s are meaningless.
func scoresY(m Mem, k, mlo, mswap, s reg.VecVirtual) {
	x, q := YMM(), YMM()
	VPXOR(m, k, x)
	VPMULUDQ(mlo, x, s)
	VPMULLD(mswap, x, q)
	VPADDD(q, s, s)
	VPSHUFD(Imm(0xB1), q, q)
	VPADDD(q, s, s)
}

// The AVX2 kernel takes blocks a window at a time, so that the maxima it keeps of them fit a
// fixed frame of 2 KiB whatever the number of lanes (window blocks a window). Up to maskBlocks
// blocks (256 lanes), one window, it finds the winner's block and lane of the maxima from one
// word of match bits and scores the four lanes they name (scanMask), and scores only the new
// lanes of the last block (lastBlock); beyond, it counts the matches window by window
// (scanCount). The scores themselves are not kept: the four lanes are scored again, in
// general registers, which is no slower than reading them back and drops four stores a block.
const (
	maskBlocks = 16
	window     = 64
)

// avx2 is the kernel for all the lanes (at least 16), in blocks of 16 (the last one overlapping
// the one before when 16 does not divide the count). It keeps no positions and no 64-bit order,
// which AVX2 lacks (a signed compare and a blend per four lanes, most of the old loop's cost): the
// loop takes the unsigned maximum of the scores' high halves (VPMAXUD), and stores each block's
// maxima. The best score's high half then names the only blocks that can hold the winner, whose
// lanes of that high half are scored in full, in order, keeping the first of the highest:
// SPEC.md's tie rule, also where high halves or whole digests repeat (then more blocks are
// looked at).
func avx2() {
	TEXT("argmaxAVX2", 0, "func(fk uint64, lanes []uint64) (best uint64, at int)")
	Doc("argmaxAVX2 is argmax over all of lanes (at least 16) with AVX2.")
	buf := AllocLocal(32 * window)
	blocksM := AllocLocal(8)
	ptr := Load(Param("lanes").Base(), GP64())
	n := Load(Param("lanes").Len(), GP64())
	k := YMM()
	VPBROADCASTQ(NewParamAddr("fk", 0), k)
	mlo, mswap := broadcastY(mix&0xFFFFFFFF), broadcastY((mix&0xFFFFFFFF)<<32|mix>>32)

	// last: the first lane of the last block; blocks: how many blocks, (n + 15) / 16.
	last := GP64()
	MOVQ(n, last)
	SUBQ(Imm(16), last)
	blocks := GP64()
	LEAQ(Mem{Base: n, Disp: 15}, blocks)
	SHRQ(Imm(4), blocks)
	MOVQ(blocks, blocksM)
	bestS, bestAt := GP64(), GP64()
	XORQ(bestS, bestS)
	MOVQ(U64(0xFFFFFFFFFFFFFFFF), bestAt) // no candidate yet
	blk := GP64()
	XORQ(blk, blk)
	mixM := GLOBL("mix", RODATA|NOPTR)
	DATA(0, U64(mix))
	c := avx2Ctx{buf: buf, blocksM: blocksM, mix: mixM, ptr: ptr, last: last, bestS: bestS, bestAt: bestAt, blk: blk, k: k, mlo: mlo, mswap: mswap}
	CMPQ(blocks, Imm(maskBlocks))
	JA(LabelRef("avx2_large"))
	c.windows("avx2_small", true, maskBlocks)
	JMP(LabelRef("avx2_done"))
	Label("avx2_large")
	c.windows("avx2_large", false, window)
	Label("avx2_done")
	VZEROUPPER()
	Store(bestS, ReturnIndex(0))
	Store(bestAt, ReturnIndex(1))
	RET()
}

// avx2Ctx is what the two paths of the AVX2 kernel share.
type avx2Ctx struct {
	buf, blocksM, mix             Mem
	ptr, last, bestS, bestAt, blk reg.Register
	k, mlo, mswap                 reg.VecVirtual
}

// windows emits the loop over windows of win blocks; small: one window of at most maskBlocks.
func (c avx2Ctx) windows(prefix string, small bool, win int) {
	lbl := func(name string) string { return prefix + "_" + name }
	// entry sets p to the window's entry for block b (from wstart).
	entry := func(p, b, wstart, t reg.Register) {
		MOVQ(b, p)
		SUBQ(wstart, p)
		SHLQ(Imm(5), p)
		LEAQ(c.buf, t)
		ADDQ(t, p)
	}

	Label(lbl("window"))
	// wend: the block after this window.
	wend := GP64()
	LEAQ(Mem{Base: c.blk, Disp: win}, wend)
	CMPQ(wend, c.blocksM)
	CMOVQGT(c.blocksM, wend)
	wstart := GP64()
	MOVQ(c.blk, wstart)
	bp := GP64()
	LEAQ(c.buf, bp)
	g := YMM()
	VPXOR(g, g, g)

	// end: the block the loop stops before; a small placement's last block, when 16 does not
	// divide the lanes, comes after it.
	end := wend
	if small {
		end = GP64()
		LEAQ(Mem{Base: c.last, Disp: 16}, end)
		SHRQ(Imm(4), end)
	}
	pos := GP64()
	Label(lbl("loop"))
	MOVQ(c.blk, pos)
	SHLQ(Imm(4), pos)
	if !small {
		CMPQ(pos, c.last)
		CMOVQGT(c.last, pos)
	}
	var sc [4]reg.VecVirtual
	for h := 0; h < 4; h++ {
		sc[h] = YMM()
		scoresY(Mem{Base: c.ptr, Index: pos, Scale: 8, Disp: 32 * h}, c.k, c.mlo, c.mswap, sc[h])
	}
	// The maxima of the high halves; the low halves are meaningless and never read.
	VPMAXUD(sc[1], sc[0], sc[0])
	VPMAXUD(sc[3], sc[2], sc[2])
	VPMAXUD(sc[2], sc[0], sc[0])
	VMOVDQU(sc[0], Mem{Base: bp})
	VPMAXUD(sc[0], g, g)
	ADDQ(Imm(32), bp)
	INCQ(c.blk)
	CMPQ(c.blk, end)
	JB(LabelRef(lbl("loop")))

	if small {
		c.lastBlock(lbl, g, bp, pos)
	}

	Comment("The window's highest high half, in every lane of top (zero-extended).")
	top, t := YMM(), YMM()
	VPSRLQ(Imm(32), g, top)
	VPERM2I128(Imm(1), top, top, t)
	VPMAXUD(t, top, top)
	VPSHUFD(Imm(0x4E), top, t)
	VPMAXUD(t, top, top)

	first, stop := GP64(), GP64()
	if small {
		c.scanMask(lbl, top, t, wstart, wend, first, stop, bp, pos, entry)
	} else {
		c.scanCount(lbl, top, t, wstart, wend, first, stop, bp, pos, entry)
	}

	Label(lbl("block"))
	MOVQ(first, pos)
	SHLQ(Imm(4), pos)
	CMPQ(pos, c.last)
	CMOVQGT(c.last, pos)
	mask := GP64()
	XORQ(mask, mask)
	for h := 0; h < 4; h++ {
		s := YMM()
		scoresY(Mem{Base: c.ptr, Index: pos, Scale: 8, Disp: 32 * h}, c.k, c.mlo, c.mswap, s)
		VPSRLQ(Imm(32), s, s)
		VPCMPEQQ(top, s, s)
		m := GP32()
		VMOVMSKPD(s, m)
		if h > 0 {
			SHLL(Imm(uint64(4*h)), m)
		}
		ORL(m, mask.As32())
	}
	TESTQ(mask, mask)
	JZ(LabelRef(lbl("next")))
	Label(lbl("lane"))
	i := GP64()
	BSFQ(mask, i)
	ADDQ(pos, i)
	x, z := GP64(), GP64()
	MOVQ(Mem{Base: c.ptr, Index: i, Scale: 8}, x)
	XORQ(NewParamAddr("fk", 0), x)
	MOVQ(U64(mix), z)
	IMULQ(z, x)
	c.offer(lbl("take"), lbl("skip"), x, i)
	Label(lbl("skip"))
	LEAQ(Mem{Base: mask, Disp: -1}, z)
	ANDQ(z, mask)
	JNZ(LabelRef(lbl("lane")))

	Label(lbl("next"))
	INCQ(first)
	CMPQ(first, stop)
	JB(LabelRef(lbl("block")))

	Label(lbl("next_window"))
	CMPQ(c.blk, c.blocksM)
	JB(LabelRef(lbl("window")))
}

// lastBlock is a small placement's last block when 16 does not divide the number of lanes, r
// of them past the others: it overlaps the block before, and of its four vectors of lanes only
// those that hold some of the r are scored. Its maxima hold no lane of the others, which the
// block before holds; the winner's four lanes (scanMask) may be of them, and lose.
func (c avx2Ctx) lastBlock(lbl func(string) string, g reg.VecVirtual, bp, pos reg.Register) {
	r := GP64()
	MOVQ(c.last, r)
	ANDQ(Imm(15), r)
	JZ(LabelRef(lbl("last_done")))
	MOVQ(c.last, pos)
	m := YMM()
	// From vector h on, h = (16 - r) / 4: r of 1 to 4 needs the last vector alone.
	for h := 3; h >= 0; h-- {
		if h > 0 {
			CMPQ(r, Imm(uint64(16-4*h)))
			JA(LabelRef(lbl(fmt.Sprintf("last_%d", h-1))))
		}
		scoresY(Mem{Base: c.ptr, Index: pos, Scale: 8, Disp: 32 * h}, c.k, c.mlo, c.mswap, m)
		for j := h + 1; j < 4; j++ {
			s := YMM()
			scoresY(Mem{Base: c.ptr, Index: pos, Scale: 8, Disp: 32 * j}, c.k, c.mlo, c.mswap, s)
			VPMAXUD(s, m, m)
		}
		JMP(LabelRef(lbl("last_store")))
		if h > 0 {
			Label(lbl(fmt.Sprintf("last_%d", h-1)))
		}
	}
	Label(lbl("last_store"))
	VMOVDQU(m, Mem{Base: bp})
	VPMAXUD(m, g, g)
	INCQ(c.blk)
	Label(lbl("last_done"))
}

// scanCount finds the first block of the window whose maxima hold top's high half (scanning
// backwards, so the last found is the first), and counts the blocks that do plus those that hold
// it in two lanes: a count of one is a single lane.
func (c avx2Ctx) scanCount(lbl func(string) string, top, t reg.VecVirtual, wstart, wend, first, stop, bp, pos reg.Register, entry func(p, b, wstart, t reg.Register)) {
	cnt := GP64()
	MOVQ(wstart, first)
	XORQ(cnt, cnt)
	j := GP64()
	MOVQ(wend, j)
	entry(bp, wend, wstart, pos)
	Label(lbl("scan"))
	SUBQ(Imm(32), bp)
	DECQ(j)
	// (Loaded first: a shift of a memory operand by an immediate is AVX-512 only.)
	VMOVDQU(Mem{Base: bp}, t)
	VPSRLQ(Imm(32), t, t)
	VPCMPEQQ(top, t, t)
	hits, y := GP32(), GP32()
	VMOVMSKPD(t, hits)
	TESTL(hits, hits)
	CMOVQNE(j, first)
	LEAL(Mem{Base: hits, Disp: -1}, y)
	ANDL(hits, y)
	// NEG sets the carry flag for a nonzero operand.
	NEGL(hits)
	ADCQ(Imm(0), cnt)
	NEGL(y)
	ADCQ(Imm(0), cnt)
	CMPQ(j, wstart)
	JA(LabelRef(lbl("scan")))

	Comment("One block, as almost always: its lanes of that high half are scored in full. Else")
	Comment("(high halves or digests repeat) those of every block of the window, in order.")
	LEAQ(Mem{Base: first, Disp: 1}, stop)
	CMPQ(cnt, Imm(1))
	JE(LabelRef(lbl("block")))
	MOVQ(wstart, first)
	MOVQ(wend, stop)
}

// scanMask is scanCount for a window of at most 16 blocks: each block's four lanes of maxima
// that hold top's high half are four bits of one word, block by block, with no chain through
// the blocks but a shift and an or. Its lowest bit is the first block, and a word of one bit is
// a single lane.
func (c avx2Ctx) scanMask(lbl func(string) string, top, t reg.VecVirtual, wstart, wend, first, stop, bp, pos reg.Register, entry func(p, b, wstart, t reg.Register)) {
	word, j := GP64(), GP64()
	XORQ(word, word)
	MOVQ(wend, j)
	entry(bp, wend, wstart, pos)
	Label(lbl("scan"))
	SUBQ(Imm(32), bp)
	DECQ(j)
	// (Loaded first: a shift of a memory operand by an immediate is AVX-512 only.)
	VMOVDQU(Mem{Base: bp}, t)
	VPSRLQ(Imm(32), t, t)
	VPCMPEQQ(top, t, t)
	hits := GP32()
	VMOVMSKPD(t, hits)
	SHLQ(Imm(4), word)
	ORQ(hits.As64(), word)
	CMPQ(j, wstart)
	JA(LabelRef(lbl("scan")))

	Comment("One bit, as almost always: of the block's four lanes that its maxima's lane holds,")
	Comment("the first of the highest scores wins; they are scored in full. Else (high halves or")
	Comment("digests repeat) the lanes of that high half of every block of the window, in order.")
	bit := GP64()
	BSFQ(word, bit)
	y := GP64()
	LEAQ(Mem{Base: word, Disp: -1}, y)
	TESTQ(y, word)
	JZ(LabelRef(lbl("pick")))
	MOVQ(wstart, first)
	MOVQ(wend, stop)
	JMP(LabelRef(lbl("block")))

	Label(lbl("pick"))
	MOVQ(bit, pos)
	SHRQ(Imm(2), pos)
	ADDQ(wstart, pos)
	SHLQ(Imm(4), pos)
	CMPQ(pos, c.last)
	CMOVQGT(c.last, pos)
	ANDQ(Imm(3), bit)
	ADDQ(bit, pos)
	best, at := GP64(), GP64()
	MOVQ(Mem{Base: c.ptr, Index: pos, Scale: 8}, best)
	XORQ(NewParamAddr("fk", 0), best)
	IMULQ(c.mix, best)
	MOVQ(pos, at)
	for h := 1; h < 4; h++ {
		x, l := GP64(), GP64()
		MOVQ(Mem{Base: c.ptr, Index: pos, Scale: 8, Disp: 32 * h}, x)
		XORQ(NewParamAddr("fk", 0), x)
		IMULQ(c.mix, x)
		LEAQ(Mem{Base: pos, Disp: 4 * h}, l)
		// Strictly greater: of equal scores the earlier lane stays.
		CMPQ(x, best)
		CMOVQHI(x, best)
		CMOVQHI(l, at)
	}
	c.offer(lbl("pick_take"), lbl("next_window"), best, at)
	JMP(LabelRef(lbl("next_window")))
}

// offer makes score s at lane at the best when it is strictly higher or the first candidate,
// then goes on at skip: lanes and windows come in order, so the first of equal scores stays.
func (c avx2Ctx) offer(take, skip string, s, at reg.Register) {
	TESTQ(c.bestAt, c.bestAt)
	JS(LabelRef(take))
	CMPQ(s, c.bestS)
	JBE(LabelRef(skip))
	Label(take)
	MOVQ(s, c.bestS)
	MOVQ(at, c.bestAt)
}

// avx512 is the kernel for 16 lanes a step: two accumulators of eight lanes, with AVX512DQ's
// 64-bit lane multiply and AVX-512's unsigned compares into mask registers.
func avx512(iota Mem) {
	TEXT("argmaxAVX512", NOSPLIT, "func(fk uint64, lanes []uint64) (best uint64, at int)")
	Doc("argmaxAVX512 is argmax over the first len(lanes) &^ 15 lanes (at least 16) with AVX-512 (F, DQ, VL).")
	ptr := Load(Param("lanes").Base(), GP64())
	n := Load(Param("lanes").Len(), GP64())
	SHRQ(Imm(4), n)
	k := ZMM()
	VPBROADCASTQ(Load(Param("fk"), GP64()), k)
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
		x, gt := ZMM(), reg.K1
		if h == 1 {
			gt = reg.K2
		}
		VPXORQ(Mem{Base: ptr, Disp: 64 * h}, k, x)
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

// The threshold pass of a top-k lookup (above in hrw.go) writes, in order, the positions of the
// lanes whose score is above a bound to a buffer of int32s, and returns how many there were; the
// caller takes them when fewer than hitMax. No branch depends on a score: every step stores a
// whole vector of positions, of which only the hits count, and the count goes on from the last
// hit. So that the stores stay within the buffer (hitMax + 16 int32s), the count is held at
// hitMax before each block of 16 lanes once it gets there: a count of hitMax or more only says
// that there were too many.
const hitMax = 64

// hitSig is the signature of both threshold kernels (hits is *[hitMax + 16]int32).
const hitSig = "func(fk uint64, lanes []uint64, below uint64, hits *[80]int32) (n int)"

// hitsAVX2 passes the first len(lanes) &^ 3 lanes, four a step, 16 an iteration. AVX2 has no
// 64-bit multiply or unsigned compare: the scores are computed in full from one VPMULUDQ and one
// VPMULLD (as in scoresY, with the sum of the cross products shifted into the high halves), and
// compared with the bound as signed numbers after both have their top bit flipped. The four
// lanes' mask indexes a table of their positions (one table for each step of an iteration, its
// lanes' offsets added) and one of how many they are.
func hitsAVX2() {
	offsets := GLOBL("hitOffsets", RODATA|NOPTR)
	for h := 0; h < 4; h++ {
		for m := 0; m < 16; m++ {
			j := 0
			for b := 0; b < 4; b++ {
				if m&(1<<b) != 0 {
					DATA(256*h+16*m+4*j, U32(uint32(4*h+b)))
					j++
				}
			}
			for ; j < 4; j++ {
				DATA(256*h+16*m+4*j, U32(0))
			}
		}
	}
	counts := GLOBL("hitCounts", RODATA|NOPTR)
	for m := 0; m < 16; m++ {
		DATA(m, U8(uint8(bits.OnesCount(uint(m)))))
	}

	TEXT("hitsAVX2", NOSPLIT, hitSig)
	Pragma("noescape")
	Doc("hitsAVX2 is the threshold pass over the first len(lanes) &^ 3 lanes with AVX2.")
	ptr := Load(Param("lanes").Base(), GP64())
	blocks := Load(Param("lanes").Len(), GP64())
	rest := GP64()
	MOVQ(blocks, rest)
	SHRQ(Imm(4), blocks)
	SHRQ(Imm(2), rest)
	ANDQ(Imm(3), rest)
	hits := Load(Param("hits"), GP64())
	k := YMM()
	VPBROADCASTQ(NewParamAddr("fk", 0), k)
	mlo, mswap := broadcastY(mix&0xFFFFFFFF), broadcastY((mix&0xFFFFFFFF)<<32|mix>>32)
	flip := broadcastY(flip)
	bound := YMM()
	VPBROADCASTQ(NewParamAddr("below", 32), bound)
	VPXOR(flip, bound, bound)
	g := GP64()
	step, base := XMM(), XMM()
	MOVQ(U64(16), g)
	VMOVQ(g, step)
	VPBROADCASTD(step, step)
	VPXOR(base, base, base)
	offs, cnts := GP64(), GP64()
	LEAQ(offsets, offs)
	LEAQ(counts, cnts)
	n, limit := GP64(), GP64()
	XORQ(n, n)
	MOVQ(U64(hitMax), limit)

	// group passes the four lanes at ptr + 32*h, positions base + 4*h + 0..3.
	group := func(h int) {
		x, lo, q, r := YMM(), YMM(), YMM(), YMM()
		VPXOR(Mem{Base: ptr, Disp: 32 * h}, k, x)
		VPMULUDQ(mlo, x, lo)
		VPMULLD(mswap, x, q)
		VPSHUFD(Imm(0xB1), q, r)
		VPADDD(r, q, q)
		VPSLLQ(Imm(32), q, q)
		VPADDQ(q, lo, lo)
		VPXOR(flip, lo, lo)
		VPCMPGTQ(bound, lo, lo)
		m, c := GP32(), GP32()
		VMOVMSKPD(lo, m)
		MOVBLZX(Mem{Base: cnts, Index: m, Scale: 1}, c)
		SHLL(Imm(4), m)
		v := XMM()
		VPADDD(Mem{Base: offs, Index: m, Scale: 1, Disp: 256 * h}, base, v)
		VMOVDQU(v, Mem{Base: hits, Index: n, Scale: 4})
		ADDQ(c.As64(), n)
	}

	TESTQ(blocks, blocks)
	JZ(LabelRef("hits_avx2_rest"))
	Label("hits_avx2_block")
	CMPQ(n, limit)
	CMOVQGT(limit, n)
	for h := 0; h < 4; h++ {
		group(h)
	}
	VPADDD(step, base, base)
	ADDQ(Imm(128), ptr)
	DECQ(blocks)
	JNZ(LabelRef("hits_avx2_block"))

	Label("hits_avx2_rest")
	// Then up to three steps of four lanes, the base moved by four each.
	TESTQ(rest, rest)
	JZ(LabelRef("hits_avx2_done"))
	MOVQ(U64(4), g)
	VMOVQ(g, step)
	VPBROADCASTD(step, step)
	Label("hits_avx2_group")
	CMPQ(n, limit)
	CMOVQGT(limit, n)
	group(0)
	VPADDD(step, base, base)
	ADDQ(Imm(32), ptr)
	DECQ(rest)
	JNZ(LabelRef("hits_avx2_group"))

	Label("hits_avx2_done")
	VZEROUPPER()
	Store(n, ReturnIndex(0))
	RET()
}

// hitsAVX512 passes the first len(lanes) &^ 7 lanes, eight a step, 16 an iteration: the scores
// in full (VPMULLQ), an unsigned compare into a mask register, and the positions it selects
// packed by VPCOMPRESSD.
func hitsAVX512() {
	hitPositions := GLOBL("hitPositions", RODATA|NOPTR)
	for i := 0; i < 8; i++ {
		DATA(4*i, U32(uint32(i)))
	}
	TEXT("hitsAVX512", NOSPLIT, hitSig)
	Pragma("noescape")
	Doc("hitsAVX512 is the threshold pass over the first len(lanes) &^ 7 lanes with AVX-512 (F, DQ, VL) and POPCNT.")
	ptr := Load(Param("lanes").Base(), GP64())
	groups := Load(Param("lanes").Len(), GP64())
	SHRQ(Imm(3), groups)
	hits := Load(Param("hits"), GP64())
	k := ZMM()
	VPBROADCASTQ(Load(Param("fk"), GP64()), k)
	bound := ZMM()
	VPBROADCASTQ(Load(Param("below"), GP64()), bound)
	g := GP64()
	MOVQ(U64(mix), g)
	mz := ZMM()
	VPBROADCASTQ(g, mz)
	MOVQ(U64(8), g)
	step := YMM()
	VMOVQ(g, step.AsX())
	VPBROADCASTD(step.AsX(), step)
	idx := YMM()
	VMOVDQU(hitPositions, idx)
	n, limit := GP64(), GP64()
	XORQ(n, n)
	MOVQ(U64(hitMax), limit)

	// group passes the eight lanes at ptr + 64*h, positions idx (then moved on by eight).
	group := func(h int) {
		x, z := ZMM(), YMM()
		VPXORQ(Mem{Base: ptr, Disp: 64 * h}, k, x)
		VPMULLQ(mz, x, x)
		VPCMPUQ(Imm(6), bound, x, reg.K1)
		VPCOMPRESSD_Z(idx, reg.K1, z)
		VMOVDQU(z, Mem{Base: hits, Index: n, Scale: 4})
		c := GP32()
		KMOVB(reg.K1, c)
		POPCNTL(c, c)
		ADDQ(c.As64(), n)
		VPADDD(step, idx, idx)
	}

	blocks := GP64()
	MOVQ(groups, blocks)
	SHRQ(Imm(1), blocks)
	JZ(LabelRef("hits_avx512_rest"))
	Label("hits_avx512_block")
	CMPQ(n, limit)
	CMOVQGT(limit, n)
	group(0)
	group(1)
	ADDQ(Imm(128), ptr)
	DECQ(blocks)
	JNZ(LabelRef("hits_avx512_block"))

	Label("hits_avx512_rest")
	// Then one step of eight lanes when their number is odd.
	TESTQ(U32(1), groups)
	JZ(LabelRef("hits_avx512_done"))
	CMPQ(n, limit)
	CMOVQGT(limit, n)
	group(0)

	Label("hits_avx512_done")
	VZEROUPPER()
	Store(n, ReturnIndex(0))
	RET()
}

// lists are the operations on lists of four keys per vector lane (highest first) for keys of one
// width, whose unsigned maximum and minimum are max and min.
type lists struct{ max, min func(...Op) }

var (
	wide   = lists{VPMAXUQ, VPMINUQ}
	narrow = lists{VPMAXUD, VPMINUD}
)

// insert puts each lane of x into that lane's list of four in c, in place (for loops).
func (l lists) insert(c *[4]reg.VecVirtual, x reg.VecVirtual) {
	for i := 0; i < 3; i++ {
		t := ZMM()
		l.min(x, c[i], t)
		l.max(x, c[i], c[i])
		x = t
	}
	l.max(x, c[3], c[3])
}

// insertPair inserts the higher of each lane of x and y into c and the lower into the list of
// two, lower: of a lane's best four at most two are the lower of their pair, and those are among
// the two best lower ones.
func (l lists) insertPair(c *[4]reg.VecVirtual, lower *[2]reg.VecVirtual, x, y reg.VecVirtual) {
	lo := ZMM()
	l.min(y, x, lo)
	l.max(y, x, x)
	l.insert(c, x)
	t := ZMM()
	l.min(lo, lower[0], t)
	l.max(lo, lower[0], lower[0])
	l.max(t, lower[1], lower[1])
}

// sortBitonic sorts each lane's four values of m where they rise, then fall (or the reverse),
// renaming registers instead of moving them (so never inside a loop).
func (l lists) sortBitonic(m *[4]reg.VecVirtual) {
	for _, p := range [][2]int{{0, 2}, {1, 3}, {0, 1}, {2, 3}} {
		t := ZMM()
		l.min(m[p[1]], m[p[0]], t)
		l.max(m[p[1]], m[p[0]], m[p[0]])
		m[p[1]] = t
	}
}

// withLower makes each lane's list of c its best four of c and lower: the higher of c's i-th and
// lower's (3 - i)-th are the four best in a bitonic order.
func (l lists) withLower(c *[4]reg.VecVirtual, lower [2]reg.VecVirtual) {
	l.max(lower[1], c[2], c[2])
	l.max(lower[0], c[3], c[3])
	l.sortBitonic(c)
}

// top4 writes the four highest 64-bit keys of the eight lanes' lists c to out: each lane's list
// meets its partner's, lanes 4, 2 and 1 apart; the higher of the i-th and the partner's
// (3 - i)-th are the best four of both, which sortBitonic orders.
func top4(c [4]reg.VecVirtual, out reg.Register) {
	for round := 0; round < 3; round++ {
		var q [4]reg.VecVirtual
		for i := range q {
			q[i] = ZMM()
			switch round {
			case 0:
				VSHUFI64X2(Imm(0x4E), c[i], c[i], q[i])
			case 1:
				VPERMQ(Imm(0x4E), c[i], q[i])
			default:
				VPSHUFD(Imm(0x4E), c[i], q[i])
			}
		}
		for i := range c {
			VPMAXUQ(q[3-i], c[i], c[i])
		}
		wide.sortBitonic(&c)
	}
	for i := range c {
		VMOVQ(c[i].AsX(), Mem{Base: out, Disp: 8 * i})
	}
}

// keyWidth is what the two top-k key kernels do differently: keys of 64 bits, eight to a vector,
// or of 32 bits, sixteen to a vector.
type keyWidth struct {
	name, doc, label string
	// per is the number of keys in a vector.
	per int
	lists
	add, sub, compare func(...Op)
	loadU             func(...Op)
	zeroMasked        func(mxyz, k, mxyz1 Op)
	// data writes the i-th element of a global vector.
	data func(i int, v uint64)
	// broadcast puts the low per-th of g in every element of v.
	broadcast func(g reg.GPVirtual, v reg.VecVirtual)
	// keys returns the keys of the per lanes at m, whose ^positions are in inv (see topKeys).
	keys func(s *keySetup, m Mem, inv reg.VecVirtual) reg.VecVirtual
	// merge writes the four highest keys of the vector lanes' lists to out, widened.
	merge func(c [4]reg.VecVirtual, out reg.Register)
}

// keySetup holds the registers both key kernels set up: fk in every 64-bit lane, low in every
// element, the multiplier, and (32-bit keys) the permutation that gathers high halves.
type keySetup struct{ k, low, mz, high reg.VecVirtual }

// topKeysSig is the signature of both top-k key kernels.
const topKeysSig = "func(fk uint64, lanes []uint64, low uint64, keys *[4]uint64)"

// scores returns the eight scores of the lanes at m.
func (s *keySetup) scores(m Mem) reg.VecVirtual {
	x := ZMM()
	VPXORQ(m, s.k, x)
	VPMULLQ(s.mz, x, x)
	return x
}

// wideKeys is topKeysAVX512, the top-k kernel of a ranking of up to 3 (topKeys in
// argmax_amd64.go), as the core's AVX-512 kernel ranks 8 to 128 nodes
// (core/src/kernel/avx512.rs, top_keys_lists): each lane is keyed as its score with the bits of
// low (a mask of low bits above every position) replaced by those of ^position, so that one
// unsigned compare orders lanes by score and, among scores equal outside low, by position, and
// the key names its lane. Each of the eight vector lanes keeps its four highest keys, highest
// first: the blocks of eight go by in pairs, the higher of each pair's two keys inserted into the
// list of four and the lower into a list of two (of a lane's best four at most two are the lower
// of their pair); a last block of a pair is inserted alone, and the lanes past the last whole
// block are the top lanes of the last eight. Then the eight lists are merged, lanes 4, 2 and 1
// apart, into the four highest keys of all. No branch depends on a score.
var wideKeys = keyWidth{
	name:       "topKeysAVX512",
	doc:        "topKeysAVX512 writes the four highest keys of lanes (at least 8) to keys, highest first, with AVX-512 (F, DQ, VL).",
	label:      "topkeys",
	per:        8,
	lists:      wide,
	add:        VPADDQ,
	sub:        VPSUBQ,
	compare:    VPCMPUQ,
	loadU:      VMOVDQU64,
	zeroMasked: VMOVDQA64_Z,
	data:       func(i int, v uint64) { DATA(8*i, U64(v)) },
	broadcast:  func(g reg.GPVirtual, v reg.VecVirtual) { VPBROADCASTQ(g, v) },
	keys: func(s *keySetup, m Mem, inv reg.VecVirtual) reg.VecVirtual {
		x := s.scores(m)
		// 0xD8: the bits of inv where low has ones, of the score elsewhere.
		VPTERNLOGQ(Imm(0xD8), s.low, inv, x)
		return x
	},
	merge: top4,
}

// narrowKeys is topKeysNarrowAVX512: topKeysAVX512 with 32-bit keys, sixteen to a vector, as the
// core's top_keys_narrow: a key is the high half of a score with its bits of low (at most 32
// bits) replaced by those of ^position. Two blocks' scores make one vector of keys (VPERMT2D takes
// their high halves), so each list insertion serves sixteen lanes instead of eight; the vector
// lanes' lists are merged by halves and widened to 64 bits for top4. The keys order lanes by the
// high half of their scores less the position bits; where two of the best are equal there,
// topKeyed declines and the threshold pass ranks them.
var narrowKeys = keyWidth{
	name:       "topKeysNarrowAVX512",
	doc:        "topKeysNarrowAVX512 writes the four highest 32-bit keys of lanes (at least 16; low below 2^32) to keys, widened, highest first, with AVX-512 (F, DQ, VL).",
	label:      "topnarrow",
	per:        16,
	lists:      narrow,
	add:        VPADDD,
	sub:        VPSUBD,
	compare:    VPCMPUD,
	loadU:      VMOVDQU32,
	zeroMasked: VMOVDQA32_Z,
	data:       func(i int, v uint64) { DATA(4*i, U32(uint32(v))) },
	broadcast:  func(g reg.GPVirtual, v reg.VecVirtual) { VPBROADCASTD(g.As32(), v) },
	keys: func(s *keySetup, m Mem, inv reg.VecVirtual) reg.VecVirtual {
		x, y := s.scores(m), s.scores(m.Offset(64))
		// The high halves of x's eight scores, then of y's.
		VPERMT2D(y, s.high, x)
		VPTERNLOGD(Imm(0xD8), s.low, inv, x)
		return x
	},
	merge: func(c [4]reg.VecVirtual, out reg.Register) {
		// Lanes 8 to 15 meet lanes 0 to 7, as top4 merges lanes; the eight lists are then
		// widened.
		var m [4]reg.VecVirtual
		for i := range m {
			partner := ZMM()
			VSHUFI64X2(Imm(0x4E), c[3-i], c[3-i], partner)
			m[i] = ZMM()
			VPMAXUD(partner, c[i], m[i])
		}
		narrow.sortBitonic(&m)
		var w [4]reg.VecVirtual
		for i := range w {
			w[i] = ZMM()
			VPMOVZXDQ(m[i].AsY(), w[i])
		}
		top4(w, out)
	},
}

// topKeysKernel writes the top-k key kernel of width w (see wideKeys and narrowKeys); iota holds
// the 64-bit positions 0 to 15.
func topKeysKernel(w keyWidth, iota Mem) {
	inverted := GLOBL(w.globalName("invertedPositions"), RODATA|NOPTR)
	for i := 0; i < w.per; i++ {
		w.data(i, ^uint64(i))
	}
	positions := iota
	var highHalves Mem
	if w.per == 16 {
		highHalves = GLOBL("highHalves", RODATA|NOPTR)
		for i := 0; i < 16; i++ {
			w.data(i, uint64(2*i+1))
		}
		positions = GLOBL("positions32", RODATA|NOPTR)
		for i := 0; i < 16; i++ {
			w.data(i, uint64(i))
		}
	}
	TEXT(w.name, NOSPLIT, topKeysSig)
	Pragma("noescape")
	Doc(w.doc)
	lbl := func(name string) string { return w.label + "_" + name }
	base := Load(Param("lanes").Base(), GP64())
	n := Load(Param("lanes").Len(), GP64())
	var s keySetup
	s.k = ZMM()
	VPBROADCASTQ(Load(Param("fk"), GP64()), s.k)
	s.low = ZMM()
	w.broadcast(Load(Param("low"), GP64()).(reg.GPVirtual), s.low)
	g := GP64()
	MOVQ(U64(mix), g)
	s.mz = ZMM()
	VPBROADCASTQ(g, s.mz)
	MOVQ(U64(uint64(w.per)), g)
	step := ZMM()
	w.broadcast(g, step)
	if w.per == 16 {
		s.high = ZMM()
		w.loadU(highHalves, s.high)
	}
	inv := ZMM()
	w.loadU(inverted, inv)
	var c [4]reg.VecVirtual
	var lower [2]reg.VecVirtual
	for i := range c {
		c[i] = ZMM()
		VPXORQ(c[i], c[i], c[i])
	}
	for i := range lower {
		lower[i] = ZMM()
		VPXORQ(lower[i], lower[i], lower[i])
	}
	vectorBytes := 8 * w.per

	// Vectors of keys in pairs (lists.insertPair).
	ptr, pairs := GP64(), GP64()
	MOVQ(base, ptr)
	MOVQ(n, pairs)
	SHRQ(Imm(uint64(bits.TrailingZeros(uint(2*w.per)))), pairs)
	JZ(LabelRef(lbl("odd")))
	double := ZMM()
	w.add(step, step, double)
	Label(lbl("pair"))
	next := ZMM()
	w.sub(step, inv, next)
	x := w.keys(&s, Mem{Base: ptr}, inv)
	y := w.keys(&s, Mem{Base: ptr, Disp: vectorBytes}, next)
	w.sub(double, inv, inv)
	w.insertPair(&c, &lower, x, y)
	ADDQ(U32(uint64(2*vectorBytes)), ptr)
	DECQ(pairs)
	JNZ(LabelRef(lbl("pair")))

	Label(lbl("odd"))
	TESTQ(U32(uint64(w.per)), n)
	JZ(LabelRef(lbl("lower")))
	w.insert(&c, w.keys(&s, Mem{Base: ptr}, inv))

	Label(lbl("lower"))
	w.withLower(&c, lower)

	// The last n % per lanes, as the top lanes of the last per; the other lanes key to zero.
	r := GP64()
	MOVQ(n, r)
	ANDQ(U32(uint64(w.per-1)), r)
	JZ(LabelRef(lbl("merge")))
	at := GP64()
	LEAQ(Mem{Base: n, Disp: -w.per}, at)
	ti := ZMM()
	w.broadcast(at, ti)
	tinv := ZMM()
	w.loadU(inverted, tinv)
	w.sub(ti, tinv, tinv)
	tail := w.keys(&s, Mem{Base: base, Index: at, Scale: 8}, tinv)
	// The new lanes are the top r: those whose index i has i + r >= per.
	vr := ZMM()
	w.broadcast(r, vr)
	w.add(positions, vr, vr)
	w.compare(Imm(5), step, vr, reg.K1)
	w.zeroMasked(tail, reg.K1, tail)
	w.insert(&c, tail)

	Label(lbl("merge"))
	w.merge(c, Load(Param("keys"), GP64()))
	VZEROUPPER()
	RET()
}

// globalName is name with the key width's suffix (none for 64-bit keys).
func (w keyWidth) globalName(name string) string {
	if w.per == 16 {
		return name + "32"
	}
	return name
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
