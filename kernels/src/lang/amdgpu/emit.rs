//! The instruction stream of the lowering: the [`Assembler`] (hazard NOPs, the `s_waitcnt`
//! check, layout, resources) plus what a compiler adds in front of it:
//!
//! - **Waits from the scoreboard.** Before each instruction the lowering asks
//!   rocm-core's [`Scoreboard`] whether it reads or overwrites a register a memory
//!   instruction may still write; if so it emits the weakest `s_waitcnt` on that counter
//!   that satisfies the scoreboard (the largest count), and asks again. At a forward
//!   label the states of every branch to it and of the fall-through are merged
//!   (`Scoreboard::merge`), so loads stay in flight across `if`s; a loop's top waits for
//!   every load (down to the stores after the newest), as does its back edge, so the
//!   state there is known when the top is bound.
//! - **Operand legalization for VALU instructions**: the shortest encoding whose operand
//!   rules hold (VOP2's second source must be a VGPR: commutative operations swap, others
//!   take `_e64`; compares and selects on SGPR masks take `_e64`), constants inline where
//!   the encoding has them, literals and extra scalar values moved to VGPRs where the
//!   constant bus (one scalar value per VALU instruction on gfx9, two on gfx11; no
//!   literal in gfx9 VOP3) would overflow.
//! - **Register pools** ([`Pool`]) for the SGPR and VGPR files.

use super::pool::Pool;
use crate::amdgpu::asm::{Assembler, Label};
use crate::amdgpu::regs::RegFile;
use rocm_core::isa::amdgpu::waitcnt::Scoreboard;
use rocm_core::isa::amdgpu::{
    has_e64, Counter, Form, InlineFloat, Instr, IsaFamily, IsaTarget, Op, Operand, RegRange, Slot,
    Waitcnt,
};
use rocm_core::Result;
use std::collections::HashMap;

/// A source before legalization: an operand as is, or a constant of 32 or 64 bits.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Src {
    Op(Operand),
    /// A 32-bit constant's bits.
    K32(u32),
    /// A 64-bit constant's bits; `float` when the slot reads it as an f64 (inline float
    /// constants then mean their f64 values).
    K64 {
        bits: u64,
        float: bool,
    },
}

impl From<Operand> for Src {
    fn from(o: Operand) -> Src {
        Src::Op(o)
    }
}

/// The instruction stream and register files of one kernel being lowered.
pub(crate) struct Emitter {
    pub k: Assembler,
    board: Scoreboard,
    /// Per counter, its outstanding operations in issue order: whether each writes
    /// registers (a load) or not (a store).
    queue: [Vec<bool>; 3],
    /// The state branches bring to each forward label not yet bound.
    at_label: HashMap<Label, (Scoreboard, [Vec<bool>; 3])>,
    /// Whether the code being emitted can be reached by falling through.
    reachable: bool,
    pub sgprs: Pool,
    pub vgprs: Pool,
    pub t: IsaTarget,
}

/// Two paths' outstanding operations per counter, aligned at the newest: a position
/// holds a load when it does on either path (so waits computed from it cover both).
fn merge_queues(a: &[Vec<bool>; 3], b: &[Vec<bool>; 3]) -> [Vec<bool>; 3] {
    std::array::from_fn(|c| {
        let (x, y) = (&a[c], &b[c]);
        let n = x.len().max(y.len());
        (0..n)
            .map(|i| {
                let from_end = n - 1 - i;
                let get = |v: &Vec<bool>| v.len() > from_end && v[v.len() - 1 - from_end];
                get(x) || get(y)
            })
            .collect()
    })
}

fn counter_index(c: Counter) -> usize {
    match c {
        Counter::Vm => 0,
        Counter::Vs => 1,
        Counter::Lgkm => 2,
    }
}

/// VOP2 operations whose two sources commute.
fn commutes(op: Op) -> bool {
    matches!(
        op,
        Op::VAddF32
            | Op::VMulF32
            | Op::VMinF32
            | Op::VMaxF32
            | Op::VAddU32
            | Op::VMulU32U24
            | Op::VMinI32
            | Op::VMaxI32
            | Op::VMinU32
            | Op::VMaxU32
            | Op::VAndB32
            | Op::VOrB32
            | Op::VXorB32
    )
}

