//! `rocm-bench blas gemm`: our GEMM against cuBLAS on the same device, same run.
//!
//! Operands are column-major with leading dimension = stored rows and batch strides =
//! matrix sizes; A and B hold a deterministic pattern in [-0.5, 0.5) and C is written
//! with α = 1, β = 0. Ours and cuBLAS's write separate C buffers, compared afterwards.
//! c32/c64 (complex, `Blas::gemm` against cuBLAS cgemm/zgemm) count 8mnk flops, and
//! their imaginary parts are 0.25 minus the real pattern.

use crate::blas::{time, GemmArgs};
use rocm_blas::{Blas, GemmExInput, GemmExOutput, MathMode, Scalar, Transpose};
use rocm_core::{Arch, Complex32, Complex64, DType, Device, DeviceBuffer, Element, Error, Result};
use rocm_kernels::catalog::Catalog;
use rocm_kernels::exec::{self, DeviceView};
use rocm_kernels::gemm::{self, ptx, GemmClass, GemmOperand, GemmParams, GemmProblem};
use std::cell::RefCell;

/// The element types `--dtype` names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Dtype {
    F32,
    Tf32,
    F64,
    F16,
    Bf16,
    /// Complex32 (`Blas::gemm`, the real-ified complex GEMM; cuBLAS `cgemm`).
    C32,
    /// Complex64 (cuBLAS `zgemm`).
    C64,
}

impl Dtype {
    pub(crate) fn parse(s: &str) -> Result<Dtype> {
        Ok(match s {
            "f32" => Dtype::F32,
            "tf32" => Dtype::Tf32,
            "f64" => Dtype::F64,
            "f16" => Dtype::F16,
            "bf16" => Dtype::Bf16,
            "c32" => Dtype::C32,
            "c64" => Dtype::C64,
            other => {
                return Err(Error::invalid(
                    "--dtype",
                    format!("`{other}`: expected f32, tf32, f64, f16, bf16, c32 or c64"),
                ))
            }
        })
    }

    /// The kernel class this benchmark runs: (A/B type, C type, reduced-precision f32).
    /// 16-bit inputs run `gemm_ex` with same-type C.
    pub(crate) fn classes(self) -> (DType, DType, bool) {
        match self {
            Dtype::F32 => (DType::F32, DType::F32, false),
            Dtype::Tf32 => (DType::F32, DType::F32, true),
            Dtype::F64 => (DType::F64, DType::F64, false),
            Dtype::F16 => (DType::F16, DType::F16, false),
            Dtype::Bf16 => (DType::Bf16, DType::Bf16, false),
            Dtype::C32 => (DType::C32, DType::C32, false),
            Dtype::C64 => (DType::C64, DType::C64, false),
        }
    }

    /// Real flops per multiply-add of the problem's count (8 for complex: 4M).
    pub(crate) fn flop_factor(self) -> f64 {
        match self {
            Dtype::C32 | Dtype::C64 => 4.0,
            _ => 1.0,
        }
    }

    pub(crate) fn name(self) -> &'static str {
        match self {
            Dtype::F32 => "f32",
            Dtype::Tf32 => "tf32",
            Dtype::F64 => "f64",
            Dtype::F16 => "f16",
            Dtype::Bf16 => "bf16",
            Dtype::C32 => "c32",
            Dtype::C64 => "c64",
        }
    }
}

fn trans(s: &str) -> Result<bool> {
    match s {
        "N" | "n" => Ok(false),
        "T" | "t" => Ok(true),
        other => Err(Error::invalid(
            "--transa/--transb",
            format!("`{other}`: N or T"),
        )),
    }
}

/// One problem's shape and layout.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Problem {
    pub m: usize,
    pub n: usize,
    pub k: usize,
    pub batch: usize,
    pub ta: bool,
    pub tb: bool,
}

