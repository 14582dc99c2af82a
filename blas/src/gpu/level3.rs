//! Level 3 on GPUs (CUDA and AMD devices): trsm, trmm, syrk/syr2k and symm blocked onto the
//! GPU GEMM (`gpu::gemm`), with the triangle kernels of `rocm_kernels::level3` for
//! what a GEMM cannot do. Everything is queued on the handle's stream: no host round
//! trip inside an operation. Sub-matrices are device addresses with the parent's
//! leading dimension.
//!
//! - **trsm** (op(A)·X = α·B, or X·op(A) = α·B): the diagonal blocks of A, of order
//!   [`TRI_BLOCK`], are inverted in one launch (`rocm_tri_invert`) into the workspace.
//!   The solve recurses on halves of the block range: with op(A) = [[A₁₁, 0], [A₂₁,
//!   A₂₂]] from the left, X₁ = solve(A₁₁, α·B₁), B₂ ← α·B₂ − A₂₁·X₁ (one GEMM), X₂ =
//!   solve(A₂₂, B₂) (α now applied); the other seven side/uplo/trans cases are the same
//!   with the halves swapped and the products on the other side. A leaf (one diagonal
//!   block) is W = α·op(inv(A_bb))·B_b (a GEMM into the workspace; inv(op(A)) =
//!   op(inv(A))) copied back over B_b. The recursion puts almost all flops in GEMMs of
//!   half, quarter, ... the order with n (or m) columns: level ℓ does m²n/2^(ℓ+1)
//!   multiply-adds in 2^ℓ GEMMs, so the big, efficient GEMMs dominate.
//! - **trmm** (B ← α·op(A)·B or α·B·op(A), in place): the same recursion, over blocks of
//!   order [`TRMM_BLOCK`], with the halves
//!   in the order that keeps each input alive until it is used: with op(A) lower from
//!   the left, B₂ ← α·A₂₂·B₂ (recursively), B₂ += α·A₂₁·B₁ (GEMM), B₁ ← α·A₁₁·B₁. Leaves
//!   multiply by the diagonal block expanded to a dense triangle (`rocm_tri_expand`,
//!   zeros in the other triangle, ones on a unit diagonal; all blocks in one launch)
//!   into the workspace, then copy back.
//! - **syrk / syr2k** (only the `uplo` triangle of C is read or written): the triangle
//!   is tiled like a recursive halving, but each level is one strided-batched GEMM: the
//!   diagonal blocks of order [`RANK_K_BLOCK`] are full GEMMs into the workspace (one
//!   batched launch) whose triangles `rocm_tri_update` adds to C (C ← W + β·C); then for
//!   s = RANK_K_BLOCK, 2·RANK_K_BLOCK, 4·RANK_K_BLOCK, ... the off-diagonal s×s blocks
//!   of every 2s-diagonal block go directly into C by one GEMM batched over them (plus
//!   one GEMM for a clipped block at the end). The GEMMs write β·C where β ≠ 0 and never
//!   read C when β = 0. syr2k runs each product twice with the operands swapped (the
//!   second adding, β = 1).
//! - **trtri**: the trsm above on an identity (see [`trtri`]).
//! - **symm** (C ← α·A·B + β·C or α·B·A + β·C): A's stored triangle is expanded to the
//!   full symmetric matrix in the workspace (`rocm_tri_expand` with the mirror), then
//!   one GEMM.
//!
//! Workspace: the handle's Level 3 block workspace (`Blas::with_blocks_workspace`, kept
//! and grown across calls; not the general workspace, which the complex GEMM called
//! inside needs): trsm and trmm ⌈ka/nb⌉·nb² + nb·n (left) or m·nb (right) elements
//! (nb = [`TRI_BLOCK`] or [`TRMM_BLOCK`]), syrk/syr2k ⌈n/RANK_K_BLOCK⌉·RANK_K_BLOCK², symm ka²
//! (a dense copy of A: 256 MiB for an 8192² f32, which stays with the handle).
//!
//! Error bounds: the GEMMs' (each output a k-term dot product, |error| ≤ (k + 2)·u·Σ|terms|);
//! trsm multiplies by computed inverses of the diagonal blocks, which is backward stable
//! for the well-conditioned blocks of the diagonally dominant matrices solvers produce
//! but not for arbitrary ill-conditioned triangles (as rocBLAS's and cuBLAS's blocked
//! trsm; the tests check residuals on diagonally dominant matrices).
//!
//! Types and devices: f32, f64, Complex32 and Complex64. The triangle kernels exist for
//! NVIDIA (PTX) and every AMD target (AMDGPU; 32-bit byte offsets inside a block,
//! checked here); each routine runs where the GEMM supports the type, and otherwise
//! answers the GEMM's `Unsupported` unchanged (AMD targets without a GEMM for the type).
//! Complex: a conjugate op(A) is the GEMM's C operation (inv(Aᴴ) = inv(A)ᴴ for trsm's
//! leaves); herk/her2k multiply by op(·)ᴴ (her2k's second product with conj(α)) and zero
//! the diagonal's imaginary part in the triangle update (`HERM`); hemm expands A with a
//! conjugated mirror and a real diagonal (`HERM`). Complex64's trsm inverts blocks of 32
//! (a 64-block needs 65 KiB of shared memory).

