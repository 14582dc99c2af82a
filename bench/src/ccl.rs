//! `rocm-bench ccl`: collective benchmarks in the style of nccl-tests / rccl-tests.
//!
//! `rocm-bench ccl all_reduce -b 8 -e 256M -f 2 --ranks 4 [--procs]` starts N local ranks
//! (threads sharing memory, or with `--procs` processes on this host: copies of this binary
//! joined through a unique id) and prints nccl-tests' table: size, count, type, redop, root,
//! time (us), algbw and busbw (GB/s, 1e9 B/s) and #wrong, with algbw = S / t and the busbw
//! factors of nccl-tests' PERFORMANCE.md (all_reduce 2(n-1)/n; all_gather, reduce_scatter,
//! all_to_all (n-1)/n; broadcast, reduce 1). Time is the slowest rank's mean per iteration.
//! After the table, rank 0 compares each busbw of 1 MiB or more with a single-thread
//! memcpy of the same bytes, measured right then in the same process (the peer:
//! 64 MiB all_reduce over 2 ranks, busbw at least 50% of it).

use rocm_ccl::{Comm, Config, ReduceOp, Reducible, Transport, UniqueId};
use rocm_core::{bf16, f16, DType, DeviceBuffer};
use std::process::Command;
use std::time::{Duration, Instant};

/// Which collective to measure.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
#[value(rename_all = "snake_case")]
pub enum Coll {
    AllReduce,
    AllGather,
    Broadcast,
    Reduce,
    ReduceScatter,
    AllToAll,
}

impl Coll {
    fn name(self) -> &'static str {
        match self {
            Coll::AllReduce => "all_reduce",
            Coll::AllGather => "all_gather",
            Coll::Broadcast => "broadcast",
            Coll::Reduce => "reduce",
            Coll::ReduceScatter => "reduce_scatter",
            Coll::AllToAll => "all_to_all",
        }
    }

    /// nccl-tests' bus bandwidth factor.
    fn bus_factor(self, n: usize) -> f64 {
        let n = n as f64;
        match self {
            Coll::AllReduce => 2.0 * (n - 1.0) / n,
            Coll::AllGather | Coll::ReduceScatter | Coll::AllToAll => (n - 1.0) / n,
            Coll::Broadcast | Coll::Reduce => 1.0,
        }
    }

    /// Whether the size is split into one block per rank.
    fn per_rank_blocks(self) -> bool {
        matches!(self, Coll::AllGather | Coll::ReduceScatter | Coll::AllToAll)
    }
}

#[derive(clap::Args, Clone, Debug)]
pub struct CclArgs {
    /// The collective.
    #[arg(value_enum)]
    coll: Coll,
    /// Smallest size in bytes (K, M, G suffixes: powers of 1024).
    #[arg(short = 'b', long = "minbytes", default_value = "8", value_parser = parse_size)]
    min_bytes: usize,
    /// Largest size in bytes.
    #[arg(short = 'e', long = "maxbytes", default_value = "64M", value_parser = parse_size)]
    max_bytes: usize,
    /// Multiplication factor between sizes.
    #[arg(short = 'f', long = "stepfactor", default_value_t = 2)]
    factor: usize,
    /// Number of ranks.
    #[arg(long, default_value_t = 2)]
    ranks: usize,
    /// Ranks are processes (shared memory, or TCP with --tcp) instead of threads.
    #[arg(long)]
    procs: bool,
    /// With --procs: use TCP over loopback instead of shared memory.
    #[arg(long)]
    tcp: bool,
    /// Element type.
    #[arg(short = 'd', long = "datatype", default_value = "f32")]
    dtype: DType,
    /// Reduction operator.
    #[arg(short = 'o', long = "op", default_value = "sum")]
    op: ReduceOp,
    /// Root of broadcast / reduce.
    #[arg(short = 'r', long, default_value_t = 0)]
    root: usize,
    /// Timed iterations per size.
    #[arg(short = 'n', long = "iters", default_value_t = 20)]
    iters: usize,
    /// Warm-up iterations per size.
    #[arg(short = 'w', long = "warmup_iters", default_value_t = 5)]
    warmup: usize,
    /// Allocate the send and receive buffers with `Comm::alloc_shared` (registered
    /// buffers: processes of one host reduce straight out of each other's buffers).
    #[arg(long)]
    registered: bool,
    /// nccl-tests' spelling of --registered: `-R 1` registers the buffers.
    #[arg(short = 'R', long = "local_register", default_value_t = 0)]
    local_register: u8,
    /// Check results (counts #wrong); 0 to skip.
    #[arg(short = 'c', long = "check", default_value_t = 1)]
    check: u8,
    /// Internal: the unique id a worker process joins.
    #[arg(long, hide = true)]
    worker_id: Option<String>,
    /// Internal: the rank of a worker process.
    #[arg(long, hide = true)]
    worker_rank: Option<usize>,
}

