//! Rendezvous of ranks in separate processes, as NCCL does it.
//!
//! 1. [`UniqueId::new`] (NCCL's `ncclGetUniqueId`) opens a listening TCP socket, starts the
//!    root thread on it and returns `{root address, random magic}` as [`UNIQUE_ID_BYTES`]
//!    bytes for the application to hand to every rank (MPI_Bcast, a file, an environment
//!    variable...). [`Comm::from_env`] instead derives the id from the launcher's
//!    `MASTER_ADDR`/`MASTER_PORT` (rank 0 runs the root).
//! 2. [`Comm::init_rank`]: every rank binds its own listener, connects to the root and sends
//!    `{magic, nranks, rank, listen address, host key}`. The root checks that they agree,
//!    then sends every rank the table of all addresses (the ring, and more), and exits.
//! 3. Ranks connect to each other (lower ranks accept, higher ranks connect, each with the
//!    magic): a full mesh of TCP connections.
//! 4. If every rank is on this host, rank 0 creates a shared-memory file holding the rings
//!    and the abort word, sends its path over the mesh, and deletes it once all mapped it;
//!    the sockets stay open only to notice a dead peer. Otherwise the sockets carry the data.
//!
//! A wrong magic (a stray or stale connection) is ignored; disagreeing `nranks` or a rank
//! given twice is reported to every rank; every step has a deadline (`Config::timeout`).

use crate::comm::{Comm, Parts, Transport};
use crate::config::Config;
use crate::error::FailureKind;
use crate::transport::{Link, Region, RegionLayout, TcpLink};
use rocm_core::{Device, Error, Result};
use std::collections::hash_map::RandomState;
use std::hash::{BuildHasher, Hasher};
use std::io::{Read, Write};
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr, TcpListener, TcpStream, ToSocketAddrs};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Size of a serialised [`UniqueId`] (as `NCCL_UNIQUE_ID_BYTES`).
pub const UNIQUE_ID_BYTES: usize = 128;

const ID_TAG: &[u8; 4] = b"rccl";

/// The rendezvous of one communicator: the root's address and a random magic.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UniqueId {
    addr: SocketAddr,
    magic: u64,
}

pub(crate) fn random_u64() -> u64 {
    let mut h = RandomState::new().build_hasher();
    h.write_u128(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos()),
    );
    h.write_u32(std::process::id());
    h.finish()
}

fn ip16(ip: IpAddr) -> [u8; 16] {
    match ip {
        IpAddr::V4(v4) => v4.to_ipv6_mapped().octets(),
        IpAddr::V6(v6) => v6.octets(),
    }
}

fn from_ip16(b: [u8; 16]) -> IpAddr {
    let v6 = Ipv6Addr::from(b);
    match v6.to_ipv4_mapped() {
        Some(v4) => IpAddr::V4(v4),
        None => IpAddr::V6(v6),
    }
}

/// The address other hosts can reach this one at: the source address of a route to a
/// public address (no packet is sent), else loopback.
fn outward_ip() -> IpAddr {
    std::net::UdpSocket::bind("0.0.0.0:0")
        .and_then(|s| s.connect("192.0.2.1:9").map(|_| s))
        .and_then(|s| s.local_addr())
        .map(|a| a.ip())
        .unwrap_or(IpAddr::V4(Ipv4Addr::LOCALHOST))
}

impl UniqueId {
    /// A new id whose root listens on this host's outward address (`ROCM_CCL_SOCKET_ADDR`
    /// overrides it), with the root thread started. Give it to every rank.
    pub fn new() -> Result<UniqueId> {
        let ip = match std::env::var("ROCM_CCL_SOCKET_ADDR") {
            Ok(s) if !s.is_empty() => s
                .parse()
                .map_err(|e| Error::invalid("ROCM_CCL_SOCKET_ADDR", format!("`{s}`: {e}")))?,
            _ => outward_ip(),
        };
        UniqueId::new_on(SocketAddr::new(ip, 0))
    }

    /// A new id whose root listens on `addr` (port 0: any free port).
    pub fn new_on(addr: SocketAddr) -> Result<UniqueId> {
        let listener = TcpListener::bind(addr)
            .map_err(|e| Error::io(format!("binding the root socket on {addr}"), e))?;
        let addr = listener
            .local_addr()
            .map_err(|e| Error::io("reading the root address", e))?;
        let id = UniqueId {
            addr,
            magic: random_u64(),
        };
        id.spawn_root(listener, Config::default().timeout)?;
        Ok(id)
    }

    /// An id for a fixed rendezvous address and magic, without a root (rank 0 of
    /// [`Comm::from_env`] starts the root on it).
    pub fn from_parts(addr: SocketAddr, magic: u64) -> UniqueId {
        UniqueId { addr, magic }
    }

    /// The root address.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The magic every connection must present.
    pub fn magic(&self) -> u64 {
        self.magic
    }

