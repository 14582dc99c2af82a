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

/// Where the scalar results of the Level 1 reductions go, like `rocblas_pointer_mode`.
///
/// It governs the `_into` routines (`dot_into`, `nrm2_into`, `iamax_into`, ...), which
/// write their result to element 0 of a buffer on the handle's device:
/// - `Host` (the default): the call computes the result, waits for it, and stores it
///   (on the CPU device, or by an upload ordered on the handle's stream).
/// - `Device`: on a GPU the call only enqueues: the reduction's final pass runs on the
///   device and writes the result there, with no host round trip and no stream
///   synchronisation; read it after synchronising the stream. On the CPU device the
///   result is written before the call returns.
///
/// The value is bit for bit the same in both modes (one fixed order of combination,
/// see `rocm_kernels::level1::finish`). The value-returning routines (`dot`, `nrm2`,
/// ...) return to the host in either mode.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum PointerMode {
    #[default]
    Host,
    Device,
}

/// A BLAS context bound to one device and stream.
#[derive(Debug, Clone)]
pub struct Blas {
    device: Device,
    stream: Stream,
    math_mode: MathMode,
    pointer_mode: PointerMode,
    /// Device scratch for reduction partials and staged results, kept across calls
    /// (like rocBLAS's handle workspace) so a call allocates nothing. Held for the
    /// whole call.
    workspace: Workspace,
    /// Device scratch for repacked GEMM operands (`gpu::gemm`). Separate from
    /// `workspace` because a call holding that one (gemm_ex staging C) may launch a
    /// GEMM that repacks A and B.
    operands: Workspace,
    /// Device scratch of a routine built from other GPU routines, which hold the two
    /// above while it holds this one (trtri's identity, solved by trsm in place).
    outer: Workspace,
    /// Device scratch of the blocked GPU Level 3 (inverted or expanded diagonal blocks,
    /// leaf products). Separate from `workspace` because those routines call GEMMs while
    /// holding it, and the complex GEMM stages its real-ified operands in `workspace`.
    blocks: Workspace,
    /// Elementwise Level 1 plans of recent calls (`gpu::plan_cache`).
    pub(crate) level1_plans: crate::gpu::plan_cache::PlanCache,
}

/// A device buffer that grows on demand and lives as long as its handle. Work queued
/// on the handle's stream may still use it after a call returns, so it is only replaced
/// after the stream has finished that work.
#[derive(Debug, Clone, Default)]
struct Workspace(Arc<Mutex<Option<DeviceBuffer<f64>>>>);

impl Workspace {
    fn with<R>(
        &self,
        device: &Device,
        stream: &Stream,
        len: usize,
        f: impl FnOnce(&mut DeviceBuffer<f64>) -> Result<R>,
    ) -> Result<R> {
        let mut guard = self.0.lock().unwrap_or_else(|p| p.into_inner());
        if stream.is_capturing() && guard.as_ref().is_none_or(|w| w.len() < len) {
            // A graph must not keep memory it allocated beyond itself (CUDA refuses to
            // relaunch one that does), nor may the handle wait for the device now: this
            // call gets scratch of its own, allocated and freed inside the graph.
            let mut scratch = stream.alloc::<f64>(len)?;
            return f(&mut scratch);
        }
        if guard.as_ref().is_none_or(|w| w.len() < len) {
            if guard.is_some() {
                // Kernels queued by earlier calls (device-mode reductions, GEMMs) may
                // still read the old buffer: let them finish before it is freed.
                stream.synchronize()?;
            }
            *guard = None;
            *guard = Some(DeviceBuffer::zeros(device, len)?);
        }
        match guard.as_mut() {
            Some(w) => f(w),
            None => Err(Error::OutOfMemory {
                device: device.id().into(),
                bytes: len * 8,
            }),
        }
    }
}

impl Blas {
    /// A handle on `device`'s default stream.
    pub fn new(device: &Device) -> Self {
        Blas {
            device: device.clone(),
            stream: device.default_stream().clone(),
            math_mode: MathMode::default(),
            pointer_mode: PointerMode::default(),
            workspace: Workspace::default(),
            operands: Workspace::default(),
            outer: Workspace::default(),
            blocks: Workspace::default(),
            level1_plans: Default::default(),
        }
    }

    /// Runs `f` with at least `len` elements of the handle's device workspace.
    pub(crate) fn with_workspace<R>(
        &self,
        len: usize,
        f: impl FnOnce(&mut DeviceBuffer<f64>) -> Result<R>,
    ) -> Result<R> {
        self.workspace.with(&self.device, &self.stream, len, f)
    }

    /// Runs `f` with at least `len` elements of the scratch of a routine that calls other
    /// GPU routines on a matrix of its own (trtri's identity), which use the other two.
    pub(crate) fn with_outer_workspace<R>(
        &self,
        len: usize,
        f: impl FnOnce(&mut DeviceBuffer<f64>) -> Result<R>,
    ) -> Result<R> {
        self.outer.with(&self.device, &self.stream, len, f)
    }

    /// Runs `f` with at least `len` elements of the blocked Level 3 scratch (held while
    /// the routine calls GEMMs, real or complex).
    pub(crate) fn with_blocks_workspace<R>(
        &self,
        len: usize,
        f: impl FnOnce(&mut DeviceBuffer<f64>) -> Result<R>,
    ) -> Result<R> {
        self.blocks.with(&self.device, &self.stream, len, f)
    }

    /// Runs `f` with at least `len` elements of the handle's scratch for repacked GEMM
    /// operands.
    pub(crate) fn with_operand_workspace<R>(
        &self,
        len: usize,
        f: impl FnOnce(&mut DeviceBuffer<f64>) -> Result<R>,
    ) -> Result<R> {
        self.operands.with(&self.device, &self.stream, len, f)
    }

    /// Orders this handle's calls on `stream` (of the same device).
    pub fn set_stream(&mut self, stream: &Stream) -> Result<()> {
        check::same_device(&self.device, "stream", stream.device())?;
        // Queued work (device-mode reductions, GEMMs on repacked operands) may still be
        // using the workspaces dropped below.
        self.stream.synchronize()?;
        self.stream = stream.clone();
        // The workspaces are ordered on the old stream; give this handle its own.
        self.workspace = Workspace::default();
        self.operands = Workspace::default();
        self.outer = Workspace::default();
        self.blocks = Workspace::default();
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

    /// Where the `_into` reductions leave their result ([`PointerMode`]; default
    /// `Host`).
    pub fn set_pointer_mode(&mut self, mode: PointerMode) {
        self.pointer_mode = mode;
    }

    pub fn pointer_mode(&self) -> PointerMode {
        self.pointer_mode
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
