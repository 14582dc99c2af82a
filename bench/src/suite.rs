//! `rocm-bench suite`: a short run of everything present on one device.
//!
//! Each library adds its section here as it lands; a section prints its own table and
//! fails the suite if its check fails.

use crate::{bandwidth, blas_quick, dnn, fft, info, solver, sparse};

#[derive(clap::Args)]
pub struct SuiteArgs {
    /// Device to run on (default: ROCM_DEVICE, else the best present).
    #[arg(long)]
    device: Option<String>,
}

pub fn run(args: &SuiteArgs) -> Result<(), Box<dyn std::error::Error>> {
    println!("== devices");
    info::run(&info::InfoArgs::default())?;
    println!("\n== bandwidth");
    bandwidth::run(&bandwidth::BandwidthArgs::quick(args.device.clone()))?;
    println!("\n== blas (Level 1, 2, 3 on the chosen device)");
    blas_quick::quick(args.device.as_deref())?;
    println!("\n== fft (cpu)");
    fft::quick()?;
    println!("\n== solver (cpu)");
    for r in [
        solver::Routine::Getrf,
        solver::Routine::Potrf,
        solver::Routine::Gesv,
        solver::Routine::Geqrf,
        solver::Routine::Gelqf,
        solver::Routine::Syevd,
        solver::Routine::Gesvd,
    ] {
        solver::run(&solver::SolverArgs::quick(r, 256))?;
    }
    println!("\n== dnn (cpu)");
    dnn::quick()?;
    println!("\n== sparse (cpu)");
    sparse::quick()?;
    Ok(())
}
