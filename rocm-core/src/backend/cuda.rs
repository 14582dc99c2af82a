//! NVIDIA devices through cudarc's driver API, loaded dynamically: the build needs no
//! CUDA, and a machine without a driver simply has no `cuda:N` devices.

mod graph;
mod ordering;
mod staging;

use super::{
    downcast_stream, Allocation, Backend, BackendEvent, BackendGraph, BackendKernel, BackendModule,
    BackendStream, CopyStaging, HostMemory, PoolStats,
};
use crate::module::{KernelArgs, LaunchConfig, ModuleImage};
use crate::tensor_map::{TensorMap, TensorMapDesc, TensorMapSwizzle};
use crate::{Arch, DType, Device, DeviceInfo, Error, Result, Target};
use cudarc::driver::{result, sys, CudaContext, CudaEvent, DriverError};
use ordering::{Ordering, PoolBlock, StreamState};
use staging::{PinnedHost, Staging};
use std::any::Any;
use std::ffi::{c_void, CString};
use std::sync::{Arc, Mutex, OnceLock};

fn err(api: &str, e: DriverError) -> Error {
    Error::backend(api, e.0 as i64, e.to_string())
}

/// Whether the driver library loads and initialises.
fn driver_ready() -> bool {
    static READY: OnceLock<bool> = OnceLock::new();
    *READY.get_or_init(|| {
        // SAFETY: only probes whether the library can be loaded.
        let present = unsafe { sys::is_culib_present() };
        present && result::init().is_ok()
    })
}

/// Number of CUDA devices (0 without a driver).
pub fn device_count() -> usize {
    if !driver_ready() {
        return 0;
    }
    result::device::get_count()
        .map(|n| n.max(0) as usize)
        .unwrap_or(0)
}

/// Properties of every CUDA device.
pub fn enumerate() -> Vec<DeviceInfo> {
    (0..device_count())
        .filter_map(|i| open(i).ok().map(|d| d.info().clone()))
        .collect()
}

/// Opens `cuda:ordinal`; the same handle is returned on every call.
pub fn open(ordinal: usize) -> Result<Device> {
    static OPEN: OnceLock<Mutex<Vec<Option<Device>>>> = OnceLock::new();
    if ordinal >= device_count() {
        return Err(Error::DeviceNotFound {
            requested: format!("cuda:{ordinal}"),
            available: crate::device::available_names(),
        });
    }
    let cache = OPEN.get_or_init(|| Mutex::new(Vec::new()));
    let mut cache = cache.lock().unwrap_or_else(|p| p.into_inner());
    if cache.len() <= ordinal {
        cache.resize(ordinal + 1, None);
    }
    if let Some(d) = &cache[ordinal] {
        return Ok(d.clone());
    }
    let dev = Device::from_backend(Arc::new(CudaBackend::new(ordinal)?));
    cache[ordinal] = Some(dev.clone());
    Ok(dev)
}

#[derive(Debug)]
pub struct CudaBackend {
    ctx: Arc<CudaContext>,
    info: DeviceInfo,
    /// Page-locked bounce buffer for small reads (allocated on first use), see
    /// [`PinnedStaging`].
    staging: Mutex<Option<PinnedStaging>>,
    /// Page-locked chunks for large pageable copies (allocated on first use).
    chunks: Mutex<Option<Staging>>,
    chunk_config: Mutex<CopyStaging>,
    ordering: Arc<Ordering>,
    /// Whether `alloc` takes memory from the stream-ordered pool (the default), or,
    /// with `ROCM_CUDA_POOL=0`, allocates and frees synchronously (cuMemAlloc, a
    /// zeroing memset and a context synchronisation; cuMemFree after another).
    pooled: bool,
}

/// Reads of at most this many bytes go through [`PinnedStaging`].
const STAGING_BYTES: usize = 4096;