#![allow(clippy::too_many_arguments)]

use crate::gemm::GemmShape;
use crate::gpu::extension::offsets_fit;
use crate::gpu::gemm::{self, Operand};
use crate::gpu::level2::raw_view;
use crate::level3::{RankKShape, SymmShape, TriShape};
use crate::{Blas, Diag, Scalar, Side, Transpose, Uplo};
use rocm_core::{Real, Result};
use rocm_kernels::exec::execute;
use rocm_kernels::generator;
use rocm_kernels::level3::{self as kern, Level3, Level3Params, TriKernel, TriProblem};

/// Order of the diagonal blocks trsm inverts and trmm expands (the recursion's leaves).
/// A leaf's GEMM is TRI_BLOCK × n × TRI_BLOCK, so the leaves do 2·ka·TRI_BLOCK·n flops
/// of the m²n (trsm) or wasted on the zero triangle (trmm); 64 keeps that near 1–2 %
/// at 8192 and is the largest inversion block whose f64 copy fits in 48 KiB of static
/// shared memory.
pub(crate) const TRI_BLOCK: usize = 64;

/// Order of trmm's diagonal blocks (the recursion's leaves), expanded to dense
/// triangles: a leaf's GEMM multiplies the zero triangle too, 2·ka·TRMM_BLOCK·n flops
/// of which half are wasted (3 % of an 8192 trmm's m²n), but every GEMM of the
/// recursion then has a k of at least 512: with 64, the 128 leaves and the lowest
/// levels' updates were 64-deep GEMMs that a GPU runs at a small fraction of its rate
/// (H100, f32 8192²: 0.72x cuBLAS).
pub(crate) const TRMM_BLOCK: usize = 512;

/// Order of syrk/syr2k's diagonal blocks (full GEMMs, batched). 512 computes 1/16 of an
/// 8192 update twice over (6 % more flops), and keeps the lowest level's batch at 8
/// blocks of 512 × 512: with 128, the lowest levels' batches were one-tile GEMMs with
/// the whole k each, which filled a fraction of the device (H100, 8192²: 0.64x cuBLAS).
pub(crate) const RANK_K_BLOCK: usize = 512;

/// The inversion block of trsm for `T`: [`TRI_BLOCK`], or 32 for 16-byte elements
/// (Complex64), whose 64-block would need 65 KiB of shared memory.
fn tri_block<T: Scalar>() -> usize {
    if es::<T>() == 16 {
        TRI_BLOCK / 2
    } else {
        TRI_BLOCK
    }
}

/// The GEMM operation of a transposed operand: `t` itself for complex types (T or C),
/// T for real ones (where C means T).
fn trans_op<T: Scalar>(t: Transpose) -> Transpose {
    if T::IS_COMPLEX {
        t
    } else {
        Transpose::T
    }
}

