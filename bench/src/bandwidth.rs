//! `rocm-bench bandwidth`: copy bandwidth between host and device and within a device,
//! like rocm_bandwidth_test.
//!
//! Host-to-device and device-to-host run from pageable memory (a `Vec`, which GPUs stage
//! through page-locked chunks) and from page-locked memory (a `PinnedBuffer`, copied by
//! DMA on a stream and timed with stream events); `--staging` also times the pageable
//! copies under other staging settings (chunk MiB : host threads).
//!
//! Host-to-device and device-to-host count the bytes moved once. Device-to-device counts
//! bytes read plus bytes written, the convention torch and nccl-tests use for copies. On
//! GPUs (and the emulated AMD devices) the device-to-device copy runs our kernel
//! (`rocm_kernels::copy`, through the executor), the driver's own copy beside it. On
//! the CPU it is a memcpy.

use rocm_core::{CopyStaging, Device, DeviceBuffer, PinnedBuffer, Result, Stream};
use std::time::Instant;

#[derive(clap::Args)]
pub struct BandwidthArgs {
    /// Device to measure (default: ROCM_DEVICE, else the best present).
    #[arg(long)]
    device: Option<String>,
    /// Bytes per copy (default: 1 GiB on GPUs, 256 MiB on the CPU).
    #[arg(long)]
    bytes: Option<usize>,
    /// Timed repetitions of each copy (after 3 warm-ups).
    #[arg(long, default_value_t = 20)]
    iters: u32,
    /// Print JSON instead of a table.
    #[arg(long)]
    json: bool,
    /// Also time the pageable copies with these staging settings, `MiB:threads` each,
    /// comma-separated (e.g. `4:1,8:4,16:4`).
    #[arg(long)]
    staging: Option<String>,
    /// Quarter-size default for the suite.
    #[arg(skip)]
    quick: bool,
}

impl BandwidthArgs {
    /// A short run for `rocm-bench suite`: a quarter of the default sizes, 5 copies.
    pub fn quick(device: Option<String>) -> Self {
        BandwidthArgs {
            device,
            bytes: None,
            iters: 5,
            json: false,
            staging: None,
            quick: true,
        }
    }
}

#[derive(serde::Serialize)]
struct Row {
    direction: &'static str,
    engine: String,
    bytes: usize,
    /// Bytes counted per copy (read + written for device-to-device).
    counted_bytes: usize,
    mean_ms: f64,
    gb_per_s: f64,
}

fn row(
    direction: &'static str,
    engine: impl Into<String>,
    bytes: usize,
    counted: usize,
    ms: f64,
) -> Row {
    Row {
        direction,
        engine: engine.into(),
        bytes,
        counted_bytes: counted,
        mean_ms: ms,
        gb_per_s: counted as f64 / (ms * 1e-3) / 1e9,
    }
}

/// Mean milliseconds of `iters` runs of `f` after 3 warm-ups, timed on the host.
fn host_timed(iters: u32, mut f: impl FnMut() -> Result<()>) -> Result<f64> {
    for _ in 0..3 {
        f()?;
    }
    let t = Instant::now();
    for _ in 0..iters {
        f()?;
    }
    Ok(t.elapsed().as_secs_f64() * 1e3 / iters as f64)
}

/// Mean milliseconds of `iters` runs of `f` after 3 warm-ups, timed with stream events.
fn stream_timed(stream: &Stream, iters: u32, mut f: impl FnMut() -> Result<()>) -> Result<f64> {
    for _ in 0..3 {
        f()?;
    }
    stream.synchronize()?;
    let start = stream.record()?;
    for _ in 0..iters {
        f()?;
    }
    let end = stream.record()?;
    Ok(start.elapsed_ms(&end)? as f64 / iters as f64)
}