/// A page-locked host buffer of [`STAGING_BYTES`]. A read into pageable memory makes the
/// driver stage it through its own pinned memory and block inside the copy call; small
/// reads (a reduction's result in host pointer mode, on every call) go straight into
/// this buffer instead and are copied out after the stream is synchronised.
#[derive(Debug)]
struct PinnedStaging {
    ptr: *mut u8,
    ctx: Arc<CudaContext>,
}

// SAFETY: the buffer is plain host memory owned by this value; every access goes through
// the backend's mutex, so one thread at a time uses it.
unsafe impl Send for PinnedStaging {}

impl PinnedStaging {
    fn new(ctx: &Arc<CudaContext>) -> Result<Self> {
        // SAFETY: allocates STAGING_BYTES of page-locked memory in the bound context (the
        // caller bound it); the pointer is freed once, in Drop.
        let ptr = unsafe { result::malloc_host(STAGING_BYTES, 0) }
            .map_err(|e| err("cuMemHostAlloc", e))?;
        Ok(PinnedStaging {
            ptr: ptr.cast(),
            ctx: ctx.clone(),
        })
    }
}

impl Drop for PinnedStaging {
    fn drop(&mut self) {
        if self.ctx.bind_to_thread().is_ok() {
            // SAFETY: `ptr` came from cuMemHostAlloc and is freed once; reads through it
            // synchronise before they return, so no copy is in flight.
            let _ = unsafe { result::free_host(self.ptr.cast()) };
        }
    }
}

impl CudaBackend {
    fn new(ordinal: usize) -> Result<Self> {
        let ctx = CudaContext::new(ordinal).map_err(|e| err("cuCtxCreate", e))?;
        let attr = |a| ctx.attribute(a).map_err(|e| err("cuDeviceGetAttribute", e));
        use sys::CUdevice_attribute::*;
        let (major, minor) = (
            attr(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR)?,
            attr(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR)?,
        );
        let arch = Arch::from_compute_capability(major, minor).ok_or_else(|| {
            Error::unsupported(
                format!("compute capability {major}.{minor}"),
                format!("cuda:{ordinal} (rocm-rs targets sm_80 and newer)"),
            )
        })?;
        let info = DeviceInfo {
            id: format!("cuda:{ordinal}"),
            name: ctx.name().map_err(|e| err("cuDeviceGetName", e))?,
            target: Target::new(arch),
            total_memory: ctx.total_mem().map_err(|e| err("cuDeviceTotalMem", e))? as u64,
            compute_units: attr(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)? as u32,
            clock_mhz: attr(CU_DEVICE_ATTRIBUTE_CLOCK_RATE)
                .ok()
                .map(|khz| (khz / 1000) as u32),
        };
        let ordering = Ordering::new(&ctx, info.total_memory)?;
        Ok(CudaBackend {
            ctx,
            info,
            staging: Mutex::new(None),
            chunks: Mutex::new(None),
            chunk_config: Mutex::new(staging::DEFAULT_STAGING),
            ordering,
            pooled: std::env::var("ROCM_CUDA_POOL").map_or(true, |v| v != "0"),
        })
    }

    fn bind(&self) -> Result<()> {
        self.ctx
            .bind_to_thread()
            .map_err(|e| err("cuCtxSetCurrent", e))
    }

    fn stream<'a>(&self, s: &'a dyn BackendStream) -> Result<&'a CudaStreamHandle> {
        downcast_stream::<CudaStreamHandle>(s, &self.info.id)
    }

    /// A synchronous host copy cannot be captured: the error that says so.
    fn host_copy_in_capture(s: &CudaStreamHandle, what: &str) -> Result<()> {
        if s.is_capturing() {
            return Err(Error::not_capturable(
                format!("a {what} with pageable host memory"),
                "copy through a PinnedBuffer (upload_async / download_async)",
            ));
        }
        Ok(())
    }

    /// Runs `f` with the large-copy staging chunks, or returns `None` when another
    /// thread holds them (the caller then lets the driver stage).
    fn with_chunks<R>(&self, f: impl FnOnce(&Staging) -> Result<R>) -> Option<Result<R>> {
        let mut chunks = self.chunks.try_lock().ok()?;
        if chunks.is_none() {
            let config = *self.chunk_config.lock().unwrap_or_else(|p| p.into_inner());
            match Staging::new(&self.ctx, config, &self.info.id) {
                Ok(s) => *chunks = Some(s),
                Err(e) => return Some(Err(e)),
            }
        }
        chunks.as_ref().map(f)
    }
}

