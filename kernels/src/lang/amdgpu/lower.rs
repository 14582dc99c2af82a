//! The walk over the structured program: kernel setup (arguments, launch registers, LDS),
//! register allocation at each value's definition and release after its last use,
//! variables, and the control flow (scalar branches for uniform conditions, EXEC masking
//! for varying ones). The operations themselves are in [`super::ops`].

use super::emit::{Emitter, Src};
use super::live::{liveness, pure, Liveness};
use super::split::{split_vars, Split};
use crate::amdgpu::asm::{packed_workitem_ids, AssembledKernel, Assembler, Label};
use crate::lang::ir::{
    Axis, Binary, Block, KernelDef, Mem, Op, Scalar, Special, Stmt, Type, Unary, Uniformity, Value,
    Var,
};
use rocm_core::isa::amdgpu::{IsaTarget, Op as I, Operand, RegRange};
use rocm_core::{Error, Result};

/// Where a value lives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Loc {
    /// A constant's bits (scalars only).
    K(u64),
    /// SGPRs: a value the same on every lane of the wave.
    S(RegRange),
    /// VGPRs.
    V(RegRange),
    /// A predicate as a lane mask (1 SGPR in wave32, 2 in wave64). Bits of lanes that
    /// are not active are unspecified: every reader masks with EXEC.
    M(RegRange),
}

/// Registers per scalar of `s` (predicates are masks, not counted here).
pub(crate) fn scalar_words(s: Scalar) -> u8 {
    if s.bits() == 64 {
        2
    } else {
        1
    }
}

/// Registers of a value of type `t`.
pub(crate) fn words(t: Type) -> u8 {
    scalar_words(t.scalar) * t.lanes
}

/// The state of the innermost loops being lowered.
#[derive(Debug, Clone, Copy)]
pub(crate) struct LoopCtx {
    /// Exits by EXEC masking (some exit is varying).
    pub masked: bool,
    /// Lanes still in the loop (masked loops).
    pub live: Option<RegRange>,
    /// Lanes still running this iteration's body: `live` minus lanes that continued.
    pub run: Option<RegRange>,
    pub latch: Label,
    pub end: Label,
}

pub(crate) struct Lower<'a> {
    pub def: &'a KernelDef,
    pub e: Emitter,
    pub t: IsaTarget,
    pub live: Liveness,
    pub locs: Vec<Option<Loc>>,
    pub(crate) owned: Vec<bool>,
    pub var_locs: Vec<Option<Loc>>,
    /// Kernel parameters: pointers as SGPR pairs, scalars in SGPRs (`None`: a byte
    /// array, not loaded).
    pub params: Vec<Option<Loc>>,
    /// Byte offset of each shared array in the workgroup's LDS.
    pub lds_base: Vec<u32>,
    /// `hidden_block_count_*` and `hidden_group_size_*` SGPRs by axis.
    grid_size: [Option<RegRange>; 3],
    group_size: [Option<RegRange>; 3],
    pub loops: Vec<LoopCtx>,
    /// Dimensions of the launch the kernel reads ids of (1..=3).
    dims: u8,
    /// Where to go when EXEC becomes zero (innermost last).
    pub skip: Vec<Label>,
    labels: usize,
    pub(crate) pos: u32,
    /// The registers the value being defined should take (see `target_hint`).
    hint: Option<(u32, RegRange)>,
    /// By value id: the earlier value it equals ([`super::cse`]).
    same: Vec<Option<u32>>,
    /// The input whose registers the value being defined takes over (see `reuse_hint`).
    reuse: Option<(u32, u32, RegRange)>,
    /// By value id: the split form of 64-bit varying integers ([`super::split`]).
    pub splits: Vec<Option<Split>>,
    /// By value id: the special value it is, if it is one.
    pub specials: Vec<Option<Special>>,
    /// By variable id: whether it may live split, and its split form when it does.
    pub split_var_ok: Vec<bool>,
    pub var_splits: Vec<Option<Split>>,
}

fn axis_index(a: Axis) -> usize {
    match a {
        Axis::X => 0,
        Axis::Y => 1,
        Axis::Z => 2,
    }
}

/// Specials the kernel reads, found before setup (they decide the launch registers and
/// hidden arguments).
fn specials(b: &Block, out: &mut Vec<Special>) {
    for s in &b.0 {
        match s {
            Stmt::Let(_, Op::Special(sp)) => out.push(*sp),
            Stmt::If {
                then, otherwise, ..
            } => {
                specials(then, out);
                specials(otherwise, out);
            }
            Stmt::Loop { body, latch } => {
                specials(body, out);
                specials(latch, out);
            }
            _ => {}
        }
    }
}

/// Whether `b` has a `Break`/`Continue` of the loop it is in (not of nested loops).
pub(crate) fn has_exit(b: &Block) -> bool {
    b.0.iter().any(|s| match s {
        Stmt::Break(_) | Stmt::Continue(_) => true,
        Stmt::If {
            then, otherwise, ..
        } => has_exit(then) || has_exit(otherwise),
        _ => false,
    })
}