/// The inline constant for a 64-bit operand, if there is one: integers -16..=64 (read as
/// 64-bit integers) and, for f64 operands, the inline float values.
fn inline64(bits: u64, float: bool) -> Option<Operand> {
    let signed = bits as i64;
    if (-16..=64).contains(&signed) {
        return Some(Operand::Int(signed as i8));
    }
    if float {
        let x = f64::from_bits(bits);
        return InlineFloat::ALL
            .into_iter()
            .find(|f| f.value() == x && *f != InlineFloat::InvTwoPi)
            .map(Operand::Float);
    }
    None
}

impl Emitter {
    pub(crate) fn new(k: Assembler, reserved_sgprs: u16, reserved_vgprs: u16) -> Self {
        let t = k.target();
        Emitter {
            board: Scoreboard::new(t),
            queue: Default::default(),
            at_label: HashMap::new(),
            reachable: true,
            sgprs: Pool::new(t, RegFile::Sgpr, reserved_sgprs),
            vgprs: Pool::new(t, RegFile::Vgpr, reserved_vgprs),
            t,
            k,
        }
    }

    pub(crate) fn wave64(&self) -> bool {
        self.t.wave_size() == 64
    }

    pub(crate) fn gfx11(&self) -> bool {
        self.t.family() == IsaFamily::Gfx11
    }

    /// SGPRs per lane mask.
    pub(crate) fn mask_words(&self) -> u8 {
        self.t.mask_sgprs()
    }

    pub(crate) fn exec(&self) -> Operand {
        self.k.exec()
    }

    pub(crate) fn salloc(&mut self, n: u8) -> Result<RegRange> {
        self.sgprs.alloc(n)
    }

    pub(crate) fn valloc(&mut self, n: u8) -> Result<RegRange> {
        self.vgprs.alloc(n)
    }

    /// A fresh lane mask register (1 SGPR in wave32, 2 in wave64).
    pub(crate) fn mask_alloc(&mut self) -> Result<RegRange> {
        let n = self.mask_words();
        self.sgprs.alloc(n)
    }

    // ---- the stream -----------------------------------------------------------------

    /// Emits `i` after the waits the scoreboard asks for.
    pub(crate) fn emit(&mut self, i: Instr) {
        for _ in 0..4 {
            let Err(p) = self.board.check(&i) else { break };
            let (w, n) = self.weakest_wait(&i, p.counter);
            self.issue_wait(w, p.counter, n);
        }
        if let Some(c) = i.counter(self.t) {
            self.queue[counter_index(c)].push(i.defs().next().is_some());
        }
        self.board.issue(&i);
        self.k.emit(i);
    }

    /// Emits the wait `w` (counter `c` down to `n`) and retires what it covers.
    fn issue_wait(&mut self, w: Instr, c: Counter, n: u8) {
        let q = &mut self.queue[counter_index(c)];
        let keep = q.len().min(usize::from(n));
        q.drain(..q.len() - keep);
        self.board.issue(&w);
        self.k.emit(w);
    }

    pub(crate) fn op(&mut self, op: Op, operands: impl Into<Vec<Operand>>) {
        self.emit(Instr::new(op, operands));
    }

    fn wait_instr(&self, counter: Counter, n: u8) -> Instr {
        let max = Waitcnt::max(self.t.family());
        match counter {
            Counter::Vs => Instr::new(Op::SWaitcntVscnt, [Operand::Null, Operand::Imm(n.into())]),
            Counter::Vm => Instr::new(Op::SWaitcnt, [Operand::Waitcnt(Waitcnt { vm: n, ..max })]),
            Counter::Lgkm => {
                Instr::new(Op::SWaitcnt, [Operand::Waitcnt(Waitcnt { lgkm: n, ..max })])
            }
        }
    }