/// Memory from `cuMemAlloc`, freed synchronously (`ROCM_CUDA_POOL=0`).
#[derive(Debug)]
struct CudaAllocation {
    ptr: sys::CUdeviceptr,
    bytes: usize,
    ctx: Arc<CudaContext>,
}

impl Allocation for PoolBlock {
    fn address(&self) -> u64 {
        PoolBlock::address(self)
    }
    fn bytes(&self) -> usize {
        PoolBlock::bytes(self)
    }
}

impl Drop for CudaAllocation {
    fn drop(&mut self) {
        if self.bytes == 0 {
            return;
        }
        // Work still queued on a non-blocking stream may use the memory: wait for the
        // device before freeing, so an early drop can never become a use-after-free.
        if self.ctx.bind_to_thread().is_ok() && self.ctx.synchronize().is_ok() {
            // SAFETY: `ptr` came from cuMemAlloc in this context, is freed once, and no
            // queued work can still reach it (synchronised above).
            let _ = unsafe { result::free_sync(self.ptr) };
        }
    }
}

impl Allocation for CudaAllocation {
    fn address(&self) -> u64 {
        self.ptr
    }
    fn bytes(&self) -> usize {
        self.bytes
    }
}

#[derive(Debug)]
pub struct CudaStreamHandle {
    state: Arc<StreamState>,
    ordering: Arc<Ordering>,
}

impl CudaStreamHandle {
    /// Orders the stream after allocations it has not waited for yet; called before
    /// every operation queued on it.
    fn ready(&self) -> Result<()> {
        self.ordering.before_op(&self.state)
    }

    fn cu_stream(&self) -> sys::CUstream {
        self.state.cu_stream()
    }
}

