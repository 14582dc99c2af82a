//! `rocm-bench kernels list|show`: the generators and what they generate for a target.

use rocm_core::isa::amdgpu::IsaTarget;
use rocm_core::{DType, ModuleImage, Target};
use rocm_kernels::catalog::Catalog;
use rocm_kernels::complex::ComplexPrep;
use rocm_kernels::copy::DeviceCopy;
use rocm_kernels::extension::Extension;
use rocm_kernels::gemm::splitk::SplitKFinish;
use rocm_kernels::gemm::{Gemm, GemmClass, GemmOperand, GemmParams, GemmProblem};
use rocm_kernels::generator::{Generator, Program};
use rocm_kernels::level1::finish::{Finish, FinishParams};
use rocm_kernels::level1::{L1Op, Level1, Level1Params, ALL_OPS, DTYPES};
use rocm_kernels::level2::gemv::{Gemv, GemvParams, GemvTrans};
use rocm_kernels::level2::rank::{Rank, RankOp, RankParams};
use rocm_kernels::level2::trimv::{TriMv, TriMvOp, TriMvParams};
use rocm_kernels::level2::trsv::{TrsvBlock, TrsvParams};
use rocm_kernels::level2::Storage;
use rocm_kernels::level3::Level3;
use rocm_kernels::ptxas::Ptxas;
use rocm_kernels::transpose::Transpose;

/// Every generator besides Level 1 (listed above with its ops): name, version, and what
/// it builds. Each has a PTX and an AMDGPU back end (gfx908, gfx90a, gfx942 wave64;
/// gfx1100, gfx1101, gfx1102, gfx1151 wave32) unless the line says otherwise.
const GENERATORS: &[(&str, u32, &str)] = &[
    (
        Gemm::NAME,
        Gemm::VERSION,
        "GEMM (Tensile-style GemmParams): PTX SIMT/mma.sync/DMMA, sm_90a wgmma; AMDGPU MFMA (gfx9), WMMA (gfx11) and FMA",
    ),
    (
        SplitKFinish::NAME,
        SplitKFinish::VERSION,
        "GEMM split-K finish (PTX only)",
    ),
    (
        ComplexPrep::NAME,
        ComplexPrep::VERSION,
        "complex GEMM preparation (expand, copy, scale)",
    ),
    (
        DeviceCopy::NAME,
        DeviceCopy::VERSION,
        "device-to-device copy (kernel language; params unit_bytes 16, 8, 4, 2, 1)",
    ),
    (
        Transpose::NAME,
        Transpose::VERSION,
        "tiled batched transpose (kernel language, every target)",
    ),
    (
        Finish::NAME,
        Finish::VERSION,
        "Level 1 reduction finish (AMDGPU: all but nrm2)",
    ),
    (Gemv::NAME, Gemv::VERSION, "BLAS Level 2 gemv N/T/C and its split finish"),
    (
        Rank::NAME,
        Rank::VERSION,
        "BLAS Level 2 rank updates (ger, syr/her, syr2/her2; dense and packed)",
    ),
    (
        TriMv::NAME,
        TriMv::VERSION,
        "BLAS Level 2 symmetric/Hermitian, triangular and general band products (dense, packed, band)",
    ),
    (
        TrsvBlock::NAME,
        TrsvBlock::VERSION,
        "BLAS Level 2 trsv/tpsv/tbsv diagonal-block solve (dense, packed, band)",
    ),
    (
        Level3::NAME,
        Level3::VERSION,
        "BLAS Level 3 triangle kernels (expand, invert, update)",
    ),
    (Extension::NAME, Extension::VERSION, "geam and dgmm"),
];

#[derive(clap::Subcommand)]
pub enum KernelsCommand {
    /// List the generators and the operations and dtypes each covers.
    List,
    /// Print the program one generator builds (a Level 1 operation, or any generator by
    /// name with its problem flags or `--params JSON`) with its resource report: PTX and
    /// ptxas's report on NVIDIA targets; on AMD targets (gfx908, gfx90a, gfx942, gfx11xx)
    /// Level 1's LLVM-syntax assembly and register/LDS/occupancy report, the other
    /// generators' code objects disassembled with their descriptors and occupancy.
    Show(ShowArgs),
}