    /// The `s_waitcnt` on `counter` with the largest count after which the scoreboard
    /// no longer objects to `i` on that counter, and that count.
    fn weakest_wait(&self, i: &Instr, counter: Counter) -> (Instr, u8) {
        let outstanding = self.board.outstanding(counter).min(63) as u8;
        for n in (0..outstanding).rev() {
            let w = self.wait_instr(counter, n);
            let mut trial = self.board.clone();
            trial.issue(&w);
            match trial.check(i) {
                Err(p) if p.counter == counter => continue,
                _ => return (w, n),
            }
        }
        (self.wait_instr(counter, 0), 0)
    }

    /// Waits for every outstanding load (before a label or a branch): on each counter,
    /// down to the operations issued after the newest load (stores may stay in flight).
    pub(crate) fn wait_all(&mut self) {
        for c in [Counter::Vm, Counter::Lgkm] {
            let q = &self.queue[counter_index(c)];
            if let Some(newest) = q.iter().rposition(|&writes| writes) {
                let n = (q.len() - 1 - newest).min(63) as u8;
                let w = self.wait_instr(c, n);
                self.issue_wait(w, c, n);
            }
        }
    }

    /// Waits for every outstanding memory operation, stores included (a fence).
    pub(crate) fn wait_stores(&mut self) {
        for c in [Counter::Vm, Counter::Lgkm, Counter::Vs] {
            if !self.queue[counter_index(c)].is_empty() {
                let w = self.wait_instr(c, 0);
                self.issue_wait(w, c, 0);
            }
        }
    }

    pub(crate) fn label(&mut self, name: &str) -> Label {
        self.k.label(name)
    }

    /// Binds a forward label: the outstanding operations there are those of every
    /// branch to it and, when the code above falls through, of the fall-through.
    pub(crate) fn bind(&mut self, l: Label) {
        if let Some((board, queue)) = self.at_label.remove(&l) {
            if self.reachable {
                self.board.merge(&board);
                self.queue = merge_queues(&self.queue, &queue);
            } else {
                self.board = board;
                self.queue = queue;
            }
        }
        self.reachable = true;
        self.k.bind(l);
    }

    /// Binds the target of a backward branch (a loop's top): nothing is outstanding
    /// there, so the state the back edge brings is known before it is emitted.
    pub(crate) fn bind_loop_top(&mut self, l: Label) {
        self.wait_all();
        self.bind(l);
    }

    /// A branch to a forward label (its state is merged at `bind`).
    pub(crate) fn branch(&mut self, op: Op, l: Label) {
        let state = (self.board.clone(), self.queue.clone());
        match self.at_label.get_mut(&l) {
            Some((b, q)) => {
                b.merge(&state.0);
                *q = merge_queues(q, &state.1);
            }
            None => {
                self.at_label.insert(l, state);
            }
        }
        self.k.cbranch(op, l);
        if op == Op::SBranch {
            self.reachable = false;
        }
    }

    /// A branch back to a loop's top: waits for every load first (see
    /// [`Self::bind_loop_top`]).
    pub(crate) fn branch_back(&mut self, op: Op, l: Label) {
        self.wait_all();
        self.k.cbranch(op, l);
        if op == Op::SBranch {
            self.reachable = false;
        }
    }

    // ---- lane masks -----------------------------------------------------------------

    /// The wave-size variant of a mask operation (`_b64` in wave64, `_b32` in wave32).
    pub(crate) fn mask_op(&self, b64: Op) -> Op {
        if self.wave64() {
            return b64;
        }
        match b64 {
            Op::SMovB64 => Op::SMovB32,
            Op::SAndB64 => Op::SAndB32,
            Op::SOrB64 => Op::SOrB32,
            Op::SXorB64 => Op::SXorB32,
            Op::SCselectB64 => Op::SCselectB32,
            Op::SCmpLgU64 => Op::SCmpLgU32,
            Op::SCmpEqU64 => Op::SCmpEqU32,
            Op::SAndSaveexecB64 => Op::SAndSaveexecB32,
            other => other,
        }
    }