/// Statements numbered in `b` (as [`super::live`] numbers them).
fn count(b: &Block) -> u32 {
    b.0.iter()
        .map(|s| match s {
            Stmt::If {
                then, otherwise, ..
            } => 2 + count(then) + count(otherwise),
            Stmt::Loop { body, latch } => 2 + count(body) + count(latch),
            _ => 1,
        })
        .sum()
}

/// Compile a kernel of the language for its AMDGPU target.
pub(crate) fn lower(def: &KernelDef) -> Result<AssembledKernel> {
    let t = IsaTarget::try_from(&def.target)?;
    if def.wave_size != t.wave_size() {
        return Err(Error::invalid(
            format!("kernel `{}`", def.name),
            format!(
                "built for wave size {} but {t} runs {}",
                def.wave_size,
                t.wave_size()
            ),
        ));
    }
    let mut used = Vec::new();
    specials(&def.body, &mut used);
    let dims = used
        .iter()
        .filter_map(|s| match s {
            Special::ThreadId(a)
            | Special::WorkgroupId(a)
            | Special::WorkgroupSize(a)
            | Special::GridSize(a) => Some(axis_index(*a) as u8 + 1),
            _ => None,
        })
        .max()
        .unwrap_or(1);
    if dims > 1 && used.contains(&Special::WaveId) {
        // The flattened work-item id needs the workgroup's extent in x (and y).
        used.push(Special::WorkgroupSize(Axis::X));
        used.push(Special::WorkgroupSize(Axis::Y));
    }
    let mut k = Assembler::new(t, &def.name, def.max_workgroup_size, dims)?;
    let mut sgpr_end = 2 + u16::from(dims);
    // The kernel arguments as the kernel contract lays them out.
    let regs = k.declare(&def.signature)?;
    let mut params = Vec::new();
    for p in &def.signature.params {
        let r = regs.opt(&p.name);
        if let Some(r) = r {
            sgpr_end = sgpr_end.max(r.0.end() as u16);
        }
        params.push(r.map(|r| Loc::S(r.0)));
    }
    let names = ["x", "y", "z"];
    let mut grid_size = [None; 3];
    let mut group_size = [None; 3];
    for s in &used {
        let (slot, kind) = match s {
            Special::GridSize(a) => (&mut grid_size[axis_index(*a)], "hidden_block_count_"),
            Special::WorkgroupSize(a) => (&mut group_size[axis_index(*a)], "hidden_group_size_"),
            _ => continue,
        };
        if slot.is_none() {
            let axis = match s {
                Special::GridSize(a) | Special::WorkgroupSize(a) => axis_index(*a),
                _ => 0,
            };
            let r = k.arg_hidden_u32(&format!("{kind}{}", names[axis]))?;
            sgpr_end = sgpr_end.max(r.0.end() as u16);
            *slot = Some(r.0);
        }
    }
    let mut lds_base = Vec::new();
    for a in &def.shared {
        lds_base.push(k.lds(a.bytes, a.align.max(4))?);
    }
    // The kernel arguments arrive before anything reads them.
    k.wait_lgkm(0);
    let vgpr_end = if packed_workitem_ids(t) {
        1
    } else {
        u16::from(dims)
    };
    let e = Emitter::new(k, sgpr_end, vgpr_end);
    let mut l = Lower {
        def,
        e,
        t,
        live: liveness(def),
        locs: vec![None; def.values.len()],
        owned: vec![false; def.values.len()],
        var_locs: vec![None; def.vars.len()],
        params,
        lds_base,
        grid_size,
        group_size,
        loops: Vec::new(),
        dims,
        skip: Vec::new(),
        labels: 0,
        pos: 0,
        hint: None,
        reuse: None,
        same: super::cse::same_values(def),
        splits: vec![None; def.values.len()],
        specials: vec![None; def.values.len()],
        split_var_ok: split_vars(def),
        var_splits: vec![None; def.vars.len()],
    };
    // The group size is a 16-bit field: keep the low half.
    for r in l.group_size.into_iter().flatten() {
        l.e.op(
            I::SAndB32,
            [Operand::Sgpr(r), Operand::Sgpr(r), Operand::Literal(0xffff)],
        );
    }
    l.block(&def.body)?;
    l.e.k.s_endpgm();
    l.e.k.finish()
}

impl<'a> Lower<'a> {
    pub(crate) fn uniform(&self, v: Value) -> bool {
        self.def.uniformity(v) <= Uniformity::WaveUniform
    }

    pub(crate) fn loc(&self, v: Value) -> Result<Loc> {
        self.locs[v.id as usize].ok_or_else(|| {
            Error::invalid(
                format!("kernel `{}`", self.def.name),
                format!("value %{} is read before it is defined", v.id),
            )
        })
    }

    pub(crate) fn fresh_label(&mut self, what: &str) -> Label {
        self.labels += 1;
        let name = format!("{what}{}", self.labels);
        self.e.label(&name)
    }

