//! Communicator-allocated ("registered") buffers: NCCL's `ncclMemAlloc` +
//! `ncclCommRegister` for processes of one host.
//!
//! [`crate::Comm::alloc_shared`] puts a buffer in a shared-memory segment of its own: a
//! file created in `/dev/shm` (else the temporary directory), unlinked at once and kept
//! open, so nothing is left behind when the process dies. A peer process of the same user
//! on the same host maps it by opening `/proc/<pid>/fd/<fd>` of the owner. The segment
//! starts with a header page naming it (a magic, a random 64-bit id, the data length),
//! which a peer checks after mapping, so that a stale or reused descriptor can never be
//! taken for the buffer, and a word the owner sets when it frees the buffer, so that peers
//! drop their mappings of it at their next direct call; the data follows, page-aligned.
//!
//! Every live segment of this process is listed in a registry of weak references, so a
//! collective finds whether a buffer it is given lies in one ([`lookup`]: segment id,
//! descriptor and offset) without changing the buffer types (a buffer dropped is no longer
//! found; an address reused by a later allocation finds the new one).

use rocm_core::backend::Allocation;
use rocm_core::{Error, Result};
use std::fs::File;
use std::os::fd::AsRawFd;
use std::sync::{Arc, Mutex, Weak};

/// Bytes of the header in front of the data of a segment.
pub(crate) const HEADER: usize = 4096;

const SEG_MAGIC: u64 = 0x3147_4553_6c63_6372; // "rcclSEG1"

/// One segment: the mapping (header + data) and the open file peers reach it through.
struct Segment {
    id: u64,
    map: memmap2::MmapMut,
    file: File,
    /// Data bytes (after the header).
    bytes: usize,
}

/// Offset of the header word set to 1 when the owner frees the segment.
const FREED_AT: usize = 24;

/// The header word at `FREED_AT` of a mapping of a segment.
fn freed_word(map: &memmap2::MmapMut) -> &std::sync::atomic::AtomicU64 {
    // SAFETY: every mapping of a segment is at least HEADER bytes long (checked by
    // `PeerSegment::open`; `alloc` maps HEADER + bytes) and page-aligned, so the 8 bytes at
    // FREED_AT are in bounds and aligned; they are only accessed atomically once the
    // segment is shared.
    unsafe { &*(map.as_ptr().add(FREED_AT) as *const std::sync::atomic::AtomicU64) }
}

impl Drop for Segment {
    fn drop(&mut self) {
        freed_word(&self.map).store(1, std::sync::atomic::Ordering::Release);
    }
}

impl Segment {
    fn data(&self) -> *mut u8 {
        // In bounds: the mapping is HEADER + bytes long.
        self.map.as_ptr().wrapping_add(HEADER) as *mut u8
    }
}

/// Keeps a segment alive inside a `DeviceBuffer`.
struct SharedAlloc(Arc<Segment>);

impl std::fmt::Debug for SharedAlloc {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "SharedAlloc {{ id: {:016x}, fd: {}, bytes: {} }}",
            self.0.id,
            self.0.file.as_raw_fd(),
            self.0.bytes
        )
    }
}

impl Allocation for SharedAlloc {
    fn address(&self) -> u64 {
        self.0.data() as u64
    }
    fn bytes(&self) -> usize {
        self.0.bytes
    }
    fn host_ptr(&self) -> Option<*mut u8> {
        Some(self.0.data())
    }
}

/// The live segments of this process.
static REGISTRY: Mutex<Vec<Weak<Segment>>> = Mutex::new(Vec::new());

fn new_id() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    // Never 0 (0 means "not registered" in a slot).
    (crate::bootstrap::random_u64() ^ n.wrapping_mul(0x9e37_79b9_7f4a_7c15)).max(1)
}

/// A new registered segment of `bytes` zeroed data bytes, as an allocation for a CPU
/// `DeviceBuffer`.
pub(crate) fn alloc(bytes: usize) -> Result<Box<dyn Allocation>> {
    let total = bytes
        .checked_add(HEADER)
        .ok_or_else(|| Error::invalid("count", format!("{bytes} bytes overflow")))?;
    let id = new_id();
    let (path, file) = crate::bootstrap::create_shm_file(&format!(
        "rocm-ccl-buf-{id:016x}-{}",
        std::process::id()
    ))?;
    // Unlinked at once: the open descriptor keeps it, and nothing outlives the process.
    let _ = std::fs::remove_file(&path);
    file.set_len(total as u64)
        .map_err(|e| Error::io(format!("sizing a shared-memory buffer to {total} bytes"), e))?;
    // SAFETY: the file was created just now by this process, unlinked, and is reachable
    // only through its descriptor; the bytes are accessed through the returned buffer
    // (borrow rules) and, during a collective, by peers under the direct protocol, which
    // gives every byte range to one writer at a time (see `direct`).
    let mut map = unsafe { memmap2::MmapMut::map_mut(&file) }
        .map_err(|e| Error::io("mapping a shared-memory buffer", e))?;
    map[0..8].copy_from_slice(&SEG_MAGIC.to_le_bytes());
    map[8..16].copy_from_slice(&id.to_le_bytes());
    map[16..24].copy_from_slice(&(bytes as u64).to_le_bytes());
    let seg = Arc::new(Segment {
        id,
        map,
        file,
        bytes,
    });
    let mut reg = REGISTRY.lock().unwrap_or_else(|p| p.into_inner());
    reg.retain(|w| w.strong_count() > 0);
    reg.push(Arc::downgrade(&seg));
    Ok(Box::new(SharedAlloc(seg)))
}