    /// The id as bytes: tag, port, IPv6 (or v4-mapped) address, magic; zero-padded.
    pub fn to_bytes(&self) -> [u8; UNIQUE_ID_BYTES] {
        let mut b = [0u8; UNIQUE_ID_BYTES];
        b[..4].copy_from_slice(ID_TAG);
        b[4..6].copy_from_slice(&self.addr.port().to_le_bytes());
        b[8..24].copy_from_slice(&ip16(self.addr.ip()));
        b[24..32].copy_from_slice(&self.magic.to_le_bytes());
        b
    }

    /// Reads an id written by [`UniqueId::to_bytes`].
    pub fn from_bytes(b: &[u8]) -> Result<UniqueId> {
        rocm_core::ensure_arg!(
            b.len() == UNIQUE_ID_BYTES && &b[..4] == ID_TAG,
            "unique id",
            "not a rocm-ccl unique id ({} bytes, expected {UNIQUE_ID_BYTES} starting with `rccl`)",
            b.len()
        );
        let mut ip = [0u8; 16];
        ip.copy_from_slice(&b[8..24]);
        let mut magic = [0u8; 8];
        magic.copy_from_slice(&b[24..32]);
        Ok(UniqueId {
            addr: SocketAddr::new(from_ip16(ip), u16::from_le_bytes([b[4], b[5]])),
            magic: u64::from_le_bytes(magic),
        })
    }

    /// The id as a hex string (handy for environment variables and command lines).
    pub fn to_hex(&self) -> String {
        self.to_bytes()[..32]
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect()
    }

    /// Reads [`UniqueId::to_hex`].
    pub fn from_hex(s: &str) -> Result<UniqueId> {
        let bad = || Error::invalid("unique id", format!("`{s}` is not 64 hex digits"));
        if s.len() != 64 || !s.is_ascii() {
            return Err(bad());
        }
        let mut b = [0u8; UNIQUE_ID_BYTES];
        for (i, out) in b.iter_mut().take(32).enumerate() {
            *out = u8::from_str_radix(&s[2 * i..2 * i + 2], 16).map_err(|_| bad())?;
        }
        UniqueId::from_bytes(&b)
    }

    fn spawn_root(&self, listener: TcpListener, timeout: Option<Duration>) -> Result<()> {
        let magic = self.magic;
        listener
            .set_nonblocking(true)
            .map_err(|e| Error::io("configuring the root socket", e))?;
        std::thread::Builder::new()
            .name("rocm-ccl-root".into())
            .spawn(move || {
                // Errors are delivered to the ranks; a root nobody joined just ends.
                let _ = run_root(listener, magic, timeout);
            })
            .map_err(|e| Error::io("starting the root thread", e))?;
        Ok(())
    }
}

/// What a rank tells the root, and the root tells every rank about every rank.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct PeerInfo {
    addr: SocketAddr,
    host: u64,
}

/// A rank's hello: magic, nranks, rank, port, address, host key and its timeout in ms
/// (0: none).
const HELLO: usize = 8 + 4 + 4 + 2 + 16 + 8 + 8;
const ENTRY: usize = 16 + 2 + 8;
/// The root's status byte for a join refused for a bad rank (0: accepted; a mismatch of
/// nranks is `FailureKind::Mismatch`'s code).
const INVALID: u8 = 1;
/// The root's reply when some ranks did not join before the deadline.
const JOIN_TIMEOUT: u8 = FailureKind::Timeout as u8;

fn deadline_of(timeout: Option<Duration>) -> Option<Instant> {
    timeout.and_then(|t| Instant::now().checked_add(t))
}

fn remaining(deadline: Option<Instant>) -> Option<Duration> {
    deadline.map(|d| {
        d.saturating_duration_since(Instant::now())
            .max(Duration::from_millis(1))
    })
}

fn io(context: &str) -> impl Fn(std::io::Error) -> Error + '_ {
    move |e| Error::io(context, e)
}

/// The error of a bootstrap read or write on `who` that failed while `waiting_for`: a
/// timeout when the socket's deadline passed, a lost peer when it closed, else I/O.
fn exchange_error<'a>(
    who: &'a str,
    timeout: Option<Duration>,
    waiting_for: &'a str,
) -> impl Fn(std::io::Error) -> Error + 'a {
    move |e| match e.kind() {
        std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut => {
            crate::error::timed_out("bootstrap", who, timeout.unwrap_or_default(), waiting_for)
        }
        std::io::ErrorKind::UnexpectedEof
        | std::io::ErrorKind::ConnectionReset
        | std::io::ErrorKind::BrokenPipe => crate::error::peer_lost(
            "bootstrap",
            who,
            format!("the connection closed while waiting for {waiting_for}"),
        ),
        _ => Error::io(format!("bootstrap on {who}, waiting for {waiting_for}"), e),
    }
}

