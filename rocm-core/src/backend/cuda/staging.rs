//! Page-locked host memory on CUDA devices, and pageable copies staged through it.
//!
//! The driver copies pageable memory through its own small pinned buffers and blocks
//! in the copy call; large pageable copies here instead go through two page-locked
//! chunks of [`CopyStaging::chunk_bytes`] that alternate: the host copy of one chunk
//! (split over [`CopyStaging::threads`] threads) overlaps the DMA of the other.

use super::err;
use crate::backend::{CopyStaging, HostMemory};
use crate::{Error, Result};
use cudarc::driver::{result, sys, CudaContext, CudaEvent, CudaStream};
use std::sync::Arc;

/// Staging defaults, chosen by `rocm-bench bandwidth --staging` on an H200 (the
/// results are in bench/results/).
pub(super) const DEFAULT_STAGING: CopyStaging = CopyStaging {
    chunk_bytes: 8 << 20,
    threads: 4,
};

/// Copies at least this large are staged; smaller ones go straight to the driver.
pub(super) const STAGED_MIN_BYTES: usize = 1 << 20;

/// `cuMemHostAlloc` memory, freed with `cuMemFreeHost`.
#[derive(Debug)]
pub(super) struct PinnedHost {
    ptr: *mut u8,
    bytes: usize,
    ctx: Arc<CudaContext>,
}

// SAFETY: plain host memory owned by this value; the front end's borrows order access.
unsafe impl Send for PinnedHost {}
// SAFETY: as above.
unsafe impl Sync for PinnedHost {}

impl PinnedHost {
    pub fn new(ctx: &Arc<CudaContext>, bytes: usize, device: &str) -> Result<Self> {
        if bytes == 0 {
            return Ok(PinnedHost {
                ptr: std::ptr::null_mut::<u8>().wrapping_add(64),
                bytes,
                ctx: ctx.clone(),
            });
        }
        ctx.bind_to_thread()
            .map_err(|e| err("cuCtxSetCurrent", e))?;
        // SAFETY: allocates `bytes` of page-locked memory in the bound context; freed
        // once, in Drop. Portable: every context may copy from it.
        let ptr =
            unsafe { result::malloc_host(bytes, sys::CU_MEMHOSTALLOC_PORTABLE) }.map_err(|e| {
                match e.0 {
                    sys::CUresult::CUDA_ERROR_OUT_OF_MEMORY => Error::OutOfMemory {
                        device: format!("{device} (page-locked host memory)"),
                        bytes,
                    },
                    _ => err("cuMemHostAlloc", e),
                }
            })?;
        // SAFETY: `bytes` writable bytes at `ptr`, just allocated and unshared.
        unsafe { std::ptr::write_bytes(ptr.cast::<u8>(), 0, bytes) };
        Ok(PinnedHost {
            ptr: ptr.cast(),
            bytes,
            ctx: ctx.clone(),
        })
    }
}

impl Drop for PinnedHost {
    fn drop(&mut self) {
        if self.bytes != 0 && self.ctx.bind_to_thread().is_ok() {
            // SAFETY: `ptr` came from cuMemHostAlloc and is freed once; the front end
            // waited for every copy using it before dropping it.
            let _ = unsafe { result::free_host(self.ptr.cast()) };
        }
    }
}

impl HostMemory for PinnedHost {
    fn ptr(&self) -> *mut u8 {
        self.ptr
    }
    fn bytes(&self) -> usize {
        self.bytes
    }
}

/// Two page-locked chunks and the events that say when their DMA is done.
#[derive(Debug)]
pub(super) struct Staging {
    config: CopyStaging,
    chunks: [PinnedHost; 2],
    done: [CudaEvent; 2],
}

impl Staging {
    pub fn new(ctx: &Arc<CudaContext>, config: CopyStaging, device: &str) -> Result<Self> {
        let chunk = || PinnedHost::new(ctx, config.chunk_bytes, device);
        let event = || {
            ctx.new_event(Some(sys::CUevent_flags::CU_EVENT_DISABLE_TIMING))
                .map_err(|e| err("cuEventCreate", e))
        };
        Ok(Staging {
            config,
            chunks: [chunk()?, chunk()?],
            done: [event()?, event()?],
        })
    }

    pub fn config(&self) -> CopyStaging {
        self.config
    }

    /// The chunk size for a copy of `bytes`: at most the configured size, and small
    /// enough that the copy has four chunks to pipeline.
    fn chunk_for(&self, bytes: usize) -> usize {
        self.config
            .chunk_bytes
            .min(bytes.div_ceil(4).next_multiple_of(64 << 10))
            .max(1)
    }

