//! A packed or band triangle unpacked into a dense n×n matrix (PTX, f32, f64,
//! Complex32, Complex64): D(i, j) = A(i, j) inside the stored triangle (and band), zero
//! elsewhere, so the dense triangle routines (the blocked trsv) serve tpsv and tbsv.
//! Nothing is computed: the copy is exact.
//!
//! Kernel `rocm_blas_unpack(n: u64, a: u64, lda: u64, d: u64, flags: u32[, band: u64])`:
//! `d` holds n×n elements with leading dimension n; `flags` holds [`UPPER`]; band storage
//! adds its bandwidth k (packed storage ignores `lda`). Work-item (l, w) of a 256-item
//! workgroup writes D(32·ctaid.x + l mod 32, 8·ctaid.y + l / 32) (a warp writes 32
//! consecutive elements of a column). Launch: grid (⌈n/32⌉, ⌈n/8⌉) ([`launch_config`]).
//!
//! Band modules also hold `rocm_blas_unpack_general(m: u64, n: u64, a: u64, lda: u64,
//! d: u64, kl: u64, ku: u64)`: a general m×n band matrix (gbmv's: A(i, j) at
//! `ku + i − j + j·lda` for j − ku ≤ i ≤ j + kl) into D (m×n, leading dimension m);
//! grid (⌈m/32⌉, ⌈n/8⌉) ([`general_launch_config`]).

use super::element::{element_at, flag, stored_in_band, El, Storage};
use crate::generator::{Generator, LaunchRule, Program};
use crate::ptx::{Cmp, KernelBuilder, LoadCache, Module, Reg, Special, Ty};
use rocm_core::target::Family;
use rocm_core::{DType, Error, LaunchConfig, ModuleImage, Result, Target};

/// Name of the kernel.
pub const KERNEL: &str = "rocm_blas_unpack";
/// Name of the general band kernel (band modules only).
pub const GENERAL: &str = "rocm_blas_unpack_general";
/// Flag: the upper triangle is stored.
pub const UPPER: u32 = 1;
/// Work-items per workgroup: 32 rows × 8 columns.
pub const BLOCK: u32 = 256;

/// One unpack variant.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct UnpackParams {
    pub dtype: DType,
    /// Packed or band (dense needs no unpacking).
    pub storage: Storage,
}

/// The launch for an n×n matrix (n ≥ 1, n/8 within the grid's y limit).
pub fn launch_config(n: usize) -> Result<LaunchConfig> {
    general_launch_config(n, n)
}

/// The launch for an m×n matrix (m, n ≥ 1; n/8 within the grid's y limit).
pub fn general_launch_config(m: usize, n: usize) -> Result<LaunchConfig> {
    let cols = n.div_ceil(8);
    let rows = m.div_ceil(32);
    if cols > 65535 || rows > i32::MAX as usize {
        return Err(Error::invalid(
            "n",
            format!("{m}×{n} exceeds the unpack kernels' grid (n up to 524280)"),
        ));
    }
    let mut cfg = LaunchConfig::linear(rows as u32, BLOCK);
    cfg.grid[1] = cols as u32;
    Ok(cfg)
}

/// The unpack generator.
pub struct Unpack;

impl Generator for Unpack {
    type Params = UnpackParams;
    const NAME: &'static str = "unpack";
    const VERSION: u32 = 1;

    fn generate(p: &UnpackParams, target: &Target) -> Result<Program> {
        if !super::gemv::DTYPES.contains(&p.dtype) {
            return Err(Error::unsupported(
                format!("unpack kernels for {}", p.dtype),
                "PTX",
            ));
        }
        if p.storage == Storage::Dense {
            return Err(Error::invalid(
                "storage",
                "dense storage needs no unpacking",
            ));
        }
        if matches!(
            target.family(),
            Family::Cdna | Family::Rdna3 | Family::Rdna4
        ) {
            return crate::amdgpu::level2::unpack::program(p, target);
        }
        let mut module = Module::for_kernels(target, format!("unpack kernels for {}", p.dtype))?;
        module.push(&build(p));
        let mut kernels = vec![KERNEL.into()];
        if p.storage == Storage::Band {
            module.push(&build_general(p));
            kernels.push(GENERAL.into());
        }
        Ok(Program {
            image: ModuleImage::Ptx(module.text()),
            kernels,
            launch: LaunchRule::Fixed {
                grid: 1,
                block: BLOCK,
            },
        })
    }
}

