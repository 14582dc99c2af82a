//! The collective algorithms, on host slices, over an [`Engine`].
//!
//! Notation: `n` ranks, this rank `r`, ring neighbours `next = r+1`, `prev = r-1` (mod n).
//! A buffer of `m` elements is cut into `n` balanced segments `seg(k) = [k*m/n, (k+1)*m/n)`.
//!
//! - all_reduce between threads, or processes whose buffers all lie in registered
//!   segments ([`crate::Comm::alloc_shared`]), large: direct, out of each other's buffers
//!   (see `direct`).
//! - all_reduce, large: ring reduce-scatter then ring all-gather (`2(n-1)` steps, each rank
//!   sends `2(n-1)/n` of the buffer: bandwidth-optimal), pipelined: the buffer is cut into
//!   slices of `n * chunk` elements and each slice runs the whole ring, so a segment just
//!   reduced is still in cache when it is sent on. Small: recursive doubling (`log2 n`
//!   exchanges of the whole buffer; a non-power-of-two `n` first folds the extra ranks into
//!   their partners and hands the result back at the end).
//! - broadcast / reduce: binomial tree when small (`log2 n` steps), a chunked chain along the
//!   ring from / toward the root when large (every link busy, one chunk of latency per hop).
//! - all_gather: ring when large, direct (everyone sends to everyone in one step) when small.
//! - reduce_scatter: ring. all_to_all: direct.
//!
//! Every combine is commutative bit for bit and each result element is combined on one
//! rank only (ring) or symmetrically (doubling), so all ranks end with identical bits.

use crate::engine::{
    Call, CopySink, Engine, ReduceFrom, ReduceInto, Rx, Sink, StreamSink, Tx, Wait,
};
use crate::op::{ReduceOp, Reducible};
use rocm_core::Result;
use std::ops::Range;

fn bytes<T: Reducible>(s: &[T]) -> &[u8] {
    bytemuck::cast_slice(s)
}

fn bytes_mut<T: Reducible>(s: &mut [T]) -> &mut [u8] {
    bytemuck::cast_slice_mut(s)
}

/// Segment `k` of `m` elements cut into `n` balanced parts.
fn seg(m: usize, n: usize, k: usize) -> Range<usize> {
    let at = |k: usize| (k as u128 * m as u128 / n as u128) as usize;
    at(k)..at(k + 1)
}

/// Disjoint views `(&buf[ro], &mut buf[rw])`; the ranges never overlap here (distinct
/// segments of one partition), an empty `ro` may sit anywhere.
fn split_ro_rw<T>(buf: &mut [T], ro: Range<usize>, rw: Range<usize>) -> (&[T], &mut [T]) {
    if ro.is_empty() {
        return (&[], &mut buf[rw]);
    }
    if ro.end <= rw.start {
        let (a, b) = buf.split_at_mut(rw.start);
        (&a[ro], &mut b[..rw.len()])
    } else {
        let (a, b) = buf.split_at_mut(ro.start);
        (&b[..ro.len()], &mut a[rw])
    }
}

fn divide_avg<T: Reducible>(op: ReduceOp, n: usize, dst: &mut [T]) {
    if op == ReduceOp::Avg {
        for x in dst {
            *x = T::div_ranks(*x, n);
        }
    }
}

fn chunk_elems<T>(e: &Engine) -> usize {
    (e.tuning.chunk_bytes / std::mem::size_of::<T>()).max(1)
}

fn small<T>(e: &Engine, elems: usize) -> bool {
    elems.saturating_mul(std::mem::size_of::<T>()) <= e.tuning.tree_max_bytes
}

/// The rank at ring position `pos` counted from `root`.
fn rank_at(e: &Engine, root: usize, pos: usize) -> usize {
    (root + pos) % e.nranks
}

