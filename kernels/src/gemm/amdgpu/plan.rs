//! The plan of one kernel: [`GemmParams`] checked against the target and turned into the
//! numbers the emitter uses (instruction, wave tiles, load vectors, LDS layout).
//!
//! Every rule the target or the kernel shape imposes is checked here, so the emitter
//! never meets an impossible request; a refusal names the `GemmParams` field.

use crate::gemm::{GemmInstruction, GemmParams};
use rocm_core::isa::amdgpu::matrix::{self, MatrixShape, MatrixType};
use rocm_core::isa::amdgpu::{IsaTarget, Op};
use rocm_core::target::MatrixKind;
use rocm_core::{DType, Error, Result};

/// Paddings tried after every LDS row (multiples of 16 bytes keep `ds_*_b128` aligned);
/// [`Plan::new`] takes the first with the fewest bank-conflict cycles ([`lds_cycles`]).
pub const LDS_PADS: [u32; 8] = [0, 16, 32, 48, 64, 80, 96, 112];
/// LDS banks of 4 bytes served per clock (the model of [`lds_cycles`]).
pub const LDS_BANKS: u32 = 32;
/// LDS one workgroup may use (every target here).
pub const LDS_LIMIT: u32 = 64 * 1024;
/// Accumulator registers kept in VGPRs at most (more go to AGPRs on gfx90a/gfx942).
pub const ACC_VGPR_LIMIT: u32 = 96;
/// Largest vector one lane loads from global memory.
pub const MAX_VECTOR_BYTES: u32 = 16;

/// How one of A, B travels from global memory to LDS.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OperandPlan {
    /// Stored contiguous along m (A) / n (B); else along k.
    pub mn_contig: bool,
    /// The tile's extent along m (A) or n (B).
    pub tile_mn: u32,
    /// Elements per global load vector, along the contiguous dimension.
    pub vw: u32,
    /// Load units per thread. A unit is `word_k` vectors at consecutive k (mn-contiguous)
    /// or one vector (k-contiguous).
    pub units: u32,
    /// Units along the contiguous dimension (a thread's unit position is `tid % c_units`
    /// along it and `tid / c_units + w * ostep` across it).
    pub c_units: u32,
    pub ostep: u32,
    /// LDS row pitch in bytes and the operand's offset inside a stage.
    pub pitch: u32,
    pub lds_offset: u32,
    pub lds_bytes: u32,
}

impl OperandPlan {
    /// Global load vectors per unit.
    pub fn vectors(&self, word_k: u32) -> u32 {
        if self.mn_contig {
            word_k
        } else {
            1
        }
    }
}

/// The register-tiled FMA ("SIMT") kernel's lanes: lane `l` of a wave owns `thread_m ×
/// thread_n` results of the wave's tile, one `v_fma` each per k. Its rows come in chunks
/// of `chunk_m` consecutive rows (one LDS read of at most 16 bytes each): chunk `c` is
/// rows `c·lanes_m·chunk_m + (l % lanes_m)·chunk_m ..`, so the lanes of one read take
/// consecutive 16-byte pieces of the LDS row (no bank conflicts) instead of each lane
/// striding over its whole run. Columns likewise: chunk `c` of `chunk_n` columns at
/// `c·lanes_n·chunk_n + (l / lanes_m)·chunk_n`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FmaTile {
    pub thread_m: u32,
    pub thread_n: u32,
    pub lanes_m: u32,
    pub lanes_n: u32,
    pub chunk_m: u32,
    pub chunk_n: u32,
}

impl FmaTile {
    /// Row (relative to the lane's first) of the lane's `i`-th row.
    pub fn row(&self, i: u32) -> u32 {
        (i / self.chunk_m) * self.lanes_m * self.chunk_m + i % self.chunk_m
    }

    /// Column (relative to the lane's first) of the lane's `j`-th column.
    pub fn col(&self, j: u32) -> u32 {
        (j / self.chunk_n) * self.lanes_n * self.chunk_n + j % self.chunk_n
    }
}

