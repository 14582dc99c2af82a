//! The register-tiled GEMM kernel: plain FMAs (SIMT, f32 and f64), or on the same
//! shared-memory pipeline the tensor-core `mma.sync` shapes m8n8k4 (f64, DMMA),
//! m16n8k8 (tf32) and m16n8k16 (f16/bf16 inputs, f32 output).
//!
//! ## DMMA
//! Each warp's `WM × WN` tile is a grid of 8×8 accumulator blocks; per k step of 4,
//! lane (g = lane / 4, t = lane % 4) loads A[k = t][m = g + 8i] and B[k = t][n = g + 8j]
//! from the k-major shared tiles (one f64 each) and issues one `mma` per block; it
//! holds C[g + 8i][2t + v + 8j] (the PTX ISA's m8n8k4 .f64 fragment layout).
//!
//! ## Work decomposition
//! A block computes a `tile_m × tile_n` tile of C. Its `warps_m × warps_n` warps each own
//! a `WM × WN` sub-tile (`WM = tile_m / warps_m`), and the 32 lanes of a warp form a
//! `lanes_m × lanes_n` grid (`lanes_m = WM / thread_m`), each lane accumulating
//! `thread_m × thread_n` results in registers. A lane's rows are not contiguous: they
//! come in groups of `fv` (the widest 16-byte vector dividing `thread_m`), group `g` at
//! `g·lanes_m·fv + lane_m·fv` inside the warp tile, so eight consecutive lanes read one
//! contiguous 128-byte row segment of the shared A tile with 16-byte loads (no bank
//! conflicts), and lanes sharing `lane_n` read the same B address (a broadcast).
//!
//! ## Main loop
//! Register-staged (1 or 2 stages): shared memory holds `stages` copies of `A_s[tile_k][tile_m]` and
//! `B_s[tile_k][tile_n]`, both k-major so the inner product reads rows. Each step every
//! thread loads its share of the next k-slab of A and B from global memory into
//! registers, multiplies the current slab (`tile_k` rank-1 updates of its register tile),
//! then stores the prefetched registers into the other buffer and passes one barrier.
//! With one stage the loads follow the compute behind a second barrier.
//!
//! ## Ring
//! With 3..=8 stages (every inner product but f16/bf16) the operands go straight from global to
//! shared memory with `cp.async`, `stages − 1` slabs ahead of the one multiplied, and
//! no staging registers. Each step waits for its own slab's copies
//! (`cp.async.wait_group stages − 2`), passes the one barrier of the step (after which
//! every thread's copies are visible and every thread has finished the previous slab),
//! refills the previous slab's stage with the slab `stages − 1` ahead, and multiplies.
//! The m16n8 instructions (tf32, f64 on compute capability 9.0) read each k step's
//! fragments one step ahead, the next slab's first ones right after the barrier that
//! follows the slab's last instructions, so the tensor pipe does not drain at the barrier
//! (on an H100, f64 8192³ with a 64×128×16 3-stage tile: 19.57 → 18.77 ms).
//! An operand contiguous along m (n) keeps the k-major tile; one contiguous along k is
//! stored along k, `A_s[m][k]` (rows padded to 4 mod 8 elements, conflict-free for the
//! fragment reads), since `cp.async` cannot transpose; the FMA kernel, whose fragments
//! are vectors along m (n), instead scatters such an operand into its k-major tile with
//! one 4- or 8-byte copy per element. Other copies move 16-byte chunks with
//! the bytes past an edge zero-filled (the source size operand); an operand whose
//! leading dimension or batch base is not 16-byte aligned is copied element by element
//! (4- or 8-byte `cp.async.ca`), under a uniform predicate.
//!
//! ## Global loads and edges
//! An operand stored contiguously along the tile's m (or n) dimension (A not transposed,
//! B transposed) is read in vectors along that dimension and stored to shared memory as
//! vectors; one contiguous along k (A transposed, B not transposed) is read in vectors
//! along k and scattered into a k-major row padded by 16 bytes (so the scattered stores
//! of one warp fall into different banks; with matrix instructions every row is padded
//! to 32 bytes mod 128 instead, for the fragment reads). A vector is loaded whole when the operand is
//! aligned for it (leading dimension and batch base: checked once, uniformly, at run
//! time) and it lies inside the matrix; otherwise its elements are loaded one by one
//! under their own bounds. Everything outside the matrix is zero in shared memory, so
//! the inner loop needs no predicates. k = 0 runs no step (D = β·C).
//!
//! ## Epilogue
//! D = α·acc + β·C per element inside the matrix; when β = 0, C is never read.

use crate::gemm::{GemmInstruction, GemmParams};
use crate::ptx::{Cmp, KernelBuilder, LoadCache, Module, Op, Reg, Special, Ty};
use rocm_core::{Arch, DType, Error, Result, Target};

/// Static shared memory a kernel may declare without opting in.
const STATIC_SHARED_LIMIT: u32 = 48 * 1024;
/// The dynamic shared array (module scope) of kernels whose tiles exceed the static limit.
const DYNAMIC_SMEM: &str = "rocm_gemm_tiles";
/// The deepest `cp.async` ring.
const MAX_RING_STAGES: u32 = 8;

/// How one operand's k-slab moves from global to shared memory.
#[derive(Debug, Clone, Copy)]
struct Operand {
    /// The tile's extent along m (A) or n (B).
    outer: u32,
    /// Stored contiguously along k (A transposed, B not transposed).
    contiguous_k: bool,
    /// Copied by the ring element by element into a k-major tile (the FMA kernel's
    /// fragments are vectors along m or n, so the ring transposes such an operand).
    scatter: bool,
    /// Elements per global load.
    vec: u32,
    /// Loads per thread per slab.
    loads: u32,
    /// Elements between consecutive k rows of the shared tile (k-major tiles), or
    /// between consecutive m (n) rows of it (tiles stored along k, see `ks`/`os`).
    row_stride: u32,
    /// Element strides of the shared tile along k and along m (n): `(row_stride, 1)`
    /// when the tile is k-major, `(1, row_stride)` when it is stored along k (the
    /// `cp.async` ring keeps an operand that is contiguous along k in its global order).
    ks: u32,
    os: u32,
    /// Elements per thread fragment vector (shared reads).
    frag_vec: u32,
    /// Lanes of a warp along this operand's dimension.
    lanes: u32,
    /// Warps along this operand's dimension, and the warp tile extent.
    warps: u32,
    warp_tile: u32,
    /// Results per thread along this dimension.
    per_thread: u32,
}

/// The inner-product instruction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Inner {
    /// FMAs on a `thread_m × thread_n` register tile.
    Fma,
    /// f64 `mma.sync.m8n8k4`.
    Dmma,
    /// f32 inputs rounded to tf32, `mma.sync.m16n8k8` with f32 accumulation.
    Tf32,
    /// f64 `mma.sync.m16n8k{k}` (k = 4, 8 or 16; compute capability 9.0): the tf32
    /// fragment layout with f64 elements, `k / 4` k-quads per instruction.
    Dmma16 { k: u32 },
    /// f16 or bf16 inputs, `mma.sync.m16n8k16` with f32 accumulation.
    Half,
}

/// Blocks of an `(bm, bn, bk)` matrix instruction per warp along m and n, checking
/// that the warp tiles and the k depth hold whole blocks.
fn mma_tiles(p: &GemmParams, (bm, bn, bk): (u32, u32, u32)) -> Result<(u32, u32)> {
    if p.tile_m % (p.warps_m * bm) != 0 || p.tile_n % (p.warps_n * bn) != 0 || p.tile_k % bk != 0 {
        return Err(invalid(
            "tiles",
            format!(
                "{}×{}×{} over {}×{} warps is not whole {bm}×{bn}×{bk} blocks per warp",
                p.tile_m, p.tile_n, p.tile_k, p.warps_m, p.warps_n
            ),
        ));
    }
    Ok((p.tile_m / p.warps_m / bm, p.tile_n / p.warps_n / bn))
}

/// The checked geometry of one kernel.
#[derive(Debug, Clone, Copy)]
struct Plan {
    /// How the inner product is computed.
    inner: Inner,
    /// A/B elements, and their size in bytes.
    ty: Ty,
    es: u32,
    /// C and accumulator type, and its size.
    cty: Ty,
    cs: u32,
    bk: u32,
    threads: u32,
    stages: u32,
    /// Operands copied into a ring of `stages` shared stages with `cp.async` (no
    /// staging registers), rather than through registers into one or two stages.
    ring: bool,
    a: Operand,
    b: Operand,
    /// Bytes of the A part of one stage, and of one whole stage.
    a_stage: u32,
    stage: u32,
}

fn invalid(what: &str, why: String) -> Error {
    Error::invalid(what, why)
}

/// Zero of a register type (16-bit floats as a raw pattern).
fn zero_of(ty: Ty) -> Op {
    match ty {
        Ty::F64 => Op::F64(0.0),
        Ty::F32 => Op::F32(0.0),
        _ => Op::I(0),
    }
}

/// The type loads and stores name (16-bit floats move as b16).
fn mem_name(ty: Ty) -> Ty {
    match ty {
        Ty::F16 | Ty::Bf16 => Ty::B16,
        t => t,
    }
}

