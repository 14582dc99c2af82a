//! The progress engine: runs a set of concurrent transfers to completion.
//!
//! An algorithm step is a set of sends ([`Tx`]) and receives ([`Rx`]) that may all be in
//! flight at once (a ring step sends to `next` while receiving from `prev`; all-to-all
//! talks to everyone). [`Engine::run`] pushes every one of them a little at a time over
//! the non-blocking [`Link`]s until all are done, so no ordering of blocking calls can
//! deadlock, whatever the ring capacity. Transfers to the same peer go in order.
//!
//! Every transfer starts with a 32-byte [`Header`] describing the call (kind, dtype, op,
//! root, count) and the transfer (length, per-link sequence number). The receiver checks
//! it against its own call, which is how ranks that disagree on their arguments are
//! caught, and how a framing bug would be caught instead of producing wrong numbers.
//!
//! While nothing moves the engine spins (1 ms, or 5 µs when there are more ranks than
//! cores: [`crate::Config::spin`]), then yields (5 ms), then sleeps in 50 µs steps,
//! checking the
//! abort word, the deadline and (for processes) whether the peers are still alive.

use crate::error::{self, AbortReason, FailureKind};
use crate::op::{reduce_bytes_from, reduce_bytes_into, ReduceOp, Reducible};
use crate::transport::{Link, Region, RegionLayout, Slot};
use rocm_core::{DType, Error, Result};
use std::net::TcpStream;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Which call a transfer belongs to (part of the header).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    AllReduce = 1,
    Broadcast = 2,
    Reduce = 3,
    AllGather = 4,
    ReduceScatter = 5,
    AllToAll = 6,
    SendRecv = 7,
}

impl Kind {
    const ALL: [Kind; 7] = [
        Kind::AllReduce,
        Kind::Broadcast,
        Kind::Reduce,
        Kind::AllGather,
        Kind::ReduceScatter,
        Kind::AllToAll,
        Kind::SendRecv,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Kind::AllReduce => "all_reduce",
            Kind::Broadcast => "broadcast",
            Kind::Reduce => "reduce",
            Kind::AllGather => "all_gather",
            Kind::ReduceScatter => "reduce_scatter",
            Kind::AllToAll => "all_to_all",
            Kind::SendRecv => "send/recv",
        }
    }
}

/// The arguments of a call that every rank must agree on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Call {
    pub kind: Kind,
    pub dtype: DType,
    pub op: Option<ReduceOp>,
    pub root: usize,
    pub count: usize,
}

impl std::fmt::Display for Call {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}(count={}, {}",
            self.kind.name(),
            self.count,
            self.dtype
        )?;
        if let Some(op) = self.op {
            write!(f, ", {op}")?;
        }
        if matches!(self.kind, Kind::Broadcast | Kind::Reduce) {
            write!(f, ", root={}", self.root)?;
        }
        f.write_str(")")
    }
}

const MAGIC: u16 = 0xCC1D;
const HDR: usize = 32;

/// The 32 bytes in front of every transfer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Header {
    pub call: Call,
    pub seq: u64,
    pub len: u64,
}

impl Header {
    fn encode(&self) -> [u8; HDR] {
        let mut b = [0u8; HDR];
        b[0..2].copy_from_slice(&MAGIC.to_le_bytes());
        b[2] = self.call.kind as u8;
        b[3] = DType::ALL
            .iter()
            .position(|d| *d == self.call.dtype)
            .unwrap_or(0) as u8;
        b[4] = self.call.op.map_or(0, |o| o.code());
        b[6..8].copy_from_slice(&(self.call.root as u16).to_le_bytes());
        b[8..16].copy_from_slice(&(self.call.count as u64).to_le_bytes());
        b[16..24].copy_from_slice(&self.seq.to_le_bytes());
        b[24..32].copy_from_slice(&self.len.to_le_bytes());
        b
    }

