//! SALU semantics (SOP1, SOP2, SOPK, SOPC). Conventions in the parent module.

use super::AluOut;
use crate::isa::amdgpu::Op;
use crate::{Error, Result};

/// Result with SCC = (value ≠ 0), the rule of logic ops, shifts and bit counts.
fn nz(v: u64) -> AluOut {
    AluOut::with_flag(v, v != 0)
}

/// The SOPK immediate, sign-extended to 32 bits (raw or already sign-extended input).
fn simm16(x: u64) -> u32 {
    i32::from(x as u16 as i16) as u32
}

pub(super) fn execute(op: Op, src: [u64; 2], scc: bool) -> Result<AluOut> {
    let (a64, b64) = (src[0], src[1]);
    let (a, b) = (a64 as u32, b64 as u32);
    let (ai, bi) = (a as i32, b as i32);
    let v32 = |x: u32| AluOut::plain(u64::from(x));
    let nz32 = |x: u32| nz(u64::from(x));
    let cmp = |c: bool| AluOut::with_flag(0, c);
    Ok(match op {
        // SOP1
        Op::SMovB32 => v32(a),
        Op::SMovB64 => AluOut::plain(a64),
        Op::SNotB32 => nz32(!a),
        Op::SAbsI32 => nz32(ai.unsigned_abs()),
        Op::SBrevB32 => v32(a.reverse_bits()),
        Op::SBcnt1I32B32 => nz32(a.count_ones()),
        Op::SFf1I32B32 => v32(if a == 0 { u32::MAX } else { a.trailing_zeros() }),
        Op::SBcnt1I32B64 => nz32(a64.count_ones()),
        Op::SFf1I32B64 => v32(if a64 == 0 {
            u32::MAX
        } else {
            a64.trailing_zeros()
        }),

        // SOP2 arithmetic
        Op::SAddU32 => {
            let (r, c) = a.overflowing_add(b);
            AluOut::with_flag(u64::from(r), c)
        }
        Op::SSubU32 => {
            let (r, c) = a.overflowing_sub(b);
            AluOut::with_flag(u64::from(r), c)
        }
        Op::SAddI32 => {
            let (r, o) = ai.overflowing_add(bi);
            AluOut::with_flag(u64::from(r as u32), o)
        }
        Op::SSubI32 => {
            let (r, o) = ai.overflowing_sub(bi);
            AluOut::with_flag(u64::from(r as u32), o)
        }
        Op::SAddcU32 => {
            let wide = u64::from(a) + u64::from(b) + u64::from(scc);
            AluOut::with_flag(wide & 0xffff_ffff, wide >> 32 != 0)
        }
        Op::SSubbU32 => {
            let need = u64::from(b) + u64::from(scc);
            let r = u64::from(a).wrapping_sub(need) & 0xffff_ffff;
            AluOut::with_flag(r, need > u64::from(a))
        }
        Op::SMinI32 => AluOut::with_flag(u64::from(ai.min(bi) as u32), ai < bi),
        Op::SMinU32 => AluOut::with_flag(u64::from(a.min(b)), a < b),
        Op::SMaxI32 => AluOut::with_flag(u64::from(ai.max(bi) as u32), ai > bi),
        Op::SMaxU32 => AluOut::with_flag(u64::from(a.max(b)), a > b),
        Op::SMulI32 => v32(a.wrapping_mul(b)),
        Op::SMulHiU32 => v32(((u64::from(a) * u64::from(b)) >> 32) as u32),
        Op::SCselectB32 => v32(if scc { a } else { b }),
        Op::SCselectB64 => AluOut::plain(if scc { a64 } else { b64 }),

        // SOP2 logic and shifts
        Op::SAndB32 => nz32(a & b),
        Op::SAndB64 => nz(a64 & b64),
        Op::SOrB32 => nz32(a | b),
        Op::SOrB64 => nz(a64 | b64),
        Op::SXorB32 => nz32(a ^ b),
        Op::SXorB64 => nz(a64 ^ b64),
        Op::SAndn2B64 => nz(a64 & !b64),
        Op::SAndn2B32 => nz32(a & !b),
        Op::SLshlB32 => nz32(a << (b & 31)),
        Op::SLshlB64 => nz(a64 << (b & 63)),
        Op::SLshrB32 => nz32(a >> (b & 31)),
        Op::SLshrB64 => nz(a64 >> (b & 63)),
        Op::SAshrI32 => nz32((ai >> (b & 31)) as u32),
        Op::SAshrI64 => nz(((a64 as i64) >> (b & 63)) as u64),
        Op::SBfeU32 => {
            let offset = b & 31;
            let width = (b >> 16) & 0x7f;
            let shifted = a >> offset;
            nz32(if width >= 32 {
                shifted
            } else {
                shifted & ((1u32 << width) - 1)
            })
        }

        // SOPK: src = [imm16, old sdst]
        Op::SMovkI32 => v32(simm16(a64)),
        Op::SCmovkI32 => v32(if scc { simm16(a64) } else { b }),
        Op::SAddkI32 => {
            let (r, o) = bi.overflowing_add(simm16(a64) as i32);
            AluOut::with_flag(u64::from(r as u32), o)
        }
        Op::SMulkI32 => v32(b.wrapping_mul(simm16(a64))),
        // SOPK compares: the register against the immediate, sign-extended for i32 and
        // zero-extended for u32; only SCC is written.
        Op::SCmpkEqI32 => cmp(bi == simm16(a64) as i32),
        Op::SCmpkLgI32 => cmp(bi != simm16(a64) as i32),
        Op::SCmpkGtI32 => cmp(bi > simm16(a64) as i32),
        Op::SCmpkGeI32 => cmp(bi >= simm16(a64) as i32),
        Op::SCmpkLtI32 => cmp(bi < simm16(a64) as i32),
        Op::SCmpkLeI32 => cmp(bi <= simm16(a64) as i32),
        Op::SCmpkEqU32 => cmp(b == u32::from(a64 as u16)),
        Op::SCmpkLgU32 => cmp(b != u32::from(a64 as u16)),
        Op::SCmpkGtU32 => cmp(b > u32::from(a64 as u16)),
        Op::SCmpkGeU32 => cmp(b >= u32::from(a64 as u16)),
        Op::SCmpkLtU32 => cmp(b < u32::from(a64 as u16)),
        Op::SCmpkLeU32 => cmp(b <= u32::from(a64 as u16)),

        // SOPC
        Op::SCmpEqI32 | Op::SCmpEqU32 => cmp(a == b),
        Op::SCmpLgI32 | Op::SCmpLgU32 => cmp(a != b),
        Op::SCmpGtI32 => cmp(ai > bi),
        Op::SCmpGeI32 => cmp(ai >= bi),
        Op::SCmpLtI32 => cmp(ai < bi),
        Op::SCmpLeI32 => cmp(ai <= bi),
        Op::SCmpGtU32 => cmp(a > b),
        Op::SCmpGeU32 => cmp(a >= b),
        Op::SCmpLtU32 => cmp(a < b),
        Op::SCmpLeU32 => cmp(a <= b),
        Op::SCmpEqU64 => cmp(a64 == b64),
        Op::SCmpLgU64 => cmp(a64 != b64),

        other => {
            return Err(Error::unsupported(
                format!(
                    "{other:?} in the scalar ALU (not a SALU op, or one the interpreter executes)"
                ),
                "emu",
            ))
        }
    })
}
