//! Direct (zero-copy) all-reduce between ranks that are threads of one process, or
//! processes of one host whose buffers are registered.
//!
//! Threads share an address space, so no byte needs to travel through a ring (NCCL's P2P
//! transport does the same between GPUs with mapped peer memory). Processes get the same
//! when every rank's buffers lie in segments allocated by [`crate::Comm::alloc_shared`]
//! (NCCL's `ncclMemAlloc` + user buffer registration): each rank maps the peers' segments
//! once (cached, see [`crate::shared`]). Each rank publishes its buffers (addresses for
//! threads; segment id, descriptor and offset for processes) and its call in its [`Slot`],
//! then:
//!
//! 1. waits until every rank has arrived (`arrive = 2s+1` for call `s`) and checks that
//!    all calls agree (kind, dtype, op, count). Processes then decide from what every rank
//!    published, so all take the same path: if any rank's send or receive buffer is not
//!    registered, every rank returns `false` and the caller runs the rings as if this
//!    module did not exist (the ring's first step needs every rank, so no rank can reuse
//!    its slot before the others read it);
//! 2. computes its segment `seg(r)` of the result, `acc = x_0 + x_1 + ... + x_{n-1}` in rank
//!    order, block by block (a block stays in L1), and writes it into every rank's output:
//!    each element is computed once, so every rank gets the same bits;
//! 3. marks itself done (`done = 2s+2`) and waits for everyone (others read its input and
//!    write its output until then).
//!
//! A process that cannot map a peer's segment stops the communicator, computes nothing and
//! still marks itself done; the others finish their segments, see the stop and fail the
//! call. A process that dies past the gate is noticed in the final wait (its connection
//! closed and its process gone), and the others fail the call once every live rank is done.
//!
//! Per rank, memory traffic is `n` reads and `n` writes of `count / n` elements: one copy of
//! the buffer, the least any all-reduce can do (large results are written with streaming
//! stores, which skip reading the destination lines first: see `stream`); and the ranks
//! synchronise twice per call instead of once per ring step, which matters on an
//! oversubscribed machine.

use crate::engine::{Call, DirectMode, Engine, Wait};
use crate::op::{ReduceOp, Reducible};
use crate::shared::{PeerSegment, SegRef};
use crate::transport::Slot;
use rocm_core::{Error, Result};
use std::sync::atomic::Ordering;

/// Mapped segments kept per peer process (least recently used dropped first).
const PEER_SEGMENTS: usize = 8;

/// Elements per block of the reduction loop (16 KiB of f64: stays in L1).
const BLOCK: usize = 2048;

fn pack(call: &Call) -> [u64; 2] {
    let dtype = rocm_core::DType::ALL
        .iter()
        .position(|d| *d == call.dtype)
        .unwrap_or(0) as u64;
    let op = call.op.map_or(0, |o| o.code()) as u64;
    [
        (call.kind as u64) | (dtype << 8) | (op << 16) | ((call.root as u64) << 24),
        call.count as u64,
    ]
}

fn no_slots() -> Error {
    Error::invalid("direct", "no shared slots")
}

fn slot(e: &Engine, j: usize) -> Result<&Slot> {
    e.slot(j).ok_or_else(no_slots)
}

/// The address of `bytes` bytes at `r.offset` of rank `peer`'s segment `r.id`, mapping the
/// segment if it is not mapped yet.
fn peer_address(e: &mut Engine, peer: usize, pid: u32, r: SegRef, bytes: usize) -> Result<*mut u8> {
    let found = e
        .peer_segments
        .iter()
        .position(|(p, s)| *p == peer && s.id == r.id);
    let at = match found {
        Some(i) => {
            let entry = e.peer_segments.remove(i);
            e.peer_segments.push(entry);
            e.peer_segments.len() - 1
        }
        None => {
            let seg = PeerSegment::open(pid, r.fd, r.id)?;
            let mine = e.peer_segments.iter().filter(|(p, _)| *p == peer).count();
            if mine >= PEER_SEGMENTS {
                if let Some(i) = e.peer_segments.iter().position(|(p, _)| *p == peer) {
                    e.peer_segments.remove(i);
                }
            }
            e.peer_segments.push((peer, seg));
            e.peer_segments.len() - 1
        }
    };
    e.peer_segments[at].1.at(r.offset, bytes).ok_or_else(|| {
        Error::invalid(
            "registered buffer",
            format!(
                "rank {peer} published {bytes} bytes at offset {} of segment {:016x}, past its end",
                r.offset, r.id
            ),
        )
    })
}