/// The widest vector (in elements, at most 16 bytes) dividing `n`.
fn widest_vec(n: u32, es: u32) -> u32 {
    // PTX vector loads hold at most four elements.
    let mut v = (16 / es).min(4);
    while v > 1 && n % v != 0 {
        v /= 2;
    }
    v
}

/// Whether lanes (g, t) = (lane / 4, lane % 4) of one shared-memory phase (the lanes
/// whose reads of `read` elements fill 128 bytes) reading row g at element `lane_k · t`
/// of a tile whose rows are `row_bytes` apart touch each 4-byte bank at most once.
fn conflict_free_row(row_bytes: u32, es: u32, lane_k: u32, read: u32) -> bool {
    let read_bytes = es * read;
    let lanes = (128 / read_bytes).clamp(1, 32);
    let mut banks = [false; 32];
    for lane in 0..lanes {
        let addr = (lane / 4) * row_bytes + (lane % 4) * lane_k * es;
        for w in 0..read_bytes / 4 {
            let bank = ((addr / 4 + w) % 32) as usize;
            if std::mem::replace(&mut banks[bank], true) {
                return false;
            }
        }
    }
    true
}

/// Whether this emitter builds `p` on `target` (its plan alone).
pub(crate) fn check(p: &GemmParams, target: &Target) -> Result<()> {
    plan(p, target).map(|_| ())
}

fn plan(p: &GemmParams, target: &Target) -> Result<Plan> {
    // Element type of A and B, and of C and the accumulation.
    let (ty, cty) = match (p.ab, p.c, p.compute) {
        (DType::F32, DType::F32, DType::F32) => (Ty::F32, Ty::F32),
        (DType::F64, DType::F64, DType::F64) => (Ty::F64, Ty::F64),
        (DType::F16, DType::F32, DType::F32) => (Ty::F16, Ty::F32),
        (DType::Bf16, DType::F32, DType::F32) => (Ty::Bf16, Ty::F32),
        (ab, c, compute) => {
            return Err(Error::unsupported(
                format!("GEMM for {ab} inputs, {c} output, {compute} compute"),
                target.to_string(),
            ))
        }
    };
    let half = matches!(ty, Ty::F16 | Ty::Bf16);
    // (block rows, block columns, k step) of one matrix instruction, where there is one.
    let (thread_m, thread_n, inner) = match p.instruction {
        GemmInstruction::Simt { .. } | GemmInstruction::MmaSync { .. } if p.reduced_f32 != (ty == Ty::F32 && matches!(p.instruction, GemmInstruction::MmaSync { m: 16, n: 8, k: 8 })) => {
            return Err(invalid(
                "reduced_f32",
                "tf32 (reduced_f32) goes with MmaSync m16n8k8 and only with it".into(),
            ))
        }
        GemmInstruction::Simt { thread_m, thread_n } if !half => (thread_m, thread_n, Inner::Fma),
        GemmInstruction::MmaSync { m: 16, n: 8, k: 16 } if half => {
            let (tm, tn) = mma_tiles(p, (16, 8, 16))?;
            // Per lane: two rows of each 16-row block, two columns of each 8-column block.
            (tm * 2, tn * 2, Inner::Half)
        }
        GemmInstruction::MmaSync { m: 8, n: 8, k: 4 } if ty == Ty::F64 => {
            let (tm, tn) = mma_tiles(p, (8, 8, 4))?;
            // Per lane: one row of each 8-row block, two columns of each 8-column block.
            (tm, tn * 2, Inner::Dmma)
        }
        GemmInstruction::MmaSync { m: 16, n: 8, k } if ty == Ty::F64 && matches!(k, 4 | 8 | 16) => {
            if !matches!(target.arch(), Arch::Sm90 | Arch::Sm90a) {
                return Err(Error::unsupported(
                    format!("f64 mma.sync m16n8k{k} (compute capability 9.0)"),
                    target.to_string(),
                ));
            }
            let (tm, tn) = mma_tiles(p, (16, 8, k))?;
            // Per lane: two rows of each 16-row block, two columns of each 8-column block.
            (tm * 2, tn * 2, Inner::Dmma16 { k })
        }
        GemmInstruction::MmaSync { m: 16, n: 8, k: 8 } if ty == Ty::F32 => {
            let (tm, tn) = mma_tiles(p, (16, 8, 8))?;
            // Per lane: two rows of each 16-row block, two columns of each 8-column block.
            (tm * 2, tn * 2, Inner::Tf32)
        }
        other => {
            return Err(invalid(
                "instruction",
                format!("{other:?}: this generator builds Simt, f64 MmaSync m8n8k4 (m16n8k4/8/16 on compute capability 9.0) and tf32 MmaSync m16n8k8"),
            ))
        }
    };
    if target.caps().wave_size() != 32 {
        return Err(invalid(
            "target",
            format!("{target} does not run 32-wide warps"),
        ));
    }
    let es = ty.size();
    let nonzero = [
        ("tile_m", p.tile_m),
        ("tile_n", p.tile_n),
        ("tile_k", p.tile_k),
        ("warps_m", p.warps_m),
        ("warps_n", p.warps_n),
        ("thread_m", thread_m),
        ("thread_n", thread_n),
    ];
    if let Some((name, _)) = nonzero.iter().find(|(_, v)| *v == 0) {
        return Err(invalid(name, "must be at least 1".into()));
    }
    let threads = p.warps_m * p.warps_n * 32;
    if threads > 1024 {
        return Err(invalid(
            "warps_m, warps_n",
            format!("{threads} threads exceed 1024"),
        ));
    }
    // Three or more stages: a `cp.async` ring (module docs, "Ring").
    let ring = p.stages >= 3;
    if !(1..=MAX_RING_STAGES).contains(&p.stages) || (half && ring) {
        return Err(invalid(
            "stages",
            format!(
                "{} (this kernel has 1 or 2 register-staged stages, or a cp.async ring of 3..={MAX_RING_STAGES}, not for f16/bf16)",
                p.stages
            ),
        ));
    }
    let split = |name: &str, tile: u32, warps: u32, per_thread: u32| -> Result<(u32, u32)> {
        if tile % warps != 0 || (tile / warps) % per_thread != 0 {
            return Err(invalid(
                name,
                format!("tile {tile} does not split into {warps} warps of whole {per_thread}-row thread tiles"),
            ));
        }
        Ok((tile / warps, tile / warps / per_thread))
    };
    let (wm, lanes_m) = split("tile_m", p.tile_m, p.warps_m, thread_m)?;
    let (wn, lanes_n) = split("tile_n", p.tile_n, p.warps_n, thread_n)?;
    if inner == Inner::Fma && lanes_m * lanes_n != 32 {
        return Err(invalid(
            "thread_m, thread_n",
            format!("a {wm}×{wn} warp tile holds {lanes_m}×{lanes_n} thread tiles, not 32"),
        ));
    }
    let operand = |name: &str,
                   outer: u32,
                   contiguous_k: bool,
                   per_thread: u32,
                   lanes: u32,
                   warps: u32,
                   warp_tile: u32|
     -> Result<Operand> {
        let along = if contiguous_k { p.tile_k } else { outer };
        let mut vec = widest_vec(along, es);
        while vec > 1 && (outer * p.tile_k) % (vec * threads) != 0 {
            vec /= 2;
        }
        if (outer * p.tile_k) % (vec * threads) != 0 || (ring && vec * es != 16) {
            return Err(invalid(
                name,
                format!(
                    "a {outer}×{} slab does not split evenly over {threads} threads{}",
                    p.tile_k,
                    if ring { " in 16-byte chunks" } else { "" }
                ),
            ));
        }
        let (frag_vec, loads) = (
            widest_vec(per_thread, es),
            outer * p.tile_k / (vec * threads),
        );
        if ring && contiguous_k && inner != Inner::Fma {
            // Stored along k, rows padded (the shortest that works, each starting
            // 16-byte aligned for the chunks) so that the fragment reads of one
            // shared-memory phase hit distinct banks (see `conflict_free_row`).
            let (lane_k, read) = match inner {
                Inner::Tf32 => (2, 2),
                Inner::Dmma16 { k } if k >= 8 => (k / 4, 2),
                _ => (1, 1),
            };
            let row = (p.tile_k..p.tile_k + 128)
                .find(|&r| (r * es) % 16 == 0 && conflict_free_row(r * es, es, lane_k, read))
                .unwrap_or(p.tile_k.next_multiple_of(16 / es));
            return Ok(Operand {
                outer,
                contiguous_k,
                scatter: false,
                vec,
                loads,
                row_stride: row,
                ks: 1,
                os: row,
                frag_vec,
                lanes,
                warps,
                warp_tile,
                per_thread,
            });
        }
        let pad = if inner != Inner::Fma {
            // Matrix fragments: lanes (g, t) read row t at column g, so a row stride of
            // 32 bytes mod 128 puts each (half-)warp's reads in distinct banks.
            ((32 + 128 - (outer * es) % 128) % 128) / es
        } else if contiguous_k {
            // Scattered k-major stores of one warp fall into different banks.
            16 / es
        } else {
            0
        };
        Ok(Operand {
            outer,
            contiguous_k,
            scatter: ring && contiguous_k,
            vec,
            loads,
            row_stride: outer + pad,
            ks: outer + pad,
            os: 1,
            frag_vec,
            lanes,
            warps,
            warp_tile,
            per_thread,
        })
    };
    let a = operand(
        "tile_m", p.tile_m, p.trans_a, thread_m, lanes_m, p.warps_m, wm,
    )?;
    let b = operand(
        "tile_n", p.tile_n, !p.trans_b, thread_n, lanes_n, p.warps_n, wn,
    )?;
    // Elements of one operand's stage: k rows, or m (n) rows.
    let elems = |op: &Operand| {
        if op.os == 1 {
            p.tile_k * op.row_stride
        } else {
            op.outer * op.row_stride
        }
    };
    let round16 = |x: u32| x.next_multiple_of(16);
    let a_stage = round16(elems(&a) * es);
    let stage = a_stage + round16(elems(&b) * es);
    // Beyond 48 KiB the tiles live in dynamic shared memory (the launch opts in), up to
    // what one block of the target may use.
    let limit = target
        .caps()
        .lds_bytes_per_workgroup
        .max(STATIC_SHARED_LIMIT);
    if stage * p.stages > limit {
        return Err(invalid(
            "tiles",
            format!(
                "{} bytes of shared memory exceed the {limit} one block may use on {target}",
                stage * p.stages
            ),
        ));
    }
    Ok(Plan {
        inner,
        ty,
        es,
        cty,
        cs: cty.size(),
        bk: p.tile_k,
        threads,
        stages: p.stages,
        ring,
        a,
        b,
        a_stage,
        stage,
    })
}

