//! Communicators and the public collective calls (NCCL's API shape).
//!
//! A [`Comm`] is one rank's handle on a group of `n` ranks. Make them with
//! [`Comm::init_all`] (all ranks are threads of this process; they talk through rings in
//! process memory), [`Comm::init_rank`] with a [`crate::UniqueId`] (ranks in any processes on
//! any hosts; bootstrap over TCP, then shared memory between processes of one host or TCP
//! between hosts) or [`Comm::from_env`] (the rank, size and rendezvous address set by
//! torchrun, mpirun or srun).
//!
//! Every call blocks until this rank's part is done, and returns an error instead of hanging
//! when the timeout passes, when any rank calls [`Comm::abort`] (or [`AbortHandle::abort`]
//! from another thread), when a peer dies, or when the ranks disagree on the arguments. After
//! such an error the communicator is stopped on every rank: make a new one.
//!
//! Buffers are rocm-core views on the CPU device; buffers on a GPU return
//! [`Error::Unsupported`] naming the device until GPU transports land.

use crate::algo;
use crate::config::Config;
use crate::engine::{Call, CopySink, DirectMode, Engine, Kind, Rx, Tuning, Tx};
use crate::error::{self, failure_kind, AbortReason, FailureKind};
use crate::op::{ReduceOp, Reducible};
use crate::transport::{Link, Region, RegionLayout};
use rocm_core::{BufferSlice, BufferSliceMut, DType, Device, Error, Result};
use std::net::TcpStream;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

/// How the ranks of a communicator reach each other.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Transport {
    /// Threads of one process: rings in process memory.
    Threads,
    /// Processes of one host: rings in a shared-memory file.
    SharedMemory,
    /// TCP sockets (ranks on several hosts).
    Tcp,
}

/// One rank of a communicator.
pub struct Comm {
    engine: Engine,
    device: Device,
    transport: Transport,
    /// Clones of the sockets to the other ranks, for [`AbortHandle`].
    sockets: Vec<TcpStream>,
    /// The settings it was made with (for [`Comm::split`]).
    config: Config,
}

/// Stops a communicator from any thread (see [`Comm::abort_handle`]).
#[derive(Clone)]
pub struct AbortHandle {
    control: Arc<Region>,
    rank: usize,
    sockets: Arc<Vec<TcpStream>>,
}

impl AbortHandle {
    /// Makes every pending and later call of every rank of the communicator return an error.
    pub fn abort(&self) {
        let word = AbortReason {
            kind: FailureKind::Aborted,
            rank: self.rank,
        }
        .encode();
        let _ = self.control.abort_word().compare_exchange(
            0,
            word,
            Ordering::AcqRel,
            Ordering::Acquire,
        );
        for s in self.sockets.iter() {
            let _ = s.shutdown(std::net::Shutdown::Both);
        }
    }
}

fn check_device(op: &str, device: &Device) -> Result<()> {
    if device.is_cpu() {
        Ok(())
    } else {
        Err(Error::unsupported(format!("rocm-ccl {op}"), device))
    }
}

fn host<'a, T: Reducible>(op: &str, s: &BufferSlice<'a, T>) -> Result<&'a [T]> {
    s.as_host()
        .ok_or_else(|| Error::unsupported(format!("rocm-ccl {op}"), s.device()))
}

fn host_mut<'a, T: Reducible>(op: &str, s: &'a mut BufferSliceMut<'_, T>) -> Result<&'a mut [T]> {
    let device = s.device();
    s.as_host_mut()
        .ok_or_else(|| Error::unsupported(format!("rocm-ccl {op}"), device))
}

/// What a transport set-up hands to [`Comm::from_parts`].
pub(crate) struct Parts {
    pub rank: usize,
    pub device: Device,
    pub transport: Transport,
    pub links: Vec<Option<Box<dyn Link>>>,
    /// Holds the abort word (and, for threads, the direct-access slots).
    pub control: Arc<Region>,
    /// Sockets to the other processes (empty for threads).
    pub mesh: Vec<Option<TcpStream>>,
    /// The layout of `control` when direct access is allowed, and between what.
    pub direct: Option<(RegionLayout, DirectMode)>,
}