/// "ranks 1, 4" (at most 16 listed) for the ranks below `n` that `present` lacks.
fn missing_ranks(n: usize, present: impl Fn(usize) -> bool) -> String {
    let missing: Vec<usize> = (0..n).filter(|&r| !present(r)).collect();
    let mut list: Vec<String> = missing.iter().take(16).map(|r| r.to_string()).collect();
    if missing.len() > 16 {
        list.push(format!("... ({} in all)", missing.len()));
    }
    format!(
        "{} {}",
        if missing.len() == 1 { "rank" } else { "ranks" },
        list.join(", ")
    )
}

fn set_timeouts(s: &TcpStream, deadline: Option<Instant>) -> Result<()> {
    s.set_read_timeout(remaining(deadline))
        .map_err(io("setting a socket timeout"))?;
    s.set_write_timeout(remaining(deadline))
        .map_err(io("setting a socket timeout"))?;
    s.set_nodelay(true).map_err(io("setting TCP_NODELAY"))
}

/// Accepts one connection before the deadline (`timeout` from the start).
fn accept(
    listener: &TcpListener,
    timeout: Option<Duration>,
    deadline: Option<Instant>,
    what: &str,
) -> Result<TcpStream> {
    loop {
        match listener.accept() {
            Ok((s, _)) => {
                s.set_nonblocking(false)
                    .map_err(io("configuring a socket"))?;
                set_timeouts(&s, deadline)?;
                return Ok(s);
            }
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                if deadline.is_some_and(|d| Instant::now() >= d) {
                    return Err(crate::error::timed_out(
                        "bootstrap",
                        "this process",
                        timeout.unwrap_or_default(),
                        what,
                    ));
                }
                std::thread::sleep(Duration::from_millis(2));
            }
            Err(e) => return Err(Error::io(format!("accepting {what}"), e)),
        }
    }
}

fn run_root(listener: TcpListener, magic: u64, timeout: Option<Duration>) -> Result<()> {
    let mut deadline = deadline_of(timeout);
    // The timeout the deadline stands for (shortened by ranks with shorter ones).
    let mut limit = timeout;
    let mut conns: Vec<(usize, TcpStream)> = Vec::new();
    let mut table: Vec<Option<PeerInfo>> = Vec::new();
    let mut nranks = None;
    let mut problem: Option<String> = None;
    // Whether the problem is ranks disagreeing (a mismatch) rather than one bad rank.
    let mut disagree = false;
    let mut timed_out = false;
    while nranks.is_none_or(|n| conns.len() < n) && problem.is_none() {
        let mut s = match accept(&listener, limit, deadline, "ranks to join") {
            Ok(s) => s,
            // Tell the ranks that did join which ones never came (they would otherwise
            // only see the connection close).
            Err(e) if e.failure_kind() == Some(FailureKind::Timeout) && !conns.is_empty() => {
                let n = nranks.unwrap_or(0);
                problem = Some(format!(
                    "{} did not join within {:?}",
                    missing_ranks(n, |r| table.get(r).is_some_and(Option::is_some)),
                    limit.unwrap_or_default()
                ));
                timed_out = true;
                break;
            }
            Err(e) => return Err(e),
        };
        let mut b = [0u8; HELLO];
        if s.read_exact(&mut b).is_err()
            || u64::from_le_bytes(b[..8].try_into().unwrap_or_default()) != magic
        {
            continue; // not one of ours
        }
        let n = u32::from_le_bytes(b[8..12].try_into().unwrap_or_default()) as usize;
        let rank = u32::from_le_bytes(b[12..16].try_into().unwrap_or_default()) as usize;
        let port = u16::from_le_bytes([b[16], b[17]]);
        let ip = from_ip16(b[18..34].try_into().unwrap_or_default());
        let host = u64::from_le_bytes(b[34..42].try_into().unwrap_or_default());
        let wait_ms = u64::from_le_bytes(b[42..50].try_into().unwrap_or_default());
        if wait_ms > 0 {
            // The rank gives up after its own timeout: answer it before then, naming
            // the ranks still missing, rather than let it see only a read time out.
            let own = Duration::from_millis(wait_ms);
            if let Some(d) = Instant::now().checked_add(own * 9 / 10) {
                if deadline.is_none_or(|dl| d < dl) {
                    deadline = Some(d);
                    limit = Some(own);
                }
            }
        }
        match nranks {
            None if n == 0 || n > 1 << 16 => {
                problem = Some(format!("nranks = {n} is not in 1..=65536"));
            }
            None => {
                nranks = Some(n);
                table = vec![None; n];
            }
            Some(m) if m != n => {
                problem = Some(format!(
                    "an earlier rank gave nranks = {m}, rank {rank} gives {n}"
                ));
                disagree = true;
            }
            _ => {}
        }
        if problem.is_none() {
            match table.get_mut(rank) {
                None => problem = Some(format!("rank {rank} is not below nranks = {n}")),
                Some(Some(_)) => problem = Some(format!("rank {rank} joined twice")),
                Some(slot) => {
                    *slot = Some(PeerInfo {
                        addr: SocketAddr::new(ip, port),
                        host,
                    })
                }
            }
        }
        conns.push((rank, s));
    }
    let mut reply = Vec::new();
    match &problem {
        Some(p) => {
            reply.push(if timed_out {
                JOIN_TIMEOUT
            } else if disagree {
                FailureKind::Mismatch as u8
            } else {
                INVALID
            });
            reply.extend_from_slice(&(p.len() as u32).to_le_bytes());
            reply.extend_from_slice(p.as_bytes());
        }
        None => {
            reply.push(0u8);
            for info in table.iter().flatten() {
                reply.extend_from_slice(&ip16(info.addr.ip()));
                reply.extend_from_slice(&info.addr.port().to_le_bytes());
                reply.extend_from_slice(&info.host.to_le_bytes());
            }
        }
    }
    for (_, s) in &mut conns {
        let _ = s.write_all(&reply);
    }
    Ok(())
}