impl Problem {
    fn a_dims(&self) -> (usize, usize) {
        if self.ta {
            (self.k, self.m)
        } else {
            (self.m, self.k)
        }
    }
    fn b_dims(&self) -> (usize, usize) {
        if self.tb {
            (self.n, self.k)
        } else {
            (self.k, self.n)
        }
    }
    /// Every size at least 1, and every operand's elements (all batches) countable: the
    /// products below and the host buffers of [`upload`] then cannot wrap.
    pub(crate) fn validate(&self) -> Result<()> {
        use rocm_core::host_alloc::elements;
        for (name, v) in [
            ("--m", self.m),
            ("--n", self.n),
            ("--k", self.k),
            ("--batch", self.batch),
        ] {
            if v == 0 {
                return Err(Error::invalid(name, "must be at least 1"));
            }
        }
        let (ar, ac) = self.a_dims();
        let (br, bc) = self.b_dims();
        elements("A (m x k x batch)", &[ar, ac, self.batch])?;
        elements("B (k x n x batch)", &[br, bc, self.batch])?;
        elements("C (m x n x batch)", &[self.m, self.n, self.batch])?;
        Ok(())
    }

    pub(crate) fn flops(&self) -> f64 {
        2.0 * self.m as f64 * self.n as f64 * self.k as f64 * self.batch as f64
    }
}

/// One measured row.
pub(crate) struct Row {
    problem: Problem,
    /// Seconds per call, or why ours did not run.
    pub ours: std::result::Result<f64, String>,
    pub peer: Option<std::result::Result<f64, String>>,
    /// max |ours − cuBLAS| / max |cuBLAS|.
    diff: Option<f64>,
}

/// A deterministic value in [-0.5, 0.5) for index `i`.
fn pattern(i: usize, salt: usize) -> f32 {
    ((i.wrapping_mul(2654435761).wrapping_add(salt * 97)) % 1024) as f32 / 1024.0 - 0.5
}

fn upload<T: Element>(
    dev: &Device,
    len: usize,
    salt: usize,
    conv: impl Fn(f32) -> T,
) -> Result<DeviceBuffer<T>> {
    let host = rocm_core::host_alloc::try_from_fn("gemm operand", len, |i| conv(pattern(i, salt)))?;
    DeviceBuffer::from_slice(dev, &host)
}

pub(crate) fn iterations(p: &Problem, given: Option<u32>) -> u32 {
    given.unwrap_or_else(|| (2e13 / p.flops()).clamp(3.0, 200.0) as u32)
}

/// Our GEMM on (A, B, C) buffers.
type Ours<'a, T> =
    &'a dyn Fn(&DeviceBuffer<T>, &DeviceBuffer<T>, &mut DeviceBuffer<T>) -> Result<()>;

/// Times one problem of `T` (ours through `Blas` when `ours` holds, cuBLAS when asked).
#[allow(clippy::too_many_arguments)]
fn measure<T: Element + Copy>(
    dev: &Device,
    dtype: Dtype,
    p: Problem,
    iters: u32,
    vendor: bool,
    conv: impl Fn(f32) -> T,
    back: impl Fn(T) -> f64,
    ours: Option<Ours<'_, T>>,
    writes_c: bool,
) -> Result<Row> {
    let (ar, ac) = p.a_dims();
    let (br, bc) = p.b_dims();
    let (sa, sb, sc) = (ar * ac, br * bc, p.m * p.n);
    let a = upload(dev, sa * p.batch, 1, &conv)?;
    let b = upload(dev, sb * p.batch, 2, &conv)?;
    let mut c = upload(dev, sc * p.batch, 3, &conv)?;
    let ours_secs = match ours {
        Some(f) => time(dev, iters, || f(&a, &b, &mut c)).map_err(|e| e.to_string()),
        None => Err(format!("no {} kernel of ours", dtype.name())),
    };
    let (peer, diff) = if vendor {
        let mut c2 = upload(dev, sc * p.batch, 4, &conv)?;
        let call = crate::vendor_gemm::Call {
            dtype,
            ta: p.ta,
            tb: p.tb,
            m: p.m,
            n: p.n,
            k: p.k,
            a: a.as_slice().address(),
            lda: ar,
            sa,
            b: b.as_slice().address(),
            ldb: br,
            sb,
            c: c2.as_slice_mut().address(),
            ldc: p.m,
            sc,
            batch: p.batch,
        };
        let peer = crate::vendor_gemm::time(dev, &call, iters);
        // The mma.sync f16/bf16 kernel writes its own f32 C: nothing to compare then.
        let diff = if ours_secs.is_ok() && peer.is_ok() && writes_c {
            let (x, y) = (c.to_vec()?, c2.to_vec()?);
            let scale = crate::report::nan_max(y.iter().map(|&v| back(v).abs()));
            let worst =
                crate::report::nan_max(x.iter().zip(&y).map(|(&u, &v)| (back(u) - back(v)).abs()));
            Some(crate::report::relative(worst, scale))
        } else {
            None
        };
        (Some(peer.map_err(|e| e.to_string())), diff)
    } else {
        (None, None)
    };
    Ok(Row {
        problem: p,
        ours: ours_secs,
        peer,
        diff,
    })
}