/// `dst = reduce(src of every rank)` on every rank; `src = None` means in place.
pub(crate) fn all_reduce<T: Reducible>(
    e: &mut Engine,
    w: &mut Wait,
    call: Call,
    src: Option<&[T]>,
    dst: &mut [T],
    op: ReduceOp,
) -> Result<()> {
    // Direct access needs two barriers per call; below the latency threshold one
    // exchange through the rings (doubling) is quicker.
    // Processes whose buffers are not all registered get `false` and take the rings.
    if e.nranks > 1
        && e.direct_mode().is_some()
        && !small::<T>(e, dst.len())
        && crate::direct::all_reduce(e, w, call, src, dst, op)?
    {
        return Ok(());
    }
    if e.nranks == 1 || small::<T>(e, dst.len()) {
        if let Some(s) = src {
            dst.copy_from_slice(s);
        }
        if e.nranks > 1 {
            doubling_all_reduce(e, w, call, dst, op)?;
        }
    } else {
        ring_all_reduce(e, w, call, src, dst, op)?;
    }
    divide_avg(op, e.nranks, dst);
    Ok(())
}

fn doubling_all_reduce<T: Reducible>(
    e: &mut Engine,
    w: &mut Wait,
    call: Call,
    dst: &mut [T],
    op: ReduceOp,
) -> Result<()> {
    let (n, r) = (e.nranks, e.rank);
    let p = 1usize << n.ilog2();
    let rem = n - p;
    let nb = std::mem::size_of_val(dst);
    if r >= p {
        // Fold into the partner, then receive its final result.
        let tx = e.tx(call, r - p, bytes(dst));
        e.run(w, &mut [tx], &mut [])?;
        let mut sink = CopySink(bytes_mut(dst));
        let rx = e.rx(call, r - p, nb, &mut sink);
        return e.run(w, &mut [], &mut [rx]);
    }
    if r < rem {
        let mut sink = ReduceInto { dst: &mut *dst, op };
        let rx = e.rx(call, r + p, nb, &mut sink);
        e.run(w, &mut [], &mut [rx])?;
    }
    let mut tmp = dst.to_vec();
    let mut mask = 1;
    while mask < p {
        let partner = r ^ mask;
        tmp.copy_from_slice(dst);
        let tx = e.tx(call, partner, bytes(&tmp));
        let mut sink = ReduceInto { dst: &mut *dst, op };
        let rx = e.rx(call, partner, nb, &mut sink);
        e.run(w, &mut [tx], &mut [rx])?;
        mask <<= 1;
    }
    if r < rem {
        let tx = e.tx(call, r + p, bytes(dst));
        e.run(w, &mut [tx], &mut [])?;
    }
    Ok(())
}

