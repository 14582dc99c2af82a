//! The `Blas` handle: a device and the stream its calls are ordered on, like
//! `rocblas_handle` / `cublasHandle_t`.

use crate::check;
use crate::math::MathMode;
use rocm_core::{BackendKind, Device, Error, Result, Stream};

/// Where a routine runs, decided once per call from the handle's device.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Engine {
    Cpu,
    /// A GPU running our generated kernels (CUDA today).
    Gpu,
}

/// A BLAS context bound to one device and stream.
#[derive(Debug, Clone)]
pub struct Blas {
    device: Device,
    stream: Stream,
    math_mode: MathMode,
}

impl Blas {
    /// A handle on `device`'s default stream.
    pub fn new(device: &Device) -> Self {
        Blas {
            device: device.clone(),
            stream: device.default_stream().clone(),
            math_mode: MathMode::default(),
        }
    }

    /// Orders this handle's calls on `stream` (of the same device).
    pub fn set_stream(&mut self, stream: &Stream) -> Result<()> {
        check::same_device(&self.device, "stream", stream.device())?;
        self.stream = stream.clone();
        Ok(())
    }

    pub fn device(&self) -> &Device {
        &self.device
    }

    pub fn stream(&self) -> &Stream {
        &self.stream
    }

    /// Allows reduced-precision f32 products (tf32 on NVIDIA, xf32 on gfx942). Off by
    /// default.
    pub fn set_math_mode(&mut self, mode: MathMode) {
        self.math_mode = mode;
    }

    pub fn math_mode(&self) -> MathMode {
        self.math_mode
    }

    /// The engine for `op` on this device, or `Unsupported` naming both.
    pub(crate) fn engine(&self, op: &str) -> Result<Engine> {
        match self.device.kind() {
            BackendKind::Cpu => Ok(Engine::Cpu),
            BackendKind::Cuda => Ok(Engine::Gpu),
            _ => Err(self.unsupported(op)),
        }
    }

    /// `Unsupported` naming the routine and this device.
    pub(crate) fn unsupported(&self, op: &str) -> Error {
        Error::unsupported(format!("blas {op}"), &self.device)
    }

    pub(crate) fn check_device(&self, what: &str, device: &Device) -> Result<()> {
        check::same_device(&self.device, what, device)
    }
}
