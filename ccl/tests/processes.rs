//! Ranks as separate processes on this host: every collective × element type × op ×
//! size over shared memory (1, 2, 3, 4, 8 processes) and TCP, 64 MiB, the TCP bootstrap,
//! `Comm::from_env` with torchrun and Open MPI variables, and the reliability cases (a
//! killed rank, an abort, a timeout, a mismatch).
//!
//! The test binary spawns copies of itself that run the `child` test with a role in
//! `CCL_TEST_ROLE`; the parent waits for them with a deadline and kills leftovers. Only
//! 127.0.0.1 is used.

mod common;

use common::*;
use rocm_ccl::{failure_kind, Comm, Config, FailureKind, ReduceOp, Transport, UniqueId};
use rocm_core::{Device, DeviceBuffer};
use std::process::{Child, Command};
use std::time::{Duration, Instant};

const ROLE: &str = "CCL_TEST_ROLE";

fn spawn(role: &str, envs: &[(&str, String)]) -> Child {
    let exe = std::env::current_exe().expect("test binary path");
    let mut cmd = Command::new(exe);
    cmd.args(["--exact", "child", "--nocapture", "--test-threads=1"])
        .env(ROLE, role);
    for (k, v) in envs {
        cmd.env(k, v);
    }
    cmd.spawn().expect("spawning a rank process")
}

