//! One step of a kernel: load a few elements of x (and y), compute, store or accumulate.
//! The loops of [`super::driver`] call [`Body::emit`] for whole vectors and for single
//! tail or strided elements alike.

use super::super::asm::{ArgRegs, Assembler};
use super::super::math::{self, cfma_into, cmul, fma, mul, Val};
use super::super::regs::{Sgpr, Vgpr};
use super::reduce::Acc;
use super::{convert, Real, Spec};
use crate::level1::L1Op;
use rocm_core::isa::amdgpu::{Op, Operand};
use rocm_core::Result;

/// The scalar arguments of `op`, in kernarg order: (name, components).
fn scalar_shapes(s: &Spec) -> Vec<(&'static str, u8)> {
    match s.op {
        L1Op::Scal | L1Op::Fill => vec![("alpha", s.comps)],
        L1Op::Axpby { .. } => vec![("alpha", s.comps), ("beta", s.comps)],
        L1Op::Rot => vec![("c", 1), ("s", s.comps)],
        L1Op::Rotm => vec![("h11", 1), ("h21", 1), ("h12", 1), ("h22", 1)],
        _ => vec![],
    }
}

/// The scalar arguments' names: per scalar, its `u32` words (re before im, low half
/// before high half), in kernarg order.
pub(super) fn scalar_words(s: &Spec) -> Vec<Vec<String>> {
    scalar_shapes(s)
        .into_iter()
        .map(|(name, comps)| {
            let mut words = Vec::new();
            for c in 0..comps {
                let part = match (comps, c) {
                    (1, _) => name.to_string(),
                    (_, 0) => format!("{name}_re"),
                    _ => format!("{name}_im"),
                };
                match s.real {
                    Real::F32 => words.push(part),
                    Real::F64 => {
                        words.push(format!("{part}_lo"));
                        words.push(format!("{part}_hi"));
                    }
                }
            }
            words
        })
        .collect()
}

/// The SGPRs of the scalar arguments, grouped per scalar as [`scalar_words`].
pub(super) fn scalar_args(regs: &ArgRegs, s: &Spec) -> Result<Vec<Vec<Sgpr>>> {
    scalar_words(s)
        .iter()
        .map(|words| words.iter().map(|w| regs.get(w)).collect())
        .collect()
}

pub(super) fn load_op(bytes: u32) -> Op {
    match bytes {
        2 => Op::GlobalLoadUshort,
        4 => Op::GlobalLoadDword,
        8 => Op::GlobalLoadDwordx2,
        _ => Op::GlobalLoadDwordx4,
    }
}

pub(super) fn store_op(bytes: u32) -> Op {
    match bytes {
        2 => Op::GlobalStoreShort,
        4 => Op::GlobalStoreDword,
        8 => Op::GlobalStoreDwordx2,
        _ => Op::GlobalStoreDwordx4,
    }
}

/// Registers and pointers of one kernel's step.
pub(super) struct Body {
    pub s: Spec,
    x: Sgpr,
    y: Option<Sgpr>,
    /// 16 bytes each: x's and y's data, and the results for x (`ox`) and y (`oy`).
    xv: Vgpr,
    yv: Vgpr,
    ov: Vgpr,
    ov2: Vgpr,
    /// The scalars as VGPR values (broadcast once, so VOP3 never meets two SGPRs).
    scalars: Vec<Val>,
    /// Scratch for conversions.
    tmp: Vgpr,
    /// f32 copies of one x, y and the x and y results (f16/bf16 storage).
    wide: Vgpr,
    pub acc: Option<Acc>,
}