/// A key equal for processes of one host (one kernel boot, one hostname).
fn host_key() -> u64 {
    let read = |p: &str| std::fs::read_to_string(p).unwrap_or_default();
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in read("/proc/sys/kernel/random/boot_id")
        .bytes()
        .chain(read("/proc/sys/kernel/hostname").bytes())
        .chain(
            std::env::var("ROCM_CCL_HOST_ID")
                .unwrap_or_default()
                .bytes(),
        )
    {
        h = (h ^ byte as u64).wrapping_mul(0x100_0000_01b3);
    }
    h
}

/// Connects to `addr`, retrying until the deadline (the listener may not be up yet).
fn connect(addr: SocketAddr, deadline: Option<Instant>, what: &str) -> Result<TcpStream> {
    loop {
        let attempt = remaining(deadline)
            .unwrap_or(Duration::from_secs(5))
            .min(Duration::from_secs(5));
        match TcpStream::connect_timeout(&addr, attempt) {
            Ok(s) => {
                set_timeouts(&s, deadline)?;
                return Ok(s);
            }
            Err(e) => {
                if deadline.is_some_and(|d| Instant::now() >= d) {
                    return Err(Error::io(format!("connecting to {what} at {addr}"), e));
                }
                std::thread::sleep(Duration::from_millis(20));
            }
        }
    }
}

pub(crate) fn shm_dir() -> std::path::PathBuf {
    let dev_shm = std::path::Path::new("/dev/shm");
    if dev_shm.is_dir() {
        dev_shm.to_path_buf()
    } else {
        std::env::temp_dir()
    }
}

/// Creates the new file `name` in [`shm_dir`] for reading and writing (failing if it
/// exists); its path and handle.
pub(crate) fn create_shm_file(name: &str) -> Result<(std::path::PathBuf, std::fs::File)> {
    let path = shm_dir().join(name);
    let file = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create_new(true)
        .open(&path)
        .map_err(|e| Error::io(format!("creating {}", path.display()), e))?;
    Ok((path, file))
}

fn map_file(file: &std::fs::File) -> Result<memmap2::MmapMut> {
    // SAFETY: the file is a private shared-memory segment of this communicator (random
    // name, deleted once every rank mapped it); its contents are only accessed through
    // the ring protocol and atomics, which is what makes concurrent writers sound.
    unsafe { memmap2::MmapMut::map_mut(file) }.map_err(io("mapping the shared-memory segment"))
}

impl Comm {
    /// Joins the communicator `id` as `rank` of `nranks` (NCCL's `ncclCommInitRank`).
    pub fn init_rank(nranks: usize, id: &UniqueId, rank: usize, device: &Device) -> Result<Comm> {
        Comm::init_rank_with(nranks, id, rank, device, &Config::default())
    }

