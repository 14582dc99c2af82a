//! The `Blas` handle: a device and the stream its calls are ordered on, like
//! `rocblas_handle` / `cublasHandle_t`.

use crate::check;
use crate::math::MathMode;
use rocm_core::{BackendKind, Device, DeviceBuffer, Error, Result, Stream};
use std::sync::{Arc, Mutex};

/// Where a routine without GPU kernels runs: the CPU, or `Unsupported` on other devices.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Engine {
    Cpu,
}

/// Where a routine that has GPU kernels runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Dispatch {
    Cpu,
    /// A GPU running our generated kernels (CUDA, HIP, emulated AMD devices).
    Gpu,
}

/// A BLAS context bound to one device and stream.
#[derive(Debug, Clone)]
pub struct Blas {
    device: Device,
    stream: Stream,
    math_mode: MathMode,
    /// Device scratch for reduction partials, kept across calls (like rocBLAS's handle
    /// workspace) so a reduction allocates nothing. Held for the whole call.
    workspace: Arc<Mutex<Option<DeviceBuffer<f64>>>>,
}

impl Blas {
    /// A handle on `device`'s default stream.
    pub fn new(device: &Device) -> Self {
        Blas {
            device: device.clone(),
            stream: device.default_stream().clone(),
            math_mode: MathMode::default(),
            workspace: Arc::new(Mutex::new(None)),
        }
    }

    /// Runs `f` with at least `len` elements of the handle's device workspace.
    pub(crate) fn with_workspace<R>(
        &self,
        len: usize,
        f: impl FnOnce(&mut DeviceBuffer<f64>) -> Result<R>,
    ) -> Result<R> {
        let mut guard = self.workspace.lock().unwrap_or_else(|p| p.into_inner());
        if guard.as_ref().is_none_or(|w| w.len() < len) {
            *guard = None;
            *guard = Some(DeviceBuffer::zeros(&self.device, len)?);
        }
        match guard.as_mut() {
            Some(w) => f(w),
            None => Err(Error::OutOfMemory {
                device: self.device.id().into(),
                bytes: len * 8,
            }),
        }
    }

    /// Orders this handle's calls on `stream` (of the same device).
    pub fn set_stream(&mut self, stream: &Stream) -> Result<()> {
        check::same_device(&self.device, "stream", stream.device())?;
        self.stream = stream.clone();
        // The workspace is ordered on the old stream; give this handle its own.
        self.workspace = Arc::new(Mutex::new(None));
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

    /// The engine for a CPU-only `op`, or `Unsupported` naming it and the device.
    pub(crate) fn engine(&self, op: &str) -> Result<Engine> {
        match self.dispatch() {
            Dispatch::Cpu => Ok(Engine::Cpu),
            Dispatch::Gpu => Err(self.unsupported(op)),
        }
    }

    /// Where a routine that has GPU kernels runs. Every device kind has a path; a GPU
    /// routine whose kernel is missing for the dtype or target answers `Unsupported`
    /// from the kernel generator.
    pub(crate) fn dispatch(&self) -> Dispatch {
        match self.device.kind() {
            BackendKind::Cpu => Dispatch::Cpu,
            // PTX kernels on CUDA, AMDGPU code objects on HIP and the emulated devices.
            BackendKind::Cuda | BackendKind::Hip | BackendKind::Emu => Dispatch::Gpu,
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