impl BackendStream for CudaStreamHandle {
    fn synchronize(&self) -> Result<()> {
        if self.is_capturing() {
            return Err(Error::not_capturable(
                "Stream::synchronize",
                "a capturing stream runs nothing until its graph is launched",
            ));
        }
        self.state
            .stream
            .synchronize()
            .map_err(|e| err("cuStreamSynchronize", e))
    }
    fn record_event(&self) -> Result<Box<dyn BackendEvent>> {
        let ev = self
            .state
            .stream
            .record_event(Some(sys::CUevent_flags::CU_EVENT_DEFAULT))
            .map_err(|e| err("cuEventRecord", e))?;
        Ok(Box::new(CudaEventHandle(ev)))
    }
    fn wait_event(&self, event: &dyn BackendEvent) -> Result<()> {
        let event = event
            .as_any()
            .downcast_ref::<CudaEventHandle>()
            .ok_or_else(|| Error::invalid("event", "the event is not from a CUDA device"))?;
        self.ready()?;
        self.state
            .stream
            .wait(&event.0)
            .map_err(|e| err("cuStreamWaitEvent", e))
    }
    fn is_capturing(&self) -> bool {
        self.state
            .capturing
            .load(std::sync::atomic::Ordering::Acquire)
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}

#[derive(Debug)]
struct CudaEventHandle(CudaEvent);

impl BackendEvent for CudaEventHandle {
    fn synchronize(&self) -> Result<()> {
        self.0
            .synchronize()
            .map_err(|e| err("cuEventSynchronize", e))
    }
    fn elapsed_ms(&self, later: &dyn BackendEvent) -> Result<f32> {
        let later = later
            .as_any()
            .downcast_ref::<CudaEventHandle>()
            .ok_or_else(|| Error::invalid("event", "events are from different devices"))?;
        self.0
            .elapsed_ms(&later.0)
            .map_err(|e| err("cuEventElapsedTime", e))
    }
    fn query(&self) -> Result<bool> {
        self.0.try_is_complete().map_err(|e| err("cuEventQuery", e))
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}

impl Backend for CudaBackend {
    fn encode_tensor_map(&self, desc: &TensorMapDesc) -> Result<TensorMap> {
        use sys::CUtensorMapDataType::*;
        let dtype = match desc.dtype {
            DType::F16 => CU_TENSOR_MAP_DATA_TYPE_FLOAT16,
            DType::Bf16 => CU_TENSOR_MAP_DATA_TYPE_BFLOAT16,
            DType::F32 => CU_TENSOR_MAP_DATA_TYPE_FLOAT32,
            DType::F64 => CU_TENSOR_MAP_DATA_TYPE_FLOAT64,
            DType::U8 => CU_TENSOR_MAP_DATA_TYPE_UINT8,
            DType::I32 => CU_TENSOR_MAP_DATA_TYPE_INT32,
            other => {
                return Err(Error::unsupported(
                    format!("tensor maps of {other}"),
                    &self.info.id,
                ))
            }
        };
        let swizzle = match desc.swizzle {
            TensorMapSwizzle::None => sys::CUtensorMapSwizzle::CU_TENSOR_MAP_SWIZZLE_NONE,
            TensorMapSwizzle::Bytes128 => sys::CUtensorMapSwizzle::CU_TENSOR_MAP_SWIZZLE_128B,
        };
        let rank = desc.dims.len();
        let element_strides = vec![1u32; rank];
        let mut map = std::mem::MaybeUninit::<sys::CUtensorMap>::zeroed();
        // SAFETY: every array holds `rank` entries (strides rank - 1), as the validated
        // description guarantees; the driver only encodes (it reads no device memory)
        // and writes the 128-byte map.
        let code = unsafe {
            sys::cuTensorMapEncodeTiled(
                map.as_mut_ptr(),
                dtype,
                rank as u32,
                desc.address as *mut c_void,
                desc.dims.as_ptr(),
                desc.strides.as_ptr(),
                desc.box_dims.as_ptr(),
                element_strides.as_ptr(),
                sys::CUtensorMapInterleave::CU_TENSOR_MAP_INTERLEAVE_NONE,
                swizzle,
                sys::CUtensorMapL2promotion::CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                sys::CUtensorMapFloatOOBfill::CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE,
            )
        };
        code.result()
            .map_err(|e| err("cuTensorMapEncodeTiled", e))?;
        // SAFETY: the driver wrote the map (the call succeeded); it was zeroed before.
        let map = unsafe { map.assume_init() };
        let mut bytes = [0u8; 128];
        for (chunk, word) in bytes.chunks_exact_mut(8).zip(map.opaque.iter()) {
            chunk.copy_from_slice(&word.to_le_bytes());
        }
        Ok(TensorMap(bytes))
    }

    fn info(&self) -> &DeviceInfo {
        &self.info
    }

    fn alloc(&self, bytes: usize) -> Result<Box<dyn Allocation>> {
        if self.pooled {
            return Ok(Box::new(self.ordering.alloc(None, bytes, &self.info.id)?));
        }
        let ctx = self.ctx.clone();
        if bytes == 0 {
            return Ok(Box::new(CudaAllocation { ptr: 0, bytes, ctx }));
        }
        self.bind()?;
        // SAFETY: plain allocation in the bound context.
        let ptr = unsafe { result::malloc_sync(bytes) }.map_err(|e| {
            if e.0 == sys::CUresult::CUDA_ERROR_OUT_OF_MEMORY {
                Error::OutOfMemory {
                    device: self.info.id.clone(),
                    bytes,
                }
            } else {
                err("cuMemAlloc", e)
            }
        })?;
        let alloc = CudaAllocation { ptr, bytes, ctx };
        // SAFETY: [ptr, ptr + bytes) was just allocated.
        unsafe { result::memset_d8_sync(ptr, 0, bytes) }.map_err(|e| err("cuMemsetD8", e))?;
        // cuMemsetD8 is queued on the legacy stream, which our non-blocking streams do
        // not wait for: finish it before the buffer is handed out, or a later upload on
        // another stream could land first and be zeroed.
        self.ctx
            .synchronize()
            .map_err(|e| err("cuCtxSynchronize", e))?;
        Ok(Box::new(alloc))
    }