/// Ring all_reduce in slices of `chunk · n` elements: n − 1 reduce-scatter steps, then
/// n − 1 all-gather steps.
///
/// Large calls (at least [`crate::stream::OUTPUT_MIN_BYTES`]) keep the output out of the
/// cache's way: the last reduce-scatter step reduces into a chunk-sized staging block,
/// which is streamed to `dst` and is also what the first all-gather step sends (read
/// from cache, not back from memory), and the last all-gather step streams what it
/// receives. Ordinary stores would first read every destination line from memory; on
/// the 2-rank 64 MiB call this drops a rank's memory traffic from about 5 to 4 times
/// its buffer (one read of the input, one write of the output, the ring's write and
/// read in each direction).
fn ring_all_reduce<T: Reducible>(
    e: &mut Engine,
    w: &mut Wait,
    call: Call,
    src: Option<&[T]>,
    dst: &mut [T],
    op: ReduceOp,
) -> Result<()> {
    let (n, r) = (e.nranks, e.rank);
    let (next, prev) = ((r + 1) % n, (r + n - 1) % n);
    let slice = chunk_elems::<T>(e).saturating_mul(n);
    let stream = std::mem::size_of_val(dst) >= crate::stream::OUTPUT_MIN_BYTES;
    let mut stage: Vec<T> = Vec::new();
    if stream {
        stage.resize(chunk_elems::<T>(e).min(dst.len()), T::default());
    }
    let mut base = 0;
    while base < dst.len() {
        let m = slice.min(dst.len() - base);
        let d = &mut dst[base..base + m];
        let s = src.map(|s| &s[base..base + m]);
        // Reduce-scatter: after step n-2 this rank owns segment r+1 fully reduced.
        for step in 0..n - 1 {
            let (sk, rk) = ((r + n - step) % n, (r + 2 * n - step - 1) % n);
            let (sr, rr) = (seg(m, n, sk), seg(m, n, rk));
            let (send, recv): (&[T], &mut [T]) = match s {
                Some(s) if step == 0 => (&s[sr], &mut d[rr.clone()]),
                _ => split_ro_rw(d, sr, rr.clone()),
            };
            let recv_bytes = std::mem::size_of_val(recv);
            let staged = stream && step == n - 2;
            let mut from;
            let mut into;
            let sink: &mut dyn Sink = match (s, staged) {
                (Some(s), true) => {
                    from = ReduceFrom {
                        dst: &mut stage[..rr.len()],
                        src: &s[rr],
                        op,
                    };
                    &mut from
                }
                (None, true) => {
                    from = ReduceFrom {
                        dst: &mut stage[..rr.len()],
                        src: recv,
                        op,
                    };
                    &mut from
                }
                (Some(s), false) => {
                    from = ReduceFrom {
                        dst: recv,
                        src: &s[rr],
                        op,
                    };
                    &mut from
                }
                (None, false) => {
                    into = ReduceInto { dst: recv, op };
                    &mut into
                }
            };
            let tx = e.tx(call, next, bytes(send));
            let rx = e.rx(call, prev, recv_bytes, sink);
            e.run(w, &mut [tx], &mut [rx])?;
        }
        let owned = seg(m, n, (r + 1) % n);
        if stream {
            stream_into(&mut d[owned.clone()], &stage[..owned.len()]);
        }
        // All-gather: pass the reduced segments around the ring.
        for step in 0..n - 1 {
            let (sk, rk) = ((r + 1 + n - step) % n, (r + n - step) % n);
            let (send, recv) = split_ro_rw(d, seg(m, n, sk), seg(m, n, rk));
            let send = if stream && step == 0 {
                &stage[..owned.len()]
            } else {
                send
            };
            let recv_bytes = std::mem::size_of_val(recv);
            let mut copy;
            let mut streamed;
            let sink: &mut dyn Sink = if stream && step == n - 2 {
                streamed = StreamSink(bytes_mut(recv));
                &mut streamed
            } else {
                copy = CopySink(bytes_mut(recv));
                &mut copy
            };
            let tx = e.tx(call, next, bytes(send));
            let rx = e.rx(call, prev, recv_bytes, sink);
            e.run(w, &mut [tx], &mut [rx])?;
        }
        base += m;
    }
    if stream {
        crate::stream::fence();
    }
    Ok(())
}

/// `dst = src` with streaming stores (the caller fences before the call returns).
fn stream_into<T: Reducible>(dst: &mut [T], src: &[T]) {
    let len = std::mem::size_of_val(src).min(std::mem::size_of_val(dst));
    // SAFETY: both ranges are valid for `len` bytes and do not overlap (`dst` is a
    // unique borrow).
    unsafe { crate::stream::copy(src.as_ptr() as *const u8, dst.as_mut_ptr() as *mut u8, len) }
}