impl Comm {
    pub(crate) fn from_parts(parts: Parts, config: &Config) -> Comm {
        let Parts {
            rank,
            device,
            transport,
            links,
            control,
            mesh,
            direct,
        } = parts;
        let sockets = mesh
            .iter()
            .flatten()
            .filter_map(|s| s.try_clone().ok())
            .collect();
        let tuning = Tuning {
            timeout: config.timeout,
            spin: config.spin_for(links.len()),
            step_bytes: config.step_bytes,
            chunk_bytes: config.chunk_bytes,
            tree_max_bytes: config.tree_max_bytes,
        };
        Comm {
            engine: Engine::new(rank, links, control, mesh, tuning, direct),
            device,
            transport,
            sockets,
            config: config.clone(),
        }
    }

    /// One communicator per device, all in this process (NCCL's `ncclCommInitAll`); rank
    /// `i` is `devices[i]`. Drive each from its own thread.
    pub fn init_all(devices: &[Device]) -> Result<Vec<Comm>> {
        Comm::init_all_with(devices, &Config::default())
    }

    /// [`Comm::init_all`] with explicit settings.
    pub fn init_all_with(devices: &[Device], config: &Config) -> Result<Vec<Comm>> {
        rocm_core::ensure_arg!(
            !devices.is_empty() && devices.len() <= 1 << 16,
            "devices",
            "a communicator has 1 to 65536 ranks, got {}",
            devices.len()
        );
        for d in devices {
            check_device("init_all", d)?;
        }
        config.validate()?;
        let n = devices.len();
        let layout = RegionLayout {
            nranks: n,
            cap: config.ring_bytes,
        };
        let region = Region::heap(layout.bytes())?;
        let mut comms = Vec::with_capacity(n);
        for (rank, device) in devices.iter().enumerate() {
            let mut links: Vec<Option<Box<dyn Link>>> = Vec::with_capacity(n);
            for peer in 0..n {
                links.push(if peer == rank {
                    None
                } else {
                    Some(Box::new(region.shm_link(layout, rank, peer)?))
                });
            }
            let parts = Parts {
                rank,
                device: device.clone(),
                transport: Transport::Threads,
                links,
                control: Arc::clone(&region),
                mesh: Vec::new(),
                direct: config.direct.then_some((layout, DirectMode::Threads)),
            };
            comms.push(Comm::from_parts(parts, config));
        }
        Ok(comms)
    }

    /// This rank's index, `0..nranks()`.
    pub fn rank(&self) -> usize {
        self.engine.rank
    }

    /// The number of ranks.
    pub fn nranks(&self) -> usize {
        self.engine.nranks
    }

    /// The device this rank's buffers live on.
    pub fn device(&self) -> &Device {
        &self.device
    }

    /// How the ranks reach each other.
    pub fn transport(&self) -> Transport {
        self.transport
    }

    /// A zeroed buffer of `count` elements that the other ranks can access directly: NCCL's
    /// `ncclMemAlloc` followed by `ncclCommRegister` (user buffer registration).
    ///
    /// The buffer is an ordinary CPU [`DeviceBuffer`](rocm_core::DeviceBuffer) (use its
    /// views as usual, whole or in part) whose memory is a shared-memory segment of its own
    /// that peer processes on this host can map. When every rank's send and receive views
    /// of a large [`Comm::all_reduce`] (or [`Comm::all_reduce_in_place`]) lie in such
    /// buffers, processes skip the shared-memory rings: each rank maps the peers' segments
    /// (once; up to 8 per peer stay mapped) and reduces its share straight out of every
    /// rank's input into every rank's output, as threads always do. Each byte is then read
    /// and written once instead of travelling through a ring. If any rank's buffer is not
    /// registered, every rank takes the rings, with the same results. Threads and TCP
    /// communicators accept these buffers too (threads need no registration; TCP ignores it).
    ///
    /// The segment lives as long as the buffer (peers unmap it at their next direct call
    /// after it is dropped, or when a 9th segment of the same rank evicts it); it is
    /// reached through this process's open descriptor, so nothing is left in `/dev/shm`
    /// when the process dies. Peers must be processes of the same user in the same PID
    /// namespace (they open `/proc/<pid>/fd/<fd>`). `ROCM_CCL_DIRECT=0` on every rank turns
    /// direct access off. The buffer may be used with any communicator of this process.
    pub fn alloc_shared<T: Reducible>(&self, count: usize) -> Result<rocm_core::DeviceBuffer<T>> {
        check_device("alloc_shared", &self.device)?;
        let bytes = count.checked_mul(std::mem::size_of::<T>()).ok_or_else(|| {
            Error::invalid(
                "count",
                format!("{count} elements overflow the address space"),
            )
        })?;
        let alloc = crate::shared::alloc(bytes)?;
        // SAFETY: `alloc` is a fresh mapping of `bytes` zeroed data bytes (page-aligned,
        // so aligned for any element), valid for reads and writes while it lives, which is
        // as long as the buffer. Other processes write to it only inside a direct
        // all_reduce the buffer is borrowed for, under the protocol of `direct`, which
        // keeps every byte range to one writer at a time.
        unsafe { rocm_core::DeviceBuffer::from_allocation(&self.device, alloc, count) }
    }