    fn decode(b: &[u8; HDR]) -> Option<Header> {
        let u64_at = |i: usize| {
            let mut w = [0u8; 8];
            w.copy_from_slice(&b[i..i + 8]);
            u64::from_le_bytes(w)
        };
        if u16::from_le_bytes([b[0], b[1]]) != MAGIC {
            return None;
        }
        let kind = Kind::ALL.into_iter().find(|k| *k as u8 == b[2])?;
        let dtype = *DType::ALL.get(b[3] as usize)?;
        let op = match b[4] {
            0 => None,
            c => Some(ReduceOp::from_code(c)?),
        };
        Some(Header {
            call: Call {
                kind,
                dtype,
                op,
                root: u16::from_le_bytes([b[6], b[7]]) as usize,
                count: usize::try_from(u64_at(8)).ok()?,
            },
            seq: u64_at(16),
            len: u64_at(24),
        })
    }
}

/// Where received bytes go: whole elements at an element offset.
pub(crate) trait Sink {
    fn elem_size(&self) -> usize;
    /// `bytes` holds whole elements, to be applied at element `at` of the destination.
    fn put(&mut self, at: usize, bytes: &[u8]);
}

/// Copies received bytes.
pub(crate) struct CopySink<'a>(pub &'a mut [u8]);

impl Sink for CopySink<'_> {
    fn elem_size(&self) -> usize {
        1
    }
    fn put(&mut self, at: usize, bytes: &[u8]) {
        self.0[at..at + bytes.len()].copy_from_slice(bytes);
    }
}

/// Copies received bytes with streaming stores (large outputs the caller will not
/// read back soon; the algorithm fences before returning).
pub(crate) struct StreamSink<'a>(pub &'a mut [u8]);

impl Sink for StreamSink<'_> {
    fn elem_size(&self) -> usize {
        1
    }
    fn put(&mut self, at: usize, bytes: &[u8]) {
        let dst = &mut self.0[at..at + bytes.len()];
        // SAFETY: `dst` and `bytes` are both `bytes.len()` long and do not overlap
        // (`dst` is a unique borrow of the destination).
        unsafe { crate::stream::copy(bytes.as_ptr(), dst.as_mut_ptr(), bytes.len()) }
    }
}

/// `dst = op(dst, received)`.
pub(crate) struct ReduceInto<'a, T> {
    pub dst: &'a mut [T],
    pub op: ReduceOp,
}

impl<T: Reducible> Sink for ReduceInto<'_, T> {
    fn elem_size(&self) -> usize {
        std::mem::size_of::<T>()
    }
    fn put(&mut self, at: usize, bytes: &[u8]) {
        let n = bytes.len() / std::mem::size_of::<T>();
        reduce_bytes_into(self.op, &mut self.dst[at..at + n], bytes);
    }
}

/// `dst = op(src, received)`: reduces without first copying `src` into `dst`.
pub(crate) struct ReduceFrom<'a, T> {
    pub dst: &'a mut [T],
    pub src: &'a [T],
    pub op: ReduceOp,
}

impl<T: Reducible> Sink for ReduceFrom<'_, T> {
    fn elem_size(&self) -> usize {
        std::mem::size_of::<T>()
    }
    fn put(&mut self, at: usize, bytes: &[u8]) {
        let n = bytes.len() / std::mem::size_of::<T>();
        reduce_bytes_from(
            self.op,
            &mut self.dst[at..at + n],
            &self.src[at..at + n],
            bytes,
        );
    }
}

/// A send in flight.
pub(crate) struct Tx<'a> {
    peer: usize,
    hdr: [u8; HDR],
    hdr_done: usize,
    data: &'a [u8],
    done: usize,
}

impl Tx<'_> {
    fn finished(&self) -> bool {
        self.hdr_done == HDR && self.done == self.data.len()
    }
}

/// A receive in flight.
pub(crate) struct Rx<'a> {
    peer: usize,
    expect: Header,
    hdr: [u8; HDR],
    hdr_done: usize,
    done: usize,
    sink: &'a mut dyn Sink,
    carry: [u8; 16],
    carry_len: usize,
    bad: Option<Header>,
}