    fn write(&self, stream: &dyn BackendStream, dst: u64, src: &[u8]) -> Result<()> {
        let s = self.stream(stream)?;
        Self::host_copy_in_capture(s, "host-to-device copy")?;
        s.ready()?;
        self.bind()?;
        if src.len() >= staging::STAGED_MIN_BYTES {
            if let Some(done) = self.with_chunks(|c| c.write(&s.state.stream, dst, src)) {
                return done;
            }
        }
        // SAFETY: the front end checked [dst, dst + len) is inside a live allocation of this
        // device; we synchronise before returning, so `src` outlives the copy.
        unsafe { result::memcpy_htod_async(dst, src, s.cu_stream()) }
            .map_err(|e| err("cuMemcpyHtoDAsync", e))?;
        s.synchronize()
    }

    fn read(&self, stream: &dyn BackendStream, src: u64, dst: &mut [u8]) -> Result<()> {
        let s = self.stream(stream)?;
        Self::host_copy_in_capture(s, "device-to-host copy")?;
        s.ready()?;
        self.bind()?;
        if dst.len() >= staging::STAGED_MIN_BYTES {
            if let Some(done) = self.with_chunks(|c| c.read(&s.state.stream, src, dst)) {
                return done;
            }
        }
        if dst.len() <= STAGING_BYTES {
            let mut staging = self.staging.lock().unwrap_or_else(|p| p.into_inner());
            if staging.is_none() {
                *staging = Some(PinnedStaging::new(&self.ctx)?);
            }
            if let Some(pinned) = staging.as_ref() {
                // SAFETY: `pinned.ptr` holds STAGING_BYTES >= dst.len() bytes of host memory
                // that only this thread touches while it holds the lock.
                let bounce = unsafe { std::slice::from_raw_parts_mut(pinned.ptr, dst.len()) };
                // SAFETY: as in `write`; the copy into `bounce` completes at the
                // synchronisation below, before the lock is released.
                unsafe { result::memcpy_dtoh_async(&mut *bounce, src, s.cu_stream()) }
                    .map_err(|e| err("cuMemcpyDtoHAsync", e))?;
                s.synchronize()?;
                dst.copy_from_slice(bounce);
                return Ok(());
            }
        }
        // SAFETY: as in `write`; `dst` is filled before we return.
        unsafe { result::memcpy_dtoh_async(dst, src, s.cu_stream()) }
            .map_err(|e| err("cuMemcpyDtoHAsync", e))?;
        s.synchronize()
    }

    fn copy(&self, stream: &dyn BackendStream, dst: u64, src: u64, bytes: usize) -> Result<()> {
        let s = self.stream(stream)?;
        s.ready()?;
        self.bind()?;
        // SAFETY: both ranges were checked against live allocations of this device.
        unsafe { result::memcpy_dtod_async(dst, src, bytes, s.cu_stream()) }
            .map_err(|e| err("cuMemcpyDtoDAsync", e))
    }

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
        let s = self.stream(stream)?;
        s.ready()?;
        self.bind()?;
        let copy = sys::CUDA_MEMCPY2D_st {
            srcXInBytes: 0,
            srcY: 0,
            srcMemoryType: sys::CUmemorytype::CU_MEMORYTYPE_DEVICE,
            srcHost: std::ptr::null(),
            srcDevice: src,
            srcArray: std::ptr::null_mut(),
            srcPitch: src_pitch,
            dstXInBytes: 0,
            dstY: 0,
            dstMemoryType: sys::CUmemorytype::CU_MEMORYTYPE_DEVICE,
            dstHost: std::ptr::null_mut(),
            dstDevice: dst,
            dstArray: std::ptr::null_mut(),
            dstPitch: dst_pitch,
            WidthInBytes: width,
            Height: height,
        };
        // SAFETY: the caller guarantees every row range lies inside live allocations of
        // this device; the descriptor lives until the call returns (the driver copies it).
        let code = unsafe { sys::cuMemcpy2DAsync_v2(&copy, s.cu_stream()) };
        code.result().map_err(|e| err("cuMemcpy2DAsync", e))
    }

