//! The cuFFT peer of `rocm-bench fft --vendor`: the same batched 1-D c2c transform on
//! the same device buffers through cuFFT (loaded dynamically by cudarc), timed the
//! same way as ours (back-to-back executions between two device synchronisations).
//! Built with `--features vendor`; otherwise an `Unsupported` error says how to get it.

use rocm_core::{Device, Result};

/// One batched, contiguous 1-D c2c problem on device addresses.
#[derive(Debug, Clone, Copy)]
#[cfg_attr(not(feature = "vendor"), allow(dead_code))]
pub struct Call {
    pub n: usize,
    pub batch: usize,
    pub f64: bool,
    pub forward: bool,
    /// Input and output device addresses (each `n·batch` complex values).
    pub input: u64,
    pub output: u64,
}

/// Mean seconds per cuFFT execution over `iters` after two warm-ups.
#[cfg(feature = "vendor")]
pub fn time(dev: &Device, call: &Call, iters: u32) -> Result<f64> {
    use cudarc::cufft::{result, sys};
    use rocm_core::Error;
    use std::ffi::c_int;
    let h = crate::vendor::Cublas::for_device(dev)?;
    // SAFETY: probing the library only dlopens it.
    if !unsafe { sys::is_culib_present() } {
        return Err(Error::unsupported(
            "cuFFT peer",
            format!("{} (libcufft not found on the library path)", dev.id()),
        ));
    }
    let int = |what, v| crate::vendor::int(what, v);
    let mut n = [int("length", call.n)?];
    let batch = int("batch", call.batch)?;
    let kind = if call.f64 {
        sys::cufftType::CUFFT_Z2Z
    } else {
        sys::cufftType::CUFFT_C2C
    };
    // SAFETY: `n` holds one length (rank 1); null embeds mean contiguous data.
    let plan = unsafe {
        result::plan_many(
            1,
            n.as_mut_ptr(),
            std::ptr::null_mut(),
            1,
            n[0],
            std::ptr::null_mut(),
            1,
            n[0],
            kind,
            batch,
        )
    }
    .map_err(|e| Error::backend("cufftPlanMany", 0, format!("{e:?}")))?;
    let direction: c_int = if call.forward { -1 } else { 1 };
    let run = |_: &crate::vendor::Cublas| -> Result<()> {
        // SAFETY: the caller passes live device buffers of n·batch complex values of the
        // plan's type, kept alive across this call.
        let r = unsafe {
            if call.f64 {
                result::exec_z2z(
                    plan,
                    call.input as *mut sys::cufftDoubleComplex,
                    call.output as *mut sys::cufftDoubleComplex,
                    direction,
                )
            } else {
                result::exec_c2c(
                    plan,
                    call.input as *mut sys::cufftComplex,
                    call.output as *mut sys::cufftComplex,
                    direction,
                )
            }
        };
        r.map_err(|e| Error::backend("cufftExec", 0, format!("{e:?}")))
    };
    let t = h.time(iters, run);
    // SAFETY: created above, destroyed once after its last use.
    let _ = unsafe { result::destroy(plan) };
    t
}

#[cfg(not(feature = "vendor"))]
pub fn time(dev: &Device, _call: &Call, _iters: u32) -> Result<f64> {
    Err(rocm_core::Error::unsupported(
        "the cuFFT peer (build rocm-bench with --features vendor)",
        dev.id(),
    ))
}
