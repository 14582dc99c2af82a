//! rocm-bench: the rocm-rs command line, in the style of rocminfo, rocm_bandwidth_test,
//! rocblas-bench, rocfft-bench, MIOpenDriver and rccl-tests.
//!
//! Each library has its own subcommand module; `main` only parses and dispatches.

use clap::{Parser, Subcommand};

mod alloc;
mod bandwidth;
mod blas;
mod blas_band;
mod blas_gemm;
mod blas_level2;
mod blas_level3;
mod blas_quick;
mod ccl;
mod disasm;
mod dnn;
mod fft;
mod graph;
mod host_path;
mod info;
mod kernels;
mod rand;
mod report;
mod solver;
mod sparse;
mod suite;
mod tune;
mod tune_l1;
#[cfg(feature = "vendor")]
mod vendor;
mod vendor_dnn;
mod vendor_fft;
mod vendor_gemm;

/// rocm-rs benchmarks and device inspection.
#[derive(Parser)]
#[command(name = "rocm-bench", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// List every device present with its target and capabilities (like rocminfo).
    Info(info::InfoArgs),
    /// Print an AMDGPU code object's kernels, descriptors, metadata and disassembly.
    Disasm(disasm::DisasmArgs),
    /// Host/device copy bandwidth (like rocm_bandwidth_test).
    Bandwidth(bandwidth::BandwidthArgs),
    /// Time allocate/free pairs on one stream (device default path and stream-ordered).
    Alloc(alloc::AllocArgs),
    /// Time small BLAS calls issued one by one against their captured graph.
    Graph(graph::GraphArgs),
    /// Host time of one small BLAS call through the executor (no-op launches).
    HostPath(host_path::HostPathArgs),
    /// Time a rocm-solver routine with its LAPACK test ratio (like rocsolver-bench).
    Solver(solver::SolverArgs),
    /// A short run of everything present on one device.
    Suite(suite::SuiteArgs),
    /// BLAS routines (like rocblas-bench).
    #[command(subcommand)]
    Blas(blas::BlasCommand),
    /// Kernel generators: list them, show generated code and resources.
    #[command(subcommand)]
    Kernels(kernels::KernelsCommand),
    /// Collective benchmarks like nccl-tests (all_reduce, all_gather, broadcast, ...).
    Ccl(ccl::CclArgs),
    /// Sparse benchmarks: spmv, spmm, spgemm, spsv (like rocsparse-bench).
    Sparse(sparse::SparseArgs),
    /// Time an FFT plan (like rocfft-bench).
    Fft(fft::FftArgs),
    /// Random number generation (like rocrand-bench): GB/s and samples/s beside the
    /// write bandwidth and, with --vendor, cuRAND.
    Rand(rand::RandArgs),
    /// DNN primitives (like MIOpenDriver).
    #[command(subcommand)]
    Dnn(dnn::DnnCommand),
    /// Kernel tuning: time candidate parameters per problem and write a catalog.
    #[command(subcommand)]
    Tune(tune::TuneCommand),
}

fn main() {
    let cli = Cli::parse();
    let result = match &cli.command {
        Command::Info(a) => info::run(a),
        Command::Disasm(a) => disasm::run(a).map_err(Into::into),
        Command::Bandwidth(a) => bandwidth::run(a),
        Command::Alloc(a) => alloc::run(a),
        Command::Graph(a) => graph::run(a),
        Command::HostPath(a) => host_path::run(a),
        Command::Solver(a) => solver::run(a),
        Command::Suite(a) => suite::run(a),
        Command::Blas(c) => blas::run(c),
        Command::Kernels(c) => kernels::run(c),
        Command::Ccl(a) => ccl::run(a),
        Command::Sparse(a) => sparse::run(a),
        Command::Fft(a) => fft::run(a),
        Command::Rand(a) => rand::run(a),
        Command::Dnn(c) => dnn::run(c),
        Command::Tune(c) => tune::run(c),
    };
    if let Err(e) = result {
        eprintln!("rocm-bench: {e}");
        std::process::exit(1);
    }
    let failed = report::failures();
    if failed > 0 {
        eprintln!("rocm-bench: {failed} requested case(s) failed or could not run");
        std::process::exit(1);
    }
}