/// Per-thread state of one operand's global → shared copy.
struct Loader {
    op: Operand,
    /// Global address of each load's first element for the current slab.
    ptrs: Vec<Reg>,
    /// k offset of each load inside the slab.
    ks: Vec<Reg>,
    /// Shared address of each load's first element in stage 0.
    smem: Vec<Reg>,
    /// Rows (A) or columns (B) of the matrix from each load's first one on (s32; ≤ 0
    /// when outside).
    left: Vec<Reg>,
    /// `left` where whole vectors may be loaded, 0 where the operand is not aligned.
    vleft: Vec<Option<Reg>>,
    /// Bytes to advance every pointer per slab.
    step: Reg,
    /// The batch's matrix, read by zero-byte copies (which touch no memory) in place
    /// of an address outside the matrix; and whether whole 16-byte chunks may be
    /// copied (ring only).
    base: Reg,
    aligned: Option<Reg>,
    /// Aligned, and the block's tile lies inside the matrix along m (n) (ring only).
    interior: Option<Reg>,
    /// Ring loaders whose loads all start at the same place in their row (the threads
    /// cover whole rows of the slab per pass) keep only load 0's state: load j is
    /// `j` passes further, see [`Uniform`].
    uniform: Option<Uniform>,
    /// The registers holding the slab in flight.
    staged: Vec<Vec<Reg>>,
}

/// How load j of a uniform ring loader differs from load 0: `j` times these steps.
#[derive(Debug, Clone, Copy)]
struct Uniform {
    /// Global bytes (u64 register: rows of the matrix times its leading dimension).
    row_step: Reg,
    /// Shared bytes, k rows (an operand copied along m or n) and rows left in the matrix
    /// (an operand copied along k).
    smem_step: u32,
    k_step: u32,
    left_step: u32,
}

/// Where a thread works: its index, the block's first row and column of C, and the
/// thread's first row and column inside the tile.
struct Coordinates {
    tid: Reg,
    m0: Reg,
    n0: Reg,
    row0: Reg,
    col0: Reg,
    /// Element offsets of this thread's first fragment read in the A and B stages.
    a_frag: Reg,
    b_frag: Reg,
}

/// One k step's operand fragments of a lane (m16n8 instructions): per 16-row block of
/// A and per 8-column block of B, the registers in the instruction's operand order.
#[derive(Clone)]
struct Fragments {
    a: Vec<Vec<Reg>>,
    b: Vec<Vec<Reg>>,
}

struct Gen<'a> {
    k: KernelBuilder,
    plan: &'a Plan,
}