    /// How many calls of this rank so far went through direct access (reducing straight
    /// out of the other ranks' buffers, no rings): large all_reduces between threads, or
    /// between processes when every rank's buffers are registered
    /// ([`Comm::alloc_shared`]). A diagnostic, as NCCL's debug log tells which path ran.
    pub fn direct_calls(&self) -> u64 {
        self.engine.direct_done
    }

    /// Sets the timeout of every later blocking call (`None`: wait forever).
    pub fn set_timeout(&mut self, timeout: Option<Duration>) {
        self.engine.tuning.timeout = timeout;
    }

    /// The timeout of blocking calls.
    pub fn timeout(&self) -> Option<Duration> {
        self.engine.tuning.timeout
    }

    /// A handle that aborts this communicator from any thread.
    pub fn abort_handle(&self) -> AbortHandle {
        AbortHandle {
            control: Arc::clone(self.engine.control()),
            rank: self.rank(),
            sockets: Arc::new(
                self.sockets
                    .iter()
                    .filter_map(|s| s.try_clone().ok())
                    .collect(),
            ),
        }
    }

    /// Aborts the communicator: every pending and later call of every rank returns an error.
    pub fn abort(&self) {
        self.abort_handle().abort();
    }

    /// Why the communicator was stopped, if it was (the kind and the rank that stopped it).
    pub fn stopped(&self) -> Option<(FailureKind, usize)> {
        self.engine.stopped().map(|r| (r.kind, r.rank))
    }

    /// Runs `f` as the call `op`: refuses to start on a stopped communicator, and stops
    /// the communicator for every rank when the call fails after data started to move.
    fn call<R>(&mut self, op: &'static str, f: impl FnOnce(&mut Engine) -> Result<R>) -> Result<R> {
        self.engine.op = op;
        if let Some(reason) = self.engine.stopped() {
            return Err(error::aborted(op, self.rank(), reason));
        }
        let out = f(&mut self.engine);
        if let Err(e) = &out {
            let kind = failure_kind(e).unwrap_or(FailureKind::PeerLost);
            self.engine.poison(kind);
        }
        out
    }

    fn check_root(&self, root: usize) -> Result<()> {
        rocm_core::ensure_arg!(
            root < self.nranks(),
            "root",
            "must be a rank of the communicator (0..{}), got {root}",
            self.nranks()
        );
        Ok(())
    }

    fn check_peer(&self, peer: usize) -> Result<()> {
        rocm_core::ensure_arg!(
            peer < self.nranks() && peer != self.rank(),
            "peer",
            "must be another rank of the communicator (0..{}, not {}), got {peer}",
            self.nranks(),
            self.rank()
        );
        Ok(())
    }

    fn call_desc<T: Reducible>(
        kind: Kind,
        op: Option<ReduceOp>,
        root: usize,
        count: usize,
    ) -> Result<Call> {
        if let Some(op) = op {
            op.check(T::DTYPE)?;
        }
        Ok(Call {
            kind,
            dtype: T::DTYPE,
            op,
            root,
            count,
        })
    }