    fn fill_bytes(
        &self,
        stream: &dyn BackendStream,
        dst: u64,
        value: u8,
        bytes: usize,
    ) -> Result<()> {
        let s = self.stream(stream)?;
        s.ready()?;
        self.bind()?;
        // SAFETY: the range was checked against a live allocation of this device.
        unsafe { result::memset_d8_async(dst, value, bytes, s.cu_stream()) }
            .map_err(|e| err("cuMemsetD8Async", e))
    }

    fn new_stream(&self) -> Result<Arc<dyn BackendStream>> {
        Ok(Arc::new(CudaStreamHandle {
            state: self.ordering.new_stream()?,
            ordering: self.ordering.clone(),
        }))
    }

    fn alloc_host(&self, bytes: usize) -> Result<Box<dyn HostMemory>> {
        Ok(Box::new(PinnedHost::new(&self.ctx, bytes, &self.info.id)?))
    }

    unsafe fn write_async(
        &self,
        stream: &dyn BackendStream,
        dst: u64,
        src: *const u8,
        len: usize,
    ) -> Result<()> {
        let s = self.stream(stream)?;
        s.ready()?;
        self.bind()?;
        // SAFETY: the device range was checked by the front end; the caller keeps the
        // page-locked source alive and unwritten until the stream has run the copy.
        unsafe { sys::cuMemcpyHtoDAsync_v2(dst, src.cast(), len, s.cu_stream()) }
            .result()
            .map_err(|e| err("cuMemcpyHtoDAsync", e))
    }

    unsafe fn read_async(
        &self,
        stream: &dyn BackendStream,
        src: u64,
        dst: *mut u8,
        len: usize,
    ) -> Result<()> {
        let s = self.stream(stream)?;
        s.ready()?;
        self.bind()?;
        // SAFETY: as in `write_async`; nothing touches the destination until the copy ran.
        unsafe { sys::cuMemcpyDtoHAsync_v2(dst.cast(), src, len, s.cu_stream()) }
            .result()
            .map_err(|e| err("cuMemcpyDtoHAsync", e))
    }

    fn alloc_on(&self, stream: &dyn BackendStream, bytes: usize) -> Result<Box<dyn Allocation>> {
        let s = self.stream(stream)?;
        Ok(Box::new(self.ordering.alloc(
            Some(&s.state),
            bytes,
            &self.info.id,
        )?))
    }

    fn pool_stats(&self) -> Option<PoolStats> {
        self.ordering.stats()
    }

    fn set_copy_staging(&self, config: CopyStaging) -> Result<()> {
        if config.chunk_bytes < 4096 || config.threads == 0 || config.threads > 64 {
            return Err(Error::invalid(
                "copy staging",
                format!(
                    "chunks of {} bytes over {} threads (at least 4096 bytes, 1 to 64 threads)",
                    config.chunk_bytes, config.threads
                ),
            ));
        }
        let mut chunks = self.chunks.lock().unwrap_or_else(|p| p.into_inner());
        *self.chunk_config.lock().unwrap_or_else(|p| p.into_inner()) = config;
        if chunks.as_ref().is_some_and(|c| c.config() != config) {
            *chunks = None;
        }
        Ok(())
    }

    fn begin_capture(&self, stream: &dyn BackendStream) -> Result<()> {
        let s = self.stream(stream)?;
        self.bind()?;
        self.ordering.begin_capture(&s.state, &self.info.id)
    }

