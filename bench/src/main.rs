//! rocm-bench: the rocm-rs command line, in the style of rocminfo, rocm_bandwidth_test,
//! rocblas-bench, rocfft-bench, MIOpenDriver and rccl-tests.
//!
//! Each library has its own subcommand module; `main` only parses and dispatches.

use clap::{Parser, Subcommand};

mod bandwidth;
mod dnn;
mod info;
mod suite;

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
    /// Host/device copy bandwidth (like rocm_bandwidth_test).
    Bandwidth(bandwidth::BandwidthArgs),
    /// A short run of everything present on one device.
    Suite(suite::SuiteArgs),
    /// DNN primitives (like MIOpenDriver).
    #[command(subcommand)]
    Dnn(dnn::DnnCommand),
}

fn main() {
    let cli = Cli::parse();
    let result = match &cli.command {
        Command::Info(a) => info::run(a),
        Command::Bandwidth(a) => bandwidth::run(a),
        Command::Suite(a) => suite::run(a),
        Command::Dnn(c) => dnn::run(c),
    };
    if let Err(e) = result {
        eprintln!("rocm-bench: {e}");
        std::process::exit(1);
    }
}