    /// `recv = op over ranks of send` on every rank (`ncclAllReduce`).
    pub fn all_reduce<T: Reducible>(
        &mut self,
        send: &BufferSlice<'_, T>,
        recv: &mut BufferSliceMut<'_, T>,
        op: ReduceOp,
    ) -> Result<()> {
        const OP: &str = "all_reduce";
        check_device(OP, &self.device)?;
        let src = host(OP, send)?;
        let dst = host_mut(OP, recv)?;
        rocm_core::ensure_arg!(
            src.len() == dst.len(),
            "recv",
            "must have the length of send ({}), got {}",
            src.len(),
            dst.len()
        );
        let call = Self::call_desc::<T>(Kind::AllReduce, Some(op), 0, src.len())?;
        self.call(OP, |e| {
            let mut w = e.wait_state();
            algo::all_reduce(e, &mut w, call, Some(src), dst, op)
        })
    }

    /// [`Comm::all_reduce`] in place: `buf = op over ranks of buf`.
    pub fn all_reduce_in_place<T: Reducible>(
        &mut self,
        buf: &mut BufferSliceMut<'_, T>,
        op: ReduceOp,
    ) -> Result<()> {
        const OP: &str = "all_reduce";
        check_device(OP, &self.device)?;
        let dst = host_mut(OP, buf)?;
        let call = Self::call_desc::<T>(Kind::AllReduce, Some(op), 0, dst.len())?;
        self.call(OP, |e| {
            let mut w = e.wait_state();
            algo::all_reduce(e, &mut w, call, None, dst, op)
        })
    }

    /// `buf = buf of root` on every rank (`ncclBcast`, in place).
    pub fn broadcast<T: Reducible>(
        &mut self,
        buf: &mut BufferSliceMut<'_, T>,
        root: usize,
    ) -> Result<()> {
        const OP: &str = "broadcast";
        check_device(OP, &self.device)?;
        self.check_root(root)?;
        let dst = host_mut(OP, buf)?;
        let call = Self::call_desc::<T>(Kind::Broadcast, None, root, dst.len())?;
        self.call(OP, |e| {
            let mut w = e.wait_state();
            algo::broadcast(e, &mut w, call, dst, root)
        })
    }

    /// `recv = op over ranks of send` on `root` (`ncclReduce`); `recv` is required on the
    /// root and ignored elsewhere.
    pub fn reduce<T: Reducible>(
        &mut self,
        send: &BufferSlice<'_, T>,
        recv: Option<&mut BufferSliceMut<'_, T>>,
        op: ReduceOp,
        root: usize,
    ) -> Result<()> {
        const OP: &str = "reduce";
        check_device(OP, &self.device)?;
        self.check_root(root)?;
        let src = host(OP, send)?;
        let dst = match (recv, root == self.rank()) {
            (Some(r), true) => {
                let d = host_mut(OP, r)?;
                rocm_core::ensure_arg!(
                    d.len() == src.len(),
                    "recv",
                    "must have the length of send ({}), got {}",
                    src.len(),
                    d.len()
                );
                Some(d)
            }
            (None, true) => {
                return Err(Error::invalid(
                    "recv",
                    "the root of a reduce needs a receive buffer",
                ))
            }
            (_, false) => None,
        };
        let call = Self::call_desc::<T>(Kind::Reduce, Some(op), root, src.len())?;
        self.call(OP, |e| {
            let mut w = e.wait_state();
            algo::reduce(e, &mut w, call, src, dst, op, root)
        })
    }

    /// `recv = [send of rank 0, send of rank 1, ...]` on every rank (`ncclAllGather`);
    /// `recv` holds `nranks * send.len()` elements.
    pub fn all_gather<T: Reducible>(
        &mut self,
        send: &BufferSlice<'_, T>,
        recv: &mut BufferSliceMut<'_, T>,
    ) -> Result<()> {
        const OP: &str = "all_gather";
        check_device(OP, &self.device)?;
        let n = self.nranks();
        let src = host(OP, send)?;
        let dst = host_mut(OP, recv)?;
        rocm_core::ensure_arg!(
            Some(dst.len()) == src.len().checked_mul(n),
            "recv",
            "must hold nranks * send.len() = {n} * {} elements, got {}",
            src.len(),
            dst.len()
        );
        let call = Self::call_desc::<T>(Kind::AllGather, None, 0, src.len())?;
        self.call(OP, |e| {
            let mut w = e.wait_state();
            algo::all_gather(e, &mut w, call, src, dst)
        })
    }