/// Ours for a `Blas` element type: gemm, or gemm_strided_batched when batched.
/// `Blas::gemm_ex` (same-type C, f32 α/β): the kernel the library chooses for f16/bf16.
fn ex_call<T: GemmExInput<Compute = f32> + GemmExOutput<T>>(
    blas: &Blas,
    p: Problem,
) -> impl Fn(&DeviceBuffer<T>, &DeviceBuffer<T>, &mut DeviceBuffer<T>) -> Result<()> + '_ {
    move |a, b, c| {
        let t = |x| if x { Transpose::T } else { Transpose::N };
        let (lda, ldb) = (p.a_dims().0, p.b_dims().0);
        let (sa, sb) = (lda * p.a_dims().1, ldb * p.b_dims().1);
        blas.gemm_strided_batched_ex::<T, T>(
            t(p.ta),
            t(p.tb),
            p.m,
            p.n,
            p.k,
            1.0,
            &a.as_slice(),
            lda,
            sa,
            &b.as_slice(),
            ldb,
            sb,
            0.0,
            &mut c.as_slice_mut(),
            p.m,
            p.m * p.n,
            p.batch,
        )
    }
}

fn ours_call<T: Scalar>(
    blas: &Blas,
    p: Problem,
) -> impl Fn(&DeviceBuffer<T>, &DeviceBuffer<T>, &mut DeviceBuffer<T>) -> Result<()> + '_ {
    move |a, b, c| {
        let t = |x| if x { Transpose::T } else { Transpose::N };
        let (lda, ldb) = (p.a_dims().0, p.b_dims().0);
        let (sa, sb) = (lda * p.a_dims().1, ldb * p.b_dims().1);
        let (one, zero) = (T::one(), T::zero());
        if p.batch == 1 {
            blas.gemm(
                t(p.ta),
                t(p.tb),
                p.m,
                p.n,
                p.k,
                one,
                &a.as_slice(),
                lda,
                &b.as_slice(),
                ldb,
                zero,
                &mut c.as_slice_mut(),
                p.m,
            )
        } else {
            blas.gemm_strided_batched(
                t(p.ta),
                t(p.tb),
                p.m,
                p.n,
                p.k,
                one,
                &a.as_slice(),
                lda,
                sa,
                &b.as_slice(),
                ldb,
                sb,
                zero,
                &mut c.as_slice_mut(),
                p.m,
                p.m * p.n,
                p.batch,
            )
        }
    }
}

/// The `wgmma` candidates `ROCM_BENCH_WGMMA` lists, comma-separated: `MxN:stages`
/// (tile_m of 64..256 rows = 1..4 warpgroups, each 64×N) or `N:stages` (M = 128),
/// optionally followed by `:tma` (operands by tensor copies from a producer warp), e.g.
/// `128x256:4,128x256:5:tma,128x128:3`; default 128×256 in 4 stages.
fn wgmma_candidates() -> Vec<Wgmma> {
    let parse = |s: &str| -> Option<Wgmma> {
        let (tile, rest) = s.trim().split_once(':')?;
        let (st, tma) = match rest.split_once(':') {
            Some((st, "tma")) => (st, true),
            Some(_) => return None,
            None => (rest, false),
        };
        let (m, n) = match tile.split_once('x') {
            Some((m, n)) => (m.parse().ok()?, n.parse().ok()?),
            None => (128, tile.parse().ok()?),
        };
        Some(Wgmma {
            tile_m: m,
            n,
            stages: st.parse().ok()?,
            tma,
        })
    };
    match std::env::var("ROCM_BENCH_WGMMA") {
        Ok(list) => list.split(',').filter_map(parse).collect(),
        Err(_) => vec![Wgmma {
            tile_m: 128,
            n: 256,
            stages: 4,
            tma: false,
        }],
    }
}

/// One `wgmma` candidate: tile rows, instruction n, stages, tensor-copy staging.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Wgmma {
    tile_m: u32,
    n: u32,
    stages: u32,
    tma: bool,
}