    /// [`Comm::init_rank`] with explicit settings (every rank must pass the same ring size).
    pub fn init_rank_with(
        nranks: usize,
        id: &UniqueId,
        rank: usize,
        device: &Device,
        config: &Config,
    ) -> Result<Comm> {
        if !device.is_cpu() {
            return Err(Error::unsupported("rocm-ccl init_rank", device));
        }
        config.validate()?;
        rocm_core::ensure_arg!(
            rank < nranks && nranks <= 1 << 16,
            "rank",
            "must be below nranks = {nranks} (at most 65536), got {rank}"
        );
        let deadline = deadline_of(config.timeout);
        // 1-2: join the root.
        let mut root = connect(id.addr, deadline, "the root")?;
        let my_ip = root
            .local_addr()
            .map_err(io("reading the local address"))?
            .ip();
        let listener =
            TcpListener::bind(SocketAddr::new(my_ip, 0)).map_err(io("binding the rank socket"))?;
        listener
            .set_nonblocking(true)
            .map_err(io("configuring the rank socket"))?;
        let me = listener
            .local_addr()
            .map_err(io("reading the rank address"))?;
        let host = host_key();
        let mut hello = Vec::with_capacity(HELLO);
        hello.extend_from_slice(&id.magic.to_le_bytes());
        hello.extend_from_slice(&(nranks as u32).to_le_bytes());
        hello.extend_from_slice(&(rank as u32).to_le_bytes());
        hello.extend_from_slice(&me.port().to_le_bytes());
        hello.extend_from_slice(&ip16(me.ip()));
        hello.extend_from_slice(&host.to_le_bytes());
        let wait_ms = config
            .timeout
            .map_or(0, |t| u64::try_from(t.as_millis()).unwrap_or(u64::MAX));
        hello.extend_from_slice(&wait_ms.to_le_bytes());
        let who = format!("rank {rank}");
        let at_root = |what: &'static str| exchange_error(&who, config.timeout, what);
        root.write_all(&hello)
            .map_err(at_root("the root to take this rank's address"))?;
        let mut status = [0u8; 1];
        root.read_exact(&mut status)
            .map_err(at_root("the other ranks to join at the root"))?;
        if status[0] != 0 {
            let mut len = [0u8; 4];
            root.read_exact(&mut len)
                .map_err(at_root("the root's error message"))?;
            let mut msg = vec![0u8; (u32::from_le_bytes(len) as usize).min(4096)];
            root.read_exact(&mut msg)
                .map_err(at_root("the root's error message"))?;
            let msg = String::from_utf8_lossy(&msg);
            return Err(match status[0] {
                JOIN_TIMEOUT => crate::error::timed_out(
                    "bootstrap",
                    &who,
                    config.timeout.unwrap_or_default(),
                    &msg,
                ),
                x if x == FailureKind::Mismatch as u8 => crate::error::mismatch("nranks", msg),
                _ => Error::invalid("nranks/rank", msg),
            });
        }
        let mut raw = vec![0u8; nranks * ENTRY];
        root.read_exact(&mut raw)
            .map_err(at_root("the rank table from the root"))?;
        let table: Vec<PeerInfo> = raw
            .chunks_exact(ENTRY)
            .map(|e| PeerInfo {
                addr: SocketAddr::new(
                    from_ip16(e[..16].try_into().unwrap_or_default()),
                    u16::from_le_bytes([e[16], e[17]]),
                ),
                host: u64::from_le_bytes(e[18..26].try_into().unwrap_or_default()),
            })
            .collect();
        drop(root);

        // 3: the mesh. Connect to lower ranks, accept higher ones.
        let mut mesh: Vec<Option<TcpStream>> = (0..nranks).map(|_| None).collect();
        for (peer, info) in table.iter().enumerate().take(rank) {
            let mut s = connect(info.addr, deadline, &format!("rank {peer}"))?;
            let mut b = [0u8; 12];
            b[..8].copy_from_slice(&id.magic.to_le_bytes());
            b[8..].copy_from_slice(&(rank as u32).to_le_bytes());
            s.write_all(&b).map_err(io("greeting a peer"))?;
            mesh[peer] = Some(s);
        }
        let mut waiting = nranks - rank - 1;
        while waiting > 0 {
            let pending = missing_ranks(nranks, |p| p <= rank || mesh[p].is_some());
            let mut s = accept(
                &listener,
                config.timeout,
                deadline,
                &format!("{pending} to connect"),
            )
            .map_err(|e| match e {
                Error::Timeout {
                    op,
                    after,
                    waiting_for,
                    ..
                } => Error::Timeout {
                    op,
                    who: who.clone(),
                    after,
                    waiting_for,
                },
                e => e,
            })?;
            let mut b = [0u8; 12];
            if s.read_exact(&mut b).is_err() || b[..8] != id.magic.to_le_bytes() {
                continue;
            }
            let peer = u32::from_le_bytes([b[8], b[9], b[10], b[11]]) as usize;
            match mesh.get_mut(peer) {
                Some(slot @ None) if peer > rank => {
                    *slot = Some(s);
                    waiting -= 1;
                }
                _ => {
                    return Err(Error::invalid(
                        "rank",
                        format!("rank {peer} connected twice or out of order"),
                    ))
                }
            }
        }

        // 4: shared memory on one host, else TCP.
        let one_host = table.iter().all(|p| p.host == table[0].host);
        let layout = RegionLayout {
            nranks,
            cap: config.ring_bytes,
        };
        let (transport, control, links) = if nranks > 1 && one_host && config.shared_memory {
            let region = share_region(rank, &mut mesh, layout, id.magic)?;
            let links = (0..nranks)
                .map(|p| {
                    if p == rank {
                        Ok(None)
                    } else {
                        Ok(Some(
                            Box::new(region.shm_link(layout, rank, p)?) as Box<dyn Link>
                        ))
                    }
                })
                .collect::<Result<Vec<_>>>()?;
            (Transport::SharedMemory, region, links)
        } else {
            let links = mesh
                .iter()
                .enumerate()
                .map(|(p, s)| match s {
                    None => Ok(None),
                    Some(s) => {
                        let s = s.try_clone().map_err(io("cloning a socket"))?;
                        Ok(Some(Box::new(TcpLink::new(s, rank, p)?) as Box<dyn Link>))
                    }
                })
                .collect::<Result<Vec<_>>>()?;
            (Transport::Tcp, Region::heap(4096)?, links)
        };
        for s in mesh.iter().flatten() {
            s.set_nonblocking(true)
                .map_err(io("configuring a socket"))?;
        }
        let parts = Parts {
            rank,
            device: device.clone(),
            transport,
            links,
            control,
            mesh,
            direct: (transport == Transport::SharedMemory && config.direct)
                .then_some((layout, crate::engine::DirectMode::Processes)),
        };
        Ok(Comm::from_parts(parts, config))
    }
}

