//! The `s_waitcnt` scoreboard: which registers are still being written by an outstanding
//! memory instruction, and which `s_waitcnt` retires them.
//!
//! Loads (global, LDS, scalar) write their destination registers some time after they
//! issue; the counters vmcnt / lgkmcnt (and gfx11's vscnt) count the outstanding ones.
//! A read (or overwrite) of a register with an outstanding write is a missing `s_waitcnt`.
//!
//! One scoreboard serves the assembler (a static check over the kernel, merged at
//! control-flow joins) and the emulator (on each wave's dynamic stream).
//!
//! # Counters
//!
//! | Family | Counter | Counts | Order |
//! |---|---|---|---|
//! | gfx9 | vmcnt | global loads, stores, atomics | issue order |
//! | gfx11 | vmcnt | global loads, atomics with return | issue order |
//! | gfx11 | vscnt | global stores, atomics without return | issue order |
//! | both | lgkmcnt | LDS (in order) and SMEM (out of order) | mixed |
//!
//! Generic (flat) accesses count where the global ones do (vm, or vs for gfx11 stores)
//! and on lgkmcnt as well, where they complete out of order: an access is done once
//! either counter says so, so `lgkmcnt(0)` retires it too (what LLVM waits for when it
//! knows a flat access reaches only LDS).
//!
//! [`Instr::counter`] classifies an instruction. Stores and atomics without return write no
//! register but still count: on gfx9 a store issued after a load makes `vmcnt(1)` retire
//! the load.
//!
//! # Retirement
//!
//! Every outstanding operation remembers how many operations of its own *ordering class*
//! issued after it (`newer`). The classes are vm, vs, LDS and SMEM.
//!
//! - `vmcnt(n)` / `s_waitcnt_vscnt null, n`: the counter is at most `n`; the class is in
//!   order, so every operation with `newer >= n` has completed.
//! - `lgkmcnt(n)`: LDS operations complete in order among themselves, so an LDS operation
//!   with `n` newer LDS operations has completed whatever the SMEM ones did (were it still
//!   outstanding, so would be its `n` newer LDS operations: more than `n` in all). SMEM
//!   returns out of order: a scalar load is retired only by `lgkmcnt(0)` (LLVM's
//!   `SIInsertWaitcnts` treats a counter with pending SMEM as out of order the same way).
//! - gfx9 `s_waitcnt` packs vmcnt, expcnt and lgkmcnt; a field at its family maximum waits
//!   for nothing. gfx11 also has the separate `s_waitcnt_vmcnt`, `s_waitcnt_lgkmcnt` and
//!   `s_waitcnt_vscnt` (SOPK: a register and a count). Hardware waits for the smaller of
//!   the register's value and the count; only the `null` register form is decided
//!   statically, so with any other register the scoreboard retires nothing (conservative).
//! - `s_endpgm`, branches and barriers retire nothing.
//!
//! # Checks
//!
//! [`Scoreboard::check`] fails when the instruction reads a register (any source slot:
//! VALU sources, store data and address VGPRs, global `saddr`, DS addresses, SMEM bases,
//! plus the implicit EXEC of vector instructions and VCC/EXEC of `s_cbranch_vcc*/exec*`)
//! or writes one (write-after-write) that an outstanding operation still writes. Registers
//! are compared one 32-bit register at a time: SGPRs, VGPRs and AGPRs are three namespaces,
//! and `vcc`, `exec`, `m0` are the SGPR-file aliases they are in the encoding (106/107,
//! 126/127, 124). Write-after-write is flagged, except for a vector-memory load
//! overwriting a register an older vector-memory load still writes: vm loads write back
//! in issue order, so the newer value wins (LLVM's `SIInsertWaitcnts` makes the same
//! exception; LDS and SMEM overwrites do wait, SMEM being out of order). A store's data is read when it issues, so overwriting it
//! afterwards needs no wait (LLVM agrees: no write-after-read waits for VMEM/DS).
//!
//! # Control flow
//!
//! [`Scoreboard::merge`] keeps every operation outstanding on either path; an operation on
//! both keeps the smaller `newer` (it is retired later by `vmcnt(n)`, so that is the
//! conservative position). Merging is idempotent, so the assembler's loop fixpoint ends.

use super::{Counter, Form, Instr, IsaTarget, Op, Operand, Slot, Waitcnt};

/// One 32-bit register: the unit the scoreboard and the hazard tracker compare.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(super) enum RegUnit {
    /// An SGPR-file register by its encoding number (specials: `vcc` 106/107, `m0` 124,
    /// `exec` 126/127).
    S(u16),
    V(u16),
    A(u16),
}

const VCC_LO: u16 = 106;
const VCC_HI: u16 = 107;
const M0: u16 = 124;
const EXEC_LO: u16 = 126;
const FLAT_SCRATCH_LO: u16 = 102;
const EXEC_HI: u16 = 127;

