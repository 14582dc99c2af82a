//! Point-to-point byte pipes between two ranks, and the shared control word.
//!
//! Every algorithm is written against [`Link`]: a non-blocking, ordered byte stream to one
//! peer in each direction. Two implementations:
//!
//! - [`ShmLink`]: a single-producer single-consumer ring buffer per direction in memory
//!   both ranks map: the heap for ranks that are threads of one process, a shared-memory
//!   file (`/dev/shm`, mapped with `memmap2`) for processes on one host. The producer copies
//!   bytes in and publishes its `head`; the consumer reads (reducing straight out of the
//!   ring) and publishes its `tail`. No syscalls, no locks.
//! - [`TcpLink`]: a non-blocking TCP stream, for ranks on different hosts.
//!
//! A [`Region`] is the memory both kinds of shared-memory rank see. Its first page is the
//! control page: the abort word ([`Region::abort_word`]) that any rank sets to stop every
//! rank's pending call.

use rocm_core::{Error, Result};
use std::alloc::Layout;
use std::io::{ErrorKind, Read, Write};
use std::net::TcpStream;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::Arc;

/// Page size used for the layout of shared regions.
const PAGE: usize = 4096;

/// A non-blocking ordered byte stream to one peer (both directions).
pub(crate) trait Link: Send {
    /// Writes a prefix of `src`; returns how many bytes were taken (0 when full).
    fn try_send(&mut self, src: &[u8]) -> Result<usize>;

    /// Hands up to `max` received bytes to `f` (in one or two contiguous pieces); returns
    /// how many were consumed (0 when nothing is there).
    fn try_recv(&mut self, max: usize, f: &mut dyn FnMut(&[u8])) -> Result<usize>;

    /// Stops the link so that the peer sees an error (used when the communicator fails).
    fn shutdown(&mut self) {}
}

enum Backing {
    Heap(Layout),
    /// Kept to unmap on drop.
    Map(#[allow(dead_code)] memmap2::MmapMut),
}

/// Memory shared by the ranks of one communicator (heap or mapped file).
pub(crate) struct Region {
    ptr: *mut u8,
    len: usize,
    backing: Backing,
}

// SAFETY: the region is plain memory accessed only through atomics (control words, ring
// heads/tails) and through the ring protocol, which gives each byte range to exactly one
// side at a time (producer before publishing `head`, consumer before publishing `tail`).
unsafe impl Send for Region {}
// SAFETY: as above.
unsafe impl Sync for Region {}

impl Drop for Region {
    fn drop(&mut self) {
        if let Backing::Heap(layout) = self.backing {
            // SAFETY: `ptr` came from `alloc_zeroed(layout)` in `Region::heap` and is freed once.
            unsafe { std::alloc::dealloc(self.ptr, layout) }
        }
    }
}

/// Byte layout of a region for `n` ranks with rings of `cap` bytes: the control page, then
/// one (header page + data) block per ordered pair `(from, to)`, `from != to`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct RegionLayout {
    pub nranks: usize,
    pub cap: usize,
}

impl RegionLayout {
    fn stride(&self) -> usize {
        PAGE + self.cap
    }

    /// Bytes of the control area: the abort word's page, then one [`Slot`] per rank.
    fn control_bytes(&self) -> usize {
        (PAGE + self.nranks * std::mem::size_of::<Slot>()).next_multiple_of(PAGE)
    }

    /// Total bytes of the region; `usize::MAX` (which no allocation or mapping
    /// grants, and every region check refuses) when the size overflows.
    pub fn bytes(&self) -> usize {
        let rings = self
            .nranks
            .checked_mul(self.nranks)
            .and_then(|p| p.checked_mul(self.stride()));
        let control = self
            .nranks
            .checked_mul(std::mem::size_of::<Slot>())
            .and_then(|s| s.checked_add(PAGE))
            .and_then(|s| s.checked_next_multiple_of(PAGE));
        control
            .zip(rings)
            .and_then(|(c, r)| c.checked_add(r))
            .unwrap_or(usize::MAX)
    }