/// Broadcast of `buf` from `root` (in place: the root's `buf` is the source).
pub(crate) fn broadcast<T: Reducible>(
    e: &mut Engine,
    w: &mut Wait,
    call: Call,
    buf: &mut [T],
    root: usize,
) -> Result<()> {
    let n = e.nranks;
    if n == 1 {
        return Ok(());
    }
    let pos = (e.rank + n - root) % n;
    if small::<T>(e, buf.len()) {
        // Binomial tree: in round `mask`, positions below `mask` hold the data and send it
        // `mask` positions ahead.
        let mut mask = 1;
        while mask < n {
            if pos < mask {
                if pos + mask < n {
                    let to = rank_at(e, root, pos + mask);
                    let tx = e.tx(call, to, bytes(buf));
                    e.run(w, &mut [tx], &mut [])?;
                }
            } else if pos < 2 * mask {
                let from = rank_at(e, root, pos - mask);
                let nb = std::mem::size_of_val(buf);
                let mut sink = CopySink(bytes_mut(buf));
                let rx = e.rx(call, from, nb, &mut sink);
                e.run(w, &mut [], &mut [rx])?;
            }
            mask <<= 1;
        }
        return Ok(());
    }
    // Chain root -> root+1 -> ... with chunk k forwarded while chunk k+1 arrives.
    let chunk = chunk_elems::<T>(e);
    let next = (pos + 1 < n).then(|| rank_at(e, root, pos + 1));
    if pos == 0 {
        let Some(next) = next else { return Ok(()) };
        let mut txs: Vec<Tx<'_>> = buf
            .chunks(chunk)
            .map(|c| e.tx(call, next, bytes(c)))
            .collect();
        return e.run(w, &mut txs, &mut []);
    }
    let prev = rank_at(e, root, pos - 1);
    let k_total = buf.len().div_ceil(chunk);
    for k in 0..=k_total {
        let lo = k * chunk;
        let (done, rest) = buf.split_at_mut(lo.min(buf.len()));
        let mut txs = Vec::with_capacity(1);
        if let (Some(next), true) = (next, k > 0) {
            txs.push(e.tx(call, next, bytes(&done[(k - 1) * chunk..])));
        }
        let mut rxs = Vec::with_capacity(1);
        let take = chunk.min(rest.len());
        let recv = &mut rest[..take];
        let nb = std::mem::size_of_val(recv);
        let mut sink = CopySink(bytes_mut(recv));
        if k < k_total {
            rxs.push(e.rx(call, prev, nb, &mut sink));
        }
        e.run(w, &mut txs, &mut rxs)?;
    }
    Ok(())
}

