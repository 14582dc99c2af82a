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

    /// `bytes` bytes of zeroed host memory that the device copies to and from at full
    /// speed and asynchronously (page-locked on GPUs). Devices whose memory is host
    /// memory, and the emulated ones, give plain 64-byte aligned memory.
    fn alloc_host(&self, bytes: usize) -> Result<Box<dyn HostMemory>> {
        Ok(Box::new(cpu::HostAllocation::new(bytes)?))
    }

    /// Copies `len` bytes of host memory at `src` to device address `dst`, ordered on
    /// `stream`; may return before the copy has run. The default copies synchronously.
    ///
    /// # Safety
    /// `src..src + len` must be memory from this device's [`Backend::alloc_host`] that
    /// stays allocated and is not written until `stream` has run the copy; the device
    /// range lies in a live allocation (the front end checks it).
    unsafe fn write_async(
        &self,
        stream: &dyn BackendStream,
        dst: u64,
        src: *const u8,
        len: usize,
    ) -> Result<()> {
        // SAFETY: `src` holds `len` readable bytes (this function's contract).
        self.write(stream, dst, unsafe { std::slice::from_raw_parts(src, len) })
    }

    /// Copies `len` device bytes at `src` into host memory at `dst`, ordered on
    /// `stream`; may return before the copy has run. The default copies synchronously.
    ///
    /// # Safety
    /// `dst..dst + len` must be memory from this device's [`Backend::alloc_host`] that
    /// stays allocated and is neither read nor written until `stream` has run the copy.
    unsafe fn read_async(
        &self,
        stream: &dyn BackendStream,
        src: u64,
        dst: *mut u8,
        len: usize,
    ) -> Result<()> {
        // SAFETY: `dst` holds `len` writable bytes nothing else touches (the contract).
        self.read(stream, src, unsafe {
            std::slice::from_raw_parts_mut(dst, len)
        })
    }

    /// Allocates `bytes` bytes ordered on `stream` (from the device's stream-ordered
    /// pool where it has one), zeroed on the stream: work queued on `stream` after this
    /// call may use it, and its free on drop is ordered after all the device's work
    /// queued before the drop, without waiting on the host. The default is
    /// [`Backend::alloc`].
    fn alloc_on(&self, _stream: &dyn BackendStream, bytes: usize) -> Result<Box<dyn Allocation>> {
        self.alloc(bytes)
    }

    /// What the device's memory pool holds, where it has one.
    fn pool_stats(&self) -> Option<PoolStats> {
        None
    }

    /// Sets how pageable host memory is staged through page-locked buffers for large
    /// copies: chunk size and host threads copying each chunk. Devices that copy
    /// directly ignore it.
    fn set_copy_staging(&self, _staging: CopyStaging) -> Result<()> {
        Ok(())
    }

    /// How [`crate::Stream::capture`] records on this device.
    fn capture_mode(&self) -> CaptureMode {
        CaptureMode::Queue
    }

    /// Starts recording the work queued on `stream` into a graph instead of running it.
    fn begin_capture(&self, _stream: &dyn BackendStream) -> Result<()> {
        Err(Error::unsupported("graph capture", &self.info().id))
    }

    /// Ends the capture begun on `stream` and makes the recorded work launchable.
    fn end_capture(&self, _stream: &dyn BackendStream) -> Result<Box<dyn BackendGraph>> {
        Err(Error::unsupported("graph capture", &self.info().id))
    }
}

/// How a device records a graph.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CaptureMode {
    /// The work queued on the capturing stream is recorded ([`Backend::begin_capture`]).
    Queue,
    /// The device queues nothing (library calls run on the calling thread), so the graph
    /// keeps the captured closure and runs it at every launch.
    Calls,
}

/// How large pageable copies are staged: `chunk_bytes` per page-locked buffer (two
/// buffers alternate, so the host copy of one chunk overlaps the transfer of the
/// other), each chunk's host copy split over `threads` threads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CopyStaging {
    pub chunk_bytes: usize,
    pub threads: usize,
}

/// The state of a stream-ordered memory pool, in bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize)]
pub struct PoolStats {
    /// Handed out to live allocations.
    pub used: u64,
    /// Held from the driver (used plus cached for reuse).
    pub reserved: u64,
    /// Cached memory above this is returned to the driver at synchronisation points.
    pub release_threshold: u64,
}

/// Host memory from [`Backend::alloc_host`]; freed on drop.
pub trait HostMemory: Send + Sync + Debug {
    /// The first byte (aligned to at least 64 bytes).
    fn ptr(&self) -> *mut u8;
    /// Size in bytes.
    fn bytes(&self) -> usize;
}

/// Captured work, ready to launch; destroyed on drop.
pub trait BackendGraph: Send + Sync + Debug {
    /// Queues one run of the recorded work on `stream`.
    fn launch(&self, stream: &dyn BackendStream) -> Result<()>;
    /// Number of recorded operations.
    fn nodes(&self) -> usize;
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
    /// Makes the work queued on this stream from now on wait for `event`, without
    /// waiting on the host where the device can (the default waits on the host).
    fn wait_event(&self, event: &dyn BackendEvent) -> Result<()> {
        event.synchronize()
    }
    /// Whether the stream is recording a graph.
    fn is_capturing(&self) -> bool {
        false
    }
    fn as_any(&self) -> &dyn Any;
}

/// A point in a stream's work, with a timestamp.
pub trait BackendEvent: Send + Sync + Debug {
    /// Blocks until the work before the event is done.
    fn synchronize(&self) -> Result<()>;
    /// Milliseconds from this event to `later` (both must have completed).
    fn elapsed_ms(&self, later: &dyn BackendEvent) -> Result<f32>;
    /// Whether the work before the event is done (without waiting).
    fn query(&self) -> Result<bool> {
        self.synchronize().map(|()| true)
    }
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