    /// Allocates registers for `v` in the file `kind` names (`S`, `V` or `M`; the range
    /// inside is ignored) and records them.
    /// A load whose only use is the next statement's assignment to a VGPR variable
    /// loads straight into the variable's registers (a load reads nothing it writes, and
    /// on inactive lanes it leaves the old value, as the assignment would).
    fn target_hint(&mut self, v: Value, op: &Op, next: Option<&Stmt>, p: u32) {
        self.hint = None;
        let (Op::Load(_), Some(Stmt::Assign(var, used))) = (op, next) else {
            return;
        };
        if *used != v || self.live.value_end[v.id as usize] != p + 1 {
            return;
        }
        if let Some(Loc::V(r)) = self.var_locs[var.id as usize] {
            if var.ty == v.ty {
                self.hint = Some((v.id, r));
            }
        }
    }

    pub(crate) fn define(&mut self, v: Value, kind: Loc) -> Result<Loc> {
        let n = words(v.ty);
        if let (Loc::V(_), Some((id, r))) = (kind, self.hint) {
            if id == v.id && r.count == n {
                self.alias(v, Loc::V(r));
                return Ok(Loc::V(r));
            }
        }
        if let (Loc::V(_), Some((id, from, r))) = (kind, self.reuse) {
            if id == v.id && r.count == n && self.owned[from as usize] {
                self.reuse = None;
                self.owned[from as usize] = false;
                self.locs[v.id as usize] = Some(Loc::V(r));
                self.owned[v.id as usize] = true;
                return Ok(Loc::V(r));
            }
        }
        let loc = match kind {
            Loc::S(_) => Loc::S(self.e.salloc(n)?),
            Loc::V(_) => Loc::V(self.e.valloc(n)?),
            Loc::M(_) => Loc::M(self.e.mask_alloc()?),
            Loc::K(b) => Loc::K(b),
        };
        self.locs[v.id as usize] = Some(loc);
        self.owned[v.id as usize] = !matches!(loc, Loc::K(_));
        Ok(loc)
    }

    /// Records `loc`, registers of value `of`, for `v` as one more holder of them,
    /// when they are a value's own: `v` then needs no copy (false: `of` is in a
    /// variable's registers or launch state, which may change or are not counted, so `v`
    /// gets a copy).
    pub(crate) fn alias_within(&mut self, v: Value, of: Value, loc: Loc) -> bool {
        if let Loc::K(b) = loc {
            self.alias(v, Loc::K(b));
            return true;
        }
        if !self.owned[of.id as usize] || self.splits[of.id as usize].is_some() {
            return false;
        }
        match loc {
            Loc::V(r) => self.e.vgprs.hold(r),
            Loc::S(r) | Loc::M(r) => self.e.sgprs.hold(r),
            Loc::K(_) => {}
        }
        self.locs[v.id as usize] = Some(loc);
        self.owned[v.id as usize] = true;
        true
    }

    /// Sets up `define` to give `v = op` the registers of an input that dies at this
    /// statement, for operations that read every input of a lane before writing that
    /// lane (one instruction a lane). With more than one lane, no other input may
    /// overlap the taken registers (lane 0's result would overwrite what lane 1 reads).
    fn reuse_hint(&mut self, v: Value, op: &Op, p: u32) {
        self.reuse = None;
        let s = v.ty.scalar;
        let f = matches!(s, Scalar::F32 | Scalar::F64);
        let i32 = matches!(s, Scalar::U32 | Scalar::I32);
        let lane_wise = match op {
            Op::Unary(u, _) => f && matches!(u, Unary::Neg | Unary::Abs),
            Op::Binary(b, x, _) => {
                use Binary as B;
                x.ty.scalar == s
                    && ((f && matches!(b, B::Add | B::Sub | B::Mul))
                        || (s == Scalar::F32 && matches!(b, B::Min | B::Max))
                        || (i32 && matches!(b, B::Add | B::Sub | B::And | B::Or | B::Xor)))
            }
            Op::Fma(..) => f,
            _ => false,
        };
        if !lane_wise {
            return;
        }
        let inputs = op.inputs();
        for x in &inputs {
            let id = x.id as usize;
            let Some(Loc::V(r)) = self.locs[id] else {
                continue;
            };
            if !self.owned[id]
                || self.live.value_end[id] != p
                || x.ty != v.ty
                || self.splits[id].is_some()
                || !self.e.vgprs.sole(r)
            {
                continue;
            }
            let overlaps = |l: Option<Loc>| match l {
                Some(Loc::V(o)) => {
                    o.first < r.first + u16::from(r.count) && r.first < o.first + u16::from(o.count)
                }
                _ => false,
            };
            let clash = v.ty.lanes > 1
                && inputs
                    .iter()
                    .any(|y| y.id != x.id && overlaps(self.locs[y.id as usize]));
            if !clash {
                self.reuse = Some((v.id, x.id, r));
                return;
            }
        }
    }