impl CclArgs {
    fn is_registered(&self) -> bool {
        self.registered || self.local_register != 0
    }
}

fn parse_size(s: &str) -> Result<usize, String> {
    let s = s.trim();
    let (num, mult) = match s.char_indices().last() {
        Some((i, 'K' | 'k')) => (&s[..i], 1usize << 10),
        Some((i, 'M' | 'm')) => (&s[..i], 1 << 20),
        Some((i, 'G' | 'g')) => (&s[..i], 1 << 30),
        _ => (s, 1),
    };
    num.parse::<usize>()
        .ok()
        .and_then(|v| v.checked_mul(mult))
        .ok_or_else(|| format!("`{s}` is not a size (a number with an optional K, M or G)"))
}

/// Small exact values: every op on up to 8 ranks stays exact in every type (values 1 or 2,
/// so sums <= 16 and products <= 16).
trait Small: Reducible {
    fn small(v: u8) -> Self;
}
macro_rules! small_float {
    ($($t:ty),*) => {$( impl Small for $t { fn small(v: u8) -> Self { v as $t } } )*};
}
small_float!(f32, f64, i32, i64, u8, i8, u32);
impl Small for f16 {
    fn small(v: u8) -> Self {
        f16::from_f32(v as f32)
    }
}
impl Small for bf16 {
    fn small(v: u8) -> Self {
        bf16::from_f32(v as f32)
    }
}

fn value<T: Small>(rank: usize, i: usize) -> T {
    T::small(1 + ((rank + i) % 2) as u8)
}

type BoxResult<T> = Result<T, Box<dyn std::error::Error>>;

/// One size on one rank: returns (mean seconds per iteration on this rank, #wrong here).
fn one_size<T: Small>(comm: &mut Comm, a: &CclArgs, bytes: usize) -> BoxResult<(f64, usize)> {
    let (n, r) = (comm.nranks(), comm.rank());
    let es = std::mem::size_of::<T>();
    let dev = comm.device().clone();
    let (send_len, recv_len) = match a.coll {
        Coll::AllReduce | Coll::Broadcast | Coll::Reduce => (bytes / es, bytes / es),
        Coll::AllGather => (bytes / es / n, bytes / es / n * n),
        Coll::ReduceScatter => (bytes / es / n * n, bytes / es / n),
        Coll::AllToAll => (bytes / es / n * n, bytes / es / n * n),
    };
    let input: Vec<T> =
        rocm_core::host_alloc::try_from_fn("rank input", send_len, |i| value(r, i))?;
    let (x, mut y) = if a.is_registered() {
        let mut x = comm.alloc_shared::<T>(send_len)?;
        x.upload(&input)?;
        (x, comm.alloc_shared::<T>(recv_len)?)
    } else {
        (
            DeviceBuffer::from_slice(&dev, &input)?,
            DeviceBuffer::<T>::zeros(&dev, recv_len)?,
        )
    };
    let step = |comm: &mut Comm, y: &mut DeviceBuffer<T>| -> rocm_core::Result<()> {
        match a.coll {
            Coll::AllReduce => comm.all_reduce(&x.as_slice(), &mut y.as_slice_mut(), a.op),
            Coll::AllGather => comm.all_gather(&x.as_slice(), &mut y.as_slice_mut()),
            Coll::ReduceScatter => comm.reduce_scatter(&x.as_slice(), &mut y.as_slice_mut(), a.op),
            Coll::AllToAll => comm.all_to_all(&x.as_slice(), &mut y.as_slice_mut()),
            Coll::Broadcast => comm.broadcast(&mut y.as_slice_mut(), a.root),
            Coll::Reduce => {
                let mut yv = y.as_slice_mut();
                comm.reduce(
                    &x.as_slice(),
                    (r == a.root).then_some(&mut yv),
                    a.op,
                    a.root,
                )
            }
        }
    };
    if a.coll == Coll::Broadcast && r == a.root {
        y.upload(&input)?; // broadcast is in place: the root's buffer is the source
    }
    for _ in 0..a.warmup {
        step(comm, &mut y)?;
    }
    comm.barrier()?;
    let t = Instant::now();
    for _ in 0..a.iters {
        step(comm, &mut y)?;
    }
    let secs = t.elapsed().as_secs_f64() / a.iters.max(1) as f64;
    let wrong = if a.check == 0 {
        0
    } else {
        count_wrong::<T>(a, n, r, &y.to_vec()?)
    };
    Ok((secs, wrong))
}

