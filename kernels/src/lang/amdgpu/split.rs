//! 64-bit varying integers held as a uniform part plus a small varying part:
//! `value = u + (base << shift)` with `u` a 64-bit value in SGPRs (or a constant),
//! `base` a varying `u32` value in one VGPR and `(base << shift)` proven below 2³² by
//! the base's range (a work-item id is below the workgroup size). Index arithmetic
//! such as `(wg·tile + tid + k)·bytes` then costs scalar instructions and no VGPR pair,
//! and a global access at such an offset is `global_load v, base << shift, s[ptr + u]`
//! (the saddr form: a 32-bit VGPR offset on a 64-bit scalar base).
//!
//! A product of such a value and a uniform factor that is no power of two (a strided
//! offset, `index · increment · bytes`) is kept as `u + base · scale` with `scale` a
//! uniform 64-bit value: the wrapping product distributes over the sum, so the bits
//! are the IR's, and the only registers it keeps live are scalar ones. Its global
//! accesses compute the 64-bit address (`v_mad_u64_u32`) right before the access.
//!
//! A split value has no location of its own; an operation that does not take it apart
//! reads it through a VGPR pair built for that one statement ([`Lower::materialize`]),
//! so the bits every reader sees are the IR's wrapping 64-bit result. The base stays
//! live as long as any value split on it.

use super::emit::Src;
use super::lower::{Loc, Lower};
use crate::lang::ir::{
    Binary, Block, KernelDef, Op, Scalar, Special, Stmt, Type, Uniformity, Value, Var,
};
use rocm_core::isa::amdgpu::{Op as I, Operand, RegRange};
use rocm_core::Result;

/// Free SGPRs below which a product is not kept as a scaled split (its uniform parts
/// take 4 to 6 SGPRs, and the operations after it need a few temporaries).
const SCALED_SPLIT_SGPR_RESERVE: usize = 24;

/// `u + (base << shift)`, the shifted base at most `max` (below 2³²).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Split {
    pub u: Loc,
    pub base: Value,
    pub shift: u32,
    pub max: u64,
    /// Whether `u`'s registers are this value's (else a variable's, not freed with it).
    pub owned: bool,
    /// `Some(scale)`: the value is `u + base · scale` (and `shift` is 0, `max` unused);
    /// a scale in SGPRs is held by every split that names it.
    pub scale: Option<Loc>,
}

/// The variables that may live split: a 64-bit varying integer declared just before a
/// loop, read and assigned only inside it, and assigned only by statements at the top
/// of the loop's latch that add or subtract a uniform value to its own current value
/// (a `for_range` index). Every lane still in the loop has run the same assignments,
/// so one uniform part serves them all; lanes that left never read the variable again.
pub(crate) fn split_vars(def: &KernelDef) -> Vec<bool> {
    let mut defs = vec![None; def.values.len()];
    collect_defs(&def.body, &mut defs);
    let mut ok = vec![false; def.vars.len()];
    find_loop_vars(def, &def.body, &defs, &mut ok);
    ok
}

fn collect_defs<'a>(b: &'a Block, defs: &mut Vec<Option<&'a Op>>) {
    for s in &b.0 {
        match s {
            Stmt::Let(v, op) => defs[v.id as usize] = Some(op),
            Stmt::If {
                then, otherwise, ..
            } => {
                collect_defs(then, defs);
                collect_defs(otherwise, defs);
            }
            Stmt::Loop { body, latch } => {
                collect_defs(body, defs);
                collect_defs(latch, defs);
            }
            _ => {}
        }
    }
}

/// Whether `b` (recursively) reads or assigns `var`.
fn touches(b: &Block, var: Var) -> bool {
    b.0.iter().any(|s| match s {
        Stmt::Let(_, Op::Var(v)) | Stmt::Assign(v, _) => *v == var,
        Stmt::If {
            then, otherwise, ..
        } => touches(then, var) || touches(otherwise, var),
        Stmt::Loop { body, latch } => touches(body, var) || touches(latch, var),
        _ => false,
    })
}

