//! The sm_90a warpgroup-MMA GEMM kernel: f16/bf16 inputs (or tf32 from f32 data) with
//! f32 accumulation in registers, operands staged through a multi-stage `cp.async` ring
//! in 128-byte-swizzled shared memory that `wgmma.mma_async` reads by descriptor.
//!
//! ## Work decomposition
//! A block computes a `tile_m × tile_n` tile of C with `warps_m × warps_n` warps, grouped
//! in warpgroups of four consecutive warps along m: `warps_m / 4` warpgroups along m and
//! `warps_n` along n, each owning a `64 × n` sub-tile (`GemmInstruction::Wgmma { n }`,
//! `n = tile_n / warps_n`). So `tile_m = 16 · warps_m`. One k step of `tile_k` is
//! 128 bytes of each operand row (64 f16/bf16, 32 tf32); a warpgroup issues
//! `tile_k / K` instructions `m64nNkK` per step (K = 16, or 8 for tf32), each reading a
//! 32-byte slice of every row.
//!
//! Blocks are visited in groups of [`super::GROUP_M`] tile rows: the block with linear id
//! `L = ctaid.x + ctaid.y · gx` takes tile row `first + r mod rows` and tile column
//! `r / rows` of its group (`r = L mod (GROUP_M · gy)`), so the blocks resident together
//! share A and B tiles in L2.
//!
//! ## Shared-memory layout (the PTX ISA's canonical 128-byte-swizzle layouts)
//! Each operand's stage is a stack of 128-byte rows; row R's 16-byte chunk c is stored
//! at chunk `c ⊕ (R mod 8)` (the swizzle works on address bits, so the stage base is
//! 1024-byte aligned). With `o` the operand's outer index (m for A, n for B):
//! - K-major (A transposed, B not transposed; contiguous along k): row `o` holds
//!   `k ∈ [0, tile_k)`. Descriptor: start = row of the warpgroup's first `o` + 32 bytes
//!   per instruction k-slice; stride byte offset (between 8-row groups) 1024; leading
//!   byte offset unused (one instruction's k-slice lies inside a row).
//! - MN-major (A not transposed, B transposed; contiguous along m/n): 64-element
//!   chunks of o, each a stack of `tile_k` rows (row k holds o ∈ [64q, 64q + 64));
//!   row index `R = q · tile_k + k`. Descriptor: leading byte offset = the distance
//!   between 64-element chunks of o (`tile_k · 128`), stride byte offset = between
//!   8-k-row groups (1024); start advances 16 rows (2048 bytes) per k-slice. The
//!   instruction's transpose immediate says the operand is MN-major (16-bit inputs only:
//!   tf32 takes K-major operands, so tf32 is A transposed, B not transposed).
//!
//! In both layouts the rows of outer index `o` (a multiple of 64) start at byte
//! `o · 128` of the stage.
//!
//! ## Pipeline
//! Every thread copies its share of each k-tile with 16-byte `cp.async`, one commit
//! group per tile (possibly empty). With `S` stages the loads run `L = S − 2` tiles
//! ahead; iteration `kt`: wait until tile `kt` has landed (`wait_group L−1`), fence to
//! the async proxy, `bar.sync`; `wgmma.fence`, the step's instructions, commit; then,
//! while they run, the loads of tile `kt + L` into the stage of tile `kt − 2` (every
//! warpgroup waited for its `wgmma` of `kt − 2` before the barrier); `wgmma.wait_group
//! 1` (the step of `kt − 1` done; this one may run on through the next iteration's
//! wait).
//!
//! ## Edges and preconditions
//! Copies outside the matrix read fewer bytes (`src_bytes`) or none and are zero-filled,
//! so any m, n, k ≥ 1 (and k = 0: D = β·C) is correct. 16-byte copies need every
//! column of A and B (and each batch's base) 16-byte aligned: lda, ldb, stride_a and
//! stride_b multiples of `16 / size(ab)` elements and A, B 16-byte aligned — the host
//! selects this kernel only then ([`aligned`]).
//!
//! ## Epilogue
//! Accumulator register `4j + 2h + v` of lane (g = lane / 4, t = lane % 4) of warp w (in
//! its warpgroup) holds D[16w + g + 8h][8j + 2t + v] of the warpgroup's tile (the PTX
//! ISA's m64nNk16 f32 accumulator fragment). D = α·acc + β·C per element inside the
//! matrix, converted to C's type; β = 0 never reads C.
//!
//! Stored straight from the fragments, a warp's store touches 8 consecutive rows of 4
//! columns: 16 bytes per column in 16-bit types, half a 32-byte sector. So where the
//! whole tile lies inside C, C's columns are 16-byte aligned and β = 0 (uniform per
//! block), each warpgroup stages its 64 × n tile, converted, column-major in the drained
//! ring (columns padded by 16 bytes against bank conflicts) and copies it out in 16-byte
//! vectors: each warp then writes whole 128-byte lines. Other blocks take the direct
//! path.

use crate::gemm::{GemmInstruction, GemmParams};
use crate::ptx::wgmma::WgmmaInput;
use crate::ptx::{Cmp, KernelBuilder, Module, Op, Param, Reg, Special, Ty};
use rocm_core::tensor_map::{TensorMapDesc, TensorMapSwizzle};
use rocm_core::{DType, Error, Result, Target};

/// The dynamic shared array (module scope).
const SMEM: &str = "rocm_gemm_smem";
/// Bytes of one swizzled row, and of a swizzle atom (8 rows).
const ROW: u32 = 128;
const ATOM: u32 = 1024;
/// Shared memory one block may use on sm_90 (227 KiB).
const SHARED_LIMIT: u32 = 227 * 1024;
/// The most elements a tensor copy's box spans along one dimension.
const TMA_BOX_MAX: u32 = 256;

/// The box of one operand's tensor map for a TMA variant (`p.tma`), as the host must
/// encode it: `(k_major, inner, outer)` elements. K-major operands (A transposed, B not
/// transposed) are mapped as the stored matrix `k × outer` (k contiguous) with a box of
/// `tile_k × outer-tile` (one copy per stage); MN-major ones as `outer × k` (outer
/// contiguous) with a box of `64 × tile_k` elements (one copy per 64 rows of the tile).
/// Either way the box's inner extent is 128 bytes and the map's swizzle is 128 bytes,
/// which lands the box in exactly the canonical layout the descriptors describe (see
/// the module docs). Dimension 2 of every map is the batch.
pub fn tma_box(p: &GemmParams, operand_b: bool) -> (bool, u32, u32) {
    let (k_major, outer) = if operand_b {
        (!p.trans_b, p.tile_n)
    } else {
        (p.trans_a, p.tile_m)
    };
    if k_major {
        (true, p.tile_k, outer)
    } else {
        (false, 64, p.tile_k)
    }
}