    fn ring_offset(&self, from: usize, to: usize) -> usize {
        self.control_bytes() + (from * self.nranks + to) * self.stride()
    }
}

impl Region {
    /// A zeroed region on the heap (ranks that are threads of this process).
    pub fn heap(bytes: usize) -> Result<Arc<Region>> {
        let layout = Layout::from_size_align(bytes.max(PAGE), PAGE)
            .map_err(|e| Error::invalid("ring size", e))?;
        // SAFETY: the layout has non-zero size. Large zeroed allocations come straight
        // from the OS (calloc/mmap), so pages of unused rings are never touched.
        let ptr = unsafe { std::alloc::alloc_zeroed(layout) };
        if ptr.is_null() {
            return Err(Error::OutOfMemory {
                device: "cpu".into(),
                bytes,
            });
        }
        Ok(Arc::new(Region {
            ptr,
            len: layout.size(),
            backing: Backing::Heap(layout),
        }))
    }

    /// A region over a mapped shared-memory file (ranks that are processes of one host).
    pub fn mapped(mut map: memmap2::MmapMut) -> Arc<Region> {
        let ptr = map.as_mut_ptr();
        let len = map.len();
        Arc::new(Region {
            ptr,
            len,
            backing: Backing::Map(map),
        })
    }

    /// The word any rank sets to abort the communicator (see [`crate::error::AbortReason`]).
    pub fn abort_word(&self) -> &AtomicU32 {
        // SAFETY: the control page is at offset 0, at least 4 bytes, page-aligned, zeroed
        // at creation, and only ever accessed atomically.
        unsafe { &*(self.ptr as *const AtomicU32) }
    }

    /// The direct-access slot of `rank` (threads of one process only; see [`Slot`]).
    pub fn slot(&self, layout: RegionLayout, rank: usize) -> Option<&Slot> {
        if rank >= layout.nranks || layout.bytes() > self.len {
            return None;
        }
        // SAFETY: slot `rank` lies inside the control area of the region (checked above),
        // is 128-byte aligned (page-aligned base, 128-byte slots), zero-initialised, and
        // only accessed through atomics.
        Some(unsafe { &*(self.ptr.add(PAGE + rank * std::mem::size_of::<Slot>()) as *const Slot) })
    }

    /// The link of rank `me` to rank `peer` inside this region.
    pub fn shm_link(
        self: &Arc<Self>,
        layout: RegionLayout,
        me: usize,
        peer: usize,
    ) -> Result<ShmLink> {
        if layout.bytes() > self.len || me >= layout.nranks || peer >= layout.nranks {
            return Err(Error::invalid("shared region", "smaller than its layout"));
        }
        let tx = layout.ring_offset(me, peer);
        let rx = layout.ring_offset(peer, me);
        // SAFETY: both offsets plus a header page and `cap` data bytes lie inside the region
        // (checked above against `layout.bytes()`).
        let (tx, rx) = unsafe { (self.ptr.add(tx), self.ptr.add(rx)) };
        Ok(ShmLink {
            tx: Ring::at(tx, layout.cap),
            rx: Ring::at(rx, layout.cap),
            head: 0,
            tail: 0,
            peer_tail: 0,
            peer_head: 0,
            _region: Arc::clone(self),
        })
    }
}

/// What a rank publishes for direct (zero-copy) collectives: the addresses of its
/// buffers (threads) or where they lie in registered segments (processes), the call,
/// then `arrive`/`done` sequence numbers.
#[repr(C, align(128))]
#[derive(Default)]
pub(crate) struct Slot {
    pub arrive: AtomicU64,
    pub done: AtomicU64,
    pub src: AtomicU64,
    pub dst: AtomicU64,
    /// The call (kind, dtype, op, count) packed by the caller.
    pub call: [AtomicU64; 2],
    /// Slot 0 only: `2s+1` once call `s` may go ahead, `2s+2` if it was cancelled.
    pub gate: AtomicU64,
    /// Processes: the publishing process's id.
    pub pid: AtomicU64,
    /// Processes: `[src segment id, src offset, dst segment id, dst offset,
    /// src fd | dst fd << 32]`; a segment id of 0 means "not in a registered segment".
    pub reg: [AtomicU64; 5],
}