#[derive(clap::Args)]
pub struct ShowArgs {
    /// A Level 1 operation (scal, axpy, axpby, copy, swap, dot, dotc, sum, asum, nrm2,
    /// iamax, iamin) or a generator name (`kernels list`: gemm, gemv, rank_update,
    /// tri_mv, trsv_block, level3, extension, complex_prep, copy, transpose,
    /// gemm_splitk_finish, level1_finish; rocm-rand's fill kernel `rand`: Philox uniform
    /// f32/f64 unless `--params` says otherwise).
    op: String,
    /// The generator's params as JSON (overrides the problem flags).
    #[arg(long)]
    params: Option<String>,
    /// gemv: op(A), n, t or c.
    #[arg(long, default_value = "n")]
    trans: String,
    /// gemm: the problem M×N×K the catalog selects for.
    #[arg(long, default_value = "4096x4096x4096")]
    shape: String,
    #[arg(long, default_value = "sm_90")]
    target: String,
    #[arg(long, default_value = "f32")]
    dtype: String,
    /// Strided (non-unit increment) variant instead of the contiguous one.
    #[arg(long)]
    strided: bool,
    /// Problem size the catalog selects for.
    #[arg(long, default_value_t = 1 << 20)]
    n: u64,
}

fn parse_op(name: &str) -> Result<L1Op, String> {
    Ok(match name {
        "scal" => L1Op::Scal,
        "axpy" | "axpby" => L1Op::Axpby { read_y: true },
        "copy" => L1Op::Copy,
        "swap" => L1Op::Swap,
        "dot" => L1Op::Dot { conj: false },
        "dotc" => L1Op::Dot { conj: true },
        "sum" => L1Op::Sum,
        "asum" => L1Op::Asum,
        "nrm2" => L1Op::Nrm2,
        "iamax" => L1Op::Iamax { max: true },
        "iamin" => L1Op::Iamax { max: false },
        other => {
            return Err(format!(
                "unknown operation `{other}`; see `rocm-bench kernels list`"
            ))
        }
    })
}

pub fn run(cmd: &KernelsCommand) -> Result<(), Box<dyn std::error::Error>> {
    match cmd {
        KernelsCommand::List => {
            println!(
                "generator {} (version {}): BLAS Level 1, PTX for sm_80..sm_90a",
                Level1::NAME,
                Level1::VERSION
            );
            let ops: Vec<String> = ALL_OPS.iter().map(|o| format!("{o:?}")).collect();
            println!("  ops:    {}", ops.join(", "));
            let d: Vec<&str> = DTYPES.iter().map(|d| d.name()).collect();
            println!("  dtypes: {}", d.join(", "));
            println!(
                "  AMDGPU code objects for gfx908, gfx90a, gfx942 (wave64), gfx1100, gfx1101, gfx1102, gfx1151 (wave32)"
            );
            for (name, version, what) in GENERATORS {
                println!("generator {name} (version {version}): {what}");
            }
            println!("generator copy: device-to-device copy (hand-written PTX)");
            Ok(())
        }
        KernelsCommand::Show(a) => {
            let target: Target = a.target.parse()?;
            let dtype: DType = a.dtype.parse()?;
            if parse_op(&a.op).is_err() {
                return show_generator(a, &target, dtype);
            }
            let op = parse_op(&a.op)?;
            let contiguous = !a.strided;
            let p = Catalog::for_target(&target).select(
                Level1::NAME,
                &Level1Params::key(op, dtype, contiguous),
                a.n,
                Level1Params::fallback(op, dtype, contiguous),
            );
            if let Ok(t) = IsaTarget::try_from(&target) {
                return show_amdgpu(t, &p);
            }
            let prog = Level1::generate(&p, &target)?;
            show_program(&prog, &target, &format!("{p:?}"))
        }
    }
}