/// Everything the emitter needs.
#[derive(Debug, Clone, PartialEq)]
pub struct Plan {
    pub target: IsaTarget,
    /// The matrix instruction, or `v_fma_f32`/`v_fma_f64` for the FMA kernel.
    pub op: Op,
    /// The matrix instruction's shape; for the FMA kernel the wave's whole tile at k = 1
    /// (one block, `a_regs`/`b_regs`/`cd_regs` per lane), so the k loop takes one k per step.
    pub shape: MatrixShape,
    /// Set for the register-tiled FMA kernel (`GemmInstruction::Simt`).
    pub fma: Option<FmaTile>,
    pub wmma: bool,
    pub ab: DType,
    pub c: DType,
    /// f64 accumulation and scalars (else f32).
    pub f64: bool,
    /// Bytes per A/B element and per C element.
    pub es: u32,
    pub es_c: u32,
    pub tile_m: u32,
    pub tile_n: u32,
    pub tile_k: u32,
    pub warps_m: u32,
    pub warps_n: u32,
    pub wave: u32,
    pub threads: u32,
    /// Matrix-instruction blocks per wave along m and n, and k steps per tile.
    pub blocks_m: u32,
    pub blocks_n: u32,
    pub steps: u32,
    /// K values one lane holds per instruction (`kl`), per LDS word, and bytes per word.
    pub kl: u32,
    pub word_k: u32,
    pub wbytes: u32,
    /// k steps one word feeds (`word_k / kl`, at least 1) and words one step needs
    /// (`kl / word_k`, at least 1).
    pub spw: u32,
    pub wpl: u32,
    /// K-slices of the instruction: lane groups holding different k (`K / kl`).
    pub slices: u32,
    pub a: OperandPlan,
    pub b: OperandPlan,
    /// Accumulators in AGPRs (always on gfx908).
    pub acc_agpr: bool,
    pub stages: u32,
    /// Bytes of one LDS stage (A then B) and the distance between stages.
    pub stage_bytes: u32,
    pub stage_stride: u32,
}

fn pow2(field: &str, x: u32) -> Result<()> {
    if x == 0 || !x.is_power_of_two() {
        return Err(Error::invalid(field, format!("{x} is not a power of two")));
    }
    Ok(())
}

fn elem_bytes(d: DType, field: &str) -> Result<u32> {
    match d {
        DType::F16 | DType::Bf16 => Ok(2),
        DType::F32 => Ok(4),
        DType::F64 => Ok(8),
        other => Err(Error::unsupported(
            format!("AMDGPU GEMM with {field} = {other}"),
            "the MFMA/WMMA kernels (f16, bf16, f32, f64)",
        )),
    }
}

/// The matrix type the instruction must read for inputs `ab`.
fn input_type(p: &GemmParams) -> Result<MatrixType> {
    Ok(match (p.ab, p.reduced_f32) {
        (DType::F16, false) => MatrixType::F16,
        (DType::Bf16, false) => MatrixType::Bf16,
        (DType::F32, false) => MatrixType::F32,
        (DType::F32, true) => MatrixType::Xf32,
        (DType::F64, false) => MatrixType::F64,
        (d, true) => {
            return Err(Error::invalid(
                "reduced_f32",
                format!("applies to f32 inputs, not {d}"),
            ))
        }
        (d, _) => return Err(Error::unsupported(format!("AMDGPU GEMM of {d}"), "ab")),
    })
}