    /// Gives `v` the location of the earlier value it equals ([`super::cse`]), as one
    /// more holder of its registers, when that value is still held (false: `v` is
    /// computed itself).
    fn same_as_earlier(&mut self, v: Value) -> bool {
        let Some(w) = self.same[v.id as usize] else {
            return false;
        };
        let (wi, vi) = (w as usize, v.id as usize);
        let end = self.live.value_end[vi];
        if let Some(s) = self.splits[wi] {
            let u = match s.u {
                Loc::S(r) if s.owned => {
                    self.e.sgprs.hold(r);
                    s.u
                }
                Loc::K(b) => Loc::K(b),
                _ => return false,
            };
            let t = Split {
                u,
                owned: true,
                ..s
            };
            self.hold_scale(t);
            self.splits[vi] = Some(t);
            let b = s.base.id as usize;
            self.live.value_end[b] = self.live.value_end[b].max(end);
        } else {
            match self.locs[wi] {
                Some(Loc::K(b)) => self.alias(v, Loc::K(b)),
                Some(l) if self.owned[wi] => {
                    match l {
                        Loc::V(r) => self.e.vgprs.hold(r),
                        Loc::S(r) | Loc::M(r) => self.e.sgprs.hold(r),
                        Loc::K(_) => {}
                    }
                    self.locs[vi] = Some(l);
                    self.owned[vi] = true;
                }
                _ => return false,
            }
        }
        self.specials[vi] = self.specials[wi];
        true
    }

    /// Marks `v` as a holder of the registers its location names.
    pub(crate) fn set_owned(&mut self, v: Value) {
        self.owned[v.id as usize] = true;
    }

    /// Records `loc` for `v` without owning its registers (launch state, parameters,
    /// a variable's registers).
    pub(crate) fn alias(&mut self, v: Value, loc: Loc) {
        self.locs[v.id as usize] = Some(loc);
        self.owned[v.id as usize] = false;
    }

    fn free_loc(&mut self, l: Loc) {
        match l {
            Loc::S(r) | Loc::M(r) => self.e.sgprs.free(r),
            Loc::V(r) => self.e.vgprs.free(r),
            Loc::K(_) => {}
        }
    }

    /// Frees what dies at statement `pos`.
    fn expire(&mut self, pos: u32) {
        for id in 0..self.locs.len() {
            if self.live.value_end[id] == pos && self.splits[id].is_some() {
                self.drop_split(id);
            }
            if self.live.value_end[id] == pos && self.owned[id] {
                if let Some(l) = self.locs[id] {
                    self.free_loc(l);
                }
                self.owned[id] = false;
            }
        }
        for id in 0..self.var_locs.len() {
            if self.live.var_end[id] == pos {
                if let Some(l) = self.var_locs[id].take() {
                    self.free_loc(l);
                }
                if let Some(s) = self.var_splits[id].take() {
                    self.free_scale(s);
                }
            }
        }
    }

    /// Advances over a block that is not emitted (an `if` on a constant), freeing what
    /// dies inside it.
    fn skip_block(&mut self, b: &Block) {
        let n = count(b);
        for _ in 0..n {
            self.pos += 1;
            let p = self.pos;
            self.expire(p);
        }
    }

    fn block(&mut self, b: &Block) -> Result<()> {
        for (at, s) in b.0.iter().enumerate() {
            self.pos += 1;
            let p = self.pos;
            match s {
                Stmt::Let(v, op) if !self.live.value_needed[v.id as usize] && pure(op) => {
                    self.expire(p);
                }
                Stmt::Let(v, _) if self.same_as_earlier(*v) => self.expire(p),
                Stmt::Let(v, op) => {
                    self.target_hint(*v, op, b.0.get(at + 1), p);
                    self.reuse_hint(*v, op, p);
                    self.let_(*v, op)
                        .map_err(|e| self.context(e, &format!("%{} = {op:?}", v.id)))?;
                    self.reuse = None;
                    self.expire(p);
                }
                Stmt::Var(var, init) => {
                    if !self.try_split_var(*var, *init)? {
                        self.declare(*var)?;
                        let built = self.materialize(&[*init])?;
                        self.assign(*var, *init)?;
                        self.unmaterialize(built);
                    }
                    self.expire(p);
                }
                Stmt::Assign(var, v) if self.var_splits[var.id as usize].is_some() => {
                    self.assign_split_var(*var, *v)?;
                    self.expire(p);
                }
                Stmt::Assign(var, v) => {
                    let built = self.materialize(&[*v])?;
                    self.assign(*var, *v)?;
                    self.unmaterialize(built);
                    self.expire(p);
                }
                Stmt::Store(m, v) => {
                    // A global store takes a split offset apart itself.
                    let mut reads = vec![*v];
                    if matches!(m.mem, Mem::Shared(_)) {
                        reads.push(m.offset);
                    }
                    let built = self.materialize(&reads)?;
                    self.store(m, *v)
                        .map_err(|e| self.context(e, &format!("store {m:?}")))?;
                    self.unmaterialize(built);
                    self.expire(p);
                }
                Stmt::If {
                    cond,
                    then,
                    otherwise,
                } => self.if_(*cond, then, otherwise, p)?,
                Stmt::Loop { body, latch } => self.loop_(body, latch, p)?,
                Stmt::Break(c) => {
                    self.exit(*c, true)?;
                    self.expire(p);
                }
                Stmt::Continue(c) => {
                    self.exit(*c, false)?;
                    self.expire(p);
                }
                Stmt::Barrier => {
                    self.e.wait_stores();
                    self.e.k.s_barrier();
                    self.expire(p);
                }
                Stmt::Fence(_) => {
                    // The emulated memory is coherent: waiting for this lane's accesses
                    // to complete orders them at either scope.
                    self.e.wait_stores();
                    self.expire(p);
                }
            }
        }
        Ok(())
    }