/// The program of one generator (params from `--params` or from the problem flags) on
/// `target`: PTX with ptxas's report, or the code object's descriptors, occupancy,
/// metadata and disassembly.
fn show_generator(
    a: &ShowArgs,
    target: &Target,
    dtype: DType,
) -> Result<(), Box<dyn std::error::Error>> {
    fn show<G: Generator>(
        a: &ShowArgs,
        target: &Target,
        default: impl FnOnce() -> Result<G::Params, Box<dyn std::error::Error>>,
    ) -> Result<(), Box<dyn std::error::Error>> {
        let p: G::Params = match &a.params {
            Some(json) => serde_json::from_str(json)?,
            None => default()?,
        };
        let prog = G::generate(&p, target)?;
        show_program(&prog, target, &serde_json::to_string(&p)?)
    }
    let from_json = |v: serde_json::Value| -> Result<_, Box<dyn std::error::Error>> { Ok(v) };
    let d = serde_json::to_value(dtype)?;
    match a.op.as_str() {
        n if n == Gemm::NAME => show::<Gemm>(a, target, || gemm_params(a, target, dtype)),
        n if n == Gemv::NAME => show::<Gemv>(a, target, || {
            let trans = match a.trans.as_str() {
                "n" | "N" => GemvTrans::N,
                "t" | "T" => GemvTrans::T,
                "c" | "C" => GemvTrans::C,
                other => return Err(format!("--trans {other}: n, t or c").into()),
            };
            let fallback = GemvParams::fallback(dtype, trans, true);
            Ok(Catalog::for_target(target).select(
                Gemv::NAME,
                &GemvParams::key(dtype, trans),
                a.n,
                fallback,
            ))
        }),
        n if n == Rank::NAME => show::<Rank>(a, target, || {
            Ok(RankParams::fallback(dtype, RankOp::Ger, Storage::Dense))
        }),
        n if n == TriMv::NAME => show::<TriMv>(a, target, || {
            Ok(TriMvParams::fallback(
                dtype,
                TriMvOp::Symv,
                Storage::Dense,
                true,
            ))
        }),
        n if n == TrsvBlock::NAME => show::<TrsvBlock>(a, target, || {
            Ok(TrsvParams::fallback(dtype, Storage::Dense))
        }),
        n if n == Level3::NAME => show::<Level3>(a, target, || {
            let block = if dtype == DType::C64 { 32 } else { 64 };
            Ok(serde_json::from_value(from_json(
                serde_json::json!({"dtype": d, "invert_block": block}),
            )?)?)
        }),
        n if n == Extension::NAME => show::<Extension>(a, target, || {
            Ok(serde_json::from_value(serde_json::json!({"dtype": d}))?)
        }),
        n if n == ComplexPrep::NAME => show::<ComplexPrep>(a, target, || {
            Ok(serde_json::from_value(serde_json::json!({"dtype": d}))?)
        }),
        n if n == DeviceCopy::NAME => show::<DeviceCopy>(a, target, || {
            Ok(serde_json::from_value(
                serde_json::json!({"unit_bytes": 16}),
            )?)
        }),
        n if n == Transpose::NAME => show::<Transpose>(a, target, || {
            Ok(serde_json::from_value(
                serde_json::json!({"element_bytes": dtype.size()}),
            )?)
        }),
        n if n == SplitKFinish::NAME => show::<SplitKFinish>(a, target, || {
            Ok(serde_json::from_value(
                serde_json::json!({"compute": d, "c": d, "read_c": true}),
            )?)
        }),
        n if n == Finish::NAME => show::<Finish>(a, target, || {
            Ok(FinishParams {
                op: L1Op::Sum,
                dtype,
                out: dtype,
            })
        }),
        n if n == rocm_rand::gpu::RandKernels::NAME => {
            show::<rocm_rand::gpu::RandKernels>(a, target, || {
                let dtype = if dtype == DType::F64 {
                    dtype
                } else {
                    DType::F32
                };
                Ok(rocm_rand::gpu::Params::for_problem(
                    rocm_rand::Kind::Philox4x32_10,
                    rocm_rand::Dist::Uniform,
                    dtype,
                    true,
                ))
            })
        }
        other => Err(format!(
            "unknown operation or generator `{other}`; see `rocm-bench kernels list`"
        )
        .into()),
    }
}