/// The instruction of `p` on `t`: the one matrix op whose shape, input type and
/// accumulator type match (the table is rocm-core's `matrix` module).
fn instruction(p: &GemmParams, t: IsaTarget) -> Result<(Op, MatrixShape)> {
    let input = input_type(p)?;
    let output = if input == MatrixType::F64 {
        MatrixType::F64
    } else {
        MatrixType::F32
    };
    // The target's matrix instructions (its `Caps::matrix` column) say which kind runs.
    let has = |kind: MatrixKind| t.caps().matrix.iter().any(|m| m.kind == kind);
    let (m, n, k) = match p.instruction {
        GemmInstruction::Mfma { m, n, k } if has(MatrixKind::Mfma) => (m, n, k),
        GemmInstruction::Wmma if has(MatrixKind::Wmma) => (16, 16, 16),
        i => {
            return Err(Error::invalid(
                "instruction",
                format!("{i:?} does not run on {t} (gfx9: Mfma, gfx11: Wmma)"),
            ))
        }
    };
    matrix::matrix_ops()
        .filter_map(|op| matrix::shape(op, t).map(|s| (op, s)))
        .find(|(_, s)| {
            s.m == m
                && s.n == n
                && s.k == k
                && s.blocks == 1
                && s.input == input
                && s.output == output
        })
        .ok_or_else(|| {
            Error::unsupported(
                format!(
                    "a {m}x{n}x{k} matrix instruction with {} inputs and {} accumulation",
                    p.ab, p.compute
                ),
                t.name(),
            )
        })
}

/// The FMA kernel's op, its per-wave "shape" (see [`Plan::shape`]) and lane layout.
fn fma_tile(
    p: &GemmParams,
    wave: u32,
    wt_m: u32,
    wt_n: u32,
    thread_m: u32,
    thread_n: u32,
) -> Result<(Op, MatrixShape, FmaTile)> {
    let (op, ty) = match (p.ab, p.reduced_f32) {
        (DType::F32, false) => (Op::VFmaF32, MatrixType::F32),
        (DType::F64, false) => (Op::VFmaF64, MatrixType::F64),
        (d, r) => {
            return Err(Error::unsupported(
                format!(
                    "the AMDGPU FMA GEMM kernel with {d} inputs{}",
                    if r { " (reduced f32)" } else { "" }
                ),
                "ab (f32, f64)",
            ))
        }
    };
    pow2("instruction", thread_m)?;
    pow2("instruction", thread_n)?;
    let er = u32::from(ty.bits()) / 32;
    // A lane's operand run is read as at most four 16-byte LDS words, and its
    // accumulators take at most half of the 256 VGPRs a wave may address.
    if thread_m * thread_n * er > 128 || thread_m * er > 16 || thread_n * er > 16 {
        return Err(Error::invalid(
            "instruction",
            format!(
                "a {thread_m}x{thread_n} register tile of {} is too large",
                p.ab
            ),
        ));
    }
    if wt_m % thread_m != 0 || wt_n % thread_n != 0 || (wt_m / thread_m) * (wt_n / thread_n) != wave
    {
        return Err(Error::invalid(
            "instruction",
            format!(
                "{thread_m}x{thread_n} lane tiles do not cover the {wt_m}x{wt_n} wave tile \
                 with the {wave} lanes of a wave"
            ),
        ));
    }
    let shape = MatrixShape {
        m: wt_m,
        n: wt_n,
        k: 1,
        blocks: 1,
        a_regs: (thread_m * er) as u8,
        b_regs: (thread_n * er) as u8,
        cd_regs: (thread_m * thread_n * er) as u8,
        lanes: wave,
        input: ty,
        output: ty,
    };
    let chunk = MAX_VECTOR_BYTES / (4 * er);
    let tile = FmaTile {
        thread_m,
        thread_n,
        lanes_m: wt_m / thread_m,
        lanes_n: wt_n / thread_n,
        chunk_m: thread_m.min(chunk),
        chunk_n: thread_n.min(chunk),
    };
    Ok((op, shape, tile))
}

