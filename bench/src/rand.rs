//! `rocm-bench rand <generator> --dist <d> --dtype <t> -n N --device D [--vendor]`:
//! samples/s and GB/s (bytes written) of one rocm-rand fill, beside the device's write
//! bandwidth (a memset of the same buffer) and, with `--vendor` on CUDA, cuRAND's same
//! generator and distribution in the same run (Philox, XORWOW, MRG32k3a; cuRAND has no
//! Threefry).
//! `--explain` prints the plan. `rocm-bench rand capture --device cuda:0 --out FILE`
//! (vendor) writes cuRAND's sequences as test data ([`capture`]).

use rocm_core::{DType, Device, DeviceBuffer, Element, Result};
use rocm_rand::gpu::{self, Problem};
use rocm_rand::{Dist, Generator, Kind};
use std::time::Instant;

#[cfg(feature = "vendor")]
mod capture;

#[derive(clap::Args)]
pub struct RandArgs {
    /// Generator: philox, threefry, xorwow, mrg32k3a; or `capture` (with `--out`): cuRAND's sequences as
    /// a test data file.
    generator: String,
    /// Where `capture` writes (e.g. rand/tests/data/curand_sequences.txt).
    #[arg(long)]
    out: Option<std::path::PathBuf>,
    /// Distribution: uniform, normal, lognormal, bits, poisson.
    #[arg(long, default_value = "uniform")]
    dist: String,
    /// Element type: f32, f64 (u32 for bits and poisson).
    #[arg(long, default_value = "f32")]
    dtype: String,
    /// Values per fill (default 2^28).
    #[arg(short, long, default_value_t = 1 << 28)]
    n: usize,
    /// Device (default: ROCM_DEVICE, else the best present).
    #[arg(long)]
    device: Option<String>,
    /// Poisson's mean.
    #[arg(long, default_value_t = 4.0)]
    lambda: f64,
    /// Timed fills (after 3 warm-ups).
    #[arg(long, default_value_t = 20)]
    iters: u32,
    /// cuRAND in the same run (needs `--features vendor` and a CUDA device).
    #[arg(long)]
    vendor: bool,
    /// Print the plan.
    #[arg(long)]
    explain: bool,
}

/// Mean seconds of `iters` runs of `f` after 3 warm-ups, each batch synchronised.
pub(crate) fn timed(
    iters: u32,
    sync: impl Fn() -> Result<()>,
    mut f: impl FnMut() -> Result<()>,
) -> Result<f64> {
    for _ in 0..3 {
        f()?;
    }
    sync()?;
    let t = Instant::now();
    for _ in 0..iters {
        f()?;
    }
    sync()?;
    Ok(t.elapsed().as_secs_f64() / iters.max(1) as f64)
}

/// The mean a call passes: 0 for the normals, λ for Poisson.
fn mean_of(a: &RandArgs, dist: Dist) -> f64 {
    if dist == Dist::Poisson {
        a.lambda
    } else {
        0.0
    }
}

fn print_row(what: &str, n: usize, bytes: usize, s: f64) {
    println!(
        "{what:<28} {:>10.3} ms {:>9.1} GB/s {:>9.2} Gsamples/s",
        s * 1e3,
        bytes as f64 / s / 1e9,
        n as f64 / s / 1e9
    );
}

pub fn run(a: &RandArgs) -> std::result::Result<(), Box<dyn std::error::Error>> {
    let dev = match &a.device {
        Some(d) => Device::open(d)?,
        None => Device::default()?,
    };
    if a.generator == "capture" {
        return capture_to_file(a, &dev);
    }
    let kind = Kind::parse(&a.generator)?;
    let dist = Dist::parse(&a.dist)?;
    let dtype = match a.dtype.as_str() {
        "f32" => DType::F32,
        "f64" => DType::F64,
        "u32" => DType::U32,
        d => return Err(format!("--dtype {d}: f32, f64 or u32").into()),
    };
    match dtype {
        DType::F32 => bench::<f32>(a, &dev, kind, dist),
        DType::F64 => bench::<f64>(a, &dev, kind, dist),
        _ => bench::<u32>(a, &dev, kind, dist),
    }
}

