//! Ranks as separate processes on this host: shared-memory and TCP transports, the TCP
//! bootstrap, `Comm::from_env` with torchrun and Open MPI variables, and a killed rank.
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

fn check_collectives(comm: &mut Comm) {
    for (i, len) in [0usize, 1, 17, 5000, 70_001].into_iter().enumerate() {
        let seed = 100 + i as u64;
        for op in ReduceOp::ALL {
            let all = inputs::<f32>(seed, comm.nranks(), len);
            let x = DeviceBuffer::from_slice(comm.device(), &all[comm.rank()]).unwrap();
            let mut y = DeviceBuffer::<f32>::zeros(comm.device(), len).unwrap();
            comm.all_reduce(&x.as_slice(), &mut y.as_slice_mut(), op)
                .unwrap();
            check_reduced("process all_reduce", &all, 0, &y.to_vec().unwrap(), op);
        }
        let all = inputs::<i64>(seed, comm.nranks(), len);
        let r = comm.rank();
        let n = comm.nranks();
        let x = DeviceBuffer::from_slice(comm.device(), &all[r]).unwrap();
        let mut g = DeviceBuffer::<i64>::zeros(comm.device(), n * len).unwrap();
        comm.all_gather(&x.as_slice(), &mut g.as_slice_mut())
            .unwrap();
        assert_eq!(g.to_vec().unwrap(), rocm_ccl::reference::all_gather(&all));
        let big = inputs::<u8>(seed, n, n * len);
        let xb = DeviceBuffer::from_slice(comm.device(), &big[r]).unwrap();
        let mut yb = DeviceBuffer::<u8>::zeros(comm.device(), n * len).unwrap();
        comm.all_to_all(&xb.as_slice(), &mut yb.as_slice_mut())
            .unwrap();
        assert_eq!(
            yb.to_vec().unwrap(),
            rocm_ccl::reference::all_to_all(&big, r)
        );
        let mut yr = DeviceBuffer::<u8>::zeros(comm.device(), len).unwrap();
        comm.reduce_scatter(&xb.as_slice(), &mut yr.as_slice_mut(), ReduceOp::Max)
            .unwrap();
        assert_eq!(
            yr.to_vec().unwrap(),
            rocm_ccl::reference::reduce_scatter(&big, ReduceOp::Max, r)
        );
        let mut b = DeviceBuffer::from_slice(comm.device(), &all[r]).unwrap();
        comm.broadcast(&mut b.as_slice_mut(), n - 1).unwrap();
        assert_eq!(b.to_vec().unwrap(), all[n - 1]);
    }
}

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
            assert_eq!(comm.transport(), want);
            check_collectives(&mut comm);
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
            let x = DeviceBuffer::from_slice(comm.device(), &vec![1.0f32; 1 << 16]).unwrap();
            let mut y = DeviceBuffer::<f32>::zeros(comm.device(), 1 << 16).unwrap();
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
            let x = DeviceBuffer::from_slice(comm.device(), &vec![1.0f32; 1 << 16]).unwrap();
            let mut y = DeviceBuffer::<f32>::zeros(comm.device(), 1 << 16).unwrap();
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
        "env" => {
            let mut comm = Comm::from_env().unwrap();
            check_collectives(&mut comm);
        }
        other => panic!("unknown role {other}"),
    }
    std::process::exit(0);
}

fn run_group(n: usize, shm: bool, roles: &[&str]) -> Vec<Child> {
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
                ],
            )
        })
        .collect()
}

#[test]
fn processes_shared_memory_and_tcp() {
    for (n, shm) in [(2, true), (3, true), (4, true), (3, false)] {
        let mut kids = run_group(n, shm, &["collectives"]);
        let codes = wait_all(&mut kids, Duration::from_secs(120));
        assert!(
            codes.iter().all(|c| *c == Some(0)),
            "n={n} shm={shm}: exit codes {codes:?}"
        );
    }
}

#[test]
fn a_killed_process_fails_the_others() {
    for shm in [true, false] {
        let mut kids = run_group(3, shm, &["survivor", "survivor", "victim"]);
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

#[test]
fn abort_in_one_process_stops_the_others() {
    for shm in [true, false] {
        let mut kids = run_group(3, shm, &["aborted", "aborted", "aborter"]);
        let codes = wait_all(&mut kids, Duration::from_secs(60));
        assert!(
            codes.iter().all(|c| *c == Some(0)),
            "shm={shm}: exit codes {codes:?}"
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