/// The largest vector width (elements, a power of two, `vw * es ≤ 16`, at least
/// `min_vw`) for which the tile splits into whole units over the threads.
fn operand(
    name: &str,
    mn_contig: bool,
    tile_mn: u32,
    tile_k: u32,
    word_k: u32,
    es: u32,
    threads: u32,
) -> Result<OperandPlan> {
    let mut vw = MAX_VECTOR_BYTES / es;
    let min_vw = if mn_contig { 1 } else { word_k };
    while vw >= min_vw && vw >= 1 {
        let (c_extent, o_extent, unit) = if mn_contig {
            (tile_mn, tile_k / word_k, vw * word_k)
        } else {
            (tile_k, tile_mn, vw)
        };
        if c_extent % vw == 0 {
            let c_units = c_extent / vw;
            let total = c_units * o_extent;
            if total * unit == tile_mn * tile_k && total % threads == 0 && threads % c_units == 0 {
                return Ok(OperandPlan {
                    mn_contig,
                    tile_mn,
                    vw,
                    units: total / threads,
                    c_units,
                    ostep: threads / c_units,
                    pitch: 0,
                    lds_offset: 0,
                    lds_bytes: 0,
                });
            }
        }
        vw /= 2;
    }
    Err(Error::invalid(
        "tile_k",
        format!(
            "the {name} tile ({tile_mn}x{tile_k}) does not split into whole load vectors \
             over {threads} threads"
        ),
    ))
}

