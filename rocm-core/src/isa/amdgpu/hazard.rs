//! Software-managed hazards: the wait states hardware does not enforce between
//! dependent instructions (MFMA results read too early, VALU-written SGPRs used as memory
//! bases, ...), as LLVM's `GCNHazardRecognizer` knows them for the instructions we use.
//!
//! One tracker serves two users: the kernel assembler asks [`HazardTracker::check`] before
//! each instruction and inserts `s_nop`s for the missing wait states; the emulator asks
//! the same question on the dynamic instruction stream of each wave and reports a
//! violation as a kernel fault. Every issued instruction counts one wait state,
//! `s_nop n` counts `n + 1`.
//!
//! STATUS: interface only; the rules are being filled in (issue 3).

use super::{Instr, IsaTarget};

/// A hazard the next instruction would violate.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hazard {
    /// Wait states still missing before the instruction may issue.
    pub missing: u8,
    /// What the rule is, e.g. "gfx90a: VALU read of an MFMA 32x32 result needs 18 wait
    /// states, 3 elapsed".
    pub reason: String,
}

/// The recent instruction history of one wave, enough to decide every hazard rule.
#[derive(Debug, Clone)]
pub struct HazardTracker {
    target: IsaTarget,
}

impl HazardTracker {
    pub fn new(target: IsaTarget) -> Self {
        HazardTracker { target }
    }

    /// The target whose rules apply.
    pub fn target(&self) -> IsaTarget {
        self.target
    }

    /// Whether `next` may issue now; `Some` names the violated rule and the wait states
    /// still missing.
    pub fn check(&self, _next: &Instr) -> Option<Hazard> {
        None
    }

    /// Records that `instr` issued (an `s_nop n` advances n + 1 wait states).
    pub fn issue(&mut self, _instr: &Instr) {}

    /// Joins the state reaching a branch target along another path: afterwards every
    /// hazard pending on either path is pending here (the assembler's control-flow join).
    pub fn merge(&mut self, _other: &HazardTracker) {}
}