fn seg_refs(sl: &Slot) -> (Option<SegRef>, Option<SegRef>) {
    let w: [u64; 5] = std::array::from_fn(|i| sl.reg[i].load(Ordering::Relaxed));
    let r = |id: u64, offset: u64, fd: u64| {
        (id != 0).then_some(SegRef {
            id,
            fd: fd as u32,
            offset,
        })
    };
    (r(w[0], w[1], w[4] & 0xffff_ffff), r(w[2], w[3], w[4] >> 32))
}

/// See the module doc. `src = None`: in place (`dst` holds the input). Returns `false`
/// when the ranks are processes and not all buffers are registered: nothing happened,
/// and every rank must run the ring algorithm instead.
pub(crate) fn all_reduce<T: Reducible>(
    e: &mut Engine,
    w: &mut Wait,
    call: Call,
    src: Option<&[T]>,
    dst: &mut [T],
    op: ReduceOp,
) -> Result<bool> {
    let (n, r) = (e.nranks, e.rank);
    let mode = e.direct_mode().ok_or_else(no_slots)?;
    e.direct_seq += 1;
    let s = e.direct_seq;
    let count = dst.len();
    let bytes = std::mem::size_of_val(dst);
    let packed = pack(&call);
    let src_addr = src.map_or(dst.as_ptr() as u64, |x| x.as_ptr() as u64);
    let dst_addr = dst.as_mut_ptr() as u64;
    {
        let me = slot(e, r)?;
        me.src.store(src_addr, Ordering::Relaxed);
        me.dst.store(dst_addr, Ordering::Relaxed);
        if mode == DirectMode::Processes {
            let dst_ref = crate::shared::lookup(dst_addr as *const u8, bytes);
            let src_ref = match src {
                Some(_) => crate::shared::lookup(src_addr as *const u8, bytes),
                None => dst_ref,
            };
            let (a, b) = (
                src_ref.unwrap_or(SegRef {
                    id: 0,
                    fd: 0,
                    offset: 0,
                }),
                dst_ref.unwrap_or(SegRef {
                    id: 0,
                    fd: 0,
                    offset: 0,
                }),
            );
            me.pid.store(std::process::id() as u64, Ordering::Relaxed);
            me.reg[0].store(a.id, Ordering::Relaxed);
            me.reg[1].store(a.offset, Ordering::Relaxed);
            me.reg[2].store(b.id, Ordering::Relaxed);
            me.reg[3].store(b.offset, Ordering::Relaxed);
            me.reg[4].store(a.fd as u64 | (b.fd as u64) << 32, Ordering::Relaxed);
        }
        me.call[0].store(packed[0], Ordering::Relaxed);
        me.call[1].store(packed[1], Ordering::Relaxed);
        me.arrive.store(2 * s + 1, Ordering::Release);
    }

    // Go or cancel: decided once by a CAS on the gate, so that a rank that gives up
    // (timeout, abort, a dead peer) can never leave others touching its buffers after it
    // returned.
    let (go, cancel) = (2 * s + 1, 2 * s + 2);
    loop {
        let gate = &slot(e, 0)?.gate;
        let g = gate.load(Ordering::Acquire);
        if g == go {
            e.waited(w);
            break;
        }
        if g == cancel {
            // The rank that cancelled writes its reason into the abort word right after
            // (as its call fails); wait a little for it, so that every rank reports the
            // real cause (a timeout, a lost peer) rather than a bare abort.
            let t = std::time::Instant::now();
            let reason = loop {
                if let Some(reason) = e.stopped() {
                    break reason;
                }
                if t.elapsed() > std::time::Duration::from_millis(200) {
                    break crate::error::AbortReason {
                        kind: crate::FailureKind::Aborted,
                        rank: r,
                    };
                }
                std::thread::yield_now();
            };
            return Err(crate::error::aborted(e.op, r, reason));
        }
        // The ranks that have not arrived: the first and how many (named on a timeout).
        let (mut first, mut missing) = (None, 0usize);
        for j in 0..n {
            let here = e
                .slot(j)
                .is_some_and(|sl| sl.arrive.load(Ordering::Acquire) >= go);
            if !here {
                first = first.or(Some(j));
                missing += 1;
            }
        }
        let Some(first) = first else {
            let _ = gate.compare_exchange(g, go, Ordering::AcqRel, Ordering::Acquire);
            continue;
        };
        let awaited = move || match missing {
            1 => format!("rank {first} to join"),
            more => format!("rank {first} and {} more to join", more - 1),
        };
        if let Err(err) = e.pause_for(w, awaited) {
            let gate = &slot(e, 0)?.gate;
            if gate
                .compare_exchange(g, cancel, Ordering::AcqRel, Ordering::Acquire)
                .is_ok()
            {
                return Err(err);
            }
            // The gate moved (everyone arrived, or someone cancelled): look again.
        }
    }
    let mut pids = Vec::with_capacity(n);
    let mut refs = Vec::with_capacity(n);
    let mut srcs = Vec::with_capacity(n);
    let mut dsts = Vec::with_capacity(n);
    for j in 0..n {
        let sl = slot(e, j)?;
        let theirs = [
            sl.call[0].load(Ordering::Relaxed),
            sl.call[1].load(Ordering::Relaxed),
        ];
        if theirs != packed {
            return Err(mismatch(&call, r, j, packed, theirs));
        }
        srcs.push(sl.src.load(Ordering::Relaxed) as *const T);
        dsts.push(sl.dst.load(Ordering::Relaxed) as *mut T);
        pids.push(sl.pid.load(Ordering::Relaxed) as u32);
        if mode == DirectMode::Processes {
            refs.push(seg_refs(sl));
        }
    }
    let mut failed = None;
    if mode == DirectMode::Processes {
        // Decided from what every rank published: every rank takes the same path.
        if refs.iter().any(|(a, b)| a.is_none() || b.is_none()) {
            return Ok(false);
        }
        // Segments their owners freed are in no call any more: unmap them.
        e.peer_segments.retain(|(_, seg)| !seg.freed());
        for (j, (a, b)) in refs.iter().enumerate() {
            if j == r {
                continue;
            }
            let (Some(a), Some(b)) = (*a, *b) else {
                continue;
            };
            let mapped = peer_address(e, j, pids[j], a, bytes)
                .and_then(|sp| Ok((sp, peer_address(e, j, pids[j], b, bytes)?)));
            match mapped {
                Ok((sp, dp)) => {
                    srcs[j] = sp as *const T;
                    dsts[j] = dp as *mut T;
                }
                Err(err) => {
                    failed = Some(err);
                    break;
                }
            }
        }
        if failed.is_some() {
            // Stop the communicator before saying done, so that the others see why.
            e.poison(crate::FailureKind::PeerLost);
        }
    }

    if failed.is_none() {
        let mut acc = vec![T::default(); BLOCK.min(count)];
        // SAFETY: every rank's input and output hold `count` elements (checked equal above;
        // for processes, `peer_address` checked that they lie inside the mapped segment, which
        // stays mapped in the cache for the whole call). They stay borrowed by their owners
        // until every rank marks itself done (below). This rank reads only elements
        // [lo, hi) of the inputs and writes only [lo, hi) of the outputs; the other ranks
        // touch disjoint ranges, and owners do not touch their buffers while the call runs.
        unsafe { reduce_segment(n, r, op, &mut acc, &srcs, &dsts, count) };
    }
    // Past the gate every rank only computes, so this wait is short and bounded: it
    // ignores abort and timeout on purpose (returning early would free buffers that other
    // ranks are still writing). Processes stop waiting for a rank whose process died.
    crate::stream::fence();
    slot(e, r)?.done.store(cancel, Ordering::Release);
    let mut spins = 0u32;
    let mut lost = Vec::new();
    for (j, &pid) in pids.iter().enumerate() {
        while slot(e, j)?.done.load(Ordering::Acquire) < cancel {
            spins = spins.wrapping_add(1);
            if spins < 256 {
                std::hint::spin_loop();
            } else {
                std::thread::yield_now();
                // A peer may mark itself done and exit between the load above and this
                // check (its last call): look at `done` once more after finding it gone.
                if mode == DirectMode::Processes
                    && spins % 256 == 0
                    && e.peer_gone(j, pid)
                    && slot(e, j)?.done.load(Ordering::Acquire) < cancel
                {
                    lost.push(j);
                    break;
                }
            }
        }
    }
    if let Some(err) = failed {
        return Err(err);
    }
    if let Some(j) = lost.first() {
        return Err(crate::error::peer_lost(
            e.op,
            &format!("rank {r}"),
            format!("rank {j}'s process died during a direct all_reduce"),
        ));
    }
    if mode == DirectMode::Processes {
        if let Some(reason) = e.stopped() {
            return Err(crate::error::aborted(e.op, r, reason));
        }
    }
    e.direct_done += 1;
    Ok(true)
}