/// The GEMM params the library's selection (`rocm_kernels::gemm::select`) takes for
/// `--dtype` and `--shape`: NN, column-major with tight leading dimensions, 256-byte
/// aligned operands, one problem; 16-bit inputs as `gemm_ex` with an f32 C.
fn gemm_params(
    a: &ShowArgs,
    target: &Target,
    dtype: DType,
) -> Result<GemmParams, Box<dyn std::error::Error>> {
    let dims: Vec<usize> = a
        .shape
        .split('x')
        .map(|d| d.parse::<usize>())
        .collect::<Result<_, _>>()?;
    let [m, n, k] = dims[..] else {
        return Err(format!("--shape {}: MxNxK", a.shape).into());
    };
    let class = if matches!(dtype, DType::F16 | DType::Bf16) {
        GemmClass::Mixed {
            ab: dtype,
            c: DType::F32,
        }
    } else {
        GemmClass::Real {
            dtype,
            reduced_f32: false,
        }
    };
    let aligned = GemmOperand::at(0, 0);
    let problem = GemmProblem {
        class,
        trans_a: false,
        trans_b: false,
        m,
        n,
        k,
        lda: m.max(1),
        ldb: k.max(1),
        ldc: m.max(1),
        a: aligned,
        b: aligned,
        c: aligned,
        batch: 1,
        alpha: 1.0,
        beta: 0.0,
        // Split-K sizes itself by the SM count: the target's first listed part's.
        compute_units: target.caps().parts.first().map_or(1, |p| p.1),
    };
    rocm_kernels::gemm::select(&problem, target, Catalog::for_target(target))?
        .ok_or_else(|| format!("no GEMM kernel of {dtype} on {target}").into())
}

/// A program and its resource report.
fn show_program(
    prog: &Program,
    target: &Target,
    params: &str,
) -> Result<(), Box<dyn std::error::Error>> {
    println!("// params: {params}\n// launch: {:?}", prog.launch);
    for s in &prog.signatures {
        println!("// signature: {s}");
    }
    match &prog.image {
        ModuleImage::Ptx(text) => {
            println!("{text}");
            match Ptxas::find() {
                Some(ptxas) => {
                    let report = ptxas.compile(text, target)?;
                    for k in &report.kernels {
                        println!(
                            "// ptxas {target}: {}: {} registers, {} bytes shared, {} bytes stack, spills {}/{}",
                            k.name, k.registers, k.shared_bytes, k.stack_bytes, k.spill_stores, k.spill_loads
                        );
                    }
                    for w in &report.warnings {
                        println!("// ptxas warning: {w}");
                    }
                }
                None => println!("// ptxas not found: {}", rocm_kernels::ptxas::HOW_TO_GET),
            }
        }
        ModuleImage::CodeObject(bytes) => print!("{}", crate::disasm::render(bytes)?),
    }
    Ok(())
}

/// The AMDGPU kernel of `p`: its LLVM source, then the resource report and the width of
/// each global load (the acceptance of the Level 1 issue reads both).
fn show_amdgpu(t: IsaTarget, p: &Level1Params) -> Result<(), Box<dyn std::error::Error>> {
    let target: rocm_core::Target = t.name().parse()?;
    let def = rocm_kernels::lang::level1::kernel(p, &target)?;
    let k = rocm_kernels::lang::amdgpu::lower(&def)?;
    println!("// params: {p:?}");
    println!(
        "{}",
        rocm_kernels::amdgpu::llvm_source(std::slice::from_ref(&k))
    );
    let r = &k.report;
    println!(
        "// {t} {}: {} VGPRs ({} allocated), {} AGPRs, {} SGPRs, {} bytes LDS, workgroup {} ({} waves)",
        k.name(),
        r.vgprs,
        r.vgprs_allocated,
        r.agprs,
        r.sgprs,
        r.lds_bytes,
        r.workgroup_size,
        r.waves_per_workgroup
    );
    println!(
        "// occupancy: {} waves per SIMD (of {}), limited by {:?}",
        r.occupancy, r.max_waves, r.limiter
    );
    let loads: Vec<String> = k
        .instructions()
        .iter()
        .map(|i| format!("{:?}", i.op))
        .filter(|o| o.starts_with("GlobalLoad"))
        .collect();
    let width = |o: &str| match o.rsplit_once("Dwordx") {
        Some((_, n)) => n.parse::<u32>().unwrap_or(1) * 4,
        None => 4,
    };
    let widths: Vec<String> = loads
        .iter()
        .map(|o| format!("{o} ({} bytes per lane)", width(o)))
        .collect();
    println!("// global loads, in program order: {}", widths.join(", "));
    Ok(())
}