/// Our f16/bf16 kernel for a `wgmma` candidate, planned and run as `rocm-kernels` plans
/// any GEMM (`GemmClass::Params`: the plan adds what the variant needs, e.g. split-K).
/// On compute capability 9.0 devices the `wgmma` kernel for `variant` (tile_m, n,
/// stages), writing the C it is handed (same type as A and B); elsewhere (or `variant`
/// None) the `mma.sync` m16n8k16 kernel, which writes its own f32 C (returned, to keep
/// it alive; the closure ignores the C buffer it is handed).
#[allow(clippy::type_complexity)]
fn half_kernel<T: Element>(
    dev: &Device,
    ab: DType,
    p: Problem,
    variant: Option<Wgmma>,
) -> Result<(
    Option<DeviceBuffer<f32>>,
    impl Fn(&DeviceBuffer<T>, &DeviceBuffer<T>, &mut DeviceBuffer<T>) -> Result<()> + '_,
)> {
    let cc9 = matches!(dev.target().arch(), Arch::Sm90 | Arch::Sm90a);
    // The wgmma kernels need 16-byte-aligned columns (device buffers start aligned).
    let (lda, ldb) = (p.a_dims().0, p.b_dims().0);
    let (sa, sb) = (lda * p.a_dims().1, ldb * p.b_dims().1);
    let aligned = ptx::wgmma::aligned(ab, 0, lda, sa, 0, ldb, sb);
    let params = match variant {
        Some(w) if cc9 && aligned => GemmParams {
            tma: w.tma,
            ..ptx::wgmma_tile(ab, ab, p.ta, p.tb, w.tile_m, w.n, w.stages)
        },
        _ => ptx::half(ab, p.ta, p.tb),
    };
    let c32 = if params.c == DType::F32 {
        Some(DeviceBuffer::<f32>::zeros(dev, p.m * p.n * p.batch)?)
    } else {
        None
    };
    let c32_at = c32
        .as_ref()
        .map(|c| (c.as_slice().address(), (c.len() * 4) as u64));
    let plan = gemm::plan(
        &problem(dev, p, GemmClass::Params(params)),
        dev.target(),
        Catalog::for_target(dev.target()),
    )?;
    let workspace = RefCell::new(DeviceBuffer::<f64>::zeros(
        dev,
        (plan.workspace_bytes as usize).div_ceil(8).max(1),
    )?);
    let f = move |a: &DeviceBuffer<T>, b: &DeviceBuffer<T>, c: &mut DeviceBuffer<T>| {
        let (a, b) = (a.as_slice(), b.as_slice());
        let mut c = c.as_slice_mut();
        let c_view = match c32_at {
            // SAFETY: the f32 C buffer is returned with this closure and kept by the
            // caller for as long as it calls it; only this plan's kernels write it, in
            // stream order.
            Some((address, bytes)) => unsafe { DeviceView::from_raw(address, bytes, dev, true) },
            None => DeviceView::write(&mut c),
        };
        let views = [DeviceView::read(&a), DeviceView::read(&b), c_view];
        let mut work = workspace.borrow_mut();
        let work = DeviceView::buffer(&mut work);
        exec::execute(&plan, dev.default_stream(), &views, Some(&work))
    };
    Ok((c32, f))
}

/// `p` of `class` as the plan sees it: packed operands (leading dimension = stored
/// rows, strides = matrix sizes) at aligned device addresses, α = 1, β = 0.
fn problem(dev: &Device, p: Problem, class: GemmClass) -> GemmProblem {
    let (lda, ldb) = (p.a_dims().0, p.b_dims().0);
    let operand = |stride: usize| GemmOperand::at(0, stride);
    GemmProblem {
        class,
        trans_a: p.ta,
        trans_b: p.tb,
        m: p.m,
        n: p.n,
        k: p.k,
        lda,
        ldb,
        ldc: p.m,
        a: operand(lda * p.a_dims().1),
        b: operand(ldb * p.b_dims().1),
        c: operand(p.m * p.n),
        batch: p.batch,
        alpha: 1.0,
        beta: 0.0,
        compute_units: dev.info().compute_units,
    }
}