/// The tensor map description of one operand for a TMA variant ([`tma_box`]): the
/// stored `rows × cols` matrices (leading dimension `ld` elements) of `count` problems
/// `stride` elements apart from `address`, 128-byte swizzled. Empty dimensions (k = 0:
/// the kernel copies nothing) are described as 1; a single problem's batch stride is
/// its own extent. The host encodes it (`Device::encode_tensor_map`) and passes it by
/// value after β, A's map first.
pub fn tma_operand(
    p: &GemmParams,
    operand_b: bool,
    address: u64,
    (rows, cols): (usize, usize),
    ld: usize,
    stride: usize,
    count: usize,
) -> TensorMapDesc {
    let es = p.ab.size() as u64;
    let (_, box_inner, box_outer) = tma_box(p, operand_b);
    let ld_bytes = ld as u64 * es;
    let stride_bytes = if count > 1 {
        stride as u64 * es
    } else {
        (ld_bytes * cols.max(1) as u64).next_multiple_of(16)
    };
    TensorMapDesc {
        dtype: p.ab,
        address,
        dims: vec![rows.max(1) as u64, cols.max(1) as u64, count as u64],
        strides: vec![ld_bytes, stride_bytes],
        box_dims: vec![box_inner, box_outer, 1],
        swizzle: TensorMapSwizzle::Bytes128,
    }
}

/// One operand's global → shared copy.
#[derive(Debug, Clone, Copy)]
struct Side {
    /// The tile's extent along m (A) or n (B).
    outer: u32,
    /// Stored contiguously along k.
    k_major: bool,
    /// 16-byte chunks per thread per k-tile.
    chunks: u32,
    /// Chunks per contiguous line of the tile (a row of k for K-major, a k row of the
    /// whole outer extent for MN-major); `threads` is a multiple, so each thread's
    /// column within a line is fixed.
    per_line: u32,
}

/// The checked geometry of one kernel.
#[derive(Debug, Clone, Copy)]
struct Plan {
    input: WgmmaInput,
    /// A/B element size, C's register type and size.
    es: u32,
    cty: Ty,
    cs: u32,
    /// Instruction n, warpgroups along m.
    n: u32,
    wg_m: u32,
    threads: u32,
    stages: u32,
    tile_k: u32,
    a: Side,
    b: Side,
    a_bytes: u32,
    stage_bytes: u32,
    /// Operands by tensor copies from a producer warp (after the consumer warps).
    tma: bool,
    /// Threads of the consumer warpgroups.
    consumers: u32,
}

fn invalid(what: &str, why: String) -> Error {
    Error::invalid(what, why)
}

/// Dynamic shared memory a launch of this variant needs (0 for other instructions):
/// every stage, plus 1 KiB to align the ring to the swizzle atom.
pub fn shared_bytes(p: &GemmParams) -> u32 {
    match p.instruction {
        GemmInstruction::Wgmma { .. } => {
            let barriers = if p.tma { 16 * p.stages } else { 0 };
            p.stages * (p.tile_m + p.tile_n) * p.tile_k * p.ab.size() as u32 + ATOM + barriers
        }
        _ => 0,
    }
}

/// Whether a problem's operands meet the 16-byte copy precondition for `ab`: every
/// leading dimension and batch stride of A and B a multiple of `16 / size(ab)`
/// elements and both base addresses 16-byte aligned.
pub fn aligned(
    ab: DType,
    a: u64,
    lda: usize,
    stride_a: usize,
    b: u64,
    ldb: usize,
    stride_b: usize,
) -> bool {
    operand_aligned(ab, a, lda, stride_a) && operand_aligned(ab, b, ldb, stride_b)
}

/// One operand's share of [`aligned`]: its base address 16-byte aligned, its leading
/// dimension and batch stride multiples of `16 / size(ab)` elements.
pub fn operand_aligned(ab: DType, address: u64, ld: usize, stride: usize) -> bool {
    let v = 16 / ab.size().max(1);
    address % 16 == 0 && ld % v == 0 && stride % v == 0
}

/// Whether this emitter builds `p` on `target` (its plan alone).
pub(crate) fn check(p: &GemmParams, target: &Target) -> Result<()> {
    plan(p, target).map(|_| ())
}

fn plan(p: &GemmParams, target: &Target) -> Result<Plan> {
    let n = match p.instruction {
        GemmInstruction::Wgmma { n } => n,
        other => return Err(invalid("instruction", format!("{other:?} is not Wgmma"))),
    };
    let input = match (p.ab, p.reduced_f32) {
        (DType::F16, false) => WgmmaInput::F16,
        (DType::Bf16, false) => WgmmaInput::Bf16,
        (DType::F32, true) => WgmmaInput::Tf32,
        (ab, r) => {
            return Err(Error::unsupported(
                format!("wgmma GEMM for {ab} inputs (reduced_f32 = {r})"),
                target.to_string(),
            ))
        }
    };
    let cty = match (p.c, p.compute) {
        (DType::F32, DType::F32) => Ty::F32,
        (DType::F16, DType::F32) if p.ab == DType::F16 => Ty::F16,
        (DType::Bf16, DType::F32) if p.ab == DType::Bf16 => Ty::Bf16,
        (c, compute) => {
            return Err(Error::unsupported(
                format!(
                    "wgmma GEMM for {} inputs, {c} output, {compute} compute",
                    p.ab
                ),
                target.to_string(),
            ))
        }
    };
    if input == WgmmaInput::Tf32 && (!p.trans_a || p.trans_b) {
        return Err(Error::unsupported(
            "wgmma tf32 GEMM with an M-major A or N-major B (tf32 operands are K-major: op(A) = Aᵀ, op(B) = B only)",
            target.to_string(),
        ));
    }
    let es = p.ab.size() as u32;
    let tile_k = ROW / es;
    if p.tile_k != tile_k {
        return Err(invalid(
            "tile_k",
            format!(
                "{}: wgmma tiles are one 128-byte row deep ({tile_k} of {})",
                p.tile_k, p.ab
            ),
        ));
    }
    if p.warps_m == 0 || p.warps_m % 4 != 0 || p.warps_n == 0 || p.tile_m != 16 * p.warps_m {
        return Err(invalid(
            "warps",
            format!(
                "{}×{} warps for a {}-row tile: warpgroups are 4 warps along m of 64 rows (tile_m = 16·warps_m)",
                p.warps_m, p.warps_n, p.tile_m
            ),
        ));
    }
    if n % 64 != 0 || n > 256 || p.tile_n != n * p.warps_n {
        return Err(invalid(
            "instruction",
            format!(
                "Wgmma n = {n} with tile_n {} over {} warps: n must be 64, 128, 192 or 256 and tile_n = n·warps_n",
                p.tile_n, p.warps_n
            ),
        ));
    }
    // cp.async: loads run stages − 2 tiles ahead. Tensor copies: the consumers free a
    // slot one tile after using it, so two slots already overlap copy and compute.
    let least = if p.tma { 2 } else { 3 };
    if p.stages < least {
        return Err(invalid(
            "stages",
            format!(
                "{}: the wgmma pipeline needs at least {least} ({} staging)",
                p.stages,
                if p.tma { "tensor-copy" } else { "cp.async" }
            ),
        ));
    }
    let threads = p.threads(target);
    let consumers = p.warps_m * p.warps_n * 32;
    let side = |outer: u32, k_major: bool| -> Result<Side> {
        let per_line = if k_major { ROW / 16 } else { outer * es / 16 };
        let total = outer * tile_k * es / 16;
        if p.tma {
            // One tensor copy per operand (K-major: the whole `outer × 128 B` tile) or
            // per 64 elements of outer (MN-major: `tile_k` rows of 128 B each).
            if k_major && outer > TMA_BOX_MAX {
                return Err(invalid(
                    "tiles",
                    format!("a K-major {outer}-row operand tile exceeds the tensor copy's {TMA_BOX_MAX}-row box"),
                ));
            }
            return Ok(Side {
                outer,
                k_major,
                chunks: 0,
                per_line,
            });
        }
        if threads % per_line != 0 || total % threads != 0 {
            return Err(invalid(
                "tiles",
                format!("a {outer}×{tile_k} operand tile does not split into whole 16-byte copies over {threads} threads"),
            ));
        }
        Ok(Side {
            outer,
            k_major,
            chunks: total / threads,
            per_line,
        })
    };
    // Registers: a block gets at most 65536, in per-thread steps of 8; every consumer
    // thread holds its n/2 accumulators plus about 40 for addresses and the epilogue
    // (wgmma accumulators cannot spill). The `cp.async` variants' thread counts always
    // leave room; a producer warp can tip a large tile over (`.maxntid` then makes the
    // JIT fail), so such TMA variants are refused here.
    let per_thread = (65536 / threads) / 8 * 8;
    if p.tma && per_thread < n / 2 + 40 {
        return Err(invalid(
            "tiles",
            format!(
                "{threads} threads leave {per_thread} registers each; {} accumulators need about {}",
                n / 2,
                n / 2 + 40
            ),
        ));
    }
    let a = side(p.tile_m, p.trans_a)?;
    let b = side(p.tile_n, !p.trans_b)?;
    let a_bytes = p.tile_m * tile_k * es;
    let stage_bytes = a_bytes + p.tile_n * tile_k * es;
    if shared_bytes(p) > SHARED_LIMIT {
        return Err(invalid(
            "stages",
            format!(
                "{} stages of {stage_bytes} bytes exceed the {SHARED_LIMIT} bytes of shared memory",
                p.stages
            ),
        ));
    }
    Ok(Plan {
        input,
        es,
        cty,
        cs: cty.size(),
        n,
        wg_m: p.warps_m / 4,
        threads,
        stages: p.stages,
        tile_k,
        a,
        b,
        a_bytes,
        stage_bytes,
        tma: p.tma,
        consumers,
    })
}

