//! MFMA (gfx9) and WMMA (gfx11) shapes and lane layouts: which register, lane and bits
//! of a wave's operand tuples hold element (i, k) of A, (k, j) of B and (i, j) of C/D.
//!
//! The layouts are AMD's matrix instruction calculator's (ROCm/amd_matrix_instruction_
//! calculator, `matrix_calculator.py -a <arch> -i <inst> -R`; ../shared/reference/amdgpu.md
//! §4). Kernel generators use them to place data; the emulator uses them to execute.
//! Every layout of every instruction here was compared element by element with the
//! calculator's `--register-layout` tables (the ignored test `calculator_dump_agrees` in
//! this file re-runs that comparison from a dump); the unit tests keep an independent
//! spot-check table taken from the calculator's output.
//!
//! ```
//! use rocm_core::isa::amdgpu::matrix::*;
//! use rocm_core::isa::amdgpu::{IsaTarget, Op};
//! // gfx90a v_mfma_f32_32x32x8f16: A[5][6] is in the low half of v[1] at lane 37.
//! let a = a_location(Op::VMfmaF32_32x32x8F16, IsaTarget::Gfx90a, 5, 6);
//! assert_eq!(a, Some(Location { reg: 1, lane: 37, bit: 0, width: 16 }));
//! // gfx1100 WMMA: A[3][5] sits in lanes 3 and 19, bits [31:16] of v[2].
//! let lanes: Vec<u16> = a_locations(Op::VWmmaF32_16x16x16F16, IsaTarget::Gfx1100, 3, 5)
//!     .map(|l| l.lane)
//!     .collect();
//! assert_eq!(lanes, [3, 19]);
//! ```
//!
//! # Rules
//!
//! Notation: A is M×K, B is K×N, C/D are M×N; `w` is the input element width in bits
//! (32 f32/xf32, 64 f64, 16 f16/bf16, 8 i8/iu8/fp8, 4 iu4); each lane holds `kl` consecutive
//! K values of one row of A (column of B), packed from bit 0 of register 0 upwards:
//! `kl = a_regs * 32 / w`.
//!
//! | Operand | Register, bits | Lane |
//! |---|---|---|
//! | MFMA A\[i\]\[k\] | bit offset `w * (k % kl)`: register `/ 32`, bit `% 32` | `M * (k / kl) + i` |
//! | MFMA B\[k\]\[j\] | same with j | `N * (k / kl) + j` |
//! | MFMA C/D 32x32 (f32, i32) | `4 * (i / 8) + i % 4` | `32 * ((i / 4) % 2) + j` |
//! | MFMA C/D 16x16 (f32, i32) | `i % 4` | `16 * (i / 4) + j` |
//! | MFMA C/D 16x16 f64 | pair `2 * (i / 4)` | `16 * (i % 4) + j` |
//! | WMMA A\[i\]\[k\] (wave32) | bit offset `w * k` | `i` **and** `i + 16` |
//! | WMMA B\[k\]\[j\] | same with j | `j` and `j + 16` |
//! | WMMA C/D f32, i32 | `i / 2` | `16 * (i % 2) + j` |
//! | WMMA C/D f16, bf16 | `i / 2`, bits \[15:0\] (OP_SEL\[2\]: \[31:16\]) | `16 * (i % 2) + j` |
//!
//! A 64-bit element (f64) has `width == 64`: it fills registers `reg` and `reg + 1`
//! (low dword first).
//!
//! **WMMA replication**: on gfx11 every A row (B column) sits in two lanes, `i` and
//! `i + 16`, and hardware expects both half-waves to hold the same data. [`a_location`]
//! and [`b_location`] return the primary copy (lane < 16); [`a_locations`] and
//! [`b_locations`] list every copy, primary first.
//!
//! All shapes here have one block; CBSZ/ABID/BLGP (block broadcast and lane-group
//! swizzles) are not part of the layouts: callers use the zero defaults.
//!
//! gfx908's `v_mfma_f32_32x32x4bf16` / `16x16x8bf16` (also on gfx90a) are the old bf16
//! forms: one register of two bf16 per lane (K = 4 / 8, 1 block), where the `_1k` forms
//! (gfx90a; gfx942 spells them `_bf16`) have two registers (K = 8 / 16), like f16.

use super::{Form, IsaTarget, Op, NA};

/// Element type of a matrix operand.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MatrixType {
    F32,
    /// f32 inputs read at reduced precision (gfx942 `_xf32`; the emulator rounds them to
    /// 10 explicit mantissa bits, to nearest even: our assumption, see `emu::matrix`).
    Xf32,
    F64,
    F16,
    Bf16,
    I8,
    /// WMMA `iu8`: 8-bit integers, signedness chosen by the NEG bits.
    Iu8,
    Iu4,
    /// gfx942 fp8 (E4M3, the "FNUZ" variant: bias 8, 0x80 is NaN, no infinities).
    Fp8,
    I32,
}

impl MatrixType {
    /// Bits one element occupies in a register tuple.
    pub fn bits(self) -> u8 {
        match self {
            MatrixType::F64 => 64,
            MatrixType::F32 | MatrixType::Xf32 | MatrixType::I32 => 32,
            MatrixType::F16 | MatrixType::Bf16 => 16,
            MatrixType::I8 | MatrixType::Iu8 | MatrixType::Fp8 => 8,
            MatrixType::Iu4 => 4,
        }
    }
}

/// The shape of one matrix instruction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MatrixShape {
    pub m: u32,
    pub n: u32,
    pub k: u32,
    /// Independent blocks computed side by side (1 for the shapes we use).
    pub blocks: u32,
    /// Registers per lane of A, B and C/D.
    pub a_regs: u8,
    pub b_regs: u8,
    pub cd_regs: u8,
    /// Lanes in the wave the layout is for (64 MFMA, 32 WMMA as our kernels use it).
    pub lanes: u32,
    pub input: MatrixType,
    pub output: MatrixType,
}

/// Where one element lives: register `reg` of the operand's tuple (0-based), lane `lane`,
/// bits `bit .. bit + width`. A 64-bit element (`width == 64`, f64) fills registers `reg`
/// (low dword) and `reg + 1` of that lane.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Location {
    pub reg: u16,
    pub lane: u16,
    pub bit: u8,
    pub width: u8,
}

/// Which operand of a matrix instruction.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MatrixOperand {
    A,
    B,
    /// C and D share their layout.
    Cd,
}

/// How C/D are laid out (the A/B rule is one formula for all MFMAs and one for WMMA).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum CdLayout {
    /// MFMA 32x32: groups of 4 rows, alternating between the lane halves.
    Mfma32,
    /// MFMA 16x16 with 32-bit results: 4 rows per lane.
    Mfma16,
    /// MFMA 16x16 f64: register pairs, rows interleaved across lane groups.
    Mfma16F64,
    /// gfx11 wave32 WMMA: two rows per register (one per half-wave).
    Wmma,
}

/// One table row: an instruction's dimensions and types. Availability per target is the
/// opcode table's ([`super::OPS`]).
struct Row {
    op: Op,
    m: u32,
    n: u32,
    k: u32,
    input: MatrixType,
    output: MatrixType,
    ab_regs: u8,
    cd_regs: u8,
    cd: CdLayout,
}

const fn row(
    op: Op,
    (m, n, k): (u32, u32, u32),
    input: MatrixType,
    output: MatrixType,
    ab_regs: u8,
    cd_regs: u8,
    cd: CdLayout,
) -> Row {
    Row {
        op,
        m,
        n,
        k,
        input,
        output,
        ab_regs,
        cd_regs,
        cd,
    }
}

use CdLayout::*;
use MatrixType::*;

/// Every matrix instruction of the model (checked against the calculator's
/// `--detail-instruction` register counts and dimensions).
const ROWS: &[Row] = &[
    row(
        Op::VMfmaF32_32x32x2F32,
        (32, 32, 2),
        F32,
        F32,
        1,
        16,
        Mfma32,
    ),
    row(Op::VMfmaF32_16x16x4F32, (16, 16, 4), F32, F32, 1, 4, Mfma16),
    row(
        Op::VMfmaF32_32x32x8F16,
        (32, 32, 8),
        F16,
        F32,
        2,
        16,
        Mfma32,
    ),
    row(
        Op::VMfmaF32_16x16x16F16,
        (16, 16, 16),
        F16,
        F32,
        2,
        4,
        Mfma16,
    ),
    row(
        Op::VMfmaF32_32x32x4Bf16,
        (32, 32, 4),
        Bf16,
        F32,
        1,
        16,
        Mfma32,
    ),
    row(
        Op::VMfmaF32_16x16x8Bf16,
        (16, 16, 8),
        Bf16,
        F32,
        1,
        4,
        Mfma16,
    ),
    row(
        Op::VMfmaF32_32x32x8Bf16_1k,
        (32, 32, 8),
        Bf16,
        F32,
        2,
        16,
        Mfma32,
    ),
    row(
        Op::VMfmaF32_16x16x16Bf16_1k,
        (16, 16, 16),
        Bf16,
        F32,
        2,
        4,
        Mfma16,
    ),
    row(
        Op::VMfmaF64_16x16x4F64,
        (16, 16, 4),
        F64,
        F64,
        2,
        8,
        Mfma16F64,
    ),
    row(Op::VMfmaI32_32x32x8I8, (32, 32, 8), I8, I32, 1, 16, Mfma32),
    row(Op::VMfmaI32_16x16x16I8, (16, 16, 16), I8, I32, 1, 4, Mfma16),
    row(
        Op::VMfmaI32_32x32x16I8,
        (32, 32, 16),
        I8,
        I32,
        2,
        16,
        Mfma32,
    ),
    row(Op::VMfmaI32_16x16x32I8, (16, 16, 32), I8, I32, 2, 4, Mfma16),
    row(
        Op::VMfmaF32_32x32x4Xf32,
        (32, 32, 4),
        Xf32,
        F32,
        2,
        16,
        Mfma32,
    ),
    row(
        Op::VMfmaF32_16x16x8Xf32,
        (16, 16, 8),
        Xf32,
        F32,
        2,
        4,
        Mfma16,
    ),
    row(
        Op::VMfmaF32_32x32x16Fp8Fp8,
        (32, 32, 16),
        Fp8,
        F32,
        2,
        16,
        Mfma32,
    ),
    row(
        Op::VMfmaF32_16x16x32Fp8Fp8,
        (16, 16, 32),
        Fp8,
        F32,
        2,
        4,
        Mfma16,
    ),
    row(Op::VWmmaF32_16x16x16F16, (16, 16, 16), F16, F32, 8, 8, Wmma),
    row(
        Op::VWmmaF32_16x16x16Bf16,
        (16, 16, 16),
        Bf16,
        F32,
        8,
        8,
        Wmma,
    ),
    row(Op::VWmmaF16_16x16x16F16, (16, 16, 16), F16, F16, 8, 8, Wmma),
    row(
        Op::VWmmaBf16_16x16x16Bf16,
        (16, 16, 16),
        Bf16,
        Bf16,
        8,
        8,
        Wmma,
    ),
    row(Op::VWmmaI32_16x16x16Iu8, (16, 16, 16), Iu8, I32, 4, 8, Wmma),
    row(Op::VWmmaI32_16x16x16Iu4, (16, 16, 16), Iu4, I32, 2, 8, Wmma),
];

