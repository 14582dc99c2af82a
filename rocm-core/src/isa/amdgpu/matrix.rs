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
//! # Rules
//!
//! Notation: A is M×K, B is K×N, C/D are M×N; `w` is the input element width in bits
//! (32 f32/xf32, 64 f64, 16 f16/bf16, 8 i8/iu8/fp8, 4 iu4); each lane holds `kl` consecutive
//! K values of one row of A (column of B), packed from bit 0 of register 0 upwards:
//! `kl = a_regs * 32 / w`.
//!
//! | Operand | Register, bits | Lane |
//! |---|---|---|
//! | MFMA A[i][k] | bit offset `w * (k % kl)`: register `/ 32`, bit `% 32` | `M * (k / kl) + i` |
//! | MFMA B[k][j] | same with j | `N * (k / kl) + j` |
//! | MFMA C/D 32x32 (f32, i32) | `4 * (i / 8) + i % 4` | `32 * ((i / 4) % 2) + j` |
//! | MFMA C/D 16x16 (f32, i32) | `i % 4` | `16 * (i / 4) + j` |
//! | MFMA C/D 16x16 f64 | pair `2 * (i / 4)` | `16 * (i % 4) + j` |
//! | WMMA A[i][k] (wave32) | bit offset `w * k` | `i` **and** `i + 16` |
//! | WMMA B[k][j] | same with j | `j` and `j + 16` |
//! | WMMA C/D f32, i32 | `i / 2` | `16 * (i % 2) + j` |
//! | WMMA C/D f16, bf16 | `i / 2`, bits [15:0] (OP_SEL[2]: [31:16]) | `16 * (i % 2) + j` |
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
    /// f32 inputs read at reduced precision (gfx942 `_xf32`).
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
/// bits `bit .. bit + width`.
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

/// The shape of a matrix instruction on a target; `None` for other instructions or where
/// the target lacks it.
pub fn shape(op: Op, target: IsaTarget) -> Option<MatrixShape> {
    let r = lookup(op, target)?;
    Some(MatrixShape {
        m: r.m,
        n: r.n,
        k: r.k,
        blocks: 1,
        a_regs: r.ab_regs,
        b_regs: r.ab_regs,
        cd_regs: r.cd_regs,
        lanes: target.wave_size(),
        input: r.input,
        output: r.output,
    })
}

/// Location of the `k`-th K value of row/column `rc` of A or B (`dim` = M or N).
fn input_location(r: &Row, rc: u32, k: u32, dim: u32) -> Option<Location> {
    if rc >= dim || k >= r.k {
        return None;
    }
    let w = u32::from(r.input.bits());
    let per_lane = u32::from(r.ab_regs) * 32 / w;
    let offset = w * (k % per_lane);
    // WMMA lanes hold all of K (per_lane == K): the group is 0, the lane the primary copy.
    let lane = dim * (k / per_lane) + rc;
    Some(Location {
        reg: (offset / 32) as u16,
        lane: lane as u16,
        bit: (offset % 32) as u8,
        width: w as u8,
    })
}

/// Where A[i][k] lives (for gfx11 WMMA: the primary copy, lane `i` < 16; the replica is
/// lane `i + 16`, see [`a_locations`]). `None` if `op` is not a matrix instruction on
/// `target` or (i, k) is outside A.
pub fn a_location(op: Op, target: IsaTarget, i: u32, k: u32) -> Option<Location> {
    let r = lookup(op, target)?;
    input_location(r, i, k, r.m)
}

/// Where B[k][j] lives (for gfx11 WMMA: the primary copy, lane `j` < 16; the replica is
/// lane `j + 16`, see [`b_locations`]).
pub fn b_location(op: Op, target: IsaTarget, k: u32, j: u32) -> Option<Location> {
    let r = lookup(op, target)?;
    input_location(r, j, k, r.n)
}

/// Where C[i][j] and D[i][j] live. For 16-bit WMMA results these are bits [15:0]; with
/// OP_SEL[2] set they are bits [31:16] ([`cd_location_op_sel`]).
pub fn cd_location(op: Op, target: IsaTarget, i: u32, j: u32) -> Option<Location> {
    let r = lookup(op, target)?;
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
    Some(Location {
        reg: reg as u16,
        lane: lane as u16,
        bit: 0,
        width,
    })
}

/// [`cd_location`] with the instruction's OP_SEL bits: for 16-bit WMMA results, OP_SEL[2]
/// (`op_sel & 4`) moves C and D to bits [31:16]. Other instructions ignore `op_sel`.
pub fn cd_location_op_sel(
    op: Op,
    target: IsaTarget,
    op_sel: u8,
    i: u32,
    j: u32,
) -> Option<Location> {
    let mut loc = cd_location(op, target, i, j)?;
    if loc.width == 16 && op_sel & 4 != 0 {
        loc.bit = 16;
    }
    Some(loc)
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
    let wmma = lookup(op, target).is_some_and(|r| r.cd == Wmma);
    Replicas {
        first,
        copies: if wmma { 2 } else { 1 },
        next: 0,
        stride: 16,
    }
}

/// Every location of A[i][k] (two on gfx11 WMMA: lanes `i` and `i + 16`; one on MFMA).
/// Empty where [`a_location`] is `None`.
pub fn a_locations(op: Op, target: IsaTarget, i: u32, k: u32) -> Replicas {
    replicas(op, target, a_location(op, target, i, k))
}

/// Every location of B[k][j] (two on gfx11 WMMA: lanes `j` and `j + 16`; one on MFMA).
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

    /// Exhaustive comparison with the calculator. Generate the dump with a script that
    /// runs, for each instruction and matrix X in A B C D (and C/D with `--opsel 4` for
    /// 16-bit WMMA results), `python3 matrix_calculator.py -a <cdna1|cdna2|cdna3|rdna3>
    /// -i <inst> -X -R -c [-w 32]` and writes `<gfx>_<inst>.txt` with one line per
    /// (element, copy): `<A|B|C|D|C4|D4> <row> <col> <reg> <lane> <bit> <width>`; then
    /// `ROCM_MATRIX_CALC_DUMP=<dir> cargo test -p rocm-core --lib matrix -- --ignored`.
    #[test]
    #[ignore = "needs a dump of AMD's matrix instruction calculator"]
    fn calculator_dump_agrees() {
        let dir = std::env::var("ROCM_MATRIX_CALC_DUMP").expect("ROCM_MATRIX_CALC_DUMP");
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