impl Gen<'_> {
    fn special(&mut self, name: &str) -> Reg {
        let r = self.k.reg(Ty::U32);
        self.k.emit(format!("mov.u32 {r}, {name}"));
        r
    }

    fn rem(&mut self, a: Reg, b: u32) -> Reg {
        let r = self.k.reg(Ty::U32);
        self.k.emit(format!("rem.u32 {r}, {a}, {b}"));
        r
    }

    /// `(x & mask) == 0` for a 32- or 64-bit register.
    fn aligned(&mut self, x: Reg, mask: u64) -> Reg {
        let bits = if x.ty().size() == 8 { Ty::B64 } else { Ty::B32 };
        let t = self.k.reg(bits);
        self.k.emit(format!("and.{bits} {t}, {x}, {mask}"));
        self.k.setp(Cmp::Eq, bits, t, 0u32)
    }

    /// Element offset `x` (u32) scaled to bytes as u64.
    fn bytes64(&mut self, x: Reg, size: u32) -> Reg {
        self.k.mul_wide_u32(x, size)
    }

    fn zero(&self) -> Op {
        zero_of(self.plan.ty)
    }

    fn vec_text(regs: &[Reg]) -> String {
        if regs.len() == 1 {
            return regs[0].to_string();
        }
        let names: Vec<String> = regs.iter().map(|r| r.to_string()).collect();
        format!("{{{}}}", names.join(", "))
    }

    fn vec_suffix(n: usize) -> &'static str {
        match n {
            1 => "",
            2 => ".v2",
            _ => ".v4",
        }
    }

    fn ld_shared_vec(&mut self, ty: Ty, n: u32, addr: Reg, offset: u32) -> Vec<Reg> {
        let regs: Vec<Reg> = (0..n).map(|_| self.k.reg(ty)).collect();
        self.k.emit(format!(
            "ld.shared{}.{} {}, [{addr}+{offset}]",
            Self::vec_suffix(regs.len()),
            mem_name(ty),
            Self::vec_text(&regs)
        ));
        regs
    }

    fn st_shared_vec(&mut self, addr: Reg, offset: u32, regs: &[Reg]) {
        self.k.emit(format!(
            "st.shared{}.{} [{addr}+{offset}], {}",
            Self::vec_suffix(regs.len()),
            mem_name(regs[0].ty()),
            Self::vec_text(regs)
        ));
    }

    /// Sets up one operand's loads: `base` is the batch's matrix (u64 global address),
    /// `o0` the block's first row (A) or column (B), `bound` m or n.
    fn loader(
        &mut self,
        op: Operand,
        (base, ld): (Reg, Reg),
        (o0, bound): (Reg, Reg),
        tid: Reg,
        smem: Reg,
    ) -> Loader {
        let (es, bk, threads) = (self.plan.es, self.plan.bk, self.plan.threads);
        let vec = op.vec;
        // Whole vectors need the leading dimension and the batch's base aligned to them
        // (block and slab offsets are multiples of the vector by construction).
        let aligned = if vec > 1 {
            let a = self.aligned(ld, (vec - 1) as u64);
            let b = self.aligned(base, (vec * es - 1) as u64);
            Some(self.k.and_pred(a, b))
        } else {
            None
        };
        let mut l = Loader {
            op,
            ptrs: Vec::new(),
            ks: Vec::new(),
            smem: Vec::new(),
            left: Vec::new(),
            vleft: Vec::new(),
            step: self.k.mov(
                Ty::U64,
                if op.contiguous_k {
                    Op::I((bk * es) as i64)
                } else {
                    Op::I(0)
                },
            ),
            staged: Vec::new(),
            base,
            aligned,
            interior: None,
            uniform: None,
        };
        let per_row = if op.contiguous_k {
            bk / vec
        } else {
            op.outer / vec
        };
        // Each pass of the block's threads covers `passes_rows` whole rows (m or n rows
        // of an operand copied along k, k rows of one copied along m or n).
        let uniform_rows = (self.plan.ring && threads % per_row == 0).then_some(threads / per_row);
        if let Some(rows) = uniform_rows {
            let row_step = self.k.mul_wide_u32(ld, rows * es);
            l.uniform = Some(if op.contiguous_k {
                Uniform {
                    row_step,
                    smem_step: rows * op.os * es,
                    k_step: 0,
                    left_step: rows,
                }
            } else {
                Uniform {
                    row_step,
                    smem_step: rows * op.ks * es,
                    k_step: rows,
                    left_step: 0,
                }
            });
        }
        if self.plan.ring {
            let end = self.k.add(Ty::U32, o0, op.outer);
            let inside = self.k.setp(Cmp::Le, Ty::U32, end, bound);
            // Element copies need no alignment.
            l.interior = Some(match aligned {
                Some(al) if !op.scatter => self.k.and_pred(al, inside),
                _ => inside,
            });
        }
        if !op.contiguous_k {
            // step = bk·ld·es
            let s = self.k.mul_wide_u32(ld, bk * es);
            self.k.assign(l.step, s);
        }
        let stored = if l.uniform.is_some() { 1 } else { op.loads };
        for j in 0..stored {
            let v = self.k.add(Ty::U32, tid, j * threads);
            let per_row = if op.contiguous_k {
                bk / vec
            } else {
                op.outer / vec
            };
            let r = self.rem(v, per_row);
            let q = self.k.div(Ty::U32, v, per_row);
            let scaled = self.k.mul(Ty::U32, r, vec);
            let (vo, vk) = if op.contiguous_k {
                (q, scaled)
            } else {
                (scaled, q)
            };
            let o = self.k.add(Ty::U32, o0, vo);
            // Element offset of (o, vk): o + vk·ld, or vk + o·ld.
            let (along, across) = if op.contiguous_k { (vk, o) } else { (o, vk) };
            let wide = self.k.mul_wide_u32(across, ld);
            let along64 = self.k.cvt(Ty::U64, along);
            let elems = self.k.add(Ty::U64, wide, along64);
            let bytes = self.k.mul(Ty::U64, elems, es);
            let ptr = self.k.add(Ty::U64, base, bytes);
            let row = self.k.mul(Ty::U32, vk, op.ks);
            let at = self.k.fma(Ty::U32, vo, op.os, row);
            let bytes = self.k.mul(Ty::U32, at, es);
            let smem = self.k.add(Ty::U32, smem, bytes);
            // Rows (columns) left in the matrix from this load's first one, and the same
            // where whole vectors may be loaded (0 when the operand is not aligned):
            // two registers instead of a predicate per element, which would stay live
            // across the main loop.
            let left = self.k.sub(Ty::S32, bound, o);
            let vleft = aligned.map(|al| self.k.selp(Ty::S32, left, 0i32, al));
            l.ptrs.push(ptr);
            l.ks.push(vk);
            l.smem.push(smem);
            l.left.push(left);
            l.vleft.push(vleft);
            if !self.plan.ring {
                let staged = (0..vec).map(|_| self.k.reg(self.plan.ty)).collect();
                l.staged.push(staged);
            }
        }
        l
    }

    /// Loads the slab starting at k index `k_base` into the staging registers (zero
    /// outside the matrix) and advances the pointers.
    fn load_slab(&mut self, l: &Loader, k_base: Reg, kdim: Reg) {
        let zero = self.zero();
        let es = self.plan.es as i64;
        for j in 0..l.ptrs.len() {
            let vec = l.op.vec;
            for &r in &l.staged[j] {
                self.k.assign(r, zero);
            }
            let kg = self.k.add(Ty::U32, k_base, l.ks[j]);
            if l.op.contiguous_k {
                let inside = self.k.setp(Cmp::Gt, Ty::S32, l.left[j], 0i32);
                let not_full = match l.vleft[j] {
                    Some(vleft) => {
                        let ready = self.k.setp(Cmp::Gt, Ty::S32, vleft, 0i32);
                        let last = self.k.add(Ty::U32, kg, vec - 1);
                        let k_full = self.k.setp(Cmp::Lt, Ty::U32, last, kdim);
                        let full = self.k.and_pred(ready, k_full);
                        self.k.when(full, false);
                        self.k
                            .ld_global_into(&l.staged[j], l.ptrs[j], 0, LoadCache::NonCoherent);
                        Some(self.k.not_pred(full))
                    }
                    None => None,
                };
                for e in 0..vec {
                    let ke = self.k.add(Ty::U32, kg, e);
                    let k_in = self.k.setp(Cmp::Lt, Ty::U32, ke, kdim);
                    let mut p = self.k.and_pred(inside, k_in);
                    if let Some(nf) = not_full {
                        p = self.k.and_pred(p, nf);
                    }
                    self.k.when(p, false);
                    self.k.ld_global_into(
                        &l.staged[j][e as usize..e as usize + 1],
                        l.ptrs[j],
                        e as i64 * es,
                        LoadCache::NonCoherent,
                    );
                }
            } else {
                let k_in = self.k.setp(Cmp::Lt, Ty::U32, kg, kdim);
                let not_full = match l.vleft[j] {
                    Some(vleft) => {
                        let whole = self.k.setp(Cmp::Ge, Ty::S32, vleft, vec as i32);
                        let full = self.k.and_pred(whole, k_in);
                        self.k.when(full, false);
                        self.k
                            .ld_global_into(&l.staged[j], l.ptrs[j], 0, LoadCache::NonCoherent);
                        Some(self.k.not_pred(full))
                    }
                    None => None,
                };
                for e in 0..vec {
                    let inside = self.k.setp(Cmp::Gt, Ty::S32, l.left[j], e as i32);
                    let mut p = self.k.and_pred(inside, k_in);
                    if let Some(nf) = not_full {
                        p = self.k.and_pred(p, nf);
                    }
                    self.k.when(p, false);
                    self.k.ld_global_into(
                        &l.staged[j][e as usize..e as usize + 1],
                        l.ptrs[j],
                        e as i64 * es,
                        LoadCache::NonCoherent,
                    );
                }
            }
            self.k.add_to(l.ptrs[j], l.step);
        }
    }

    /// Copies the slab starting at k index `k_base` into the ring stage `stage` bytes
    /// into the shared array (plus `part` bytes) with `cp.async`, zero-filling what lies outside the
    /// matrix, and advances the pointers. Aligned operands move 16-byte chunks; others
    /// element by element (4- or 8-byte copies; the predicate is uniform).
    fn copy_slab(&mut self, l: &Loader, stage: Reg, part: u32, k_base: Reg, kdim: Reg) {
        let (es, vec) = (self.plan.es, l.op.vec);
        let edge = self.k.label();
        let done = self.k.label();
        // Load j: its pointer register (stored, or load 0's advanced by j row steps in
        // `src`), and the immediate offsets of its shared address, k and rows left.
        let uniform = l.uniform;
        let src = uniform.map(|_| self.k.reg(Ty::U64));
        let at = |g: &mut Self, j: usize| -> (Reg, u32, u32, u32) {
            match (uniform, src) {
                (Some(u), Some(src)) => {
                    if j == 0 {
                        g.k.assign(src, l.ptrs[0]);
                    } else {
                        g.k.add_to(src, u.row_step);
                    }
                    let j = j as u32;
                    (src, j * u.smem_step, j * u.k_step, j * u.left_step)
                }
                _ => (l.ptrs[j], 0, 0, 0),
            }
        };
        let slot = |j: usize| if uniform.is_some() { 0 } else { j };
        let loads = l.op.loads as usize;
        if let Some(interior) = l.interior {
            // The common case, a whole aligned slab inside the matrix: one 16-byte copy
            // per chunk and nothing to compute.
            let last = self.k.add(Ty::U32, k_base, self.plan.bk);
            let k_full = self.k.setp(Cmp::Le, Ty::U32, last, kdim);
            let full = self.k.and_pred(interior, k_full);
            self.k.bra_if(full, true, edge);
            let mut dst = None;
            for j in 0..loads {
                let (ptr, off, _, _) = at(self, j);
                if uniform.is_none() || j == 0 {
                    dst = Some(self.k.add(Ty::U32, stage, l.smem[slot(j)]));
                }
                let d = dst.expect("set for load 0");
                if l.op.scatter {
                    for e in 0..vec {
                        self.k.emit(format!(
                            "cp.async.ca.shared.global [{d}+{}], [{ptr}+{}], {es}, {es}",
                            part + off + e * l.op.ks * es,
                            e * es
                        ));
                    }
                } else {
                    self.k.emit(format!(
                        "cp.async.cg.shared.global [{d}+{}], [{ptr}], 16, 16",
                        part + off
                    ));
                }
            }
            self.advance(l);
            self.k.bra(done);
        }
        self.k.place(edge);
        for j in 0..loads {
            let (ptr, off, k_off, left_off) = at(self, j);
            let kg = self.k.add(Ty::U32, k_base, l.ks[slot(j)]);
            let kg = if k_off > 0 {
                self.k.add(Ty::U32, kg, k_off)
            } else {
                kg
            };
            let left = if left_off > 0 {
                self.k.sub(Ty::S32, l.left[slot(j)], left_off)
            } else {
                l.left[slot(j)]
            };
            // Elements of this chunk inside the matrix: those before the k (or m, n) edge,
            // none when the chunk's row (k row) lies outside.
            let (along_left, across_in) = if l.op.contiguous_k {
                let left_k = self.k.sub(Ty::S32, kdim, kg);
                let inside = self.k.setp(Cmp::Gt, Ty::S32, left, 0i32);
                (left_k, inside)
            } else {
                let inside = self.k.setp(Cmp::Lt, Ty::U32, kg, kdim);
                (left, inside)
            };
            let pos = self.k.max(Ty::S32, along_left, 0u32);
            let clamped = self.k.min(Ty::S32, pos, vec);
            let count = self.k.selp(Ty::U32, clamped, 0u32, across_in);
            let dst = self.k.add(Ty::U32, stage, l.smem[slot(j)]);
            let off = part + off;
            let guard = match l.aligned {
                Some(aligned) if !l.op.scatter => {
                    let bytes = self.k.mul(Ty::U32, count, es);
                    let empty = self.k.setp(Cmp::Eq, Ty::U32, bytes, 0u32);
                    let src = self.k.selp(Ty::U64, l.base, ptr, empty);
                    self.k.when(aligned, false);
                    self.k.emit(format!(
                        "cp.async.cg.shared.global [{dst}+{off}], [{src}], 16, {bytes}"
                    ));
                    Some(aligned)
                }
                _ => None,
            };
            self.copy_elements(l, ptr, (dst, off), count, guard);
        }
        self.advance(l);
        self.k.place(done);
    }

    /// Moves a loader's pointers to the next slab.
    fn advance(&mut self, l: &Loader) {
        for &p in &l.ptrs {
            self.k.add_to(p, l.step);
        }
    }

    /// The element-wise form of one chunk's copy of `count` elements from `ptr` to
    /// shared `dst + offset`: for operands not aligned to 16 bytes (each copy guarded
    /// off, by `aligned`, where they are), and for scattered operands (each element to
    /// its own k row).
    fn copy_elements(
        &mut self,
        l: &Loader,
        ptr: Reg,
        (dst, offset): (Reg, u32),
        count: Reg,
        aligned: Option<Reg>,
    ) {
        let (es, vec) = (self.plan.es, l.op.vec);
        let stride = if l.op.scatter { l.op.ks * es } else { es };
        for e in 0..vec {
            let inside = self.k.setp(Cmp::Gt, Ty::U32, count, e);
            let bytes = self.k.selp(Ty::U32, es, 0u32, inside);
            let at = self.k.add(Ty::U64, ptr, (e * es) as i64);
            let src = self.k.selp(Ty::U64, at, l.base, inside);
            if let Some(g) = aligned {
                self.k.when(g, true);
            }
            self.k.emit(format!(
                "cp.async.ca.shared.global [{dst}+{}], [{src}], {es}, {bytes}",
                offset + e * stride
            ));
        }
    }

    /// The register-staged main loop (module docs, "Main loop"): one or two stages.
    fn staged_main_loop(
        &mut self,
        acc: &[Vec<Reg>],
        la: &Loader,
        lb: &Loader,
        rd: (Reg, Reg),
        kdim: Reg,
    ) {
        self.k.comment("prologue: slab 0 into stage 0");
        // The first k index of the slab being multiplied.
        let k_cur = self.k.mov(Ty::U32, 0u32);
        self.load_slab(la, k_cur, kdim);
        self.load_slab(lb, k_cur, kdim);
        self.store_slab(la, 0);
        self.store_slab(lb, self.plan.a_stage);
        self.k.bar_sync();

        let top = self.k.label();
        let done = self.k.label();
        self.k.place(top);
        if self.plan.stages == 2 {
            // Unrolled twice so both stages' offsets are immediates.
            for s in 0..2 {
                let (read, write) = (s * self.plan.stage, (1 - s) * self.plan.stage);
                let finished = self.k.setp(Cmp::Ge, Ty::U32, k_cur, kdim);
                self.k.bra_if(finished, false, done);
                self.k.add_to(k_cur, self.plan.bk);
                self.k
                    .comment("prefetch the next slab (predicated off past k)");
                self.load_slab(la, k_cur, kdim);
                self.load_slab(lb, k_cur, kdim);
                self.multiply(acc, rd.0, rd.1, read);
                // The other stage was last read before the previous barrier.
                self.store_slab(la, write);
                self.store_slab(lb, write + self.plan.a_stage);
                self.k.bar_sync();
            }
        } else {
            let finished = self.k.setp(Cmp::Ge, Ty::U32, k_cur, kdim);
            self.k.bra_if(finished, false, done);
            self.multiply(acc, rd.0, rd.1, 0);
            self.k.bar_sync();
            self.k.add_to(k_cur, self.plan.bk);
            self.load_slab(la, k_cur, kdim);
            self.load_slab(lb, k_cur, kdim);
            self.store_slab(la, 0);
            self.store_slab(lb, self.plan.a_stage);
            self.k.bar_sync();
        }
        self.k.bra(top);
        self.k.place(done);
    }

    /// The `cp.async` ring (module docs, "Ring"): slabs run `stages − 1` ahead of the
    /// one multiplied, one barrier per slab.
    fn ring_main_loop(
        &mut self,
        acc: &[Vec<Reg>],
        la: &Loader,
        lb: &Loader,
        rd: (Reg, Reg),
        kdim: Reg,
    ) {
        let (stages, stage, a_stage, bk) = (
            self.plan.stages,
            self.plan.stage,
            self.plan.a_stage,
            self.plan.bk,
        );
        self.k
            .comment("prologue: slabs 0..stages-1 into their stages");
        let k_load = self.k.mov(Ty::U32, 0u32);
        for s in 0..stages - 1 {
            let at = self.k.mov(Ty::U32, s * stage);
            self.copy_slab(la, at, 0, k_load, kdim);
            self.copy_slab(lb, at, a_stage, k_load, kdim);
            self.k.cp_async_commit();
            self.k.add_to(k_load, bk);
        }
        // The m16n8 instructions read their fragments a step ahead (see
        // `multiply_ahead`): slab 0's first ones before the loop, and each iteration's
        // wait and barrier come after its slab's instructions instead of before them.
        let first = self.m16n8_k().map(|_| {
            self.k.comment("slab 0 landed; its first fragments");
            self.k.cp_async_wait(stages - 2);
            self.k.bar_sync();
            self.m16n8_fragments(rd.0, rd.1, 0, 0)
        });
        // The first k index of the slab being multiplied, and the byte offsets of its
        // stage and of the stage the copies fill.
        let k_cur = self.k.mov(Ty::U32, 0u32);
        let read = self.k.mov(Ty::U32, 0u32);
        let write = self.k.mov(Ty::U32, (stages - 1) * stage);
        let top = self.k.label();
        let done = self.k.label();
        self.k.place(top);
        let finished = self.k.setp(Cmp::Ge, Ty::U32, k_cur, kdim);
        self.k.bra_if(finished, false, done);
        if first.is_none() {
            // This thread's copies of the current slab have landed; after the barrier
            // everyone's have, and everyone has finished the previous slab, whose stage
            // the copies below refill.
            self.k.cp_async_wait(stages - 2);
            self.k.bar_sync();
        }
        self.copy_slab(la, write, 0, k_load, kdim);
        self.copy_slab(lb, write, a_stage, k_load, kdim);
        self.k.cp_async_commit();
        self.k.add_to(k_load, bk);
        let a_rd = self.k.add(Ty::U32, rd.0, read);
        let b_rd = self.k.add(Ty::U32, rd.1, read);
        match &first {
            Some(first) => self.multiply_ahead(acc, first, (a_rd, b_rd), rd, read),
            None => self.multiply(acc, a_rd, b_rd, 0),
        }
        self.k.add_to(k_cur, bk);
        for slot in [read, write] {
            let v = self.next_stage(slot);
            self.k.assign(slot, v);
        }
        self.k.bra(top);
        self.k.place(done);
        // Nothing may be in flight when the block exits.
        self.k.cp_async_wait(0);
    }

    /// The byte offset of the ring stage after the one at `slot` (wrapping).
    fn next_stage(&mut self, slot: Reg) -> Reg {
        let (stages, stage) = (self.plan.stages, self.plan.stage);
        let next = self.k.add(Ty::U32, slot, stage);
        let wrap = self.k.setp(Cmp::Eq, Ty::U32, next, stages * stage);
        self.k.selp(Ty::U32, 0u32, next, wrap)
    }

    /// One slab of m16n8 instructions with the operand fragments loaded one k step
    /// ahead of the instructions that use them, across slabs too: `first` holds this
    /// slab's first fragments on entry and the next slab's (at `rd` + the stage after
    /// `read`) on exit.
    ///
    /// The slab's last instructions are issued before the wait and barrier, and the
    /// next slab's first fragments are read right after it, so the tensor pipe works
    /// through the barrier instead of draining at it (as CUTLASS's multistage main loop
    /// does). It is still one barrier per slab: after it every thread's copies of slab
    /// s + 1 are visible and every thread has read all of slab s (its last fragments
    /// were read before it), whose stage the copies of the next iteration refill.
    fn multiply_ahead(
        &mut self,
        acc: &[Vec<Reg>],
        first: &Fragments,
        (a_rd, b_rd): (Reg, Reg),
        rd: (Reg, Reg),
        read: Reg,
    ) {
        let stages = self.plan.stages;
        let k = self.m16n8_k().unwrap_or(8);
        let steps = self.plan.bk / k;
        let mut current = first.clone();
        for step in 1..steps {
            let next = self.m16n8_fragments(a_rd, b_rd, 0, step * k);
            self.m16n8_mma(acc, &current);
            current = next;
        }
        self.m16n8_mma(acc, &current);
        self.k.cp_async_wait(stages - 2);
        self.k.bar_sync();
        let next_read = self.next_stage(read);
        let na = self.k.add(Ty::U32, rd.0, next_read);
        let nb = self.k.add(Ty::U32, rd.1, next_read);
        let next = self.m16n8_fragments(na, nb, 0, 0);
        // Into the loop-carried registers.
        for (dst, src) in first
            .a
            .iter()
            .zip(&next.a)
            .chain(first.b.iter().zip(&next.b))
        {
            for (&d, &r) in dst.iter().zip(src) {
                self.k.assign(d, r);
            }
        }
    }

    /// Stores the staged slab into shared memory, `part` bytes into the shared array.
    fn store_slab(&mut self, l: &Loader, part: u32) {
        let es = self.plan.es;
        for j in 0..l.ptrs.len() {
            let addr = l.smem[j];
            if l.op.contiguous_k {
                // Consecutive k go to consecutive rows.
                for (e, &r) in l.staged[j].iter().enumerate() {
                    let off = part + e as u32 * l.op.row_stride * es;
                    self.st_shared_vec(addr, off, &[r]);
                }
            } else {
                let staged = l.staged[j].clone();
                self.st_shared_vec(addr, part, &staged);
            }
        }
    }

    /// The k extent of one m16n8 instruction (tf32 m16n8k8, f64 m16n8k{4,8,16}), or
    /// `None` for the other inner products.
    fn m16n8_k(&self) -> Option<u32> {
        match self.plan.inner {
            Inner::Tf32 => Some(8),
            Inner::Dmma16 { k } => Some(k),
            _ => None,
        }
    }

    /// This lane's A and B fragments for the m16n8 instructions of k step `kk` of the
    /// stage at `a_rd`/`b_rd` (+ `stage` bytes).
    ///
    /// tf32 m16n8k8 and f64 m16n8k{4,8,16} share one fragment walk: lane (g, t) reads
    /// A[k = t + 4q][m = g (+8) + 16i] and B[k = t + 4q][n = g + 8j] for each k-quad q
    /// of the instruction (tf32 rounds each value as it leaves shared memory).
    fn m16n8_fragments(&mut self, a_rd: Reg, b_rd: Reg, stage: u32, kk: u32) -> Fragments {
        let (a, b, es) = (self.plan.a, self.plan.b, self.plan.es);
        let k = self.m16n8_k().unwrap_or(8);
        let tf32 = self.plan.inner == Inner::Tf32;
        let ty = if tf32 { Ty::F32 } else { Ty::F64 };
        let quads = k / 4;
        // The `quads` k values of lane t inside one instruction, in fragment order:
        // k = quads·t + q (a permutation of the ISA's t + 4q, the same for A and B,
        // so the sum over k is unchanged), which puts them side by side in a tile
        // stored along k: one vector read per pair.
        let lds = |g: &mut Self, base: Reg, op: Operand, col: u32| -> Vec<Reg> {
            let off = |q: u32| (stage + ((kk + q) * op.ks + col * op.os) * es) as i64;
            let mut regs = Vec::new();
            if op.ks == 1 && quads >= 2 {
                for q in (0..quads).step_by(2) {
                    regs.extend(g.ld_shared_vec(ty, 2, base, off(q) as u32));
                }
            } else {
                regs.extend((0..quads).map(|q| g.k.ld_shared(ty, base, off(q))));
            }
            if tf32 {
                regs = regs.into_iter().map(|x| g.k.cvt_tf32(x)).collect();
            }
            regs
        };
        let fa: Vec<Vec<Reg>> = (0..a.per_thread / 2)
            .map(|i| {
                // Fragment order: (row g, k q), (row g + 8, k q) for each q.
                let lo = lds(self, a_rd, a, 16 * i);
                let hi = lds(self, a_rd, a, 16 * i + 8);
                lo.into_iter().zip(hi).flat_map(|(l, h)| [l, h]).collect()
            })
            .collect();
        let fb: Vec<Vec<Reg>> = (0..b.per_thread / 2)
            .map(|j| lds(self, b_rd, b, 8 * j))
            .collect();
        Fragments { a: fa, b: fb }
    }

    /// One m16n8 instruction per 16×8 accumulator block, on fragments of one k step.
    fn m16n8_mma(&mut self, acc: &[Vec<Reg>], f: &Fragments) {
        let k = self.m16n8_k().unwrap_or(8);
        for (i, fai) in f.a.iter().enumerate() {
            for (j, fbj) in f.b.iter().enumerate() {
                let d = [
                    acc[2 * i][2 * j],
                    acc[2 * i][2 * j + 1],
                    acc[2 * i + 1][2 * j],
                    acc[2 * i + 1][2 * j + 1],
                ];
                if self.plan.inner == Inner::Tf32 {
                    self.k
                        .mma_m16n8k8_tf32(d, [fai[0], fai[1], fai[2], fai[3]], [fbj[0], fbj[1]]);
                } else {
                    self.k.mma_m16n8_f64(k, d, fai, fbj);
                }
            }
        }
    }

    /// `tile_k` rank-1 updates of the register tile from the stage at `a_rd`/`b_rd`.
    fn multiply(&mut self, acc: &[Vec<Reg>], a_rd: Reg, b_rd: Reg, stage: u32) {
        let (a, b, es) = (self.plan.a, self.plan.b, self.plan.es);
        if self.plan.inner == Inner::Half {
            // Lane (g, t) reads k rows 2t, 2t+1 (+8) at m = g (+8) + 16i, n = g + 8j, and
            // packs each k pair into one register.
            let bf16 = self.plan.ty == Ty::Bf16;
            let pair = |g: &mut Self, base: Reg, row: u32, op: Operand, col: u32| -> Reg {
                let at = |r: u32| (stage + (r * op.ks + col * op.os) * es) as i64;
                let lo = g.k.ld_shared(Ty::B16, base, at(row));
                let hi = g.k.ld_shared(Ty::B16, base, at(row + 1));
                g.k.pack_b16x2(lo, hi)
            };
            for kk in (0..self.plan.bk).step_by(16) {
                let fa: Vec<[Reg; 4]> = (0..a.per_thread / 2)
                    .map(|i| {
                        let m = 16 * i;
                        [
                            pair(self, a_rd, kk, a, m),
                            pair(self, a_rd, kk, a, m + 8),
                            pair(self, a_rd, kk + 8, a, m),
                            pair(self, a_rd, kk + 8, a, m + 8),
                        ]
                    })
                    .collect();
                let fb: Vec<[Reg; 2]> = (0..b.per_thread / 2)
                    .map(|j| {
                        let n = 8 * j;
                        [pair(self, b_rd, kk, b, n), pair(self, b_rd, kk + 8, b, n)]
                    })
                    .collect();
                for (i, fai) in fa.iter().enumerate() {
                    for (j, fbj) in fb.iter().enumerate() {
                        let d = [
                            acc[2 * i][2 * j],
                            acc[2 * i][2 * j + 1],
                            acc[2 * i + 1][2 * j],
                            acc[2 * i + 1][2 * j + 1],
                        ];
                        self.k.mma_m16n8k16(d, *fai, *fbj, bf16);
                    }
                }
            }
            return;
        }
        if let Some(k) = self.m16n8_k() {
            for kk in (0..self.plan.bk).step_by(k as usize) {
                let frags = self.m16n8_fragments(a_rd, b_rd, stage, kk);
                self.m16n8_mma(acc, &frags);
            }
            return;
        }
        if self.plan.inner == Inner::Dmma {
            // `a_rd`/`b_rd` already point at this lane's k row (t) and column (g).
            for kk in (0..self.plan.bk).step_by(4) {
                let fa: Vec<Reg> = (0..a.per_thread)
                    .map(|i| {
                        self.k.ld_shared(
                            Ty::F64,
                            a_rd,
                            (stage + (kk * a.ks + i * 8 * a.os) * es) as i64,
                        )
                    })
                    .collect();
                let fb: Vec<Reg> = (0..b.per_thread / 2)
                    .map(|j| {
                        self.k.ld_shared(
                            Ty::F64,
                            b_rd,
                            (stage + (kk * b.ks + j * 8 * b.os) * es) as i64,
                        )
                    })
                    .collect();
                for (i, row) in acc.iter().enumerate() {
                    for (j, &bj) in fb.iter().enumerate() {
                        self.k
                            .mma_m8n8k4_f64([row[2 * j], row[2 * j + 1]], fa[i], bj);
                    }
                }
            }
            return;
        }
        for kk in 0..self.plan.bk {
            let frag = |g: &mut Self, op: Operand, rd: Reg| -> Vec<Reg> {
                let mut regs = Vec::new();
                for grp in 0..op.per_thread / op.frag_vec {
                    let off = stage + (kk * op.row_stride + grp * op.lanes * op.frag_vec) * es;
                    regs.extend(g.ld_shared_vec(g.plan.ty, op.frag_vec, rd, off));
                }
                regs
            };
            let fa = frag(self, a, a_rd);
            let fb = frag(self, b, b_rd);
            for (i, row) in acc.iter().enumerate() {
                for (j, &c) in row.iter().enumerate() {
                    self.k.emit(format!(
                        "fma.rn.{} {c}, {}, {}, {c}",
                        self.plan.ty, fa[i], fb[j]
                    ));
                }
            }
        }
    }

    /// The block's and this thread's place in C (read from special registers, so the
    /// epilogue can recompute it instead of holding it across the main loop).
    fn coordinates(&mut self) -> Coordinates {
        let (a, b) = (self.plan.a, self.plan.b);
        let tid = self.k.special(Special::TidX);
        // Linear block order: the grouped order (`super::grouped_tile`) measured the
        // same on the H100 at 8192³ (f64, f32, tf32) and cost 5 % on 64³ batches
        // (its divisions, in the prologue and again in the epilogue).
        let bx = self.k.special(Special::CtaidX);
        let by = self.special("%ctaid.y");
        let m0 = self.k.mul(Ty::U32, bx, a.outer);
        let n0 = self.k.mul(Ty::U32, by, b.outer);
        let warp = self.k.shr(Ty::U32, tid, 5);
        let lane = self.rem(tid, 32);
        let wm = self.rem(warp, a.warps);
        let wn = self.k.div(Ty::U32, warp, a.warps);
        let wrow = self.k.mul(Ty::U32, wm, a.warp_tile);
        let wcol = self.k.mul(Ty::U32, wn, b.warp_tile);
        if self.plan.inner != Inner::Fma {
            // Lane (g, t): accumulator rows g + 8i (DMMA) or g + 8h + 16i (tf32), columns
            // 2t + v + 8j; fragments start at A[k = t][m = g], B[k = t][n = g].
            let gid = self.k.shr(Ty::U32, lane, 2);
            let tig = self.rem(lane, 4);
            let row0 = self.k.add(Ty::U32, wrow, gid);
            let col0 = self.k.fma(Ty::U32, tig, 2u32, wcol);
            // Lane t's first k row: 2t for f16/bf16 (k pairs), quads·t for the m16n8
            // shapes (see `multiply`), t for m8n8k4.
            let kmul = match self.plan.inner {
                Inner::Half | Inner::Tf32 => 2,
                Inner::Dmma16 { k } => k / 4,
                _ => 1,
            };
            let a_row = self.k.mul(Ty::U32, row0, a.os);
            let a_frag = self.k.fma(Ty::U32, tig, a.ks * kmul, a_row);
            let bg = self.k.add(Ty::U32, wcol, gid);
            let b_col = self.k.mul(Ty::U32, bg, b.os);
            let b_frag = self.k.fma(Ty::U32, tig, b.ks * kmul, b_col);
            return Coordinates {
                tid,
                m0,
                n0,
                row0,
                col0,
                a_frag,
                b_frag,
            };
        }
        let lm = self.rem(lane, a.lanes);
        let ln = self.k.div(Ty::U32, lane, a.lanes);
        let row0 = self.k.fma(Ty::U32, lm, a.frag_vec, wrow);
        let col0 = self.k.fma(Ty::U32, ln, b.frag_vec, wcol);
        Coordinates {
            tid,
            m0,
            n0,
            row0,
            col0,
            a_frag: row0,
            b_frag: col0,
        }
    }

    /// The batch's matrix: `base + ctaid.z · stride` elements.
    fn batch_base(&mut self, base: Reg, stride: Reg, size: u32) -> Reg {
        let bz = self.special("%ctaid.z");
        let z = self.k.cvt(Ty::U64, bz);
        let elems = self.k.mul(Ty::U64, z, stride);
        let bytes = self.k.mul(Ty::U64, elems, size);
        self.k.add(Ty::U64, base, bytes)
    }

    /// This thread's offsets (tile-relative) along one operand's dimension.
    fn thread_offsets(plan: &Plan, is_a: bool) -> Vec<u32> {
        let op = if is_a { plan.a } else { plan.b };
        match (plan.inner, is_a) {
            // Rows 8i (DMMA), rows 16i + 8h (tf32); columns 8j + v.
            (Inner::Dmma, true) => return (0..op.per_thread).map(|x| 8 * x).collect(),
            (Inner::Tf32 | Inner::Half | Inner::Dmma16 { .. }, true) => {
                return (0..op.per_thread)
                    .map(|x| (x / 2) * 16 + (x % 2) * 8)
                    .collect()
            }
            (Inner::Dmma | Inner::Tf32 | Inner::Half | Inner::Dmma16 { .. }, false) => {
                return (0..op.per_thread).map(|x| (x / 2) * 8 + x % 2).collect()
            }
            (Inner::Fma, _) => {}
        }
        (0..op.per_thread)
            .map(|i| (i / op.frag_vec) * op.lanes * op.frag_vec + i % op.frag_vec)
            .collect()
    }
}

