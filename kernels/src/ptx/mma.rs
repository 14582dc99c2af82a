//! Warp-level matrix instructions (`mma.sync`), as [`KernelBuilder`] methods.
//!
//! Fragment layouts are the PTX ISA's ("Matrix Fragments for mma.m8n8k4 with .f64"):
//! with `g = %laneid >> 2` and `t = %laneid % 4`, a lane holds A[g][t] (8×4, row-major
//! operand), B[t][g] (4×8, column-major operand) and C/D[g][2t + i], i ∈ {0, 1}.

use super::{KernelBuilder, Reg, Ty};

impl KernelBuilder {
    /// `mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64`: the warp's 8×8 accumulator
    /// `d` (two f64 per lane) += A·B, in place (sm_80+, DMMA).
    pub fn mma_m8n8k4_f64(&mut self, d: [Reg; 2], a: Reg, b: Reg) {
        debug_assert!([d[0], d[1], a, b].iter().all(|r| r.ty() == Ty::F64));
        self.emit(format!(
            "mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {{{}, {}}}, {{{a}}}, {{{b}}}, {{{}, {}}}",
            d[0], d[1], d[0], d[1]
        ));
    }
}