pub fn run(args: &BandwidthArgs) -> Result<(), Box<dyn std::error::Error>> {
    let device = match &args.device {
        Some(d) => Device::open(d)?,
        None => Device::default()?,
    };
    let full: usize = if device.is_cpu() { 256 << 20 } else { 1 << 30 };
    let bytes = args
        .bytes
        .unwrap_or(if args.quick { full / 4 } else { full });
    let iters = args.iters.max(1);
    let host =
        rocm_core::host_alloc::try_from_fn("--bytes host buffer", bytes, |i| (i * 7 + 3) as u8)?;
    let mut back = rocm_core::host_alloc::try_vec("--bytes host buffer", bytes, 0u8)?;
    let src = DeviceBuffer::from_slice(&device, &host)?;
    let mut dst = device.alloc::<u8>(bytes)?;
    let mut rows = Vec::new();

    let ms = host_timed(iters, || dst.upload(&host))?;
    rows.push(row("host-to-device", "pageable", bytes, bytes, ms));
    let ms = host_timed(iters, || src.download(&mut back))?;
    rows.push(row("device-to-host", "pageable", bytes, bytes, ms));
    if back != host {
        return Err("device-to-host copy from pageable memory produced wrong data".into());
    }

    let stream = device.default_stream();
    let pinned_src = PinnedBuffer::from_slice(&device, &host)?;
    let mut pinned_back = PinnedBuffer::<u8>::zeros(&device, bytes)?;
    let ms = stream_timed(stream, iters, || {
        dst.as_slice_mut().upload_async(stream, &pinned_src)
    })?;
    rows.push(row("host-to-device", "pinned", bytes, bytes, ms));
    let ms = stream_timed(stream, iters, || {
        src.as_slice().download_async(stream, &mut pinned_back)
    })?;
    rows.push(row("device-to-host", "pinned", bytes, bytes, ms));
    if pinned_back.as_slice()? != host.as_slice() || dst.to_vec()? != host {
        return Err("a copy through pinned memory produced wrong data".into());
    }
    drop((pinned_src, pinned_back));

    for setting in args.staging.iter().flat_map(|l| l.split(',')) {
        let parsed = setting.split_once(':').and_then(|(c, t)| {
            Some(CopyStaging {
                chunk_bytes: c.trim().parse::<usize>().ok()? << 20,
                threads: t.trim().parse().ok()?,
            })
        });
        let Some(staging) = parsed else {
            return Err(format!("--staging: `{setting}` is not MiB:threads").into());
        };
        device.set_copy_staging(staging)?;
        let engine = format!(
            "pageable {}MiB:{}",
            staging.chunk_bytes >> 20,
            staging.threads
        );
        let ms = host_timed(iters, || dst.upload(&host))?;
        rows.push(row("host-to-device", engine.clone(), bytes, bytes, ms));
        let ms = host_timed(iters, || src.download(&mut back))?;
        rows.push(row("device-to-host", engine, bytes, bytes, ms));
    }

    if !device.is_cpu() {
        let ms = stream_timed(stream, iters, || {
            rocm_kernels::copy::copy(stream, &mut dst.as_slice_mut(), &src.as_slice())
        })?;
        rows.push(row(
            "device-to-device",
            "rocm-rs kernel",
            bytes,
            2 * bytes,
            ms,
        ));
        let ms = stream_timed(stream, iters, || {
            dst.as_slice_mut().copy_from(&src.as_slice())
        })?;
        rows.push(row(
            "device-to-device",
            "driver memcpy",
            bytes,
            2 * bytes,
            ms,
        ));
    } else {
        let ms = host_timed(iters, || dst.as_slice_mut().copy_from(&src.as_slice()))?;
        rows.push(row("device-to-device", "memcpy", bytes, 2 * bytes, ms));
    }
    stream.synchronize()?;
    // A bandwidth figure is only worth printing if the copies were right.
    if dst.to_vec()? != host {
        return Err("device-to-device copy produced wrong data".into());
    }

    if args.json {
        println!(
            "{}",
            serde_json::to_string_pretty(&serde_json::json!({
                "device": device.info(),
                "rows": rows,
            }))?
        );
        return Ok(());
    }
    println!(
        "device {} ({}), {} bytes per copy, mean of {iters} after 3 warm-ups",
        device.id(),
        device.info().name,
        bytes
    );
    println!(
        "{:<18} {:<20} {:>12} {:>10}",
        "direction", "engine", "ms", "GB/s"
    );
    for r in &rows {
        println!(
            "{:<18} {:<20} {:>12.4} {:>10.1}",
            r.direction, r.engine, r.mean_ms, r.gb_per_s
        );
    }
    println!("(device-to-device counts bytes read plus written)");
    Ok(())
}
