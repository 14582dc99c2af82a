//! Lane semantics of the extended VOP encodings (`isa::amdgpu::ext`): SDWA operand and
//! result selects, DPP and DPP8 cross-lane reads.
//!
//! - SDWA: each source is its selected byte or word, zero-extended or, with `sext`,
//!   sign-extended to 32 bits, before `neg`/`abs` and the operation; the result's low
//!   bits go to the selected part of the destination, the other bits are zeroed
//!   (`UNUSED_PAD`), filled with the part's sign bit above it and zeroed below
//!   (`UNUSED_SEXT`), or kept (`UNUSED_PRESERVE`).
//! - DPP16: a lane outside `row_mask`/`bank_mask` writes nothing. src0 comes from the
//!   lane `dpp_ctrl` names; a source lane out of range, or outside EXEC without `fi`, is
//!   invalid: with `bound_ctrl` src0 reads 0, else the lane writes nothing (its
//!   destination keeps its old value, its compare bit is 0).
//! - DPP8: src0 comes from the selected lane of the group of 8; a source lane outside
//!   EXEC without `fi` is invalid and the lane writes nothing.

use super::wave::{VSource, Wave};
use crate::isa::amdgpu::ext::{dpp8_source_lane, dpp_lane_enabled, dpp_source_lane};
use crate::isa::amdgpu::{DstUnused, Sdwa, SdwaSel, VExt};

/// Whether a lane computes or keeps its old results.
pub enum Lane {
    Runs,
    Keeps,
}

fn select(x: u64, sel: SdwaSel, sext: bool) -> u64 {
    let (off, width) = sel.field();
    if width == 32 {
        return x & 0xffff_ffff;
    }
    let part = (x as u32 >> off) & ((1 << width) - 1);
    if sext {
        u64::from(((part << (32 - width)) as i32 >> (32 - width)) as u32)
    } else {
        u64::from(part)
    }
}

/// src0 on every lane before the instruction writes anything (DPP reads other lanes,
/// and its destination is often its source).
pub fn snapshot(e: &VExt, w: &Wave, src0: VSource) -> [u64; 64] {
    let mut all = [0u64; 64];
    if !matches!(e, VExt::Sdwa(_)) {
        for (lane, v) in all.iter_mut().enumerate().take(w.lanes as usize) {
            *v = w.lane_value(src0, lane as u32);
        }
    }
    all
}

/// Rewrites the lane's fetched sources `s` for the extension; `src0` is
/// [`snapshot`]'s.
#[inline]
pub fn sources(
    e: &VExt,
    w: &Wave,
    src0: &[u64; 64],
    lane: u32,
    exec: u64,
    s: &mut [u64; 3],
) -> Lane {
    match e {
        VExt::Sdwa(sd) => {
            s[0] = select(s[0], sd.src_sel[0], sd.sext & 1 != 0);
            s[1] = select(s[1], sd.src_sel[1], sd.sext & 2 != 0);
            Lane::Runs
        }
        VExt::Dpp(d) => {
            if !dpp_lane_enabled(d, lane) {
                return Lane::Keeps;
            }
            match dpp_source_lane(d.ctrl, lane, w.lanes) {
                Some(from) if d.fi || (exec >> from) & 1 != 0 => {
                    s[0] = src0[from as usize];
                    Lane::Runs
                }
                _ if d.bound_ctrl => {
                    s[0] = 0;
                    Lane::Runs
                }
                _ => Lane::Keeps,
            }
        }
        VExt::Dpp8(d) => {
            let from = dpp8_source_lane(&d.sel, lane);
            if d.fi || (exec >> from) & 1 != 0 {
                s[0] = src0[from as usize];
                Lane::Runs
            } else {
                Lane::Keeps
            }
        }
    }
}

/// The destination dword an SDWA result `r` leaves when the register held `old`.
pub fn sdwa_result(sd: &Sdwa, old: u32, r: u32) -> u32 {
    let (off, width) = sd.dst_sel.field();
    if width == 32 {
        return r;
    }
    let mask = ((1u32 << width) - 1) << off;
    let placed = (r << off) & mask;
    match sd.dst_unused {
        DstUnused::Pad => placed,
        DstUnused::Sext => {
            let sign = (r >> (width - 1)) & 1 != 0;
            let above = if off + width >= 32 {
                0
            } else {
                u32::MAX << (off + width)
            };
            placed | if sign { above } else { 0 }
        }
        DstUnused::Preserve => (old & !mask) | placed,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sd(dst_sel: SdwaSel, dst_unused: DstUnused) -> Sdwa {
        Sdwa {
            dst_sel,
            dst_unused,
            ..Sdwa::DWORD
        }
    }

    #[test]
    fn sdwa_selects_extend_as_asked() {
        assert_eq!(select(0x8180_7f01, SdwaSel::Byte1, false), 0x7f);
        assert_eq!(select(0x8180_7f01, SdwaSel::Byte2, false), 0x80);
        assert_eq!(select(0x8180_7f01, SdwaSel::Byte2, true), 0xffff_ff80);
        assert_eq!(select(0x8180_7f01, SdwaSel::Byte3, true), 0xffff_ff81);
        assert_eq!(select(0x8180_7f01, SdwaSel::Word0, true), 0x7f01);
        assert_eq!(select(0x8180_7f01, SdwaSel::Word1, true), 0xffff_8180);
        assert_eq!(select(0x8180_7f01, SdwaSel::Dword, true), 0x8180_7f01);
    }

    #[test]
    fn sdwa_results_pad_extend_or_preserve() {
        let old = 0x1234_5678;
        assert_eq!(
            sdwa_result(&sd(SdwaSel::Dword, DstUnused::Preserve), old, 7),
            7
        );
        assert_eq!(
            sdwa_result(&sd(SdwaSel::Word1, DstUnused::Pad), old, 0xabcd_8001),
            0x8001_0000
        );
        assert_eq!(
            sdwa_result(&sd(SdwaSel::Word1, DstUnused::Preserve), old, 0x8001),
            0x8001_5678
        );
        assert_eq!(
            sdwa_result(&sd(SdwaSel::Byte1, DstUnused::Sext), old, 0x80),
            0xffff_8000
        );
        assert_eq!(
            sdwa_result(&sd(SdwaSel::Byte1, DstUnused::Sext), old, 0x7f),
            0x0000_7f00
        );
        assert_eq!(
            sdwa_result(&sd(SdwaSel::Byte3, DstUnused::Sext), old, 0xff),
            0xff00_0000
        );
        assert_eq!(
            sdwa_result(&sd(SdwaSel::Byte0, DstUnused::Preserve), old, 0x1ff),
            0x1234_56ff
        );
    }
}