    fn context(&self, e: Error, what: &str) -> Error {
        match e {
            Error::Unsupported { .. } => e,
            other => Error::invalid(
                format!("kernel `{}` on {}", self.def.name, self.t),
                format!("{what}: {other}"),
            ),
        }
    }

    // ---- variables ----------------------------------------------------------------

    fn declare(&mut self, var: Var) -> Result<()> {
        let (ty, u) = self.def.vars[var.id as usize];
        let n = words(ty);
        let loc = if ty.scalar == Scalar::Pred {
            Loc::M(self.e.mask_alloc()?)
        } else if u <= Uniformity::WaveUniform && ty.scalar.is_int() {
            Loc::S(self.e.salloc(n)?)
        } else {
            Loc::V(self.e.valloc(n)?)
        };
        self.var_locs[var.id as usize] = Some(loc);
        Ok(())
    }

    fn var_loc(&self, var: Var) -> Result<Loc> {
        self.var_locs[var.id as usize].ok_or_else(|| {
            Error::invalid(
                format!("kernel `{}`", self.def.name),
                format!("variable ${} used outside its scope", var.id),
            )
        })
    }

    fn assign(&mut self, var: Var, v: Value) -> Result<()> {
        let dst = self.var_loc(var)?;
        let src = self.loc(v)?;
        let (_, u) = self.def.vars[var.id as usize];
        match dst {
            Loc::M(m) => {
                let s = self.mask_src(src);
                if u <= Uniformity::WaveUniform {
                    let op = self.e.mask_op(I::SMovB64);
                    self.e.salu(op, Some(Operand::Sgpr(m)), &[s])?;
                } else {
                    // Only the active lanes take the new value.
                    let exec = self.e.exec();
                    self.e
                        .mask_andn2(Operand::Sgpr(m), Operand::Sgpr(m), exec)?;
                    let tmp = self.e.mask_alloc()?;
                    let and = self.e.mask_op(I::SAndB64);
                    self.e
                        .salu(and, Some(Operand::Sgpr(tmp)), &[s, Src::Op(exec)])?;
                    let or = self.e.mask_op(I::SOrB64);
                    self.e
                        .op(or, [Operand::Sgpr(m), Operand::Sgpr(m), Operand::Sgpr(tmp)]);
                    self.e.sgprs.free(tmp);
                }
            }
            Loc::S(d) => self.copy_to_s(d, src, v.ty)?,
            Loc::V(d) => self.copy_to_v(d, src, v.ty)?,
            Loc::K(_) => unreachable!("variables live in registers"),
        }
        Ok(())
    }

    /// Reads a variable: its registers when the variable is not assigned again while
    /// the value lives (taken over when this is the variable's last use), else a copy.
    pub(crate) fn read_var(&mut self, v: Value, var: Var) -> Result<()> {
        if self.var_splits[var.id as usize].is_some() {
            return self.read_split_var(v, var);
        }
        let src = self.var_loc(var)?;
        let (start, end) = (self.pos, self.live.value_end[v.id as usize]);
        let reassigned = self.live.var_assigns[var.id as usize]
            .iter()
            .any(|&a| a > start && a <= end);
        if !reassigned && self.live.var_end[var.id as usize] >= end {
            self.alias(v, src);
            return Ok(());
        }
        if !reassigned && self.live.var_end[var.id as usize] == start {
            // The variable's last use: the value takes its registers over.
            self.var_locs[var.id as usize] = None;
            self.locs[v.id as usize] = Some(src);
            self.owned[v.id as usize] = true;
            return Ok(());
        }
        let d = self.define(v, src)?;
        match (d, src) {
            (Loc::M(d), _) => {
                let op = self.e.mask_op(I::SMovB64);
                self.e.op(op, [Operand::Sgpr(d), src_operand(src)]);
            }
            (Loc::S(d), _) => self.copy_to_s(d, src, v.ty)?,
            (Loc::V(d), _) => self.copy_to_v(d, src, v.ty)?,
            _ => {}
        }
        Ok(())
    }

    /// `d = src` into SGPRs (a VGPR source is read from its first active lane: the value
    /// is uniform).
    pub(crate) fn copy_to_s(&mut self, d: RegRange, src: Loc, ty: Type) -> Result<()> {
        let n = words(ty);
        for j in 0..n {
            let dj = Operand::Sgpr(sub(d, j));
            match src {
                Loc::S(r) if r == d => {}
                Loc::S(r) => self.e.op(I::SMovB32, [dj, Operand::Sgpr(sub(r, j))]),
                Loc::V(r) => self
                    .e
                    .op(I::VReadfirstlaneB32, [dj, Operand::Vgpr(sub(r, j))]),
                Loc::K(bits) => self.e.s_const32(sub(d, j), (bits >> (32 * j)) as u32),
                Loc::M(_) => {
                    return Err(Error::invalid(
                        "value",
                        "a predicate where a number belongs",
                    ))
                }
            }
        }
        Ok(())
    }