fn reduced<T: Small>(op: ReduceOp, n: usize, i: usize) -> T {
    let mut acc = value::<T>(0, i);
    for r in 1..n {
        acc = T::combine(op, acc, value(r, i));
    }
    if op == ReduceOp::Avg {
        acc = T::div_ranks(acc, n);
    }
    acc
}

fn count_wrong<T: Small>(a: &CclArgs, n: usize, r: usize, got: &[T]) -> usize {
    let expect = |i: usize| -> Option<T> {
        match a.coll {
            Coll::AllReduce => Some(reduced(a.op, n, i)),
            Coll::Reduce => (r == a.root).then(|| reduced(a.op, n, i)),
            Coll::Broadcast => Some(value(a.root, i)),
            Coll::AllGather => {
                let c = got.len() / n;
                Some(value(i / c, i % c))
            }
            Coll::ReduceScatter => Some(reduced(a.op, n, r * got.len() + i)),
            Coll::AllToAll => {
                let c = got.len() / n;
                Some(value(i / c, r * c + i % c))
            }
        }
    };
    got.iter()
        .enumerate()
        .filter(|&(i, g)| expect(i).is_some_and(|e| e != *g))
        .count()
}

fn sizes(a: &CclArgs) -> Vec<usize> {
    let mut out = Vec::new();
    let mut s = a.min_bytes.max(1);
    while s <= a.max_bytes {
        out.push(s);
        match s.checked_mul(a.factor.max(2)) {
            Some(next) => s = next,
            None => break,
        }
    }
    out
}

/// Every size on one rank; rank 0 prints the table.
fn run_rank<T: Small>(comm: &mut Comm, a: &CclArgs) -> BoxResult<()> {
    let (n, r) = (comm.nranks(), comm.rank());
    let es = std::mem::size_of::<T>();
    if r == 0 {
        let transport = match comm.transport() {
            Transport::Threads => "threads",
            Transport::SharedMemory => "processes, shared memory",
            Transport::Tcp => "processes, TCP",
        };
        println!(
            "# rocm-bench ccl {}: {n} ranks ({transport}{}), {} iters, {} warm-up",
            a.coll.name(),
            if a.is_registered() {
                ", registered buffers"
            } else {
                ""
            },
            a.iters,
            a.warmup
        );
        println!(
            "# {:>12} {:>12} {:>6} {:>6} {:>5} {:>10} {:>9} {:>9} {:>7}",
            "size(B)", "count", "type", "redop", "root", "time(us)", "algbw", "busbw", "#wrong"
        );
    }
    let reducing = matches!(a.coll, Coll::AllReduce | Coll::Reduce | Coll::ReduceScatter);
    // (bytes, busbw) of every row, for the memcpy comparison after the table.
    let mut rows = Vec::new();
    let mut secs_buf = DeviceBuffer::<f64>::zeros(comm.device(), 1)?;
    let mut wrong_buf = DeviceBuffer::<i64>::zeros(comm.device(), 1)?;
    for bytes in sizes(a) {
        let block = if a.coll.per_rank_blocks() { es * n } else { es };
        let bytes = bytes / block * block;
        let (secs, wrong) = one_size::<T>(comm, a, bytes)?;
        // The slowest rank's time and the total of wrong elements, as nccl-tests reports.
        secs_buf.upload(&[secs])?;
        comm.all_reduce_in_place(&mut secs_buf.as_slice_mut(), ReduceOp::Max)?;
        wrong_buf.upload(&[wrong as i64])?;
        comm.all_reduce_in_place(&mut wrong_buf.as_slice_mut(), ReduceOp::Sum)?;
        if r == 0 {
            let t = secs_buf.to_vec()?[0];
            let algbw = bytes as f64 / t / 1e9;
            let busbw = algbw * a.coll.bus_factor(n);
            rows.push((bytes, busbw));
            let redop = if reducing { a.op.name() } else { "none" };
            let root = if matches!(a.coll, Coll::Broadcast | Coll::Reduce) {
                a.root as i64
            } else {
                -1
            };
            let wrong = if a.check == 0 {
                "N/A".to_string()
            } else {
                wrong_buf.to_vec()?[0].to_string()
            };
            println!(
                "  {:>12} {:>12} {:>6} {:>6} {:>5} {:>10.2} {:>9.3} {:>9.3} {:>7}",
                bytes,
                bytes / es,
                T::DTYPE.name(),
                redop,
                root,
                t * 1e6,
                algbw,
                busbw,
                wrong
            );
        }
    }
    if r == 0 {
        println!(
            "# rank 0 calls through direct access (no rings): {}",
            comm.direct_calls()
        );
        // The peer: a single-thread memcpy of the same bytes, measured now that
        // every rank has finished (this rank alone runs).
        let big: Vec<_> = rows.into_iter().filter(|&(b, _)| b >= 1 << 20).collect();
        if !big.is_empty() {
            println!("# busbw vs a single-thread memcpy of the same bytes, same run (after the collectives):");
            println!(
                "# {:>12} {:>9} {:>12} {:>8}",
                "size(B)", "busbw", "memcpy GB/s", "ratio"
            );
        }
        for (bytes, busbw) in big {
            let m = memcpy_gbs(bytes)?;
            println!(
                "# {:>12} {:>9.3} {:>12.3} {:>7.0}%",
                bytes,
                busbw,
                m,
                100.0 * busbw / m
            );
        }
    }
    Ok(())
}