/// Loads the triangle kernels for `T` (an unsupported type or device fails here,
/// before a routine queues anything).
fn require_kernels<T: Scalar>(blas: &Blas) -> Result<()> {
    let p = Level3Params {
        dtype: T::DTYPE,
        invert_block: tri_block::<T>() as u32,
    };
    generator::load::<Level3>(blas.device(), &p).map(|_| ())
}

/// One triangle-kernel launch on an n×n matrix: the kernels crate's plan
/// ([`kern::plan`]) run by the executor, `dst` (or C) and `src` (or w) at their first
/// elements, `ld` src's (or C's) leading dimension.
///
/// # Safety
/// The elements the problem touches from `dst` and `src` (`TriProblem::dst_elements`,
/// `src_elements`) lie in device memory on the handle's device that the caller may use
/// (dst written), alive until the stream has run the queued work.
unsafe fn run_tri<T: Scalar>(
    blas: &Blas,
    kernel: TriKernel,
    (n, ld, flags): (usize, usize, u32),
    dst: u64,
    src: u64,
) -> Result<()> {
    let p = TriProblem {
        dtype: T::DTYPE,
        invert_block: tri_block::<T>() as u32,
        kernel,
        n: n as u64,
        ld: ld as u64,
        dst_slot: 0,
        src_slot: 1,
        flags,
    };
    let plan = kern::plan(&p)?;
    let es = es::<T>();
    // SAFETY: forwarded from this function's contract.
    let views = unsafe {
        [
            raw_view(blas, dst, p.dst_elements(), es, true),
            raw_view(blas, src, p.src_elements(), es, false),
        ]
    };
    execute(&plan, blas.stream(), &views, None)
}

/// A scalar's parts as f64 (the imaginary part 0 for real types).
fn parts<T: Scalar>(v: T) -> (f64, f64) {
    (v.re().as_f64(), v.im().as_f64())
}

fn single(address: u64) -> Operand {
    Operand { address, stride: 0 }
}

/// Bytes per element of `T`.
fn es<T: Scalar>() -> usize {
    std::mem::size_of::<T>()
}

/// Workspace elements (f64) holding `len` elements of `T`.
fn f64s<T: Scalar>(len: usize) -> usize {
    (len * es::<T>()).div_ceil(8)
}

/// A column-major matrix on the device: base address and leading dimension.
#[derive(Debug, Clone, Copy)]
struct Mat {
    address: u64,
    ld: usize,
    es: usize,
}

impl Mat {
    /// Element (i, j) as a sub-matrix with the same leading dimension.
    fn at(&self, i: usize, j: usize) -> Mat {
        Mat {
            address: self.address + ((i + j * self.ld) * self.es) as u64,
            ..*self
        }
    }
}

/// C ← α·op(A)·op(B) + β·C for one problem (m, n ≥ 1 or nothing happens).
fn gemm1<T: Scalar>(
    blas: &Blas,
    (ta, tb): (Transpose, Transpose),
    (m, n, k): (usize, usize, usize),
    alpha: T,
    a: Mat,
    b: Mat,
    beta: T,
    c: Mat,
) -> Result<()> {
    let s = GemmShape {
        transa: ta,
        transb: tb,
        m,
        n,
        k,
        lda: a.ld,
        ldb: b.ld,
        ldc: c.ld,
    };
    gemm::gemm(
        blas,
        &s,
        alpha,
        single(a.address),
        single(b.address),
        beta,
        single(c.address),
        1,
    )
}

/// B ← 0 (m×n at ldb) without reading it: a GEMM with k = 0 and β = 0.
fn zero<T: Scalar>(blas: &Blas, m: usize, n: usize, b: Mat) -> Result<()> {
    gemm1(
        blas,
        (Transpose::N, Transpose::N),
        (m, n, 0),
        T::zero(),
        Mat { ld: m.max(1), ..b },
        Mat { ld: 1, ..b },
        T::zero(),
        b,
    )
}

// ---------------------------------------------------------------------------------
// trsm and trmm