// The control area holds one 128-byte slot per rank (see `RegionLayout::control_bytes`).
const _: () = assert!(std::mem::size_of::<Slot>() == 128);

/// One direction of a ring: `head` (bytes ever written) on the first cache line of the
/// header page, `tail` (bytes ever read) on the third, data after the page.
#[derive(Clone, Copy)]
struct Ring {
    head: *const AtomicU64,
    tail: *const AtomicU64,
    data: *mut u8,
    cap: usize,
}

impl Ring {
    fn at(base: *mut u8, cap: usize) -> Ring {
        // SAFETY (for the pointer arithmetic): `base` starts a header page followed by
        // `cap` bytes, all inside the region (see `Region::shm_link`).
        unsafe {
            Ring {
                head: base as *const AtomicU64,
                tail: base.add(128) as *const AtomicU64,
                data: base.add(PAGE),
                cap,
            }
        }
    }

    fn head(&self) -> &AtomicU64 {
        // SAFETY: page-aligned zero-initialised memory inside the live region, accessed
        // only atomically.
        unsafe { &*self.head }
    }

    fn tail(&self) -> &AtomicU64 {
        // SAFETY: as for `head`.
        unsafe { &*self.tail }
    }
}

/// A link through two shared-memory rings (see the module doc).
pub(crate) struct ShmLink {
    tx: Ring,
    rx: Ring,
    /// Bytes written into `tx` so far (only this side writes `tx.head`).
    head: u64,
    /// Bytes read from `rx` so far (only this side writes `rx.tail`).
    tail: u64,
    /// Last seen `tx.tail` (the peer's progress): avoids reading the shared line each time.
    peer_tail: u64,
    /// Last seen `rx.head`.
    peer_head: u64,
    _region: Arc<Region>,
}

// SAFETY: the raw pointers point into `_region`, which the link keeps alive; the ring
// protocol gives this side exclusive use of the bytes it touches (see `Region`).
unsafe impl Send for ShmLink {}

impl Link for ShmLink {
    fn try_send(&mut self, src: &[u8]) -> Result<usize> {
        let cap = self.tx.cap as u64;
        if cap - (self.head - self.peer_tail) < src.len() as u64 {
            self.peer_tail = self.tx.tail().load(Ordering::Acquire);
        }
        let free = (cap - (self.head - self.peer_tail)) as usize;
        let n = free.min(src.len());
        if n == 0 {
            return Ok(0);
        }
        let at = (self.head % cap) as usize;
        let first = n.min(self.tx.cap - at);
        // SAFETY: the bytes [head, head + n) modulo cap are free (the consumer has read
        // up to peer_tail >= head + n - cap), so only this side touches them until `head`
        // is published below; both pieces lie inside the ring's data area, and `src` is a
        // separate slice.
        unsafe {
            if n >= crate::stream::RING_MIN_BYTES {
                // See `stream`: cheaper than handing every line to the reader's cache.
                crate::stream::copy(src.as_ptr(), self.tx.data.add(at), first);
                crate::stream::copy(src.as_ptr().add(first), self.tx.data, n - first);
                crate::stream::fence();
            } else {
                std::ptr::copy_nonoverlapping(src.as_ptr(), self.tx.data.add(at), first);
                std::ptr::copy_nonoverlapping(src.as_ptr().add(first), self.tx.data, n - first);
            }
        }
        self.head += n as u64;
        self.tx.head().store(self.head, Ordering::Release);
        Ok(n)
    }

