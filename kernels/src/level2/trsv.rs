//! The diagonal-block solve of the blocked trsv (PTX, f32, f64, Complex32, Complex64).
//!
//! The host solves op(A)·x = b block by block: for each diagonal block K of order
//! `bs = min(NB, n − k0)` in the order of substitution it launches this kernel, which
//! overwrites x(K) with op(A_KK)⁻¹·x(K), then a gemv that subtracts op(A)(R, K)·x(K)
//! from the rows R still to be solved (all on one stream, no host round trip).
//!
//! One workgroup of NB work-items. The block of M = op(A) (A, Aᵀ or Aᴴ) is loaded into
//! shared memory as a *lower* triangle L (rows padded to NB + 1): where M is upper
//! (backward substitution) rows and columns are reversed, L(r, c) = M(bs−1−r, bs−1−c),
//! so one forward substitution serves all eight uplo/trans cases. Work-item t keeps
//! s_t = b_t; step i: work-item i computes x_i = s_i / L(i, i) (unit diagonal: L(i, i)
//! = 1, not read) and publishes it in shared memory; after a barrier every t > i does
//! s_t ← s_t − L(t, i)·x_i. That is the column-oriented forward substitution, each x_i
//! one division after an i-term fma chain, so the block's backward error is the
//! textbook |ΔL| ≤ γ_{bs+1}·|L| (complex division: a few u more) (Higham, §8.1).
//!
//! Kernel `rocm_blas_trsv_block(n: u64, k0: u64, a: u64, lda: u64, x: u64, incx: s64,
//! flags: u32, [band: u64])`: x is the address of logical element 0 (the far end for a
//! negative increment); flags [`UPPER`], [`UNIT`], [`TRANS`], [`CONJ`] (with TRANS: Aᴴ).
//! A's triangle is stored as [`TrsvParams::storage`] says ([`Storage`]: dense at lda,
//! packed (lda unused), or band with `band` = k off-diagonals, whose block elements
//! beyond k of the diagonal are zeros that are never read). Launch: one workgroup of
//! `block` work-items.

use super::element::{element_at, flag, vector_at, El, Storage};
use crate::generator::{Generator, LaunchRule, Program};
use crate::ptx::{Cmp, KernelBuilder, LoadCache, Module, Reg, Special, Ty};
use rocm_core::target::KernelIsa;
use rocm_core::{DType, Error, ModuleImage, Result, Target};

/// Name of the kernel.
pub const KERNEL: &str = "rocm_blas_trsv_block";
/// Flag: A's upper triangle is stored.
pub const UPPER: u32 = 1;
/// Flag: unit diagonal (not read).
pub const UNIT: u32 = 2;
/// Flag: op(A) = Aᵀ.
pub const TRANS: u32 = 4;
/// Flag (with TRANS): op(A) = Aᴴ.
pub const CONJ: u32 = 8;

/// Shared memory a block may use (the static limit).
const SHARED_LIMIT: i64 = 48 * 1024;

/// One trsv block-solve variant.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct TrsvParams {
    pub dtype: DType,
    /// How A's triangle is stored (tpsv: packed, tbsv: band).
    pub storage: Storage,
    /// Order NB of the diagonal blocks = work-items: 16, 32 or 64 (the block takes
    /// NB·(NB + 1) elements of shared memory: Complex64 at most 32).
    pub block: u32,
}

impl TrsvParams {
    /// 64 (Complex64: 32, whose 64-block would exceed 48 KiB of shared memory).
    pub fn fallback(dtype: DType, storage: Storage) -> Self {
        let block = if dtype == DType::C64 { 32 } else { 64 };
        TrsvParams {
            dtype,
            storage,
            block,
        }
    }

    fn shared_bytes(&self) -> i64 {
        let nb = self.block as i64;
        (nb * (nb + 1) + nb) * El::of(self.dtype).bytes()
    }

