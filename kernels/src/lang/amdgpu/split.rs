//! 64-bit varying integers held as a uniform part plus a small varying part:
//! `value = u + (base << shift)` with `u` a 64-bit value in SGPRs (or a constant),
//! `base` a varying `u32` value in one VGPR and `(base << shift)` proven below 2³² by
//! the base's range (a work-item id is below the workgroup size). Index arithmetic
//! such as `(wg·tile + tid + k)·bytes` then costs scalar instructions and no VGPR pair,
//! and a global access at such an offset is `global_load v, base << shift, s[ptr + u]`
//! (the saddr form: a 32-bit VGPR offset on a 64-bit scalar base).
//!
//! A split value has no location of its own; an operation that does not take it apart
//! reads it through a VGPR pair built for that one statement ([`Lower::materialize`]),
//! so the bits every reader sees are the IR's wrapping 64-bit result. The base stays
//! live as long as any value split on it.

use super::emit::Src;
use super::lower::{Loc, Lower};
use crate::lang::ir::{Binary, Op, Scalar, Special, Type, Uniformity, Value};
use rocm_core::isa::amdgpu::{Op as I, Operand, RegRange};
use rocm_core::Result;

/// `u + (base << shift)`, the shifted base at most `max` (below 2³²).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Split {
    pub u: Loc,
    pub base: Value,
    pub shift: u32,
    pub max: u64,
}

fn is_wide_int(t: Type) -> bool {
    t.lanes == 1 && matches!(t.scalar, Scalar::U64 | Scalar::I64)
}