    fn try_recv(&mut self, max: usize, f: &mut dyn FnMut(&[u8])) -> Result<usize> {
        if self.peer_head == self.tail {
            self.peer_head = self.rx.head().load(Ordering::Acquire);
        }
        let avail = (self.peer_head - self.tail) as usize;
        let n = avail.min(max);
        if n == 0 {
            return Ok(0);
        }
        let cap = self.rx.cap;
        let at = (self.tail % cap as u64) as usize;
        let first = n.min(cap - at);
        // SAFETY: the bytes [tail, tail + n) modulo cap were published by the producer
        // (Acquire on head) and are not rewritten until `tail` is published below.
        let (a, b) = unsafe {
            (
                std::slice::from_raw_parts(self.rx.data.add(at), first),
                std::slice::from_raw_parts(self.rx.data, n - first),
            )
        };
        f(a);
        if !b.is_empty() {
            f(b);
        }
        self.tail += n as u64;
        self.rx.tail().store(self.tail, Ordering::Release);
        Ok(n)
    }
}

/// A link over a non-blocking TCP stream (ranks on different hosts).
pub(crate) struct TcpLink {
    stream: TcpStream,
    /// This rank and the rank at the other end.
    me: usize,
    peer: usize,
    buf: Vec<u8>,
    /// Received bytes not yet consumed: `buf[start..end]`.
    start: usize,
    end: usize,
}

impl TcpLink {
    pub fn new(stream: TcpStream, me: usize, peer: usize) -> Result<TcpLink> {
        stream
            .set_nonblocking(true)
            .map_err(|e| Error::io(format!("setting up the link to rank {peer}"), e))?;
        Ok(TcpLink {
            stream,
            me,
            peer,
            buf: vec![0; 256 << 10],
            start: 0,
            end: 0,
        })
    }

    fn lost(&self, e: impl std::fmt::Display) -> Error {
        crate::error::peer_lost(
            "tcp link",
            &format!("rank {}", self.me),
            format!(
                "the TCP connection to rank {} failed: {e} (it died, aborted or closed its communicator)",
                self.peer
            ),
        )
    }
}

impl Link for TcpLink {
    fn try_send(&mut self, src: &[u8]) -> Result<usize> {
        if src.is_empty() {
            return Ok(0);
        }
        match self.stream.write(src) {
            Ok(0) => Err(self.lost("connection closed")),
            Ok(n) => Ok(n),
            Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::Interrupted) => Ok(0),
            Err(e) => Err(self.lost(e)),
        }
    }

    fn try_recv(&mut self, max: usize, f: &mut dyn FnMut(&[u8])) -> Result<usize> {
        if max == 0 {
            return Ok(0);
        }
        if self.start == self.end {
            self.start = 0;
            self.end = 0;
            match self.stream.read(&mut self.buf) {
                Ok(0) => return Err(self.lost("connection closed")),
                Ok(n) => self.end = n,
                Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::Interrupted) => {
                    return Ok(0)
                }
                Err(e) => return Err(self.lost(e)),
            }
        }
        let n = (self.end - self.start).min(max);
        f(&self.buf[self.start..self.start + n]);
        self.start += n;
        Ok(n)
    }

    fn shutdown(&mut self) {
        let _ = self.stream.shutdown(std::net::Shutdown::Both);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shm_ring_streams_bytes_in_order_across_wraps() {
        let layout = RegionLayout { nranks: 2, cap: 64 };
        let region = Region::heap(layout.bytes()).unwrap();
        let mut a = region.shm_link(layout, 0, 1).unwrap();
        let mut b = region.shm_link(layout, 1, 0).unwrap();
        let data: Vec<u8> = (0..1000u32).map(|i| (i * 7 + 3) as u8).collect();
        let mut sent = 0;
        let mut got = Vec::new();
        while got.len() < data.len() {
            sent += a
                .try_send(&data[sent..(sent + 37).min(data.len())])
                .unwrap();
            b.try_recv(29, &mut |p| got.extend_from_slice(p)).unwrap();
        }
        assert_eq!(got, data);
        // Nothing more to read; the ring is empty.
        assert_eq!(
            b.try_recv(10, &mut |_| panic!("no data expected")).unwrap(),
            0
        );
    }
}