    fn validate(&self) -> Result<()> {
        if !super::gemv::DTYPES.contains(&self.dtype) {
            return Err(Error::unsupported(
                format!("trsv kernels for {}", self.dtype),
                "PTX",
            ));
        }
        if !matches!(self.block, 16 | 32 | 64) || self.shared_bytes() > SHARED_LIMIT {
            return Err(Error::invalid(
                "block",
                format!(
                    "{}: 16, 32 or 64 within 48 KiB of shared memory for {}",
                    self.block, self.dtype
                ),
            ));
        }
        Ok(())
    }
}

/// The trsv block-solve generator.
pub struct TrsvBlock;

impl Generator for TrsvBlock {
    type Params = TrsvParams;
    const NAME: &'static str = "trsv_block";
    const VERSION: u32 = 1;

    fn generate(p: &TrsvParams, target: &Target) -> Result<Program> {
        p.validate()?;
        if target.caps().kernel_isa == KernelIsa::Amdgpu {
            return crate::amdgpu::level2::trsv::program(p, target);
        }
        let mut module = Module::for_kernels(target, format!("trsv kernels for {}", p.dtype))?;
        module.push(&build(p)?);
        Ok(Program {
            image: ModuleImage::Ptx(module.text()),
            kernels: vec![KERNEL.into()],
            signatures: vec![super::signatures::trsv_block(p)],
            launch: LaunchRule::Fixed {
                grid: 1,
                block: p.block,
            },
        })
    }
}

/// A counted loop `for v in 0..limit` (u32, uniform across the workgroup).
fn counted(k: &mut KernelBuilder, limit: u32, body: impl FnOnce(&mut KernelBuilder, Reg)) {
    let v = k.mov(Ty::U32, 0u32);
    let (top, done) = (k.label(), k.label());
    k.place(top);
    let end = k.setp(Cmp::Ge, Ty::U32, v, limit);
    k.bra_if(end, false, done);
    body(k, v);
    k.add_to(v, 1u32);
    k.bra(top);
    k.place(done);
}

