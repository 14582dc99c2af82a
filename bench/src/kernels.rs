//! `rocm-bench kernels list|show`: the generators and what they generate for a target.

use rocm_core::isa::amdgpu::IsaTarget;
use rocm_core::{DType, ModuleImage, Target};
use rocm_kernels::catalog::Catalog;
use rocm_kernels::complex::ComplexPrep;
use rocm_kernels::extension::Extension;
use rocm_kernels::gemm::splitk::SplitKFinish;
use rocm_kernels::gemm::Gemm;
use rocm_kernels::generator::Generator;
use rocm_kernels::level1::finish::Finish;
use rocm_kernels::level1::{L1Op, Level1, Level1Params, ALL_OPS, DTYPES};
use rocm_kernels::level2::gemv::Gemv;
use rocm_kernels::level2::rank::Rank;
use rocm_kernels::level2::trimv::TriMv;
use rocm_kernels::level2::trsv::TrsvBlock;
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
        Transpose::NAME,
        Transpose::VERSION,
        "tiled batched transpose (PTX only)",
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
    /// Print the program generated for one Level 1 operation with its resource report:
    /// PTX and ptxas's report on NVIDIA targets; the LLVM-syntax assembly and our
    /// register/LDS/occupancy report on AMD targets (gfx908, gfx90a, gfx942, gfx11xx).
    Show(ShowArgs),
}

#[derive(clap::Args)]
pub struct ShowArgs {
    /// Operation: scal, axpy, axpby, copy, swap, dot, dotc, sum, asum, nrm2, iamax, iamin.
    op: String,
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
            let ModuleImage::Ptx(text) = &prog.image else {
                return Err("the Level 1 generator produced no PTX".into());
            };
            println!("// params: {p:?}\n// launch: {:?}", prog.launch);
            println!("{text}");
            match Ptxas::find() {
                Some(ptxas) => {
                    let report = ptxas.compile(text, &target)?;
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
            Ok(())
        }
    }
}

/// The AMDGPU kernel of `p`: its LLVM source, then the resource report and the width of
/// each global load (the acceptance of the Level 1 issue reads both).
fn show_amdgpu(t: IsaTarget, p: &Level1Params) -> Result<(), Box<dyn std::error::Error>> {
    let k = rocm_kernels::amdgpu::level1::generate(t, p)?;
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