/// Generates the PTX module text for `p`.
pub fn generate(p: &GemmParams, target: &Target) -> Result<String> {
    let plan = plan(p, target)?;
    let mut module = Module::new(target)?;
    let (k, params) = KernelBuilder::from_signature(&crate::gemm::signature(p, target)?);
    let mut g = Gen { k, plan: &plan };
    let (cty, es) = (plan.cty, plan.es);
    let (a, b) = (plan.a, plan.b);

    let pa = params.get("a")?.clone();
    let pb = params.get("b")?.clone();
    let pc = params.get("c")?.clone();
    let dims = ["m", "n", "k", "lda", "ldb", "ldc"]
        .iter()
        .map(|n| params.get(n).cloned())
        .collect::<Result<Vec<_>>>()?;
    let strides = ["stride_a", "stride_b", "stride_c"]
        .iter()
        .map(|n| params.get(n).cloned())
        .collect::<Result<Vec<_>>>()?;
    let palpha = params.get("alpha")?.clone();
    let pbeta = params.get("beta")?.clone();

    // Values only the epilogue needs are loaded (or recomputed) after the main loop,
    // so they hold no registers across it.
    let a_ptr = g.k.ld_param_global_ptr(&pa);
    let b_ptr = g.k.ld_param_global_ptr(&pb);
    let (m, n, kdim) = (
        g.k.ld_param(&dims[0]),
        g.k.ld_param(&dims[1]),
        g.k.ld_param(&dims[2]),
    );
    let (lda, ldb) = (g.k.ld_param(&dims[3]), g.k.ld_param(&dims[4]));
    let stride_a = g.k.ld_param(&strides[0]);
    let stride_b = g.k.ld_param(&strides[1]);

    let at = g.coordinates();
    let a_base = g.batch_base(a_ptr, stride_a, es);
    let b_base = g.batch_base(b_ptr, stride_b, es);

    g.k.comment("global -> shared copy set-up");
    let dynamic = plan.stage * plan.stages > STATIC_SHARED_LIMIT;
    let smem = if dynamic {
        g.k.shared_symbol(DYNAMIC_SMEM)
    } else {
        g.k.shared_array("gemm_tiles", plan.stage * plan.stages, 16)
    };
    let la = g.loader(a, (a_base, lda), (at.m0, m), at.tid, smem);
    let lb = g.loader(b, (b_base, ldb), (at.n0, n), at.tid, smem);
    let a_rd0 = {
        let bytes = g.k.mul(Ty::U32, at.a_frag, es);
        g.k.add(Ty::U32, smem, bytes)
    };
    let b_rd0 = {
        let bytes = g.k.mul(Ty::U32, at.b_frag, es);
        let t = g.k.add(Ty::U32, smem, bytes);
        g.k.add(Ty::U32, t, plan.a_stage)
    };

    let acc: Vec<Vec<Reg>> = (0..a.per_thread)
        .map(|_| {
            (0..b.per_thread)
                .map(|_| g.k.mov(cty, zero_of(cty)))
                .collect()
        })
        .collect();

    if plan.ring {
        g.ring_main_loop(&acc, &la, &lb, (a_rd0, b_rd0), kdim);
    } else {
        g.staged_main_loop(&acc, &la, &lb, (a_rd0, b_rd0), kdim);
    }

    g.k.comment("epilogue: D = alpha*acc + beta*C inside the matrix");
    let c_ptr = g.k.ld_param_global_ptr(&pc);
    let (m, n, ldc) = (
        g.k.ld_param(&dims[0]),
        g.k.ld_param(&dims[1]),
        g.k.ld_param(&dims[5]),
    );
    let stride_c = g.k.ld_param(&strides[2]);
    let alpha = g.k.ld_param(&palpha);
    let beta = g.k.ld_param(&pbeta);
    let at = g.coordinates();
    let (m0, n0, row0, col0) = (at.m0, at.n0, at.row0, at.col0);
    let c_base = g.batch_base(c_ptr, stride_c, plan.cs);
    // β ≠ 0, unordered: a NaN β reads C (and propagates), as BLAS does.
    let beta_zero = g.k.setp(Cmp::Eq, cty, beta, zero_of(cty));
    let read_c = g.k.not_pred(beta_zero);
    let rows: Vec<(Reg, Reg)> = Gen::thread_offsets(&plan, true)
        .into_iter()
        .map(|off| {
            let t = g.k.add(Ty::U32, row0, off);
            let r = g.k.add(Ty::U32, m0, t);
            let inside = g.k.setp(Cmp::Lt, Ty::U32, r, m);
            (g.bytes64(r, plan.cs), inside)
        })
        .collect();
    let cols: Vec<(Reg, Reg)> = Gen::thread_offsets(&plan, false)
        .into_iter()
        .map(|off| {
            let t = g.k.add(Ty::U32, col0, off);
            let c = g.k.add(Ty::U32, n0, t);
            let inside = g.k.setp(Cmp::Lt, Ty::U32, c, n);
            let elems = g.k.mul_wide_u32(c, ldc);
            let bytes = g.k.mul(Ty::U64, elems, plan.cs);
            (g.k.add(Ty::U64, c_base, bytes), inside)
        })
        .collect();
    // The FMA kernel's rows come in runs of `frag_vec` adjacent ones: stored a run at a
    // time (up to 16 bytes) where C's columns allow it, a warp's store fills whole
    // 32-byte sectors instead of every other element of them twice over (H100, f32
    // 64³ × 10000: twice the L2 write sectors of C's size with scalar stores).
    let run = if plan.inner == Inner::Fma {
        a.frag_vec.min(16 / plan.cs)
    } else {
        1
    };
    // Runs start at rows ≡ 0 (mod run) (row0 and m0 are multiples of frag_vec): a
    // vector is aligned when C's base and leading dimension are.
    let vector_ok = if run > 1 {
        let low = g.k.reg(Ty::U64);
        g.k.emit(format!("and.b64 {low}, {c_base}, {}", run * plan.cs - 1));
        let base_ok = g.k.setp(Cmp::Eq, Ty::U64, low, 0u32);
        let ld_low = g.k.and_b32(ldc, run - 1);
        let ld_ok = g.k.setp(Cmp::Eq, Ty::U32, ld_low, 0u32);
        Some(g.k.and_pred(base_ok, ld_ok))
    } else {
        None
    };
    for (r, group) in rows.chunks(run as usize).enumerate() {
        for (j, &(col_ptr, col_in)) in cols.iter().enumerate() {
            let addr = g.k.add(Ty::U64, col_ptr, group[0].0);
            let values: Vec<Reg> = (0..group.len())
                .map(|q| g.k.mul(cty, alpha, acc[r * run as usize + q][j]))
                .collect();
            let olds: Vec<Reg> = (0..group.len()).map(|_| g.k.reg(cty)).collect();
            // Whole run inside (rows increase along it) and aligned: one vector access.
            let vector = vector_ok.map(|ok| {
                let last_in = group[group.len() - 1].1;
                let all_in = g.k.and_pred(last_in, col_in);
                g.k.and_pred(all_in, ok)
            });
            let scalar = |g: &mut Gen, q: usize| {
                let inside = g.k.and_pred(group[q].1, col_in);
                match vector {
                    Some(v) => {
                        let not_vector = g.k.not_pred(v);
                        g.k.and_pred(inside, not_vector)
                    }
                    None => inside,
                }
            };
            let scalars: Vec<Reg> = (0..group.len()).map(|q| scalar(&mut g, q)).collect();
            if let Some(v) = vector {
                let load = g.k.and_pred(v, read_c);
                g.k.when(load, false);
                g.k.ld_global_into(&olds, addr, 0, LoadCache::Default);
            }
            for (q, &p) in scalars.iter().enumerate() {
                let load = g.k.and_pred(p, read_c);
                g.k.when(load, false);
                g.k.ld_global_into(
                    &olds[q..q + 1],
                    addr,
                    (q as u32 * plan.cs) as i64,
                    LoadCache::Default,
                );
            }
            for (q, &value) in values.iter().enumerate() {
                g.k.when(read_c, false);
                g.k.emit(format!(
                    "fma.rn.{cty} {value}, {beta}, {}, {value}",
                    olds[q]
                ));
            }
            if let Some(v) = vector {
                g.k.when(v, false);
                g.k.st_global(addr, 0, &values);
            }
            for (q, &p) in scalars.iter().enumerate() {
                g.k.when(p, false);
                g.k.st_global(addr, (q as u32 * plan.cs) as i64, &values[q..q + 1]);
            }
        }
    }
    g.k.ret();
    module.push(&g.k);
    // Launch bounds: the block size. (Asking for two resident 256-thread blocks, i.e.
    // at most 128 registers, makes ptxas 12 spill ~40 bytes in the 128×128 SIMT kernel,
    // which uses 125-129 unconstrained.)
    // Rings in dynamic shared memory: without a stated minimum of one resident block,
    // ptxas 12 may cap registers for an occupancy the shared memory never allows, and
    // spill (f64 32×64×16 in 4 stages: 80 registers and 12 bytes of spills, against 88
    // registers and none with it).
    let bounds = format!(
        ")\n.maxntid {}, 1, 1\n{}",
        plan.threads,
        if plan.ring { ".minnctapersm 1\n" } else { "" }
    );
    let text = module.text().replacen(")\n{\n", &(bounds + "{\n"), 1);
    if !dynamic {
        return Ok(text);
    }
    // The dynamic shared array is declared at module scope, ahead of the kernel.
    let decl = format!(".extern .shared .align 16 .b8 {DYNAMIC_SMEM}[];\n\n");
    let at = text.find(".visible .entry").unwrap_or(text.len());
    Ok(format!("{}{decl}{}", &text[..at], &text[at..]))
}