    /// `d = src` into VGPRs (on the active lanes).
    pub(crate) fn copy_to_v(&mut self, d: RegRange, src: Loc, ty: Type) -> Result<()> {
        let n = words(ty);
        for j in 0..n {
            let s = match src {
                Loc::V(r) if r == d => continue,
                Loc::V(r) => Src::Op(Operand::Vgpr(sub(r, j))),
                Loc::S(r) => Src::Op(Operand::Sgpr(sub(r, j))),
                Loc::K(bits) => Src::K32((bits >> (32 * j)) as u32),
                Loc::M(_) => {
                    return Err(Error::invalid(
                        "value",
                        "a predicate where a number belongs",
                    ))
                }
            };
            self.e
                .valu(I::VMovB32, &[Src::Op(Operand::Vgpr(sub(d, j))), s])?;
        }
        Ok(())
    }

    /// A predicate as a mask source (constants: all lanes or none).
    pub(crate) fn mask_src(&self, l: Loc) -> Src {
        match l {
            Loc::K(b) if b & 1 != 0 => Src::Op(Operand::Int(-1)),
            Loc::K(_) => Src::Op(Operand::Int(0)),
            other => Src::Op(src_operand(other)),
        }
    }

    // ---- special values --------------------------------------------------------------

    pub(crate) fn special(&mut self, v: Value, s: Special) -> Result<()> {
        self.specials[v.id as usize] = Some(s);
        let packed = packed_workitem_ids(self.t);
        match s {
            Special::ThreadId(a) => {
                let i = axis_index(a) as u16;
                if !packed {
                    self.alias(v, Loc::V(RegRange::new(i, 1)));
                    return Ok(());
                }
                let Loc::V(d) = self.define(v, Loc::V(RegRange::new(0, 0)))? else {
                    unreachable!()
                };
                self.thread_id_into(d, i)?;
            }
            Special::WorkgroupId(a) => {
                self.alias(v, Loc::S(RegRange::new(2 + axis_index(a) as u16, 1)));
            }
            Special::GridSize(a) => {
                let r = self.grid_size[axis_index(a)].expect("declared at setup");
                self.alias(v, Loc::S(r));
            }
            Special::WorkgroupSize(a) => {
                let r = self.group_size[axis_index(a)].expect("declared at setup");
                self.alias(v, Loc::S(r));
            }
            Special::WaveSize => self.alias(v, Loc::K(u64::from(self.t.wave_size()))),
            Special::LaneId => {
                let Loc::V(d) = self.define(v, Loc::V(RegRange::new(0, 0)))? else {
                    unreachable!()
                };
                self.lane_id(d)?;
            }
            Special::WaveId => {
                // Waves hold consecutive flattened work-item ids, so the first active
                // lane's flat id over the wave size is the wave's number.
                let Loc::S(d) = self.define(v, Loc::S(RegRange::new(0, 0)))? else {
                    unreachable!()
                };
                let flat = self.e.valloc(1)?;
                self.thread_id_into(flat, 0)?;
                if self.dims > 1 {
                    let t = self.e.valloc(1)?;
                    let sizes = self.group_size;
                    let size = |a: usize| sizes[a].expect("declared at setup for WaveId");
                    if self.dims > 2 {
                        // y + size_y · z
                        self.thread_id_into(t, 2)?;
                        self.e.valu(
                            I::VMulLoU32,
                            &[
                                Src::Op(Operand::Vgpr(t)),
                                Src::Op(Operand::Sgpr(size(1))),
                                Src::Op(Operand::Vgpr(t)),
                            ],
                        )?;
                    } else {
                        self.e
                            .valu(I::VMovB32, &[Src::Op(Operand::Vgpr(t)), Src::K32(0)])?;
                    }
                    let y = self.e.valloc(1)?;
                    self.thread_id_into(y, 1)?;
                    self.e.valu(
                        I::VAddU32,
                        &[
                            Src::Op(Operand::Vgpr(t)),
                            Src::Op(Operand::Vgpr(t)),
                            Src::Op(Operand::Vgpr(y)),
                        ],
                    )?;
                    self.e.vgprs.free(y);
                    // flat = x + size_x · (y + size_y · z)
                    self.e.valu(
                        I::VMulLoU32,
                        &[
                            Src::Op(Operand::Vgpr(t)),
                            Src::Op(Operand::Sgpr(size(0))),
                            Src::Op(Operand::Vgpr(t)),
                        ],
                    )?;
                    self.e.valu(
                        I::VAddU32,
                        &[
                            Src::Op(Operand::Vgpr(flat)),
                            Src::Op(Operand::Vgpr(flat)),
                            Src::Op(Operand::Vgpr(t)),
                        ],
                    )?;
                    self.e.vgprs.free(t);
                }
                self.e.op(
                    I::VReadfirstlaneB32,
                    [Operand::Sgpr(d), Operand::Vgpr(flat)],
                );
                let shift = self.t.wave_size().trailing_zeros();
                self.e.salu(
                    I::SLshrB32,
                    Some(Operand::Sgpr(d)),
                    &[Src::Op(Operand::Sgpr(d)), Src::K32(shift)],
                )?;
                self.e.vgprs.free(flat);
            }
        }
        Ok(())
    }