/// `dst = reduce(src of every rank)` on `root` only (`dst` is `None` elsewhere).
pub(crate) fn reduce<T: Reducible>(
    e: &mut Engine,
    w: &mut Wait,
    call: Call,
    src: &[T],
    mut dst: Option<&mut [T]>,
    op: ReduceOp,
    root: usize,
) -> Result<()> {
    let n = e.nranks;
    let pos = (e.rank + n - root) % n;
    let nb = std::mem::size_of_val(src);
    if n == 1 || small::<T>(e, src.len()) {
        // Binomial tree toward position 0, accumulating in `dst` on the root.
        let mut scratch;
        let acc: &mut [T] = match dst.as_deref_mut() {
            Some(d) => {
                d.copy_from_slice(src);
                d
            }
            None => {
                scratch = src.to_vec();
                &mut scratch
            }
        };
        let mut mask = 1;
        while mask < n {
            if pos & mask != 0 {
                let tx = e.tx(call, rank_at(e, root, pos - mask), bytes(acc));
                e.run(w, &mut [tx], &mut [])?;
                break;
            } else if pos + mask < n {
                let mut sink = ReduceInto { dst: &mut *acc, op };
                let rx = e.rx(call, rank_at(e, root, pos + mask), nb, &mut sink);
                e.run(w, &mut [], &mut [rx])?;
            }
            mask <<= 1;
        }
    } else {
        // Chain from the last position toward the root, chunk by chunk.
        let chunk = chunk_elems::<T>(e);
        let down = (pos > 0).then(|| rank_at(e, root, pos - 1));
        let up = (pos + 1 < n).then(|| rank_at(e, root, pos + 1));
        match (up, down, dst.as_deref_mut()) {
            (None, Some(down), _) => {
                let mut txs: Vec<Tx<'_>> = src
                    .chunks(chunk)
                    .map(|c| e.tx(call, down, bytes(c)))
                    .collect();
                e.run(w, &mut txs, &mut [])?;
            }
            (Some(up), None, Some(d)) => {
                let mut sinks: Vec<ReduceFrom<'_, T>> = d
                    .chunks_mut(chunk)
                    .zip(src.chunks(chunk))
                    .map(|(d, s)| ReduceFrom { dst: d, src: s, op })
                    .collect();
                let mut rxs: Vec<Rx<'_>> = sinks
                    .iter_mut()
                    .map(|s| {
                        let nb = std::mem::size_of_val(s.src);
                        e.rx(call, up, nb, s)
                    })
                    .collect();
                e.run(w, &mut [], &mut rxs)?;
            }
            (Some(up), Some(down), _) => {
                let mut scratch = vec![T::default(); 2 * chunk];
                let k_total = src.len().div_ceil(chunk);
                for k in 0..=k_total {
                    let (a, b) = scratch.split_at_mut(chunk);
                    let (cur, last) = if k % 2 == 0 { (a, b) } else { (b, a) };
                    let mut txs = Vec::with_capacity(1);
                    if k > 0 {
                        let len = chunk.min(src.len() - (k - 1) * chunk);
                        txs.push(e.tx(call, down, bytes(&last[..len])));
                    }
                    let mut rxs = Vec::with_capacity(1);
                    let lo = (k * chunk).min(src.len());
                    let s = &src[lo..(lo + chunk).min(src.len())];
                    let mut sink = ReduceFrom {
                        dst: &mut cur[..s.len()],
                        src: s,
                        op,
                    };
                    if k < k_total {
                        rxs.push(e.rx(call, up, std::mem::size_of_val(s), &mut sink));
                    }
                    e.run(w, &mut txs, &mut rxs)?;
                }
            }
            // The root always gets `dst` (checked by the caller); a 1-rank chain is handled above.
            _ => return Ok(()),
        }
    }
    if let Some(d) = dst {
        divide_avg(op, n, d);
    }
    Ok(())
}