impl Body {
    /// Moves the scalars into VGPRs (the kernarg loads must have been waited for) and
    /// sets up the accumulators.
    pub fn new(
        k: &mut Assembler,
        s: &Spec,
        x: Sgpr,
        y: Option<Sgpr>,
        words: &[Vec<Sgpr>],
    ) -> Result<Body> {
        let op = s.op;
        // Fill loads nothing; its x registers are never read.
        let xv = k.vgprs(4)?;
        let yv = if op.reads_y() { k.vgprs(4)? } else { xv };
        // Results go to their own registers; copy, swap and reductions have none.
        let ov = match op {
            L1Op::Axpby { .. }
            | L1Op::Scal
            | L1Op::Rot
            | L1Op::Rotm
            | L1Op::Fill
            | L1Op::Convert { .. } => k.vgprs(4)?,
            _ => xv,
        };
        let ov2 = if matches!(op, L1Op::Rot | L1Op::Rotm) {
            k.vgprs(4)?
        } else {
            ov
        };
        let tmp = if matches!(op, L1Op::Convert { .. }) || s.half.is_some() {
            k.vgprs(4)?
        } else {
            xv
        };
        let w = s.real.regs();
        let mut scalars: Vec<Val> = Vec::new();
        for words in words {
            let v = k.vgprs(words.len() as u8)?;
            for (i, word) in words.iter().enumerate() {
                k.op(Op::VMovB32, [v.at(i as u8).op(), word.op()]);
            }
            scalars.push(
                (0..words.len() as u8 / w)
                    .map(|c| v.sub(c * w, w))
                    .collect(),
            );
        }
        if let (L1Op::Fill, Some(h)) = (op, s.half) {
            // α rounded once, both halves of every register.
            convert::pack_half(k, h, scalars[0][0], ov, 0, tmp);
            let lo = ov.at(0);
            k.op(
                Op::VLshlOrB32,
                [lo.op(), lo.op(), Operand::Int(16), lo.op()],
            );
            for i in 1..4 {
                k.op(Op::VMovB32, [ov.at(i).op(), lo.op()]);
            }
        } else if op == L1Op::Fill {
            // The vector of α's, stored as is every step.
            let per = (16 / s.esx) as u8;
            for e in 0..per {
                for (c, part) in scalars[0].iter().enumerate() {
                    let d = math::comps(ov, e, s.real, s.comps)[c];
                    math::mov(k, d, *part);
                }
            }
        }
        let wide = match (s.half, op) {
            (Some(_), L1Op::Rot | L1Op::Rotm) => k.vgprs(4)?,
            (Some(_), _) => k.vgprs(3)?,
            _ => tmp,
        };
        let acc = if op.is_reduction() {
            Some(Acc::new(k, s)?)
        } else {
            None
        };
        Ok(Body {
            s: *s,
            x,
            y,
            xv,
            yv,
            ov,
            ov2,
            scalars,
            tmp,
            wide,
            acc,
        })
    }