/// The plan `Blas` runs for `p` of `dtype` on `dev` (`--explain`); complex GEMM runs
/// the real kernels on a real-ified problem inside `rocm-blas` and prints no plan here.
fn explain(dev: &Device, dtype: Dtype, p: Problem) -> Result<String> {
    let class = match dtype {
        Dtype::F32 | Dtype::F64 | Dtype::Tf32 => GemmClass::Real {
            dtype: dtype.classes().0,
            reduced_f32: dtype == Dtype::Tf32,
        },
        Dtype::F16 | Dtype::Bf16 => GemmClass::Mixed {
            ab: dtype.classes().0,
            c: dtype.classes().1,
        },
        Dtype::C32 | Dtype::C64 => {
            return Ok(format!(
                "explain: {} GEMM runs the real kernels on the real-ified 2m x n x 2k problem (rocm-blas gemm_complex)\n",
                dtype.name()
            ))
        }
    };
    if dev.is_cpu() {
        return Ok(format!(
            "explain: {} runs GEMM on the CPU (no kernel plan)\n",
            dev.id()
        ));
    }
    let target = dev.target();
    let prob = problem(dev, p, class.clone());
    match gemm::plan(&prob, target, Catalog::for_target(target)) {
        Ok(plan) => Ok(plan.to_string()),
        // 16-bit C without a kernel that writes it: gemm_ex stages C through f32.
        Err(_) if matches!(class, GemmClass::Mixed { .. }) => {
            let (ab, _) = class.element_types();
            let f32_out = GemmClass::Mixed { ab, c: DType::F32 };
            let plan = gemm::plan(
                &problem(dev, p, f32_out),
                target,
                Catalog::for_target(target),
            )?;
            Ok(format!(
                "C is staged through f32 (widened before, rounded after by Level 1 conversions)\n{plan}"
            ))
        }
        Err(e) => Err(e),
    }
}

/// One problem; `variant` picks the f16/bf16 `wgmma` candidate (tile_m, n, stages).
pub(crate) fn row(
    dev: &Device,
    dtype: Dtype,
    p: Problem,
    iters: u32,
    vendor: bool,
    variant: Option<Wgmma>,
) -> Result<Row> {
    let mut blas = Blas::new(dev);
    match dtype {
        Dtype::F32 | Dtype::Tf32 => {
            if dtype == Dtype::Tf32 {
                blas.set_math_mode(MathMode::ReducedPrecisionF32);
            }
            let f = ours_call::<f32>(&blas, p);
            measure(
                dev,
                dtype,
                p,
                iters,
                vendor,
                |v| v,
                |v| v as f64,
                Some(&f),
                true,
            )
        }
        // Complex: A and B get an imaginary part from the same pattern; the difference
        // against cuBLAS compares re + im of each element.
        Dtype::C32 => {
            let f = ours_call::<Complex32>(&blas, p);
            measure(
                dev,
                dtype,
                p,
                iters,
                vendor,
                |v| Complex32::new(v, 0.25 - v),
                |v| v.re as f64 + v.im as f64,
                Some(&f),
                true,
            )
        }
        Dtype::C64 => {
            let f = ours_call::<Complex64>(&blas, p);
            measure(
                dev,
                dtype,
                p,
                iters,
                vendor,
                |v| Complex64::new(v as f64, 0.25 - v as f64),
                |v| v.re + v.im,
                Some(&f),
                true,
            )
        }
        Dtype::F64 => {
            let f = ours_call::<f64>(&blas, p);
            measure(
                dev,
                dtype,
                p,
                iters,
                vendor,
                |v| v as f64,
                |v| v,
                Some(&f),
                true,
            )
        }
        Dtype::F16 => {
            let conv = half::f16::from_f32;
            if variant.is_none() {
                let f = ex_call::<half::f16>(&blas, p);
                return measure(
                    dev,
                    dtype,
                    p,
                    iters,
                    vendor,
                    conv,
                    |v| v.to_f64(),
                    Some(&f),
                    true,
                );
            }
            match half_kernel::<half::f16>(dev, DType::F16, p, variant) {
                Ok((c32, f)) => {
                    let writes_c = c32.is_none();
                    measure(
                        dev,
                        dtype,
                        p,
                        iters,
                        vendor,
                        conv,
                        |v| v.to_f64(),
                        Some(&f),
                        writes_c,
                    )
                }
                Err(e) => {
                    println!("  (ours: {e})");
                    measure(
                        dev,
                        dtype,
                        p,
                        iters,
                        vendor,
                        conv,
                        |v| v.to_f64(),
                        None,
                        false,
                    )
                }
            }
        }
        Dtype::Bf16 => {
            let conv = half::bf16::from_f32;
            if variant.is_none() {
                let f = ex_call::<half::bf16>(&blas, p);
                return measure(
                    dev,
                    dtype,
                    p,
                    iters,
                    vendor,
                    conv,
                    |v| v.to_f64(),
                    Some(&f),
                    true,
                );
            }
            match half_kernel::<half::bf16>(dev, DType::Bf16, p, variant) {
                Ok((c32, f)) => {
                    let writes_c = c32.is_none();
                    measure(
                        dev,
                        dtype,
                        p,
                        iters,
                        vendor,
                        conv,
                        |v| v.to_f64(),
                        Some(&f),
                        writes_c,
                    )
                }
                Err(e) => {
                    println!("  (ours: {e})");
                    measure(
                        dev,
                        dtype,
                        p,
                        iters,
                        vendor,
                        conv,
                        |v| v.to_f64(),
                        None,
                        false,
                    )
                }
            }
        }
    }
}