impl Rx<'_> {
    fn len(&self) -> usize {
        self.expect.len as usize
    }

    fn finished(&self) -> bool {
        self.hdr_done == HDR && self.done == self.len()
    }

    /// Takes the next received bytes: the header first, then data (in whole elements; a
    /// split element waits in `carry`).
    fn feed(&mut self, mut piece: &[u8]) {
        if self.hdr_done < HDR {
            let k = (HDR - self.hdr_done).min(piece.len());
            self.hdr[self.hdr_done..self.hdr_done + k].copy_from_slice(&piece[..k]);
            self.hdr_done += k;
            piece = &piece[k..];
            if self.hdr_done == HDR {
                let got = Header::decode(&self.hdr);
                if got != Some(self.expect) {
                    // An undecodable header is reported as a default mismatch.
                    self.bad = Some(got.unwrap_or(Header {
                        call: Call {
                            count: usize::MAX,
                            ..self.expect.call
                        },
                        ..self.expect
                    }));
                    return;
                }
            }
        }
        if piece.is_empty() || self.bad.is_some() {
            return;
        }
        let es = self.sink.elem_size();
        if self.carry_len > 0 {
            let elem_start = self.done - self.carry_len;
            let k = (es - self.carry_len).min(piece.len());
            self.carry[self.carry_len..self.carry_len + k].copy_from_slice(&piece[..k]);
            self.carry_len += k;
            self.done += k;
            piece = &piece[k..];
            if self.carry_len == es {
                let carry = self.carry;
                self.sink.put(elem_start / es, &carry[..es]);
                self.carry_len = 0;
            }
        }
        let whole = piece.len() / es * es;
        if whole > 0 {
            self.sink.put(self.done / es, &piece[..whole]);
            self.done += whole;
        }
        let rest = &piece[whole..];
        if !rest.is_empty() {
            self.carry[..rest.len()].copy_from_slice(rest);
            self.carry_len = rest.len();
            self.done += rest.len();
        }
    }
}

/// Who shares the direct-access slots.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum DirectMode {
    /// Threads of one process: slots hold buffer addresses.
    Threads,
    /// Processes of one host: slots hold where registered buffers lie in their segments.
    Processes,
}

/// Tunables of the algorithms and the waiting (see [`crate::Config`]).
#[derive(Debug, Clone)]
pub(crate) struct Tuning {
    pub timeout: Option<Duration>,
    /// How long a waiting rank spins before yielding (see [`crate::Config::spin`]).
    pub spin: Duration,
    pub step_bytes: usize,
    pub chunk_bytes: usize,
    pub tree_max_bytes: usize,
}

/// How long a rank keeps yielding after spinning before it sleeps in 50 µs steps.
const YIELD: Duration = Duration::from_millis(5);

/// Waiting state of one blocking call.
pub(crate) struct Wait {
    deadline: Option<Instant>,
    /// Idle steps since something last moved (0: not idle).
    spins: u32,
    /// When the current idle stretch began.
    idle_since: Instant,
    /// How long to spin before yielding.
    spin: Duration,
    /// Whether the current idle stretch went past spinning.
    yielded: bool,
    last_probe: Instant,
    /// A peer found closed: fatal only if the next pass over the links moves nothing
    /// (its last bytes may have arrived just before it exited).
    closed_peer: bool,
}

impl Wait {
    /// One idle step: a `pause` hint while the idle stretch is shorter than the spin time,
    /// then `yield` until [`YIELD`], then 50 µs sleeps. Returns whether the caller should
    /// run its checks (abort, deadline, peers) now: every 32nd step while spinning (they
    /// cost more than a spin), every step after.
    fn backoff(&mut self) -> bool {
        self.spins = self.spins.saturating_add(1);
        if self.spins == 1 {
            self.idle_since = Instant::now();
        }
        if self.spins % 32 != 0 && self.spins < 1 << 20 {
            std::hint::spin_loop();
            return false;
        }
        let idle = self.idle_since.elapsed();
        if idle < self.spin {
            std::hint::spin_loop();
            return true;
        }
        // Past the spin phase: from here on every step checks.
        self.spins = 1 << 20;
        self.yielded = true;
        if idle < self.spin + YIELD {
            std::thread::yield_now();
        } else {
            std::thread::sleep(Duration::from_micros(50));
        }
        true
    }
}