impl RegUnit {
    /// The 32-bit registers an operand covers (none for constants, `scc`, `null`).
    pub(super) fn of(op: &Operand) -> impl Iterator<Item = RegUnit> {
        let (kind, first, count): (fn(u16) -> RegUnit, u16, u16) = match *op {
            Operand::Sgpr(r) => (RegUnit::S, r.first, u16::from(r.count)),
            Operand::Vgpr(r) => (RegUnit::V, r.first, u16::from(r.count)),
            Operand::Agpr(r) => (RegUnit::A, r.first, u16::from(r.count)),
            Operand::Vcc => (RegUnit::S, VCC_LO, 2),
            Operand::VccLo => (RegUnit::S, VCC_LO, 1),
            Operand::VccHi => (RegUnit::S, VCC_HI, 1),
            Operand::Exec => (RegUnit::S, EXEC_LO, 2),
            Operand::ExecLo => (RegUnit::S, EXEC_LO, 1),
            Operand::ExecHi => (RegUnit::S, EXEC_HI, 1),
            Operand::M0 => (RegUnit::S, M0, 1),
            Operand::FlatScratch => (RegUnit::S, FLAT_SCRATCH_LO, 2),
            Operand::FlatScratchLo => (RegUnit::S, FLAT_SCRATCH_LO, 1),
            Operand::FlatScratchHi => (RegUnit::S, FLAT_SCRATCH_LO + 1, 1),
            _ => (RegUnit::S, 0, 0),
        };
        (first..first.saturating_add(count)).map(kind)
    }

    /// The register as an operand (`vcc_lo`, `m0`, ... for the specials).
    pub(super) fn operand(self) -> Operand {
        match self {
            RegUnit::S(VCC_LO) => Operand::VccLo,
            RegUnit::S(VCC_HI) => Operand::VccHi,
            RegUnit::S(M0) => Operand::M0,
            RegUnit::S(FLAT_SCRATCH_LO) => Operand::FlatScratchLo,
            RegUnit::S(n) if n == FLAT_SCRATCH_LO + 1 => Operand::FlatScratchHi,
            RegUnit::S(EXEC_LO) => Operand::ExecLo,
            RegUnit::S(EXEC_HI) => Operand::ExecHi,
            RegUnit::S(n) => super::s(n),
            RegUnit::V(n) => super::v(n),
            RegUnit::A(n) => super::a(n),
        }
    }

    /// `vcc` as the target's lane mask (a pair in wave64, `vcc_lo` in wave32).
    fn vcc(t: IsaTarget) -> Operand {
        if t.mask_sgprs() == 2 {
            Operand::Vcc
        } else {
            Operand::VccLo
        }
    }

    fn exec(t: IsaTarget) -> Operand {
        if t.mask_sgprs() == 2 {
            Operand::Exec
        } else {
            Operand::ExecLo
        }
    }
}

/// Whether a slot's operand is read. Destinations are written, except the register of
/// gfx11's SOPK `s_waitcnt_*` forms, which is a source despite its field name.
fn slot_reads(op: Op, slot: Slot) -> bool {
    !slot.is_def() || is_sopk_wait(op)
}

fn is_sopk_wait(op: Op) -> bool {
    matches!(
        op,
        Op::SWaitcntVmcnt | Op::SWaitcntVscnt | Op::SWaitcntLgkmcnt
    )
}

/// Registers an instruction reads, explicit and implicit.
pub(super) fn reads(instr: &Instr, t: IsaTarget) -> Vec<RegUnit> {
    let info = instr.op.info();
    let mut out: Vec<RegUnit> = info
        .slots
        .iter()
        .zip(&instr.operands)
        .filter(|(s, _)| slot_reads(instr.op, **s))
        .flat_map(|(_, o)| RegUnit::of(o))
        .collect();
    let implicit = match instr.op {
        Op::SCbranchVccz | Op::SCbranchVccnz => Some(RegUnit::vcc(t)),
        Op::SCbranchExecz | Op::SCbranchExecnz | Op::SAndSaveexecB64 | Op::SAndSaveexecB32 => {
            Some(RegUnit::exec(t))
        }
        _ if is_vector(info.form) => Some(RegUnit::exec(t)),
        _ => None,
    };
    out.extend(implicit.iter().flat_map(RegUnit::of));
    out
}

/// Registers an instruction writes, explicit and implicit.
pub(super) fn writes(instr: &Instr, t: IsaTarget) -> Vec<RegUnit> {
    let info = instr.op.info();
    let mut out: Vec<RegUnit> = info
        .slots
        .iter()
        .zip(&instr.operands)
        .filter(|(s, _)| s.is_def() && !is_sopk_wait(instr.op))
        .flat_map(|(_, o)| RegUnit::of(o))
        .collect();
    if matches!(instr.op, Op::SAndSaveexecB64 | Op::SAndSaveexecB32) {
        out.extend(RegUnit::of(&RegUnit::exec(t)));
    }
    out
}