fn bench<T: Element>(
    a: &RandArgs,
    dev: &Device,
    kind: Kind,
    dist: Dist,
) -> std::result::Result<(), Box<dyn std::error::Error>> {
    let n = a.n;
    let bytes = n * std::mem::size_of::<T>();
    let mut buf = DeviceBuffer::<T>::zeros(dev, n)?;
    println!(
        "rand {} {} {} n={n} on {} ({})",
        kind.name(),
        dist.name(),
        T::DTYPE,
        dev.id(),
        dev.target()
    );
    if a.explain && !dev.is_cpu() && kind.counter_based() {
        let p = Problem {
            kind,
            dist,
            dtype: T::DTYPE,
            n: n as u64,
            offset: 0,
            seed: 1234,
            mean: 0.0,
            stddev: 1.0,
            address: buf.address(),
            poisson: None,
        };
        print!("{}", gpu::plan(&p, dev.target())?);
    }
    let sync = || dev.synchronize();
    let memset = timed(a.iters, sync, || buf.fill_zero())?;
    print_row("write bandwidth (memset)", n, bytes, memset);
    let mut g = Generator::new(dev, kind)?;
    g.set_seed(1234);
    let ours = match timed(a.iters, sync, || {
        g.set_offset(0);
        g.generate(dist, &mut buf.as_slice_mut(), mean_of(a, dist), 1.0)
    }) {
        Ok(s) => {
            print_row("rocm-rand", n, bytes, s);
            println!("  {:.1}% of write bandwidth", memset / s * 100.0);
            s
        }
        // A generator without a kernel yet still shows cuRAND's figure.
        Err(e @ rocm_core::Error::Unsupported { .. }) if a.vendor => {
            println!("rocm-rand: {e}");
            f64::NAN
        }
        Err(e) => return Err(e.into()),
    };
    if a.vendor {
        vendor_peer::<T>(a, dev, kind, dist, &mut buf, ours)?;
    }
    Ok(())
}

#[cfg(feature = "vendor")]
fn capture_to_file(
    a: &RandArgs,
    dev: &Device,
) -> std::result::Result<(), Box<dyn std::error::Error>> {
    let out = a.out.as_ref().ok_or("rand capture needs --out FILE")?;
    let text = capture::capture(dev)?;
    std::fs::write(out, &text)?;
    let records = text.lines().filter(|l| !l.starts_with('#')).count();
    let refused = text.lines().filter(|l| l.starts_with("# refused")).count();
    println!(
        "wrote {} ({records} records, {refused} combinations cuRAND refused)",
        out.display()
    );
    Ok(())
}

#[cfg(not(feature = "vendor"))]
fn capture_to_file(
    _: &RandArgs,
    _: &Device,
) -> std::result::Result<(), Box<dyn std::error::Error>> {
    Err("rand capture needs rocm-bench built with --features vendor".into())
}

#[cfg(not(feature = "vendor"))]
fn vendor_peer<T: Element>(
    _: &RandArgs,
    _: &Device,
    _: Kind,
    _: Dist,
    _: &mut DeviceBuffer<T>,
    _: f64,
) -> std::result::Result<(), Box<dyn std::error::Error>> {
    Err("--vendor needs rocm-bench built with --features vendor".into())
}

#[cfg(feature = "vendor")]
fn vendor_peer<T: Element>(
    a: &RandArgs,
    dev: &Device,
    kind: Kind,
    dist: Dist,
    buf: &mut DeviceBuffer<T>,
    ours: f64,
) -> std::result::Result<(), Box<dyn std::error::Error>> {
    let peer = curand::Curand::for_device(dev, kind)?;
    let (n, addr) = (buf.len(), buf.address());
    let call = || -> Result<()> {
        peer.rewind()?;
        // SAFETY: `addr` is a live device buffer of `n` elements of `T` on the device
        // whose primary context cuRAND runs in; the buffer outlives the calls, which
        // are synchronised before it is dropped.
        unsafe { peer.generate(dist, T::DTYPE, addr, n, a.lambda) }
    };
    let s = timed(a.iters, || peer.synchronize(), call)?;
    print_row("cuRAND", n, n * std::mem::size_of::<T>(), s);
    if ours.is_finite() {
        println!("  rocm-rand / cuRAND: {:.2}x", s / ours);
    }
    // Bit equality of the u32 streams (our layout against cuRAND's host output).
    if dist == Dist::Bits && T::DTYPE == DType::U32 && ours.is_finite() {
        peer.rewind()?;
        // SAFETY: as above.
        unsafe { peer.generate(dist, T::DTYPE, addr, n, a.lambda) }?;
        peer.synchronize()?;
        let theirs = buf.to_vec()?;
        let mut g = Generator::new(dev, kind)?;
        g.set_seed(curand::SEED);
        g.generate(dist, &mut buf.as_slice_mut(), 0.0, 1.0)?;
        let mine = buf.to_vec()?;
        let same = theirs.iter().zip(&mine).filter(|(x, y)| x == y).count();
        println!("  u32 stream equal to cuRAND's at {same} of {n} positions");
    }
    Ok(())
}

#[cfg(feature = "vendor")]
mod curand {
    use cudarc::curand::{result, sys};
    use cudarc::driver::CudaContext;
    use rocm_core::{DType, Device, Error, Result};
    use rocm_rand::{Dist, Kind};
    use std::sync::Arc;

    pub const SEED: u64 = 1234;

    /// A cuRAND host-API generator in the device's primary context.
    pub struct Curand {
        gen: sys::curandGenerator_t,
        ctx: Arc<CudaContext>,
    }