    fn end_capture(&self, stream: &dyn BackendStream) -> Result<Box<dyn BackendGraph>> {
        let s = self.stream(stream)?;
        self.bind()?;
        let (graph, deferred) = self.ordering.end_capture(&s.state)?;
        match graph {
            Ok(g) => Ok(Box::new(graph::CudaGraph::new(
                g,
                deferred,
                self.ordering.clone(),
                self.ctx.clone(),
            )?)),
            Err(e) => {
                self.ordering.release_all(deferred);
                Err(e)
            }
        }
    }

    fn load_module(&self, image: &ModuleImage) -> Result<Arc<dyn BackendModule>> {
        let ModuleImage::Ptx(text) = image else {
            return Err(Error::unsupported(
                format!("loading a {} module", image.kind_name()),
                &self.info.id,
            ));
        };
        let c = CString::new(text.as_str())
            .map_err(|_| Error::invalid("PTX", "contains a NUL byte"))?;
        self.bind()?;
        // SAFETY: `c` is a NUL-terminated PTX image that lives across the call.
        let module = unsafe { result::module::load_data(c.as_ptr() as *const c_void) }
            .map_err(|e| err("cuModuleLoadData", e))?;
        Ok(Arc::new(CudaModuleHandle(Arc::new(RawModule {
            module,
            ctx: self.ctx.clone(),
        }))))
    }
}

/// A loaded CUmodule; unloaded when the module and all its kernels are dropped.
#[derive(Debug)]
struct RawModule {
    module: sys::CUmodule,
    ctx: Arc<CudaContext>,
}

// SAFETY: CUmodule handles may be used from any thread once the context is bound.
unsafe impl Send for RawModule {}
// SAFETY: as above; the driver synchronises access internally.
unsafe impl Sync for RawModule {}

impl Drop for RawModule {
    fn drop(&mut self) {
        if self.ctx.bind_to_thread().is_ok() {
            // SAFETY: loaded in `load_module`, unloaded once, after every kernel is gone.
            let _ = unsafe { result::module::unload(self.module) };
        }
    }
}

#[derive(Debug)]
struct CudaModuleHandle(Arc<RawModule>);

impl BackendModule for CudaModuleHandle {
    fn kernel(&self, name: &str) -> Result<Arc<dyn BackendKernel>> {
        let c =
            CString::new(name).map_err(|_| Error::invalid("kernel name", "contains a NUL byte"))?;
        self.0
            .ctx
            .bind_to_thread()
            .map_err(|e| err("cuCtxSetCurrent", e))?;
        // SAFETY: the module is loaded and `c` is NUL-terminated.
        let function = unsafe { result::module::get_function(self.0.module, c) }.map_err(|e| {
            Error::Module(format!("kernel `{name}` not found in the PTX module: {e}"))
        })?;
        Ok(Arc::new(CudaKernel {
            function,
            module: self.0.clone(),
        }))
    }
}

/// Kernel parameter counts up to this pass their pointer array on the stack.
const INLINE_PARAMS: usize = 32;

/// Shared memory a launch may request without the kernel opting in (48 KiB).
const STATIC_SHARED_BYTES: u32 = 48 * 1024;

#[derive(Debug)]
struct CudaKernel {
    function: sys::CUfunction,
    module: Arc<RawModule>,
}

// SAFETY: CUfunction handles may be used from any thread once the context is bound.
unsafe impl Send for CudaKernel {}
// SAFETY: as above.
unsafe impl Sync for CudaKernel {}

impl BackendKernel for CudaKernel {
    unsafe fn launch(
        &self,
        stream: &dyn BackendStream,
        config: &LaunchConfig,
        args: &KernelArgs,
    ) -> Result<()> {
        // SAFETY: forwarded from this function's contract.
        unsafe { self.launch_with(stream, config, args, false) }
    }

