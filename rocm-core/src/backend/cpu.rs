//! The CPU device: memory is host memory, streams run work immediately.

use super::{Allocation, Backend, BackendEvent, BackendModule, BackendStream, HostMemory};
use crate::module::ModuleImage;
use crate::{DeviceInfo, Error, Result, Target};
use std::alloc::Layout;
use std::any::Any;
use std::sync::Arc;
use std::time::Instant;

/// Alignment of CPU allocations: a cache line, enough for any element and for SIMD loads.
const ALIGN: usize = 64;

#[derive(Debug)]
pub struct CpuBackend {
    info: DeviceInfo,
}

impl CpuBackend {
    pub fn new() -> Self {
        let threads = std::thread::available_parallelism()
            .map(|n| n.get() as u32)
            .unwrap_or(1);
        CpuBackend {
            info: DeviceInfo {
                id: "cpu".into(),
                name: cpu_model_name().unwrap_or_else(|| "host CPU".into()),
                target: Target::cpu(),
                total_memory: host_memory_bytes(),
                compute_units: threads,
                clock_mhz: None,
            },
        }
    }
}

impl Default for CpuBackend {
    fn default() -> Self {
        Self::new()
    }
}

fn cpu_model_name() -> Option<String> {
    let text = std::fs::read_to_string("/proc/cpuinfo").ok()?;
    text.lines()
        .find(|l| l.starts_with("model name"))
        .and_then(|l| l.split(':').nth(1))
        .map(|s| s.trim().to_string())
}

fn host_memory_bytes() -> u64 {
    std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|t| {
            t.lines()
                .find(|l| l.starts_with("MemTotal:"))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|kb| kb.parse::<u64>().ok())
        })
        .map(|kb| kb * 1024)
        .unwrap_or(0)
}

/// Zeroed, 64-byte aligned host memory.
#[derive(Debug)]
pub(crate) struct HostAllocation {
    ptr: *mut u8,
    bytes: usize,
}

// SAFETY: the allocation is plain bytes owned by this value; access is synchronised by
// the front end's borrow rules (&/&mut on the buffer and its views).
unsafe impl Send for HostAllocation {}
// SAFETY: as above.
unsafe impl Sync for HostAllocation {}

impl HostAllocation {
    pub(crate) fn new(bytes: usize) -> Result<Self> {
        if bytes == 0 {
            // A dangling, aligned pointer: never dereferenced for a zero-length range.
            return Ok(HostAllocation {
                ptr: std::ptr::null_mut::<u8>().wrapping_add(ALIGN),
                bytes,
            });
        }
        let layout = Layout::from_size_align(bytes, ALIGN).map_err(|_| Error::OutOfMemory {
            device: "cpu".into(),
            bytes,
        })?;
        // SAFETY: layout has non-zero size.
        let ptr = unsafe { std::alloc::alloc_zeroed(layout) };
        if ptr.is_null() {
            return Err(Error::OutOfMemory {
                device: "cpu".into(),
                bytes,
            });
        }
        Ok(HostAllocation { ptr, bytes })
    }
}

impl Drop for HostAllocation {
    fn drop(&mut self) {
        if self.bytes != 0 {
            // SAFETY: allocated in `new` with exactly this layout.
            unsafe {
                std::alloc::dealloc(
                    self.ptr,
                    Layout::from_size_align_unchecked(self.bytes, ALIGN),
                )
            }
        }
    }
}

impl Allocation for HostAllocation {
    fn address(&self) -> u64 {
        self.ptr as u64
    }
    fn bytes(&self) -> usize {
        self.bytes
    }
    fn host_ptr(&self) -> Option<*mut u8> {
        Some(self.ptr)
    }
}

impl HostMemory for HostAllocation {
    fn ptr(&self) -> *mut u8 {
        self.ptr
    }
    fn bytes(&self) -> usize {
        self.bytes
    }
}

/// CPU streams execute each operation when it is queued.
#[derive(Debug)]
pub struct CpuStream;

impl BackendStream for CpuStream {
    fn synchronize(&self) -> Result<()> {
        Ok(())
    }
    fn record_event(&self) -> Result<Box<dyn BackendEvent>> {
        Ok(Box::new(CpuEvent(Instant::now())))
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}

#[derive(Debug)]
pub struct CpuEvent(Instant);

impl BackendEvent for CpuEvent {
    fn synchronize(&self) -> Result<()> {
        Ok(())
    }
    fn elapsed_ms(&self, later: &dyn BackendEvent) -> Result<f32> {
        let later = later
            .as_any()
            .downcast_ref::<CpuEvent>()
            .ok_or_else(|| Error::invalid("event", "events are from different devices"))?;
        Ok(later.0.saturating_duration_since(self.0).as_secs_f32() * 1e3)
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}

impl Backend for CpuBackend {
    fn info(&self) -> &DeviceInfo {
        &self.info
    }

    fn capture_mode(&self) -> super::CaptureMode {
        super::CaptureMode::Calls
    }

    fn alloc(&self, bytes: usize) -> Result<Box<dyn Allocation>> {
        Ok(Box::new(HostAllocation::new(bytes)?))
    }

    fn write(&self, _: &dyn BackendStream, dst: u64, src: &[u8]) -> Result<()> {
        // SAFETY: the front end checked that [dst, dst + len) lies in a live allocation of
        // this device, borrowed mutably, so it cannot overlap `src`.
        unsafe { std::ptr::copy_nonoverlapping(src.as_ptr(), dst as *mut u8, src.len()) };
        Ok(())
    }

    fn read(&self, _: &dyn BackendStream, src: u64, dst: &mut [u8]) -> Result<()> {
        // SAFETY: the front end checked that [src, src + len) lies in a live allocation.
        unsafe { std::ptr::copy_nonoverlapping(src as *const u8, dst.as_mut_ptr(), dst.len()) };
        Ok(())
    }

    fn copy(&self, _: &dyn BackendStream, dst: u64, src: u64, bytes: usize) -> Result<()> {
        // SAFETY: both ranges were bounds-checked against live allocations; `copy`
        // tolerates overlap.
        unsafe { std::ptr::copy(src as *const u8, dst as *mut u8, bytes) };
        Ok(())
    }

    fn fill_bytes(&self, _: &dyn BackendStream, dst: u64, value: u8, bytes: usize) -> Result<()> {
        // SAFETY: the range was bounds-checked against a live, mutably borrowed allocation.
        unsafe { std::ptr::write_bytes(dst as *mut u8, value, bytes) };
        Ok(())
    }

    fn new_stream(&self) -> Result<Arc<dyn BackendStream>> {
        Ok(Arc::new(CpuStream))
    }

    fn load_module(&self, image: &ModuleImage) -> Result<Arc<dyn BackendModule>> {
        Err(Error::unsupported(
            format!("loading a {} module", image.kind_name()),
            "cpu (CPU code is plain Rust in each library)",
        ))
    }
}
