//! The `s_waitcnt` scoreboard: which registers are still being written by an outstanding
//! memory instruction, and which `s_waitcnt` retires them.
//!
//! Loads (global, LDS, scalar) write their destination registers some time after they
//! issue; the counters vmcnt / lgkmcnt (and gfx11's vscnt) count the outstanding ones.
//! Vector memory returns in issue order, so `vmcnt(n)` retires all but the `n` newest;
//! scalar memory returns out of order, so only `lgkmcnt(0)` retires a scalar load when
//! other lgkm operations are outstanding. A read (or overwrite) of a register with an
//! outstanding write is a missing `s_waitcnt`.
//!
//! One scoreboard serves the assembler (a static check over the kernel, merged at
//! control-flow joins) and the emulator (on each wave's dynamic stream).
//!
//! STATUS: interface only; the rules are being filled in (issue 3).

use super::{Counter, Instr, IsaTarget, Op, Operand};

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

/// Outstanding memory operations of one wave.
#[derive(Debug, Clone)]
pub struct Scoreboard {
    target: IsaTarget,
}

impl Scoreboard {
    pub fn new(target: IsaTarget) -> Self {
        Scoreboard { target }
    }

    /// The target whose counters apply.
    pub fn target(&self) -> IsaTarget {
        self.target
    }

    /// Whether `instr` may issue: `Err` names a register it reads or writes that an
    /// outstanding memory instruction still writes.
    pub fn check(&self, _instr: &Instr) -> Result<(), PendingUse> {
        Ok(())
    }

    /// Records that `instr` issued: a memory instruction becomes outstanding, an
    /// `s_waitcnt` retires what it waits for.
    pub fn issue(&mut self, _instr: &Instr) {}

    /// Joins the state reaching a branch target along another path (everything
    /// outstanding on either path stays outstanding).
    pub fn merge(&mut self, _other: &Scoreboard) {}
}