fn build(p: &UnpackParams) -> KernelBuilder {
    let el = El::of(p.dtype);
    let eb = el.bytes();
    let mut k = KernelBuilder::new(KERNEL);
    let pn = k.param("n", Ty::U64);
    let pa = k.param("a", Ty::U64);
    let plda = k.param("lda", Ty::U64);
    let pd = k.param("d", Ty::U64);
    let pflags = k.param("flags", Ty::U32);
    let pband = (p.storage == Storage::Band).then(|| k.param("band", Ty::U64));
    let n = k.ld_param(&pn);
    let a = k.ld_param_global_ptr(&pa);
    let lda = k.ld_param(&plda);
    let d = k.ld_param_global_ptr(&pd);
    let flags = k.ld_param(&pflags);
    let band = pband.map(|q| k.ld_param(&q));
    let upper = flag(&mut k, flags, UPPER);

    let (i, j) = cell(&mut k);
    let i_in = k.setp(Cmp::Lt, Ty::U64, i, n);
    let j_in = k.setp(Cmp::Lt, Ty::U64, j, n);
    let inside = k.and_pred(i_in, j_in);
    let held = stored_in_band(&mut k, upper, band, i, j);
    let read = k.and_pred(inside, held);
    let src = element_at(
        &mut k,
        p.storage,
        (a, lda, band.unwrap_or(n)),
        upper,
        (i, j),
        eb,
    );
    store(&mut k, el, (src, read), (d, n, inside), (i, j));
    k
}

/// Work-item (l, w)'s element (row, column) of D: (32·ctaid.x + l mod 32,
/// 8·ctaid.y + l / 32), u64.
fn cell(k: &mut KernelBuilder) -> (Reg, Reg) {
    let tid = k.special(Special::TidX);
    let lane = k.and_b32(tid, 31);
    let col = k.shr(Ty::U32, tid, 5);
    let cx = k.special(Special::CtaidX);
    let cy = super::element::ctaid_y(k);
    let row0 = k.mul_wide_u32(cx, 32);
    let lane64 = k.cvt(Ty::U64, lane);
    let i = k.add(Ty::U64, row0, lane64);
    let col0 = k.mul_wide_u32(cy, 8);
    let col64 = k.cvt(Ty::U64, col);
    let j = k.add(Ty::U64, col0, col64);
    (i, j)
}

/// D(i, j) ← the element at `src` where `read` holds, else zero, where `inside` holds
/// (D has leading dimension `ld`).
fn store(
    k: &mut KernelBuilder,
    el: El,
    (src, read): (Reg, Reg),
    (d, ld, inside): (Reg, Reg, Reg),
    (i, j): (Reg, Reg),
) {
    let v = el.load_if(k, src, read, LoadCache::NonCoherent);
    let at = k.mul(Ty::U64, j, ld);
    let at = k.add(Ty::U64, at, i);
    let dst = k.fma(Ty::U64, at, el.bytes(), d);
    k.when(inside, false).st_global(dst, 0, &v);
    k.ret();
}

/// The general band kernel (module docs).
fn build_general(p: &UnpackParams) -> KernelBuilder {
    let el = El::of(p.dtype);
    let eb = el.bytes();
    let mut k = KernelBuilder::new(GENERAL);
    let names = ["m", "n", "a", "lda", "d", "kl", "ku"];
    let params: Vec<_> = names.iter().map(|q| k.param(q, Ty::U64)).collect();
    let m = k.ld_param(&params[0]);
    let n = k.ld_param(&params[1]);
    let a = k.ld_param_global_ptr(&params[2]);
    let lda = k.ld_param(&params[3]);
    let d = k.ld_param_global_ptr(&params[4]);
    let kl = k.ld_param(&params[5]);
    let ku = k.ld_param(&params[6]);
    let (i, j) = cell(&mut k);
    let i_in = k.setp(Cmp::Lt, Ty::U64, i, m);
    let j_in = k.setp(Cmp::Lt, Ty::U64, j, n);
    let inside = k.and_pred(i_in, j_in);
    // j − ku ≤ i ≤ j + kl, without negative intermediates.
    let i_ku = k.add(Ty::U64, i, ku);
    let above = k.setp(Cmp::Ge, Ty::U64, i_ku, j);
    let j_kl = k.add(Ty::U64, j, kl);
    let below = k.setp(Cmp::Le, Ty::U64, i, j_kl);
    let held = k.and_pred(above, below);
    let read = k.and_pred(inside, held);
    // ku + i − j + j·lda, in wrapping u64 (the sum is the index where `held`).
    let colw = k.mul(Ty::U64, j, lda);
    let diag = k.sub(Ty::U64, colw, j);
    let base = k.add(Ty::U64, diag, ku);
    let idx = k.add(Ty::U64, base, i);
    let src = k.fma(Ty::U64, idx, eb, a);
    store(&mut k, el, (src, read), (d, m, inside), (i, j));
    k
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kernels_pass_ptxas_without_spills_or_warnings() {
        let mut v = Vec::new();
        for dtype in super::super::gemv::DTYPES {
            for storage in [Storage::Packed, Storage::Band] {
                v.push(UnpackParams { dtype, storage });
            }
        }
        crate::ptxas::assert_clean::<Unpack>(&v);
    }

    #[test]
    fn dense_storage_and_16_bit_types_are_refused() {
        let t: Target = "sm_90".parse().unwrap();
        let dense = UnpackParams {
            dtype: DType::F32,
            storage: Storage::Dense,
        };
        assert!(Unpack::generate(&dense, &t).is_err());
        let half = UnpackParams {
            dtype: DType::F16,
            storage: Storage::Packed,
        };
        assert!(Unpack::generate(&half, &t).is_err());
    }
}
