//! `rocm-bench alloc`: allocate/free pairs of 4 KiB to 1 MiB on one stream.
//!
//! Times `--pairs` pairs (sizes 4 KiB · 2^(i mod 9)) through `Device::alloc` (the
//! default path: the stream-ordered pool on CUDA, or with `ROCM_CUDA_POOL=0` the
//! synchronous cuMemAlloc / memset / synchronise / cuMemFree path) and through
//! `Stream::alloc` (always stream-ordered), each after 100 warm-up pairs, with the
//! stream synchronised at the end, so the figure includes the zeroing.

use rocm_core::{Device, Result};
use std::time::Instant;

#[derive(clap::Args)]
pub struct AllocArgs {
    /// Device to measure (default: ROCM_DEVICE, else the best present).
    #[arg(long)]
    device: Option<String>,
    /// Allocate/free pairs per path.
    #[arg(long, default_value_t = 100_000)]
    pairs: usize,
}

fn size(i: usize) -> usize {
    4096 << (i % 9)
}

/// Seconds for `pairs` allocate/free pairs through `alloc`, after 100 warm-ups.
fn timed(device: &Device, pairs: usize, mut alloc: impl FnMut(usize) -> Result<()>) -> Result<f64> {
    for i in 0..100 {
        alloc(size(i))?;
    }
    device.synchronize()?;
    let t = Instant::now();
    for i in 0..pairs {
        alloc(size(i))?;
    }
    device.synchronize()?;
    Ok(t.elapsed().as_secs_f64())
}

pub fn run(args: &AllocArgs) -> Result<(), Box<dyn std::error::Error>> {
    let device = match &args.device {
        Some(d) => Device::open(d)?,
        None => Device::default()?,
    };
    let pairs = args.pairs.max(1);
    let stream = device.default_stream();
    let pooled = std::env::var("ROCM_CUDA_POOL").map_or(true, |v| v != "0");
    let default_path = if device.kind() != rocm_core::BackendKind::Cuda {
        "the device's allocator"
    } else if pooled {
        "stream-ordered pool"
    } else {
        "synchronous (ROCM_CUDA_POOL=0)"
    };
    println!(
        "device {} ({}), {pairs} allocate/free pairs of 4 KiB-1 MiB on one stream",
        device.id(),
        device.info().name
    );
    println!(
        "{:<16} {:<32} {:>10} {:>12}",
        "call", "path", "total s", "us per pair"
    );
    let secs = timed(&device, pairs, |b| device.alloc::<u8>(b).map(drop))?;
    println!(
        "{:<16} {:<32} {:>10.3} {:>12.3}",
        "Device::alloc",
        default_path,
        secs,
        secs * 1e6 / pairs as f64
    );
    let secs = timed(&device, pairs, |b| stream.alloc::<u8>(b).map(drop))?;
    println!(
        "{:<16} {:<32} {:>10.3} {:>12.3}",
        "Stream::alloc",
        "stream-ordered pool",
        secs,
        secs * 1e6 / pairs as f64
    );
    if let Some(stats) = device.pool_stats() {
        println!(
            "pool: {} bytes used, {} reserved, release threshold {}",
            stats.used, stats.reserved, stats.release_threshold
        );
    }
    Ok(())
}