/// `dst[j*count..(j+1)*count] = src of rank j`.
pub(crate) fn all_gather<T: Reducible>(
    e: &mut Engine,
    w: &mut Wait,
    call: Call,
    src: &[T],
    dst: &mut [T],
) -> Result<()> {
    let (n, r, count) = (e.nranks, e.rank, src.len());
    dst[r * count..(r + 1) * count].copy_from_slice(src);
    if n == 1 {
        return Ok(());
    }
    let nb = std::mem::size_of_val(src);
    if small::<T>(e, dst.len()) {
        let mut txs: Vec<Tx<'_>> = (0..n)
            .filter(|&j| j != r)
            .map(|j| e.tx(call, j, bytes(src)))
            .collect();
        let mut sinks: Vec<(usize, CopySink<'_>)> = blocks_mut(dst, n, count)
            .into_iter()
            .enumerate()
            .filter(|&(j, _)| j != r)
            .map(|(j, b)| (j, CopySink(bytes_mut(b))))
            .collect();
        let mut rxs: Vec<Rx<'_>> = sinks
            .iter_mut()
            .map(|(j, s)| e.rx(call, *j, nb, s))
            .collect();
        return e.run(w, &mut txs, &mut rxs);
    }
    let (next, prev) = ((r + 1) % n, (r + n - 1) % n);
    for step in 0..n - 1 {
        let (sk, rk) = ((r + n - step) % n, (r + 2 * n - step - 1) % n);
        let (send, recv) = split_ro_rw(
            dst,
            sk * count..(sk + 1) * count,
            rk * count..(rk + 1) * count,
        );
        let mut sink = CopySink(bytes_mut(recv));
        let tx = e.tx(call, next, bytes(send));
        let rx = e.rx(call, prev, nb, &mut sink);
        e.run(w, &mut [tx], &mut [rx])?;
    }
    Ok(())
}

/// The `n` blocks of `count` elements of `buf` as disjoint mutable slices.
fn blocks_mut<T>(buf: &mut [T], n: usize, count: usize) -> Vec<&mut [T]> {
    let mut out = Vec::with_capacity(n);
    let mut rest = buf;
    for _ in 0..n {
        let (b, r) = rest.split_at_mut(count.min(rest.len()));
        out.push(b);
        rest = r;
    }
    out
}

/// `dst = reduce over ranks of their src block r` (src holds `n` blocks of `dst.len()`).
pub(crate) fn reduce_scatter<T: Reducible>(
    e: &mut Engine,
    w: &mut Wait,
    call: Call,
    src: &[T],
    dst: &mut [T],
    op: ReduceOp,
) -> Result<()> {
    let (n, r, count) = (e.nranks, e.rank, dst.len());
    let block = |k: usize| &src[k * count..(k + 1) * count];
    if n == 1 {
        dst.copy_from_slice(block(0));
        return Ok(());
    }
    let (next, prev) = ((r + 1) % n, (r + n - 1) % n);
    let nb = std::mem::size_of_val(dst);
    // Partial sums alternate between two scratch blocks; the last step lands in `dst`.
    let mut scratch = vec![T::default(); if n > 2 { 2 * count } else { 0 }];
    let half = scratch.len() / 2;
    let (mut a, mut b) = scratch.split_at_mut(half);
    for step in 0..n - 1 {
        let (sk, rk) = ((r + 2 * n - 1 - step) % n, (r + 2 * n - 2 - step) % n);
        let send: &[T] = if step == 0 { block(sk) } else { b };
        let recv: &mut [T] = if step == n - 2 { &mut *dst } else { &mut *a };
        let mut sink = ReduceFrom {
            dst: recv,
            src: block(rk),
            op,
        };
        let tx = e.tx(call, next, bytes(send));
        let rx = e.rx(call, prev, nb, &mut sink);
        e.run(w, &mut [tx], &mut [rx])?;
        std::mem::swap(&mut a, &mut b);
    }
    divide_avg(op, n, dst);
    Ok(())
}

/// `dst block j = src block r of rank j` (both hold `n` blocks of `count`).
pub(crate) fn all_to_all<T: Reducible>(
    e: &mut Engine,
    w: &mut Wait,
    call: Call,
    src: &[T],
    dst: &mut [T],
) -> Result<()> {
    let (n, r) = (e.nranks, e.rank);
    let count = src.len() / n;
    let nb = count * std::mem::size_of::<T>();
    let mut blocks = blocks_mut(dst, n, count);
    blocks[r].copy_from_slice(&src[r * count..(r + 1) * count]);
    // Start with the next rank and go around, so that not every rank sends to rank 0 first.
    let order: Vec<usize> = (1..n).map(|d| (r + d) % n).collect();
    let mut txs: Vec<Tx<'_>> = order
        .iter()
        .map(|&j| e.tx(call, j, bytes(&src[j * count..(j + 1) * count])))
        .collect();
    let mut sinks: Vec<(usize, CopySink<'_>)> = blocks
        .into_iter()
        .enumerate()
        .filter(|&(j, _)| j != r)
        .map(|(j, b)| (j, CopySink(bytes_mut(b))))
        .collect();
    let mut rxs: Vec<Rx<'_>> = sinks
        .iter_mut()
        .map(|(j, s)| e.rx(call, *j, nb, s))
        .collect();
    e.run(w, &mut txs, &mut rxs)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn segments_partition() {
        for m in [0usize, 1, 5, 17, 1000] {
            for n in 1..9 {
                let mut next = 0;
                for k in 0..n {
                    let s = seg(m, n, k);
                    assert_eq!(s.start, next);
                    next = s.end;
                }
                assert_eq!(next, m);
            }
        }
    }
}