impl Plan {
    /// Checks `p` for `t` and lays the kernel out.
    pub fn new(p: &GemmParams, t: IsaTarget) -> Result<Plan> {
        let es = elem_bytes(p.ab, "ab")?;
        let es_c = elem_bytes(p.c, "c")?;
        let f64 = p.ab == DType::F64;
        let want_compute = if f64 { DType::F64 } else { DType::F32 };
        if p.compute != want_compute {
            return Err(Error::invalid(
                "compute",
                format!(
                    "{} inputs accumulate in {want_compute}, not {}",
                    p.ab, p.compute
                ),
            ));
        }
        if f64 != (p.c == DType::F64) {
            return Err(Error::invalid(
                "c",
                format!("{} with {} inputs (f64 pairs only with f64)", p.c, p.ab),
            ));
        }
        for (f, x) in [
            ("tile_m", p.tile_m),
            ("tile_n", p.tile_n),
            ("tile_k", p.tile_k),
            ("warps_m", p.warps_m),
            ("warps_n", p.warps_n),
        ] {
            pow2(f, x)?;
        }
        let wave = t.wave_size();
        let threads = p.warps_m * p.warps_n * wave;
        if threads > 1024 {
            return Err(Error::invalid(
                "warps_m",
                format!(
                    "{}x{} waves of {wave} pass 1024 work-items",
                    p.warps_m, p.warps_n
                ),
            ));
        }
        let (wt_m, wt_n) = (p.tile_m / p.warps_m, p.tile_n / p.warps_n);
        let (op, shape, fma) = match p.instruction {
            GemmInstruction::Simt { thread_m, thread_n } => {
                let (op, shape, fma) = fma_tile(p, wave, wt_m, wt_n, thread_m, thread_n)?;
                (op, shape, Some(fma))
            }
            _ => {
                let (op, shape) = instruction(p, t)?;
                (op, shape, None)
            }
        };
        let wmma = matches!(p.instruction, GemmInstruction::Wmma);
        if wt_m == 0 || wt_m % shape.m != 0 {
            return Err(Error::invalid(
                "tile_m",
                format!(
                    "{} over {} waves is not a multiple of the instruction's m = {}",
                    p.tile_m, p.warps_m, shape.m
                ),
            ));
        }
        if wt_n == 0 || wt_n % shape.n != 0 {
            return Err(Error::invalid(
                "tile_n",
                format!(
                    "{} over {} waves is not a multiple of the instruction's n = {}",
                    p.tile_n, p.warps_n, shape.n
                ),
            ));
        }
        if p.tile_k % shape.k != 0 {
            return Err(Error::invalid(
                "tile_k",
                format!(
                    "{} is not a multiple of the instruction's k = {}",
                    p.tile_k, shape.k
                ),
            ));
        }
        if !(1..=2).contains(&p.stages) {
            return Err(Error::invalid(
                "stages",
                format!("{} (the AMDGPU kernels have 1 or 2 LDS stages)", p.stages),
            ));
        }
        // Epilogue row offsets are global-instruction immediates (13-bit signed).
        if p.tile_m * es_c > 4095 {
            return Err(Error::invalid(
                "tile_m",
                format!(
                    "{} rows of {} bytes pass the 4095-byte store offset",
                    p.tile_m, es_c
                ),
            ));
        }
        let bits = u32::from(shape.input.bits());
        let kl = if wmma || fma.is_some() {
            shape.k
        } else {
            u32::from(shape.a_regs) * 32 / bits
        };
        // The widest LDS word (k values a lane reads at once, up to 16 bytes) both operands
        // can be loaded for and the k steps divide into; at least 4 bytes (LDS has no
        // 16-bit accesses in our table).
        let steps = p.tile_k / shape.k;
        // The FMA kernel's lanes read runs along mn of one k: words of one element.
        let mut word_k = if fma.is_some() {
            1
        } else {
            MAX_VECTOR_BYTES / es
        };
        let (mut a, mut b) = loop {
            let spw = (word_k / kl).max(1);
            let a = operand("A", !p.trans_a, p.tile_m, p.tile_k, word_k, es, threads);
            let b = operand("B", p.trans_b, p.tile_n, p.tile_k, word_k, es, threads);
            match (a, b) {
                (Ok(a), Ok(b)) if steps % spw == 0 => break (a, b),
                (Err(e), _) | (_, Err(e)) if word_k / 2 * es < 4 => return Err(e),
                _ if word_k / 2 * es < 4 => {
                    return Err(Error::invalid(
                        "tile_k",
                        format!("{} k steps do not fill whole LDS words", steps),
                    ))
                }
                _ => word_k /= 2,
            }
        };
        let wbytes = word_k * es;
        let rows = p.tile_k / word_k;
        let lanes = Lanes {
            wave,
            wbytes,
            word_k,
            wpl: (kl / word_k).max(1),
            // The FMA kernel's lanes all read one word row, like WMMA's.
            one_row: wmma || fma.is_some(),
        };
        a.pitch = best_pitch(&a, &lanes, shape.m);
        a.lds_bytes = rows * a.pitch;
        b.pitch = best_pitch(&b, &lanes, shape.n);
        // 16-byte aligned, for `ds_read_b128` (A's rows may be narrower with tiny FMA tiles).
        b.lds_offset = a.lds_bytes.next_multiple_of(16);
        b.lds_bytes = rows * b.pitch;
        let stage_bytes = b.lds_offset + b.lds_bytes;
        let stage_stride = stage_bytes.next_multiple_of(16);
        let lds = if p.stages == 2 {
            stage_stride + stage_bytes
        } else {
            stage_bytes
        };
        if lds > LDS_LIMIT {
            return Err(Error::invalid(
                "tile_k",
                format!(
                    "{lds} bytes of LDS for {}x{}x{} in {} stage(s) pass the {LDS_LIMIT} of a workgroup",
                    p.tile_m, p.tile_n, p.tile_k, p.stages
                ),
            ));
        }
        Ok(Plan {
            target: t,
            op,
            shape,
            fma,
            wmma,
            ab: p.ab,
            c: p.c,
            f64,
            es,
            es_c,
            tile_m: p.tile_m,
            tile_n: p.tile_n,
            tile_k: p.tile_k,
            warps_m: p.warps_m,
            warps_n: p.warps_n,
            wave,
            threads,
            blocks_m: wt_m / shape.m,
            blocks_n: wt_n / shape.n,
            steps: p.tile_k / shape.k,
            kl,
            word_k,
            wbytes,
            spw: (word_k / kl).max(1),
            wpl: (kl / word_k).max(1),
            slices: shape.k / kl,
            a,
            b,
            // gfx908 has no other choice; elsewhere AGPRs keep large tiles' accumulators
            // out of the 256 architectural VGPRs.
            // (The FMA kernel's accumulators are VALU operands: VGPRs.)
            acc_agpr: fma.is_none()
                && (t == IsaTarget::Gfx908
                    || (wt_m / shape.m) * (wt_n / shape.n) * u32::from(shape.cd_regs)
                        > ACC_VGPR_LIMIT),
            stages: p.stages,
            stage_bytes,
            stage_stride,
        })
    }

