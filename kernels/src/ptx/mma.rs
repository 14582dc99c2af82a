//! Warp-level matrix instructions (`mma.sync`), as [`KernelBuilder`] methods.
//!
//! Fragment layouts are the PTX ISA's ("Matrix Fragments for mma.m8n8k4 with .f64",
//! "... for mma.m16n8k8" .tf32), with `g = %laneid >> 2` and `t = %laneid % 4`:
//! - m8n8k4 f64: A[g][t] (8×4), B[t][g] (4×8), C/D[g][2t + i], i ∈ {0, 1}.
//! - m16n8k8 tf32: A[g][t], A[g+8][t], A[g][t+4], A[g+8][t+4]; B[t][g], B[t+4][g];
//!   C/D[g][2t + i], C/D[g+8][2t + i].
//! - m16n8kK f64 (K = 4, 8, 16; sm_90): per k-quad q < K/4, A[g][t+4q], A[g+8][t+4q] and
//!   B[t+4q][g]; C/D as m16n8k8 (four f64 per lane).

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

impl KernelBuilder {
    /// `mma.sync.aligned.m16n8k{k}.row.col.f64.f64.f64.f64` (k = 4, 8 or 16; compute
    /// capability 9.0): the warp's 16×8 f64 accumulator `d` (four per lane) += A·B in
    /// place; `a` holds `k / 2` and `b` `k / 4` f64 per lane, in the order of the module
    /// doc.
    pub fn mma_m16n8_f64(&mut self, k: u32, d: [Reg; 4], a: &[Reg], b: &[Reg]) {
        debug_assert!(matches!(k, 4 | 8 | 16));
        debug_assert!(a.len() == (k / 2) as usize && b.len() == (k / 4) as usize);
        let list = |r: &[Reg]| {
            r.iter()
                .map(|x| x.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        };
        self.emit(format!(
            "mma.sync.aligned.m16n8k{k}.row.col.f64.f64.f64.f64 {{{}}}, {{{}}}, {{{}}}, {{{}}}",
            list(&d),
            list(a),
            list(b),
            list(&d)
        ));
    }

    /// f32 → tf32 (round to nearest, ties away from zero), as the tf32 `mma` expects.
    pub fn cvt_tf32(&mut self, x: Reg) -> Reg {
        debug_assert_eq!(x.ty(), Ty::F32);
        let r = self.reg(Ty::B32);
        self.emit(format!("cvt.rna.tf32.f32 {r}, {x}"));
        r
    }

    /// `mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32`: the warp's 16×8 f32
    /// accumulator `d` (four per lane) += A·B in place. Lane (g, t) holds A[g][t],
    /// A[g+8][t], A[g][t+4], A[g+8][t+4]; B[t][g], B[t+4][g]; C[g][2t+i], C[g+8][2t+i].
    pub fn mma_m16n8k8_tf32(&mut self, d: [Reg; 4], a: [Reg; 4], b: [Reg; 2]) {
        self.emit(format!(
            "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {{{}, {}, {}, {}}}, {{{}, {}, {}, {}}}, {{{}, {}}}, {{{}, {}, {}, {}}}",
            d[0], d[1], d[2], d[3], a[0], a[1], a[2], a[3], b[0], b[1], d[0], d[1], d[2], d[3]
        ));
    }
}

impl KernelBuilder {
    /// Two 16-bit values packed into one b32 register, `lo` in the low half (the order
    /// of elements in an f16x2/bf16x2 fragment register).
    pub fn pack_b16x2(&mut self, lo: Reg, hi: Reg) -> Reg {
        let r = self.reg(Ty::B32);
        self.emit(format!("mov.b32 {r}, {{{lo}, {hi}}}"));
        r
    }

    /// `mma.sync.aligned.m16n8k16.row.col.f32.{f16,bf16}.{f16,bf16}.f32`: the warp's
    /// 16×8 f32 accumulator `d` += A·B in place. Lane (g, t) holds, two per register,
    /// A[g][2t..2t+2], A[g+8][2t..], A[g][2t+8..], A[g+8][2t+8..]; B[2t..2t+2][g],
    /// B[2t+8..2t+10][g]; C as for m16n8k8.
    pub fn mma_m16n8k16(&mut self, d: [Reg; 4], a: [Reg; 4], b: [Reg; 2], bf16: bool) {
        let t = if bf16 { "bf16" } else { "f16" };
        self.emit(format!(
            "mma.sync.aligned.m16n8k16.row.col.f32.{t}.{t}.f32 {{{}, {}, {}, {}}}, {{{}, {}, {}, {}}}, {{{}, {}}}, {{{}, {}, {}, {}}}",
            d[0], d[1], d[2], d[3], a[0], a[1], a[2], a[3], b[0], b[1], d[0], d[1], d[2], d[3]
        ));
    }
}