/// Where a buffer lies in a registered segment of this process.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct SegRef {
    /// The segment's id (never 0).
    pub id: u64,
    /// The owner's descriptor of the segment file.
    pub fd: u32,
    /// Byte offset of the buffer in the segment's data.
    pub offset: u64,
}

/// The segment holding all of `[ptr, ptr + len)`, if one does (`len > 0`).
pub(crate) fn lookup(ptr: *const u8, len: usize) -> Option<SegRef> {
    if len == 0 {
        return None;
    }
    let p = ptr as usize;
    let reg = REGISTRY.lock().unwrap_or_else(|p| p.into_inner());
    reg.iter().filter_map(Weak::upgrade).find_map(|seg| {
        let base = seg.data() as usize;
        let end = p.checked_add(len)?;
        (p >= base && end <= base + seg.bytes).then(|| SegRef {
            id: seg.id,
            fd: seg.file.as_raw_fd() as u32,
            offset: (p - base) as u64,
        })
    })
}

/// A peer's segment mapped into this process.
pub(crate) struct PeerSegment {
    pub id: u64,
    map: memmap2::MmapMut,
}

impl PeerSegment {
    /// Maps segment `id` of process `pid`, reached through its descriptor `fd`, and checks
    /// its header.
    pub fn open(pid: u32, fd: u32, id: u64) -> Result<PeerSegment> {
        let path = format!("/proc/{pid}/fd/{fd}");
        let file = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open(&path)
            .map_err(|e| {
                Error::io(
                    format!("opening a peer's registered buffer through {path} (registered buffers need the ranks to be processes of one user in one PID namespace; ROCM_CCL_DIRECT=0 on every rank turns them off)"),
                    e,
                )
            })?;
        // SAFETY: the file is a peer's registered segment (checked below by its header);
        // its data bytes are accessed only under the direct protocol, which gives every
        // byte range to one writer at a time and keeps the owner off it meanwhile.
        let map = unsafe { memmap2::MmapMut::map_mut(&file) }
            .map_err(|e| Error::io(format!("mapping {path}"), e))?;
        let word = |i: usize| {
            map.get(i..i + 8)
                .and_then(|b| b.try_into().ok())
                .map_or(0, u64::from_le_bytes)
        };
        let bytes = word(16);
        if map.len() < HEADER
            || word(0) != SEG_MAGIC
            || word(8) != id
            || bytes != (map.len() - HEADER) as u64
        {
            return Err(Error::invalid(
                "registered buffer",
                format!("{path} is not the segment {id:016x} the peer published"),
            ));
        }
        Ok(PeerSegment { id, map })
    }

    /// Whether the owner has freed the segment (this mapping is then the last use of it).
    pub fn freed(&self) -> bool {
        freed_word(&self.map).load(std::sync::atomic::Ordering::Acquire) != 0
    }

    /// The address of `bytes` data bytes at `offset`, if they lie inside the segment.
    pub fn at(&self, offset: u64, bytes: usize) -> Option<*mut u8> {
        let off = usize::try_from(offset).ok()?;
        let end = off.checked_add(bytes)?.checked_add(HEADER)?;
        (end <= self.map.len()).then(|| self.map.as_ptr().wrapping_add(HEADER + off) as *mut u8)
    }
}

/// Whether process `pid` has exited (gone, or a zombie awaiting its parent).
pub(crate) fn process_gone(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => true,
        Ok(s) => s
            .rsplit_once(')')
            .and_then(|(_, rest)| rest.trim_start().chars().next())
            .is_some_and(|state| matches!(state, 'Z' | 'X' | 'x')),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn registry_finds_live_buffers_only() {
        let a = alloc(4096).unwrap();
        let p = a.host_ptr().unwrap();
        let r = lookup(p.wrapping_add(100), 64).unwrap();
        assert_eq!(r.offset, 100);
        assert!(lookup(p.wrapping_add(4090), 64).is_none(), "past the end");
        // The same segment mapped again through the descriptor shows the same bytes.
        let peer = PeerSegment::open(std::process::id(), r.fd, r.id).unwrap();
        let q = peer.at(100, 4).unwrap();
        // SAFETY: both point at 4 bytes inside live mappings of the same segment; no other
        // access happens meanwhile.
        unsafe {
            *p.wrapping_add(100) = 42;
            assert_eq!(*q, 42);
        }
        assert!(peer.at(4093, 4).is_none());
        assert!(PeerSegment::open(std::process::id(), r.fd, r.id ^ 1).is_err());
        assert!(!peer.freed());
        drop(a);
        assert!(lookup(p.wrapping_add(100), 64).is_none(), "dropped");
        assert!(peer.freed(), "the owner's free shows in the peer's mapping");
        assert!(!process_gone(std::process::id()));
    }

    #[test]
    fn buffers_over_segments_check_their_size() {
        let cpu = rocm_core::Device::cpu();
        // SAFETY: a fresh segment of 16 bytes, as `Comm::alloc_shared` makes them.
        let too_small =
            unsafe { rocm_core::DeviceBuffer::<f32>::from_allocation(&cpu, alloc(16).unwrap(), 5) };
        assert!(too_small.is_err());
        // SAFETY: as above.
        let mut b =
            unsafe { rocm_core::DeviceBuffer::<f32>::from_allocation(&cpu, alloc(16).unwrap(), 4) }
                .unwrap();
        b.upload(&[1.0, 2.0, 3.0, 4.0]).unwrap();
        assert_eq!(b.to_vec().unwrap(), [1.0, 2.0, 3.0, 4.0]);
        let r = lookup(b.as_host().unwrap().as_ptr() as *const u8, 16).unwrap();
        assert_eq!(r.offset, 0);
    }
}