fn dispatch(comm: &mut Comm, a: &CclArgs) -> BoxResult<()> {
    match a.dtype {
        DType::F32 => run_rank::<f32>(comm, a),
        DType::F64 => run_rank::<f64>(comm, a),
        DType::F16 => run_rank::<f16>(comm, a),
        DType::Bf16 => run_rank::<bf16>(comm, a),
        DType::I32 => run_rank::<i32>(comm, a),
        DType::I64 => run_rank::<i64>(comm, a),
        DType::U8 => run_rank::<u8>(comm, a),
        DType::I8 => run_rank::<i8>(comm, a),
        DType::U32 => run_rank::<u32>(comm, a),
        other => Err(format!(
            "rocm-bench ccl does not check {other} yet; use a real or integer type"
        )
        .into()),
    }
}

fn config(a: &CclArgs) -> BoxResult<Config> {
    let mut c = Config::from_env()?;
    if a.tcp {
        c.shared_memory = false;
    }
    Ok(c)
}

/// Rank processes die with the launcher (`PR_SET_PDEATHSIG`): a killed launcher leaves
/// no rank running.
#[cfg(target_os = "linux")]
fn die_with_launcher(cmd: &mut Command) {
    use std::os::unix::process::CommandExt;
    // SAFETY: getpid is async-signal-safe.
    let launcher = unsafe { libc::getpid() };
    // SAFETY: the closure runs in the child between fork and exec and calls only the
    // async-signal-safe prctl and getppid.
    unsafe {
        cmd.pre_exec(move || {
            if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            // The launcher died before the prctl took effect.
            if libc::getppid() != launcher {
                return Err(std::io::Error::other("the launcher exited"));
            }
            Ok(())
        });
    }
}

#[cfg(not(target_os = "linux"))]
fn die_with_launcher(_cmd: &mut Command) {}

/// Kills and reaps every rank process still running.
fn stop_all(kids: &mut [Option<std::process::Child>]) {
    for k in kids.iter_mut().flatten() {
        let _ = k.kill();
        let _ = k.wait();
    }
}