    impl Curand {
        pub fn for_device(dev: &Device, kind: Kind) -> Result<Curand> {
            if dev.kind() != rocm_core::BackendKind::Cuda {
                return Err(Error::unsupported("the cuRAND peer", dev.id()));
            }
            let rng = match kind {
                Kind::Philox4x32_10 => sys::curandRngType_t::CURAND_RNG_PSEUDO_PHILOX4_32_10,
                Kind::Xorwow => sys::curandRngType_t::CURAND_RNG_PSEUDO_XORWOW,
                Kind::Mrg32k3a => sys::curandRngType_t::CURAND_RNG_PSEUDO_MRG32K3A,
                Kind::Sobol32 => sys::curandRngType_t::CURAND_RNG_QUASI_SOBOL32,
                Kind::ScrambledSobol32 => sys::curandRngType_t::CURAND_RNG_QUASI_SCRAMBLED_SOBOL32,
                Kind::Sobol64 => sys::curandRngType_t::CURAND_RNG_QUASI_SOBOL64,
                Kind::ScrambledSobol64 => sys::curandRngType_t::CURAND_RNG_QUASI_SCRAMBLED_SOBOL64,
                Kind::Threefry2x32_20 => {
                    return Err(Error::unsupported("cuRAND Threefry", dev.id()))
                }
            };
            // SAFETY: probing the library only dlopens it.
            if !unsafe { sys::is_culib_present() } {
                return Err(Error::unsupported(
                    "cuRAND peer",
                    format!("{} (libcurand not found on the library path)", dev.id()),
                ));
            }
            let ctx = bind_primary_context(dev)?;
            let gen = result::create_generator_kind(rng)
                .map_err(|e| Error::backend("curandCreateGenerator", 0, format!("{e:?}")))?;
            // The quasi-random generators take no seed.
            if !kind.quasi() {
                // SAFETY: `gen` was just created.
                unsafe { result::set_seed(gen, SEED) }
                    .map_err(|e| Error::backend("curandSetSeed", 0, format!("{e:?}")))?;
            }
            Ok(Curand { gen, ctx })
        }

        /// Back to offset 0, so every timed call generates the same values.
        pub fn rewind(&self) -> Result<()> {
            // SAFETY: `gen` is live.
            unsafe { result::set_offset(self.gen, 0) }
                .map_err(|e| Error::backend("curandSetGeneratorOffset", 0, format!("{e:?}")))
        }

        pub fn synchronize(&self) -> Result<()> {
            self.ctx
                .synchronize()
                .map_err(|e| Error::backend("cuCtxSynchronize", 0, e.to_string()))
        }

        /// # Safety
        /// `addr` is a live device buffer of `n` elements of `dtype`.
        pub unsafe fn generate(
            &self,
            dist: Dist,
            dtype: DType,
            addr: u64,
            n: usize,
            lambda: f64,
        ) -> Result<()> {
            use result::generate as g;
            // SAFETY: the caller's contract.
            let r = unsafe {
                match (dist, dtype) {
                    (Dist::Bits, _) => g::uniform_u32(self.gen, addr as *mut u32, n),
                    (Dist::Poisson, _) => g::poisson_u32(self.gen, addr as *mut u32, n, lambda),
                    (Dist::Uniform, DType::F32) => g::uniform_f32(self.gen, addr as *mut f32, n),
                    (Dist::Uniform, _) => g::uniform_f64(self.gen, addr as *mut f64, n),
                    (Dist::Normal, DType::F32) => {
                        g::normal_f32(self.gen, addr as *mut f32, n, 0.0, 1.0)
                    }
                    (Dist::Normal, _) => g::normal_f64(self.gen, addr as *mut f64, n, 0.0, 1.0),
                    (Dist::LogNormal, DType::F32) => {
                        g::log_normal_f32(self.gen, addr as *mut f32, n, 0.0, 1.0)
                    }
                    (Dist::LogNormal, _) => {
                        g::log_normal_f64(self.gen, addr as *mut f64, n, 0.0, 1.0)
                    }
                }
            };
            r.map_err(|e| Error::backend("curandGenerate", 0, format!("{e:?}")))
        }
    }

    /// The CUDA device's primary context (where rocm-core's buffers live), current on
    /// this thread for cuRAND's calls.
    pub fn bind_primary_context(dev: &Device) -> Result<Arc<CudaContext>> {
        let ordinal = dev
            .id()
            .strip_prefix("cuda:")
            .and_then(|o| o.parse().ok())
            .unwrap_or(0);
        let ctx = CudaContext::new(ordinal)
            .map_err(|e| Error::backend("cuDevicePrimaryCtxRetain", 0, e.to_string()))?;
        ctx.bind_to_thread()
            .map_err(|e| Error::backend("cuCtxSetCurrent", 0, e.to_string()))?;
        Ok(ctx)
    }

    impl Drop for Curand {
        fn drop(&mut self) {
            // SAFETY: created in `for_device`, destroyed once.
            let _ = unsafe { result::destroy_generator(self.gen) };
        }
    }
}