/// Forms that execute per lane under EXEC.
fn is_vector(form: Form) -> bool {
    matches!(
        form,
        Form::Vop1
            | Form::Vop2
            | Form::Vopc
            | Form::Vop3
            | Form::Vop3p
            | Form::Mai
            | Form::Wmma
            | Form::Ds
            | Form::Global
            | Form::Flat
            | Form::Scratch
            | Form::Buffer
    )
}

/// A use of a register whose write by a memory instruction has not been waited for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PendingUse {
    /// The register read or overwritten (one register, e.g. `v5`).
    pub register: Operand,
    /// The counter that must be waited on.
    pub counter: Counter,
    /// The memory instruction still writing it.
    pub by: Op,
}

/// The ordering classes inside the counters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
enum Class {
    Vm,
    Vs,
    Lds,
    Smem,
}

impl Class {
    fn counter(self) -> Counter {
        match self {
            Class::Vm => Counter::Vm,
            Class::Vs => Counter::Vs,
            Class::Lds | Class::Smem => Counter::Lgkm,
        }
    }
}

/// One outstanding memory operation.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Outstanding {
    class: Class,
    by: Op,
    /// Registers it will write.
    dst: Vec<RegUnit>,
    /// Operations of the same class issued after it.
    newer: u32,
    /// A generic (flat) access: it counts on lgkmcnt too, out of order there, so
    /// `lgkmcnt(0)` also retires it.
    flat: bool,
}

impl Outstanding {
    fn same_op(&self, o: &Outstanding) -> bool {
        self.class == o.class && self.by == o.by && self.dst == o.dst
    }
}

/// Outstanding memory operations of one wave.
#[derive(Debug, Clone)]
pub struct Scoreboard {
    target: IsaTarget,
    pending: Vec<Outstanding>,
}

impl Scoreboard {
    pub fn new(target: IsaTarget) -> Self {
        Scoreboard {
            target,
            pending: Vec::new(),
        }
    }

    /// The target whose counters apply.
    pub fn target(&self) -> IsaTarget {
        self.target
    }

    /// How many operations are outstanding on `counter` (what the hardware counter holds
    /// at most).
    pub fn outstanding(&self, counter: Counter) -> usize {
        self.pending
            .iter()
            .filter(|p| p.class.counter() == counter)
            .count()
    }

    /// Whether `instr` may issue: `Err` names a register it reads or writes that an
    /// outstanding memory instruction still writes.
    pub fn check(&self, instr: &Instr) -> Result<(), PendingUse> {
        if self.pending.iter().all(|p| p.dst.is_empty()) {
            return Ok(());
        }
        let t = self.target;
        // A vector-memory load overwriting a register an older vector-memory load still
        // writes needs no wait: they write back in issue order (LLVM's exception too).
        let in_order_vm = self.class_of(instr) == Some(Class::Vm);
        let touched = reads(instr, t)
            .into_iter()
            .map(|r| (r, false))
            .chain(writes(instr, t).into_iter().map(|r| (r, true)));
        for (reg, is_write) in touched {
            // The newest writer is the one to name (its counter position is the one to wait
            // for); all are in `pending`, so take the one with the fewest newer operations.
            if let Some(p) = self
                .pending
                .iter()
                .filter(|p| p.dst.contains(&reg))
                .filter(|p| !(is_write && in_order_vm && p.class == Class::Vm))
                .min_by_key(|p| p.newer)
            {
                return Err(PendingUse {
                    register: reg.operand(),
                    counter: p.class.counter(),
                    by: p.by,
                });
            }
        }
        Ok(())
    }

    /// Records that `instr` issued: a memory instruction becomes outstanding, an
    /// `s_waitcnt` retires what it waits for.
    pub fn issue(&mut self, instr: &Instr) {
        if let Some(class) = self.class_of(instr) {
            for p in self.pending.iter_mut().filter(|p| p.class == class) {
                p.newer = p.newer.saturating_add(1);
            }
            self.pending.push(Outstanding {
                class,
                by: instr.op,
                dst: writes(instr, self.target),
                newer: 0,
                flat: instr.op.info().form == Form::Flat,
            });
            self.saturate(class.counter());
            return;
        }
        for (counter, n) in wait_counts(instr, self.target) {
            self.retire(counter, n);
        }
    }