    /// `d = work-item id` along axis `a` (0 = x).
    fn thread_id_into(&mut self, d: RegRange, a: u16) -> Result<()> {
        let v0 = Src::Op(Operand::Vgpr(RegRange::new(0, 1)));
        let dv = Src::Op(Operand::Vgpr(d));
        if !packed_workitem_ids(self.t) {
            return self.e.valu(
                I::VMovB32,
                &[dv, Src::Op(Operand::Vgpr(RegRange::new(a, 1)))],
            );
        }
        if a == 0 {
            self.e.valu(I::VAndB32, &[dv, Src::K32(0x3ff), v0])
        } else {
            self.e.valu(
                I::VBfeU32,
                &[dv, v0, Src::K32(10 * u32::from(a)), Src::K32(10)],
            )
        }
    }

    /// `d = lane id` (`v_mbcnt` of all ones).
    pub(crate) fn lane_id(&mut self, d: RegRange) -> Result<()> {
        let dv = Src::Op(Operand::Vgpr(d));
        self.e.valu(
            I::VMbcntLoU32B32,
            &[dv, Src::Op(Operand::Int(-1)), Src::Op(Operand::Int(0))],
        )?;
        if self.e.wave64() {
            self.e
                .valu(I::VMbcntHiU32B32, &[dv, Src::Op(Operand::Int(-1)), dv])?;
        }
        Ok(())
    }

    // ---- control flow ----------------------------------------------------------------

    fn if_(&mut self, cond: Value, then: &Block, otherwise: &Block, head: u32) -> Result<()> {
        let c = self.loc(cond)?;
        self.expire(head);
        if let Loc::K(b) = c {
            if b & 1 != 0 {
                self.block(then)?;
                self.skip_block(otherwise);
            } else {
                self.skip_block(then);
                self.block(otherwise)?;
            }
        } else if self.uniform(cond) {
            self.scalar_if(c, then, otherwise)?;
        } else {
            self.masked_if(c, then, otherwise)?;
        }
        self.pos += 1;
        let end = self.pos;
        self.expire(end);
        Ok(())
    }

    /// SCC = (cond & exec) != 0.
    fn test(&mut self, c: Loc) -> Result<()> {
        let tmp = self.e.mask_alloc()?;
        let and = self.e.mask_op(I::SAndB64);
        let exec = self.e.exec();
        let s = self.mask_src(c);
        self.e
            .salu(and, Some(Operand::Sgpr(tmp)), &[s, Src::Op(exec)])?;
        self.e.sgprs.free(tmp);
        Ok(())
    }

    fn scalar_if(&mut self, c: Loc, then: &Block, otherwise: &Block) -> Result<()> {
        let else_l = self.fresh_label("else");
        let end_l = self.fresh_label("endif");
        self.test(c)?;
        self.e.branch(I::SCbranchScc0, else_l);
        self.block(then)?;
        if !otherwise.0.is_empty() {
            self.e.branch(I::SBranch, end_l);
        }
        self.e.bind(else_l);
        self.block(otherwise)?;
        self.e.bind(end_l);
        Ok(())
    }

    fn masked_if(&mut self, c: Loc, then: &Block, otherwise: &Block) -> Result<()> {
        let else_l = self.fresh_label("else");
        let end_l = self.fresh_label("endif");
        let saved = self.e.mask_alloc()?;
        let exec = self.e.exec();
        let saveexec = self.e.mask_op(I::SAndSaveexecB64);
        let s = self.mask_src(c);
        self.e.salu(saveexec, Some(Operand::Sgpr(saved)), &[s])?;
        let else_mask = if otherwise.0.is_empty() {
            None
        } else {
            let m = self.e.mask_alloc()?;
            let xor = self.e.mask_op(I::SXorB64);
            self.e
                .op(xor, [Operand::Sgpr(m), Operand::Sgpr(saved), exec]);
            Some(m)
        };
        self.skip.push(else_l);
        self.e.branch(I::SCbranchExecz, else_l);
        self.block(then)?;
        self.skip.pop();
        self.e.bind(else_l);
        if let Some(m) = else_mask {
            let mov = self.e.mask_op(I::SMovB64);
            self.e.op(mov, [exec, Operand::Sgpr(m)]);
            self.e.sgprs.free(m);
            self.skip.push(end_l);
            self.e.branch(I::SCbranchExecz, end_l);
            self.block(otherwise)?;
            self.skip.pop();
        }
        self.e.bind(end_l);
        // Lanes that left the loop (or its iteration) inside stay off.
        let exits = has_exit(then) || has_exit(otherwise);
        match self.loops.last().and_then(|l| l.run.filter(|_| exits)) {
            Some(run) => {
                let and = self.e.mask_op(I::SAndB64);
                self.e
                    .op(and, [exec, Operand::Sgpr(saved), Operand::Sgpr(run)]);
                if let Some(&target) = self.skip.last() {
                    self.e.branch(I::SCbranchExecz, target);
                }
            }
            None => {
                let mov = self.e.mask_op(I::SMovB64);
                self.e.op(mov, [exec, Operand::Sgpr(saved)]);
            }
        }
        self.e.sgprs.free(saved);
        Ok(())
    }