/// Waits for all rank processes at once: the first that fails (exits non-zero or dies
/// of a signal) is reported by rank, and the others, which would wait for it until their
/// timeout, get half a second to report their own error and are then stopped.
fn supervise(mut kids: Vec<Option<std::process::Child>>) -> BoxResult<()> {
    let mut first_failure: Option<(usize, std::process::ExitStatus, Instant)> = None;
    loop {
        for (r, slot) in kids.iter_mut().enumerate() {
            if let Some(k) = slot {
                if let Some(st) = k.try_wait()? {
                    *slot = None;
                    if !st.success() && first_failure.is_none() {
                        first_failure = Some((r, st, Instant::now()));
                    }
                }
            }
        }
        let running = kids.iter().flatten().count();
        match first_failure {
            None if running == 0 => return Ok(()),
            Some((r, st, at)) if running == 0 || at.elapsed() > Duration::from_millis(500) => {
                let stopped: Vec<String> = kids
                    .iter()
                    .enumerate()
                    .filter(|(_, k)| k.is_some())
                    .map(|(r, _)| r.to_string())
                    .collect();
                stop_all(&mut kids);
                let how = match st.code() {
                    Some(c) => format!("exited with status {c}"),
                    None => {
                        use std::os::unix::process::ExitStatusExt;
                        format!("was killed by signal {}", st.signal().unwrap_or(0))
                    }
                };
                let rest = if stopped.is_empty() {
                    String::new()
                } else {
                    format!("; stopped rank(s) {} still running", stopped.join(", "))
                };
                return Err(format!("rank {r} process {how}{rest}").into());
            }
            _ => std::thread::sleep(Duration::from_millis(5)),
        }
    }
}

/// Best of 5 single-thread copies of `bytes` between two touched buffers, in GB/s.
pub fn memcpy_gbs(bytes: usize) -> rocm_core::Result<f64> {
    let src = rocm_core::host_alloc::try_vec("memcpy source", bytes, 1u8)?;
    let mut dst = rocm_core::host_alloc::try_vec("memcpy destination", bytes, 0u8)?;
    let mut best = f64::INFINITY;
    for _ in 0..5 {
        let t = Instant::now();
        dst.copy_from_slice(std::hint::black_box(&src));
        std::hint::black_box(&mut dst);
        best = best.min(t.elapsed().as_secs_f64());
    }
    Ok(bytes as f64 / best / 1e9)
}

pub fn run(a: &CclArgs) -> BoxResult<()> {
    if a.ranks == 0 {
        return Err("--ranks must be at least 1".into());
    }
    if a.root >= a.ranks {
        return Err(format!("--root {} is not a rank (0..{})", a.root, a.ranks).into());
    }
    if !a.op.supports(a.dtype) {
        return Err(format!("op {} is not defined for {}", a.op, a.dtype).into());
    }
    let config = config(a)?;
    if let (Some(id), Some(rank)) = (&a.worker_id, a.worker_rank) {
        let id = UniqueId::from_hex(id)?;
        let mut comm =
            Comm::init_rank_with(a.ranks, &id, rank, &rocm_core::Device::cpu(), &config)?;
        return dispatch(&mut comm, a);
    }
    if a.procs {
        let id = UniqueId::new_on("127.0.0.1:0".parse()?)?;
        let exe = std::env::current_exe()?;
        let args: Vec<String> = std::env::args().skip(1).collect();
        let mut kids = Vec::new();
        kids.try_reserve_exact(a.ranks)
            .map_err(|_| format!("--ranks {}: too many processes", a.ranks))?;
        for r in 0..a.ranks {
            let mut cmd = Command::new(&exe);
            cmd.args(&args)
                .args(["--worker-id", &id.to_hex(), "--worker-rank", &r.to_string()]);
            die_with_launcher(&mut cmd);
            match cmd.spawn() {
                Ok(k) => kids.push(Some(k)),
                Err(e) => {
                    stop_all(&mut kids);
                    return Err(format!("starting rank {r}: {e}").into());
                }
            }
        }
        return supervise(kids);
    }
    let comms = Comm::init_all_with(&vec![rocm_core::Device::cpu(); a.ranks], &config)?;
    let results: Vec<Result<(), String>> = std::thread::scope(|s| {
        let hs: Vec<_> = comms
            .into_iter()
            .map(|mut c| s.spawn(move || dispatch(&mut c, a).map_err(|e| e.to_string())))
            .collect();
        hs.into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|_| Err("a rank thread panicked".into()))
            })
            .collect()
    });
    for r in results {
        r?;
    }
    Ok(())
}
