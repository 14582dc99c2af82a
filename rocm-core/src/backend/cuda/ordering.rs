//! Stream-ordered memory on CUDA devices: every allocation comes from the device's
//! memory pool (`cuMemAllocFromPoolAsync`) on a stream and is zeroed there, and every
//! free is queued (`cuMemFreeAsync`) after the work that may still use the memory, so
//! neither waits on the host nor synchronises the device.
//!
//! Allocations without a stream (`Device::alloc`) are made on a private allocation
//! stream. A fence event recorded there after each one makes every other stream wait
//! for it before its next operation (a generation counter says whether a stream has
//! waited for the latest fence, so the wait is queued at most once per allocation).
//! A free on its allocation's home stream is first ordered after every other stream
//! that has queued work since its last fence into that home stream (an event recorded
//! on each, waited for by the home stream). While a stream captures a graph, frees of
//! memory that was not allocated in the capture are handed to the graph, which frees
//! them when it is dropped: its replays may use that memory.

use super::err;
use crate::backend::PoolStats;
use crate::{Error, Result};
use cudarc::driver::{sys, CudaContext, CudaEvent, CudaStream};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering as AtomicOrdering};
use std::sync::{Arc, Mutex, MutexGuard, Weak};

/// Locks `m`, taking over the state a panicking holder left behind.
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// One stream and what the ordering needs to know about it.
#[derive(Debug)]
pub(super) struct StreamState {
    pub stream: Arc<CudaStream>,
    /// Unique for the life of the process (pointers are reused, these are not).
    id: u64,
    /// The fence generation this stream has waited for.
    seen: AtomicU64,
    /// Operations queued on this stream, to tell which streams a free must wait for.
    ops: AtomicU64,
    /// For frees homed on this stream: each other stream's `ops` at its last fence
    /// into this one.
    fenced: Mutex<Vec<(u64, u64)>>,
    /// Recorded on this stream when a free homed elsewhere must wait for its work.
    mark: CudaEvent,
    pub capturing: AtomicBool,
}

impl StreamState {
    fn new(ctx: &Arc<CudaContext>) -> Result<Self> {
        static NEXT_ID: AtomicU64 = AtomicU64::new(1);
        Ok(StreamState {
            stream: ctx.new_stream().map_err(|e| err("cuStreamCreate", e))?,
            id: NEXT_ID.fetch_add(1, AtomicOrdering::Relaxed),
            seen: AtomicU64::new(0),
            ops: AtomicU64::new(0),
            fenced: Mutex::new(Vec::new()),
            mark: ctx
                .new_event(Some(sys::CUevent_flags::CU_EVENT_DISABLE_TIMING))
                .map_err(|e| err("cuEventCreate", e))?,
            capturing: AtomicBool::new(false),
        })
    }

    pub fn cu_stream(&self) -> sys::CUstream {
        self.stream.cu_stream()
    }
}

/// Which stream captures a graph, and the frees deferred until its graph is gone.
#[derive(Debug, Default)]
struct Capture {
    stream: Option<u64>,
    deferred: Vec<RawBlock>,
}

/// Device memory from the pool: address, size, and the stream its free is queued on.
#[derive(Debug)]
pub(super) struct RawBlock {
    ptr: sys::CUdeviceptr,
    home: Arc<StreamState>,
}

/// The stream-ordered allocation state of one device.
#[derive(Debug)]
pub(super) struct Ordering {
    ctx: Arc<CudaContext>,
    pool: sys::CUmemoryPool,
    release_threshold: u64,
    /// Where allocations without a stream are made, zeroed and freed.
    alloc_stream: Arc<StreamState>,
    /// Recorded on `alloc_stream` after the latest allocation there.
    fence: CudaEvent,
    generation: AtomicU64,
    fence_lock: Mutex<()>,
    streams: Mutex<Vec<Weak<StreamState>>>,
    capture: Mutex<Capture>,
}

// SAFETY: the pool handle is a driver object usable from any thread once the context
// is bound; every other field is Send + Sync.
unsafe impl Send for Ordering {}
// SAFETY: as above; the driver synchronises access to the pool.
unsafe impl Sync for Ordering {}