    unsafe fn launch_dependent(
        &self,
        stream: &dyn BackendStream,
        config: &LaunchConfig,
        args: &KernelArgs,
    ) -> Result<()> {
        // SAFETY: forwarded from this function's contract.
        unsafe { self.launch_with(stream, config, args, true) }
    }
}

impl CudaKernel {
    /// cuLaunchKernel, or with `dependent` cuLaunchKernelEx with programmatic stream
    /// serialisation allowed (the kernel may start before the stream's previous kernel
    /// ends, and waits for it with `griddepcontrol.wait`).
    ///
    /// # Safety
    /// As [`BackendKernel::launch`].
    unsafe fn launch_with(
        &self,
        stream: &dyn BackendStream,
        config: &LaunchConfig,
        args: &KernelArgs,
        dependent: bool,
    ) -> Result<()> {
        let s = downcast_stream::<CudaStreamHandle>(stream, "a CUDA device")?;
        s.ready()?;
        self.module
            .ctx
            .bind_to_thread()
            .map_err(|e| err("cuCtxSetCurrent", e))?;
        // cuLaunchKernel's kernelParams: one pointer per parameter, into the packed
        // block, which the driver only reads (kept on the stack for the usual counts).
        let base = args.packed().as_ptr();
        let slots = args.slots();
        let mut inline = [std::ptr::null_mut::<c_void>(); INLINE_PARAMS];
        let mut spilled = Vec::new();
        let params: &mut [*mut c_void] = if slots.len() <= INLINE_PARAMS {
            &mut inline[..slots.len()]
        } else {
            spilled.resize(slots.len(), std::ptr::null_mut());
            &mut spilled
        };
        for (p, slot) in params.iter_mut().zip(slots) {
            *p = base.wrapping_add(slot.offset) as *mut c_void;
        }
        let [gx, gy, gz] = config.grid;
        let [bx, by, bz] = config.block;
        if config.shared_bytes > STATIC_SHARED_BYTES {
            // Dynamic shared memory beyond 48 KiB needs the kernel's opt-in; the size was
            // checked against the device's limit by `LaunchConfig::validate`.
            // SAFETY: `function` comes from the loaded module this kernel keeps alive.
            unsafe {
                result::function::set_function_attribute(
                    self.function,
                    sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                    config.shared_bytes as i32,
                )
            }
            .map_err(|e| err("cuFuncSetAttribute", e))?;
        }
        if dependent {
            // SAFETY: an all-zero launch attribute is a valid value of the C union.
            let mut attr: sys::CUlaunchAttribute = unsafe { std::mem::zeroed() };
            attr.id =
                sys::CUlaunchAttributeID::CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
            attr.value.programmaticStreamSerializationAllowed = 1;
            let cfg = sys::CUlaunchConfig {
                gridDimX: gx,
                gridDimY: gy,
                gridDimZ: gz,
                blockDimX: bx,
                blockDimY: by,
                blockDimZ: bz,
                sharedMemBytes: config.shared_bytes,
                hStream: s.cu_stream(),
                attrs: &mut attr,
                numAttrs: 1,
            };
            // SAFETY: as cuLaunchKernel below; `cfg` and `attr` outlive the call, which
            // copies them.
            return unsafe {
                sys::cuLaunchKernelEx(
                    &cfg,
                    self.function,
                    params.as_mut_ptr(),
                    std::ptr::null_mut(),
                )
            }
            .result()
            .map_err(|e| err("cuLaunchKernelEx", e));
        }
        // SAFETY: `params` points at correctly laid out values that outlive the call (the
        // driver copies them during cuLaunchKernel and never writes through them, so
        // pointing into the shared packed block is sound); the caller guarantees the argument
        // list matches the kernel and that its memory accesses stay in bounds.
        unsafe {
            result::launch_kernel(
                self.function,
                (gx, gy, gz),
                (bx, by, bz),
                config.shared_bytes,
                s.cu_stream(),
                params,
            )
        }
        .map_err(|e| err("cuLaunchKernel", e))
    }
}