/// Dynamic shared memory a launch of `p` needs: its tiles when they exceed the 48 KiB a
/// kernel may declare statically, else 0. The size does not depend on which NVIDIA
/// target runs it (only the limit does, checked when the kernel is generated).
pub fn dynamic_shared_bytes(p: &GemmParams) -> u32 {
    let Ok(sm90) = "sm_90".parse::<Target>() else {
        return 0;
    };
    match plan(p, &sm90) {
        Ok(plan) if plan.stage * plan.stages > STATIC_SHARED_LIMIT => plan.stage * plan.stages,
        _ => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sm90() -> Target {
        "sm_90a".parse().unwrap()
    }

    #[test]
    fn default_plans_split_evenly() {
        for p in super::super::default_variants() {
            let plan = plan(&p, &sm90()).unwrap_or_else(|e| panic!("{p:?}: {e}"));
            for op in [plan.a, plan.b] {
                assert_eq!(op.loads * op.vec * plan.threads, op.outer * plan.bk);
                assert_eq!(op.warps * op.warp_tile, op.outer);
                assert_eq!(op.lanes * op.per_thread, op.warp_tile);
            }
            assert_eq!(plan.a.lanes * plan.b.lanes, 32);
        }
    }

    #[test]
    fn thread_rows_cover_the_warp_tile_once() {
        for p in super::super::default_variants() {
            let plan = plan(&p, &sm90()).unwrap();
            if plan.inner != Inner::Fma {
                continue; // the simulator test covers the DMMA lane mapping
            }
            for (is_a, op) in [(true, plan.a), (false, plan.b)] {
                let mut seen = vec![0u32; op.warp_tile as usize];
                for lane in 0..op.lanes {
                    for off in Gen::thread_offsets(&plan, is_a) {
                        seen[(lane * op.frag_vec + off) as usize] += 1;
                    }
                }
                assert!(seen.iter().all(|&c| c == 1), "{p:?}: {seen:?}");
            }
        }
    }

    #[test]
    fn rows_stored_along_k_are_padded_to_conflict_free_strides() {
        // f64 scalar reads (16 lanes of 8 bytes per phase): 32 bytes mod 128.
        assert!(conflict_free_row(160, 8, 1, 1));
        assert!(!conflict_free_row(128, 8, 1, 1));
        // f64 pairs at k = 2t (m16n8k8): 64 mod 128; at k = 4t (m16n8k16): 16 mod 32.
        assert!(conflict_free_row(192, 8, 2, 2));
        assert!(!conflict_free_row(160, 8, 2, 2));
        assert!(conflict_free_row(144, 8, 4, 2));
        assert!(!conflict_free_row(192, 8, 4, 2));
        // tf32 pairs at k = 2t: 32 bytes mod 128.
        assert!(conflict_free_row(96, 4, 2, 2));
        assert!(!conflict_free_row(64, 4, 2, 2));
        // The planned rows: m16n8k16 f64 with 16-deep slabs pads 16 to 18 elements.
        let mut p = super::super::dmma(64, 16, 3, true, false);
        p.instruction = GemmInstruction::MmaSync { m: 16, n: 8, k: 16 };
        let plan = plan(&p, &sm90()).unwrap();
        assert_eq!((plan.a.os, plan.a.ks), (18, 1));
        assert_eq!(plan.b.os, 18);
    }

    #[test]
    fn bad_shapes_are_errors() {
        let good = super::super::fallback(DType::F32, false, false).unwrap();
        let mut p = good.clone();
        p.warps_n = 3;
        assert!(generate(&p, &sm90()).is_err());
        let mut p = good.clone();
        p.stages = 9; // rings are 3..=8 deep
        assert!(generate(&p, &sm90()).is_err());
        let mut p = super::super::half(DType::F16, false, false);
        p.stages = 3; // no f16/bf16 ring
        assert!(generate(&p, &sm90()).is_err());
        let mut p = good.clone();
        p.stages = 3;
        p.tile_k = 2; // a 128×2 slab is not 16-byte chunks for 256 threads
        assert!(generate(&p, &sm90()).is_err());
        let mut p = good.clone();
        p.tile_k = 128; // 2 × 128 KiB of shared memory
        assert!(generate(&p, &sm90()).is_err());
        let mut p = good.clone();
        p.tile_k = 64; // 2 × 64 KiB: dynamic shared memory
        let text = generate(&p, &sm90()).unwrap();
        assert!(text.contains(".extern .shared .align 16 .b8 rocm_gemm_tiles[]"));
        // Two stages of 64 k rows of A and B (128 f32 each, plus any row padding).
        let bytes = dynamic_shared_bytes(&p);
        assert!(
            (2 * 64 * 256 * 4..2 * 64 * 288 * 4).contains(&bytes),
            "{bytes}"
        );
        assert_eq!(dynamic_shared_bytes(&good), 0);
        let mut p = good.clone();
        p.c = DType::F16;
        assert!(generate(&p, &sm90()).is_err());
        let mut p = good;
        p.instruction = GemmInstruction::Simt {
            thread_m: 0,
            thread_n: 8,
        };
        assert!(generate(&p, &sm90()).is_err());
    }
}