/// The table row of `op` if it is a matrix instruction that exists on `target`.
fn lookup(op: Op, target: IsaTarget) -> Option<&'static Row> {
    let info = op.info();
    if !matches!(info.form, Form::Mai | Form::Wmma) || info.opcode[target.column()] == NA {
        return None;
    }
    ROWS.iter().find(|r| r.op == op)
}

/// Every matrix instruction of the model (on some target).
pub fn matrix_ops() -> impl Iterator<Item = Op> {
    ROWS.iter().map(|r| r.op)
}

/// The layout of one matrix instruction on one target, looked up once: what the
/// emulator and kernel generators hold on to instead of calling the free functions (which
/// look the instruction up on every call).
#[derive(Clone, Copy)]
pub struct MatrixLayout {
    row: &'static Row,
    target: IsaTarget,
}

impl std::fmt::Debug for MatrixLayout {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "MatrixLayout({:?} on {})", self.row.op, self.target)
    }
}

impl MatrixLayout {
    /// The layout of `op` on `target`; `None` for other instructions or where the target
    /// lacks it.
    pub fn new(op: Op, target: IsaTarget) -> Option<MatrixLayout> {
        lookup(op, target).map(|row| MatrixLayout { row, target })
    }

    pub fn op(&self) -> Op {
        self.row.op
    }

    /// Whether this is a gfx11 WMMA (A/B replicated in both half-waves).
    pub fn is_wmma(&self) -> bool {
        self.row.cd == Wmma
    }

    pub fn shape(&self) -> MatrixShape {
        let r = self.row;
        MatrixShape {
            m: r.m,
            n: r.n,
            k: r.k,
            blocks: 1,
            a_regs: r.ab_regs,
            b_regs: r.ab_regs,
            cd_regs: r.cd_regs,
            lanes: self.target.wave_size(),
            input: r.input,
            output: r.output,
        }
    }

    /// Location of the `k`-th K value of row/column `rc` of A or B (`dim` = M or N).
    fn input(&self, rc: u32, k: u32, dim: u32) -> Option<Location> {
        let r = self.row;
        if rc >= dim || k >= r.k {
            return None;
        }
        let w = u32::from(r.input.bits());
        let per_lane = u32::from(r.ab_regs) * 32 / w;
        let offset = w * (k % per_lane);
        // WMMA lanes hold all of K (per_lane == K): the group is 0, the lane the primary
        // copy.
        let lane = dim * (k / per_lane) + rc;
        Some(Location {
            reg: (offset / 32) as u16,
            lane: lane as u16,
            bit: (offset % 32) as u8,
            width: w as u8,
        })
    }

    /// A\[i\]\[k\] (primary copy on WMMA); see [`a_location`].
    pub fn a(&self, i: u32, k: u32) -> Option<Location> {
        self.input(i, k, self.row.m)
    }

    /// B\[k\]\[j\] (primary copy on WMMA); see [`b_location`].
    pub fn b(&self, k: u32, j: u32) -> Option<Location> {
        self.input(j, k, self.row.n)
    }

    /// C/D\[i\]\[j\] with OP_SEL `op_sel` (bit 2 moves 16-bit WMMA results to bits \[31:16\]).
    pub fn cd(&self, i: u32, j: u32, op_sel: u8) -> Option<Location> {
        let r = self.row;
        if i >= r.m || j >= r.n {
            return None;
        }
        let (reg, lane) = match r.cd {
            Mfma32 => (4 * (i / 8) + i % 4, 32 * ((i / 4) % 2) + j),
            Mfma16 => (i % 4, 16 * (i / 4) + j),
            Mfma16F64 => (2 * (i / 4), 16 * (i % 4) + j),
            Wmma => (i / 2, 16 * (i % 2) + j),
        };
        let width = r.output.bits();
        let bit = if width == 16 && op_sel & 4 != 0 {
            16
        } else {
            0
        };
        Some(Location {
            reg: reg as u16,
            lane: lane as u16,
            bit,
            width,
        })
    }

    /// Every (row, col, location) of one operand, copies included, row-major (A: (i, k),
    /// B: (k, j), C/D: (i, j) with OP_SEL `op_sel`): what a kernel generator walks to lay
    /// a matrix out in memory the way its lanes will load it.
    pub fn entries(
        &self,
        which: MatrixOperand,
        op_sel: u8,
    ) -> impl Iterator<Item = (u32, u32, Location)> + '_ {
        let r = self.row;
        let (rows, cols) = match which {
            MatrixOperand::A => (r.m, r.k),
            MatrixOperand::B => (r.k, r.n),
            MatrixOperand::Cd => (r.m, r.n),
        };
        let copies = match which {
            MatrixOperand::Cd => 0,
            _ => self.replicas(),
        };
        (0..rows * cols).flat_map(move |e| {
            let (row, col) = (e / cols, e % cols);
            let first = match which {
                MatrixOperand::A => self.a(row, col),
                MatrixOperand::B => self.b(row, col),
                MatrixOperand::Cd => self.cd(row, col, op_sel),
            };
            first.into_iter().flat_map(move |loc| {
                (0..=copies).map(move |c| {
                    let lane = loc.lane + 16 * c;
                    (row, col, Location { lane, ..loc })
                })
            })
        })
    }

    /// Copies of one input element beyond the primary one: 1 on WMMA (lane + 16), else 0.
    pub fn replicas(&self) -> u16 {
        if self.is_wmma() {
            1
        } else {
            0
        }
    }
}

/// The shape of a matrix instruction on a target; `None` for other instructions or where
/// the target lacks it.
pub fn shape(op: Op, target: IsaTarget) -> Option<MatrixShape> {
    MatrixLayout::new(op, target).map(|l| l.shape())
}

/// Where A\[i\]\[k\] lives (for gfx11 WMMA: the primary copy, lane `i` < 16; the replica is
/// lane `i + 16`, see [`a_locations`]). `None` if `op` is not a matrix instruction on
/// `target` or (i, k) is outside A.
pub fn a_location(op: Op, target: IsaTarget, i: u32, k: u32) -> Option<Location> {
    MatrixLayout::new(op, target)?.a(i, k)
}

/// Where B\[k\]\[j\] lives (for gfx11 WMMA: the primary copy, lane `j` < 16; the replica is
/// lane `j + 16`, see [`b_locations`]).
pub fn b_location(op: Op, target: IsaTarget, k: u32, j: u32) -> Option<Location> {
    MatrixLayout::new(op, target)?.b(k, j)
}

/// Where C\[i\]\[j\] and D\[i\]\[j\] live. For 16-bit WMMA results these are bits \[15:0\]; with
/// OP_SEL\[2\] set they are bits \[31:16\] ([`cd_location_op_sel`]).
pub fn cd_location(op: Op, target: IsaTarget, i: u32, j: u32) -> Option<Location> {
    MatrixLayout::new(op, target)?.cd(i, j, 0)
}

/// [`cd_location`] with the instruction's OP_SEL bits: for 16-bit WMMA results, OP_SEL\[2\]
/// (`op_sel & 4`) moves C and D to bits \[31:16\]. Other instructions ignore `op_sel`.
pub fn cd_location_op_sel(
    op: Op,
    target: IsaTarget,
    op_sel: u8,
    i: u32,
    j: u32,
) -> Option<Location> {
    MatrixLayout::new(op, target)?.cd(i, j, op_sel)
}

/// Every copy of one input element: the primary location, then (gfx11 WMMA) the replica
/// in the upper half-wave.
#[derive(Debug, Clone)]
pub struct Replicas {
    first: Option<Location>,
    copies: u16,
    next: u16,
    stride: u16,
}

impl Iterator for Replicas {
    type Item = Location;
    fn next(&mut self) -> Option<Location> {
        let first = self.first?;
        if self.next >= self.copies {
            return None;
        }
        let lane = first.lane + self.next * self.stride;
        self.next += 1;
        Some(Location { lane, ..first })
    }
}

fn replicas(op: Op, target: IsaTarget, first: Option<Location>) -> Replicas {
    let extra = MatrixLayout::new(op, target).map_or(0, |l| l.replicas());
    Replicas {
        first,
        copies: 1 + extra,
        next: 0,
        stride: 16,
    }
}

/// Every location of A\[i\]\[k\] (two on gfx11 WMMA: lanes `i` and `i + 16`; one on MFMA).
/// Empty where [`a_location`] is `None`.
pub fn a_locations(op: Op, target: IsaTarget, i: u32, k: u32) -> Replicas {
    replicas(op, target, a_location(op, target, i, k))
}

/// Every location of B\[k\]\[j\] (two on gfx11 WMMA: lanes `j` and `j + 16`; one on MFMA).
pub fn b_locations(op: Op, target: IsaTarget, k: u32, j: u32) -> Replicas {
    replicas(op, target, b_location(op, target, k, j))
}