impl Ordering {
    pub fn new(ctx: &Arc<CudaContext>, total_memory: u64) -> Result<Arc<Self>> {
        ctx.bind_to_thread()
            .map_err(|e| err("cuCtxSetCurrent", e))?;
        let mut pool: sys::CUmemoryPool = std::ptr::null_mut();
        // SAFETY: `pool` is a valid out pointer; the device belongs to the bound context.
        unsafe { sys::cuDeviceGetDefaultMemPool(&mut pool, ctx.cu_device()) }
            .result()
            .map_err(|e| err("cuDeviceGetDefaultMemPool", e))?;
        // Keep up to an eighth of the device cached between synchronisations (the
        // default, 0, hands freed memory back at every synchronisation, and the next
        // allocation pays the driver again).
        let mut release_threshold = total_memory / 8;
        // SAFETY: the attribute takes a u64 by pointer, which lives across the call.
        unsafe {
            sys::cuMemPoolSetAttribute(
                pool,
                sys::CUmemPool_attribute::CU_MEMPOOL_ATTR_RELEASE_THRESHOLD,
                (&mut release_threshold as *mut u64).cast(),
            )
        }
        .result()
        .map_err(|e| err("cuMemPoolSetAttribute", e))?;
        Ok(Arc::new(Ordering {
            ctx: ctx.clone(),
            pool,
            release_threshold,
            alloc_stream: Arc::new(StreamState::new(ctx)?),
            fence: ctx
                .new_event(Some(sys::CUevent_flags::CU_EVENT_DISABLE_TIMING))
                .map_err(|e| err("cuEventCreate", e))?,
            generation: AtomicU64::new(0),
            fence_lock: Mutex::new(()),
            streams: Mutex::new(Vec::new()),
            capture: Mutex::new(Capture::default()),
        }))
    }

    /// A new stream, known to the ordering.
    pub fn new_stream(&self) -> Result<Arc<StreamState>> {
        let s = Arc::new(StreamState::new(&self.ctx)?);
        let mut streams = lock(&self.streams);
        streams.retain(|w| w.strong_count() > 0);
        streams.push(Arc::downgrade(&s));
        Ok(s)
    }

    /// Called before every operation queued on `s`: makes it wait for the latest
    /// allocation made without a stream, and counts the operation.
    pub fn before_op(&self, s: &StreamState) -> Result<()> {
        if s.seen.load(AtomicOrdering::Acquire) < self.generation.load(AtomicOrdering::Acquire) {
            let _fence = lock(&self.fence_lock);
            if s.capturing.load(AtomicOrdering::Acquire) {
                return Err(Error::not_capturable(
                    "work on memory from Device::alloc made after the capture began",
                    "allocate with Stream::alloc on the capturing stream",
                ));
            }
            let generation = self.generation.load(AtomicOrdering::Acquire);
            s.stream
                .wait(&self.fence)
                .map_err(|e| err("cuStreamWaitEvent", e))?;
            s.seen.store(generation, AtomicOrdering::Release);
        }
        s.ops.fetch_add(1, AtomicOrdering::Relaxed);
        Ok(())
    }