    /// LDS bytes the kernel declares.
    pub fn lds_bytes(&self) -> u32 {
        if self.stages == 2 {
            self.stage_stride + self.stage_bytes
        } else {
            self.stage_bytes
        }
    }

    /// Wave tile along m and n.
    pub fn wave_tile(&self) -> (u32, u32) {
        (self.blocks_m * self.shape.m, self.blocks_n * self.shape.n)
    }
}

/// Where the C/D registers of the instruction put their elements, derived from
/// [`matrix::cd_location`]: lane `l` holds column `l % n` and, in register `reg`, row
/// `row_base[reg] + lane_row_stride * (l / n)`. `runs` groups registers holding
/// consecutive rows (one vector store each): `(first element, elements, row of the first)`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CdMap {
    pub lane_row_stride: u32,
    /// Registers per element (2 for f64).
    pub elem_regs: u32,
    pub runs: Vec<(u32, u32, u32)>,
}

impl CdMap {
    /// The FMA kernel's column of `thread_m` accumulators (one element after another,
    /// rows by [`FmaTile::row`]) in runs of at most `max_run` consecutive rows.
    pub fn fma(f: &FmaTile, es_c: u32, max_run: u32) -> CdMap {
        let run = f.chunk_m.min(max_run.max(1));
        CdMap {
            lane_row_stride: 0,
            elem_regs: es_c.div_ceil(4),
            runs: (0..f.thread_m)
                .step_by(run as usize)
                .map(|r| (r, run, f.row(r)))
                .collect(),
        }
    }

    pub fn new(op: Op, t: IsaTarget, max_run: u32) -> Result<CdMap> {
        let s =
            matrix::shape(op, t).ok_or_else(|| Error::unsupported(format!("{op:?}"), t.name()))?;
        let elem_regs = u32::from(s.output.bits()).div_ceil(32);
        let elems = u32::from(s.cd_regs) / elem_regs;
        let mut row_base = vec![None; elems as usize];
        let mut stride = None;
        let bad = || Error::unsupported(format!("the C/D layout of {op:?}"), t.name());
        for i in 0..s.m {
            for j in 0..s.n {
                let loc = matrix::cd_location(op, t, i, j).ok_or_else(bad)?;
                let lane = u32::from(loc.lane);
                let e = (u32::from(loc.reg) / elem_regs) as usize;
                if lane % s.n != j || e >= row_base.len() {
                    return Err(bad());
                }
                let q = lane / s.n;
                if q == 0 {
                    row_base[e] = Some(i);
                } else if e == 0 && q == 1 {
                    stride = Some(i);
                }
            }
        }
        let base: Vec<u32> = row_base
            .into_iter()
            .collect::<Option<_>>()
            .ok_or_else(bad)?;
        let stride = match stride {
            Some(i) => i - base[0],
            None => 0,
        };
        // Every element must follow the affine rule.
        for i in 0..s.m {
            for j in 0..s.n {
                let loc = matrix::cd_location(op, t, i, j).ok_or_else(bad)?;
                let q = u32::from(loc.lane) / s.n;
                let e = (u32::from(loc.reg) / elem_regs) as usize;
                if base[e] + stride * q != i {
                    return Err(bad());
                }
            }
        }
        let mut runs: Vec<(u32, u32, u32)> = Vec::new();
        for (e, &row) in base.iter().enumerate() {
            match runs.last_mut() {
                Some((_, n, r0)) if *r0 + *n == row && *n < max_run => *n += 1,
                _ => runs.push((e as u32, 1, row)),
            }
        }
        Ok(CdMap {
            lane_row_stride: stride,
            elem_regs,
            runs,
        })
    }
}

/// What the LDS access patterns depend on besides the operand.
struct Lanes {
    wave: u32,
    wbytes: u32,
    word_k: u32,
    wpl: u32,
    /// Every lane of a read reads the same word row (WMMA, FMA), else MFMA's K-slices.
    one_row: bool,
}