fn print_header() {
    println!(
        "{:<5} {:<2} {:>6} {:>6} {:>6} {:>6} {:>10} {:>9} {:>10} {:>9} {:>11} {:>9}",
        "type",
        "op",
        "m",
        "n",
        "k",
        "batch",
        "ours ms",
        "TFLOP/s",
        "cuBLAS ms",
        "TFLOP/s",
        "ours/cuBLAS",
        "max diff"
    );
}

fn print_row(dtype: Dtype, r: &Row) {
    let p = r.problem;
    let t = |x| if x { 'T' } else { 'N' };
    print!(
        "{:<5} {}{} {:>6} {:>6} {:>6} {:>6}",
        dtype.name(),
        t(p.ta),
        t(p.tb),
        p.m,
        p.n,
        p.k,
        p.batch
    );
    match &r.ours {
        Ok(s) => print!(
            " {:>10.3} {:>9.1}",
            s * 1e3,
            dtype.flop_factor() * p.flops() / s / 1e12
        ),
        Err(_) => print!(" {:>10} {:>9}", "-", "-"),
    }
    match &r.peer {
        Some(Ok(s)) => {
            print!(
                " {:>10.3} {:>9.1}",
                s * 1e3,
                dtype.flop_factor() * p.flops() / s / 1e12
            );
            match &r.ours {
                Ok(o) => print!(" {:>10.3}x", s / o),
                Err(_) => print!(" {:>11}", "-"),
            }
        }
        _ => print!(" {:>10} {:>9} {:>11}", "-", "-", "-"),
    }
    match r.diff {
        Some(d) => println!(" {d:>9.1e}"),
        None => println!(),
    }
    if let Err(e) = &r.ours {
        println!("  (ours: {e})");
    }
    if let Some(Err(e)) = &r.peer {
        println!("  (cuBLAS: {e})");
    }
}