    /// `recv = op over ranks of their block `rank` of send` (`ncclReduceScatter`); `send`
    /// holds `nranks * recv.len()` elements.
    pub fn reduce_scatter<T: Reducible>(
        &mut self,
        send: &BufferSlice<'_, T>,
        recv: &mut BufferSliceMut<'_, T>,
        op: ReduceOp,
    ) -> Result<()> {
        const OP: &str = "reduce_scatter";
        check_device(OP, &self.device)?;
        let n = self.nranks();
        let src = host(OP, send)?;
        let dst = host_mut(OP, recv)?;
        rocm_core::ensure_arg!(
            Some(src.len()) == dst.len().checked_mul(n),
            "send",
            "must hold nranks * recv.len() = {n} * {} elements, got {}",
            dst.len(),
            src.len()
        );
        let call = Self::call_desc::<T>(Kind::ReduceScatter, Some(op), 0, dst.len())?;
        self.call(OP, |e| {
            let mut w = e.wait_state();
            algo::reduce_scatter(e, &mut w, call, src, dst, op)
        })
    }

    /// Block `j` of `recv` = block `rank` of rank `j`'s `send` (`ncclAlltoAll`); both hold
    /// `nranks` blocks of equal size.
    pub fn all_to_all<T: Reducible>(
        &mut self,
        send: &BufferSlice<'_, T>,
        recv: &mut BufferSliceMut<'_, T>,
    ) -> Result<()> {
        const OP: &str = "all_to_all";
        check_device(OP, &self.device)?;
        let n = self.nranks();
        let src = host(OP, send)?;
        let dst = host_mut(OP, recv)?;
        rocm_core::ensure_arg!(
            src.len() == dst.len() && src.len() % n == 0,
            "recv",
            "send and recv must have the same length, a multiple of nranks = {n}; got {} and {}",
            src.len(),
            dst.len()
        );
        let call = Self::call_desc::<T>(Kind::AllToAll, None, 0, src.len() / n)?;
        self.call(OP, |e| {
            let mut w = e.wait_state();
            algo::all_to_all(e, &mut w, call, src, dst)
        })
    }

    /// Sends `buf` to `peer`, which must post a matching [`Comm::recv`] (`ncclSend`).
    pub fn send<T: Reducible>(&mut self, buf: &BufferSlice<'_, T>, peer: usize) -> Result<()> {
        let mut g = self.group_start();
        g.send(buf, peer)?;
        g.end()
    }

    /// Receives `buf` from `peer` (`ncclRecv`).
    pub fn recv<T: Reducible>(
        &mut self,
        buf: &mut BufferSliceMut<'_, T>,
        peer: usize,
    ) -> Result<()> {
        let mut g = self.group_start();
        g.recv(buf, peer)?;
        g.end()
    }

    /// Starts a group of sends and receives that progress together (`ncclGroupStart`);
    /// [`Group::end`] runs them. Use it for exchanges that would deadlock one by one.
    pub fn group_start(&mut self) -> Group<'_, '_> {
        Group {
            comm: self,
            sends: Vec::new(),
            recvs: Vec::new(),
        }
    }

    /// Splits the communicator (NCCL's `ncclCommSplit`): ranks passing the same `color`
    /// form a new communicator, ordered by `key` then by their rank here; `None` takes no
    /// part (and gets `None`). Every rank must call it. The new communicator goes through
    /// the TCP bootstrap (shared memory on one host), with this communicator's settings.
    pub fn split(&mut self, color: Option<u32>, key: u32) -> Result<Option<Comm>> {
        let (n, r) = (self.nranks(), self.rank());
        let none = u32::MAX;
        if color == Some(none) {
            return Err(Error::invalid("color", "u32::MAX is reserved (use None)"));
        }
        let cpu = Device::cpu();
        let mine = rocm_core::DeviceBuffer::from_slice(&cpu, &[color.unwrap_or(none), key])?;
        let mut all = rocm_core::DeviceBuffer::<u32>::zeros(&cpu, 2 * n)?;
        self.all_gather(&mine.as_slice(), &mut all.as_slice_mut())?;
        let all = all.to_vec()?;
        let Some(color) = color else { return Ok(None) };
        let mut members: Vec<(u32, usize)> = (0..n)
            .filter(|&j| all[2 * j] == color)
            .map(|j| (all[2 * j + 1], j))
            .collect();
        members.sort_unstable();
        let new_rank = members.iter().position(|&(_, j)| j == r).unwrap_or(0);
        let leader = members[0].1;
        let mut id_bytes =
            rocm_core::DeviceBuffer::<u8>::zeros(&cpu, crate::bootstrap::UNIQUE_ID_BYTES)?;
        if r == leader {
            let id = if self.transport == Transport::Tcp {
                crate::UniqueId::new()?
            } else {
                crate::UniqueId::new_on(std::net::SocketAddr::from(([127, 0, 0, 1], 0)))?
            };
            id_bytes.upload(&id.to_bytes())?;
            let bytes = id_bytes.as_slice();
            let mut g = self.group_start();
            for &(_, j) in &members[1..] {
                g.send(&bytes, j)?;
            }
            g.end()?;
        } else {
            self.recv(&mut id_bytes.as_slice_mut(), leader)?;
        }
        let id = crate::UniqueId::from_bytes(&id_bytes.to_vec()?)?;
        let config = self.config.clone();
        Comm::init_rank_with(members.len(), &id, new_rank, &self.device, &config).map(Some)
    }