/// The PTX module for `p` (the caller checked that `target` is a compute capability 9.0
/// target; the module is emitted for `sm_90a`, whose `wgmma` every such device runs).
pub fn generate(p: &GemmParams, target: &Target) -> Result<String> {
    let plan = plan(p, target)?;
    let sm90a: Target = "sm_90a".parse()?;
    let (mut k, params) = KernelBuilder::from_signature(&crate::gemm::signature(p, target)?);
    let mut args = Vec::with_capacity(ARGS.len());
    for name in ARGS {
        args.push(params.get(name)?.clone());
    }
    let maps = if p.tma {
        Some((params.get("tmap_a")?.clone(), params.get("tmap_b")?.clone()))
    } else {
        None
    };
    Gen {
        k: &mut k,
        plan,
        trans: (!p.trans_a, p.trans_b),
        args: args
            .try_into()
            .map_err(|_| invalid("signature", "GEMM declares 14 arguments".to_string()))?,
        maps,
    }
    .build();
    let mut module = Module::new(&sm90a)?;
    module.push(&k);
    let text = module.text();
    // The dynamic shared ring is declared at module scope, ahead of the kernel.
    let decl = format!(".extern .shared .align 1024 .b8 {SMEM}[];\n\n");
    let at = text.find(".visible .entry").unwrap_or(text.len());
    Ok(format!("{}{decl}{}", &text[..at], &text[at..]))
}

/// Where a thread's part of the block's C tile lies: C's batch base, its leading
/// dimension, the block's tile origin, the thread and its warpgroup's place.
#[derive(Clone, Copy)]
struct Site {
    c: Reg,
    ldc: Reg,
    m0: Reg,
    n0: Reg,
    tid: Reg,
    wg_row: Reg,
    wg_col: Reg,
}

/// One operand's per-thread copy state.
struct Copier {
    side: Side,
    /// Global address of this thread's first chunk in the current k-tile.
    ptr: Reg,
    /// Bytes between this thread's consecutive chunks (u64), and per k-tile.
    chunk_step: Reg,
    tile_step: Reg,
    /// Shared offsets of the chunks inside a stage.
    dst: Vec<Reg>,
    /// K-major: this thread's k offset in the tile (elements) and whether each chunk's
    /// row is inside the matrix. MN-major: this thread's bytes of each k row inside the
    /// matrix, and the k row of its first chunk.
    k_off: Reg,
    row_ok: Vec<Reg>,
    line_bytes: Reg,
    /// The matrix base (a safe address for empty copies).
    base: Reg,
}

/// A consumer warpgroup's state: accumulators, an always-true predicate (`scale_d`),
/// its place in the block's tile, and its stage-0 descriptors.
struct Consumer {
    acc: Vec<Reg>,
    always: Reg,
    wg_row: Reg,
    wg_col: Reg,
    desc_a: Reg,
    desc_b: Reg,
}

/// The arguments every variant loads, in the order [`Gen::build`] takes them.
const ARGS: [&str; 14] = [
    "a", "b", "c", "m", "n", "k", "lda", "ldb", "ldc", "stride_a", "stride_b", "stride_c", "alpha",
    "beta",
];

struct Gen<'a> {
    k: &'a mut KernelBuilder,
    plan: Plan,
    /// (A is M-major, B is N-major): the instruction's transpose immediates.
    trans: (bool, bool),
    /// The parameter handles of [`ARGS`], and the tensor maps of a `tma` variant.
    args: [Param; 14],
    maps: Option<(Param, Param)>,
}