/// Rank 0 creates the segment and sends its path; the others map it and acknowledge;
/// rank 0 deletes the file once everyone has it mapped.
fn share_region(
    rank: usize,
    mesh: &mut [Option<TcpStream>],
    layout: RegionLayout,
    magic: u64,
) -> Result<Arc<Region>> {
    let bytes = layout.bytes();
    if rank == 0 {
        let (path, file) =
            create_shm_file(&format!("rocm-ccl-{magic:016x}-{}", std::process::id()))?;
        let cleanup = |e: Error| {
            let _ = std::fs::remove_file(&path);
            e
        };
        file.set_len(bytes as u64).map_err(|e| {
            cleanup(Error::io(
                format!("sizing {} to {bytes} bytes", path.display()),
                e,
            ))
        })?;
        let map = map_file(&file).map_err(cleanup)?;
        let p = path.to_string_lossy().into_owned();
        let mut msg = Vec::new();
        msg.extend_from_slice(&(bytes as u64).to_le_bytes());
        msg.extend_from_slice(&(p.len() as u32).to_le_bytes());
        msg.extend_from_slice(p.as_bytes());
        let mut result = Ok(());
        for s in mesh.iter_mut().flatten() {
            result = result.and_then(|_| s.write_all(&msg).map_err(io("sending the segment name")));
        }
        for s in mesh.iter_mut().flatten() {
            let mut ack = [0u8; 1];
            result = result.and_then(|_| {
                s.read_exact(&mut ack)
                    .map_err(io("waiting for peers to map the segment"))
            });
            if result.is_ok() && ack[0] != 1 {
                result = Err(Error::io(
                    "mapping the shared-memory segment",
                    "a peer failed to map it",
                ));
            }
        }
        let _ = std::fs::remove_file(&path);
        result?;
        Ok(Region::mapped(map))
    } else {
        let s = mesh
            .first_mut()
            .and_then(|s| s.as_mut())
            .ok_or_else(|| Error::invalid("mesh", "no connection to rank 0"))?;
        let mut head = [0u8; 12];
        s.read_exact(&mut head)
            .map_err(io("receiving the segment name"))?;
        let want = u64::from_le_bytes(head[..8].try_into().unwrap_or_default());
        let len = u32::from_le_bytes(head[8..].try_into().unwrap_or_default()) as usize;
        let mut p = vec![0u8; len.min(4096)];
        s.read_exact(&mut p)
            .map_err(io("receiving the segment name"))?;
        let path = String::from_utf8_lossy(&p).into_owned();
        let mapped = (|| {
            if want != bytes as u64 {
                return Err(crate::error::mismatch(
                    "ring_bytes",
                    format!("rank 0's segment has {want} bytes, this rank expects {bytes}"),
                ));
            }
            let file = std::fs::OpenOptions::new()
                .read(true)
                .write(true)
                .open(&path)
                .map_err(|e| Error::io(format!("opening {path}"), e))?;
            map_file(&file)
        })();
        let _ = s.write_all(&[u8::from(mapped.is_ok())]);
        Ok(Region::mapped(mapped?))
    }
}

/// Rank, size and rendezvous read from a launcher's environment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LaunchInfo {
    pub rank: usize,
    pub nranks: usize,
    /// Rank within the host, when the launcher says (`LOCAL_RANK`, `OMPI_COMM_WORLD_LOCAL_RANK`,
    /// `SLURM_LOCALID`, `MPI_LOCALRANKID`).
    pub local_rank: Option<usize>,
    /// Which convention was found (`torchrun`, `openmpi`, `pmi`, `slurm`).
    pub launcher: &'static str,
    /// `host:port` of the rendezvous (`ROCM_CCL_COMM_ID`, else `MASTER_ADDR:MASTER_PORT`).
    pub rendezvous: String,
    /// Derived from the rendezvous and the job id, the same on every rank.
    pub magic: u64,
}