/// Whether `b` assigns `var` anywhere.
fn assigns(b: &Block, var: Var) -> bool {
    b.0.iter().any(|s| match s {
        Stmt::Assign(v, _) => *v == var,
        Stmt::If {
            then, otherwise, ..
        } => assigns(then, var) || assigns(otherwise, var),
        Stmt::Loop { body, latch } => assigns(body, var) || assigns(latch, var),
        _ => false,
    })
}

fn find_loop_vars(def: &KernelDef, b: &Block, defs: &[Option<&Op>], ok: &mut [bool]) {
    for (at, s) in b.0.iter().enumerate() {
        match s {
            Stmt::Var(var, _) if is_wide_int(var.ty) => {
                let Some(Stmt::Loop { body, latch }) = b.0.get(at + 1) else {
                    continue;
                };
                let rest = Block(b.0[at + 2..].to_vec());
                let steps = latch.0.iter().all(|s| match s {
                    Stmt::Assign(v, x) if v == var => match defs[x.id as usize] {
                        Some(Op::Binary(Binary::Add | Binary::Sub, a, c)) => {
                            let own = |y: &Value| matches!(defs[y.id as usize], Some(Op::Var(w)) if w == var);
                            let uni = |y: &Value| def.uniformity(*y) <= Uniformity::WaveUniform;
                            (own(a) && uni(c)) || (own(c) && uni(a) && matches!(defs[x.id as usize], Some(Op::Binary(Binary::Add, ..))))
                        }
                        _ => false,
                    },
                    _ => true,
                });
                let nested = latch.0.iter().any(|s| match s {
                    Stmt::If { .. } | Stmt::Loop { .. } => assigns(&Block(vec![s.clone()]), *var),
                    _ => false,
                });
                ok[var.id as usize] =
                    steps && !nested && !assigns(body, *var) && !touches(&rest, *var);
            }
            Stmt::If {
                then, otherwise, ..
            } => {
                find_loop_vars(def, then, defs, ok);
                find_loop_vars(def, otherwise, defs, ok);
            }
            Stmt::Loop { body, latch } => {
                find_loop_vars(def, body, defs, ok);
                find_loop_vars(def, latch, defs, ok);
            }
            _ => {}
        }
    }
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
                        owned: true,
                        scale: None,
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
                            owned: true,
                            scale: None,
                        };
                        self.shifted(s, k)?
                    }
                    _ => None,
                }
            }
            // Same bits: one more holder of the uniform part when it is a value's own
            // (a variable's may change while the bitcast lives, so that is copied).
            Op::Bitcast(a) if is_wide_int(a.ty) => match self.split(a) {
                Some(s) => {
                    let u = match s.u {
                        Loc::S(r) if s.owned => {
                            self.e.sgprs.hold(r);
                            s.u
                        }
                        Loc::K(c) => Loc::K(c),
                        _ => self.uniform_op(Binary::Add, s.u, Loc::K(0))?,
                    };
                    Some(Split {
                        u,
                        owned: true,
                        ..s
                    })
                }
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
                        owned: true,
                        ..s
                    }),
                    (None, Some(s), Some(o), _) if b == Binary::Add => Some(Split {
                        u: self.uniform_op(b, o, s.u)?,
                        owned: true,
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
                    (Some(s), None, None, _) if b == Binary::Mul => {
                        return self.try_scale(v, s, y);
                    }
                    (None, _, Some(s), None) if b == Binary::Mul => {
                        return self.try_scale(v, s, x);
                    }
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
                        Some(Split {
                            u,
                            owned: true,
                            ..s
                        })
                    }
                    _ => None,
                },
                // A split times a power of two plus a uniform addend.
                (Some(s), None, None) => match (pow2(self, b), uniform(self, c)) {
                    (Some(k), Some(lc)) => match self.shifted(s, k)? {
                        Some(t) => {
                            let u = self.uniform_op(Binary::Add, t.u, lc)?;
                            self.free_uniform(t.u);
                            Some(Split {
                                u,
                                owned: true,
                                ..t
                            })
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
        self.hold_scale(s);
        self.splits[v.id as usize] = Some(s);
        // The base lives while anything split on it does.
        let end = self.live.value_end[v.id as usize];
        let b = s.base.id as usize;
        self.live.value_end[b] = self.live.value_end[b].max(end);
        Ok(true)
    }

    /// Declares `var = init` split when the variable qualifies ([`split_vars`]) and
    /// `init` is split (true); the variable's uniform part gets its own SGPR pair.
    pub(crate) fn try_split_var(&mut self, var: Var, init: Value) -> Result<bool> {
        let Some(s) = self.split(init) else {
            return Ok(false);
        };
        if !self.split_var_ok[var.id as usize] {
            return Ok(false);
        }
        let d = self.e.salloc(2)?;
        self.add64(true, d, s.u, Loc::K(0), true, false)?;
        self.hold_scale(s);
        self.var_locs[var.id as usize] = Some(Loc::S(d));
        self.var_splits[var.id as usize] = Some(Split {
            u: Loc::S(d),
            owned: false,
            ..s
        });
        // The base lives as long as the variable (to the end of its loop).
        let b = s.base.id as usize;
        self.live.value_end[b] = self.live.value_end[b].max(self.live.var_end[var.id as usize]);
        Ok(true)
    }

    /// `var = v` for a split variable: `v` must be split on the same base and shift.
    pub(crate) fn assign_split_var(&mut self, var: Var, v: Value) -> Result<()> {
        let vs = self.var_splits[var.id as usize].expect("a split variable");
        match self.split(v) {
            Some(s)
                if s.base == vs.base
                    && s.shift == vs.shift
                    && s.max == vs.max
                    && s.scale == vs.scale =>
            {
                let Loc::S(d) = vs.u else {
                    unreachable!("a split variable's uniform part is an SGPR pair")
                };
                self.add64(true, d, s.u, Loc::K(0), true, false)
            }
            _ => Err(rocm_core::Error::unsupported(
                format!(
                    "kernel `{}`: a loop index stepped by a uniform value outside SGPRs",
                    self.def.name
                ),
                self.t,
            )),
        }
    }

    /// `v = var` for a split variable: the variable's uniform part when the variable is
    /// neither assigned nor gone while `v` lives, else a copy of it.
    pub(crate) fn read_split_var(&mut self, v: Value, var: Var) -> Result<()> {
        let vs = self.var_splits[var.id as usize].expect("a split variable");
        let (start, end) = (self.pos, self.live.value_end[v.id as usize]);
        let reassigned = self.live.var_assigns[var.id as usize]
            .iter()
            .any(|&a| a > start && a <= end);
        let outlives = self.live.var_end[var.id as usize] < end;
        let s = if reassigned || outlives {
            let d = self.e.salloc(2)?;
            self.add64(true, d, vs.u, Loc::K(0), true, false)?;
            Split {
                u: Loc::S(d),
                owned: true,
                ..vs
            }
        } else {
            vs
        };
        self.hold_scale(s);
        self.splits[v.id as usize] = Some(s);
        let b = s.base.id as usize;
        self.live.value_end[b] = self.live.value_end[b].max(end);
        Ok(())
    }

    /// Defines `v = s · y` (y uniform) as a scaled split when `s` is not scaled yet
    /// and SGPRs are plentiful (true), else leaves `v` to the ordinary lowering (a
    /// VGPR pair): a scaled split trades VGPRs for SGPRs, which large unrolls run out of.
    fn try_scale(&mut self, v: Value, s: Split, y: Value) -> Result<bool> {
        if s.scale.is_some() || self.e.sgprs.free_count() < SCALED_SPLIT_SGPR_RESERVE {
            return Ok(false);
        }
        let ly = match self.locs[y.id as usize] {
            Some(l @ (Loc::K(_) | Loc::S(_))) if self.split(y).is_none() => l,
            _ => return Ok(false),
        };
        let u = self.uniform_op(Binary::Mul, s.u, ly)?;
        // scale = y << shift, in registers of its own unless y's may be kept.
        let keep = match ly {
            Loc::K(_) => true,
            l => self.owned[y.id as usize] || self.params.contains(&Some(l)),
        };
        let scale = if s.shift == 0 && keep {
            if let Loc::S(r) = ly {
                self.e.sgprs.hold(r);
            }
            ly
        } else {
            self.uniform_op(Binary::Shl, ly, Loc::K(u64::from(s.shift)))?
        };
        let t = Split {
            u,
            base: s.base,
            shift: 0,
            max: u64::MAX,
            owned: true,
            scale: Some(scale),
        };
        self.splits[v.id as usize] = Some(t);
        let end = self.live.value_end[v.id as usize];
        let b = s.base.id as usize;
        self.live.value_end[b] = self.live.value_end[b].max(end);
        Ok(true)
    }

    /// One more holder of `s`'s scale registers (every stored split holds them once).
    pub(crate) fn hold_scale(&mut self, s: Split) {
        if let Some(Loc::S(r)) = s.scale {
            self.e.sgprs.hold(r);
        }
    }

    /// Lets go of `s`'s scale registers.
    pub(crate) fn free_scale(&mut self, s: Split) {
        if let Some(Loc::S(r)) = s.scale {
            self.e.sgprs.free(r);
        }
    }

    /// `s · 2^k`, when the varying part still fits 32 bits.
    fn shifted(&mut self, s: Split, k: u32) -> Result<Option<Split>> {
        let max = s.max << k;
        if k >= 32 || max > u64::from(u32::MAX) || s.scale.is_some() {
            return Ok(None);
        }
        let u = self.uniform_op(Binary::Shl, s.u, Loc::K(u64::from(k)))?;
        Ok(Some(Split {
            u,
            shift: s.shift + k,
            max,
            owned: true,
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
            if s.owned {
                self.free_uniform(s.u);
            }
            self.free_scale(s);
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
        if s.scale.is_some() {
            let d = self.e.valloc(2)?;
            tv.push(d);
            self.scaled_into(d, s, Loc::S(a))?;
            return Ok((Operand::Vgpr(d), Operand::Off));
        }
        let off = self.shifted_base(s, tv)?;
        Ok((Operand::Vgpr(off), Operand::Sgpr(a)))
    }

    /// `d = base · scale + add` (64 bits, wrapping) for a scaled split. `d` is no
    /// source of the `v_mad_u64_u32` (gfx11 forbids its destination overlapping the
    /// addend), so the high cross term takes one temporary.
    fn scaled_into(&mut self, d: RegRange, s: Split, add: Loc) -> Result<()> {
        let (Some(scale), Some(Loc::V(b))) = (s.scale, self.locs[s.base.id as usize]) else {
            unreachable!("a scaled split has a scale and a live VGPR base")
        };
        let word = |l: Loc, j: u16| match l {
            Loc::K(c) => Src::K32((c >> (32 * j)) as u32),
            Loc::S(r) | Loc::M(r) => Src::Op(Operand::Sgpr(RegRange::new(r.first + j, 1))),
            Loc::V(r) => Src::Op(Operand::Vgpr(RegRange::new(r.first + j, 1))),
        };
        let base = Src::Op(Operand::Vgpr(b));
        let carry = self.e.mask_alloc()?;
        self.e.valu(
            I::VMadU64U32,
            &[
                Src::Op(Operand::Vgpr(d)),
                Src::Op(Operand::Sgpr(carry)),
                base,
                word(scale, 0),
                Src::K64 {
                    bits: 0,
                    float: false,
                },
            ],
        )?;
        self.e.sgprs.free(carry);
        if !matches!(scale, Loc::K(c) if c >> 32 == 0) {
            let t = self.e.valloc(1)?;
            let (tv, hi) = (
                Src::Op(Operand::Vgpr(t)),
                Src::Op(Operand::Vgpr(RegRange::new(d.first + 1, 1))),
            );
            self.e.valu(I::VMulLoU32, &[tv, base, word(scale, 1)])?;
            self.e.valu(I::VAddU32, &[hi, hi, tv])?;
            self.e.vgprs.free(t);
        }
        self.add64(false, d, Loc::V(d), add, true, false)
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
            if s.scale.is_some() {
                self.scaled_into(d, s, s.u)?;
                self.locs[x.id as usize] = Some(Loc::V(d));
                done.push(x);
                continue;
            }
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