    /// Host-to-device copy of `src` to `dst` on `stream`; returns when done.
    pub fn write(&self, stream: &CudaStream, dst: u64, src: &[u8]) -> Result<()> {
        let chunk = self.chunk_for(src.len());
        for (i, part) in src.chunks(chunk).enumerate() {
            let b = i % 2;
            // The chunk's previous DMA must be done before it is overwritten (an event
            // never recorded counts as done).
            self.done[b]
                .synchronize()
                .map_err(|e| err("cuEventSynchronize", e))?;
            // SAFETY: the chunk holds `config.chunk_bytes >= part.len()` bytes that no
            // DMA reads now (waited above); the staging lock makes this thread its only
            // user.
            let bounce = unsafe { std::slice::from_raw_parts_mut(self.chunks[b].ptr, part.len()) };
            parallel_copy(bounce, part, self.config.threads);
            // SAFETY: `dst + i·chunk ..` lies inside the range the front end checked; the
            // source is page-locked and stays untouched until `done[b]` completes.
            unsafe {
                sys::cuMemcpyHtoDAsync_v2(
                    dst + (i * chunk) as u64,
                    bounce.as_ptr().cast(),
                    part.len(),
                    stream.cu_stream(),
                )
            }
            .result()
            .map_err(|e| err("cuMemcpyHtoDAsync", e))?;
            self.done[b]
                .record(stream)
                .map_err(|e| err("cuEventRecord", e))?;
        }
        stream
            .synchronize()
            .map_err(|e| err("cuStreamSynchronize", e))
    }

    /// Device-to-host copy of `dst.len()` bytes from `src` on `stream`; returns when done.
    pub fn read(&self, stream: &CudaStream, src: u64, dst: &mut [u8]) -> Result<()> {
        let chunk = self.chunk_for(dst.len());
        let count = dst.len().div_ceil(chunk);
        let len = dst.len();
        let issue = |i: usize| -> Result<()> {
            let b = i % 2;
            let bytes = chunk.min(len - i * chunk);
            // SAFETY: the chunk holds at least `bytes` bytes that the host does not touch
            // until `done[b]` completes; the device range lies inside the checked view.
            unsafe {
                sys::cuMemcpyDtoHAsync_v2(
                    self.chunks[b].ptr.cast(),
                    src + (i * chunk) as u64,
                    bytes,
                    stream.cu_stream(),
                )
            }
            .result()
            .map_err(|e| err("cuMemcpyDtoHAsync", e))?;
            self.done[b]
                .record(stream)
                .map_err(|e| err("cuEventRecord", e))
        };
        for i in 0..count.min(2) {
            issue(i)?;
        }
        for (i, part) in dst.chunks_mut(chunk).enumerate() {
            let b = i % 2;
            self.done[b]
                .synchronize()
                .map_err(|e| err("cuEventSynchronize", e))?;
            // SAFETY: the DMA into the chunk is done (waited above) and nothing else
            // uses it until the next `issue` into it, below.
            let bounce = unsafe { std::slice::from_raw_parts(self.chunks[b].ptr, part.len()) };
            parallel_copy(part, bounce, self.config.threads);
            if i + 2 < count {
                issue(i + 2)?;
            }
        }
        Ok(())
    }
}

/// `dst.copy_from_slice(src)`, split over up to `threads` threads for large copies.
fn parallel_copy(dst: &mut [u8], src: &[u8], threads: usize) {
    const MIN_PER_THREAD: usize = 1 << 20;
    let threads = threads.min(src.len() / MIN_PER_THREAD).max(1);
    if threads == 1 {
        dst.copy_from_slice(src);
        return;
    }
    let per = src.len().div_ceil(threads).next_multiple_of(64);
    std::thread::scope(|scope| {
        let mut pieces = dst.chunks_mut(per).zip(src.chunks(per));
        let first = pieces.next();
        for (d, s) in pieces {
            scope.spawn(move || d.copy_from_slice(s));
        }
        if let Some((d, s)) = first {
            d.copy_from_slice(s);
        }
    });
}

#[cfg(test)]
mod tests {
    use super::parallel_copy;

    #[test]
    fn parallel_copy_copies_every_byte() {
        for (len, threads) in [(0, 4), (1, 4), (3 << 20, 3), ((5 << 20) + 17, 4), (4096, 1)] {
            let src: Vec<u8> = (0..len).map(|i| (i * 31 + 7) as u8).collect();
            let mut dst = vec![0u8; len];
            parallel_copy(&mut dst, &src, threads);
            assert!(dst == src, "len {len}, {threads} threads");
        }
    }
}