/// Every location of element (row, col) of one operand (A: (i, k), B: (k, j), C/D:
/// (i, j); C/D with OP_SEL 0).
pub fn locations(op: Op, target: IsaTarget, which: MatrixOperand, row: u32, col: u32) -> Replicas {
    match which {
        MatrixOperand::A => a_locations(op, target, row, col),
        MatrixOperand::B => b_locations(op, target, row, col),
        MatrixOperand::Cd => Replicas {
            first: cd_location(op, target, row, col),
            copies: 1,
            next: 0,
            stride: 16,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The calculator's mnemonic for `op` on `t` (the dump's file names).
    fn calc_name(op: Op, t: IsaTarget) -> &'static str {
        let names = op.info().names;
        match t.column() {
            0 | 1 => names[0],
            2 if !names[1].is_empty() => names[1],
            2 => names[0],
            _ => names[2],
        }
    }

    /// The four targets whose layouts the calculator distinguishes (gfx1101/1102/1151
    /// are RDNA3 like gfx1100).
    const CALC_TARGETS: [IsaTarget; 4] = [
        IsaTarget::Gfx908,
        IsaTarget::Gfx90a,
        IsaTarget::Gfx942,
        IsaTarget::Gfx1100,
    ];

    /// Spot checks taken from AMD's matrix instruction calculator v1.3.2 (commit
    /// 2ef91896), independent of the formulas above: each entry is one cell of
    /// `python3 matrix_calculator.py -a <arch> -i <inst> -<A|B|D> -R -c` (arch cdna1 for
    /// gfx908, cdna2 gfx90a, cdna3 gfx942, `rdna3 ... -w 32` for gfx1100; "D4" adds
    /// `--opsel 4`). Fields: target, mnemonic, matrix, row, col, reg, lane, low bit,
    /// width; a cell `v3{17}.[31:16]` is reg 3, lane 17, bit 16, width 16, `v[1:0]{5}` is
    /// reg 0, lane 5, width 64. WMMA A/B rows may name either copy (lane or lane + 16).
    /// (target, mnemonic, matrix, row, col, reg, lane, bit, width).
    type Spot = (
        &'static str,
        &'static str,
        &'static str,
        u32,
        u32,
        u16,
        u16,
        u8,
        u8,
    );

    #[rustfmt::skip]
    const SPOT: &[Spot] = &[
    ("gfx908", "v_mfma_f32_16x16x16f16", "A", 7, 9, 0, 39, 16, 16),
    ("gfx908", "v_mfma_f32_16x16x16f16", "A", 12, 4, 0, 28, 0, 16),
    ("gfx908", "v_mfma_f32_16x16x16f16", "A", 1, 2, 1, 1, 0, 16),
    ("gfx908", "v_mfma_f32_16x16x16f16", "A", 1, 15, 1, 49, 16, 16),
    ("gfx908", "v_mfma_f32_16x16x16f16", "B", 12, 6, 0, 54, 0, 16),
    ("gfx908", "v_mfma_f32_16x16x16f16", "B", 0, 8, 0, 8, 0, 16),
    ("gfx908", "v_mfma_f32_16x16x16f16", "B", 5, 7, 0, 23, 16, 16),
    ("gfx908", "v_mfma_f32_16x16x16f16", "D", 13, 15, 1, 63, 0, 32),
    ("gfx908", "v_mfma_f32_16x16x16f16", "D", 15, 14, 3, 62, 0, 32),
    ("gfx908", "v_mfma_f32_16x16x16f16", "D", 15, 12, 3, 60, 0, 32),
    ("gfx908", "v_mfma_f32_16x16x16f16", "D", 7, 4, 3, 20, 0, 32),
    ("gfx908", "v_mfma_f32_16x16x16f16", "C", 11, 9, 3, 41, 0, 32),
    ("gfx908", "v_mfma_f32_16x16x4f32", "A", 9, 2, 0, 41, 0, 32),
    ("gfx908", "v_mfma_f32_16x16x4f32", "A", 12, 3, 0, 60, 0, 32),
    ("gfx908", "v_mfma_f32_16x16x4f32", "A", 8, 1, 0, 24, 0, 32),
    ("gfx908", "v_mfma_f32_16x16x4f32", "A", 15, 0, 0, 15, 0, 32),
    ("gfx908", "v_mfma_f32_16x16x4f32", "B", 2, 4, 0, 36, 0, 32),
    ("gfx908", "v_mfma_f32_16x16x4f32", "B", 2, 11, 0, 43, 0, 32),
    ("gfx908", "v_mfma_f32_16x16x4f32", "B", 1, 1, 0, 17, 0, 32),
    ("gfx908", "v_mfma_f32_16x16x4f32", "D", 12, 8, 0, 56, 0, 32),
    ("gfx908", "v_mfma_f32_16x16x4f32", "D", 11, 12, 3, 44, 0, 32),
    ("gfx908", "v_mfma_f32_16x16x4f32", "D", 13, 15, 1, 63, 0, 32),
    ("gfx908", "v_mfma_f32_16x16x4f32", "D", 7, 2, 3, 18, 0, 32),
    ("gfx908", "v_mfma_f32_16x16x4f32", "C", 8, 14, 0, 46, 0, 32),
    ("gfx908", "v_mfma_f32_16x16x8bf16", "A", 7, 0, 0, 7, 0, 16),
    ("gfx908", "v_mfma_f32_16x16x8bf16", "A", 15, 7, 0, 63, 16, 16),
    ("gfx908", "v_mfma_f32_16x16x8bf16", "A", 6, 6, 0, 54, 0, 16),
    ("gfx908", "v_mfma_f32_16x16x8bf16", "A", 12, 7, 0, 60, 16, 16),
    ("gfx908", "v_mfma_f32_16x16x8bf16", "B", 4, 3, 0, 35, 0, 16),
    ("gfx908", "v_mfma_f32_16x16x8bf16", "B", 0, 15, 0, 15, 0, 16),
    ("gfx908", "v_mfma_f32_16x16x8bf16", "B", 1, 9, 0, 9, 16, 16),
    ("gfx908", "v_mfma_f32_16x16x8bf16", "D", 14, 6, 2, 54, 0, 32),
    ("gfx908", "v_mfma_f32_16x16x8bf16", "D", 11, 0, 3, 32, 0, 32),
    ("gfx908", "v_mfma_f32_16x16x8bf16", "D", 14, 10, 2, 58, 0, 32),
    ("gfx908", "v_mfma_f32_16x16x8bf16", "D", 5, 15, 1, 31, 0, 32),
    ("gfx908", "v_mfma_f32_16x16x8bf16", "C", 5, 13, 1, 29, 0, 32),
    ("gfx908", "v_mfma_f32_32x32x2f32", "A", 19, 0, 0, 19, 0, 32),
    ("gfx908", "v_mfma_f32_32x32x2f32", "A", 25, 0, 0, 25, 0, 32),
    ("gfx908", "v_mfma_f32_32x32x2f32", "A", 16, 1, 0, 48, 0, 32),
    ("gfx908", "v_mfma_f32_32x32x2f32", "A", 11, 1, 0, 43, 0, 32),
    ("gfx908", "v_mfma_f32_32x32x2f32", "B", 0, 16, 0, 16, 0, 32),
    ("gfx908", "v_mfma_f32_32x32x2f32", "B", 1, 22, 0, 54, 0, 32),
    ("gfx908", "v_mfma_f32_32x32x2f32", "B", 0, 27, 0, 27, 0, 32),
    ("gfx908", "v_mfma_f32_32x32x2f32", "D", 28, 26, 12, 58, 0, 32),
    ("gfx908", "v_mfma_f32_32x32x2f32", "D", 5, 9, 1, 41, 0, 32),
    ("gfx908", "v_mfma_f32_32x32x2f32", "D", 21, 23, 9, 55, 0, 32),
    ("gfx908", "v_mfma_f32_32x32x2f32", "D", 20, 19, 8, 51, 0, 32),
    ("gfx908", "v_mfma_f32_32x32x2f32", "C", 26, 0, 14, 0, 0, 32),
    ("gfx908", "v_mfma_f32_32x32x4bf16", "A", 8, 2, 0, 40, 0, 16),
    ("gfx908", "v_mfma_f32_32x32x4bf16", "A", 29, 1, 0, 29, 16, 16),
    ("gfx908", "v_mfma_f32_32x32x4bf16", "A", 23, 0, 0, 23, 0, 16),
    ("gfx908", "v_mfma_f32_32x32x4bf16", "A", 23, 2, 0, 55, 0, 16),
    ("gfx908", "v_mfma_f32_32x32x4bf16", "B", 3, 10, 0, 42, 16, 16),
    ("gfx908", "v_mfma_f32_32x32x4bf16", "B", 0, 4, 0, 4, 0, 16),
    ("gfx908", "v_mfma_f32_32x32x4bf16", "B", 3, 6, 0, 38, 16, 16),
    ("gfx908", "v_mfma_f32_32x32x4bf16", "D", 13, 18, 5, 50, 0, 32),
    ("gfx908", "v_mfma_f32_32x32x4bf16", "D", 27, 24, 15, 24, 0, 32),
    ("gfx908", "v_mfma_f32_32x32x4bf16", "D", 10, 11, 6, 11, 0, 32),
    ("gfx908", "v_mfma_f32_32x32x4bf16", "D", 8, 28, 4, 28, 0, 32),
    ("gfx908", "v_mfma_f32_32x32x4bf16", "C", 17, 26, 9, 26, 0, 32),
    ("gfx908", "v_mfma_f32_32x32x8f16", "A", 26, 7, 1, 58, 16, 16),
    ("gfx908", "v_mfma_f32_32x32x8f16", "A", 6, 0, 0, 6, 0, 16),
    ("gfx908", "v_mfma_f32_32x32x8f16", "A", 18, 0, 0, 18, 0, 16),
    ("gfx908", "v_mfma_f32_32x32x8f16", "A", 7, 6, 1, 39, 0, 16),
    ("gfx908", "v_mfma_f32_32x32x8f16", "B", 6, 2, 1, 34, 0, 16),
    ("gfx908", "v_mfma_f32_32x32x8f16", "B", 2, 29, 1, 29, 0, 16),
    ("gfx908", "v_mfma_f32_32x32x8f16", "B", 7, 26, 1, 58, 16, 16),
    ("gfx908", "v_mfma_f32_32x32x8f16", "D", 18, 4, 10, 4, 0, 32),
    ("gfx908", "v_mfma_f32_32x32x8f16", "D", 13, 12, 5, 44, 0, 32),
    ("gfx908", "v_mfma_f32_32x32x8f16", "D", 29, 27, 13, 59, 0, 32),
    ("gfx908", "v_mfma_f32_32x32x8f16", "D", 15, 7, 7, 39, 0, 32),
    ("gfx908", "v_mfma_f32_32x32x8f16", "C", 10, 30, 6, 30, 0, 32),
    ("gfx908", "v_mfma_i32_16x16x16i8", "A", 12, 14, 0, 60, 16, 8),
    ("gfx908", "v_mfma_i32_16x16x16i8", "A", 4, 15, 0, 52, 24, 8),
    ("gfx908", "v_mfma_i32_16x16x16i8", "A", 5, 13, 0, 53, 8, 8),
    ("gfx908", "v_mfma_i32_16x16x16i8", "A", 4, 6, 0, 20, 16, 8),
    ("gfx908", "v_mfma_i32_16x16x16i8", "B", 15, 5, 0, 53, 24, 8),
    ("gfx908", "v_mfma_i32_16x16x16i8", "B", 10, 4, 0, 36, 16, 8),
    ("gfx908", "v_mfma_i32_16x16x16i8", "B", 2, 8, 0, 8, 16, 8),
    ("gfx908", "v_mfma_i32_16x16x16i8", "D", 3, 11, 3, 11, 0, 32),
    ("gfx908", "v_mfma_i32_16x16x16i8", "D", 13, 11, 1, 59, 0, 32),
    ("gfx908", "v_mfma_i32_16x16x16i8", "D", 8, 15, 0, 47, 0, 32),
    ("gfx908", "v_mfma_i32_16x16x16i8", "D", 2, 7, 2, 7, 0, 32),
    ("gfx908", "v_mfma_i32_16x16x16i8", "C", 7, 2, 3, 18, 0, 32),
    ("gfx908", "v_mfma_i32_32x32x8i8", "A", 18, 3, 0, 18, 24, 8),
    ("gfx908", "v_mfma_i32_32x32x8i8", "A", 5, 4, 0, 37, 0, 8),
    ("gfx908", "v_mfma_i32_32x32x8i8", "A", 7, 4, 0, 39, 0, 8),
    ("gfx908", "v_mfma_i32_32x32x8i8", "A", 24, 7, 0, 56, 24, 8),
    ("gfx908", "v_mfma_i32_32x32x8i8", "B", 3, 28, 0, 28, 24, 8),
    ("gfx908", "v_mfma_i32_32x32x8i8", "B", 3, 14, 0, 14, 24, 8),
    ("gfx908", "v_mfma_i32_32x32x8i8", "B", 7, 12, 0, 44, 24, 8),
    ("gfx908", "v_mfma_i32_32x32x8i8", "D", 13, 28, 5, 60, 0, 32),
    ("gfx908", "v_mfma_i32_32x32x8i8", "D", 22, 9, 10, 41, 0, 32),
    ("gfx908", "v_mfma_i32_32x32x8i8", "D", 10, 18, 6, 18, 0, 32),
    ("gfx908", "v_mfma_i32_32x32x8i8", "D", 26, 2, 14, 2, 0, 32),
    ("gfx908", "v_mfma_i32_32x32x8i8", "C", 3, 17, 3, 17, 0, 32),
    ("gfx90a", "v_mfma_f32_16x16x16bf16_1k", "A", 7, 5, 0, 23, 16, 16),
    ("gfx90a", "v_mfma_f32_16x16x16bf16_1k", "A", 15, 7, 1, 31, 16, 16),
    ("gfx90a", "v_mfma_f32_16x16x16bf16_1k", "A", 10, 0, 0, 10, 0, 16),
    ("gfx90a", "v_mfma_f32_16x16x16bf16_1k", "A", 2, 3, 1, 2, 16, 16),
    ("gfx90a", "v_mfma_f32_16x16x16bf16_1k", "B", 13, 9, 0, 57, 16, 16),
    ("gfx90a", "v_mfma_f32_16x16x16bf16_1k", "B", 13, 10, 0, 58, 16, 16),
    ("gfx90a", "v_mfma_f32_16x16x16bf16_1k", "B", 8, 13, 0, 45, 0, 16),
    ("gfx90a", "v_mfma_f32_16x16x16bf16_1k", "D", 0, 8, 0, 8, 0, 32),
    ("gfx90a", "v_mfma_f32_16x16x16bf16_1k", "D", 15, 0, 3, 48, 0, 32),
    ("gfx90a", "v_mfma_f32_16x16x16bf16_1k", "D", 7, 13, 3, 29, 0, 32),
    ("gfx90a", "v_mfma_f32_16x16x16bf16_1k", "D", 10, 8, 2, 40, 0, 32),
    ("gfx90a", "v_mfma_f32_16x16x16bf16_1k", "C", 7, 12, 3, 28, 0, 32),
    ("gfx90a", "v_mfma_f32_16x16x16f16", "A", 14, 8, 0, 46, 0, 16),
    ("gfx90a", "v_mfma_f32_16x16x16f16", "A", 0, 9, 0, 32, 16, 16),
    ("gfx90a", "v_mfma_f32_16x16x16f16", "A", 6, 10, 1, 38, 0, 16),
    ("gfx90a", "v_mfma_f32_16x16x16f16", "A", 13, 5, 0, 29, 16, 16),
    ("gfx90a", "v_mfma_f32_16x16x16f16", "B", 7, 9, 1, 25, 16, 16),
    ("gfx90a", "v_mfma_f32_16x16x16f16", "B", 12, 15, 0, 63, 0, 16),
    ("gfx90a", "v_mfma_f32_16x16x16f16", "B", 1, 3, 0, 3, 16, 16),
    ("gfx90a", "v_mfma_f32_16x16x16f16", "D", 12, 4, 0, 52, 0, 32),
    ("gfx90a", "v_mfma_f32_16x16x16f16", "D", 4, 7, 0, 23, 0, 32),
    ("gfx90a", "v_mfma_f32_16x16x16f16", "D", 0, 14, 0, 14, 0, 32),
    ("gfx90a", "v_mfma_f32_16x16x16f16", "D", 0, 13, 0, 13, 0, 32),
    ("gfx90a", "v_mfma_f32_16x16x16f16", "C", 9, 8, 1, 40, 0, 32),
    ("gfx90a", "v_mfma_f32_16x16x4f32", "A", 1, 2, 0, 33, 0, 32),
    ("gfx90a", "v_mfma_f32_16x16x4f32", "A", 13, 1, 0, 29, 0, 32),
    ("gfx90a", "v_mfma_f32_16x16x4f32", "A", 3, 0, 0, 3, 0, 32),
    ("gfx90a", "v_mfma_f32_16x16x4f32", "A", 1, 3, 0, 49, 0, 32),
    ("gfx90a", "v_mfma_f32_16x16x4f32", "B", 1, 9, 0, 25, 0, 32),
    ("gfx90a", "v_mfma_f32_16x16x4f32", "B", 2, 5, 0, 37, 0, 32),
    ("gfx90a", "v_mfma_f32_16x16x4f32", "B", 0, 0, 0, 0, 0, 32),
    ("gfx90a", "v_mfma_f32_16x16x4f32", "D", 10, 5, 2, 37, 0, 32),
    ("gfx90a", "v_mfma_f32_16x16x4f32", "D", 8, 11, 0, 43, 0, 32),
    ("gfx90a", "v_mfma_f32_16x16x4f32", "D", 15, 1, 3, 49, 0, 32),
    ("gfx90a", "v_mfma_f32_16x16x4f32", "D", 15, 7, 3, 55, 0, 32),
    ("gfx90a", "v_mfma_f32_16x16x4f32", "C", 6, 11, 2, 27, 0, 32),
    ("gfx90a", "v_mfma_f32_16x16x8bf16", "A", 0, 1, 0, 0, 16, 16),
    ("gfx90a", "v_mfma_f32_16x16x8bf16", "A", 6, 1, 0, 6, 16, 16),
    ("gfx90a", "v_mfma_f32_16x16x8bf16", "A", 14, 4, 0, 46, 0, 16),
    ("gfx90a", "v_mfma_f32_16x16x8bf16", "A", 11, 1, 0, 11, 16, 16),
    ("gfx90a", "v_mfma_f32_16x16x8bf16", "B", 0, 1, 0, 1, 0, 16),
    ("gfx90a", "v_mfma_f32_16x16x8bf16", "B", 7, 6, 0, 54, 16, 16),
    ("gfx90a", "v_mfma_f32_16x16x8bf16", "B", 6, 2, 0, 50, 0, 16),
    ("gfx90a", "v_mfma_f32_16x16x8bf16", "D", 12, 6, 0, 54, 0, 32),
    ("gfx90a", "v_mfma_f32_16x16x8bf16", "D", 1, 13, 1, 13, 0, 32),
    ("gfx90a", "v_mfma_f32_16x16x8bf16", "D", 11, 12, 3, 44, 0, 32),
    ("gfx90a", "v_mfma_f32_16x16x8bf16", "D", 14, 11, 2, 59, 0, 32),
    ("gfx90a", "v_mfma_f32_16x16x8bf16", "C", 9, 5, 1, 37, 0, 32),
    ("gfx90a", "v_mfma_f32_32x32x2f32", "A", 30, 1, 0, 62, 0, 32),
    ("gfx90a", "v_mfma_f32_32x32x2f32", "A", 10, 0, 0, 10, 0, 32),
    ("gfx90a", "v_mfma_f32_32x32x2f32", "A", 2, 1, 0, 34, 0, 32),
    ("gfx90a", "v_mfma_f32_32x32x2f32", "A", 14, 1, 0, 46, 0, 32),
    ("gfx90a", "v_mfma_f32_32x32x2f32", "B", 1, 28, 0, 60, 0, 32),
    ("gfx90a", "v_mfma_f32_32x32x2f32", "B", 0, 29, 0, 29, 0, 32),
    ("gfx90a", "v_mfma_f32_32x32x2f32", "B", 1, 17, 0, 49, 0, 32),
    ("gfx90a", "v_mfma_f32_32x32x2f32", "D", 0, 6, 0, 6, 0, 32),
    ("gfx90a", "v_mfma_f32_32x32x2f32", "D", 31, 7, 15, 39, 0, 32),
    ("gfx90a", "v_mfma_f32_32x32x2f32", "D", 21, 20, 9, 52, 0, 32),
    ("gfx90a", "v_mfma_f32_32x32x2f32", "D", 13, 5, 5, 37, 0, 32),
    ("gfx90a", "v_mfma_f32_32x32x2f32", "C", 6, 29, 2, 61, 0, 32),
    ("gfx90a", "v_mfma_f32_32x32x4bf16", "A", 2, 2, 0, 34, 0, 16),
    ("gfx90a", "v_mfma_f32_32x32x4bf16", "A", 13, 2, 0, 45, 0, 16),
    ("gfx90a", "v_mfma_f32_32x32x4bf16", "A", 6, 1, 0, 6, 16, 16),
    ("gfx90a", "v_mfma_f32_32x32x4bf16", "A", 18, 0, 0, 18, 0, 16),
    ("gfx90a", "v_mfma_f32_32x32x4bf16", "B", 2, 17, 0, 49, 0, 16),
    ("gfx90a", "v_mfma_f32_32x32x4bf16", "B", 3, 19, 0, 51, 16, 16),
    ("gfx90a", "v_mfma_f32_32x32x4bf16", "B", 2, 9, 0, 41, 0, 16),
    ("gfx90a", "v_mfma_f32_32x32x4bf16", "D", 19, 8, 11, 8, 0, 32),
    ("gfx90a", "v_mfma_f32_32x32x4bf16", "D", 20, 4, 8, 36, 0, 32),
    ("gfx90a", "v_mfma_f32_32x32x4bf16", "D", 25, 20, 13, 20, 0, 32),
    ("gfx90a", "v_mfma_f32_32x32x4bf16", "D", 20, 16, 8, 48, 0, 32),
    ("gfx90a", "v_mfma_f32_32x32x4bf16", "C", 17, 7, 9, 7, 0, 32),
    ("gfx90a", "v_mfma_f32_32x32x8bf16_1k", "A", 31, 0, 0, 31, 0, 16),
    ("gfx90a", "v_mfma_f32_32x32x8bf16_1k", "A", 7, 0, 0, 7, 0, 16),
    ("gfx90a", "v_mfma_f32_32x32x8bf16_1k", "A", 23, 7, 1, 55, 16, 16),
    ("gfx90a", "v_mfma_f32_32x32x8bf16_1k", "A", 7, 4, 0, 39, 0, 16),
    ("gfx90a", "v_mfma_f32_32x32x8bf16_1k", "B", 0, 5, 0, 5, 0, 16),
    ("gfx90a", "v_mfma_f32_32x32x8bf16_1k", "B", 5, 13, 0, 45, 16, 16),
    ("gfx90a", "v_mfma_f32_32x32x8bf16_1k", "B", 6, 26, 1, 58, 0, 16),
    ("gfx90a", "v_mfma_f32_32x32x8bf16_1k", "D", 14, 11, 6, 43, 0, 32),
    ("gfx90a", "v_mfma_f32_32x32x8bf16_1k", "D", 14, 30, 6, 62, 0, 32),
    ("gfx90a", "v_mfma_f32_32x32x8bf16_1k", "D", 4, 25, 0, 57, 0, 32),
    ("gfx90a", "v_mfma_f32_32x32x8bf16_1k", "D", 5, 29, 1, 61, 0, 32),
    ("gfx90a", "v_mfma_f32_32x32x8bf16_1k", "C", 9, 23, 5, 23, 0, 32),
    ("gfx90a", "v_mfma_f32_32x32x8f16", "A", 26, 7, 1, 58, 16, 16),
    ("gfx90a", "v_mfma_f32_32x32x8f16", "A", 13, 7, 1, 45, 16, 16),
    ("gfx90a", "v_mfma_f32_32x32x8f16", "A", 14, 3, 1, 14, 16, 16),
    ("gfx90a", "v_mfma_f32_32x32x8f16", "A", 28, 4, 0, 60, 0, 16),
    ("gfx90a", "v_mfma_f32_32x32x8f16", "B", 4, 3, 0, 35, 0, 16),
    ("gfx90a", "v_mfma_f32_32x32x8f16", "B", 0, 11, 0, 11, 0, 16),
    ("gfx90a", "v_mfma_f32_32x32x8f16", "B", 1, 27, 0, 27, 16, 16),
    ("gfx90a", "v_mfma_f32_32x32x8f16", "D", 29, 24, 13, 56, 0, 32),
    ("gfx90a", "v_mfma_f32_32x32x8f16", "D", 2, 21, 2, 21, 0, 32),
    ("gfx90a", "v_mfma_f32_32x32x8f16", "D", 1, 2, 1, 2, 0, 32),
    ("gfx90a", "v_mfma_f32_32x32x8f16", "D", 7, 8, 3, 40, 0, 32),
    ("gfx90a", "v_mfma_f32_32x32x8f16", "C", 7, 29, 3, 61, 0, 32),
    ("gfx90a", "v_mfma_f64_16x16x4f64", "A", 3, 2, 0, 35, 0, 64),
    ("gfx90a", "v_mfma_f64_16x16x4f64", "A", 7, 3, 0, 55, 0, 64),
    ("gfx90a", "v_mfma_f64_16x16x4f64", "A", 11, 0, 0, 11, 0, 64),
    ("gfx90a", "v_mfma_f64_16x16x4f64", "A", 1, 3, 0, 49, 0, 64),
    ("gfx90a", "v_mfma_f64_16x16x4f64", "B", 1, 8, 0, 24, 0, 64),
    ("gfx90a", "v_mfma_f64_16x16x4f64", "B", 1, 10, 0, 26, 0, 64),
    ("gfx90a", "v_mfma_f64_16x16x4f64", "B", 2, 8, 0, 40, 0, 64),
    ("gfx90a", "v_mfma_f64_16x16x4f64", "D", 15, 4, 6, 52, 0, 64),
    ("gfx90a", "v_mfma_f64_16x16x4f64", "D", 8, 6, 4, 6, 0, 64),
    ("gfx90a", "v_mfma_f64_16x16x4f64", "D", 14, 5, 6, 37, 0, 64),
    ("gfx90a", "v_mfma_f64_16x16x4f64", "D", 4, 8, 2, 8, 0, 64),
    ("gfx90a", "v_mfma_f64_16x16x4f64", "C", 9, 4, 4, 20, 0, 64),
    ("gfx90a", "v_mfma_i32_16x16x16i8", "A", 5, 10, 0, 37, 16, 8),
    ("gfx90a", "v_mfma_i32_16x16x16i8", "A", 6, 7, 0, 22, 24, 8),
    ("gfx90a", "v_mfma_i32_16x16x16i8", "A", 0, 10, 0, 32, 16, 8),
    ("gfx90a", "v_mfma_i32_16x16x16i8", "A", 12, 15, 0, 60, 24, 8),
    ("gfx90a", "v_mfma_i32_16x16x16i8", "B", 2, 7, 0, 7, 16, 8),
    ("gfx90a", "v_mfma_i32_16x16x16i8", "B", 11, 0, 0, 32, 24, 8),
    ("gfx90a", "v_mfma_i32_16x16x16i8", "B", 14, 9, 0, 57, 16, 8),
    ("gfx90a", "v_mfma_i32_16x16x16i8", "D", 0, 12, 0, 12, 0, 32),
    ("gfx90a", "v_mfma_i32_16x16x16i8", "D", 7, 6, 3, 22, 0, 32),
    ("gfx90a", "v_mfma_i32_16x16x16i8", "D", 0, 5, 0, 5, 0, 32),
    ("gfx90a", "v_mfma_i32_16x16x16i8", "D", 13, 7, 1, 55, 0, 32),
    ("gfx90a", "v_mfma_i32_16x16x16i8", "C", 4, 3, 0, 19, 0, 32),
    ("gfx90a", "v_mfma_i32_32x32x8i8", "A", 8, 4, 0, 40, 0, 8),
    ("gfx90a", "v_mfma_i32_32x32x8i8", "A", 24, 3, 0, 24, 24, 8),
    ("gfx90a", "v_mfma_i32_32x32x8i8", "A", 19, 3, 0, 19, 24, 8),
    ("gfx90a", "v_mfma_i32_32x32x8i8", "A", 25, 0, 0, 25, 0, 8),
    ("gfx90a", "v_mfma_i32_32x32x8i8", "B", 4, 12, 0, 44, 0, 8),
    ("gfx90a", "v_mfma_i32_32x32x8i8", "B", 0, 9, 0, 9, 0, 8),
    ("gfx90a", "v_mfma_i32_32x32x8i8", "B", 7, 31, 0, 63, 24, 8),
    ("gfx90a", "v_mfma_i32_32x32x8i8", "D", 2, 30, 2, 30, 0, 32),
    ("gfx90a", "v_mfma_i32_32x32x8i8", "D", 11, 11, 7, 11, 0, 32),
    ("gfx90a", "v_mfma_i32_32x32x8i8", "D", 15, 23, 7, 55, 0, 32),
    ("gfx90a", "v_mfma_i32_32x32x8i8", "D", 7, 29, 3, 61, 0, 32),
    ("gfx90a", "v_mfma_i32_32x32x8i8", "C", 29, 3, 13, 35, 0, 32),
    ("gfx942", "v_mfma_f32_16x16x16_bf16", "A", 14, 1, 0, 14, 16, 16),
    ("gfx942", "v_mfma_f32_16x16x16_bf16", "A", 10, 0, 0, 10, 0, 16),
    ("gfx942", "v_mfma_f32_16x16x16_bf16", "A", 8, 13, 0, 56, 16, 16),
    ("gfx942", "v_mfma_f32_16x16x16_bf16", "A", 5, 15, 1, 53, 16, 16),
    ("gfx942", "v_mfma_f32_16x16x16_bf16", "B", 6, 11, 1, 27, 0, 16),
    ("gfx942", "v_mfma_f32_16x16x16_bf16", "B", 15, 8, 1, 56, 16, 16),
    ("gfx942", "v_mfma_f32_16x16x16_bf16", "B", 14, 11, 1, 59, 0, 16),
    ("gfx942", "v_mfma_f32_16x16x16_bf16", "D", 7, 11, 3, 27, 0, 32),
    ("gfx942", "v_mfma_f32_16x16x16_bf16", "D", 1, 11, 1, 11, 0, 32),
    ("gfx942", "v_mfma_f32_16x16x16_bf16", "D", 10, 11, 2, 43, 0, 32),
    ("gfx942", "v_mfma_f32_16x16x16_bf16", "D", 0, 1, 0, 1, 0, 32),
    ("gfx942", "v_mfma_f32_16x16x16_bf16", "C", 8, 9, 0, 41, 0, 32),
    ("gfx942", "v_mfma_f32_16x16x16_f16", "A", 11, 2, 1, 11, 0, 16),
    ("gfx942", "v_mfma_f32_16x16x16_f16", "A", 9, 10, 1, 41, 0, 16),
    ("gfx942", "v_mfma_f32_16x16x16_f16", "A", 9, 3, 1, 9, 16, 16),
    ("gfx942", "v_mfma_f32_16x16x16_f16", "A", 4, 8, 0, 36, 0, 16),
    ("gfx942", "v_mfma_f32_16x16x16_f16", "B", 5, 5, 0, 21, 16, 16),
    ("gfx942", "v_mfma_f32_16x16x16_f16", "B", 4, 5, 0, 21, 0, 16),
    ("gfx942", "v_mfma_f32_16x16x16_f16", "B", 6, 13, 1, 29, 0, 16),
    ("gfx942", "v_mfma_f32_16x16x16_f16", "D", 4, 9, 0, 25, 0, 32),
    ("gfx942", "v_mfma_f32_16x16x16_f16", "D", 7, 7, 3, 23, 0, 32),
    ("gfx942", "v_mfma_f32_16x16x16_f16", "D", 13, 14, 1, 62, 0, 32),
    ("gfx942", "v_mfma_f32_16x16x16_f16", "D", 14, 13, 2, 61, 0, 32),
    ("gfx942", "v_mfma_f32_16x16x16_f16", "C", 8, 3, 0, 35, 0, 32),
    ("gfx942", "v_mfma_f32_16x16x32_fp8_fp8", "A", 9, 9, 0, 25, 8, 8),
    ("gfx942", "v_mfma_f32_16x16x32_fp8_fp8", "A", 14, 2, 0, 14, 16, 8),
    ("gfx942", "v_mfma_f32_16x16x32_fp8_fp8", "A", 8, 29, 1, 56, 8, 8),
    ("gfx942", "v_mfma_f32_16x16x32_fp8_fp8", "A", 0, 3, 0, 0, 24, 8),
    ("gfx942", "v_mfma_f32_16x16x32_fp8_fp8", "B", 12, 5, 1, 21, 0, 8),
    ("gfx942", "v_mfma_f32_16x16x32_fp8_fp8", "B", 22, 11, 1, 43, 16, 8),
    ("gfx942", "v_mfma_f32_16x16x32_fp8_fp8", "B", 25, 14, 0, 62, 8, 8),
    ("gfx942", "v_mfma_f32_16x16x32_fp8_fp8", "D", 5, 9, 1, 25, 0, 32),
    ("gfx942", "v_mfma_f32_16x16x32_fp8_fp8", "D", 2, 10, 2, 10, 0, 32),
    ("gfx942", "v_mfma_f32_16x16x32_fp8_fp8", "D", 8, 14, 0, 46, 0, 32),
    ("gfx942", "v_mfma_f32_16x16x32_fp8_fp8", "D", 4, 7, 0, 23, 0, 32),
    ("gfx942", "v_mfma_f32_16x16x32_fp8_fp8", "C", 2, 4, 2, 4, 0, 32),
    ("gfx942", "v_mfma_f32_16x16x4_f32", "A", 15, 3, 0, 63, 0, 32),
    ("gfx942", "v_mfma_f32_16x16x4_f32", "A", 9, 1, 0, 25, 0, 32),
    ("gfx942", "v_mfma_f32_16x16x4_f32", "A", 15, 2, 0, 47, 0, 32),
    ("gfx942", "v_mfma_f32_16x16x4_f32", "A", 13, 2, 0, 45, 0, 32),
    ("gfx942", "v_mfma_f32_16x16x4_f32", "B", 3, 5, 0, 53, 0, 32),
    ("gfx942", "v_mfma_f32_16x16x4_f32", "B", 1, 13, 0, 29, 0, 32),
    ("gfx942", "v_mfma_f32_16x16x4_f32", "B", 0, 8, 0, 8, 0, 32),
    ("gfx942", "v_mfma_f32_16x16x4_f32", "D", 2, 11, 2, 11, 0, 32),
    ("gfx942", "v_mfma_f32_16x16x4_f32", "D", 4, 4, 0, 20, 0, 32),
    ("gfx942", "v_mfma_f32_16x16x4_f32", "D", 14, 2, 2, 50, 0, 32),
    ("gfx942", "v_mfma_f32_16x16x4_f32", "D", 5, 10, 1, 26, 0, 32),
    ("gfx942", "v_mfma_f32_16x16x4_f32", "C", 14, 15, 2, 63, 0, 32),
    ("gfx942", "v_mfma_f32_16x16x8_xf32", "A", 11, 2, 0, 27, 0, 32),
    ("gfx942", "v_mfma_f32_16x16x8_xf32", "A", 13, 5, 1, 45, 0, 32),
    ("gfx942", "v_mfma_f32_16x16x8_xf32", "A", 2, 0, 0, 2, 0, 32),
    ("gfx942", "v_mfma_f32_16x16x8_xf32", "A", 5, 1, 1, 5, 0, 32),
    ("gfx942", "v_mfma_f32_16x16x8_xf32", "B", 5, 9, 1, 41, 0, 32),
    ("gfx942", "v_mfma_f32_16x16x8_xf32", "B", 3, 3, 1, 19, 0, 32),
    ("gfx942", "v_mfma_f32_16x16x8_xf32", "B", 2, 9, 0, 25, 0, 32),
    ("gfx942", "v_mfma_f32_16x16x8_xf32", "D", 12, 9, 0, 57, 0, 32),
    ("gfx942", "v_mfma_f32_16x16x8_xf32", "D", 15, 4, 3, 52, 0, 32),
    ("gfx942", "v_mfma_f32_16x16x8_xf32", "D", 11, 10, 3, 42, 0, 32),
    ("gfx942", "v_mfma_f32_16x16x8_xf32", "D", 2, 0, 2, 0, 0, 32),
    ("gfx942", "v_mfma_f32_16x16x8_xf32", "C", 13, 11, 1, 59, 0, 32),
    ("gfx942", "v_mfma_f32_32x32x16_fp8_fp8", "A", 19, 10, 0, 51, 16, 8),
    ("gfx942", "v_mfma_f32_32x32x16_fp8_fp8", "A", 17, 7, 1, 17, 24, 8),
    ("gfx942", "v_mfma_f32_32x32x16_fp8_fp8", "A", 14, 1, 0, 14, 8, 8),
    ("gfx942", "v_mfma_f32_32x32x16_fp8_fp8", "A", 16, 4, 1, 16, 0, 8),
    ("gfx942", "v_mfma_f32_32x32x16_fp8_fp8", "B", 7, 13, 1, 13, 24, 8),
    ("gfx942", "v_mfma_f32_32x32x16_fp8_fp8", "B", 3, 0, 0, 0, 24, 8),
    ("gfx942", "v_mfma_f32_32x32x16_fp8_fp8", "B", 0, 13, 0, 13, 0, 8),
    ("gfx942", "v_mfma_f32_32x32x16_fp8_fp8", "D", 6, 24, 2, 56, 0, 32),
    ("gfx942", "v_mfma_f32_32x32x16_fp8_fp8", "D", 29, 22, 13, 54, 0, 32),
    ("gfx942", "v_mfma_f32_32x32x16_fp8_fp8", "D", 1, 21, 1, 21, 0, 32),
    ("gfx942", "v_mfma_f32_32x32x16_fp8_fp8", "D", 0, 20, 0, 20, 0, 32),
    ("gfx942", "v_mfma_f32_32x32x16_fp8_fp8", "C", 30, 30, 14, 62, 0, 32),
    ("gfx942", "v_mfma_f32_32x32x2_f32", "A", 6, 1, 0, 38, 0, 32),
    ("gfx942", "v_mfma_f32_32x32x2_f32", "A", 22, 1, 0, 54, 0, 32),
    ("gfx942", "v_mfma_f32_32x32x2_f32", "A", 5, 1, 0, 37, 0, 32),
    ("gfx942", "v_mfma_f32_32x32x2_f32", "A", 2, 0, 0, 2, 0, 32),
    ("gfx942", "v_mfma_f32_32x32x2_f32", "B", 1, 27, 0, 59, 0, 32),
    ("gfx942", "v_mfma_f32_32x32x2_f32", "B", 1, 11, 0, 43, 0, 32),
    ("gfx942", "v_mfma_f32_32x32x2_f32", "B", 0, 19, 0, 19, 0, 32),
    ("gfx942", "v_mfma_f32_32x32x2_f32", "D", 31, 11, 15, 43, 0, 32),
    ("gfx942", "v_mfma_f32_32x32x2_f32", "D", 31, 10, 15, 42, 0, 32),
    ("gfx942", "v_mfma_f32_32x32x2_f32", "D", 1, 24, 1, 24, 0, 32),
    ("gfx942", "v_mfma_f32_32x32x2_f32", "D", 15, 23, 7, 55, 0, 32),
    ("gfx942", "v_mfma_f32_32x32x2_f32", "C", 30, 15, 14, 47, 0, 32),
    ("gfx942", "v_mfma_f32_32x32x4_xf32", "A", 28, 2, 0, 60, 0, 32),
    ("gfx942", "v_mfma_f32_32x32x4_xf32", "A", 2, 1, 1, 2, 0, 32),
    ("gfx942", "v_mfma_f32_32x32x4_xf32", "A", 28, 0, 0, 28, 0, 32),
    ("gfx942", "v_mfma_f32_32x32x4_xf32", "A", 7, 0, 0, 7, 0, 32),
    ("gfx942", "v_mfma_f32_32x32x4_xf32", "B", 0, 29, 0, 29, 0, 32),
    ("gfx942", "v_mfma_f32_32x32x4_xf32", "B", 3, 24, 1, 56, 0, 32),
    ("gfx942", "v_mfma_f32_32x32x4_xf32", "B", 2, 30, 0, 62, 0, 32),
    ("gfx942", "v_mfma_f32_32x32x4_xf32", "D", 25, 13, 13, 13, 0, 32),
    ("gfx942", "v_mfma_f32_32x32x4_xf32", "D", 15, 28, 7, 60, 0, 32),
    ("gfx942", "v_mfma_f32_32x32x4_xf32", "D", 5, 22, 1, 54, 0, 32),
    ("gfx942", "v_mfma_f32_32x32x4_xf32", "D", 19, 10, 11, 10, 0, 32),
    ("gfx942", "v_mfma_f32_32x32x4_xf32", "C", 2, 28, 2, 28, 0, 32),
    ("gfx942", "v_mfma_f32_32x32x8_bf16", "A", 0, 2, 1, 0, 0, 16),
    ("gfx942", "v_mfma_f32_32x32x8_bf16", "A", 18, 2, 1, 18, 0, 16),
    ("gfx942", "v_mfma_f32_32x32x8_bf16", "A", 21, 1, 0, 21, 16, 16),
    ("gfx942", "v_mfma_f32_32x32x8_bf16", "A", 12, 4, 0, 44, 0, 16),
    ("gfx942", "v_mfma_f32_32x32x8_bf16", "B", 6, 10, 1, 42, 0, 16),
    ("gfx942", "v_mfma_f32_32x32x8_bf16", "B", 5, 24, 0, 56, 16, 16),
    ("gfx942", "v_mfma_f32_32x32x8_bf16", "B", 1, 1, 0, 1, 16, 16),
    ("gfx942", "v_mfma_f32_32x32x8_bf16", "D", 9, 26, 5, 26, 0, 32),
    ("gfx942", "v_mfma_f32_32x32x8_bf16", "D", 30, 15, 14, 47, 0, 32),
    ("gfx942", "v_mfma_f32_32x32x8_bf16", "D", 7, 25, 3, 57, 0, 32),
    ("gfx942", "v_mfma_f32_32x32x8_bf16", "D", 11, 19, 7, 19, 0, 32),
    ("gfx942", "v_mfma_f32_32x32x8_bf16", "C", 0, 19, 0, 19, 0, 32),
    ("gfx942", "v_mfma_f32_32x32x8_f16", "A", 5, 3, 1, 5, 16, 16),
    ("gfx942", "v_mfma_f32_32x32x8_f16", "A", 1, 3, 1, 1, 16, 16),
    ("gfx942", "v_mfma_f32_32x32x8_f16", "A", 19, 3, 1, 19, 16, 16),
    ("gfx942", "v_mfma_f32_32x32x8_f16", "A", 28, 4, 0, 60, 0, 16),
    ("gfx942", "v_mfma_f32_32x32x8_f16", "B", 3, 1, 1, 1, 16, 16),
    ("gfx942", "v_mfma_f32_32x32x8_f16", "B", 0, 19, 0, 19, 0, 16),
    ("gfx942", "v_mfma_f32_32x32x8_f16", "B", 3, 23, 1, 23, 16, 16),
    ("gfx942", "v_mfma_f32_32x32x8_f16", "D", 9, 14, 5, 14, 0, 32),
    ("gfx942", "v_mfma_f32_32x32x8_f16", "D", 11, 4, 7, 4, 0, 32),
    ("gfx942", "v_mfma_f32_32x32x8_f16", "D", 8, 15, 4, 15, 0, 32),
    ("gfx942", "v_mfma_f32_32x32x8_f16", "D", 7, 4, 3, 36, 0, 32),
    ("gfx942", "v_mfma_f32_32x32x8_f16", "C", 4, 8, 0, 40, 0, 32),
    ("gfx942", "v_mfma_f64_16x16x4_f64", "A", 6, 2, 0, 38, 0, 64),
    ("gfx942", "v_mfma_f64_16x16x4_f64", "A", 5, 1, 0, 21, 0, 64),
    ("gfx942", "v_mfma_f64_16x16x4_f64", "A", 12, 2, 0, 44, 0, 64),
    ("gfx942", "v_mfma_f64_16x16x4_f64", "A", 5, 3, 0, 53, 0, 64),
    ("gfx942", "v_mfma_f64_16x16x4_f64", "B", 2, 0, 0, 32, 0, 64),
    ("gfx942", "v_mfma_f64_16x16x4_f64", "B", 2, 3, 0, 35, 0, 64),
    ("gfx942", "v_mfma_f64_16x16x4_f64", "B", 3, 13, 0, 61, 0, 64),
    ("gfx942", "v_mfma_f64_16x16x4_f64", "D", 6, 15, 2, 47, 0, 64),
    ("gfx942", "v_mfma_f64_16x16x4_f64", "D", 1, 9, 0, 25, 0, 64),
    ("gfx942", "v_mfma_f64_16x16x4_f64", "D", 2, 3, 0, 35, 0, 64),
    ("gfx942", "v_mfma_f64_16x16x4_f64", "D", 14, 1, 6, 33, 0, 64),
    ("gfx942", "v_mfma_f64_16x16x4_f64", "C", 6, 1, 2, 33, 0, 64),
    ("gfx942", "v_mfma_i32_16x16x32_i8", "A", 0, 18, 0, 32, 16, 8),
    ("gfx942", "v_mfma_i32_16x16x32_i8", "A", 10, 2, 0, 10, 16, 8),
    ("gfx942", "v_mfma_i32_16x16x32_i8", "A", 6, 17, 0, 38, 8, 8),
    ("gfx942", "v_mfma_i32_16x16x32_i8", "A", 5, 21, 1, 37, 8, 8),
    ("gfx942", "v_mfma_i32_16x16x32_i8", "B", 27, 9, 0, 57, 24, 8),
    ("gfx942", "v_mfma_i32_16x16x32_i8", "B", 9, 2, 0, 18, 8, 8),
    ("gfx942", "v_mfma_i32_16x16x32_i8", "B", 17, 4, 0, 36, 8, 8),
    ("gfx942", "v_mfma_i32_16x16x32_i8", "D", 14, 14, 2, 62, 0, 32),
    ("gfx942", "v_mfma_i32_16x16x32_i8", "D", 4, 3, 0, 19, 0, 32),
    ("gfx942", "v_mfma_i32_16x16x32_i8", "D", 2, 2, 2, 2, 0, 32),
    ("gfx942", "v_mfma_i32_16x16x32_i8", "D", 2, 4, 2, 4, 0, 32),
    ("gfx942", "v_mfma_i32_16x16x32_i8", "C", 9, 6, 1, 38, 0, 32),
    ("gfx942", "v_mfma_i32_32x32x16_i8", "A", 25, 0, 0, 25, 0, 8),
    ("gfx942", "v_mfma_i32_32x32x16_i8", "A", 18, 14, 1, 50, 16, 8),
    ("gfx942", "v_mfma_i32_32x32x16_i8", "A", 9, 1, 0, 9, 8, 8),
    ("gfx942", "v_mfma_i32_32x32x16_i8", "A", 16, 2, 0, 16, 16, 8),
    ("gfx942", "v_mfma_i32_32x32x16_i8", "B", 1, 27, 0, 27, 8, 8),
    ("gfx942", "v_mfma_i32_32x32x16_i8", "B", 2, 19, 0, 19, 16, 8),
    ("gfx942", "v_mfma_i32_32x32x16_i8", "B", 0, 23, 0, 23, 0, 8),
    ("gfx942", "v_mfma_i32_32x32x16_i8", "D", 2, 22, 2, 22, 0, 32),
    ("gfx942", "v_mfma_i32_32x32x16_i8", "D", 22, 5, 10, 37, 0, 32),
    ("gfx942", "v_mfma_i32_32x32x16_i8", "D", 23, 21, 11, 53, 0, 32),
    ("gfx942", "v_mfma_i32_32x32x16_i8", "D", 20, 4, 8, 36, 0, 32),
    ("gfx942", "v_mfma_i32_32x32x16_i8", "C", 6, 29, 2, 61, 0, 32),
    ("gfx1100", "v_wmma_bf16_16x16x16_bf16", "A", 1, 13, 6, 1, 16, 16),
    ("gfx1100", "v_wmma_bf16_16x16x16_bf16", "A", 15, 12, 6, 15, 0, 16),
    ("gfx1100", "v_wmma_bf16_16x16x16_bf16", "A", 9, 4, 2, 25, 0, 16),
    ("gfx1100", "v_wmma_bf16_16x16x16_bf16", "A", 8, 2, 1, 24, 0, 16),
    ("gfx1100", "v_wmma_bf16_16x16x16_bf16", "B", 5, 3, 2, 19, 16, 16),
    ("gfx1100", "v_wmma_bf16_16x16x16_bf16", "B", 14, 1, 7, 17, 0, 16),
    ("gfx1100", "v_wmma_bf16_16x16x16_bf16", "B", 15, 1, 7, 1, 16, 16),
    ("gfx1100", "v_wmma_bf16_16x16x16_bf16", "D", 4, 3, 2, 3, 0, 16),
    ("gfx1100", "v_wmma_bf16_16x16x16_bf16", "D", 0, 9, 0, 9, 0, 16),
    ("gfx1100", "v_wmma_bf16_16x16x16_bf16", "D", 2, 13, 1, 13, 0, 16),
    ("gfx1100", "v_wmma_bf16_16x16x16_bf16", "D", 9, 12, 4, 28, 0, 16),
    ("gfx1100", "v_wmma_bf16_16x16x16_bf16", "D4", 5, 13, 2, 29, 16, 16),
    ("gfx1100", "v_wmma_f16_16x16x16_f16", "A", 15, 9, 4, 31, 16, 16),
    ("gfx1100", "v_wmma_f16_16x16x16_f16", "A", 10, 8, 4, 10, 0, 16),
    ("gfx1100", "v_wmma_f16_16x16x16_f16", "A", 11, 6, 3, 27, 0, 16),
    ("gfx1100", "v_wmma_f16_16x16x16_f16", "A", 9, 7, 3, 25, 16, 16),
    ("gfx1100", "v_wmma_f16_16x16x16_f16", "B", 8, 7, 4, 23, 0, 16),
    ("gfx1100", "v_wmma_f16_16x16x16_f16", "B", 15, 6, 7, 22, 16, 16),
    ("gfx1100", "v_wmma_f16_16x16x16_f16", "B", 0, 11, 0, 11, 0, 16),
    ("gfx1100", "v_wmma_f16_16x16x16_f16", "D", 13, 2, 6, 18, 0, 16),
    ("gfx1100", "v_wmma_f16_16x16x16_f16", "D", 3, 15, 1, 31, 0, 16),
    ("gfx1100", "v_wmma_f16_16x16x16_f16", "D", 4, 0, 2, 0, 0, 16),
    ("gfx1100", "v_wmma_f16_16x16x16_f16", "D", 0, 7, 0, 7, 0, 16),
    ("gfx1100", "v_wmma_f16_16x16x16_f16", "D4", 11, 8, 5, 24, 16, 16),
    ("gfx1100", "v_wmma_f32_16x16x16_bf16", "A", 8, 5, 2, 24, 16, 16),
    ("gfx1100", "v_wmma_f32_16x16x16_bf16", "A", 5, 0, 0, 21, 0, 16),
    ("gfx1100", "v_wmma_f32_16x16x16_bf16", "A", 7, 13, 6, 7, 16, 16),
    ("gfx1100", "v_wmma_f32_16x16x16_bf16", "A", 9, 1, 0, 9, 16, 16),
    ("gfx1100", "v_wmma_f32_16x16x16_bf16", "B", 7, 11, 3, 27, 16, 16),
    ("gfx1100", "v_wmma_f32_16x16x16_bf16", "B", 2, 15, 1, 15, 0, 16),
    ("gfx1100", "v_wmma_f32_16x16x16_bf16", "B", 11, 8, 5, 24, 16, 16),
    ("gfx1100", "v_wmma_f32_16x16x16_bf16", "D", 14, 10, 7, 10, 0, 32),
    ("gfx1100", "v_wmma_f32_16x16x16_bf16", "D", 11, 15, 5, 31, 0, 32),
    ("gfx1100", "v_wmma_f32_16x16x16_bf16", "D", 7, 8, 3, 24, 0, 32),
    ("gfx1100", "v_wmma_f32_16x16x16_bf16", "D", 5, 14, 2, 30, 0, 32),
    ("gfx1100", "v_wmma_f32_16x16x16_bf16", "C", 14, 1, 7, 1, 0, 32),
    ("gfx1100", "v_wmma_f32_16x16x16_f16", "A", 6, 5, 2, 6, 16, 16),
    ("gfx1100", "v_wmma_f32_16x16x16_f16", "A", 8, 11, 5, 8, 16, 16),
    ("gfx1100", "v_wmma_f32_16x16x16_f16", "A", 5, 6, 3, 21, 0, 16),
    ("gfx1100", "v_wmma_f32_16x16x16_f16", "A", 14, 11, 5, 30, 16, 16),
    ("gfx1100", "v_wmma_f32_16x16x16_f16", "B", 9, 11, 4, 27, 16, 16),
    ("gfx1100", "v_wmma_f32_16x16x16_f16", "B", 4, 3, 2, 3, 0, 16),
    ("gfx1100", "v_wmma_f32_16x16x16_f16", "B", 7, 3, 3, 19, 16, 16),
    ("gfx1100", "v_wmma_f32_16x16x16_f16", "D", 12, 0, 6, 0, 0, 32),
    ("gfx1100", "v_wmma_f32_16x16x16_f16", "D", 14, 5, 7, 5, 0, 32),
    ("gfx1100", "v_wmma_f32_16x16x16_f16", "D", 10, 10, 5, 10, 0, 32),
    ("gfx1100", "v_wmma_f32_16x16x16_f16", "D", 15, 0, 7, 16, 0, 32),
    ("gfx1100", "v_wmma_f32_16x16x16_f16", "C", 11, 12, 5, 28, 0, 32),
    ("gfx1100", "v_wmma_i32_16x16x16_iu4", "A", 2, 2, 0, 2, 8, 4),
    ("gfx1100", "v_wmma_i32_16x16x16_iu4", "A", 0, 14, 1, 16, 24, 4),
    ("gfx1100", "v_wmma_i32_16x16x16_iu4", "A", 14, 11, 1, 14, 12, 4),
    ("gfx1100", "v_wmma_i32_16x16x16_iu4", "A", 14, 2, 0, 30, 8, 4),
    ("gfx1100", "v_wmma_i32_16x16x16_iu4", "B", 1, 6, 0, 6, 4, 4),
    ("gfx1100", "v_wmma_i32_16x16x16_iu4", "B", 3, 8, 0, 24, 12, 4),
    ("gfx1100", "v_wmma_i32_16x16x16_iu4", "B", 10, 2, 1, 18, 8, 4),
    ("gfx1100", "v_wmma_i32_16x16x16_iu4", "D", 14, 13, 7, 13, 0, 32),
    ("gfx1100", "v_wmma_i32_16x16x16_iu4", "D", 10, 1, 5, 1, 0, 32),
    ("gfx1100", "v_wmma_i32_16x16x16_iu4", "D", 5, 7, 2, 23, 0, 32),
    ("gfx1100", "v_wmma_i32_16x16x16_iu4", "D", 4, 2, 2, 2, 0, 32),
    ("gfx1100", "v_wmma_i32_16x16x16_iu4", "C", 11, 8, 5, 24, 0, 32),
    ("gfx1100", "v_wmma_i32_16x16x16_iu8", "A", 12, 9, 2, 28, 8, 8),
    ("gfx1100", "v_wmma_i32_16x16x16_iu8", "A", 9, 14, 3, 9, 16, 8),
    ("gfx1100", "v_wmma_i32_16x16x16_iu8", "A", 12, 9, 2, 12, 8, 8),
    ("gfx1100", "v_wmma_i32_16x16x16_iu8", "A", 4, 5, 1, 4, 8, 8),
    ("gfx1100", "v_wmma_i32_16x16x16_iu8", "B", 8, 10, 2, 10, 0, 8),
    ("gfx1100", "v_wmma_i32_16x16x16_iu8", "B", 7, 1, 1, 17, 24, 8),
    ("gfx1100", "v_wmma_i32_16x16x16_iu8", "B", 5, 0, 1, 16, 8, 8),
    ("gfx1100", "v_wmma_i32_16x16x16_iu8", "D", 5, 3, 2, 19, 0, 32),
    ("gfx1100", "v_wmma_i32_16x16x16_iu8", "D", 12, 12, 6, 12, 0, 32),
    ("gfx1100", "v_wmma_i32_16x16x16_iu8", "D", 7, 12, 3, 28, 0, 32),
    ("gfx1100", "v_wmma_i32_16x16x16_iu8", "D", 0, 1, 0, 1, 0, 32),
    ("gfx1100", "v_wmma_i32_16x16x16_iu8", "C", 10, 12, 5, 12, 0, 32),
    ];

    #[test]
    fn layouts_agree_with_calculator_spot_checks() {
        let mut seen = std::collections::BTreeSet::new();
        for &(t, name, which, row, col, reg, lane, bit, width) in SPOT {
            let target = *IsaTarget::ALL.iter().find(|x| x.name() == t).unwrap();
            let op = Op::from_mnemonic(name, target).unwrap_or_else(|| panic!("{name} on {t}"));
            let want = Location {
                reg,
                lane,
                bit,
                width,
            };
            let ours: Vec<Location> = match which {
                "A" => a_locations(op, target, row, col).collect(),
                "B" => b_locations(op, target, row, col).collect(),
                "C" | "D" => cd_location(op, target, row, col).into_iter().collect(),
                _ => cd_location_op_sel(op, target, 4, row, col)
                    .into_iter()
                    .collect(),
            };
            assert!(
                ours.contains(&want),
                "{t} {name} {which}[{row}][{col}]: {ours:?} lacks {want:?}"
            );
            let replicated = matches!(which, "A" | "B") && name.starts_with("v_wmma");
            assert_eq!(
                ours.len(),
                if replicated { 2 } else { 1 },
                "{t} {name} {which}"
            );
            seen.insert((target, op));
        }
        // Every matrix instruction on every target the calculator distinguishes is covered.
        for t in CALC_TARGETS {
            for op in matrix_ops().filter(|&op| shape(op, t).is_some()) {
                assert!(seen.contains(&(t, op)), "no spot checks for {op:?} on {t}");
            }
        }
    }

    /// Every element of A, B and C/D (and every WMMA copy) maps to its own bits inside
    /// the operand's tuple, and together they fill the tuple exactly.
    #[test]
    fn layouts_are_bijections_onto_their_tuples() {
        for t in IsaTarget::ALL {
            for op in matrix_ops() {
                let Some(s) = shape(op, t) else { continue };
                assert_eq!(s.lanes, t.wave_size());
                for (which, rows, cols, regs) in [
                    (MatrixOperand::A, s.m, s.k, s.a_regs),
                    (MatrixOperand::B, s.k, s.n, s.b_regs),
                    (MatrixOperand::Cd, s.m, s.n, s.cd_regs),
                ] {
                    let lanes = s.lanes as usize;
                    // One flag per bit of the tuple, register-major.
                    let mut used = vec![false; usize::from(regs) * lanes * 32];
                    let mut fill = |loc: Location| {
                        assert!(
                            usize::from(loc.lane) < lanes,
                            "{op:?} {t} {which:?} {loc:?}"
                        );
                        for b in 0..u32::from(loc.width) {
                            let bit = u32::from(loc.bit) + b;
                            let reg = usize::from(loc.reg) + (bit / 32) as usize;
                            assert!(reg < usize::from(regs), "{op:?} {t} {which:?} {loc:?}");
                            let at =
                                (reg * lanes + usize::from(loc.lane)) * 32 + (bit % 32) as usize;
                            assert!(!used[at], "{op:?} {t} {which:?}: {loc:?} overlaps");
                            used[at] = true;
                        }
                    };
                    for r in 0..rows {
                        for c in 0..cols {
                            let locs: Vec<Location> = locations(op, t, which, r, c).collect();
                            assert!(!locs.is_empty(), "{op:?} {t} {which:?} ({r}, {c})");
                            locs.into_iter().for_each(&mut fill);
                        }
                    }
                    if which == MatrixOperand::Cd && s.output.bits() == 16 {
                        // 16-bit results fill the low halves; OP_SEL[2] the high halves.
                        for r in 0..rows {
                            for c in 0..cols {
                                fill(cd_location_op_sel(op, t, 4, r, c).unwrap());
                            }
                        }
                    }
                    assert!(
                        used.iter().all(|&u| u),
                        "{op:?} {t} {which:?} leaves bits unused"
                    );
                }
            }
        }
    }

    #[test]
    fn shapes_match_the_opcode_table_and_targets() {
        let mut count = 0;
        for t in IsaTarget::ALL {
            for op in Op::all() {
                let info = op.info();
                let matrix = matches!(info.form, Form::Mai | Form::Wmma);
                let present = info.opcode[t.column()] != NA;
                let Some(s) = shape(op, t) else {
                    assert!(!(matrix && present), "{op:?} on {t} has no shape");
                    continue;
                };
                count += 1;
                assert!(matrix && present, "{op:?} on {t}");
                // Register counts agree with the operand slots (D, A, B, C).
                let widths: Vec<u8> = info
                    .slots
                    .iter()
                    .map(|slot| match *slot {
                        super::super::Slot::MfmaDst(n)
                        | super::super::Slot::MfmaSrc(n)
                        | super::super::Slot::MfmaAcc(n)
                        | super::super::Slot::VDst(n)
                        | super::super::Slot::VReg(n) => n,
                        other => panic!("{op:?}: slot {other:?}"),
                    })
                    .collect();
                assert_eq!(
                    widths,
                    [s.cd_regs, s.a_regs, s.b_regs, s.cd_regs],
                    "{op:?} {t}"
                );
                // A holds M×K elements once per lane group (WMMA: twice).
                let copies = if info.form == Form::Wmma { 2 } else { 1 };
                assert_eq!(
                    s.m * s.k * u32::from(s.input.bits()) * copies,
                    u32::from(s.a_regs) * 32 * s.lanes,
                    "{op:?} {t}"
                );
            }
        }
        // 8 gfx908 + 11 gfx90a + 13 gfx942 + 6 x 4 gfx11 targets.
        assert_eq!(count, 8 + 11 + 13 + 6 * 4);
        assert_eq!(shape(Op::VMfmaF32_32x32x4Xf32, IsaTarget::Gfx90a), None);
        assert_eq!(shape(Op::VWmmaF32_16x16x16F16, IsaTarget::Gfx942), None);
        assert_eq!(shape(Op::VMfmaF32_32x32x8Bf16_1k, IsaTarget::Gfx908), None);
        assert_eq!(shape(Op::SNop, IsaTarget::Gfx90a), None);
        let bf16_old = shape(Op::VMfmaF32_32x32x4Bf16, IsaTarget::Gfx908).unwrap();
        assert_eq!((bf16_old.k, bf16_old.blocks, bf16_old.a_regs), (4, 1, 1));
    }

    #[test]
    fn entries_list_every_location() {
        for t in IsaTarget::ALL {
            for op in matrix_ops() {
                let Some(l) = MatrixLayout::new(op, t) else {
                    continue;
                };
                for which in [MatrixOperand::A, MatrixOperand::B, MatrixOperand::Cd] {
                    let listed: Vec<(u32, u32, Location)> = l.entries(which, 0).collect();
                    let mut want = Vec::new();
                    let s = l.shape();
                    let (rows, cols) = match which {
                        MatrixOperand::A => (s.m, s.k),
                        MatrixOperand::B => (s.k, s.n),
                        MatrixOperand::Cd => (s.m, s.n),
                    };
                    for r in 0..rows {
                        for c in 0..cols {
                            want.extend(locations(op, t, which, r, c).map(|loc| (r, c, loc)));
                        }
                    }
                    assert_eq!(listed, want, "{op:?} {t} {which:?}");
                }
                if l.shape().output.bits() == 16 {
                    assert!(l
                        .entries(MatrixOperand::Cd, 4)
                        .all(|(_, _, loc)| loc.bit == 16));
                }
            }
        }
    }

    #[test]
    fn out_of_range_elements_have_no_location() {
        let (op, t) = (Op::VMfmaF32_32x32x8F16, IsaTarget::Gfx90a);
        assert!(a_location(op, t, 31, 7).is_some());
        assert_eq!(a_location(op, t, 32, 0), None);
        assert_eq!(a_location(op, t, 0, 8), None);
        assert_eq!(b_location(op, t, 8, 0), None);
        assert_eq!(cd_location(op, t, 0, 32), None);
        assert_eq!(a_locations(op, IsaTarget::Gfx1100, 0, 0).count(), 0);
        assert_eq!(a_location(Op::SNop, t, 0, 0), None);
    }

    /// Exhaustive comparison with the calculator. Generate the dump with a script that
    /// runs, for each instruction and matrix X in A B C D (and C/D with `--opsel 4` for
    /// 16-bit WMMA results), `python3 matrix_calculator.py -a <cdna1|cdna2|cdna3|rdna3>
    /// -i <inst> -X -R -c \[-w 32\]` and writes `<gfx>_<inst>.txt` with one line per
    /// (element, copy): `<A|B|C|D|C4|D4> <row> <col> <reg> <lane> <bit> <width>`; then
    /// `ROCM_MATRIX_CALC_DUMP=<dir> cargo test -p rocm-core --lib calculator_dump_agrees`
    /// (`scripts/matrix_calculator_dump.py CALCULATOR_DIR <dir>` writes the dump). Without
    /// the variable the test says so and passes: the spot-check table above is what CI
    /// checks.
    #[test]
    fn calculator_dump_agrees() {
        let Ok(dir) = std::env::var("ROCM_MATRIX_CALC_DUMP") else {
            eprintln!("skipped: ROCM_MATRIX_CALC_DUMP is not set (no calculator dump)");
            return;
        };
        let mut checked = 0;
        for t in CALC_TARGETS {
            for op in matrix_ops().filter(|&op| shape(op, t).is_some()) {
                let path = format!("{dir}/{}_{}.txt", t.name(), calc_name(op, t));
                let text = std::fs::read_to_string(&path).expect(&path);
                let mut want: std::collections::BTreeMap<(String, u32, u32), Vec<Location>> =
                    Default::default();
                for line in text.lines().filter(|l| !l.is_empty()) {
                    let f: Vec<&str> = line.split(' ').collect();
                    let n = |x: usize| f[x].parse::<u32>().unwrap();
                    let loc = Location {
                        reg: n(3) as u16,
                        lane: n(4) as u16,
                        bit: n(5) as u8,
                        width: n(6) as u8,
                    };
                    want.entry((f[0].to_string(), n(1), n(2)))
                        .or_default()
                        .push(loc);
                }
                let s = shape(op, t).unwrap();
                let mut count = 0;
                for (which, rows, cols) in [
                    ("A", s.m, s.k),
                    ("B", s.k, s.n),
                    ("C", s.m, s.n),
                    ("D", s.m, s.n),
                    ("C4", s.m, s.n),
                    ("D4", s.m, s.n),
                ] {
                    for r in 0..rows {
                        for c in 0..cols {
                            let ours: Vec<Location> = match which {
                                "A" => a_locations(op, t, r, c).collect(),
                                "B" => b_locations(op, t, r, c).collect(),
                                "C" | "D" => cd_location(op, t, r, c).into_iter().collect(),
                                _ => cd_location_op_sel(op, t, 4, r, c).into_iter().collect(),
                            };
                            let key = (which.to_string(), r, c);
                            match want.get(&key) {
                                Some(w) => {
                                    let mut w = w.clone();
                                    w.sort_by_key(|l| l.lane);
                                    assert_eq!(ours, w, "{t} {op:?} {key:?}");
                                    count += 1;
                                }
                                None => assert!(which.len() == 2, "{t} {op:?} {key:?} missing"),
                            }
                        }
                    }
                }
                assert_eq!(count, want.len(), "{t} {op:?}: the dump has other elements");
                checked += count;
            }
        }
        eprintln!("{checked} elements agree with the calculator");
    }
}