/// Clock cycles the LDS needs for the byte addresses `addrs` of one wave's access of
/// `width` bytes per lane, under the model: lanes go in phases of `128 / width`
/// (32 lanes for 4 bytes, 16 for 8, 8 for 16); a phase takes as many cycles as the
/// largest number of distinct dwords that fall in one of the [`LDS_BANKS`] banks.
pub fn lds_cycles(addrs: &[u32], width: u32) -> u32 {
    let per_phase = (LDS_BANKS * 4 / width).max(1) as usize;
    addrs
        .chunks(per_phase)
        .map(|phase| {
            let mut banks: Vec<Vec<u32>> = vec![Vec::new(); LDS_BANKS as usize];
            for &a in phase {
                for d in 0..width / 4 {
                    let dword = a / 4 + d;
                    let bank = &mut banks[(dword % LDS_BANKS) as usize];
                    if !bank.contains(&dword) {
                        bank.push(dword);
                    }
                }
            }
            banks.iter().map(Vec::len).max().unwrap_or(0).max(1) as u32
        })
        .sum()
}

/// LDS cycles of one wave's writes of a k slice (first unit) and reads of one k step's
/// words for one block, for an operand at row pitch `pitch`: `(writes, reads)`.
fn operand_lds_cycles(o: &OperandPlan, l: &Lanes, inst_mn: u32, pitch: u32) -> (u32, u32) {
    let lanes = 0..l.wave;
    let mut cycles = 0;
    if o.mn_contig {
        // Per 16-byte chunk: lane (cu, ou) at row ou, byte cu * vw * wbytes.
        let total = o.vw * l.wbytes;
        let chunk = total.min(16);
        for i in 0..total / chunk {
            let addrs: Vec<u32> = lanes
                .clone()
                .map(|t| (t / o.c_units) * pitch + (t % o.c_units) * total + i * chunk)
                .collect();
            cycles += lds_cycles(&addrs, chunk);
        }
    } else {
        // Per word q: lane (cu, ou) at row cu * vw / word_k + q, byte ou * wbytes.
        for q in 0..o.vw / l.word_k {
            let addrs: Vec<u32> = lanes
                .clone()
                .map(|t| {
                    ((t % o.c_units) * o.vw / l.word_k + q) * pitch + (t / o.c_units) * l.wbytes
                })
                .collect();
            cycles += lds_cycles(&addrs, l.wbytes);
        }
    }
    // Reads: lane (mn_l, h) at row h * wpl, byte mn_l * wbytes.
    let lanes_mn = if l.one_row { 16 } else { inst_mn };
    let addrs: Vec<u32> = lanes
        .map(|t| {
            let h = if l.one_row { 0 } else { t / lanes_mn };
            h * l.wpl * pitch + (t % lanes_mn) * l.wbytes
        })
        .collect();
    (cycles, l.wpl * lds_cycles(&addrs, l.wbytes))
}

/// LDS cycles of one k step's reads of the FMA kernel's operand `o` (0 = A, 1 = B) and
/// their conflict-free ideal: per chunk, lane `l` reads `chunk` bytes at
/// `(l % lanes_m)·chunk` (A) or `(l / lanes_m)·chunk` (B) from the chunk's start; every
/// chunk has the same pattern. (The row is the same for all lanes, so the pitch does not
/// matter.)
pub fn fma_read_cycles(f: &FmaTile, es: u32, wave: u32, o: usize) -> (u32, u32) {
    let (elems, chunk) = if o == 0 {
        (f.thread_m, f.chunk_m)
    } else {
        (f.thread_n, f.chunk_n)
    };
    let width = chunk * es;
    let addrs: Vec<u32> = (0..wave)
        .map(|t| {
            let idx = if o == 0 { t % f.lanes_m } else { t / f.lanes_m };
            idx * width
        })
        .collect();
    let chunks = elems / chunk;
    let ideal = wave.div_ceil((LDS_BANKS * 4 / width).max(1));
    (chunks * lds_cycles(&addrs, width), chunks * ideal)
}