/// Waits for every child (killing any still running at the deadline); returns exit codes.
fn wait_all(children: &mut [Child], limit: Duration) -> Vec<Option<i32>> {
    let end = Instant::now() + limit;
    let mut codes = vec![None; children.len()];
    let mut done = vec![false; children.len()];
    while done.iter().any(|d| !d) && Instant::now() < end {
        for (i, c) in children.iter_mut().enumerate() {
            if !done[i] {
                if let Ok(Some(st)) = c.try_wait() {
                    codes[i] = st.code();
                    done[i] = true;
                }
            }
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    for (i, c) in children.iter_mut().enumerate() {
        if !done[i] {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
    codes
}

fn config_from(shm: bool) -> Config {
    Config {
        timeout: Some(Duration::from_secs(60)),
        shared_memory: shm,
        ..Config::default()
    }
}

fn join_from_env_id() -> Comm {
    let id = UniqueId::from_hex(&std::env::var("CCL_ID").unwrap()).unwrap();
    let n: usize = std::env::var("CCL_N").unwrap().parse().unwrap();
    let r: usize = std::env::var("CCL_R").unwrap().parse().unwrap();
    let shm = std::env::var("CCL_SHM").unwrap() == "1";
    Comm::init_rank_with(n, &id, r, &Device::cpu(), &config_from(shm)).unwrap()
}

/// Sizes of the process sweep: empty, one element, odd and prime counts, below and above
/// the latency/bandwidth algorithm switch (32 KiB): 9001 is above it for 4-byte and wider
/// elements, 40 009 for every element type.
const SIZES: [usize; 6] = [0, 1, 7, 1029, 9001, 40_009];

/// The sizes for `n` processes. Eight processes on a 2-core machine are oversubscribed
/// 4x and the largest size alone would take ~25 s there, so they stop at 9001 (still
/// above the switch for 4-byte and wider elements).
fn sizes_for(n: usize) -> &'static [usize] {
    if n > 4 {
        &SIZES[..5]
    } else {
        &SIZES
    }
}

/// Every collective × element type × op × `sizes` on this rank (the same sweep as the
/// threads in `collectives.rs`), then a check that every rank got the same all_reduce
/// bits (their FNV-1a hash all-gathered).
fn check_collectives(comm: &mut Comm, sizes: &[usize]) {
    let mut bits = Vec::new();
    for (i, &len) in sizes.iter().enumerate() {
        bits.extend(every_dtype(comm, 100 + i as u64, len, &ReduceOp::ALL));
    }
    let hash = bits.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| {
        (h ^ b as u64).wrapping_mul(0x0100_0000_01b3)
    });
    let n = comm.nranks();
    let mine = DeviceBuffer::from_slice(comm.device(), &[hash as i64]).unwrap();
    let mut all = DeviceBuffer::<i64>::zeros(comm.device(), n).unwrap();
    comm.all_gather(&mine.as_slice(), &mut all.as_slice_mut())
        .unwrap();
    assert!(
        all.to_vec().unwrap().iter().all(|&h| h == hash as i64),
        "all_reduce results differ between ranks"
    );
}

/// 64 MiB + 4 bytes of f32 (an odd count) summed over the ranks: small integers, exact
/// in f32, checked against the closed form.
fn sixty_four_mib(comm: &mut Comm) {
    let len = (64 << 20) / 4 + 1;
    let val = |r: usize, i: usize| ((r * 7 + i) % 13) as f32;
    let (n, r) = (comm.nranks(), comm.rank());
    let x: Vec<f32> = (0..len).map(|i| val(r, i)).collect();
    let xb = DeviceBuffer::from_slice(comm.device(), &x).unwrap();
    let mut y = DeviceBuffer::<f32>::zeros(comm.device(), len).unwrap();
    comm.all_reduce(&xb.as_slice(), &mut y.as_slice_mut(), ReduceOp::Sum)
        .unwrap();
    for (i, g) in y.to_vec().unwrap().iter().enumerate() {
        let want: f32 = (0..n).map(|j| val(j, i)).sum();
        assert_eq!(*g, want, "element {i}");
    }
}

/// A CPU buffer holding `data`: registered (`Comm::alloc_shared`) or not.
fn buffer<T: Gen>(comm: &Comm, data: &[T], registered: bool) -> DeviceBuffer<T> {
    if registered {
        let mut b = comm.alloc_shared::<T>(data.len()).unwrap();
        b.upload(data).unwrap();
        b
    } else {
        DeviceBuffer::from_slice(comm.device(), data).unwrap()
    }
}

/// The count of the mismatch role (`CCL_LEN`, default 100; the timeout role uses a tenth).
fn base_len() -> usize {
    std::env::var("CCL_LEN")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(100)
}

/// Whether this rank registers its buffers (`CCL_REG`: `all`, or a comma list of ranks).
fn registers(rank: usize) -> bool {
    match std::env::var("CCL_REG") {
        Ok(v) if v == "all" => true,
        Ok(v) => v.split(',').any(|x| x.parse() == Ok(rank)),
        Err(_) => false,
    }
}

/// Filler values around the views (distinct per rank and buffer), to catch a read or a
/// write at the wrong offset or in the wrong segment.
fn filler<T: Gen>(seed: u64, r: usize, len: usize) -> Vec<T> {
    input(seed ^ 0x5eed_f111, r + 1000, len)
}

/// One all_reduce of `len` elements out of place and one in place, with every view at an
/// offset that differs per rank inside a larger buffer (registered when `register`): the
/// send view in buffer A, the receive view in buffer B, and once more both views in one
/// buffer. Checks the results against the sequential reference (exactly, in rank order,
/// when `direct` says every rank is registered and the call is large enough for direct
/// access: the order of the threads' direct path), that nothing around the views changed,
/// and that the call took the direct path exactly when expected.
fn registered_case<T: Gen>(
    comm: &mut Comm,
    seed: u64,
    len: usize,
    op: ReduceOp,
    register: bool,
    direct: bool,
) {
    let (n, r) = (comm.nranks(), comm.rank());
    let all = inputs::<T>(seed, n, len);
    let want_direct = direct && n > 1 && len * std::mem::size_of::<T>() > (32 << 10);
    let what =
        |c: &str| format!("registered {c} len={len} seed={seed} rank={r} n={n} reg={register}");
    let check = |c: &str, got: &[T]| {
        if want_direct {
            let want = rocm_ccl::reference::all_reduce(&all, op);
            assert!(
                got == &want[..],
                "{}: {} {op}: not bit-identical to rank order",
                what(c),
                T::DTYPE
            );
        } else {
            check_reduced(&what(c), &all, 0, got, op);
        }
    };
    let (so, ro) = (3 + 5 * r, 11 + 7 * r);
    let pad = 40;
    let fa = filler::<T>(seed, r, len + pad);
    let fb = filler::<T>(seed + 1, r, len + pad);
    let mut a_init = fa.clone();
    a_init[so..so + len].copy_from_slice(&all[r]);
    let before = comm.direct_calls();
    // Out of place, two buffers.
    let a = buffer(comm, &a_init, register);
    let mut b = buffer(comm, &fb, register);
    comm.all_reduce(
        &a.slice(so..so + len).unwrap(),
        &mut b.slice_mut(ro..ro + len).unwrap(),
        op,
    )
    .unwrap();
    let got_b = b.to_vec().unwrap();
    check("out of place", &got_b[ro..ro + len]);
    assert_eq!(
        a.to_vec().unwrap(),
        a_init,
        "{}: send buffer changed",
        what("out of place")
    );
    assert!(
        got_b[..ro] == fb[..ro] && got_b[ro + len..] == fb[ro + len..],
        "{}: wrote outside the view",
        what("out of place")
    );
    // In place.
    let mut a = buffer(comm, &a_init, register);
    comm.all_reduce_in_place(&mut a.slice_mut(so..so + len).unwrap(), op)
        .unwrap();
    let got_a = a.to_vec().unwrap();
    check("in place", &got_a[so..so + len]);
    assert!(
        got_a[..so] == fa[..so] && got_a[so + len..] == fa[so + len..],
        "{}: wrote outside the view",
        what("in place")
    );
    // Out of place, both views in one buffer: [filler | send | filler | recv | filler].
    let mut c_init = a_init.clone();
    c_init.extend_from_slice(&fb);
    let mid = len + pad;
    let mut c = buffer(comm, &c_init, register);
    {
        let (head, mut tail) = c.as_slice_mut().split_at_mut(mid).unwrap();
        let send = head.as_slice();
        comm.all_reduce(
            &send.slice(so..so + len).unwrap(),
            &mut tail.slice_mut(ro..ro + len).unwrap(),
            op,
        )
        .unwrap();
    }
    let got_c = c.to_vec().unwrap();
    check("one buffer", &got_c[mid + ro..mid + ro + len]);
    let mut want_c = c_init.clone();
    want_c[mid + ro..mid + ro + len].copy_from_slice(&got_c[mid + ro..mid + ro + len]);
    assert!(
        got_c == want_c,
        "{}: wrote outside the view",
        what("one buffer")
    );
    let took = comm.direct_calls() - before;
    assert_eq!(
        took,
        if want_direct { 3 } else { 0 },
        "{}: direct calls",
        what("")
    );
}

/// [`registered_case`] for every element type × op × `sizes`.
fn registered_sweep(comm: &mut Comm, sizes: &[usize], register: bool, direct: bool) {
    for (i, &len) in sizes.iter().enumerate() {
        for (k, &op) in ReduceOp::ALL.iter().enumerate() {
            let seed = 500 + 31 * i as u64 + k as u64;
            macro_rules! each {
                ($($t:ty),*) => {$(
                    if op.supports(<$t as rocm_core::Element>::DTYPE) {
                        registered_case::<$t>(comm, seed, len, op, register, direct);
                    }
                )*};
            }
            each!(
                f32,
                f64,
                rocm_core::f16,
                rocm_core::bf16,
                i32,
                i64,
                u8,
                i8,
                u32,
                rocm_core::Complex32,
                rocm_core::Complex64
            );
        }
    }
}

/// Sizes of the registered sweep: empty, one element, odd, and above the direct-access
/// threshold (32 KiB) for 1-byte (40 009) and 4-byte and wider (9001) elements.
const REG_SIZES: [usize; 5] = [0, 1, 7, 9001, 40_009];

/// The body of a rank process (does nothing when run as a normal test).
#[test]
fn child() {
    let Ok(role) = std::env::var(ROLE) else {
        return;
    };
    match role.as_str() {
        "collectives" => {
            let mut comm = join_from_env_id();
            let want = if std::env::var("CCL_SHM").unwrap() == "1" {
                Transport::SharedMemory
            } else {
                Transport::Tcp
            };
            if comm.nranks() > 1 {
                assert_eq!(comm.transport(), want);
            }
            let sizes = sizes_for(comm.nranks());
            check_collectives(&mut comm, sizes);
        }
        "registered" => {
            let mut comm = join_from_env_id();
            let n = comm.nranks();
            let every = (0..n).all(registers);
            let mine = registers(comm.rank());
            registered_sweep(&mut comm, &REG_SIZES, mine, every);
        }
        // More live registered buffers than a peer keeps mapped (8): each used twice,
        // round robin, so mappings are evicted and made again.
        "registered_many" => {
            let mut comm = join_from_env_id();
            let (n, r) = (comm.nranks(), comm.rank());
            let len = 20_000;
            let mut bufs: Vec<_> = (0..12)
                .map(|k| {
                    let x: Vec<f32> = input(900 + k, r, len);
                    (
                        buffer(&comm, &x, true),
                        comm.alloc_shared::<f32>(len).unwrap(),
                    )
                })
                .collect();
            for round in 0..2 {
                for (k, (x, y)) in bufs.iter_mut().enumerate() {
                    comm.all_reduce(&x.as_slice(), &mut y.as_slice_mut(), ReduceOp::Max)
                        .unwrap();
                    let all = inputs::<f32>(900 + k as u64, n, len);
                    let want = rocm_ccl::reference::all_reduce(&all, ReduceOp::Max);
                    assert!(y.to_vec().unwrap() == want, "buffer {k} round {round}");
                }
            }
            assert_eq!(comm.direct_calls(), 24);
        }
        "registered_big" => {
            let mut comm = join_from_env_id();
            let len = (64 << 20) / 4 + 1;
            let val = |r: usize, i: usize| ((r * 7 + i) % 13) as f32;
            let (n, r) = (comm.nranks(), comm.rank());
            let x: Vec<f32> = (0..len).map(|i| val(r, i)).collect();
            let xb = buffer(&comm, &x, true);
            let mut y = comm.alloc_shared::<f32>(len).unwrap();
            comm.all_reduce(&xb.as_slice(), &mut y.as_slice_mut(), ReduceOp::Sum)
                .unwrap();
            assert_eq!(comm.direct_calls(), 1);
            for (i, g) in y.to_vec().unwrap().iter().enumerate() {
                let want: f32 = (0..n).map(|j| val(j, i)).sum();
                assert_eq!(*g, want, "element {i}");
            }
        }
        "big" => {
            let mut comm = join_from_env_id();
            sixty_four_mib(&mut comm);
        }
        // Rank 1 passes a count one larger than the others.
        "mismatch" => {
            let mut comm = join_from_env_id();
            comm.barrier().unwrap();
            let len = base_len() + usize::from(comm.rank() == 1);
            let reg = registers(comm.rank());
            let x = buffer(&comm, &vec![1.0f32; len], reg);
            let mut y = buffer(&comm, &vec![0.0f32; len], reg);
            let e = comm
                .all_reduce(&x.as_slice(), &mut y.as_slice_mut(), ReduceOp::Sum)
                .unwrap_err();
            // Over shared memory every rank learns the reason from the abort word; over
            // TCP the ranks that did not see the bad header only see closed sockets
            // (exit code 3, allowed by the parent for TCP).
            match failure_kind(&e) {
                Some(FailureKind::Mismatch) => {}
                Some(FailureKind::PeerLost) if comm.transport() == Transport::Tcp => {
                    std::process::exit(3)
                }
                other => panic!("expected a mismatch, got {other:?}: {e}"),
            }
        }
        // Ranks 0 and 1 call, rank 2 never does: the callers time out.
        "timeout" => {
            let mut comm = join_from_env_id();
            comm.barrier().unwrap();
            if comm.rank() == 2 {
                std::thread::sleep(Duration::from_secs(3));
            } else {
                comm.set_timeout(Some(Duration::from_millis(500)));
                let t = Instant::now();
                let (len, reg) = (base_len() / 10, registers(comm.rank()));
                let x = buffer(&comm, &vec![1.0f32; len], reg);
                let mut y = buffer(&comm, &vec![0.0f32; len], reg);
                let e = comm
                    .all_reduce(&x.as_slice(), &mut y.as_slice_mut(), ReduceOp::Sum)
                    .unwrap_err();
                assert!(t.elapsed() < Duration::from_secs(2), "{:?}", t.elapsed());
                // The first caller to time out stops the communicator: over shared memory
                // the other caller reads the reason (a timeout) from the abort word; over
                // TCP it may only see its sockets closed before its own deadline passes
                // (exit code 3, allowed by the parent for TCP).
                match failure_kind(&e) {
                    Some(FailureKind::Timeout) => {}
                    Some(FailureKind::PeerLost) if comm.transport() == Transport::Tcp => {
                        std::process::exit(3)
                    }
                    other => panic!("expected a timeout, got {other:?}: {e}"),
                }
            }
        }
        "victim" => {
            let mut comm = join_from_env_id();
            comm.barrier().unwrap();
            // Wait to be killed (bounded: the parent kills us long before this ends).
            std::thread::sleep(Duration::from_secs(60));
        }
        "survivor" => {
            let mut comm = join_from_env_id();
            comm.barrier().unwrap();
            let t = Instant::now();
            let reg = registers(comm.rank());
            let x = buffer(&comm, &vec![1.0f32; 1 << 16], reg);
            let mut y = buffer(&comm, &vec![0.0f32; 1 << 16], reg);
            let e = comm
                .all_reduce(&x.as_slice(), &mut y.as_slice_mut(), ReduceOp::Sum)
                .unwrap_err();
            let kind = failure_kind(&e);
            assert!(
                matches!(kind, Some(FailureKind::PeerLost)),
                "expected PeerLost, got {e}"
            );
            assert!(
                t.elapsed() < Duration::from_secs(20),
                "took {:?}",
                t.elapsed()
            );
        }
        "aborter" => {
            let mut comm = join_from_env_id();
            comm.barrier().unwrap();
            std::thread::sleep(Duration::from_millis(500));
            comm.abort();
            assert!(
                comm.barrier().is_err(),
                "an aborted communicator must refuse calls"
            );
        }
        "aborted" => {
            let mut comm = join_from_env_id();
            comm.barrier().unwrap();
            let t = Instant::now();
            let reg = registers(comm.rank());
            let x = buffer(&comm, &vec![1.0f32; 1 << 16], reg);
            let mut y = buffer(&comm, &vec![0.0f32; 1 << 16], reg);
            let e = comm
                .all_reduce(&x.as_slice(), &mut y.as_slice_mut(), ReduceOp::Sum)
                .unwrap_err();
            // Shared memory carries the reason; over TCP the peer just sees closed sockets.
            let want = if comm.transport() == Transport::SharedMemory {
                FailureKind::Aborted
            } else {
                FailureKind::PeerLost
            };
            assert_eq!(failure_kind(&e), Some(want), "{e}");
            assert!(
                t.elapsed() < Duration::from_secs(20),
                "took {:?}",
                t.elapsed()
            );
        }
        // Dies before joining (spawn-time death).
        "dead_at_spawn" => std::process::exit(1),
        // Joins with a short timeout while the last rank never comes: the bootstrap
        // fails within the timeout and names the missing rank.
        "joiner" => {
            let id = UniqueId::from_hex(&std::env::var("CCL_ID").unwrap()).unwrap();
            let n: usize = std::env::var("CCL_N").unwrap().parse().unwrap();
            let r: usize = std::env::var("CCL_R").unwrap().parse().unwrap();
            let timeout = Duration::from_millis(1500);
            let config = Config {
                timeout: Some(timeout),
                ..config_from(std::env::var("CCL_SHM").unwrap() == "1")
            };
            let t = Instant::now();
            let e = Comm::init_rank_with(n, &id, r, &Device::cpu(), &config)
                .map(|_| ())
                .unwrap_err();
            assert!(
                t.elapsed() < timeout + Duration::from_secs(2),
                "{:?}",
                t.elapsed()
            );
            assert_eq!(failure_kind(&e), Some(FailureKind::Timeout), "{e}");
            let missing = format!("rank {}", n - 1);
            assert!(e.to_string().contains(&missing), "{e}");
        }
        // Calls while the last rank is stopped (SIGSTOP by the parent): the call ends
        // within its timeout, and the rank that timed out itself names the stopped one.
        "stop_survivor" => {
            let mut comm = join_from_env_id();
            comm.barrier().unwrap();
            // The parent stops the victim 1.5 s after spawning; wait past that.
            std::thread::sleep(Duration::from_millis(2500));
            let timeout = Duration::from_millis(1000);
            comm.set_timeout(Some(timeout));
            let t = Instant::now();
            let x = buffer(&comm, &vec![1.0f32; 1 << 12], false);
            let mut y = buffer(&comm, &vec![0.0f32; 1 << 12], false);
            let e = comm
                .all_reduce(&x.as_slice(), &mut y.as_slice_mut(), ReduceOp::Sum)
                .unwrap_err();
            assert!(
                t.elapsed() < timeout + Duration::from_secs(2),
                "{:?}",
                t.elapsed()
            );
            let stopped = format!("rank {}", comm.nranks() - 1);
            match (failure_kind(&e), &e) {
                // Timed out itself waiting for the stopped rank: exit code 0.
                (Some(FailureKind::Timeout), rocm_core::Error::Timeout { waiting_for, .. })
                    if waiting_for.contains(&stopped) => {}
                // Timed out waiting for a peer that itself waits for the stopped rank (a
                // ring over TCP, where no abort word tells the reason), or stopped by the
                // other caller's failure: exit code 3, which the parent allows.
                (Some(FailureKind::Timeout | FailureKind::Aborted | FailureKind::PeerLost), _) => {
                    eprintln!("rank {}: {e}", comm.rank());
                    std::process::exit(3)
                }
                other => panic!("expected a timeout, got {other:?}"),
            }
        }
        "env" => {
            let mut comm = Comm::from_env().unwrap();
            check_collectives(&mut comm, &SIZES[..3]);
        }
        other => panic!("unknown role {other}"),
    }
    std::process::exit(0);
}

fn run_group(n: usize, shm: bool, roles: &[&str]) -> Vec<Child> {
    run_group_reg(n, shm, roles, "")
}

/// [`run_group`] with `CCL_REG` = `reg` (which ranks register their buffers).
fn run_group_reg(n: usize, shm: bool, roles: &[&str], reg: &str) -> Vec<Child> {
    run_group_env(n, shm, roles, &[("CCL_REG", reg)])
}

/// [`run_group`] with more environment variables for the ranks.
fn run_group_env(n: usize, shm: bool, roles: &[&str], env: &[(&str, &str)]) -> Vec<Child> {
    let id = UniqueId::new_on("127.0.0.1:0".parse().unwrap()).unwrap();
    (0..n)
        .map(|r| {
            spawn(
                roles[r.min(roles.len() - 1)],
                &[
                    ("CCL_ID", id.to_hex()),
                    ("CCL_N", n.to_string()),
                    ("CCL_R", r.to_string()),
                    ("CCL_SHM", u8::from(shm).to_string()),
                ]
                .into_iter()
                .chain(env.iter().map(|(k, v)| (*k, v.to_string())))
                .collect::<Vec<_>>(),
            )
        })
        .collect()
}

/// The whole sweep with 1, 2, 3, 4 and 8 processes over shared memory, and 3 over TCP.
#[test]
fn processes_shared_memory_and_tcp() {
    for (n, shm) in [
        (1, true),
        (2, true),
        (3, true),
        (4, true),
        (8, true),
        (3, false),
    ] {
        let mut kids = run_group(n, shm, &["collectives"]);
        let codes = wait_all(&mut kids, Duration::from_secs(300));
        assert!(
            codes.iter().all(|c| *c == Some(0)),
            "n={n} shm={shm}: exit codes {codes:?}"
        );
    }
}

/// 64 MiB (odd count) all_reduce between 2 processes over shared memory.
#[test]
fn processes_sixty_four_mib() {
    let mut kids = run_group(2, true, &["big"]);
    let codes = wait_all(&mut kids, Duration::from_secs(120));
    assert!(codes.iter().all(|c| *c == Some(0)), "exit codes {codes:?}");
}

/// Processes that disagree on the count (every rank fails; at least the one that sees
/// the bad header reports the mismatch), and a process that never calls (the others time
/// out; at least the first reports the timeout), over shared memory and TCP.
#[test]
fn mismatch_and_timeout_between_processes() {
    // Large counts (shared memory): the direct path's handshake sees the mismatch or
    // waits, with and without registered buffers.
    for (shm, len, reg) in [
        (true, 100, ""),
        (false, 100, ""),
        (true, 200_000, ""),
        (true, 200_000, "all"),
    ] {
        for role in ["mismatch", "timeout"] {
            let mut kids = run_group_env(
                3,
                shm,
                &[role],
                &[("CCL_REG", reg), ("CCL_LEN", &len.to_string())],
            );
            let codes = wait_all(&mut kids, Duration::from_secs(60));
            // The ranks that call the collective (in "timeout", rank 2 never does).
            let callers = if role == "timeout" { 2 } else { 3 };
            let ok = if shm {
                codes.iter().all(|c| *c == Some(0))
            } else {
                codes.iter().all(|c| matches!(c, Some(0) | Some(3)))
                    && codes[..callers].contains(&Some(0))
                    && codes[callers..].iter().all(|c| *c == Some(0))
            };
            assert!(
                ok,
                "{role} shm={shm} len={len} reg={reg}: exit codes {codes:?}"
            );
        }
    }
}

/// Also with registered buffers (the direct path's waits) over shared memory.
#[test]
fn a_killed_process_fails_the_others() {
    for (shm, reg) in [(true, ""), (true, "all"), (false, "")] {
        let mut kids = run_group_reg(3, shm, &["survivor", "survivor", "victim"], reg);
        // Let everyone pass the barrier and block in the all_reduce waiting for rank 2.
        std::thread::sleep(Duration::from_millis(1500));
        let _ = kids[2].kill();
        let codes = wait_all(&mut kids, Duration::from_secs(60));
        assert_eq!(
            &codes[..2],
            &[Some(0), Some(0)],
            "shm={shm}: survivors {codes:?}"
        );
    }
}

/// Also with registered buffers (the direct path's waits) over shared memory.
#[test]
fn abort_in_one_process_stops_the_others() {
    for (shm, reg) in [(true, ""), (true, "all"), (false, "")] {
        let mut kids = run_group_reg(3, shm, &["aborted", "aborted", "aborter"], reg);
        let codes = wait_all(&mut kids, Duration::from_secs(60));
        assert!(
            codes.iter().all(|c| *c == Some(0)),
            "shm={shm}: exit codes {codes:?}"
        );
    }
}

/// A rank that dies at spawn: the others' bootstrap fails within their timeout naming
/// it (shared memory and TCP configurations; the bootstrap itself is TCP in both).
#[test]
fn a_rank_dead_at_spawn_fails_the_bootstrap_naming_it() {
    for shm in [true, false] {
        let mut kids = run_group(3, shm, &["joiner", "joiner", "dead_at_spawn"]);
        let codes = wait_all(&mut kids, Duration::from_secs(30));
        assert_eq!(codes, [Some(0), Some(0), Some(1)], "shm={shm}");
    }
}

/// A rank stopped by SIGSTOP mid-run: the others' collective ends within their
/// timeout, over shared memory and TCP; a rank that waited for the stopped one names it
/// (one that waited for a peer which waits for it names that peer: exit code 3).
#[test]
fn a_stopped_rank_times_out_naming_it() {
    for shm in [true, false] {
        let mut kids = run_group(3, shm, &["stop_survivor", "stop_survivor", "victim"]);
        std::thread::sleep(Duration::from_millis(1500));
        let pid = kids[2].id().to_string();
        let stopped = Command::new("kill").args(["-STOP", &pid]).status();
        assert!(stopped.is_ok_and(|s| s.success()), "SIGSTOP to {pid}");
        let codes = wait_all(&mut kids[..2], Duration::from_secs(30));
        // SIGKILL ends a stopped process too.
        let _ = kids[2].kill();
        let _ = kids[2].wait();
        assert!(
            codes.iter().all(|c| matches!(c, Some(0) | Some(3))) && codes.contains(&Some(0)),
            "shm={shm}: survivors {codes:?}"
        );
    }
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

#[test]
fn from_env_torchrun_and_openmpi() {
    let port = free_port().to_string();
    let mut kids: Vec<Child> = (0..2)
        .map(|r| {
            spawn(
                "env",
                &[
                    ("RANK", r.to_string()),
                    ("WORLD_SIZE", "2".into()),
                    ("LOCAL_RANK", r.to_string()),
                    ("MASTER_ADDR", "127.0.0.1".into()),
                    ("MASTER_PORT", port.clone()),
                    ("ROCM_CCL_TIMEOUT_MS", "60000".into()),
                ],
            )
        })
        .collect();
    let codes = wait_all(&mut kids, Duration::from_secs(120));
    assert!(
        codes.iter().all(|c| *c == Some(0)),
        "torchrun-style: {codes:?}"
    );
    let id = format!("127.0.0.1:{}", free_port());
    let mut kids: Vec<Child> = (0..3)
        .map(|r| {
            spawn(
                "env",
                &[
                    ("OMPI_COMM_WORLD_RANK", r.to_string()),
                    ("OMPI_COMM_WORLD_SIZE", "3".into()),
                    ("ROCM_CCL_COMM_ID", id.clone()),
                    ("ROCM_CCL_SHM", "0".into()),
                    ("ROCM_CCL_TIMEOUT_MS", "60000".into()),
                ],
            )
        })
        .collect();
    let codes = wait_all(&mut kids, Duration::from_secs(120));
    assert!(
        codes.iter().all(|c| *c == Some(0)),
        "mpirun-style over TCP: {codes:?}"
    );
}

/// Registered buffers (`Comm::alloc_shared`) between 2, 3 and 4 processes: every element
/// type × op × size, in place and out of place, at per-rank offsets inside larger
/// buffers; results bit-identical to the rank-order reduction (the threads' direct path)
/// and the direct path taken exactly for the large calls.
#[test]
fn registered_all_reduce_between_processes() {
    for n in [2, 3, 4] {
        let mut kids = run_group_reg(n, true, &["registered"], "all");
        let codes = wait_all(&mut kids, Duration::from_secs(300));
        assert!(
            codes.iter().all(|c| *c == Some(0)),
            "n={n}: exit codes {codes:?}"
        );
    }
}

/// Some ranks registered, some not: every rank takes the rings, results still right.
#[test]
fn registered_mixed_falls_back_to_rings() {
    for (n, reg) in [(2, "0"), (3, "0,2"), (3, "1")] {
        let mut kids = run_group_reg(n, true, &["registered"], reg);
        let codes = wait_all(&mut kids, Duration::from_secs(300));
        assert!(
            codes.iter().all(|c| *c == Some(0)),
            "n={n} reg={reg}: exit codes {codes:?}"
        );
    }
}

/// More live registered buffers than the peers keep mapped, used round robin.
#[test]
fn registered_many_live_buffers() {
    let mut kids = run_group_reg(3, true, &["registered_many"], "all");
    let codes = wait_all(&mut kids, Duration::from_secs(120));
    assert!(codes.iter().all(|c| *c == Some(0)), "exit codes {codes:?}");
}

/// 64 MiB + 4 bytes of f32 in registered buffers between 2 processes (direct path).
#[test]
fn registered_sixty_four_mib() {
    let mut kids = run_group_reg(2, true, &["registered_big"], "all");
    let codes = wait_all(&mut kids, Duration::from_secs(120));
    assert!(codes.iter().all(|c| *c == Some(0)), "exit codes {codes:?}");
}

/// Registered buffers work between threads too (they take the direct path anyway).
#[test]
fn registered_buffers_with_threads() {
    for n in [2, 3] {
        let comms = threads(n, &Config::default());
        on_threads(comms, |comm| registered_sweep(comm, &REG_SIZES, true, true));
    }
}