/// One trsm or trmm call on device addresses.
struct Tri<'a> {
    blas: &'a Blas,
    s: TriShape,
    a: Mat,
    b: Mat,
    /// The diagonal blocks' order: [`TRI_BLOCK`] (trsm) or [`TRMM_BLOCK`] (trmm).
    nb: usize,
    /// The diagonal blocks' inverses (trsm) or dense triangles (trmm), nb² apart,
    /// leading dimension nb.
    blocks: u64,
    /// Scratch for a leaf's product: nb × n (left, ld nb) or m × nb (right, ld m).
    w: u64,
    solve: bool,
    /// The GEMM operation of a transposed op(A): T, or C for a complex conjugate one.
    trans: Transpose,
}

impl Tri<'_> {
    fn ka(&self) -> usize {
        self.s.ka()
    }

    /// Rows/columns `[lo·nb, min(hi·nb, ka))` of A.
    fn span(&self, lo: usize, hi: usize) -> (usize, usize) {
        (lo * self.nb, (hi * self.nb).min(self.ka()))
    }

    /// Whether the block range's second half is the one the first step works on
    /// without needing the other (trmm) or solves last (trsm): op(A) lower from the
    /// left, or upper from the right.
    fn second_first(&self) -> bool {
        let op_lower = (self.s.uplo == Uplo::Lower) != self.s.trans.is_trans();
        (self.s.side == Side::Left) == op_lower
    }

    /// op(A) restricted to rows `r` and columns `c`, as a GEMM operand: the stored
    /// block and its transpose flag.
    fn op_block(&self, r: usize, c: usize) -> (Transpose, Mat) {
        if self.s.trans.is_trans() {
            (self.trans, self.a.at(c, r))
        } else {
            (Transpose::N, self.a.at(r, c))
        }
    }

    /// B_t ← β_g·B_t + α_g·(op(A)[t, s]·B_s) (left) or α_g·(B_s·op(A)[s, t]) (right),
    /// t and s spans of the order.
    fn update<T: Scalar>(
        &self,
        t: (usize, usize),
        s: (usize, usize),
        alpha_g: T,
        beta_g: T,
    ) -> Result<()> {
        let (lt, ls) = (t.1 - t.0, s.1 - s.0);
        match self.s.side {
            Side::Left => {
                let (ta, a) = self.op_block(t.0, s.0);
                gemm1(
                    self.blas,
                    (ta, Transpose::N),
                    (lt, self.s.n, ls),
                    alpha_g,
                    a,
                    self.b.at(s.0, 0),
                    beta_g,
                    self.b.at(t.0, 0),
                )
            }
            Side::Right => {
                let (tb, a) = self.op_block(s.0, t.0);
                gemm1(
                    self.blas,
                    (Transpose::N, tb),
                    (self.s.m, lt, ls),
                    alpha_g,
                    self.b.at(0, s.0),
                    a,
                    beta_g,
                    self.b.at(0, t.0),
                )
            }
        }
    }

    /// One diagonal block: B_b ← α·op(D)·B_b (or α·B_b·op(D)), D the block's inverse or
    /// dense triangle, through the leaf scratch.
    fn leaf<T: Scalar>(&self, z: usize, alpha: T) -> Result<()> {
        let es = es::<T>();
        let (r, end) = self.span(z, z + 1);
        let bs = end - r;
        let d = Mat {
            address: self.blocks + (z * self.nb * self.nb * es) as u64,
            ld: self.nb,
            es,
        };
        // inv(op(D)) = op(inv(D)) for op = T and C alike.
        let op = if self.s.trans.is_trans() {
            self.trans
        } else {
            Transpose::N
        };
        let (m, n) = (self.s.m, self.s.n);
        let (w, target, rows, cols) = match self.s.side {
            Side::Left => {
                let w = Mat {
                    address: self.w,
                    ld: self.nb,
                    es,
                };
                let b = self.b.at(r, 0);
                gemm1(
                    self.blas,
                    (op, Transpose::N),
                    (bs, n, bs),
                    alpha,
                    d,
                    b,
                    T::zero(),
                    w,
                )?;
                (w, b, bs, n)
            }
            Side::Right => {
                let w = Mat {
                    address: self.w,
                    ld: m,
                    es,
                };
                let b = self.b.at(0, r);
                gemm1(
                    self.blas,
                    (Transpose::N, op),
                    (m, bs, bs),
                    alpha,
                    b,
                    d,
                    T::zero(),
                    w,
                )?;
                (w, b, m, bs)
            }
        };
        // SAFETY: the scratch holds rows × cols at w.ld (sized by `tri`); the target is
        // inside B's checked view (rows × cols of its m × n at ldb); the workspace is a
        // separate allocation, so the regions do not overlap.
        unsafe {
            self.blas.stream().copy_2d_raw(
                target.address,
                target.ld * es,
                w.address,
                w.ld * es,
                rows * es,
                cols,
            )
        }
    }

    /// The operation on the block range `[lo, hi)` of A (and the matching part of B).
    fn run<T: Scalar>(&self, lo: usize, hi: usize, alpha: T) -> Result<()> {
        if hi - lo == 1 {
            return self.leaf(lo, alpha);
        }
        let mid = lo + (hi - lo) / 2;
        let (first, second) = ((lo, mid), (mid, hi));
        let (t, s) = if self.second_first() {
            (second, first)
        } else {
            (first, second)
        };
        let (t_span, s_span) = (self.span(t.0, t.1), self.span(s.0, s.1));
        if self.solve {
            // X_s = solve(A_ss, α·B_s); B_t ← α·B_t − op(A)[t,s]·X_s; X_t = solve(A_tt, B_t).
            self.run(s.0, s.1, alpha)?;
            self.update(t_span, s_span, T::zero() - T::one(), alpha)?;
            self.run(t.0, t.1, T::one())
        } else {
            // B_t ← α·op(A_tt)·B_t; B_t += α·op(A)[t,s]·B_s (B_s still the input);
            // B_s ← α·op(A_ss)·B_s.
            self.run(t.0, t.1, alpha)?;
            self.update(t_span, s_span, alpha, T::one())?;
            self.run(s.0, s.1, alpha)
        }
    }
}