/// The launcher conventions, most specific first: (name, rank var, size var, local rank var).
const LAUNCHERS: [(&str, &str, &str, &str); 4] = [
    ("torchrun", "RANK", "WORLD_SIZE", "LOCAL_RANK"),
    (
        "openmpi",
        "OMPI_COMM_WORLD_RANK",
        "OMPI_COMM_WORLD_SIZE",
        "OMPI_COMM_WORLD_LOCAL_RANK",
    ),
    ("pmi", "PMI_RANK", "PMI_SIZE", "MPI_LOCALRANKID"),
    ("slurm", "SLURM_PROCID", "SLURM_NTASKS", "SLURM_LOCALID"),
];

/// Reads the launcher conventions through `var` (the process environment in
/// [`Comm::from_env`]; a map in tests).
pub fn launch_info(var: &dyn Fn(&str) -> Option<String>) -> Result<LaunchInfo> {
    let num = |name: &str| -> Result<Option<usize>> {
        match var(name) {
            Some(v) if !v.trim().is_empty() => v
                .trim()
                .parse()
                .map(Some)
                .map_err(|e| Error::invalid(name, format!("`{v}` is not a number: {e}"))),
            _ => Ok(None),
        }
    };
    let mut found = None;
    for (launcher, rank_var, size_var, local_var) in LAUNCHERS {
        if let (Some(rank), Some(nranks)) = (num(rank_var)?, num(size_var)?) {
            found = Some((launcher, rank, nranks, num(local_var)?));
            break;
        }
    }
    let Some((launcher, rank, nranks, local_rank)) = found else {
        return Err(Error::invalid(
            "environment",
            "no launcher variables found: set RANK/WORLD_SIZE (torchrun), OMPI_COMM_WORLD_RANK/SIZE \
             (mpirun), PMI_RANK/PMI_SIZE or SLURM_PROCID/SLURM_NTASKS",
        ));
    };
    rocm_core::ensure_arg!(
        rank < nranks,
        "rank",
        "{launcher}: rank {rank} is not below the size {nranks}"
    );
    let rendezvous = match (var("ROCM_CCL_COMM_ID"), var("MASTER_ADDR"), var("MASTER_PORT")) {
        (Some(id), _, _) if !id.is_empty() => id,
        (_, Some(a), Some(p)) if !a.is_empty() && !p.is_empty() => {
            if a.contains(':') && !a.starts_with('[') {
                format!("[{a}]:{p}")
            } else {
                format!("{a}:{p}")
            }
        }
        _ => {
            return Err(Error::invalid(
                "environment",
                format!(
                    "{launcher} gives rank {rank} of {nranks} but no rendezvous: set MASTER_ADDR and MASTER_PORT \
                     (or ROCM_CCL_COMM_ID=host:port) to an address rank 0 can listen on"
                ),
            ))
        }
    };
    let job = [
        "ROCM_CCL_JOB_ID",
        "TORCHELASTIC_RUN_ID",
        "SLURM_JOB_ID",
        "OMPI_MCA_ess_base_jobid",
        "PMI_JOBID",
    ]
    .iter()
    .find_map(|v| var(v))
    .unwrap_or_default();
    let mut magic: u64 = 0xcbf2_9ce4_8422_2325;
    for b in rendezvous.bytes().chain([0]).chain(job.bytes()) {
        magic = (magic ^ b as u64).wrapping_mul(0x100_0000_01b3);
    }
    Ok(LaunchInfo {
        rank,
        nranks,
        local_rank,
        launcher,
        rendezvous,
        magic,
    })
}

impl Comm {
    /// Joins the communicator described by the launcher's environment (torchrun, mpirun,
    /// srun; see [`launch_info`]); rank 0 hosts the rendezvous on `MASTER_ADDR:MASTER_PORT`.
    /// Settings come from [`Config::from_env`].
    pub fn from_env() -> Result<Comm> {
        let info = launch_info(&|v| std::env::var(v).ok())?;
        Comm::from_launch(&info, &Config::from_env()?)
    }