    /// `bytes` zeroed bytes, allocated and zeroed on `home` (the allocation stream when
    /// `None`, after which every other stream waits for it).
    pub fn alloc(
        self: &Arc<Self>,
        home: Option<&Arc<StreamState>>,
        bytes: usize,
        device: &str,
    ) -> Result<PoolBlock> {
        let capture = lock(&self.capture);
        let in_capture = match (home, capture.stream) {
            (None, Some(_)) => {
                return Err(Error::not_capturable(
                    "Device::alloc",
                    "a stream of this device is capturing a graph; allocate with \
                     Stream::alloc on the capturing stream",
                ))
            }
            (Some(h), Some(id)) => h.id == id,
            _ => false,
        };
        drop(capture);
        if bytes == 0 {
            return Ok(PoolBlock {
                raw: None,
                bytes,
                in_capture,
                ordering: self.clone(),
            });
        }
        let stream = match home {
            Some(h) => {
                self.before_op(h)?;
                h
            }
            None => &self.alloc_stream,
        };
        self.ctx
            .bind_to_thread()
            .map_err(|e| err("cuCtxSetCurrent", e))?;
        let mut ptr: sys::CUdeviceptr = 0;
        // SAFETY: `ptr` is a valid out pointer; the pool and stream belong to the bound
        // context.
        let mut code =
            unsafe { sys::cuMemAllocFromPoolAsync(&mut ptr, bytes, self.pool, stream.cu_stream()) };
        if code == sys::CUresult::CUDA_ERROR_OUT_OF_MEMORY && !in_capture {
            // Cached memory of other streams may be what is missing: hand it back and
            // try once more (this waits for the device, as running out of memory may).
            let _ = self.ctx.synchronize();
            // SAFETY: trims unused cached memory of a live pool.
            let _ = unsafe { sys::cuMemPoolTrimTo(self.pool, 0) };
            // SAFETY: as above.
            code = unsafe {
                sys::cuMemAllocFromPoolAsync(&mut ptr, bytes, self.pool, stream.cu_stream())
            };
        }
        if code == sys::CUresult::CUDA_ERROR_OUT_OF_MEMORY {
            return Err(Error::OutOfMemory {
                device: device.into(),
                bytes,
            });
        }
        code.result()
            .map_err(|e| err("cuMemAllocFromPoolAsync", e))?;
        let block = PoolBlock {
            raw: Some(RawBlock {
                ptr,
                home: stream.clone(),
            }),
            bytes,
            in_capture,
            ordering: self.clone(),
        };
        // SAFETY: [ptr, ptr + bytes) was just allocated, ordered on `stream`.
        unsafe { sys::cuMemsetD8Async(ptr, 0, bytes, stream.cu_stream()) }
            .result()
            .map_err(|e| err("cuMemsetD8Async", e))?;
        if home.is_none() {
            let _fence = lock(&self.fence_lock);
            self.fence
                .record(&self.alloc_stream.stream)
                .map_err(|e| err("cuEventRecord", e))?;
            self.generation.fetch_add(1, AtomicOrdering::AcqRel);
        }
        Ok(block)
    }

    /// Queues the free of `raw` after all the device's work queued so far that may use
    /// it, or hands it to the graph being captured.
    fn free(&self, raw: RawBlock, in_capture: bool) {
        let mut capture = lock(&self.capture);
        if capture.stream.is_some() {
            if in_capture {
                // Allocated in this capture: the free becomes part of the graph too.
                // SAFETY: `ptr` came from the pool and is freed once; the free is
                // ordered on the capturing stream after the captured work using it.
                let _ = unsafe { sys::cuMemFreeAsync(raw.ptr, raw.home.cu_stream()) };
            } else {
                capture.deferred.push(raw);
            }
            return;
        }
        drop(capture);
        let _ = self.release(raw);
    }

    fn release(&self, raw: RawBlock) -> Result<()> {
        self.ctx
            .bind_to_thread()
            .map_err(|e| err("cuCtxSetCurrent", e))?;
        let home = &raw.home;
        let others: Vec<Arc<StreamState>> = lock(&self.streams)
            .iter()
            .filter_map(Weak::upgrade)
            .filter(|s| s.id != home.id)
            .collect();
        let mut fenced = lock(&home.fenced);
        fenced.retain(|(id, _)| others.iter().any(|s| s.id == *id));
        for s in &others {
            let ops = s.ops.load(AtomicOrdering::Acquire);
            let last = fenced.iter_mut().find(|(id, _)| *id == s.id);
            if last.as_ref().is_some_and(|(_, o)| *o == ops) || ops == 0 {
                continue;
            }
            s.mark
                .record(&s.stream)
                .map_err(|e| err("cuEventRecord", e))?;
            home.stream
                .wait(&s.mark)
                .map_err(|e| err("cuStreamWaitEvent", e))?;
            match last {
                Some(entry) => entry.1 = ops,
                None => fenced.push((s.id, ops)),
            }
        }
        // SAFETY: `ptr` came from the pool and is freed once, ordered after every
        // stream's work queued before this call (the waits above).
        unsafe { sys::cuMemFreeAsync(raw.ptr, home.cu_stream()) }
            .result()
            .map_err(|e| err("cuMemFreeAsync", e))
    }