/// trsm (`solve`) or trmm on the device: `a` and `b` are the checked views' addresses;
/// m, n ≥ 1.
pub(crate) fn tri<T: Scalar>(
    blas: &Blas,
    solve: bool,
    s: &TriShape,
    alpha: T,
    a: u64,
    b: u64,
) -> Result<()> {
    let es = es::<T>();
    let b = Mat {
        address: b,
        ld: s.ldb,
        es,
    };
    if alpha == T::zero() {
        // BLAS: B ← 0 without reading A.
        return zero::<T>(blas, s.m, s.n, b);
    }
    let ka = s.ka();
    let nb = if solve { tri_block::<T>() } else { TRMM_BLOCK };
    offsets_fit::<T>(blas, "lda", s.lda, nb.min(ka))?;
    let count = ka.div_ceil(nb);
    let blocks_len = count * nb * nb;
    let w_len = match s.side {
        Side::Left => nb * s.n,
        Side::Right => s.m * nb,
    };
    require_kernels::<T>(blas)?;
    blas.with_blocks_workspace(f64s::<T>(blocks_len + w_len), |work| {
        let base = work.as_slice_mut().address();
        let mut flags = if s.uplo == Uplo::Upper {
            kern::UPPER
        } else {
            0
        };
        if s.diag == Diag::Unit {
            flags |= kern::UNIT;
        }
        let kernel = if solve {
            TriKernel::Invert {
                stride_dst: (nb * nb) as u64,
            }
        } else {
            TriKernel::Expand {
                nb: nb as u64,
                ld_dst: nb as u64,
                stride_dst: (nb * nb) as u64,
            }
        };
        // SAFETY: the kernel reads the ka×ka triangle of A inside its checked view
        // (lda ≥ ka) and writes ⌈ka/nb⌉ dense blocks of nb² elements at `base`, inside
        // the workspace (sized above).
        unsafe { run_tri::<T>(blas, kernel, (ka, s.lda, flags), base, a)? };
        let t = Tri {
            blas,
            s: *s,
            a: Mat {
                address: a,
                ld: s.lda,
                es,
            },
            b,
            nb,
            blocks: base,
            w: base + (blocks_len * es) as u64,
            solve,
            trans: trans_op::<T>(s.trans),
        };
        t.run(0, count, alpha)
    })
}