    /// Joins the communicator `info` describes (see [`Comm::from_env`]).
    pub fn from_launch(info: &LaunchInfo, config: &Config) -> Result<Comm> {
        let addr = info
            .rendezvous
            .to_socket_addrs()
            .map_err(|e| Error::io(format!("resolving the rendezvous {}", info.rendezvous), e))?
            .next()
            .ok_or_else(|| {
                Error::invalid(
                    "rendezvous",
                    format!("{} resolves to no address", info.rendezvous),
                )
            })?;
        let id = UniqueId::from_parts(addr, info.magic);
        if info.rank == 0 {
            let listener = TcpListener::bind(addr)
                .or_else(|_| {
                    TcpListener::bind(SocketAddr::new(Ipv4Addr::UNSPECIFIED.into(), addr.port()))
                })
                .map_err(|e| Error::io(format!("listening on the rendezvous {addr}"), e))?;
            id.spawn_root(listener, config.timeout)?;
        }
        Comm::init_rank_with(info.nranks, &id, info.rank, &Device::cpu(), config)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    #[test]
    fn unique_id_round_trips() {
        let id = UniqueId::from_parts("10.1.2.3:29500".parse().unwrap(), 0xdead_beef_1234);
        assert_eq!(UniqueId::from_bytes(&id.to_bytes()).unwrap(), id);
        assert_eq!(UniqueId::from_hex(&id.to_hex()).unwrap(), id);
        let v6 = UniqueId::from_parts("[fe80::1]:7".parse().unwrap(), 1);
        assert_eq!(UniqueId::from_bytes(&v6.to_bytes()).unwrap(), v6);
        assert!(UniqueId::from_bytes(&[0u8; 128]).is_err());
        assert!(UniqueId::from_bytes(&[0u8; 3]).is_err());
        assert!(UniqueId::from_hex("zz").is_err());
    }

    fn env(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
        let m: HashMap<String, String> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        move |k| m.get(k).cloned()
    }

    #[test]
    fn launchers_are_recognised() {
        let t = launch_info(&env(&[
            ("RANK", "3"),
            ("WORLD_SIZE", "8"),
            ("LOCAL_RANK", "1"),
            ("MASTER_ADDR", "node0"),
            ("MASTER_PORT", "29500"),
        ]))
        .unwrap();
        assert_eq!(
            (t.launcher, t.rank, t.nranks, t.local_rank),
            ("torchrun", 3, 8, Some(1))
        );
        assert_eq!(t.rendezvous, "node0:29500");
        let o = launch_info(&env(&[
            ("OMPI_COMM_WORLD_RANK", "0"),
            ("OMPI_COMM_WORLD_SIZE", "2"),
            ("ROCM_CCL_COMM_ID", "127.0.0.1:5000"),
        ]))
        .unwrap();
        assert_eq!((o.launcher, o.rank, o.nranks), ("openmpi", 0, 2));
        let p = launch_info(&env(&[
            ("PMI_RANK", "1"),
            ("PMI_SIZE", "4"),
            ("MASTER_ADDR", "h"),
            ("MASTER_PORT", "1"),
        ]))
        .unwrap();
        assert_eq!(p.launcher, "pmi");
        let s = launch_info(&env(&[
            ("SLURM_PROCID", "5"),
            ("SLURM_NTASKS", "6"),
            ("SLURM_LOCALID", "1"),
            ("MASTER_ADDR", "h"),
            ("MASTER_PORT", "1"),
        ]))
        .unwrap();
        assert_eq!((s.launcher, s.rank, s.local_rank), ("slurm", 5, Some(1)));
        // Same rendezvous and job: same magic on every rank.
        let s2 = launch_info(&env(&[
            ("SLURM_PROCID", "0"),
            ("SLURM_NTASKS", "6"),
            ("MASTER_ADDR", "h"),
            ("MASTER_PORT", "1"),
        ]))
        .unwrap();
        assert_eq!(s.magic, s2.magic);
        // Errors name what is missing or wrong.
        assert!(launch_info(&env(&[]))
            .unwrap_err()
            .to_string()
            .contains("RANK"));
        assert!(launch_info(&env(&[("RANK", "0"), ("WORLD_SIZE", "2")]))
            .unwrap_err()
            .to_string()
            .contains("MASTER_ADDR"));
        assert!(launch_info(&env(&[("RANK", "x"), ("WORLD_SIZE", "2")])).is_err());
        assert!(launch_info(&env(&[
            ("RANK", "2"),
            ("WORLD_SIZE", "2"),
            ("MASTER_ADDR", "h"),
            ("MASTER_PORT", "1")
        ]))
        .is_err());
    }

    #[test]
    fn root_rejects_disagreeing_ranks() {
        let id = UniqueId::new_on("127.0.0.1:0".parse().unwrap()).unwrap();
        let config = Config {
            timeout: Some(Duration::from_secs(20)),
            ..Config::default()
        };
        let res: Vec<Result<Comm>> = std::thread::scope(|s| {
            let hs: Vec<_> = [(2usize, 0usize), (3, 1)]
                .into_iter()
                .map(|(n, r)| {
                    let config = config.clone();
                    s.spawn(move || Comm::init_rank_with(n, &id, r, &Device::cpu(), &config))
                })
                .collect();
            hs.into_iter().map(|h| h.join().unwrap()).collect()
        });
        for r in res {
            assert!(r.err().unwrap().to_string().contains("nranks"));
        }
    }
}
