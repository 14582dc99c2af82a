//! rocm-bench: the rocm-rs command line, in the style of rocminfo, rocm_bandwidth_test,
//! rocblas-bench, rocfft-bench, MIOpenDriver and rccl-tests.
//!
//! Each library has its own subcommand module; `main` only parses and dispatches.

use clap::{Parser, Subcommand};

mod fft;
mod info;

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
    /// Time an FFT plan (like rocfft-bench).
    Fft(fft::FftArgs),
}

fn main() {
    let cli = Cli::parse();
    let result = match &cli.command {
        Command::Info(a) => info::run(a),
        Command::Fft(a) => fft::run(a),
    };
    if let Err(e) = result {
        eprintln!("rocm-bench: {e}");
        std::process::exit(1);
    }
}