/// trtri: the `uplo` triangle of `inv` ← that of A⁻¹ (n ≥ 1). X = A⁻¹·I is this
/// module's trsm on an identity in the handle's outer workspace (zeroed by geam with
/// α = β = 0, its diagonal set by `rocm_tri_expand` with a unit diagonal), then X's
/// triangle goes into `inv` by `rocm_tri_update` with β = 0 (the other triangle is not
/// touched; with a unit diagonal neither is the diagonal). The solve costs n³
/// multiply-adds against a recursive inversion's n³/3, and keeps trsm's error bound:
/// every column of X is a triangular solve with the blocked inverses and GEMM updates.
pub(crate) fn trtri<T: Scalar>(
    blas: &Blas,
    uplo: Uplo,
    diag: Diag,
    n: usize,
    (a, lda): (u64, usize),
    (inv, ldinv): (u64, usize),
) -> Result<()> {
    offsets_fit::<T>(blas, "ldinv", ldinv.max(n), n)?;
    require_kernels::<T>(blas)?;
    let upper = if uplo == Uplo::Upper { kern::UPPER } else { 0 };
    let unit = if diag == Diag::Unit { kern::UNIT } else { 0 };
    blas.with_outer_workspace(f64s::<T>(n * n), |work| {
        let x = work.as_slice_mut().address();
        let square = crate::extension::GeamShape {
            transa: Transpose::N,
            transb: Transpose::N,
            m: n,
            n,
            lda: n,
            ldb: n,
            ldc: n,
        };
        // X ← 0 (α = β = 0 read neither operand).
        crate::gpu::extension::geam(
            blas,
            &square,
            T::zero(),
            (x, 0),
            T::zero(),
            (x, 0),
            (x, 0),
            1,
        )?;
        // X ← I: the zero lower triangle expanded with a unit diagonal.
        let identity = TriKernel::Expand {
            nb: n as u64,
            ld_dst: n as u64,
            stride_dst: 0,
        };
        // SAFETY: one n×n block (nb = n) read and written at x, inside the workspace
        // (n² elements). Source and destination coincide: each element is read (the
        // stored strict triangle, all zero) and written only by its own work-item.
        unsafe { run_tri::<T>(blas, identity, (n, n, kern::UNIT), x, x)? };
        let s = TriShape {
            side: Side::Left,
            uplo,
            trans: Transpose::N,
            diag,
            m: n,
            n,
            lda,
            ldb: n,
        };
        tri::<T>(blas, true, &s, T::one(), a, x)?;
        let copy = TriKernel::Update {
            nb: n as u64,
            ld_w: n as u64,
            stride_w: 0,
            beta: (0.0, 0.0),
        };
        // SAFETY: the kernel writes the n×n triangle of inv (ldinv ≥ n, checked by the
        // caller against inv's view) and reads X's, inside the workspace.
        unsafe { run_tri::<T>(blas, copy, (n, ldinv, upper | unit), inv, x) }
    })
}

// ---------------------------------------------------------------------------------
// syrk and syr2k

/// One syrk or syr2k call on device addresses.
struct RankK<'a, T> {
    blas: &'a Blas,
    s: RankKShape,
    /// (X, Y, α_q) of each product α_q·op(X)·op(Y)ᵀ (ᴴ for herk/her2k): (A, A, α) for
    /// syrk/herk, (A, B, α) and (B, A, α) for syr2k, (A, B, α) and (B, A, conj(α)) for
    /// her2k.
    pairs: Vec<(Mat, Mat, T)>,
    /// The GEMM operation of the transposed side: T, or C for herk/her2k on complex types.
    other: Transpose,
}