/// The links of one rank and everything needed to drive them.
pub(crate) struct Engine {
    pub rank: usize,
    pub nranks: usize,
    links: Vec<Option<Box<dyn Link>>>,
    tx_seq: Vec<u64>,
    rx_seq: Vec<u64>,
    /// Holds the abort word.
    control: Arc<Region>,
    /// Connections to the other processes, watched for a dead peer (empty for threads).
    mesh: Vec<Option<TcpStream>>,
    pub tuning: Tuning,
    /// The call in progress, for error messages.
    pub op: &'static str,
    /// The layout of `control`, whose slots allow direct access, and who the ranks are:
    /// threads of this process (any buffer) or processes of this host (registered
    /// buffers only).
    direct: Option<(RegionLayout, DirectMode)>,
    /// Processes: peers' registered segments mapped so far, most recently used last.
    pub peer_segments: Vec<(usize, crate::shared::PeerSegment)>,
    /// Number of direct calls made so far (every rank makes the same calls).
    pub direct_seq: u64,
    /// Number of calls that completed through direct access (no rings).
    pub direct_done: u64,
    /// The current spin time, adapted between 2 µs and `tuning.spin` (see `waited`).
    spin_now: Duration,
}

impl Engine {
    pub fn new(
        rank: usize,
        links: Vec<Option<Box<dyn Link>>>,
        control: Arc<Region>,
        mesh: Vec<Option<TcpStream>>,
        tuning: Tuning,
        direct: Option<(RegionLayout, DirectMode)>,
    ) -> Engine {
        let nranks = links.len();
        let spin_now = tuning.spin;
        Engine {
            rank,
            nranks,
            links,
            tx_seq: vec![0; nranks],
            rx_seq: vec![0; nranks],
            control,
            mesh,
            tuning,
            op: "",
            direct,
            peer_segments: Vec::new(),
            direct_seq: 0,
            direct_done: 0,
            spin_now,
        }
    }

    /// The direct-access slot of `rank` when the ranks share `control` (threads of this
    /// process, or processes of this host).
    pub fn slot(&self, rank: usize) -> Option<&Slot> {
        self.control.slot(self.direct?.0, rank)
    }

    /// Whether direct (zero-copy) collectives are possible, and between what.
    pub fn direct_mode(&self) -> Option<DirectMode> {
        self.direct.map(|d| d.1)
    }

    /// Whether rank `peer`'s process has exited: its connection is closed and the
    /// process `pid` is gone (a closed connection alone may be a live rank that stopped
    /// the communicator). Always false for threads.
    pub fn peer_gone(&self, peer: usize, pid: u32) -> bool {
        let Some(Some(s)) = self.mesh.get(peer) else {
            return false;
        };
        let mut b = [0u8; 1];
        let closed = match s.peek(&mut b) {
            Ok(0) => true,
            Ok(_) => false,
            Err(e) => e.kind() != std::io::ErrorKind::WouldBlock,
        };
        closed && crate::shared::process_gone(pid)
    }

    /// One idle step of a wait outside [`Engine::run`]: backs off, and fails on abort or
    /// past the deadline (`what()` names what was awaited; built only then).
    pub fn pause_for(&mut self, wait: &mut Wait, what: impl FnOnce() -> String) -> Result<()> {
        if !wait.backoff() {
            return Ok(());
        }
        if let Some(reason) = self.stopped() {
            return Err(error::aborted(self.op, self.rank, reason));
        }
        let now = Instant::now();
        if wait.deadline.is_some_and(|d| now >= d) {
            let timeout = self.tuning.timeout.unwrap_or_default();
            return Err(error::timed_out(
                self.op,
                &format!("rank {}", self.rank),
                timeout,
                &what(),
            ));
        }
        // Processes: every rank is awaited, so any closed peer is fatal.
        if !self.mesh.is_empty() && now.duration_since(wait.last_probe) > Duration::from_millis(2) {
            wait.last_probe = now;
            self.probe_peers(&|_| true)?;
        }
        Ok(())
    }