    /// `d = a & !b` on lane masks (wave32 has no `s_andn2_b32` in the model: not, and).
    pub(crate) fn mask_andn2(&mut self, d: Operand, a: Operand, b: Operand) -> Result<()> {
        if self.wave64() {
            self.op(Op::SAndn2B64, [d, a, b]);
        } else {
            let nb = self.salloc(1)?;
            self.op(Op::SNotB32, [Operand::Sgpr(nb), b]);
            self.op(Op::SAndB32, [d, a, Operand::Sgpr(nb)]);
            self.sgprs.free(nb);
        }
        Ok(())
    }

    // ---- scalar and vector instructions ------------------------------------------------

    /// Moves a 32-bit constant into an SGPR.
    pub(crate) fn s_const32(&mut self, d: RegRange, bits: u32) {
        let src = Operand::inline32(bits).unwrap_or(Operand::Literal(bits));
        self.op(Op::SMovB32, [Operand::Sgpr(d), src]);
    }

    /// Moves a 64-bit constant into an SGPR pair.
    pub(crate) fn s_const64(&mut self, d: RegRange, bits: u64) {
        if let Some(o) = inline64(bits, false) {
            self.op(Op::SMovB64, [Operand::Sgpr(d), o]);
        } else {
            self.s_const32(RegRange::new(d.first, 1), bits as u32);
            self.s_const32(RegRange::new(d.first + 1, 1), (bits >> 32) as u32);
        }
    }

    /// A scalar instruction; at most one literal (a second constant goes to an SGPR).
    pub(crate) fn salu(&mut self, op: Op, dst: Option<Operand>, srcs: &[Src]) -> Result<()> {
        let mut temps = Vec::new();
        let mut literal = false;
        let mut ops: Vec<Operand> = dst.into_iter().collect();
        let wide = |i: usize| -> u8 {
            let slots = op.info().slots;
            let src_slots: Vec<&Slot> = slots
                .iter()
                .filter(|s| matches!(s, Slot::SSrc(_)))
                .collect();
            match src_slots.get(i) {
                Some(Slot::SSrc(w)) => *w,
                _ => 1,
            }
        };
        for (i, s) in srcs.iter().enumerate() {
            let o = match *s {
                Src::Op(o) => o,
                Src::K32(bits) => match Operand::inline32(bits) {
                    Some(o) => o,
                    None if !literal && wide(i) == 1 => {
                        literal = true;
                        Operand::Literal(bits)
                    }
                    None => {
                        let r = self.salloc(1)?;
                        self.s_const32(r, bits);
                        temps.push(r);
                        Operand::Sgpr(r)
                    }
                },
                Src::K64 { bits, float } => match inline64(bits, float) {
                    Some(o) => o,
                    None => {
                        let r = self.salloc(2)?;
                        self.s_const64(r, bits);
                        temps.push(r);
                        Operand::Sgpr(r)
                    }
                },
            };
            ops.push(o);
        }
        self.op(op, ops);
        for r in temps {
            self.sgprs.free(r);
        }
        Ok(())
    }

