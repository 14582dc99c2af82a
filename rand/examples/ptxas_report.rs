//! ptxas's resource report (registers, spills) of every fill kernel variant for sm_90:
//! `PTXAS=... cargo run -p rocm-rand --release --example ptxas_report`.

use rocm_core::DType;
use rocm_kernels::lang::ptx;
use rocm_kernels::ptxas::{Ptxas, HOW_TO_GET};
use rocm_rand::{gpu, gpu_quasi, gpu_sequential, Dist, Kind};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let ptxas = Ptxas::find().ok_or(HOW_TO_GET)?;
    let target = "sm_90".parse()?;
    let combos = [
        (Dist::Bits, DType::U32),
        (Dist::Uniform, DType::F16),
        (Dist::Uniform, DType::F32),
        (Dist::Uniform, DType::F64),
        (Dist::Normal, DType::F32),
        (Dist::Normal, DType::F64),
        (Dist::LogNormal, DType::F32),
        (Dist::LogNormal, DType::F64),
        (Dist::Poisson, DType::U32),
    ];
    let report =
        |name: &str, what: String, text: String| -> Result<(), Box<dyn std::error::Error>> {
            let r = ptxas.compile(&text, &target)?;
            let k = r.kernel(name)?;
            println!(
                "{what:<44} {:>3} registers, {:>4} B stack, spills {}/{}",
                k.registers, k.stack_bytes, k.spill_stores, k.spill_loads
            );
            Ok(())
        };
    for kind in [Kind::Philox4x32_10, Kind::Threefry2x32_20] {
        for (dist, dtype) in combos {
            let p = gpu::Params::for_problem(kind, dist, dtype, true);
            let text = ptx::lower(&gpu::kernel(&p, &target)?)?;
            report(
                gpu::KERNEL,
                format!("{} {} {dtype}", kind.name(), dist.name()),
                text,
            )?;
        }
    }
    for (dist, dtype) in combos.into_iter().filter(|c| c.1 != DType::F16) {
        let p = gpu_sequential::Params {
            dist,
            dtype,
            block: 256,
        };
        let text = ptx::lower(&gpu_sequential::kernel(&p, &target)?)?;
        report(
            gpu_sequential::KERNEL,
            format!("xorwow {} {dtype}", dist.name()),
            text,
        )?;
    }
    for bits in [32, 64] {
        let b = if bits == 64 { DType::I64 } else { DType::U32 };
        for (dist, dtype) in [
            (Dist::Bits, b),
            (Dist::Uniform, DType::F32),
            (Dist::Uniform, DType::F64),
        ] {
            let p = gpu_quasi::Params {
                bits,
                dist,
                dtype,
                block: 256,
            };
            let text = ptx::lower(&gpu_quasi::kernel(&p, &target)?)?;
            report(
                gpu_quasi::KERNEL,
                format!("sobol{bits} {} {dtype}", dist.name()),
                text,
            )?;
        }
    }
    Ok(())
}