    /// `elems` elements at byte offsets `ox` of x and `oy` of y; `first` holds the index of
    /// the first (read by iamax).
    pub fn emit(
        &self,
        k: &mut Assembler,
        ox: Vgpr,
        oy: Vgpr,
        elems: u8,
        first: Vgpr,
    ) -> Result<()> {
        let s = &self.s;
        let (r, nc) = (s.real, s.comps);
        let bx = u32::from(elems) * s.esx;
        let by = u32::from(elems) * s.esy;
        let y = self.y.unwrap_or(self.x);
        let regs = |b: u32| (b.div_ceil(4)) as u8;
        let xv = self.xv.sub(0, regs(bx));
        let yv = self.yv.sub(0, regs(by.max(1)));
        if s.op != L1Op::Fill {
            k.global_load(load_op(bx), xv, ox, self.x, 0);
        }
        if s.op.reads_y() {
            k.global_load(load_op(by), yv, oy, y, 0);
        }
        k.wait_vm(0);
        let xe = |e: u8| math::comps(self.xv, e, r, nc);
        let ye = |e: u8| math::comps(self.yv, e, r, nc);
        let oe = |e: u8| math::comps(self.ov, e, r, nc);
        let o2e = |e: u8| math::comps(self.ov2, e, r, nc);
        let sc = |i: usize| &self.scalars[i];
        let moves_bits = matches!(s.op, L1Op::Copy | L1Op::Swap | L1Op::Fill);
        if let (Some(h), false) = (s.half, moves_bits) {
            // Each element widened to f32, computed as f32 data, rounded back.
            let (xf, yf) = (self.wide.at(0), self.wide.at(1));
            let (of, of2) = (self.wide.at(2), self.wide.at(3));
            for e in 0..elems {
                convert::unpack_half(k, h, self.xv, e, xf, self.tmp);
                if s.op.reads_y() {
                    convert::unpack_half(k, h, self.yv, e, yf, self.tmp);
                }
                match s.op {
                    L1Op::Scal => mul(k, r, of, sc(0)[0], xf, 0),
                    L1Op::Axpby { read_y: true } => {
                        mul(k, r, of, sc(1)[0], yf, 0);
                        fma(k, r, of, sc(0)[0], xf, of, false);
                    }
                    L1Op::Axpby { read_y: false } => mul(k, r, of, sc(0)[0], xf, 0),
                    L1Op::Rot | L1Op::Rotm => {
                        // rot: (c, s, c, −s); rotm: (h11, h12, h21, h22).
                        let (a, b, c, d, neg) = if s.op == L1Op::Rot {
                            (sc(0)[0], sc(1)[0], sc(0)[0], sc(1)[0], true)
                        } else {
                            (sc(0)[0], sc(2)[0], sc(1)[0], sc(3)[0], false)
                        };
                        mul(k, r, of, a, xf, 0);
                        fma(k, r, of, b, yf, of, false);
                        if s.op == L1Op::Rot {
                            mul(k, r, of2, c, yf, 0);
                            fma(k, r, of2, d, xf, of2, neg);
                        } else {
                            mul(k, r, of2, c, xf, 0);
                            fma(k, r, of2, d, yf, of2, false);
                        }
                        convert::pack_half(k, h, of2, self.ov2, e, self.tmp);
                    }
                    _ => {
                        if let Some(acc) = &self.acc {
                            acc.fold(k, s, &vec![xf], &vec![yf], e, first);
                        }
                        continue;
                    }
                }
                convert::pack_half(k, h, of, self.ov, e, self.tmp);
            }
            let (dst, off, bytes) = match s.op {
                L1Op::Scal => (self.x, ox, bx),
                L1Op::Axpby { .. } => (y, oy, by),
                L1Op::Rot | L1Op::Rotm => {
                    k.global_store(store_op(by), oy, self.ov2.sub(0, regs(by)), y, 0);
                    (self.x, ox, bx)
                }
                _ => return Ok(()),
            };
            k.global_store(store_op(bytes), off, self.ov.sub(0, regs(bytes)), dst, 0);
            return Ok(());
        }
        match s.op {
            L1Op::Fill => {
                k.global_store(store_op(bx), ox, self.ov.sub(0, regs(bx)), self.x, 0);
            }
            L1Op::Copy => {
                k.global_store(store_op(by), oy, xv, y, 0);
            }
            L1Op::Swap => {
                k.global_store(store_op(bx), ox, yv, self.x, 0);
                k.global_store(store_op(by), oy, xv, y, 0);
            }
            L1Op::Scal => {
                for e in 0..elems {
                    cmul(k, r, &oe(e), sc(0), &xe(e));
                }
                k.global_store(store_op(bx), ox, self.ov.sub(0, regs(bx)), self.x, 0);
            }
            L1Op::Axpby { read_y } => {
                let (alpha, beta) = (sc(0), sc(1));
                for e in 0..elems {
                    let o = oe(e);
                    match (nc, read_y) {
                        // Real: fma(α, x, β·y).
                        (1, true) => {
                            mul(k, r, o[0], beta[0], ye(e)[0], 0);
                            fma(k, r, o[0], alpha[0], xe(e)[0], o[0], false);
                        }
                        (_, true) => {
                            cmul(k, r, &o, alpha, &xe(e));
                            cfma_into(k, r, &o, beta, &ye(e), false);
                        }
                        (_, false) => cmul(k, r, &o, alpha, &xe(e)),
                    }
                }
                k.global_store(store_op(by), oy, self.ov.sub(0, regs(by)), y, 0);
            }
            L1Op::Rot => {
                let (c, sv) = (sc(0)[0], sc(1));
                for e in 0..elems {
                    let (xs, ys, o, o2) = (xe(e), ye(e), oe(e), o2e(e));
                    for i in 0..nc as usize {
                        mul(k, r, o[i], c, xs[i], 0);
                        mul(k, r, o2[i], c, ys[i], 0);
                    }
                    // x' = c·x + s·y; y' = c·y − conj(s)·x.
                    fma(k, r, o[0], sv[0], ys[0], o[0], false);
                    fma(k, r, o2[0], sv[0], xs[0], o2[0], true);
                    if nc == 2 {
                        fma(k, r, o[0], sv[1], ys[1], o[0], true);
                        fma(k, r, o[1], sv[0], ys[1], o[1], false);
                        fma(k, r, o[1], sv[1], ys[0], o[1], false);
                        fma(k, r, o2[0], sv[1], xs[1], o2[0], true);
                        fma(k, r, o2[1], sv[0], xs[1], o2[1], true);
                        fma(k, r, o2[1], sv[1], xs[0], o2[1], false);
                    }
                }
                k.global_store(store_op(bx), ox, self.ov.sub(0, regs(bx)), self.x, 0);
                k.global_store(store_op(by), oy, self.ov2.sub(0, regs(by)), y, 0);
            }
            L1Op::Rotm => {
                let h = |i: usize| sc(i)[0];
                for e in 0..elems {
                    let (xs, ys, o, o2) = (xe(e)[0], ye(e)[0], oe(e)[0], o2e(e)[0]);
                    mul(k, r, o, h(0), xs, 0);
                    fma(k, r, o, h(2), ys, o, false);
                    mul(k, r, o2, h(1), xs, 0);
                    fma(k, r, o2, h(3), ys, o2, false);
                }
                k.global_store(store_op(bx), ox, self.ov.sub(0, regs(bx)), self.x, 0);
                k.global_store(store_op(by), oy, self.ov2.sub(0, regs(by)), y, 0);
            }
            L1Op::Convert { .. } => {
                if let Some((from, to)) = s.convert {
                    convert::emit(k, from, to, self.xv, self.ov, self.tmp, elems)?;
                }
                k.global_store(store_op(by), oy, self.ov.sub(0, regs(by)), y, 0);
            }
            L1Op::Dot { .. } | L1Op::Sum | L1Op::Asum | L1Op::Nrm2 | L1Op::Iamax { .. } => {
                if let Some(acc) = &self.acc {
                    for e in 0..elems {
                        let yv = if s.op.reads_y() { ye(e) } else { xe(e) };
                        acc.fold(k, s, &xe(e), &yv, e, first);
                    }
                }
            }
        }
        Ok(())
    }
}