impl<T: Scalar> RankK<'_, T> {
    /// Row r of op(X) (op(X) is n×k): element (r, 0) of X, or (0, r) when transposed.
    fn row(&self, x: Mat, r: usize) -> Mat {
        if self.s.trans.is_trans() {
            x.at(0, r)
        } else {
            x.at(r, 0)
        }
    }

    /// Elements between consecutive rows of op(X).
    fn row_step(&self, x: Mat) -> usize {
        if self.s.trans.is_trans() {
            x.ld
        } else {
            1
        }
    }

    /// C_q ← α·Σ op(X)[I_q]·op(Y)[J_q]ᵀ + β·C_q for `batch` blocks q: I_q the `rows` rows
    /// of op(·) from i0 + q·step, J_q the `cols` from j0 + q·step, C_q at c + q·c_stride
    /// (elements). The first product applies β, the others add.
    fn products(
        &self,
        (rows, cols): (usize, usize),
        (i0, j0): (usize, usize),
        (step, batch): (usize, usize),
        c: Mat,
        c_stride: usize,
        beta: T,
    ) -> Result<()> {
        let (ta, tb) = if self.s.trans.is_trans() {
            (self.other, Transpose::N)
        } else {
            (Transpose::N, self.other)
        };
        for (q, &(x, y, alpha)) in self.pairs.iter().enumerate() {
            let shape = GemmShape {
                transa: ta,
                transb: tb,
                m: rows,
                n: cols,
                k: self.s.k,
                lda: x.ld,
                ldb: y.ld,
                ldc: c.ld,
            };
            let operand = |m: Mat, r: usize| Operand {
                address: self.row(m, r).address,
                stride: step * self.row_step(m),
            };
            gemm::gemm(
                self.blas,
                &shape,
                alpha,
                operand(x, i0),
                operand(y, j0),
                if q == 0 { beta } else { T::one() },
                Operand {
                    address: c.address,
                    stride: c_stride,
                },
                batch,
            )?;
        }
        Ok(())
    }
}

/// syrk/herk (`b` = None) or syr2k/her2k (`hermitian`) on the device; n ≥ 1 and not a
/// BLAS quick return. herk/her2k take real α (herk) and β as complex values with a zero
/// imaginary part; their products use op(·)ᴴ and the diagonal's imaginary part is set
/// to zero (`HERM` in the triangle update), as BLAS does.
pub(crate) fn rank_k<T: Scalar>(
    blas: &Blas,
    s: &RankKShape,
    alpha: T,
    a: u64,
    b: Option<(u64, usize)>,
    beta: T,
    c: u64,
    hermitian: bool,
) -> Result<()> {
    let herm = hermitian && T::IS_COMPLEX;
    let es = es::<T>();
    let a = Mat {
        address: a,
        ld: s.lda,
        es,
    };
    let c = Mat {
        address: c,
        ld: s.ldc,
        es,
    };
    let pairs = match b {
        None => vec![(a, a, alpha)],
        Some((address, ld)) => {
            let b = Mat { address, ld, es };
            let second = if herm { alpha.conj() } else { alpha };
            vec![(a, b, alpha), (b, a, second)]
        }
    };
    let r = RankK {
        blas,
        s: *s,
        pairs,
        other: if herm { Transpose::C } else { Transpose::T },
    };
    let (n, nb) = (s.n, RANK_K_BLOCK);
    offsets_fit::<T>(blas, "ldc", s.ldc, nb.min(n))?;
    let lower = s.uplo == Uplo::Lower;
    require_kernels::<T>(blas)?;
    // Diagonal blocks: full products into the workspace, then their triangles into C.
    let count = n.div_ceil(nb);
    blas.with_blocks_workspace(f64s::<T>(count * nb * nb), |work| {
        let base = work.as_slice_mut().address();
        let w = Mat {
            address: base,
            ld: nb,
            es,
        };
        let full = n / nb;
        if full > 0 {
            r.products((nb, nb), (0, 0), (nb, full), w, nb * nb, T::zero())?;
        }
        let rest = n - full * nb;
        if rest > 0 {
            let at = full * nb;
            let w_last = Mat {
                address: base + (full * nb * nb * es) as u64,
                ..w
            };
            r.products((rest, rest), (at, at), (0, 1), w_last, 0, T::zero())?;
        }
        let mut flags = if lower { 0 } else { kern::UPPER };
        if beta != T::zero() {
            flags |= kern::READ_C;
        }
        if herm {
            flags |= kern::HERM;
        }
        let update = TriKernel::Update {
            nb: nb as u64,
            ld_w: nb as u64,
            stride_w: (nb * nb) as u64,
            beta: parts(beta),
        };
        // SAFETY: reads the products just queued in the workspace (count blocks of nb²)
        // and reads/writes only the `uplo` triangles of C's diagonal blocks, inside its
        // checked n×n view at ldc.
        unsafe { run_tri::<T>(blas, update, (n, s.ldc, flags), c.address, base) }
    })?;
    // Off-diagonal blocks, level by level: at level s the s×s block below (above) the
    // diagonal of every 2s-diagonal block, straight into C.
    let mut size = nb;
    while size < n {
        let pairs = n / (2 * size);
        let (i0, j0) = if lower { (size, 0) } else { (0, size) };
        if pairs > 0 {
            let step = 2 * size;
            let c_stride = step * (s.ldc + 1);
            r.products(
                (size, size),
                (i0, j0),
                (step, pairs),
                c.at(i0, j0),
                c_stride,
                beta,
            )?;
        }
        // A clipped last pair: its second block ends at n.
        let first = pairs * 2 * size;
        let second = first + size;
        if second < n {
            let tail = n - second;
            let ((rows, cols), (i, j)) = if lower {
                ((tail, size), (second, first))
            } else {
                ((size, tail), (first, second))
            };
            r.products((rows, cols), (i, j), (0, 1), c.at(i, j), 0, beta)?;
        }
        size *= 2;
    }
    Ok(())
}