impl Gen<'_> {
    fn build(mut self) {
        let k = &mut *self.k;
        let [pa, pb, pc, pm, pn, pk, plda, pldb, pldc, psa, psb, psc, palpha, pbeta] =
            self.args.clone();
        let maps = self.maps.clone();

        let m = k.ld_param(&pm);
        let n = k.ld_param(&pn);
        let kk = k.ld_param(&pk);

        let plan = self.plan;
        let (m0, n0) = self.block_tile();
        let tid = self.k.special(Special::TidX);

        // The ring, aligned up to the swizzle atom.
        let raw = self.k.shared_symbol(SMEM);
        let up = self.k.add(Ty::U32, raw, ATOM - 1);
        let ring = self.k.and_b32(up, !(ATOM - 1));
        let ktiles_num = self.k.add(Ty::U32, kk, plan.tile_k - 1);
        let ktiles = self.k.div(Ty::U32, ktiles_num, plan.tile_k);

        let exit = self.k.label();
        let consumer = match &maps {
            Some((map_a, map_b)) => {
                self.k.max_threads(plan.threads);
                self.tma_pipeline(map_a, map_b, ring, ktiles, m0, n0, tid, exit)
            }
            None => {
                let a0 = self.k.ld_param_global_ptr(&pa);
                let b0 = self.k.ld_param_global_ptr(&pb);
                let lda = self.k.ld_param(&plda);
                let ldb = self.k.ld_param(&pldb);
                let sa = self.k.ld_param(&psa);
                let sb = self.k.ld_param(&psb);
                let a = self.batch_base(a0, sa, plan.es);
                let b = self.batch_base(b0, sb, plan.es);
                let ca = self.copier(plan.a, a, lda, m, m0, tid);
                let cb = self.copier(plan.b, b, ldb, n, n0, tid);
                let c = self.consumer_setup(tid, ring);
                self.cp_async_main_loop(&c, ca, cb, ring, kk, ktiles);
                c
            }
        };
        let Consumer {
            acc,
            wg_row,
            wg_col,
            ..
        } = consumer;

        // Epilogue.
        let c0 = self.k.ld_param_global_ptr(&pc);
        let ldc = self.k.ld_param(&pldc);
        let sc = self.k.ld_param(&psc);
        let alpha = self.k.ld_param(&palpha);
        let beta = self.k.ld_param(&pbeta);
        let c = self.batch_base(c0, sc, plan.cs);
        let general = self.k.label();
        let end = self.k.label();
        if let Some(column) = self.staging_column_bytes() {
            let at = Site {
                c,
                ldc,
                m0,
                n0,
                tid,
                wg_row,
                wg_col,
            };
            self.staged_epilogue(&acc, at, m, n, alpha, beta, ring, column, general);
            self.k.bra(end);
        }
        self.k.place(general);
        self.epilogue(&acc, c, ldc, m, n, m0, n0, tid, wg_row, wg_col, alpha, beta);
        self.k.place(end);
        self.k.place(exit);
        self.k.ret();
    }

    /// The accumulators, the warpgroup's place in the tile, and the stage-0 descriptors
    /// of its A and B rows (A rows 64·wg_row, B rows n·wg_col).
    fn consumer_setup(&mut self, tid: Reg, ring: Reg) -> Consumer {
        let plan = self.plan;
        let acc: Vec<Reg> = (0..plan.n / 2)
            .map(|_| self.k.mov(Ty::F32, Op::F32(0.0)))
            .collect();
        let always = self.k.setp(Cmp::Eq, Ty::U32, 0u32, 0u32);
        let wg = self.k.shr(Ty::U32, tid, 7);
        let wg_row = self.rem(wg, plan.wg_m);
        let wg_col = self.k.div(Ty::U32, wg, plan.wg_m);
        let a_row = self.k.mul(Ty::U32, wg_row, 64 * ROW);
        let a_addr = self.k.add(Ty::U32, ring, a_row);
        let b_row = self.k.mul(Ty::U32, wg_col, plan.n * ROW);
        let b_start = self.k.add(Ty::U32, ring, plan.a_bytes);
        let b_addr = self.k.add(Ty::U32, b_start, b_row);
        let desc_a = self.descriptor(a_addr, plan.a.k_major);
        let desc_b = self.descriptor(b_addr, plan.b.k_major);
        Consumer {
            acc,
            always,
            wg_row,
            wg_col,
            desc_a,
            desc_b,
        }
    }

    /// One k-tile's `wgmma`s on the stage at ring offset `read` (bytes), committed as
    /// one group.
    fn issue_step(&mut self, c: &Consumer, read: Reg) {
        let plan = self.plan;
        let read_units = self.k.shr(Ty::U32, read, 4);
        let read64 = self.k.cvt(Ty::U64, read_units);
        let da = self.k.add(Ty::U64, c.desc_a, read64);
        let db = self.k.add(Ty::U64, c.desc_b, read64);
        self.k.wgmma_fence();
        let steps = plan.tile_k / plan.input.k();
        for s in 0..steps {
            let (oa, ob) = (self.slice_offset(plan.a, s), self.slice_offset(plan.b, s));
            let das = if oa == 0 {
                da
            } else {
                self.k.add(Ty::U64, da, (oa >> 4) as i64)
            };
            let dbs = if ob == 0 {
                db
            } else {
                self.k.add(Ty::U64, db, (ob >> 4) as i64)
            };
            self.k
                .wgmma_async(plan.input, &c.acc, das, dbs, c.always, self.trans);
        }
        self.k.wgmma_commit();
    }

    /// The `cp.async` pipeline (module docs, "Pipeline"): every thread copies and
    /// computes.
    fn cp_async_main_loop(
        &mut self,
        c: &Consumer,
        mut ca: Copier,
        mut cb: Copier,
        ring: Reg,
        kk: Reg,
        ktiles: Reg,
    ) {
        let plan = self.plan;
        let lookahead = plan.stages - 2;
        // Prologue: tiles 0..L into stages 0..L.
        let k_load = self.k.mov(Ty::U32, 0u32);
        for s in 0..lookahead {
            let skip = self.k.label();
            let past = self.k.setp(Cmp::Ge, Ty::U32, k_load, kk);
            self.k.bra_if(past, false, skip);
            let stage = self.k.mov(Ty::U32, s * plan.stage_bytes);
            let dst = self.k.add(Ty::U32, ring, stage);
            self.load_tile(&mut ca, dst, 0, k_load, kk);
            self.load_tile(&mut cb, dst, plan.a_bytes, k_load, kk);
            self.k.place(skip);
            self.k.cp_async_commit();
            self.k.add_to(k_load, plan.tile_k);
        }

        let kt = self.k.mov(Ty::U32, 0u32);
        let read = self.k.mov(Ty::U32, 0u32);
        let write = self
            .k
            .mov(Ty::U32, (lookahead % plan.stages) * plan.stage_bytes);
        let top = self.k.label();
        let done = self.k.label();
        self.k.place(top);
        let finished = self.k.setp(Cmp::Ge, Ty::U32, kt, ktiles);
        self.k.bra_if(finished, false, done);
        self.k.cp_async_wait(lookahead - 1);
        self.k.fence_proxy_async_shared();
        self.k.bar_sync();
        self.issue_step(c, read);
        // Loads of tile kt + L into the stage of kt − 2 (its step is done: every warpgroup
        // waited for it before the barrier), while this step runs.
        let skip = self.k.label();
        let past = self.k.setp(Cmp::Ge, Ty::U32, k_load, kk);
        self.k.bra_if(past, false, skip);
        let dst = self.k.add(Ty::U32, ring, write);
        self.load_tile(&mut ca, dst, 0, k_load, kk);
        self.load_tile(&mut cb, dst, plan.a_bytes, k_load, kk);
        self.k.place(skip);
        self.k.cp_async_commit();
        self.k.add_to(k_load, plan.tile_k);
        self.k.wgmma_wait(1);
        // Advance: kt, the ring slots.
        self.k.add_to(kt, 1u32);
        self.advance_slot(read);
        self.advance_slot(write);
        self.k.bra(top);
        self.k.place(done);
        self.k.wgmma_wait(0);
        // Nothing may be left in flight when the block exits.
        self.k.cp_async_wait(0);
    }

    /// The tensor-copy pipeline (module docs, "TMA variant"). Thread 0 sets up the
    /// barriers; the last warp's lane 0 produces every k-tile and leaves for `exit`;
    /// the consumer warpgroups compute. Returns the consumers' state.
    #[allow(clippy::too_many_arguments)]
    fn tma_pipeline(
        &mut self,
        map_a: &crate::ptx::Param,
        map_b: &crate::ptx::Param,
        ring: Reg,
        ktiles: Reg,
        m0: Reg,
        n0: Reg,
        tid: Reg,
        exit: crate::ptx::Label,
    ) -> Consumer {
        let plan = self.plan;
        let s = plan.stages;
        // Barriers after the ring: full[i] at bars + 8i, empty[i] at bars + 8(S + i).
        let bars = self.k.add(Ty::U32, ring, s * plan.stage_bytes);
        let first = self.k.setp(Cmp::Eq, Ty::U32, tid, 0u32);
        let skip_init = self.k.label();
        self.k.bra_if(first, true, skip_init);
        for i in 0..s {
            let full = self.k.add(Ty::U32, bars, 8 * i);
            self.k.mbarrier_init(full, 1);
            let empty = self.k.add(Ty::U32, bars, 8 * (s + i));
            self.k.mbarrier_init(empty, plan.consumers / 32);
        }
        self.k.fence_mbarrier_init();
        self.k.place(skip_init);
        self.k.bar_sync();

        let consume = self.k.label();
        let is_consumer = self.k.setp(Cmp::Lt, Ty::U32, tid, plan.consumers);
        self.k.bra_if(is_consumer, false, consume);
        // The producer: lane 0 of the last warp.
        let lane = self.rem(tid, 32);
        let lane0 = self.k.setp(Cmp::Eq, Ty::U32, lane, 0u32);
        self.k.bra_if(lane0, true, exit);
        let ma = self.k.param_address(map_a);
        let mb = self.k.param_address(map_b);
        let z = self.k.special_named("%ctaid.z");
        let kt = self.k.mov(Ty::U32, 0u32);
        let slot = self.k.mov(Ty::U32, 0u32);
        let phase = self.k.mov(Ty::U32, 0u32);
        let k0 = self.k.mov(Ty::U32, 0u32);
        let top = self.k.label();
        self.k.place(top);
        let finished = self.k.setp(Cmp::Ge, Ty::U32, kt, ktiles);
        self.k.bra_if(finished, false, exit);
        // Wait until the consumers released this slot's previous tile (passes at once
        // on the first round: parity 1 of a fresh barrier).
        let slot8 = self.k.shl(Ty::U32, slot, 3);
        let full = self.k.add(Ty::U32, bars, slot8);
        let empty = self.k.add(Ty::U32, full, 8 * s);
        let free = self.k.reg(Ty::U32);
        self.k.emit(format!("xor.b32 {free}, {phase}, 1"));
        self.k.mbarrier_wait_parity(empty, free);
        self.k.mbarrier_arrive_expect_tx(full, plan.stage_bytes);
        let stage_off = self.k.mul(Ty::U32, slot, plan.stage_bytes);
        let stage = self.k.add(Ty::U32, ring, stage_off);
        self.tma_operand(plan.a, ma, stage, m0, k0, z, full);
        let b_stage = self.k.add(Ty::U32, stage, plan.a_bytes);
        self.tma_operand(plan.b, mb, b_stage, n0, k0, z, full);
        self.k.add_to(kt, 1u32);
        self.k.add_to(k0, plan.tile_k);
        self.k.add_to(slot, 1u32);
        let wrap = self.k.setp(Cmp::Ge, Ty::U32, slot, s);
        self.k.when(wrap, false).assign(slot, 0u32);
        self.k
            .when(wrap, false)
            .emit(format!("xor.b32 {phase}, {phase}, 1"));
        self.k.bra(top);

        // The consumers.
        self.k.place(consume);
        let c = self.consumer_setup(tid, ring);
        let lane = self.rem(tid, 32);
        let lane0 = self.k.setp(Cmp::Eq, Ty::U32, lane, 0u32);
        let kt = self.k.mov(Ty::U32, 0u32);
        let slot = self.k.mov(Ty::U32, 0u32);
        let phase = self.k.mov(Ty::U32, 0u32);
        let prev_empty = self.k.mov(Ty::U32, 0u32);
        let top = self.k.label();
        let done = self.k.label();
        self.k.place(top);
        let finished = self.k.setp(Cmp::Ge, Ty::U32, kt, ktiles);
        self.k.bra_if(finished, false, done);
        let slot8 = self.k.shl(Ty::U32, slot, 3);
        let full = self.k.add(Ty::U32, bars, slot8);
        self.k.mbarrier_wait_parity(full, phase);
        let read = self.k.mul(Ty::U32, slot, plan.stage_bytes);
        self.issue_step(&c, read);
        // The previous tile's wgmma are done: release its slot (one arrival per warp).
        self.k.wgmma_wait(1);
        let later = self.k.setp(Cmp::Ne, Ty::U32, kt, 0u32);
        let release = self.k.and_pred(later, lane0);
        self.k.when(release, false).mbarrier_arrive(prev_empty);
        let empty = self.k.add(Ty::U32, full, 8 * s);
        self.k.assign(prev_empty, empty);
        self.k.add_to(kt, 1u32);
        self.k.add_to(slot, 1u32);
        let wrap = self.k.setp(Cmp::Ge, Ty::U32, slot, s);
        self.k.when(wrap, false).assign(slot, 0u32);
        self.k
            .when(wrap, false)
            .emit(format!("xor.b32 {phase}, {phase}, 1"));
        self.k.bra(top);
        self.k.place(done);
        self.k.wgmma_wait(0);
        c
    }

    /// The tensor copies of one operand's k-tile `k0` for the tile at outer offset `o0`
    /// (batch `z`) into the stage part at shared `dst` (see [`tma_box`]).
    #[allow(clippy::too_many_arguments)]
    fn tma_operand(&mut self, side: Side, map: Reg, dst: Reg, o0: Reg, k0: Reg, z: Reg, bar: Reg) {
        if side.k_major {
            self.k.tensor_copy(dst, map, &[k0, o0, z], bar);
            return;
        }
        let tile_k = self.plan.tile_k;
        for q in 0..side.outer / 64 {
            let (d, o) = if q == 0 {
                (dst, o0)
            } else {
                (
                    self.k.add(Ty::U32, dst, q * tile_k * ROW),
                    self.k.add(Ty::U32, o0, 64 * q),
                )
            };
            self.k.tensor_copy(d, map, &[o, k0, z], bar);
        }
    }

    /// A barrier among the threads that run the epilogue: the whole block, or the
    /// consumer warpgroups of a TMA variant (its producer warp has left).
    fn consumer_sync(&mut self) {
        if self.plan.tma {
            self.k.bar_sync_named(1, self.plan.consumers);
        } else {
            self.k.bar_sync();
        }
    }

    /// Bytes between the staged columns of a warpgroup's 64-row tile of C (64 elements
    /// and 16 bytes of padding, which spreads the 4 columns one warp store touches over
    /// distinct banks), where every warpgroup's tile fits in the ring; else None.
    fn staging_column_bytes(&self) -> Option<u32> {
        let p = self.plan;
        let column = 64 * p.cs + 16;
        let needed = (p.threads / 128) * p.n * column;
        (needed <= p.stages * p.stage_bytes).then_some(column)
    }

    /// The epilogue through shared memory for whole, aligned tiles with β = 0 (uniform
    /// per block; otherwise it branches to `general`): each warpgroup writes α·acc,
    /// converted to C's type, into its own column-major 64 × n tile in the (drained)
    /// ring, then copies it out in 16-byte vectors, so a warp writes whole 128-byte
    /// lines of C's columns instead of 8-element pieces of four columns.
    #[allow(clippy::too_many_arguments)]
    fn staged_epilogue(
        &mut self,
        acc: &[Reg],
        at: Site,
        m: Reg,
        n: Reg,
        alpha: Reg,
        beta: Reg,
        ring: Reg,
        column: u32,
        general: crate::ptx::Label,
    ) {
        let p = self.plan;
        let cs = p.cs;
        let tile_m = 64 * p.wg_m;
        let tile_n = p.n * (p.threads / 128 / p.wg_m);
        // Uniform conditions: β = 0, the tile inside the matrix, C's columns 16-byte
        // aligned (base and ldc).
        let zero_beta = self.k.setp(Cmp::Eq, Ty::F32, beta, Op::F32(0.0));
        let m_end = self.k.add(Ty::U32, at.m0, tile_m);
        let n_end = self.k.add(Ty::U32, at.n0, tile_n);
        let m_in = self.k.setp(Cmp::Le, Ty::U32, m_end, m);
        let n_in = self.k.setp(Cmp::Le, Ty::U32, n_end, n);
        let base_low = self.k.reg(Ty::U64);
        self.k.emit(format!("and.b64 {base_low}, {}, 15", at.c));
        let base_ok = self.k.setp(Cmp::Eq, Ty::U64, base_low, 0u32);
        let ldc_bytes32 = self.k.mul(Ty::U32, at.ldc, cs);
        let ldc_low = self.k.and_b32(ldc_bytes32, 15);
        let ldc_ok = self.k.setp(Cmp::Eq, Ty::U32, ldc_low, 0u32);
        let mut ok = self.k.and_pred(zero_beta, m_in);
        ok = self.k.and_pred(ok, n_in);
        ok = self.k.and_pred(ok, base_ok);
        ok = self.k.and_pred(ok, ldc_ok);
        self.k.bra_if(ok, true, general);
        // Every warpgroup is done reading the ring (each waited for its last wgmma;
        // the copies all landed): the ring becomes the staging area.
        self.consumer_sync();
        let wg = self.k.shr(Ty::U32, at.tid, 7);
        let stage_off = self.k.mul(Ty::U32, wg, p.n * column);
        let stage = self.k.add(Ty::U32, ring, stage_off);
        // Fragment (g, t) of warp w: rows 16w + g (+8), columns 2t (+1) (+8j).
        let warp = self.k.shr(Ty::U32, at.tid, 5);
        let w = self.rem(warp, 4);
        let lane = self.rem(at.tid, 32);
        let g = self.k.shr(Ty::U32, lane, 2);
        let t = self.rem(lane, 4);
        let row = self.k.fma(Ty::U32, w, 16u32, g);
        let row_bytes = self.k.mul(Ty::U32, row, cs);
        let col_bytes = self.k.mul(Ty::U32, t, 2 * column);
        let frag = self.k.add(Ty::U32, row_bytes, col_bytes);
        let mine = self.k.add(Ty::U32, stage, frag);
        for j in 0..p.n / 8 {
            for v in 0..2 {
                for h in 0..2 {
                    let a = acc[(4 * j + 2 * h + v) as usize];
                    let val = self.k.mul(Ty::F32, a, alpha);
                    let out = if p.cty == Ty::F32 {
                        val
                    } else {
                        self.k.cvt(p.cty, val)
                    };
                    let off = ((8 * j + v) * column + 8 * h * cs) as i64;
                    self.k.st_shared(mine, off, out);
                }
            }
        }
        self.consumer_sync();
        // Copy-out: chunk part of column col (+ per_pass·r), 16 bytes each.
        let chunks = 64 * cs / 16;
        let per_pass = 128 / chunks;
        let tw = self.rem(at.tid, 128);
        let part = self.rem(tw, chunks);
        let col = self.k.div(Ty::U32, tw, chunks);
        let src_col = self.k.mul(Ty::U32, col, column);
        let src_part = self.k.shl(Ty::U32, part, 4);
        let src0 = self.k.add(Ty::U32, src_col, src_part);
        let src = self.k.add(Ty::U32, stage, src0);
        // &C[m0 + 64·wg_row + 8·part/cs...][n0 + n·wg_col + col]: byte offsets.
        let r1 = self.k.fma(Ty::U32, at.wg_row, 64u32, at.m0);
        let c1 = self.k.fma(Ty::U32, at.wg_col, p.n, at.n0);
        let gcol = self.k.add(Ty::U32, c1, col);
        let colw = self.k.mul_wide_u32(gcol, at.ldc);
        let r64 = self.k.cvt(Ty::U64, r1);
        let el = self.k.add(Ty::U64, colw, r64);
        let el_bytes = self.k.mul(Ty::U64, el, cs);
        let part64 = self.k.cvt(Ty::U64, src_part);
        let off = self.k.add(Ty::U64, el_bytes, part64);
        let mut dst = self.k.add(Ty::U64, at.c, off);
        let ldc_bytes = self.k.mul_wide_u32(at.ldc, cs);
        let step = self.k.mul(Ty::U64, ldc_bytes, per_pass);
        for r in 0..p.n / per_pass {
            if r > 0 {
                dst = self.k.add(Ty::U64, dst, step);
            }
            let words: Vec<Reg> = (0..4).map(|_| self.k.reg(Ty::U32)).collect();
            self.k.emit(format!(
                "ld.shared.v4.b32 {{{}, {}, {}, {}}}, [{src}+{}]",
                words[0],
                words[1],
                words[2],
                words[3],
                r * per_pass * column
            ));
            // Streaming stores (evict-first in L2): C is written once and not read
            // back by this kernel; on H100 this took bf16 8192×8192×64 (a pure
            // stream of C) from 0.96x to 1.01x cuBLAS, and changed nothing at 8192³.
            self.k.emit(format!(
                "st.global.cs.v4.b32 [{dst}], {{{}, {}, {}, {}}}",
                words[0], words[1], words[2], words[3]
            ));
        }
    }

    fn rem(&mut self, a: Reg, b: u32) -> Reg {
        let r = self.k.reg(Ty::U32);
        self.k.emit(format!("rem.u32 {r}, {a}, {b}"));
        r
    }

    /// `slot = (slot + stage) mod ring`, in bytes.
    fn advance_slot(&mut self, slot: Reg) {
        let p = self.plan;
        self.k.add_to(slot, p.stage_bytes);
        let wrap = self
            .k
            .setp(Cmp::Ge, Ty::U32, slot, p.stages * p.stage_bytes);
        self.k.when(wrap, false).assign(slot, 0u32);
    }

    /// Byte offset of instruction k-slice `s` inside an operand's stage.
    fn slice_offset(&self, side: Side, s: u32) -> u32 {
        if side.k_major {
            s * 32
        } else {
            s * self.plan.input.k() * ROW
        }
    }

    /// The 64-bit descriptor of a 128-byte-swizzled operand starting at shared `addr`.
    fn descriptor(&mut self, addr: Reg, k_major: bool) -> Reg {
        let lbo: u64 = if k_major {
            16
        } else {
            (self.plan.tile_k * ROW) as u64
        };
        let sbo: u64 = ATOM as u64;
        let fixed = ((lbo >> 4) << 16) | ((sbo >> 4) << 32) | (1u64 << 62);
        let units = self.k.shr(Ty::U32, addr, 4);
        let masked = self.k.and_b32(units, 0x3fff);
        let wide = self.k.cvt(Ty::U64, masked);
        let d = self.k.reg(Ty::U64);
        self.k.emit(format!("or.b64 {d}, {wide}, {fixed}"));
        d
    }

    /// The block's tile (row and column of C), in the grouped order.
    fn block_tile(&mut self) -> (Reg, Reg) {
        let p = self.plan;
        let (tm, tn) = super::grouped_tile(self.k);
        let m0 = self.k.mul(Ty::U32, tm, p.a.outer);
        let n0 = self.k.mul(Ty::U32, tn, p.b.outer);
        (m0, n0)
    }

    /// The batch's matrix: `base + ctaid.z · stride` elements of `size` bytes.
    fn batch_base(&mut self, base: Reg, stride: Reg, size: u32) -> Reg {
        let bz = self.k.special_named("%ctaid.z");
        let z = self.k.cvt(Ty::U64, bz);
        let elems = self.k.mul(Ty::U64, z, stride);
        let bytes = self.k.mul(Ty::U64, elems, size);
        self.k.add(Ty::U64, base, bytes)
    }

    /// This thread's copy state for one operand: tile origin `o0` along the outer
    /// dimension of extent `outer_ext`; leading dimension `ld`.
    fn copier(
        &mut self,
        side: Side,
        base: Reg,
        ld: Reg,
        outer_ext: Reg,
        o0: Reg,
        tid: Reg,
    ) -> Copier {
        let p = self.plan;
        let es = p.es;
        let per16 = 16 / es;
        // This thread's column within a line, and its first line.
        let col = self.rem(tid, side.per_line);
        let line = self.k.div(Ty::U32, tid, side.per_line);
        let lines_per_pass = p.threads / side.per_line;
        let ld_bytes = self.k.mul_wide_u32(ld, es);
        let mut dst = Vec::new();
        let mut row_ok = Vec::new();
        let ptr;
        let chunk_step;
        let tile_step;
        let k_off;
        let line_bytes;
        if side.k_major {
            // Line = outer row o = line + i·lines_per_pass; column = k chunk.
            let o = self.k.add(Ty::U32, o0, line);
            k_off = self.k.mul(Ty::U32, col, per16);
            // (o0 + line)·ld + k_off elements.
            let rowb = self.k.mul_wide_u32(o, ld);
            let kw = self.k.cvt(Ty::U64, k_off);
            let el = self.k.add(Ty::U64, rowb, kw);
            let bytes = self.k.mul(Ty::U64, el, es);
            ptr = self.k.add(Ty::U64, base, bytes);
            chunk_step = self.k.mul(Ty::U64, ld_bytes, lines_per_pass);
            tile_step = self.k.mov(Ty::U64, (p.tile_k * es) as i64);
            for i in 0..side.chunks {
                let oi = line_plus(self, line, i * lines_per_pass);
                // Swizzled: row oi, chunk col ^ (oi mod 8).
                let sw = self.swizzle(oi, col);
                dst.push(sw);
                let og = self.k.add(Ty::U32, o0, oi);
                row_ok.push(self.k.setp(Cmp::Lt, Ty::U32, og, outer_ext));
            }
            line_bytes = self.k.mov(Ty::U32, 0u32);
        } else {
            // Line = k row kr = line + i·lines_per_pass; column = 8-element group of o.
            let o_local = self.k.mul(Ty::U32, col, per16);
            let o = self.k.add(Ty::U32, o0, o_local);
            k_off = line;
            let rowb = self.k.mul_wide_u32(line, ld);
            let ow = self.k.cvt(Ty::U64, o);
            let el = self.k.add(Ty::U64, rowb, ow);
            let bytes = self.k.mul(Ty::U64, el, es);
            ptr = self.k.add(Ty::U64, base, bytes);
            chunk_step = self.k.mul(Ty::U64, ld_bytes, lines_per_pass);
            tile_step = self.k.mul(Ty::U64, ld_bytes, p.tile_k);
            // Bytes of this thread's chunk inside the matrix: clamp(ext − o, 0, per16)·es.
            let left = self.k.sub(Ty::S32, outer_ext, o);
            let pos = self.k.max(Ty::S32, left, 0u32);
            let cl = self.k.min(Ty::S32, pos, per16);
            line_bytes = self.k.mul(Ty::U32, cl, es);
            // Row R = (o_local / 64)·tile_k + kr, chunk (o_local mod 64) / 8.
            let q = self.k.shr(Ty::U32, o_local, 6);
            let qrow = self.k.mul(Ty::U32, q, p.tile_k);
            let cm = self.rem(o_local, 64);
            let c = self.k.shr(Ty::U32, cm, 3);
            for i in 0..side.chunks {
                let kr = line_plus(self, line, i * lines_per_pass);
                let r = self.k.add(Ty::U32, qrow, kr);
                dst.push(self.swizzle(r, c));
            }
        }
        return Copier {
            side,
            ptr,
            chunk_step,
            tile_step,
            dst,
            k_off,
            row_ok,
            line_bytes,
            base,
        };

        fn line_plus(g: &mut Gen<'_>, line: Reg, d: u32) -> Reg {
            if d == 0 {
                line
            } else {
                g.k.add(Ty::U32, line, d)
            }
        }
    }

    /// Byte offset of 16-byte chunk `c` of swizzled row `r`: `128·r + 16·(c ⊕ (r mod 8))`.
    fn swizzle(&mut self, r: Reg, c: Reg) -> Reg {
        let r8 = self.k.and_b32(r, 7);
        let x = self.k.xor_b32(c, r8);
        let lo = self.k.shl(Ty::U32, x, 4);
        let hi = self.k.shl(Ty::U32, r, 7);
        self.k.add(Ty::U32, hi, lo)
    }

    /// Copies of one k-tile (starting at k row `k0` of `kext`) into the stage at shared
    /// `stage + part`, then advances the copier to the next tile.
    fn load_tile(&mut self, c: &mut Copier, stage: Reg, part: u32, k0: Reg, kext: Reg) {
        let es = self.plan.es;
        let per16 = 16 / es;
        let base_dst = if part == 0 {
            stage
        } else {
            self.k.add(Ty::U32, stage, part)
        };
        // K-major: bytes of this thread's k chunk inside the matrix (the same for all its
        // rows). MN-major: the k row of the first chunk.
        let kg = self.k.add(Ty::U32, k0, c.k_off);
        let k_bytes = if c.side.k_major {
            let left = self.k.sub(Ty::S32, kext, kg);
            let pos = self.k.max(Ty::S32, left, 0u32);
            let cl = self.k.min(Ty::S32, pos, per16);
            Some(self.k.mul(Ty::U32, cl, es))
        } else {
            None
        };
        let lines_per_pass = self.plan.threads / c.side.per_line;
        let mut src = c.ptr;
        for i in 0..c.side.chunks as usize {
            if i > 0 {
                src = self.k.add(Ty::U64, src, c.chunk_step);
            }
            let (bytes, ok) = match k_bytes {
                Some(kb) => (kb, c.row_ok[i]),
                None => {
                    let kr = self.k.add(Ty::U32, kg, i as u32 * lines_per_pass);
                    (c.line_bytes, self.k.setp(Cmp::Lt, Ty::U32, kr, kext))
                }
            };
            let n = self.k.selp(Ty::U32, bytes, 0u32, ok);
            let empty = self.k.setp(Cmp::Eq, Ty::U32, n, 0u32);
            let addr = self.k.selp(Ty::U64, c.base, src, empty);
            let dst = self.k.add(Ty::U32, base_dst, c.dst[i]);
            self.k.cp_async_16(dst, addr, n);
        }
        self.k.add_to(c.ptr, c.tile_step);
    }

    #[allow(clippy::too_many_arguments)]
    fn epilogue(
        &mut self,
        acc: &[Reg],
        c: Reg,
        ldc: Reg,
        m: Reg,
        n: Reg,
        m0: Reg,
        n0: Reg,
        tid: Reg,
        wg_row: Reg,
        wg_col: Reg,
        alpha: Reg,
        beta: Reg,
    ) {
        let p = self.plan;
        let cs = p.cs;
        let warp = self.k.shr(Ty::U32, tid, 5);
        let w = self.rem(warp, 4);
        let lane = self.rem(tid, 32);
        let g = self.k.shr(Ty::U32, lane, 2);
        let t = self.rem(lane, 4);
        // row0 = m0 + 64·wg_row + 16·w + g; col0 = n0 + n·wg_col + 2t.
        let r1 = self.k.fma(Ty::U32, wg_row, 64u32, m0);
        let r2 = self.k.fma(Ty::U32, w, 16u32, r1);
        let row0 = self.k.add(Ty::U32, r2, g);
        let c1 = self.k.fma(Ty::U32, wg_col, p.n, n0);
        let col0 = self.k.fma(Ty::U32, t, 2u32, c1);
        let rows_left = self.k.sub(Ty::S32, m, row0);
        let cols_left = self.k.sub(Ty::S32, n, col0);
        let row_ok = [
            self.k.setp(Cmp::Gt, Ty::S32, rows_left, 0u32),
            self.k.setp(Cmp::Gt, Ty::S32, rows_left, 8u32),
        ];
        // &C[row0][col0] and the bytes between columns.
        let ldc_bytes = self.k.mul_wide_u32(ldc, cs);
        let colb = self.k.mul_wide_u32(col0, ldc);
        let r64 = self.k.cvt(Ty::U64, row0);
        let el = self.k.add(Ty::U64, colb, r64);
        let off = self.k.mul(Ty::U64, el, cs);
        let origin = self.k.add(Ty::U64, c, off);
        let zero_beta = self.k.setp(Cmp::Eq, Ty::F32, beta, Op::F32(0.0));
        let with_c = self.k.label();
        let end = self.k.label();
        self.k.bra_if(zero_beta, true, with_c);
        self.store_all(acc, origin, ldc_bytes, cols_left, row_ok, alpha, None);
        self.k.bra(end);
        self.k.place(with_c);
        self.store_all(acc, origin, ldc_bytes, cols_left, row_ok, alpha, Some(beta));
        self.k.place(end);
    }

    #[allow(clippy::too_many_arguments)]
    fn store_all(
        &mut self,
        acc: &[Reg],
        origin: Reg,
        ldc_bytes: Reg,
        cols_left: Reg,
        row_ok: [Reg; 2],
        alpha: Reg,
        beta: Option<Reg>,
    ) {
        let p = self.plan;
        let mut col_ptr = origin;
        let step7 = self.k.mul(Ty::U64, ldc_bytes, 7u32);
        for j in 0..p.n / 8 {
            for v in 0..2 {
                let cidx = 8 * j + v;
                if cidx > 0 {
                    let step = if v == 1 { ldc_bytes } else { step7 };
                    col_ptr = self.k.add(Ty::U64, col_ptr, step);
                }
                let col_ok = self.k.setp(Cmp::Gt, Ty::S32, cols_left, cidx);
                for h in 0..2 {
                    let ok = self.k.and_pred(col_ok, row_ok[h as usize]);
                    let a = acc[(4 * j + 2 * h + v) as usize];
                    let offset = (8 * h * p.cs) as i64;
                    let mut val = self.k.mul(Ty::F32, a, alpha);
                    if let Some(beta) = beta {
                        let old = self.k.reg(p.cty);
                        self.k.when(ok, false).ld_global_into(
                            &[old],
                            col_ptr,
                            offset,
                            crate::ptx::LoadCache::Default,
                        );
                        let old32 = if p.cty == Ty::F32 {
                            old
                        } else {
                            self.k.cvt(Ty::F32, old)
                        };
                        val = self.k.fma(Ty::F32, old32, beta, val);
                    }
                    let out = if p.cty == Ty::F32 {
                        val
                    } else {
                        self.k.cvt(p.cty, val)
                    };
                    self.k.when(ok, false).st_global(col_ptr, offset, &[out]);
                }
            }
        }
    }
}