    /// A hardware counter cannot exceed its field's maximum: issue stalls until the
    /// oldest operation completes, so at most that many stay outstanding (this also
    /// bounds the scoreboard of a wave that never waits).
    fn saturate(&mut self, counter: Counter) {
        let max = Waitcnt::max(self.target.family());
        let limit = usize::from(match counter {
            Counter::Vm | Counter::Vs => max.vm,
            Counter::Lgkm => max.lgkm,
        });
        if self.outstanding(counter) <= limit {
            return;
        }
        self.retire(counter, limit as u32);
        // SMEM completes out of order: which one finished is unknown, so the register
        // stays pending; only the count is bounded, by dropping the oldest.
        while self.outstanding(counter) > limit {
            let oldest = self
                .pending
                .iter()
                .enumerate()
                .filter(|(_, p)| p.class.counter() == counter)
                .max_by_key(|(_, p)| p.newer)
                .map(|(i, _)| i);
            match oldest {
                Some(i) => {
                    self.pending.remove(i);
                }
                None => break,
            }
        }
    }

    /// The ordering class of a memory instruction.
    fn class_of(&self, instr: &Instr) -> Option<Class> {
        let counter = instr.counter(self.target)?;
        Some(match (counter, instr.op.info().form) {
            (Counter::Vm, _) => Class::Vm,
            (Counter::Vs, _) => Class::Vs,
            (Counter::Lgkm, Form::Smem) => Class::Smem,
            (Counter::Lgkm, _) => Class::Lds,
        })
    }

    /// Applies "`counter` is at most `n`".
    fn retire(&mut self, counter: Counter, n: u32) {
        self.pending.retain(|p| {
            let done = match p.class {
                Class::Smem => n == 0,
                _ => p.newer >= n,
            };
            let flat_done = p.flat && counter == Counter::Lgkm && n == 0;
            !(p.class.counter() == counter && done || flat_done)
        });
    }

    /// Joins the state reaching a branch target along another path (everything
    /// outstanding on either path stays outstanding).
    pub fn merge(&mut self, other: &Scoreboard) {
        for o in &other.pending {
            match self.pending.iter_mut().find(|p| p.same_op(o)) {
                Some(p) => p.newer = p.newer.min(o.newer),
                None => self.pending.push(o.clone()),
            }
        }
    }
}