// ---------------------------------------------------------------------------------
// symm

/// symm or hemm (`op` = "hemm": A's mirror conjugated and its diagonal taken as real)
/// on the device; m, n ≥ 1 and not a quick return.
pub(crate) fn symm<T: Scalar>(
    blas: &Blas,
    op: &str,
    s: &SymmShape,
    alpha: T,
    a: u64,
    b: u64,
    beta: T,
    c: u64,
) -> Result<()> {
    let es = es::<T>();
    let (m, n, ka) = (s.m, s.n, s.ka());
    let b = Mat {
        address: b,
        ld: s.ldb,
        es,
    };
    let c = Mat {
        address: c,
        ld: s.ldc,
        es,
    };
    let nn = (Transpose::N, Transpose::N);
    if alpha == T::zero() {
        // C ← β·C without reading A (or B: k = 0).
        let a = Mat {
            address: a,
            ld: m,
            es,
        };
        return gemm1(blas, nn, (m, n, 0), alpha, a, Mat { ld: 1, ..b }, beta, c);
    }
    offsets_fit::<T>(blas, "lda", s.lda.max(ka), ka)?;
    require_kernels::<T>(blas)?;
    blas.with_blocks_workspace(f64s::<T>(ka * ka), |work| {
        let base = work.as_slice_mut().address();
        let mut flags = kern::MIRROR;
        if s.uplo == Uplo::Upper {
            flags |= kern::UPPER;
        }
        if op == "hemm" && T::IS_COMPLEX {
            flags |= kern::HERM;
        }
        let mirror = TriKernel::Expand {
            nb: ka as u64,
            ld_dst: ka as u64,
            stride_dst: 0,
        };
        // SAFETY: reads the `uplo` triangle of A's ka×ka inside its checked view and
        // writes the dense ka×ka matrix (ld ka) into the workspace, sized above.
        unsafe { run_tri::<T>(blas, mirror, (ka, s.lda, flags), base, a)? };
        let full = Mat {
            address: base,
            ld: ka,
            es,
        };
        match s.side {
            Side::Left => gemm1(blas, nn, (m, n, m), alpha, full, b, beta, c),
            Side::Right => gemm1(blas, nn, (m, n, n), alpha, b, full, beta, c),
        }
    })
}
