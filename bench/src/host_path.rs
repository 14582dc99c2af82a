//! `rocm-bench host-path`: the host time of one small BLAS call (copy and axpy of f32)
//! through `rocm_kernels::exec`, on a device whose launches do nothing.
//!
//! The device is a stand-in backend with the target of `--target` (default sm_90):
//! plans, programs and argument packing are the real ones, the driver calls are no-ops,
//! so the time per call is our host path alone (plan lookup, checks, packing, launch
//! wrapper). With `--device`, the same calls are also issued on that device without
//! synchronising between them (the driver's launch cost added), and timed to the end
//! of the last call's issue.

use rocm_blas::Blas;
use rocm_core::backend::{
    Allocation, Backend, BackendEvent, BackendKernel, BackendModule, BackendStream,
};
use rocm_core::{Device, DeviceBuffer, DeviceInfo, KernelArgs, LaunchConfig, ModuleImage, Result};
use std::any::Any;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Instant;

#[derive(clap::Args)]
pub struct HostPathArgs {
    /// Target the stand-in device reports.
    #[arg(long, default_value = "sm_90")]
    target: String,
    /// Also issue the calls on this device.
    #[arg(long)]
    device: Option<String>,
    /// Elements per vector.
    #[arg(long, default_value_t = 4096)]
    n: usize,
    /// Timed calls per routine.
    #[arg(long, default_value_t = 20_000)]
    calls: u32,
}

#[derive(Debug)]
struct NullBackend {
    info: DeviceInfo,
    next: AtomicU64,
}

#[derive(Debug)]
struct NullAllocation(u64, usize);
impl Allocation for NullAllocation {
    fn address(&self) -> u64 {
        self.0
    }
    fn bytes(&self) -> usize {
        self.1
    }
}

#[derive(Debug)]
struct NullStream;
impl BackendStream for NullStream {
    fn synchronize(&self) -> Result<()> {
        Ok(())
    }
    fn record_event(&self) -> Result<Box<dyn BackendEvent>> {
        Ok(Box::new(NullEvent))
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}

#[derive(Debug)]
struct NullEvent;
impl BackendEvent for NullEvent {
    fn synchronize(&self) -> Result<()> {
        Ok(())
    }
    fn elapsed_ms(&self, _: &dyn BackendEvent) -> Result<f32> {
        Ok(0.0)
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}

#[derive(Debug)]
struct NullModule;
impl BackendModule for NullModule {
    fn kernel(&self, _: &str) -> Result<Arc<dyn BackendKernel>> {
        Ok(Arc::new(NullKernel))
    }
}

#[derive(Debug)]
struct NullKernel;
impl BackendKernel for NullKernel {
    unsafe fn launch(&self, _: &dyn BackendStream, c: &LaunchConfig, a: &KernelArgs) -> Result<()> {
        std::hint::black_box((c, a.size()));
        Ok(())
    }
}

impl Backend for NullBackend {
    fn info(&self) -> &DeviceInfo {
        &self.info
    }
    fn alloc(&self, bytes: usize) -> Result<Box<dyn Allocation>> {
        let at = self
            .next
            .fetch_add(bytes.next_multiple_of(256) as u64 + 256, Ordering::Relaxed);
        Ok(Box::new(NullAllocation(at, bytes)))
    }
    fn write(&self, _: &dyn BackendStream, _: u64, _: &[u8]) -> Result<()> {
        Ok(())
    }
    fn read(&self, _: &dyn BackendStream, _: u64, _: &mut [u8]) -> Result<()> {
        Ok(())
    }
    fn copy(&self, _: &dyn BackendStream, _: u64, _: u64, _: usize) -> Result<()> {
        Ok(())
    }
    fn fill_bytes(&self, _: &dyn BackendStream, _: u64, _: u8, _: usize) -> Result<()> {
        Ok(())
    }
    fn new_stream(&self) -> Result<Arc<dyn BackendStream>> {
        Ok(Arc::new(NullStream))
    }
    fn load_module(&self, _: &ModuleImage) -> Result<Arc<dyn BackendModule>> {
        Ok(Arc::new(NullModule))
    }
}

/// Microseconds per call of copy and axpy on `dev`, issued back to back.
fn per_call(dev: &Device, n: usize, calls: u32) -> Result<[f64; 2]> {
    let blas = Blas::new(dev);
    let x = DeviceBuffer::<f32>::zeros(dev, n)?;
    let mut y = DeviceBuffer::<f32>::zeros(dev, n)?;
    let xs = x.as_slice();
    let mut out = [0.0; 2];
    for (k, slot) in out.iter_mut().enumerate() {
        let mut call = || match k {
            0 => blas.copy(n, &xs, 1, &mut y.as_slice_mut(), 1),
            _ => blas.axpy(n, 0.5f32, &xs, 1, &mut y.as_slice_mut(), 1),
        };
        for _ in 0..100 {
            call()?;
        }
        dev.synchronize()?;
        let t = Instant::now();
        for _ in 0..calls {
            call()?;
        }
        *slot = t.elapsed().as_secs_f64() * 1e6 / calls as f64;
        dev.synchronize()?;
    }
    Ok(out)
}

pub fn run(args: &HostPathArgs) -> Result<(), Box<dyn std::error::Error>> {
    let target: rocm_core::Target = args.target.parse()?;
    let null = Device::from_backend(Arc::new(NullBackend {
        info: DeviceInfo {
            // A `cuda:` name, so that the libraries take their GPU path.
            id: "cuda:host-path".into(),
            name: format!("stand-in {target} device (launches do nothing)"),
            target,
            total_memory: 1 << 40,
            compute_units: 132,
            clock_mhz: None,
        },
        next: AtomicU64::new(1 << 20),
    }));
    let calls = args.calls.max(1);
    println!(
        "host time per call, n = {}, {calls} calls after 100 warm-ups",
        args.n
    );
    println!("{:<44} {:>10} {:>10}", "device", "copy us", "axpy us");
    let [c, a] = per_call(&null, args.n, calls)?;
    println!("{:<44} {:>10.3} {:>10.3}", null.info().name, c, a);
    if let Some(name) = &args.device {
        let dev = Device::open(name)?;
        let [c, a] = per_call(&dev, args.n, calls)?;
        println!(
            "{:<44} {:>10.3} {:>10.3}",
            format!("{} (issue only)", dev.id()),
            c,
            a
        );
    }
    Ok(())
}