/// The row pitch with the fewest LDS cycles over [`LDS_PADS`] (the first on ties).
fn best_pitch(o: &OperandPlan, l: &Lanes, inst_mn: u32) -> u32 {
    let row = o.tile_mn * l.wbytes;
    LDS_PADS
        .iter()
        .map(|pad| row + pad)
        .min_by_key(|&pitch| {
            let (w, r) = operand_lds_cycles(o, l, inst_mn, pitch);
            w + r
        })
        .unwrap_or(row)
}

/// LDS cycles and the conflict-free ideal (one phase per cycle) of `p`'s operand `o`
/// (0 = A, 1 = B) at its chosen pitch: writes of a k slice's first unit and one step's
/// reads for one block (for the FMA kernel, one k step's reads, [`fma_read_cycles`]).
pub fn lds_conflicts(p: &Plan, o: usize) -> (u32, u32) {
    let (op, inst_mn) = if o == 0 {
        (&p.a, p.shape.m)
    } else {
        (&p.b, p.shape.n)
    };
    let l = Lanes {
        wave: p.wave,
        wbytes: p.wbytes,
        word_k: p.word_k,
        wpl: p.wpl,
        one_row: p.wmma || p.fma.is_some(),
    };
    let (writes, reads) = operand_lds_cycles(op, &l, inst_mn, op.pitch);
    // Ideal: the same accesses with every phase conflict-free.
    let phases = |width: u32| l.wave.div_ceil((LDS_BANKS * 4 / width).max(1));
    let ideal_writes = if op.mn_contig {
        let total = op.vw * l.wbytes;
        let chunk = total.min(16);
        (total / chunk) * phases(chunk)
    } else {
        (op.vw / l.word_k) * phases(l.wbytes)
    };
    // The FMA kernel's reads follow its lane chunks, not the word model.
    let (reads, ideal_reads) = match &p.fma {
        Some(f) => fma_read_cycles(f, p.es, p.wave, o),
        None => (reads, l.wpl * phases(l.wbytes)),
    };
    (writes + reads, ideal_writes + ideal_reads)
}

#[cfg(test)]
mod tests {
    use super::*;

    // Hand-counted against the model's rule.
    #[test]
    fn bank_model() {
        let consecutive: Vec<u32> = (0..64).map(|l| 4 * l).collect();
        assert_eq!(
            lds_cycles(&consecutive, 4),
            2,
            "two phases of 32 distinct banks"
        );
        let same = vec![0u32; 64];
        assert_eq!(lds_cycles(&same, 4), 2, "one dword per phase: broadcast");
        let stride: Vec<u32> = (0..32).map(|l| 128 * l).collect();
        assert_eq!(lds_cycles(&stride, 4), 32, "every lane in bank 0");
        // b128: 8 lanes of 16 bytes fill the 32 banks once.
        let wide: Vec<u32> = (0..8).map(|l| 16 * l).collect();
        assert_eq!(lds_cycles(&wide, 16), 1);
        let two_rows: Vec<u32> = (0..8).map(|l| 2048 * (l % 2) + 16 * (l / 2)).collect();
        assert_eq!(
            lds_cycles(&two_rows, 16),
            2,
            "rows 2048 bytes apart share banks"
        );
        // The FMA kernel's 8×8 f64 lanes (8 lanes along m): chunks of 16 bytes, so the
        // 8 lanes of a phase read 128 consecutive bytes; a lane's whole 64-byte run
        // would put lanes 0, 2, 4, 6 (and 1, 3, 5, 7) in the same banks.
        let f = FmaTile {
            thread_m: 8,
            thread_n: 8,
            lanes_m: 8,
            lanes_n: 8,
            chunk_m: 2,
            chunk_n: 2,
        };
        assert_eq!(fma_read_cycles(&f, 8, 64, 0), (4 * 8, 4 * 8));
        let runs: Vec<u32> = (0..8).map(|l| 64 * l).collect();
        assert_eq!(lds_cycles(&runs, 16), 4);
    }
}