    /// A vector instruction with its operands legalized (see the module docs). `ops`
    /// follows the op's slots; `neg`/`abs` are source modifier masks (float ops).
    pub(crate) fn valu_mods(&mut self, op: Op, ops: &[Src], neg: u8, abs: u8) -> Result<()> {
        let info = op.info();
        let t = self.t;
        let mut temps_v: Vec<RegRange> = Vec::new();
        let mut temps_s: Vec<RegRange> = Vec::new();
        // Resolve constants: inline where possible, else a literal (32-bit) or an SGPR
        // pair (64-bit).
        let mut operands: Vec<Operand> = Vec::with_capacity(ops.len());
        for (s, slot) in ops.iter().zip(info.slots) {
            let float64 = info.ty == rocm_core::isa::amdgpu::Ty::F64;
            let o = match *s {
                Src::Op(o) => o,
                Src::K32(bits) => Operand::inline32(bits).unwrap_or(Operand::Literal(bits)),
                Src::K64 { bits, float } => match inline64(bits, float && float64) {
                    Some(o) => o,
                    None => {
                        let r = self.salloc(2)?;
                        self.s_const64(r, bits);
                        temps_s.push(r);
                        Operand::Sgpr(r)
                    }
                },
            };
            let _ = slot;
            operands.push(o);
        }
        let is_src = |s: &Slot| matches!(s, Slot::VSrc(_) | Slot::VReg(_) | Slot::MaskSrc);
        let has_mask = info
            .slots
            .iter()
            .any(|s| matches!(s, Slot::MaskDst | Slot::MaskSrc | Slot::CarryDst));
        let mut e64 = has_mask || neg | abs != 0;
        // VOP2: the second source must be a VGPR in the native encoding.
        if !e64 && info.form == Form::Vop2 {
            let srcs: Vec<usize> = (0..operands.len())
                .filter(|&i| is_src(&info.slots[i]))
                .collect();
            if let [a, b] = srcs[..] {
                if !matches!(operands[b], Operand::Vgpr(_)) {
                    if commutes(op) && matches!(operands[a], Operand::Vgpr(_)) {
                        operands.swap(a, b);
                    } else {
                        e64 = true;
                    }
                }
            }
        }
        let vop3 = e64 || matches!(info.form, Form::Vop3 | Form::Vop3p);
        // Constant bus: distinct scalar values (literals count; gfx9 VOP3 takes none).
        let limit = match op {
            Op::VLshlrevB64 | Op::VLshrrevB64 if self.gfx11() => 1,
            _ if !vop3 => 1,
            _ => t.constant_bus_limit(),
        };
        // Masks must stay scalar: they take the bus first.
        let mut seen: Vec<Operand> = (0..operands.len())
            .filter(|&i| info.slots[i] == Slot::MaskSrc)
            .map(|i| operands[i])
            .collect();
        seen.dedup();
        let slots: Vec<Slot> = info.slots.iter().copied().take(operands.len()).collect();
        for (i, slot) in slots.into_iter().enumerate() {
            if !is_src(&slot) || slot == Slot::MaskSrc {
                continue;
            }
            let o = operands[i];
            if !o.is_scalar_value() {
                continue;
            }
            // One literal per instruction, none in gfx9's VOP3.
            let other_literal = seen
                .iter()
                .any(|s| matches!(s, Operand::Literal(_)) && *s != o);
            let literal_banned =
                matches!(o, Operand::Literal(_)) && ((vop3 && !self.gfx11()) || other_literal);
            // VOP1/VOP2 take a literal or SGPR in the first source only.
            let not_src0 = !vop3 && i != info.slots.iter().position(is_src).unwrap_or(0);
            if seen.contains(&o) && !literal_banned && !not_src0 {
                continue;
            }
            if literal_banned || not_src0 || seen.len() >= limit {
                let w = o.width().unwrap_or(1).max(match slot {
                    Slot::VSrc(w) | Slot::VReg(w) => w,
                    _ => 1,
                });
                let r = self.valloc(w)?;
                match o {
                    Operand::Sgpr(sr) if sr.count >= 2 => {
                        for j in 0..sr.count {
                            self.op(
                                Op::VMovB32,
                                [
                                    Operand::Vgpr(RegRange::new(r.first + u16::from(j), 1)),
                                    Operand::Sgpr(RegRange::new(sr.first + u16::from(j), 1)),
                                ],
                            );
                        }
                    }
                    _ => self.op(Op::VMovB32, [Operand::Vgpr(r), o]),
                }
                temps_v.push(r);
                operands[i] = Operand::Vgpr(r);
            } else {
                seen.push(o);
            }
        }
        let mut ins = Instr::new(op, operands);
        if e64 && has_e64(op) {
            ins = ins.e64();
        }
        if neg | abs != 0 {
            ins.mods.neg = neg;
            ins.mods.abs = abs;
        }
        self.emit(ins);
        for r in temps_v {
            self.vgprs.free(r);
        }
        for r in temps_s {
            self.sgprs.free(r);
        }
        Ok(())
    }

    pub(crate) fn valu(&mut self, op: Op, ops: &[Src]) -> Result<()> {
        self.valu_mods(op, ops, 0, 0)
    }
}