/// The sweep as an SVG line plot: TFLOP/s over log2(size), ours and cuBLAS.
fn plot(path: &std::path::Path, dtype: Dtype, rows: &[Row]) -> Result<()> {
    let (w, h, pad) = (720.0, 420.0, 50.0);
    let tf = |p: &Problem, s: f64| dtype.flop_factor() * p.flops() / s / 1e12;
    let series: [Vec<(f64, f64)>; 2] = [
        rows.iter()
            .filter_map(|r| {
                r.ours
                    .as_ref()
                    .ok()
                    .map(|&s| ((r.problem.m as f64).log2(), tf(&r.problem, s)))
            })
            .collect(),
        rows.iter()
            .filter_map(|r| match &r.peer {
                Some(Ok(s)) => Some(((r.problem.m as f64).log2(), tf(&r.problem, *s))),
                _ => None,
            })
            .collect(),
    ];
    let xs: Vec<f64> = rows.iter().map(|r| (r.problem.m as f64).log2()).collect();
    let (x0, x1) = (
        xs.iter().cloned().fold(f64::INFINITY, f64::min),
        xs.iter().cloned().fold(f64::NEG_INFINITY, f64::max),
    );
    let ymax = series.iter().flatten().map(|p| p.1).fold(1.0, f64::max) * 1.1;
    let sx = |x: f64| pad + (x - x0) / (x1 - x0).max(1.0) * (w - 2.0 * pad);
    let sy = |y: f64| h - pad - y / ymax * (h - 2.0 * pad);
    let mut svg = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" font-family=\"sans-serif\" font-size=\"12\">\n\
         <rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n\
         <text x=\"{pad}\" y=\"20\">{} GEMM, square sizes: TFLOP/s (ours blue, cuBLAS red)</text>\n\
         <line x1=\"{pad}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"black\"/>\n\
         <line x1=\"{pad}\" y1=\"{pad}\" x2=\"{pad}\" y2=\"{}\" stroke=\"black\"/>\n",
        dtype.name(),
        h - pad,
        w - pad,
        h - pad,
        h - pad
    );
    for &x in &xs {
        svg += &format!(
            "<text x=\"{:.1}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n",
            sx(x),
            h - pad + 16.0,
            2f64.powf(x).round()
        );
    }
    for i in 0..=4 {
        let y = ymax * i as f64 / 4.0;
        svg += &format!(
            "<text x=\"{}\" y=\"{:.1}\" text-anchor=\"end\">{y:.0}</text>\n",
            pad - 4.0,
            sy(y) + 4.0
        );
    }
    for (pts, color) in series.iter().zip(["#1f5fbf", "#c0392b"]) {
        let list: Vec<String> = pts
            .iter()
            .map(|&(x, y)| format!("{:.1},{:.1}", sx(x), sy(y)))
            .collect();
        svg += &format!(
            "<polyline fill=\"none\" stroke=\"{color}\" stroke-width=\"2\" points=\"{}\"/>\n",
            list.join(" ")
        );
    }
    svg += "</svg>\n";
    std::fs::write(path, svg).map_err(|e| Error::io(path.display().to_string(), e))
}

pub fn run(a: &GemmArgs) -> std::result::Result<(), Box<dyn std::error::Error>> {
    let dev = match &a.device {
        Some(d) => Device::open(d)?,
        None => Device::default()?,
    };
    let dtype = Dtype::parse(&a.dtype)?;
    let (ta, tb) = (trans(&a.transa)?, trans(&a.transb)?);
    let problems: Vec<Problem> = if a.sweep {
        (8..=14)
            .map(|e| {
                let s = 1usize << e;
                Problem {
                    m: s,
                    n: s,
                    k: s,
                    batch: a.batch,
                    ta,
                    tb,
                }
            })
            .collect()
    } else {
        vec![Problem {
            m: a.m,
            n: a.n,
            k: a.k,
            batch: a.batch,
            ta,
            tb,
        }]
    };
    println!("device {} ({})", dev.id(), dev.info().name);
    print_header();
    let mut rows = Vec::new();
    // f16/bf16 on compute capability 9.0: every `wgmma` candidate (ROCM_BENCH_WGMMA).
    let cc9 = matches!(dev.target().arch(), Arch::Sm90 | Arch::Sm90a);
    let variants: Vec<Option<Wgmma>> = match dtype {
        Dtype::F16 | Dtype::Bf16 if cc9 => std::iter::once(None)
            .chain(wgmma_candidates().into_iter().map(Some))
            .collect(),
        _ => vec![None],
    };
    for p in &problems {
        p.validate()?;
    }
    for p in problems {
        for &v in &variants {
            match v {
                Some(w) => println!(
                    "  wgmma {}x{}, {} stages{}:",
                    w.tile_m,
                    w.n,
                    w.stages,
                    if w.tma { ", tensor copies" } else { "" }
                ),
                None if variants.len() > 1 => {
                    println!("  gemm_strided_batched_ex (catalog choice):")
                }
                None => {}
            }
            if a.explain && v.is_none() {
                print!("{}", explain(&dev, dtype, p)?);
            }
            let r =
                crate::report::track(row(&dev, dtype, p, iterations(&p, a.iters), a.vendor, v))?;
            if r.ours.is_err() || r.peer.as_ref().is_some_and(|p| p.is_err()) {
                crate::report::case_failed();
            }
            print_row(dtype, &r);
            rows.push(r);
        }
    }
    if let Some(path) = &a.plot {
        plot(path, dtype, &rows)?;
        println!("plot written to {}", path.display());
    }
    Ok(())
}
