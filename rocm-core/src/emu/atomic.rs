//! Read-modify-write semantics shared by LDS (DS) and global atomics: which operation an
//! op performs, on how many bits, and the value it stores.

use crate::isa::amdgpu::{IsaFamily, Op};

/// The operation of an atomic.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rmw {
    Add,
    Sub,
    And,
    Or,
    Xor,
    Smin,
    Smax,
    Umin,
    Umax,
    /// `old >= x ? 0 : old + 1`.
    Inc,
    /// `old == 0 || old > x ? x : old - 1`.
    Dec,
    Swap,
    /// Store the new value when the old one equals the compare value.
    Cmpswap,
    AddF32,
}

/// An atomic op: its operation and whether it works on 64 bits.
pub fn atomic_of(op: Op) -> Option<(Rmw, bool)> {
    use Op::*;
    Some(match op {
        DsAddU32 | DsAddRtnU32 | GlobalAtomicAdd | GlobalAtomicAddRtn => (Rmw::Add, false),
        GlobalAtomicSub | GlobalAtomicSubRtn => (Rmw::Sub, false),
        DsAndB32 | GlobalAtomicAnd | GlobalAtomicAndRtn => (Rmw::And, false),
        DsOrB32 | GlobalAtomicOr | GlobalAtomicOrRtn => (Rmw::Or, false),
        DsXorB32 | GlobalAtomicXor | GlobalAtomicXorRtn => (Rmw::Xor, false),
        DsMinI32 | DsMinRtnI32 | GlobalAtomicSmin | GlobalAtomicSminRtn => (Rmw::Smin, false),
        DsMaxI32 | DsMaxRtnI32 | GlobalAtomicSmax | GlobalAtomicSmaxRtn => (Rmw::Smax, false),
        DsMinU32 | DsMinRtnU32 | GlobalAtomicUmin | GlobalAtomicUminRtn => (Rmw::Umin, false),
        DsMaxU32 | DsMaxRtnU32 | GlobalAtomicUmax | GlobalAtomicUmaxRtn => (Rmw::Umax, false),
        DsIncU32 | GlobalAtomicInc | GlobalAtomicIncRtn => (Rmw::Inc, false),
        GlobalAtomicDec | GlobalAtomicDecRtn => (Rmw::Dec, false),
        DsWrxchgRtnB32 | GlobalAtomicSwap | GlobalAtomicSwapRtn => (Rmw::Swap, false),
        DsCmpstB32 | GlobalAtomicCmpswap | GlobalAtomicCmpswapRtn => (Rmw::Cmpswap, false),
        DsAddF32 | DsAddRtnF32 | GlobalAtomicAddF32 | GlobalAtomicAddF32Rtn => (Rmw::AddF32, false),
        DsAddU64 | GlobalAtomicAddX2 | GlobalAtomicAddX2Rtn => (Rmw::Add, true),
        DsAndB64 | GlobalAtomicAndX2 | GlobalAtomicAndX2Rtn => (Rmw::And, true),
        GlobalAtomicOrX2 | GlobalAtomicOrX2Rtn => (Rmw::Or, true),
        GlobalAtomicXorX2 | GlobalAtomicXorX2Rtn => (Rmw::Xor, true),
        DsMaxU64 => (Rmw::Umax, true),
        GlobalAtomicCmpswapX2 | GlobalAtomicCmpswapX2Rtn => (Rmw::Cmpswap, true),
        _ => return None,
    })
}

/// Whether a DS compare-store takes the compare value first (gfx9 `ds_cmpst_b32 addr,
/// cmp, src`); gfx11's `ds_cmpstore_b32 addr, src, cmp` and the global cmpswap data
/// `{src, cmp}` take it second.
pub fn ds_compare_first(family: IsaFamily) -> bool {
    family == IsaFamily::Gfx9
}

/// The value an atomic stores: `old` the memory, `x` the data, `cmp` the compare value
/// (cmpswap only), all `wide` (64-bit) or 32-bit.
pub fn rmw(kind: Rmw, wide: bool, old: u64, x: u64, cmp: u64) -> u64 {
    let mask = if wide { u64::MAX } else { u64::from(u32::MAX) };
    let signed = |v: u64| {
        if wide {
            v as i64
        } else {
            i64::from(v as u32 as i32)
        }
    };
    let r = match kind {
        Rmw::Add => old.wrapping_add(x),
        Rmw::Sub => old.wrapping_sub(x),
        Rmw::And => old & x,
        Rmw::Or => old | x,
        Rmw::Xor => old ^ x,
        Rmw::Smin => signed(old).min(signed(x)) as u64,
        Rmw::Smax => signed(old).max(signed(x)) as u64,
        Rmw::Umin => old.min(x),
        Rmw::Umax => old.max(x),
        Rmw::Inc if old >= x => 0,
        Rmw::Inc => old + 1,
        Rmw::Dec if old == 0 || old > x => x,
        Rmw::Dec => old - 1,
        Rmw::Swap => x,
        Rmw::Cmpswap if old == cmp => x,
        Rmw::Cmpswap => old,
        Rmw::AddF32 => u64::from((f32::from_bits(old as u32) + f32::from_bits(x as u32)).to_bits()),
    };
    r & mask
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edges_of_every_operation() {
        let m = u64::from(u32::MAX);
        assert_eq!(rmw(Rmw::Add, false, m, 1, 0), 0, "32-bit add wraps");
        assert_eq!(rmw(Rmw::Add, true, m, 1, 0), 1 << 32, "64-bit add carries");
        assert_eq!(rmw(Rmw::Sub, false, 0, 1, 0), m);
        assert_eq!(rmw(Rmw::Smin, false, 0x8000_0000, 1, 0), 0x8000_0000);
        assert_eq!(rmw(Rmw::Umin, false, 0x8000_0000, 1, 0), 1);
        assert_eq!(rmw(Rmw::Smax, true, u64::MAX, 0, 0), 0);
        assert_eq!(rmw(Rmw::Umax, true, u64::MAX, 0, 0), u64::MAX);
        assert_eq!(rmw(Rmw::Inc, false, 7, 7, 0), 0, "inc wraps at the limit");
        assert_eq!(rmw(Rmw::Inc, false, 6, 7, 0), 7);
        assert_eq!(
            rmw(Rmw::Inc, false, 9, 7, 0),
            0,
            "inc above the limit resets"
        );
        assert_eq!(rmw(Rmw::Dec, false, 0, 7, 0), 7, "dec wraps at zero");
        assert_eq!(
            rmw(Rmw::Dec, false, 9, 7, 0),
            7,
            "dec above the limit resets"
        );
        assert_eq!(rmw(Rmw::Dec, false, 3, 7, 0), 2);
        assert_eq!(rmw(Rmw::Cmpswap, true, 5, 9, 5), 9);
        assert_eq!(rmw(Rmw::Cmpswap, true, 5, 9, 4), 5);
        assert_eq!(rmw(Rmw::Swap, false, 5, 9, 0), 9);
        let f = |x: f32| u64::from(x.to_bits());
        assert_eq!(rmw(Rmw::AddF32, false, f(1.5), f(2.25), 0), f(3.75));
        assert_eq!(
            rmw(Rmw::AddF32, false, f(f32::MAX), f(f32::MAX), 0),
            f(f32::INFINITY)
        );
        assert!(f32::from_bits(rmw(
            Rmw::AddF32,
            false,
            f(f32::INFINITY),
            f(f32::NEG_INFINITY),
            0
        ) as u32)
        .is_nan());
    }
}
