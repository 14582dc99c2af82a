//! Direct (zero-copy) all-reduce between ranks that are threads of one process.
//!
//! Threads share an address space, so no byte needs to travel through a ring (NCCL's P2P
//! transport does the same between GPUs with mapped peer memory). Each rank publishes the
//! addresses of its buffers and its call in its [`Slot`], then:
//!
//! 1. waits until every rank has arrived (`arrive = 2s+1` for call `s`) and checks that
//!    all calls agree (kind, dtype, op, count);
//! 2. computes its segment `seg(r)` of the result, `acc = x_0 + x_1 + ... + x_{n-1}` in rank
//!    order, block by block (a block stays in L1), and writes it into every rank's output:
//!    each element is computed once, so every rank gets the same bits;
//! 3. marks itself done (`done = 2s+2`) and waits for everyone (others read its input and
//!    write its output until then).
//!
//! Per rank, memory traffic is `n` reads and `n` writes of `count / n` elements: one copy of
//! the buffer, the least any all-reduce can do (large results are written with streaming
//! stores, which skip reading the destination lines first: see `stream`); and the ranks
//! synchronise twice per call instead of once per ring step, which matters on an
//! oversubscribed machine.

use crate::engine::{Call, Engine, Wait};
use crate::op::{ReduceOp, Reducible};
use rocm_core::{Error, Result};
use std::sync::atomic::Ordering;

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

/// See the module doc. `src = None`: in place (`dst` holds the input).
pub(crate) fn all_reduce<T: Reducible>(
    e: &mut Engine,
    w: &mut Wait,
    call: Call,
    src: Option<&[T]>,
    dst: &mut [T],
    op: ReduceOp,
) -> Result<()> {
    let (n, r) = (e.nranks, e.rank);
    e.direct_seq += 1;
    let s = e.direct_seq;
    let me = e
        .slot(r)
        .ok_or_else(|| Error::invalid("direct", "no shared slots"))?;
    let packed = pack(&call);
    let src_addr = src.map_or(dst.as_ptr() as u64, |x| x.as_ptr() as u64);
    me.src.store(src_addr, Ordering::Relaxed);
    me.dst.store(dst.as_mut_ptr() as u64, Ordering::Relaxed);
    me.call[0].store(packed[0], Ordering::Relaxed);
    me.call[1].store(packed[1], Ordering::Relaxed);
    me.arrive.store(2 * s + 1, Ordering::Release);

    let mut acc = vec![T::default(); BLOCK.min(dst.len())];
    // Go or cancel: decided once by a CAS on the gate, so that a rank that gives up
    // (timeout, abort) can never leave others touching its buffers after it returned.
    let (go, cancel) = (2 * s + 1, 2 * s + 2);
    loop {
        let gate = &e
            .slot(0)
            .ok_or_else(|| Error::invalid("direct", "no shared slots"))?
            .gate;
        let g = gate.load(Ordering::Acquire);
        if g == go {
            e.waited(w);
            break;
        }
        if g == cancel {
            return Err(crate::error::aborted(
                e.op,
                r,
                e.stopped().unwrap_or(crate::error::AbortReason {
                    kind: crate::FailureKind::Aborted,
                    rank: r,
                }),
            ));
        }
        let arrived = (0..n).all(|j| {
            e.slot(j)
                .is_some_and(|sl| sl.arrive.load(Ordering::Acquire) >= go)
        });
        if arrived {
            let _ = gate.compare_exchange(g, go, Ordering::AcqRel, Ordering::Acquire);
            continue;
        }
        if let Err(err) = e.pause(w, "every rank to join") {
            let gate = &e
                .slot(0)
                .ok_or_else(|| Error::invalid("direct", "no shared slots"))?
                .gate;
            if gate
                .compare_exchange(g, cancel, Ordering::AcqRel, Ordering::Acquire)
                .is_ok()
            {
                return Err(err);
            }
            // The gate moved (everyone arrived, or someone cancelled): look again.
        }
    }
    let mut srcs = Vec::with_capacity(n);
    let mut dsts = Vec::with_capacity(n);
    for j in 0..n {
        let sl = e
            .slot(j)
            .ok_or_else(|| Error::invalid("direct", "no shared slots"))?;
        let theirs = [
            sl.call[0].load(Ordering::Relaxed),
            sl.call[1].load(Ordering::Relaxed),
        ];
        if theirs != packed {
            let desc = |p: [u64; 2]| {
                let dtype = rocm_core::DType::ALL
                    .get(((p[0] >> 8) & 0xff) as usize)
                    .map_or("?", |d| d.name());
                let op =
                    ReduceOp::from_code(((p[0] >> 16) & 0xff) as u8).map_or("none", |o| o.name());
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
            return Err(Error::invalid(
                what,
                format!(
                    "ranks disagree: rank {r} called {} but rank {j} called {}{}",
                    call,
                    call.kind.name(),
                    desc(theirs)
                ),
            ));
        }
        srcs.push(sl.src.load(Ordering::Relaxed) as *const T);
        dsts.push(sl.dst.load(Ordering::Relaxed) as *mut T);
    }

    let count = dst.len();
    let size = std::mem::size_of::<T>();
    // Large results go out with streaming stores (see `stream`).
    let stream = std::mem::size_of_val(dst) >= crate::stream::OUTPUT_MIN_BYTES;
    let lo = (r as u128 * count as u128 / n as u128) as usize;
    let hi = ((r as u128 + 1) * count as u128 / n as u128) as usize;
    let mut at = lo;
    while at < hi {
        let len = BLOCK.min(hi - at);
        let acc = &mut acc[..len];
        // SAFETY: every rank's input and output hold `count` elements (checked equal above)
        // and stay borrowed by their owners until every rank marks itself done (below).
        // This rank reads only elements [lo, hi) of the inputs and writes only [lo, hi) of
        // the outputs; the other ranks touch disjoint ranges, and owners do not touch their
        // buffers while the call runs. An in-place rank's input is its output: each element
        // is read by all `n` reads before being written, within this one block. `acc` is
        // this rank's own buffer, so no copy out of it overlaps its destination.
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
            for d in &dsts {
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
    // Past the gate every rank only computes, so this wait is short and bounded: it
    // ignores abort and timeout on purpose (returning early would free buffers that other
    // ranks are still writing).
    let slot = |j: usize| {
        e.slot(j)
            .ok_or_else(|| Error::invalid("direct", "no shared slots"))
    };
    // The outputs written above must be visible before `done` says so.
    crate::stream::fence();
    slot(r)?.done.store(cancel, Ordering::Release);
    let mut spins = 0u32;
    for j in 0..n {
        while slot(j)?.done.load(Ordering::Acquire) < cancel {
            spins += 1;
            if spins < 256 {
                std::hint::spin_loop();
            } else {
                std::thread::yield_now();
            }
        }
    }
    Ok(())
}