fn mismatch(call: &Call, r: usize, j: usize, packed: [u64; 2], theirs: [u64; 2]) -> Error {
    let desc = |p: [u64; 2]| {
        let dtype = rocm_core::DType::ALL
            .get(((p[0] >> 8) & 0xff) as usize)
            .map_or("?", |d| d.name());
        let op = ReduceOp::from_code(((p[0] >> 16) & 0xff) as u8).map_or("none", |o| o.name());
        format!("(count={}, {dtype}, {op})", p[1])
    };
    let what = if theirs[1] != packed[1] {
        "count"
    } else if (theirs[0] >> 8) & 0xff != (packed[0] >> 8) & 0xff {
        "dtype"
    } else if (theirs[0] >> 16) & 0xff != (packed[0] >> 16) & 0xff {
        "op"
    } else {
        "collective"
    };
    crate::error::mismatch(
        what,
        format!(
            "rank {r} called {} but rank {j} called {}{}",
            call,
            call.kind.name(),
            desc(theirs)
        ),
    )
}

/// Computes segment `r` of the result, `acc = x_0 + x_1 + ... + x_{n-1}` in rank order,
/// block by block, and writes it into every output (the same order for threads and
/// processes, so both give the same bits).
///
/// # Safety
/// Every `srcs[j]` must be readable and every `dsts[j]` writable for `count` elements, and
/// no one else may write elements `[lo, hi)` of segment `r` of them meanwhile (an input may
/// be its own rank's output: each element is read by all `n` reads before being written,
/// within one block).
unsafe fn reduce_segment<T: Reducible>(
    n: usize,
    r: usize,
    op: ReduceOp,
    acc: &mut [T],
    srcs: &[*const T],
    dsts: &[*mut T],
    count: usize,
) {
    let size = std::mem::size_of::<T>();
    // Large results go out with streaming stores (see `stream`).
    let stream = count * size >= crate::stream::OUTPUT_MIN_BYTES;
    let lo = (r as u128 * count as u128 / n as u128) as usize;
    let hi = ((r as u128 + 1) * count as u128 / n as u128) as usize;
    let mut at = lo;
    while at < hi {
        let len = BLOCK.min(hi - at);
        let acc = &mut acc[..len];
        // SAFETY: the caller's contract; `acc` is this rank's own buffer, so no copy out of
        // it overlaps its destination.
        unsafe {
            let (s0, s1) = (
                std::slice::from_raw_parts(srcs[0].add(at), len),
                std::slice::from_raw_parts(srcs[1].add(at), len),
            );
            crate::op::reduce_from(op, acc, s0, s1);
            for x in &srcs[2..] {
                crate::op::reduce_into(op, acc, std::slice::from_raw_parts(x.add(at), len));
            }
            if op == ReduceOp::Avg {
                for a in acc.iter_mut() {
                    *a = T::div_ranks(*a, n);
                }
            }
            for d in dsts {
                if stream {
                    crate::stream::copy(
                        acc.as_ptr() as *const u8,
                        d.add(at) as *mut u8,
                        len * size,
                    );
                } else {
                    std::slice::from_raw_parts_mut(d.add(at), len).copy_from_slice(acc);
                }
            }
        }
        at += len;
    }
}