fn build(p: &TrsvParams) -> Result<KernelBuilder> {
    let el = El::of(p.dtype);
    let eb = el.bytes();
    let nb = p.block;
    let pitch = nb + 1;
    let (mut k, params) = KernelBuilder::from_signature(&super::signatures::trsv_block(p));
    let pn = params.get("n")?.clone();
    let pk0 = params.get("k0")?.clone();
    let pa = params.get("a")?.clone();
    let plda = params.get("lda")?.clone();
    let px = params.get("x")?.clone();
    let pincx = params.get("incx")?.clone();
    let pflags = params.get("flags")?.clone();
    let pband = params.opt("band").cloned();
    let n = k.ld_param(&pn);
    let k0 = k.ld_param(&pk0);
    let a = k.ld_param_global_ptr(&pa);
    let lda = k.ld_param(&plda);
    let x = k.ld_param_global_ptr(&px);
    let incx = k.ld_param(&pincx);
    let flags = k.ld_param(&pflags);
    let upper = flag(&mut k, flags, UPPER);
    let unit = flag(&mut k, flags, UNIT);
    let trans = flag(&mut k, flags, TRANS);
    let conj = flag(&mut k, flags, CONJ);
    let conj = k.and_pred(conj, trans);
    // M = op(A) is upper (backward substitution, reversed order) when exactly one of
    // "A upper" and "transposed" holds.
    let not_upper = k.not_pred(upper);
    let not_trans = k.not_pred(trans);
    let r1 = k.and_pred(upper, not_trans);
    let r2 = k.and_pred(not_upper, trans);
    let reversed = k.or_pred(r1, r2);

    let lmat = k.shared_array("rocm_blas_trsv_block_l", (nb * pitch + nb) * eb as u32, 8);
    let xs = k.add(Ty::U32, lmat, nb * pitch * eb as u32);
    let t = k.special(Special::TidX);
    let left = k.sub(Ty::U64, n, k0);
    let nb64 = k.mov(Ty::U64, nb as i64);
    let bs64 = k.min(Ty::U64, left, nb64);
    let bs = k.cvt(Ty::U32, bs64);
    let t_in = k.setp(Cmp::Lt, Ty::U32, t, bs);
    let last = k.sub(Ty::U32, bs, 1u32);
    // Block-local index of M for an index of L.
    let m_index = |k: &mut KernelBuilder, v: Reg| -> Reg {
        let rev = k.sub(Ty::U32, last, v);
        k.selp(Ty::U32, rev, v, reversed)
    };
    let band = pband.map(|q| k.ld_param(&q));
    // A(k0 + r, k0 + c) in A's storage (the band's k, or n for packed, as the third
    // operand of the element formula).
    let mat = (a, lda, band.unwrap_or(n));
    let a_at = |k: &mut KernelBuilder, r: Reg, c: Reg| -> Reg {
        let r64 = k.cvt(Ty::U64, r);
        let c64 = k.cvt(Ty::U64, c);
        let row = k.add(Ty::U64, k0, r64);
        let col = k.add(Ty::U64, k0, c64);
        element_at(k, p.storage, mat, upper, (row, col), eb)
    };
    let slot = |k: &mut KernelBuilder, r: Reg, c: Reg| -> Reg {
        let s = k.fma(Ty::U32, r, pitch, c);
        el.shared_slot(k, lmat, s)
    };

    k.comment("load L = M, or M reversed, lower part; zeros above and beyond bs");
    let mt = m_index(&mut k, t);
    counted(&mut k, nb, |k, c| {
        let c_in = k.setp(Cmp::Lt, Ty::U32, c, bs);
        let inside = k.and_pred(t_in, c_in);
        let lower = k.setp(Cmp::Ge, Ty::U32, t, c);
        let inside = k.and_pred(inside, lower);
        // Band storage: only |M-row − M-column| = t − c ≤ k is stored (zero beyond).
        let inside = match band {
            Some(kb) => {
                let dist = k.sub(Ty::U32, t, c);
                let dist = k.cvt(Ty::U64, dist);
                let near = k.setp(Cmp::Le, Ty::U64, dist, kb);
                k.and_pred(inside, near)
            }
            None => inside,
        };
        let diag = k.setp(Cmp::Eq, Ty::U32, t, c);
        let unit_diag = k.and_pred(diag, unit);
        let not_unit = k.not_pred(unit_diag);
        let read = k.and_pred(inside, not_unit);
        // M(mr, mc) = A(mr, mc), or A(mc, mr) (conjugated for Aᴴ) when transposed.
        let mc = m_index(k, c);
        let row = k.selp(Ty::U32, mc, mt, trans);
        let col = k.selp(Ty::U32, mt, mc, trans);
        let addr = a_at(k, row, col);
        let v = el.load_if(k, addr, read, LoadCache::NonCoherent);
        let v = el.conj_if(k, &v, Some(conj));
        let one = el.one(k);
        let v = el.select(k, &one, &v, unit_diag);
        let at = slot(k, t, c);
        el.st_shared(k, at, &v);
    });
    let incxb = k.mul(Ty::S64, incx, eb);
    let mt64 = k.cvt(Ty::U64, mt);
    let xi = k.add(Ty::U64, k0, mt64);
    let px = vector_at(&mut k, x, xi, incxb);
    // x is written by this kernel: the coherent path.
    let s = el.load_if(&mut k, px, t_in, LoadCache::Default);
    let res = el.zero(&mut k);
    k.bar_sync();

    k.comment("forward substitution, one x_i per step");
    counted(&mut k, nb, |k, i| {
        let skip = k.label();
        // Uniform: every work-item leaves the loop's body at the same step.
        let past = k.setp(Cmp::Ge, Ty::U32, i, bs);
        k.bra_if(past, false, skip);
        let own = k.setp(Cmp::Eq, Ty::U32, t, i);
        let d_at = slot(k, i, i);
        let d = el.ld_shared(k, d_at);
        let xv = el.div(k, &s, &d);
        let x_at = el.shared_slot(k, xs, i);
        for (c, r) in xv.iter().enumerate() {
            k.when(own, false);
            k.st_shared(x_at, (c as u32 * el.rt.size()) as i64, *r);
        }
        for (dst, v) in res.iter().zip(&xv) {
            k.when(own, false).assign(*dst, *v);
        }
        k.bar_sync();
        let x_i = el.ld_shared(k, x_at);
        let l_at = slot(k, t, i);
        let l = el.ld_shared(k, l_at);
        let neg: Vec<Reg> = l.iter().map(|v| k.neg(el.rt, *v)).collect();
        let next = el.fma(k, &neg, &x_i, &s, false);
        let below = k.setp(Cmp::Gt, Ty::U32, t, i);
        for (dst, v) in s.iter().zip(&next) {
            k.when(below, false).assign(*dst, *v);
        }
        k.place(skip);
    });
    k.when(t_in, false).st_global(px, 0, &res);
    k.ret();
    Ok(k)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn variants_pass_ptxas_without_spills_or_warnings() {
        let variants: Vec<TrsvParams> = super::super::gemv::DTYPES
            .into_iter()
            .flat_map(|dtype| {
                [Storage::Dense, Storage::Packed, Storage::Band].map(|storage| {
                    [16, 32, 64].map(move |block| TrsvParams {
                        dtype,
                        storage,
                        block,
                    })
                })
            })
            .flatten()
            .filter(|p| p.validate().is_ok())
            .collect();
        for (p, _, report) in crate::ptxas::assert_clean::<TrsvBlock>(&variants) {
            let kr = report.kernel(KERNEL).unwrap();
            assert_eq!(kr.shared_bytes as i64, p.shared_bytes(), "{p:?}");
        }
    }

    #[test]
    fn parameters_follow_the_documented_order() {
        let p = TrsvParams::fallback(DType::F64, Storage::Band);
        let params = crate::generator::declared_params::<TrsvBlock>(&p);
        let want = [
            "u64 p_n",
            "u64 p_k0",
            "u64 p_a",
            "u64 p_lda",
            "u64 p_x",
            "s64 p_incx",
            "u32 p_flags",
            "u64 p_band",
        ];
        assert_eq!(params, want);
    }

    #[test]
    fn bad_params_and_targets_are_errors() {
        let sm90: Target = "sm_90".parse().unwrap();
        for bad in [
            TrsvParams {
                dtype: DType::C64,
                storage: Storage::Dense,
                block: 64,
            },
            TrsvParams {
                dtype: DType::F32,
                storage: Storage::Packed,
                block: 48,
            },
        ] {
            assert!(matches!(
                TrsvBlock::generate(&bad, &sm90),
                Err(Error::InvalidArgument { .. })
            ));
        }
        assert!(matches!(
            TrsvBlock::generate(&TrsvParams::fallback(DType::F16, Storage::Dense), &sm90),
            Err(Error::Unsupported { .. })
        ));
        // AMD targets get the AMDGPU kernel of the same contract.
        let prog = TrsvBlock::generate(
            &TrsvParams::fallback(DType::F32, Storage::Packed),
            &"gfx90a".parse().unwrap(),
        )
        .unwrap();
        assert!(matches!(prog.image, ModuleImage::CodeObject(_)));
        assert_eq!(prog.kernels, vec![KERNEL.to_string()]);
        assert!(matches!(
            TrsvBlock::generate(
                &TrsvParams::fallback(DType::F16, Storage::Dense),
                &"gfx1100".parse().unwrap()
            ),
            Err(Error::Unsupported { .. })
        ));
    }
}