    /// Waits until every rank has called `barrier` (an all-reduce of nothing).
    pub fn barrier(&mut self) -> Result<()> {
        let call = Self::call_desc::<u8>(Kind::AllReduce, Some(ReduceOp::Sum), 0, 0)?;
        self.call("barrier", |e| {
            let mut w = e.wait_state();
            algo::all_reduce::<u8>(e, &mut w, call, None, &mut [], ReduceOp::Sum)
        })
    }
}

/// Sends and receives that run together; see [`Comm::group_start`].
pub struct Group<'c, 'a> {
    comm: &'c mut Comm,
    sends: Vec<(usize, DType, usize, &'a [u8])>,
    recvs: Vec<(usize, DType, usize, &'a mut [u8])>,
}

impl<'a> Group<'_, 'a> {
    /// Adds a send of `buf` to `peer`.
    pub fn send<T: Reducible>(&mut self, buf: &BufferSlice<'a, T>, peer: usize) -> Result<()> {
        const OP: &str = "send";
        check_device(OP, &self.comm.device)?;
        self.comm.check_peer(peer)?;
        let src = host(OP, buf)?;
        self.sends
            .push((peer, T::DTYPE, src.len(), bytemuck::cast_slice(src)));
        Ok(())
    }

    /// Adds a receive into `buf` from `peer`.
    pub fn recv<T: Reducible>(
        &mut self,
        buf: &'a mut BufferSliceMut<'_, T>,
        peer: usize,
    ) -> Result<()> {
        const OP: &str = "recv";
        check_device(OP, &self.comm.device)?;
        self.comm.check_peer(peer)?;
        let dst = host_mut(OP, buf)?;
        self.recvs
            .push((peer, T::DTYPE, dst.len(), bytemuck::cast_slice_mut(dst)));
        Ok(())
    }

    /// Runs every send and receive of the group to completion (`ncclGroupEnd`). Messages
    /// between two ranks are matched in the order they were added.
    pub fn end(self) -> Result<()> {
        let Group { comm, sends, recvs } = self;
        let op = match (sends.is_empty(), recvs.is_empty()) {
            (false, true) => "send",
            (true, false) => "recv",
            _ => "send/recv",
        };
        comm.call(op, |e| {
            let desc = |dtype, count| Call {
                kind: Kind::SendRecv,
                dtype,
                op: None,
                root: 0,
                count,
            };
            let mut txs: Vec<Tx<'_>> = sends
                .iter()
                .map(|&(peer, dtype, count, data)| e.tx(desc(dtype, count), peer, data))
                .collect();
            let mut sinks: Vec<(usize, DType, usize, CopySink<'_>)> = recvs
                .into_iter()
                .map(|(peer, dtype, count, data)| (peer, dtype, count, CopySink(data)))
                .collect();
            let mut rxs: Vec<Rx<'_>> = sinks
                .iter_mut()
                .map(|(peer, dtype, count, sink)| {
                    let len = sink.0.len();
                    e.rx(desc(*dtype, *count), *peer, len, sink)
                })
                .collect();
            let mut w = e.wait_state();
            e.run(&mut w, &mut txs, &mut rxs)
        })
    }
}
