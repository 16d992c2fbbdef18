//! Branch-free selects in the baseline x86-64 instruction set. LLVM's x86 backend turns
//! conditional moves in loops back into branches (even when written as bit operations), and the
//! conditions here are random, so the conditional moves are written out. Each is held equal to
//! its twin in `portable.rs` by the tests of `kernel`.

/// `if c { a } else { b }` without a branch.
#[inline(always)]
pub(crate) fn select(c: bool, a: u64, b: u64) -> u64 {
    let mut r = b;
    // SAFETY: register operands and the flags only; no memory is touched.
    unsafe {
        core::arch::asm!(
            "test {c}, {c}",
            "cmovnz {r}, {a}",
            c = in(reg_byte) c as u8,
            a = in(reg) a,
            r = inout(reg) r,
            options(pure, nomem, nostack),
        );
    }
    r
}

/// Leaves the larger of the 128-bit keys `(hi, lo)` and `(t_hi, t_lo)` in the first, without a
/// branch (see [`max_into`]).
#[inline(always)]
pub(crate) fn keep_max(hi: &mut u64, lo: &mut u64, t_hi: u64, t_lo: u64) {
    // SAFETY: register operands and the flags only; no memory is touched.
    unsafe {
        core::arch::asm!(
            // Carry set iff (hi, lo) < (t_hi, t_lo).
            "cmp {lo}, {t_lo}",
            "mov {tmp}, {hi}",
            "sbb {tmp}, {t_hi}",
            "cmovb {hi}, {t_hi}",
            "cmovb {lo}, {t_lo}",
            hi = inout(reg) *hi,
            lo = inout(reg) *lo,
            t_hi = in(reg) t_hi,
            t_lo = in(reg) t_lo,
            tmp = out(reg) _,
            options(pure, nomem, nostack),
        );
    }
}

/// Leaves the larger of the 128-bit keys `(hi, lo)` and `(t_hi, t_lo)` in the first and the
/// smaller in the second, without a branch.
#[inline(always)]
pub(crate) fn max_into(hi: &mut u64, lo: &mut u64, t_hi: &mut u64, t_lo: &mut u64) {
    // SAFETY: register operands and the flags only; no memory is touched.
    unsafe {
        core::arch::asm!(
            // Carry set iff (hi, lo) < (t_hi, t_lo).
            "cmp {lo}, {t_lo}",
            "mov {tmp}, {hi}",
            "sbb {tmp}, {t_hi}",
            "mov {tmp}, {hi}",
            "cmovb {hi}, {t_hi}",
            "cmovb {t_hi}, {tmp}",
            "mov {tmp}, {lo}",
            "cmovb {lo}, {t_lo}",
            "cmovb {t_lo}, {tmp}",
            hi = inout(reg) *hi,
            lo = inout(reg) *lo,
            t_hi = inout(reg) *t_hi,
            t_lo = inout(reg) *t_lo,
            tmp = out(reg) _,
            options(pure, nomem, nostack),
        );
    }
}