/// The counters an instruction waits for and their bounds (empty for non-waits).
fn wait_counts(instr: &Instr, t: IsaTarget) -> Vec<(Counter, u32)> {
    use super::IsaFamily;
    match (instr.op, instr.operands.as_slice()) {
        (Op::SWaitcnt, [Operand::Waitcnt(w)]) => {
            let max = super::Waitcnt::max(t.family());
            let mut out = Vec::new();
            if w.vm < max.vm {
                out.push((Counter::Vm, u32::from(w.vm)));
            }
            if w.lgkm < max.lgkm {
                out.push((Counter::Lgkm, u32::from(w.lgkm)));
            }
            out
        }
        (op, [Operand::Null, Operand::Imm(n)]) if t.family() == IsaFamily::Gfx11 => {
            let counter = match op {
                Op::SWaitcntVmcnt => Counter::Vm,
                Op::SWaitcntVscnt => Counter::Vs,
                Op::SWaitcntLgkmcnt => Counter::Lgkm,
                _ => return Vec::new(),
            };
            // The count field is 6 bits wide in every counter (the rest is ignored).
            vec![(counter, (*n as u32) & 0x3f)]
        }
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    //! Each test is a short instruction sequence whose outcome follows from the counter
    //! rules of the AMD ISA documents (vmcnt in order, SMEM out of order, gfx11 vscnt),
    //! written out by hand, never recomputed by the scoreboard's own code.
    use super::super::*;
    use super::*;

    const G9: [IsaTarget; 3] = [IsaTarget::Gfx908, IsaTarget::Gfx90a, IsaTarget::Gfx942];
    const G11: [IsaTarget; 4] = [
        IsaTarget::Gfx1100,
        IsaTarget::Gfx1101,
        IsaTarget::Gfx1102,
        IsaTarget::Gfx1151,
    ];

    fn gload(dst: u16, addr: u16) -> Instr {
        Instr::new(Op::GlobalLoadDword, [v(dst), v(addr), sr(4, 2)])
    }
    fn gstore(addr: u16, data: u16) -> Instr {
        Instr::new(Op::GlobalStoreDword, [v(addr), v(data), sr(4, 2)])
    }
    fn ds_read(dst: u16, addr: u16) -> Instr {
        Instr::new(Op::DsReadB32, [v(dst), v(addr)])
    }
    fn s_load(dst: u16) -> Instr {
        Instr::new(Op::SLoadDword, [s(dst), sr(0, 2)])
    }
    fn use_v(x: u16) -> Instr {
        Instr::new(Op::VMovB32, [v(200), v(x)])
    }
    fn use_s(x: u16) -> Instr {
        Instr::new(Op::VMovB32, [v(200), s(x)])
    }
    fn wait(t: IsaTarget, vm: Option<u8>, lgkm: Option<u8>) -> Instr {
        let max = Waitcnt::max(t.family());
        Instr::new(
            Op::SWaitcnt,
            [Operand::Waitcnt(Waitcnt {
                vm: vm.unwrap_or(max.vm),
                exp: max.exp,
                lgkm: lgkm.unwrap_or(max.lgkm),
            })],
        )
    }
    fn vscnt(n: i32) -> Instr {
        Instr::new(Op::SWaitcntVscnt, [Operand::Null, Operand::Imm(n)])
    }
    fn run(t: IsaTarget, seq: &[Instr]) -> Scoreboard {
        let mut sb = Scoreboard::new(t);
        for i in seq {
            sb.issue(i);
        }
        sb
    }
    fn pending(reg: Operand, counter: Counter, by: Op) -> Result<(), PendingUse> {
        Err(PendingUse {
            register: reg,
            counter,
            by,
        })
    }

    #[test]
    fn load_then_use_needs_vmcnt() {
        for t in G9.into_iter().chain(G11) {
            let sb = run(t, &[gload(5, 1)]);
            assert_eq!(
                sb.check(&use_v(5)),
                pending(v(5), Counter::Vm, Op::GlobalLoadDword),
                "{t}"
            );
            assert_eq!(sb.check(&use_v(6)), Ok(()), "{t}");
            // A wait that does not cover vm (lgkmcnt only) retires nothing.
            let sb = run(t, &[gload(5, 1), wait(t, None, Some(0))]);
            assert!(sb.check(&use_v(5)).is_err(), "{t}");
            let sb = run(t, &[gload(5, 1), wait(t, Some(0), None)]);
            assert_eq!(sb.check(&use_v(5)), Ok(()), "{t}");
        }
    }

    #[test]
    fn vmcnt_retires_in_issue_order() {
        for t in G9.into_iter().chain(G11) {
            // Loads into v10, v11, v12, v13; vmcnt(n) leaves the n newest outstanding.
            let loads: Vec<Instr> = (0..4).map(|i| gload(10 + i, 1)).collect();
            for n in 0..=4u8 {
                let mut seq = loads.clone();
                seq.push(wait(t, Some(n), None));
                let sb = run(t, &seq);
                for i in 0..4u16 {
                    let retired = i + u16::from(n) < 4;
                    assert_eq!(sb.check(&use_v(10 + i)).is_ok(), retired, "{t} n={n} i={i}");
                }
                assert_eq!(sb.outstanding(Counter::Vm), usize::from(n), "{t} n={n}");
            }
        }
    }

    #[test]
    fn gfx9_stores_count_toward_vmcnt() {
        for t in G9 {
            // Load then store: the store is the newest, so vmcnt(1) retires the load.
            let sb = run(t, &[gload(5, 1), gstore(2, 3), wait(t, Some(1), None)]);
            assert_eq!(sb.check(&use_v(5)), Ok(()), "{t}");
            // Store then load: the load is the newest, vmcnt(1) leaves it outstanding.
            let sb = run(t, &[gstore(2, 3), gload(5, 1), wait(t, Some(1), None)]);
            assert!(sb.check(&use_v(5)).is_err(), "{t}");
            // Atomics without return count as well.
            let atomic = Instr::new(Op::GlobalAtomicAdd, [v(2), v(3), sr(4, 2)]);
            let sb = run(t, &[gload(5, 1), atomic, wait(t, Some(1), None)]);
            assert_eq!(sb.check(&use_v(5)), Ok(()), "{t}");
        }
    }

    #[test]
    fn gfx11_stores_count_toward_vscnt() {
        for t in G11 {
            // The store is on vscnt: vmcnt(1) after load, store leaves the load pending.
            let sb = run(t, &[gload(5, 1), gstore(2, 3), wait(t, Some(1), None)]);
            assert!(sb.check(&use_v(5)).is_err(), "{t}");
            assert_eq!(sb.outstanding(Counter::Vs), 1, "{t}");
            // vscnt does not retire loads, vmcnt(0) does.
            let sb = run(t, &[gload(5, 1), gstore(2, 3), vscnt(0)]);
            assert!(sb.check(&use_v(5)).is_err(), "{t}");
            assert_eq!(sb.outstanding(Counter::Vs), 0, "{t}");
            let sb = run(t, &[gload(5, 1), gstore(2, 3), wait(t, Some(0), None)]);
            assert_eq!(sb.check(&use_v(5)), Ok(()), "{t}");
            assert_eq!(sb.outstanding(Counter::Vs), 1, "{t}");
            // An atomic with return is a vm operation that writes its destination.
            let rtn =
                Instr::new(Op::GlobalAtomicAddRtn, [v(7), v(2), v(3), sr(4, 2)]).cache(Cache::GLC);
            let sb = run(t, &[rtn.clone(), vscnt(0)]);
            assert_eq!(
                sb.check(&use_v(7)),
                pending(v(7), Counter::Vm, Op::GlobalAtomicAddRtn),
                "{t}"
            );
            // The separate vmcnt form.
            let vm0 = Instr::new(Op::SWaitcntVmcnt, [Operand::Null, Operand::Imm(0)]);
            assert_eq!(run(t, &[rtn, vm0]).check(&use_v(7)), Ok(()), "{t}");
            // An SGPR count operand is unknown statically: nothing retires.
            let by_reg = Instr::new(Op::SWaitcntVmcnt, [s(3), Operand::Imm(0)]);
            assert!(run(t, &[gload(5, 1), by_reg]).check(&use_v(5)).is_err());
        }
    }

    #[test]
    fn smem_retires_only_at_lgkmcnt0() {
        for t in G9.into_iter().chain(G11) {
            let seq = [s_load(8), s_load(9), s_load(10)];
            for n in 1..=2u8 {
                let mut s2 = seq.to_vec();
                s2.push(wait(t, None, Some(n)));
                let sb = run(t, &s2);
                for r in 8..=10 {
                    assert_eq!(
                        sb.check(&use_s(r)),
                        pending(s(r), Counter::Lgkm, Op::SLoadDword),
                        "{t} n={n} s{r}"
                    );
                }
            }
            let mut s0 = seq.to_vec();
            s0.push(wait(t, None, Some(0)));
            let sb = run(t, &s0);
            assert!((8..=10).all(|r| sb.check(&use_s(r)).is_ok()), "{t}");
            // The SMEM base is a read too.
            let sb = run(t, &[Instr::new(Op::SLoadDwordx2, [sr(0, 2), sr(0, 2)])]);
            assert_eq!(
                sb.check(&s_load(3)),
                pending(s(0), Counter::Lgkm, Op::SLoadDwordx2),
                "{t}"
            );
        }
    }

    #[test]
    fn lds_retires_in_order_even_with_smem_pending() {
        for t in G9.into_iter().chain(G11) {
            let sb = run(
                t,
                &[
                    ds_read(20, 1),
                    s_load(8),
                    ds_read(21, 1),
                    ds_read(22, 1),
                    wait(t, None, Some(1)),
                ],
            );
            // Two LDS reads are newer than v20's and one than v21's.
            assert_eq!(sb.check(&use_v(20)), Ok(()), "{t}");
            assert_eq!(sb.check(&use_v(21)), Ok(()), "{t}");
            assert!(sb.check(&use_v(22)).is_err(), "{t}");
            assert!(sb.check(&use_s(8)).is_err(), "{t}");
            assert_eq!(sb.outstanding(Counter::Lgkm), 2, "{t}");
        }
    }

    #[test]
    fn every_read_slot_is_checked() {
        let t = IsaTarget::Gfx90a;
        let sb = run(t, &[gload(5, 1), s_load(4)]);
        // Store data, store address, DS address, global saddr, VALU src, v_cndmask mask.
        assert!(sb.check(&gstore(2, 5)).is_err());
        assert!(sb.check(&gstore(5, 2)).is_err());
        assert!(sb.check(&ds_read(30, 5)).is_err());
        assert!(sb.check(&Instr::new(Op::DsWriteB32, [v(1), v(5)])).is_err());
        assert_eq!(
            sb.check(&gload(30, 2)),
            pending(s(4), Counter::Lgkm, Op::SLoadDword)
        );
        let sb = run(t, &[Instr::new(Op::SLoadDwordx2, [Operand::Vcc, sr(0, 2)])]);
        let cnd = Instr::new(Op::VCndmaskB32, [v(1), v(2), v(3), Operand::Vcc]);
        assert_eq!(
            sb.check(&cnd),
            pending(Operand::VccLo, Counter::Lgkm, Op::SLoadDwordx2)
        );
        // Implicit VCC of s_cbranch_vccz, implicit EXEC of every vector instruction.
        let br = Instr::new(Op::SCbranchVccz, [Operand::Imm(2)]);
        assert!(sb.check(&br).is_err());
        let sb = run(
            t,
            &[Instr::new(Op::SLoadDwordx2, [Operand::Exec, sr(0, 2)])],
        );
        assert_eq!(
            sb.check(&use_v(1)),
            pending(Operand::ExecLo, Counter::Lgkm, Op::SLoadDwordx2)
        );
        // AGPRs and VGPRs are different registers.
        let sb = run(
            t,
            &[Instr::new(Op::GlobalLoadDword, [a(5), v(1), sr(4, 2)])],
        );
        assert_eq!(sb.check(&use_v(5)), Ok(()));
        let rd = Instr::new(Op::VAccvgprReadB32, [v(0), a(5)]);
        assert_eq!(
            sb.check(&rd),
            pending(a(5), Counter::Vm, Op::GlobalLoadDword)
        );
    }

    #[test]
    fn multi_register_destinations_name_one_register() {
        let t = IsaTarget::Gfx942;
        let sb = run(
            t,
            &[Instr::new(
                Op::GlobalLoadDwordx4,
                [vr(8, 4), v(1), sr(4, 2)],
            )],
        );
        // A 64-bit read overlapping the last two registers of the load.
        let rd = Instr::new(Op::VAddF64, [vr(20, 2), vr(10, 2), vr(30, 2)]);
        assert_eq!(
            sb.check(&rd),
            pending(v(10), Counter::Vm, Op::GlobalLoadDwordx4)
        );
        assert_eq!(sb.check(&use_v(12)), Ok(()));
        assert_eq!(sb.check(&use_v(7)), Ok(()));
    }

    #[test]
    fn write_after_write_is_flagged() {
        for t in G9.into_iter().chain(G11) {
            let sb = run(t, &[gload(5, 1)]);
            let over = Instr::new(Op::VMovB32, [v(5), Operand::Int(3)]);
            assert_eq!(
                sb.check(&over),
                pending(v(5), Counter::Vm, Op::GlobalLoadDword),
                "{t}"
            );
            let sb = run(t, &[s_load(9)]);
            let over = Instr::new(Op::SMovB32, [s(9), Operand::Int(1)]);
            assert!(sb.check(&over).is_err(), "{t}");
            // A newer vm load may overwrite it (in-order write-back); an LDS load may not.
            assert_eq!(run(t, &[gload(5, 1)]).check(&gload(5, 2)), Ok(()), "{t}");
            assert!(run(t, &[gload(5, 1)]).check(&ds_read(5, 2)).is_err(), "{t}");
            assert!(
                run(t, &[ds_read(5, 1)]).check(&ds_read(5, 2)).is_err(),
                "{t}"
            );
            // A store's data may be overwritten right away (read at issue).
            let sb = run(t, &[gstore(2, 3)]);
            let over = Instr::new(Op::VMovB32, [v(3), Operand::Int(1)]);
            assert_eq!(sb.check(&over), Ok(()), "{t}");
        }
    }

    #[test]
    fn counters_saturate_at_their_field_maximum() {
        // vmcnt is 6 bits: a 64th outstanding load stalls issue until the oldest returns.
        for t in [IsaTarget::Gfx90a, IsaTarget::Gfx1100] {
            let mut sb = Scoreboard::new(t);
            for i in 0..70u16 {
                sb.issue(&gload(100 + i, 1));
            }
            assert_eq!(sb.outstanding(Counter::Vm), 63, "{t}");
            assert_eq!(sb.check(&use_v(106)), Ok(()), "{t}");
            assert!(sb.check(&use_v(107)).is_err(), "{t}");
        }
        // gfx9 lgkmcnt is 4 bits.
        let t = IsaTarget::Gfx908;
        let mut sb = Scoreboard::new(t);
        for i in 0..20u16 {
            sb.issue(&ds_read(100 + i, 1));
        }
        assert_eq!(sb.outstanding(Counter::Lgkm), 15);
        assert_eq!(sb.check(&use_v(104)), Ok(()));
        assert!(sb.check(&use_v(105)).is_err());
    }

    #[test]
    fn branches_and_endpgm_retire_nothing() {
        let t = IsaTarget::Gfx90a;
        let seq = [
            gload(5, 1),
            Instr::new(Op::SBranch, [Operand::Imm(1)]),
            Instr::new(Op::SBarrier, []),
            Instr::new(Op::SEndpgm, []),
        ];
        assert!(run(t, &seq).check(&use_v(5)).is_err());
    }

    #[test]
    fn merge_keeps_everything_and_the_newer_position() {
        let t = IsaTarget::Gfx90a;
        // Path A: load v5 then two more loads (v5 has 2 newer). Path B: load v5 only.
        let a = run(t, &[gload(5, 1), gload(6, 1), gload(7, 1)]);
        let b = run(t, &[gload(5, 1), s_load(12)]);
        let mut m = a.clone();
        m.merge(&b);
        // vmcnt(1) would retire v5 on path A but not on B: it stays pending.
        let mut after = m.clone();
        after.issue(&wait(t, Some(1), None));
        assert!(after.check(&use_v(5)).is_err());
        assert!(after.check(&use_v(6)).is_ok());
        assert!(after.check(&use_s(12)).is_err());
        let mut after = m.clone();
        after.issue(&wait(t, Some(0), Some(0)));
        assert!([5, 6, 7].iter().all(|&r| after.check(&use_v(r)).is_ok()));
        assert!(after.check(&use_s(12)).is_ok());
        // Idempotent and commutative on what is pending.
        let mut twice = m.clone();
        twice.merge(&m);
        assert_eq!(twice.pending, m.pending);
        let mut ba = b.clone();
        ba.merge(&a);
        let mut x = ba.pending.clone();
        let mut y = m.pending.clone();
        x.sort_by_key(|p| (p.class, p.by, p.dst.clone(), p.newer));
        y.sort_by_key(|p| (p.class, p.by, p.dst.clone(), p.newer));
        assert_eq!(x, y);
    }

    #[test]
    fn random_in_order_streams_match_a_queue_model() {
        // A reference model independent of `newer`: a FIFO of vm loads per family, where
        // vmcnt(n) pops from the front until n remain. Random loads, stores and waits.
        let mut rng = 0x2545_f491_4f6c_dd1du64;
        let mut next = |m: u64| {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            rng % m
        };
        for t in [IsaTarget::Gfx90a, IsaTarget::Gfx1100] {
            for _ in 0..200 {
                let mut sb = Scoreboard::new(t);
                let mut fifo: Vec<Option<u16>> = Vec::new(); // Some(dst) load, None store
                for _ in 0..30 {
                    match next(3) {
                        0 => {
                            let d = 10 + next(8) as u16;
                            sb.issue(&gload(d, 1));
                            fifo.push(Some(d));
                        }
                        1 => {
                            sb.issue(&gstore(1, 2));
                            if t.family() == IsaFamily::Gfx9 {
                                fifo.push(None);
                            }
                        }
                        _ => {
                            let n = next(4) as u8;
                            sb.issue(&wait(t, Some(n), None));
                            let keep = usize::from(n).min(fifo.len());
                            fifo.drain(..fifo.len() - keep);
                        }
                    }
                    for d in 10..18u16 {
                        let want = !fifo.contains(&Some(d));
                        assert_eq!(sb.check(&use_v(d)).is_ok(), want, "{t} v{d} {fifo:?}");
                    }
                }
            }
        }
    }

    /// Random streams of global/LDS/scalar loads, stores and uses with the waits LLVM 19's
    /// `SIInsertWaitcnts` put in (`+`): `llc-19 -mtriple=amdgcn-amd-amdhsa -mcpu=<cpu>
    /// -run-pass=si-insert-waitcnts -verify-machineinstrs=0` on the MIR of the stream
    /// (`tracksRegLiveness: false`); `w<imm>` is the raw `s_waitcnt` immediate. Kept: the
    /// 25 streams per target with the most waits out of 1000 generated (all passed).
    const LLVM_STREAMS: &str = include_str!("testdata/waitcnt_llvm_streams.txt");

    fn parse(t: IsaTarget, text: &str) -> Instr {
        let mut toks = text.split_whitespace();
        let name = toks.next().unwrap_or_default();
        let op = Op::all()
            .find(|o| format!("{o:?}") == name)
            .unwrap_or_else(|| panic!("unknown op {name}"));
        let operands: Vec<Operand> = toks
            .map(|tok| {
                if tok == "null" {
                    return Operand::Null;
                }
                if let Some(raw) = tok.strip_prefix('w') {
                    let w = Waitcnt::decode(raw.parse().unwrap(), t.family()).unwrap();
                    return Operand::Waitcnt(w);
                }
                if let Ok(n) = tok.parse::<i32>() {
                    return Operand::Imm(n);
                }
                let (kind, rest) = tok.split_at(1);
                let (first, count) = match rest.split_once('+') {
                    Some((f, n)) => (f.parse().unwrap(), n.parse().unwrap()),
                    None => (rest.parse().unwrap(), 1),
                };
                match kind {
                    "v" => vr(first, count),
                    "s" => sr(first, count),
                    _ => panic!("bad operand {tok}"),
                }
            })
            .collect();
        Instr::new(op, operands)
    }

    #[test]
    fn llvm_waits_suffice_and_are_needed() {
        let mut checked = 0;
        for line in LLVM_STREAMS.lines().filter(|l| !l.trim().is_empty()) {
            let (t, body) = line.split_once(" | ").unwrap();
            let t = *IsaTarget::ALL.iter().find(|x| x.name() == t).unwrap();
            let mut sb = Scoreboard::new(t);
            // The state before LLVM's waits in front of the current instruction.
            let mut before_waits = sb.clone();
            let mut waited = false;
            for item in body.split(" ; ") {
                if let Some(w) = item.strip_prefix('+') {
                    sb.issue(&parse(t, w));
                    waited = true;
                    continue;
                }
                let instr = parse(t, item);
                // Sufficient: with LLVM's waits the instruction may issue.
                assert_eq!(sb.check(&instr), Ok(()), "{line}\nat {item}");
                // Needed: without them it may not.
                if waited {
                    assert!(
                        before_waits.check(&instr).is_err(),
                        "{line}\nat {item}: wait not needed"
                    );
                }
                sb.issue(&instr);
                before_waits = sb.clone();
                waited = false;
                checked += 1;
            }
        }
        assert!(checked > 300, "{checked}");
    }
}
