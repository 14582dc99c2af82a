//! The backend interface: what a device implementation provides.
//!
//! [`crate::Device`] and the typed buffers, streams and modules are thin safe wrappers
//! over these object-safe traits. A backend works like a driver API on raw device
//! addresses; the front end guarantees that every address range it passes lies inside a
//! live allocation of that backend (bounds and lifetimes are checked there, once).
//!
//! Backends: [`cpu`] (always present), [`cuda`] (cudarc, loaded dynamically), [`hip`]
//! (libamdhip64 through libloading). The emulated AMD device (`emu:<gfx>`) plugs in
//! through the same traits.

use crate::module::{KernelArgs, LaunchConfig, ModuleImage};
use crate::tensor_map::{TensorMap, TensorMapDesc};
use crate::{DeviceInfo, Error, Result};
use std::any::Any;
use std::fmt::Debug;
use std::sync::Arc;

pub mod cpu;
pub mod cuda;
pub mod hip;

/// A device implementation.
pub trait Backend: Send + Sync + Debug {
    /// Static properties of the device.
    fn info(&self) -> &DeviceInfo;

    /// Allocates `bytes` bytes of zeroed device memory.
    fn alloc(&self, bytes: usize) -> Result<Box<dyn Allocation>>;

    /// Copies host bytes to device address `dst`; returns once `src` may be reused.
    fn write(&self, stream: &dyn BackendStream, dst: u64, src: &[u8]) -> Result<()>;

    /// Copies device bytes at `src` into `dst`; returns once `dst` holds them.
    fn read(&self, stream: &dyn BackendStream, src: u64, dst: &mut [u8]) -> Result<()>;

    /// Device-to-device copy of `bytes` bytes, ordered on `stream`.
    fn copy(&self, stream: &dyn BackendStream, dst: u64, src: u64, bytes: usize) -> Result<()>;

    /// Pitched device-to-device copy, ordered on `stream`: `height` rows of `width`
    /// bytes, row `r` from `src + r·src_pitch` to `dst + r·dst_pitch` (both pitches ≥
    /// `width`). The default copies row by row; drivers with a 2-D copy override it.
    #[allow(clippy::too_many_arguments)]
    fn copy_2d(
        &self,
        stream: &dyn BackendStream,
        dst: u64,
        dst_pitch: usize,
        src: u64,
        src_pitch: usize,
        width: usize,
        height: usize,
    ) -> Result<()> {
        for r in 0..height as u64 {
            self.copy(
                stream,
                dst + r * dst_pitch as u64,
                src + r * src_pitch as u64,
                width,
            )?;
        }
        Ok(())
    }

    /// Sets `bytes` bytes at `dst` to `value`, ordered on `stream`.
    fn fill_bytes(
        &self,
        stream: &dyn BackendStream,
        dst: u64,
        value: u8,
        bytes: usize,
    ) -> Result<()>;

    /// A new stream (queue) of this device.
    fn new_stream(&self) -> Result<Arc<dyn BackendStream>>;

    /// Loads a module (PTX text or AMDGPU code object).
    fn load_module(&self, image: &ModuleImage) -> Result<Arc<dyn BackendModule>>;

    /// Encodes a tensor map for this device's tensor copy engine (NVIDIA sm_90+); the
    /// description is already validated. Devices without one answer `Unsupported`.
    fn encode_tensor_map(&self, _desc: &TensorMapDesc) -> Result<TensorMap> {
        Err(Error::unsupported("tensor maps", &self.info().id))
    }
}

/// Memory owned by a backend; freed on drop.
pub trait Allocation: Send + Sync + Debug {
    /// The device address kernels see.
    fn address(&self) -> u64;
    /// Size in bytes.
    fn bytes(&self) -> usize;
    /// Host pointer to the same bytes, for devices whose memory is host memory (the CPU).
    fn host_ptr(&self) -> Option<*mut u8> {
        None
    }
}

/// An ordered queue of device work.
pub trait BackendStream: Send + Sync + Debug {
    /// Blocks until all work queued so far is done.
    fn synchronize(&self) -> Result<()>;
    /// Records an event after the work queued so far.
    fn record_event(&self) -> Result<Box<dyn BackendEvent>>;
    fn as_any(&self) -> &dyn Any;
}

/// A point in a stream's work, with a timestamp.
pub trait BackendEvent: Send + Sync + Debug {
    /// Blocks until the work before the event is done.
    fn synchronize(&self) -> Result<()>;
    /// Milliseconds from this event to `later` (both must have completed).
    fn elapsed_ms(&self, later: &dyn BackendEvent) -> Result<f32>;
    fn as_any(&self) -> &dyn Any;
}

/// A loaded module.
pub trait BackendModule: Send + Sync + Debug {
    /// A kernel of the module by name.
    fn kernel(&self, name: &str) -> Result<Arc<dyn BackendKernel>>;
}

/// A kernel ready to launch.
pub trait BackendKernel: Send + Sync + Debug {
    /// Queues a launch on `stream`.
    ///
    /// # Safety
    /// The arguments must match the kernel's parameter list, and the kernel must access
    /// only memory inside the buffers passed to it (see [`crate::Kernel::launch`]).
    unsafe fn launch(
        &self,
        stream: &dyn BackendStream,
        config: &LaunchConfig,
        args: &KernelArgs,
    ) -> Result<()>;

    /// Queues a launch that may start before the previous kernel on `stream` finishes
    /// (see [`crate::Kernel::launch_dependent`]); backends without such launches order
    /// it as [`BackendKernel::launch`] does.
    ///
    /// # Safety
    /// As [`BackendKernel::launch`].
    unsafe fn launch_dependent(
        &self,
        stream: &dyn BackendStream,
        config: &LaunchConfig,
        args: &KernelArgs,
    ) -> Result<()> {
        // SAFETY: forwarded from this function's contract.
        unsafe { self.launch(stream, config, args) }
    }
}

/// Downcasts a stream to the backend's concrete type, or reports a device mismatch.
pub(crate) fn downcast_stream<'a, S: 'static>(
    stream: &'a dyn BackendStream,
    device: &str,
) -> Result<&'a S> {
    stream
        .as_any()
        .downcast_ref::<S>()
        .ok_or_else(|| crate::Error::DeviceMismatch {
            what: "stream".into(),
            expected: device.into(),
            found: format!("{stream:?}"),
        })
}