    pub fn control(&self) -> &Arc<Region> {
        &self.control
    }

    /// The reason the communicator was stopped, if it was.
    pub fn stopped(&self) -> Option<AbortReason> {
        AbortReason::decode(self.control.abort_word().load(Ordering::Acquire))
    }

    /// Stops the communicator for every rank: the first reason written wins.
    pub fn poison(&mut self, kind: FailureKind) {
        let word = AbortReason {
            kind,
            rank: self.rank,
        }
        .encode();
        let _ = self.control.abort_word().compare_exchange(
            0,
            word,
            Ordering::AcqRel,
            Ordering::Acquire,
        );
        for link in self.links.iter_mut().flatten() {
            link.shutdown();
        }
        for s in self.mesh.iter().flatten() {
            let _ = s.shutdown(std::net::Shutdown::Both);
        }
    }

    /// Ends an idle stretch of `wait` (something moved), adapting the spin time like an
    /// adaptive mutex: a wait that spinning covered doubles it (up to `tuning.spin`), one
    /// that had to yield halves it (down to 2 µs). When the peer shares this rank's core,
    /// spinning only delays it: the halving stops a rank from burning 1 ms per exchange
    /// then (measured up to 2.5 ms per 8-byte all_reduce at load 11 on 2 cores).
    pub fn waited(&mut self, wait: &mut Wait) {
        if wait.spins == 0 {
            return;
        }
        self.spin_now = if wait.yielded {
            (self.spin_now / 2).max(Duration::from_micros(2))
        } else {
            (self.spin_now * 2).min(self.tuning.spin)
        };
        wait.spin = self.spin_now;
        wait.spins = 0;
        wait.yielded = false;
    }

    /// Starts the waiting state of a call.
    pub fn wait_state(&self) -> Wait {
        let now = Instant::now();
        Wait {
            deadline: self.tuning.timeout.and_then(|t| now.checked_add(t)),
            spins: 0,
            idle_since: now,
            spin: self.spin_now,
            yielded: false,
            last_probe: now,
            closed_peer: false,
        }
    }