    /// Whether a loop's exits need EXEC masking: some `Break`/`Continue` of it has a
    /// varying condition or sits under a varying `if` inside the loop.
    fn needs_mask(&self, b: &Block, under_varying: bool) -> bool {
        b.0.iter().any(|s| match s {
            Stmt::Break(c) | Stmt::Continue(c) => under_varying || !self.uniform(*c),
            Stmt::If {
                cond,
                then,
                otherwise,
            } => {
                let v = under_varying || !self.uniform(*cond);
                self.needs_mask(then, v) || self.needs_mask(otherwise, v)
            }
            _ => false,
        })
    }

    fn loop_(&mut self, body: &Block, latch: &Block, head: u32) -> Result<()> {
        self.expire(head);
        let masked = self.needs_mask(body, false) || self.needs_mask(latch, false);
        let top = self.fresh_label("loop");
        let latch_l = self.fresh_label("latch");
        let end_l = self.fresh_label("endloop");
        let exec = self.e.exec();
        let mov = self.e.mask_op(I::SMovB64);
        if !masked {
            self.loops.push(LoopCtx {
                masked,
                live: None,
                run: None,
                latch: latch_l,
                end: end_l,
            });
            self.e.bind_loop_top(top);
            self.block(body)?;
            self.e.bind(latch_l);
            self.block(latch)?;
            self.e.branch_back(I::SBranch, top);
            self.e.bind(end_l);
            self.loops.pop();
        } else {
            let entry = self.e.mask_alloc()?;
            let live = self.e.mask_alloc()?;
            let run = self.e.mask_alloc()?;
            self.e.op(mov, [Operand::Sgpr(entry), exec]);
            self.e.op(mov, [Operand::Sgpr(live), exec]);
            self.loops.push(LoopCtx {
                masked,
                live: Some(live),
                run: Some(run),
                latch: latch_l,
                end: end_l,
            });
            self.e.bind_loop_top(top);
            self.e.op(mov, [Operand::Sgpr(run), Operand::Sgpr(live)]);
            self.skip.push(latch_l);
            self.block(body)?;
            self.skip.pop();
            self.e.bind(latch_l);
            // Lanes that continued run the latch too.
            self.e.op(mov, [exec, Operand::Sgpr(live)]);
            self.e.op(mov, [Operand::Sgpr(run), Operand::Sgpr(live)]);
            self.e.branch(I::SCbranchExecz, end_l);
            self.skip.push(end_l);
            self.block(latch)?;
            self.skip.pop();
            self.e.branch_back(I::SCbranchExecnz, top);
            self.e.bind(end_l);
            self.e.op(mov, [exec, Operand::Sgpr(entry)]);
            self.loops.pop();
            for r in [entry, live, run] {
                self.e.sgprs.free(r);
            }
        }
        self.pos += 1;
        let end = self.pos;
        self.expire(end);
        Ok(())
    }

    /// `Break` (`brk`) or `Continue` of the innermost loop.
    fn exit(&mut self, c: Value, brk: bool) -> Result<()> {
        let l = *self.loops.last().ok_or_else(|| {
            Error::invalid(
                format!("kernel `{}`", self.def.name),
                "break or continue outside a loop",
            )
        })?;
        let cl = self.loc(c)?;
        if let Loc::K(0) = cl {
            return Ok(());
        }
        let target = if brk { l.end } else { l.latch };
        if !l.masked {
            if let Loc::K(_) = cl {
                self.e.branch(I::SBranch, target);
            } else {
                self.test(cl)?;
                self.e.branch(I::SCbranchScc1, target);
            }
            return Ok(());
        }
        let (live, run) = (l.live.expect("masked"), l.run.expect("masked"));
        let exec = self.e.exec();
        let leaving = self.e.mask_alloc()?;
        let and = self.e.mask_op(I::SAndB64);
        let s = self.mask_src(cl);
        self.e
            .salu(and, Some(Operand::Sgpr(leaving)), &[s, Src::Op(exec)])?;
        let lv = Operand::Sgpr(leaving);
        if brk {
            self.e
                .mask_andn2(Operand::Sgpr(live), Operand::Sgpr(live), lv)?;
        }
        self.e
            .mask_andn2(Operand::Sgpr(run), Operand::Sgpr(run), lv)?;
        self.e.mask_andn2(exec, exec, lv)?;
        self.e.sgprs.free(leaving);
        let skip = *self.skip.last().unwrap_or(&l.end);
        self.e.branch(I::SCbranchExecz, skip);
        Ok(())
    }
}

/// Register `j` of a range.
pub(crate) fn sub(r: RegRange, j: u8) -> RegRange {
    RegRange::new(r.first + u16::from(j), 1)
}

/// The operand of a register location (constants: their low 32 bits inline or literal).
pub(crate) fn src_operand(l: Loc) -> Operand {
    match l {
        Loc::S(r) | Loc::M(r) => Operand::Sgpr(r),
        Loc::V(r) => Operand::Vgpr(r),
        Loc::K(b) => Operand::inline32(b as u32).unwrap_or(Operand::Literal(b as u32)),
    }
}