    /// Starts capturing on `s` (one capture per device at a time).
    pub fn begin_capture(&self, s: &StreamState, device: &str) -> Result<()> {
        let mut capture = lock(&self.capture);
        if capture.stream.is_some() {
            return Err(Error::invalid(
                "capture",
                format!("another stream of {device} is already capturing a graph"),
            ));
        }
        // Wait for earlier allocations now: a captured wait on an event recorded outside
        // the capture is not allowed.
        self.before_op(s)?;
        // SAFETY: a live stream of the bound context.
        unsafe {
            sys::cuStreamBeginCapture_v2(
                s.cu_stream(),
                sys::CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_RELAXED,
            )
        }
        .result()
        .map_err(|e| err("cuStreamBeginCapture", e))?;
        s.capturing.store(true, AtomicOrdering::Release);
        capture.stream = Some(s.id);
        Ok(())
    }

    /// Ends the capture on `s`: the recorded graph and the frees deferred during it.
    pub fn end_capture(
        &self,
        s: &StreamState,
    ) -> Result<(std::result::Result<sys::CUgraph, Error>, Vec<RawBlock>)> {
        let mut capture = lock(&self.capture);
        if capture.stream != Some(s.id) {
            return Err(Error::invalid("capture", "this stream is not capturing"));
        }
        let mut graph: sys::CUgraph = std::ptr::null_mut();
        // SAFETY: the stream is capturing (checked above); `graph` is a valid out pointer.
        let code = unsafe { sys::cuStreamEndCapture(s.cu_stream(), &mut graph) };
        s.capturing.store(false, AtomicOrdering::Release);
        capture.stream = None;
        let deferred = std::mem::take(&mut capture.deferred);
        let graph = code
            .result()
            .map(|()| graph)
            .map_err(|e| capture_error("cuStreamEndCapture", e));
        Ok((graph, deferred))
    }

    /// Frees blocks a graph held (its replays are done).
    pub fn release_all(&self, blocks: Vec<RawBlock>) {
        for b in blocks {
            let _ = self.release(b);
        }
    }

    pub fn stats(&self) -> Option<PoolStats> {
        let get = |attr| {
            let mut v = 0u64;
            // SAFETY: these attributes are u64 values written through the pointer.
            let code =
                unsafe { sys::cuMemPoolGetAttribute(self.pool, attr, (&mut v as *mut u64).cast()) };
            code.result().ok().map(|()| v)
        };
        use sys::CUmemPool_attribute::*;
        Some(PoolStats {
            used: get(CU_MEMPOOL_ATTR_USED_MEM_CURRENT)?,
            reserved: get(CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT)?,
            release_threshold: self.release_threshold,
        })
    }
}

/// A driver error of a capture, as [`Error::NotCapturable`] where the driver says the
/// capture was broken by an operation that cannot be captured.
pub(super) fn capture_error(api: &str, e: cudarc::driver::DriverError) -> Error {
    use sys::CUresult::*;
    match e.0 {
        CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED
        | CUDA_ERROR_STREAM_CAPTURE_INVALIDATED
        | CUDA_ERROR_STREAM_CAPTURE_ISOLATION
        | CUDA_ERROR_STREAM_CAPTURE_IMPLICIT => Error::not_capturable(
            api,
            format!(
                "the driver broke off the capture ({e}): an operation in it cannot be captured"
            ),
        ),
        _ => err(api, e),
    }
}

/// A pool allocation; its free is queued on drop.
#[derive(Debug)]
pub(super) struct PoolBlock {
    raw: Option<RawBlock>,
    bytes: usize,
    in_capture: bool,
    ordering: Arc<Ordering>,
}

impl PoolBlock {
    pub fn address(&self) -> u64 {
        self.raw.as_ref().map_or(0, |r| r.ptr)
    }
    pub fn bytes(&self) -> usize {
        self.bytes
    }
}

impl Drop for PoolBlock {
    fn drop(&mut self) {
        if let Some(raw) = self.raw.take() {
            self.ordering.free(raw, self.in_capture);
        }
    }
}