    /// A send of `data` to `peer` as part of `call`.
    pub fn tx<'a>(&mut self, call: Call, peer: usize, data: &'a [u8]) -> Tx<'a> {
        let seq = self.tx_seq[peer];
        self.tx_seq[peer] += 1;
        Tx {
            peer,
            hdr: Header {
                call,
                seq,
                len: data.len() as u64,
            }
            .encode(),
            hdr_done: 0,
            data,
            done: 0,
        }
    }

    /// A receive of `len` bytes from `peer` into `sink` as part of `call`.
    pub fn rx<'a>(
        &mut self,
        call: Call,
        peer: usize,
        len: usize,
        sink: &'a mut dyn Sink,
    ) -> Rx<'a> {
        let seq = self.rx_seq[peer];
        self.rx_seq[peer] += 1;
        Rx {
            peer,
            expect: Header {
                call,
                seq,
                len: len as u64,
            },
            hdr: [0; HDR],
            hdr_done: 0,
            done: 0,
            sink,
            carry: [0; 16],
            carry_len: 0,
            bad: None,
        }
    }

    fn link(&mut self, peer: usize) -> Result<&mut Box<dyn Link>> {
        let rank = self.rank;
        self.links
            .get_mut(peer)
            .and_then(|l| l.as_mut())
            .ok_or_else(|| {
                Error::invalid("peer", format!("rank {rank} has no link to rank {peer}"))
            })
    }

    /// Runs all transfers to completion (see the module doc).
    pub fn run(&mut self, wait: &mut Wait, txs: &mut [Tx<'_>], rxs: &mut [Rx<'_>]) -> Result<()> {
        let step = self.tuning.step_bytes.max(HDR);
        // Transfers to one peer go in order: a peer is `busy` once an earlier transfer to
        // it is still unfinished in this pass. Finished prefixes are skipped, so a pass
        // costs O(live transfers), not O(all transfers).
        let mut busy_tx = vec![false; self.nranks];
        let mut busy_rx = vec![false; self.nranks];
        let (mut tx_start, mut rx_start) = (0, 0);
        loop {
            let mut pending = false;
            let mut moved = false;
            busy_tx.fill(false);
            busy_rx.fill(false);
            while tx_start < txs.len() && txs[tx_start].finished() {
                tx_start += 1;
            }
            while rx_start < rxs.len() && rxs[rx_start].finished() {
                rx_start += 1;
            }
            for tx in txs[tx_start..].iter_mut() {
                if tx.finished() {
                    continue;
                }
                pending = true;
                let peer = tx.peer;
                if busy_tx.get(peer).copied().unwrap_or(false) {
                    continue;
                }
                let link = self.link(peer)?;
                if tx.hdr_done < HDR {
                    let n = link.try_send(&tx.hdr[tx.hdr_done..])?;
                    tx.hdr_done += n;
                    moved |= n > 0;
                }
                if tx.hdr_done == HDR && tx.done < tx.data.len() {
                    let end = (tx.done + step).min(tx.data.len());
                    let n = link.try_send(&tx.data[tx.done..end])?;
                    tx.done += n;
                    moved |= n > 0;
                }
                if let (false, Some(b)) = (tx.finished(), busy_tx.get_mut(peer)) {
                    *b = true;
                }
            }
            for rx in rxs[rx_start..].iter_mut() {
                if rx.finished() {
                    continue;
                }
                pending = true;
                let peer = rx.peer;
                if busy_rx.get(peer).copied().unwrap_or(false) {
                    continue;
                }
                let want = (HDR - rx.hdr_done) + (rx.len() - rx.done).min(step);
                let link = self.link(peer)?;
                let n = link.try_recv(want, &mut |piece| rx.feed(piece))?;
                moved |= n > 0;
                if let Some(got) = rx.bad {
                    let expect = rx.expect;
                    return Err(self.mismatch(peer, expect, got));
                }
                if let (false, Some(b)) = (rx.finished(), busy_rx.get_mut(peer)) {
                    *b = true;
                }
            }
            if !pending {
                return Ok(());
            }
            if moved {
                self.waited(wait);
                wait.closed_peer = false;
            } else {
                self.idle(wait, txs, rxs)?;
            }
        }
    }

    fn mismatch(&mut self, peer: usize, mine: Header, theirs: Header) -> Error {
        let why = if mine.call != theirs.call {
            format!(
                "rank {} called {} but rank {peer} called {}",
                self.rank, mine.call, theirs.call
            )
        } else {
            format!(
                "rank {} expected transfer #{} of {} bytes from rank {peer}, got #{} of {} bytes",
                self.rank, mine.seq, mine.len, theirs.seq, theirs.len
            )
        };
        let what = if mine.call.count != theirs.call.count {
            "count"
        } else if mine.call.dtype != theirs.call.dtype {
            "dtype"
        } else if mine.call.op != theirs.call.op {
            "op"
        } else if mine.call.kind != theirs.call.kind {
            "collective"
        } else {
            "root"
        };
        error::mismatch(what, why)
    }

    /// Called when no transfer moved: back off, and check abort, deadline and peers.
    fn idle(&mut self, wait: &mut Wait, txs: &[Tx<'_>], rxs: &[Rx<'_>]) -> Result<()> {
        if !wait.backoff() {
            return Ok(());
        }
        if let Some(reason) = self.stopped() {
            return Err(error::aborted(self.op, self.rank, reason));
        }
        let now = Instant::now();
        if wait.deadline.is_some_and(|d| now >= d) {
            let mut peers: Vec<String> = txs
                .iter()
                .filter(|t| !t.finished())
                .map(|t| format!("rank {} to receive", t.peer))
                .chain(
                    rxs.iter()
                        .filter(|r| !r.finished())
                        .map(|r| format!("rank {} to send", r.peer)),
                )
                .collect();
            peers.dedup();
            let timeout = self.tuning.timeout.unwrap_or_default();
            return Err(error::timed_out(
                self.op,
                &format!("rank {}", self.rank),
                timeout,
                &peers.join(", "),
            ));
        }
        if !self.mesh.is_empty()
            && (wait.closed_peer || now.duration_since(wait.last_probe) > Duration::from_millis(2))
        {
            wait.last_probe = now;
            // Only the peers this call still waits on: one that finished its part and
            // exited is no failure.
            let waiting_on = |p: usize| {
                txs.iter().any(|t| t.peer == p && !t.finished())
                    || rxs.iter().any(|r| r.peer == p && !r.finished())
            };
            match self.probe_peers(&waiting_on) {
                Err(e) if wait.closed_peer => return Err(e),
                Err(_) => wait.closed_peer = true,
                Ok(()) => wait.closed_peer = false,
            }
        }
        Ok(())
    }

    /// Whether every other process still holds its end of the bootstrap connection.
    fn probe_peers(&self, waiting_on: &dyn Fn(usize) -> bool) -> Result<()> {
        let mut b = [0u8; 1];
        for (peer, s) in self.mesh.iter().enumerate() {
            let Some(s) = s else { continue };
            if !waiting_on(peer) {
                continue;
            }
            match s.peek(&mut b) {
                Ok(0) => {
                    return Err(error::peer_lost(
                        self.op,
                        &format!("rank {}", self.rank),
                        format!("rank {peer} closed its connection (the process died or exited)"),
                    ))
                }
                Ok(_) => {}
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {}
                Err(e) => {
                    return Err(error::peer_lost(
                        self.op,
                        &format!("rank {}", self.rank),
                        format!("the connection to rank {peer} failed: {e}"),
                    ))
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_round_trips() {
        let h = Header {
            call: Call {
                kind: Kind::ReduceScatter,
                dtype: DType::Bf16,
                op: Some(ReduceOp::Max),
                root: 3,
                count: 12345,
            },
            seq: 9,
            len: 777,
        };
        assert_eq!(Header::decode(&h.encode()), Some(h));
        let mut bad = h.encode();
        bad[0] ^= 1;
        assert_eq!(Header::decode(&bad), None);
    }

    #[test]
    fn rx_reassembles_split_elements() {
        let vals: Vec<u32> = (0..50u32).map(|i| i.wrapping_mul(2654435761)).collect();
        let bytes: Vec<u8> = bytemuck::cast_slice(&vals).to_vec();
        let mut dst = vec![1u32; 50];
        let call = Call {
            kind: Kind::AllReduce,
            dtype: DType::U32,
            op: Some(ReduceOp::Sum),
            root: 0,
            count: 50,
        };
        let hdr = Header {
            call,
            seq: 0,
            len: 200,
        };
        let mut sink = ReduceInto {
            dst: &mut dst,
            op: ReduceOp::Sum,
        };
        let mut rx = Rx {
            peer: 0,
            expect: hdr,
            hdr: [0; HDR],
            hdr_done: 0,
            done: 0,
            sink: &mut sink,
            carry: [0; 16],
            carry_len: 0,
            bad: None,
        };
        let mut stream = hdr.encode().to_vec();
        stream.extend_from_slice(&bytes);
        // Pieces of awkward sizes split both the header and the elements.
        for piece in stream.chunks(7) {
            rx.feed(piece);
        }
        assert!(rx.finished() && rx.bad.is_none());
        let want: Vec<u32> = vals.iter().map(|v| v.wrapping_add(1)).collect();
        assert_eq!(dst, want);
    }
}