impl Lower<'_> {
    /// The largest value a varying `u32` can hold, from what defines it.
    fn u32_bound(&self, v: Value) -> u64 {
        match self.specials[v.id as usize] {
            Some(Special::ThreadId(_)) => u64::from(self.def.max_workgroup_size) - 1,
            Some(Special::LaneId) => u64::from(self.def.wave_size) - 1,
            _ => u64::from(u32::MAX),
        }
    }

    /// The split form of `v`, when it has one.
    pub(crate) fn split(&self, v: Value) -> Option<Split> {
        self.splits[v.id as usize]
    }

    /// Defines `v = op` as a split value when `op` keeps one (true), else leaves `v`
    /// to the ordinary lowering (false).
    pub(crate) fn try_split(&mut self, v: Value, op: &Op) -> Result<bool> {
        if !is_wide_int(v.ty) || self.def.uniformity(v) != Uniformity::Varying {
            return Ok(false);
        }
        let uniform = |l: &Lower, x: Value| -> Option<Loc> {
            if l.split(x).is_some() {
                return None;
            }
            l.locs[x.id as usize].filter(|l| matches!(l, Loc::K(_) | Loc::S(_)))
        };
        let pow2 = |l: &Lower, x: Value| -> Option<u32> {
            match l.locs[x.id as usize] {
                Some(Loc::K(c)) if c.is_power_of_two() => Some(c.trailing_zeros()),
                _ => None,
            }
        };
        let made = match *op {
            Op::Convert(a, _) if a.ty == Type::U32 && self.split(a).is_none() => {
                match self.locs[a.id as usize] {
                    Some(Loc::V(_)) => Some(Split {
                        u: Loc::K(0),
                        base: a,
                        shift: 0,
                        max: self.u32_bound(a),
                    }),
                    _ => None,
                }
            }
            // u32 × 2^k widened, while the product fits 32 bits.
            Op::Binary(Binary::MulWide, x, y) if x.ty == Type::U32 => {
                match (self.locs[x.id as usize], pow2(self, y)) {
                    (Some(Loc::V(_)), Some(k)) if self.split(x).is_none() => {
                        let s = Split {
                            u: Loc::K(0),
                            base: x,
                            shift: 0,
                            max: self.u32_bound(x),
                        };
                        self.shifted(s, k)?
                    }
                    _ => None,
                }
            }
            Op::Bitcast(a) if is_wide_int(a.ty) => match self.split(a) {
                Some(s) => Some(Split {
                    u: self.uniform_op(Binary::Add, s.u, Loc::K(0))?,
                    ..s
                }),
                None => None,
            },
            Op::Binary(b @ (Binary::Add | Binary::Sub), x, y) => {
                match (
                    self.split(x),
                    self.split(y),
                    uniform(self, x),
                    uniform(self, y),
                ) {
                    (Some(s), None, _, Some(o)) => Some(Split {
                        u: self.uniform_op(b, s.u, o)?,
                        ..s
                    }),
                    (None, Some(s), Some(o), _) if b == Binary::Add => Some(Split {
                        u: self.uniform_op(b, o, s.u)?,
                        ..s
                    }),
                    _ => None,
                }
            }
            Op::Binary(b @ (Binary::Mul | Binary::Shl), x, y) => {
                let k = match b {
                    Binary::Shl => match self.locs[y.id as usize] {
                        Some(Loc::K(c)) if c < 32 => Some(c as u32),
                        _ => None,
                    },
                    _ => pow2(self, y),
                };
                let (s, k) = match (self.split(x), k, self.split(y), pow2(self, x)) {
                    (Some(s), Some(k), _, _) => (s, k),
                    (None, _, Some(s), Some(k)) if b == Binary::Mul => (s, k),
                    _ => return Ok(false),
                };
                self.shifted(s, k)?
            }
            Op::Fma(a, b, c) => match (self.split(a), self.split(b), self.split(c)) {
                // Uniform product plus a split addend.
                (None, None, Some(s)) => match (uniform(self, a), uniform(self, b)) {
                    (Some(la), Some(lb)) => {
                        let p = self.uniform_op(Binary::Mul, la, lb)?;
                        let u = self.uniform_op(Binary::Add, p, s.u)?;
                        self.free_uniform(p);
                        Some(Split { u, ..s })
                    }
                    _ => None,
                },
                // A split times a power of two plus a uniform addend.
                (Some(s), None, None) => match (pow2(self, b), uniform(self, c)) {
                    (Some(k), Some(lc)) => match self.shifted(s, k)? {
                        Some(t) => {
                            let u = self.uniform_op(Binary::Add, t.u, lc)?;
                            self.free_uniform(t.u);
                            Some(Split { u, ..t })
                        }
                        None => None,
                    },
                    _ => None,
                },
                _ => None,
            },
            _ => None,
        };
        let Some(s) = made else {
            return Ok(false);
        };
        self.splits[v.id as usize] = Some(s);
        // The base lives while anything split on it does.
        let end = self.live.value_end[v.id as usize];
        let b = s.base.id as usize;
        self.live.value_end[b] = self.live.value_end[b].max(end);
        Ok(true)
    }

    /// `s · 2^k`, when the varying part still fits 32 bits.
    fn shifted(&mut self, s: Split, k: u32) -> Result<Option<Split>> {
        let max = s.max << k;
        if k >= 32 || max > u64::from(u32::MAX) {
            return Ok(None);
        }
        let u = self.uniform_op(Binary::Shl, s.u, Loc::K(u64::from(k)))?;
        Ok(Some(Split {
            u,
            shift: s.shift + k,
            max,
            ..s
        }))
    }

    /// `x op y` of uniform 64-bit operands: folded when both are constants, else into
    /// a fresh SGPR pair.
    fn uniform_op(&mut self, b: Binary, x: Loc, y: Loc) -> Result<Loc> {
        if let (Loc::K(a), Loc::K(c)) = (x, y) {
            return Ok(Loc::K(match b {
                Binary::Add => a.wrapping_add(c),
                Binary::Sub => a.wrapping_sub(c),
                Binary::Mul => a.wrapping_mul(c),
                _ => a << c,
            }));
        }
        let d = self.e.salloc(2)?;
        let shift_k = matches!(b, Binary::Shl);
        let y = if shift_k {
            match y {
                Loc::K(c) => Loc::K(c & 63),
                other => other,
            }
        } else {
            y
        };
        self.binary_scalar(b, Scalar::U64, Loc::S(d), x, y)?;
        Ok(Loc::S(d))
    }

    fn free_uniform(&mut self, l: Loc) {
        if let Loc::S(r) = l {
            self.e.sgprs.free(r);
        }
    }

    /// Frees a split value's registers (at the end of its life).
    pub(crate) fn drop_split(&mut self, id: usize) {
        if let Some(s) = self.splits[id].take() {
            self.free_uniform(s.u);
        }
    }

    /// The shifted base in a VGPR: the base's own register when unshifted, else `tmp`.
    fn shifted_base(&mut self, s: Split, tmps: &mut Vec<RegRange>) -> Result<RegRange> {
        let Some(Loc::V(b)) = self.locs[s.base.id as usize] else {
            unreachable!("a split's base is a live VGPR value")
        };
        if s.shift == 0 {
            return Ok(b);
        }
        let t = self.e.valloc(1)?;
        tmps.push(t);
        self.e.valu(
            I::VLshlrevB32,
            &[
                Src::Op(Operand::Vgpr(t)),
                Src::K32(s.shift),
                Src::Op(Operand::Vgpr(b)),
            ],
        )?;
        Ok(t)
    }

    /// The global address of pointer `base` plus split offset `s`: the VGPR offset and
    /// the SGPR base of the saddr form.
    pub(crate) fn split_address(
        &mut self,
        base: RegRange,
        s: Split,
        tv: &mut Vec<RegRange>,
        ts: &mut Vec<RegRange>,
    ) -> Result<(Operand, Operand)> {
        let a = self.e.salloc(2)?;
        ts.push(a);
        self.add64(true, a, Loc::S(base), s.u, true, false)?;
        let off = self.shifted_base(s, tv)?;
        Ok((Operand::Vgpr(off), Operand::Sgpr(a)))
    }

    /// Gives each split value among `inputs` a VGPR pair holding its 64 bits, for one
    /// statement; returns the values to [`Lower::unmaterialize`] after it.
    pub(crate) fn materialize(&mut self, inputs: &[Value]) -> Result<Vec<Value>> {
        let mut done = Vec::new();
        for &x in inputs {
            let Some(s) = self.split(x) else { continue };
            if done.contains(&x) {
                continue;
            }
            let d = self.e.valloc(2)?;
            let mut tmps = Vec::new();
            let lo = self.shifted_base(s, &mut tmps)?;
            let (d0, d1) = (RegRange::new(d.first, 1), RegRange::new(d.first + 1, 1));
            self.e.valu(
                I::VMovB32,
                &[Src::Op(Operand::Vgpr(d0)), Src::Op(Operand::Vgpr(lo))],
            )?;
            self.e
                .valu(I::VMovB32, &[Src::Op(Operand::Vgpr(d1)), Src::K32(0)])?;
            for t in tmps {
                self.e.vgprs.free(t);
            }
            self.add64(false, d, Loc::V(d), s.u, true, false)?;
            self.locs[x.id as usize] = Some(Loc::V(d));
            done.push(x);
        }
        Ok(done)
    }

    /// Frees the pairs [`Lower::materialize`] built.
    pub(crate) fn unmaterialize(&mut self, values: Vec<Value>) {
        for x in values {
            if let Some(Loc::V(r)) = self.locs[x.id as usize].take() {
                self.e.vgprs.free(r);
            }
        }
    }
}
