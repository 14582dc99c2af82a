//! 16-bit floats in the PTX builder: f16 and bf16 values live in `.b16` registers, move
//! through memory as raw 16-bit patterns (two to a 32-bit word for vector accesses), and
//! are computed on in f32.
//!
//! Rules:
//! - Widening to f32 is exact: `cvt.f32.f16` for f16; for bf16 the 16 bits become the high
//!   half of an f32 (`mov.b32 %f, {0, %h}`), which is what a bf16 is by definition and
//!   needs no sm_90 `cvt.f32.bf16`.
//! - Narrowing from f32 rounds to nearest even (`cvt.rn.f16.f32`, and `cvt.rn.bf16.f32`,
//!   which needs sm_80 and PTX ISA 7.0: every target we emit for).
//! - Word packing puts the lower-addressed value in the low half (little endian), so a
//!   `.v4.b32` access of 16 bytes moves 8 consecutive 16-bit values in memory order.

use super::cache::{LoadHint, StoreCache};
use super::{KernelBuilder, Op, Reg, Ty};

/// Whether `ty` is a 16-bit float type.
pub fn is_half(ty: Ty) -> bool {
    matches!(ty, Ty::F16 | Ty::Bf16)
}

impl KernelBuilder {
    /// The f32 value of an f16 or bf16 register (exact).
    pub fn widen_half(&mut self, h: Reg) -> Reg {
        let r = self.reg(Ty::F32);
        match h.ty() {
            Ty::Bf16 => {
                let zero = self.mov(Ty::B16, Op::I(0));
                self.emit(format!("mov.b32 {r}, {{{zero}, {h}}}"));
            }
            _ => self.emit(format!("cvt.f32.f16 {r}, {h}")),
        }
        r
    }

    /// The f32 `f` rounded to nearest even as `to` (f16 or bf16).
    pub fn narrow_to_half(&mut self, to: Ty, f: Reg) -> Reg {
        debug_assert!(is_half(to) && f.ty() == Ty::F32);
        let r = self.reg(to);
        self.emit(format!("cvt.rn.{}.f32 {r}, {f}", to.name()));
        r
    }

    /// The two 16-bit values of a 32-bit word as registers of `ty` (low half first).
    pub fn unpack_halves(&mut self, word: Reg, ty: Ty) -> [Reg; 2] {
        let (lo, hi) = (self.reg(ty), self.reg(ty));
        self.emit(format!("mov.b32 {{{lo}, {hi}}}, {word}"));
        [lo, hi]
    }

    /// Loads one 16-bit value from global `addr + offset` into the low half of the 32-bit
    /// `word`, zeroing its high half (`ld.global.u16` into a 32-bit register
    /// zero-extends): the last, odd element of a packed vector without a temporary.
    #[allow(clippy::too_many_arguments)]
    pub fn ld_global_half_into_word(
        &mut self,
        word: Reg,
        addr: Reg,
        offset: i64,
        read_only: bool,
        hint: LoadHint,
        policy: Option<Reg>,
    ) {
        debug_assert_eq!(word.ty().size(), 4);
        self.ld_global_hinted_as(Ty::U16, &[word], addr, offset, read_only, hint, policy);
    }

    /// Stores the low half of the 32-bit `word` at global `addr + offset` (`st.global.b16`
    /// from a 32-bit register truncates).
    pub fn st_global_low_half(
        &mut self,
        addr: Reg,
        offset: i64,
        word: Reg,
        hint: StoreCache,
        policy: Option<Reg>,
    ) {
        debug_assert_eq!(word.ty().size(), 4);
        self.st_global_hinted_as(Ty::B16, addr, offset, &[word], hint, policy);
    }

    /// A 32-bit word holding `lo` in its low half and `hi` in its high half.
    pub fn pack_halves(&mut self, lo: Reg, hi: Reg) -> Reg {
        let r = self.reg(Ty::B32);
        self.emit(format!("mov.b32 {r}, {{{lo}, {hi}}}"));
        r
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn emits_conversions_and_packing() {
        let mut k = KernelBuilder::new("t");
        let w = k.mov(Ty::B32, Op::I(0));
        let [lo, hi] = k.unpack_halves(w, Ty::Bf16);
        let f = k.widen_half(hi);
        let h = k.reg(Ty::F16);
        let g = k.widen_half(h);
        let n = k.narrow_to_half(Ty::Bf16, f);
        let _ = k.pack_halves(lo, n);
        let _ = g;
        let text = k.finish();
        assert!(text.contains("mov.b32 {%h1, %h2}, %r1;"), "{text}");
        assert!(text.contains("mov.b32 %f1, {%h3, %h2};"), "{text}");
        assert!(text.contains("cvt.f32.f16 %f2, %h4;"), "{text}");
        assert!(text.contains("cvt.rn.bf16.f32 %h5, %f1;"), "{text}");
        assert!(text.contains("mov.b32 %r2, {%h1, %h5};"), "{text}");
        let mut k = KernelBuilder::new("t");
        let (w, a) = (k.reg(Ty::B32), k.reg(Ty::U64));
        k.ld_global_half_into_word(w, a, 6, true, LoadHint::Default, None);
        k.st_global_low_half(a, 2, w, StoreCache::Streaming, None);
        let text = k.finish();
        assert!(text.contains("ld.global.nc.u16 %r1, [%rd1+6];"), "{text}");
        assert!(text.contains("st.global.cs.b16 [%rd1+2], %r1;"), "{text}");
    }
}
