//! Reliability with ranks as threads: timeouts, abort from another thread, ranks that
//! disagree on arguments, and concurrent communicators that must not mix data.

mod common;

use common::*;
use rocm_ccl::{failure_kind, Comm, Config, FailureKind, ReduceOp, UniqueId};
use rocm_core::{Device, DeviceBuffer, Error};
use std::time::{Duration, Instant};

fn sum_of(comm: &mut Comm, len: usize, value: f32) -> rocm_core::Result<Vec<f32>> {
    let dev = comm.device().clone();
    let x = DeviceBuffer::from_slice(&dev, &vec![value; len])?;
    let mut y = DeviceBuffer::<f32>::zeros(&dev, len)?;
    comm.all_reduce(&x.as_slice(), &mut y.as_slice_mut(), ReduceOp::Sum)?;
    y.to_vec()
}

#[test]
fn a_missing_rank_times_out_and_stops_the_others() {
    let config = Config {
        timeout: Some(Duration::from_millis(300)),
        ..Config::default()
    };
    let results = on_threads(threads(3, &config), |comm| {
        if comm.rank() == 2 {
            // Never joins the first call; its later call must fail fast (stopped comm).
            std::thread::sleep(Duration::from_millis(600));
            let t = Instant::now();
            let e = sum_of(comm, 10, 1.0).unwrap_err();
            assert!(
                t.elapsed() < Duration::from_millis(250),
                "stopped comm should fail at once"
            );
            return e;
        }
        let t = Instant::now();
        let e = sum_of(comm, 100_000, 1.0).unwrap_err();
        let waited = t.elapsed();
        assert!(waited < Duration::from_secs(5), "waited {waited:?}");
        e
    });
    for (r, e) in results.iter().enumerate() {
        assert_eq!(failure_kind(e), Some(FailureKind::Timeout), "rank {r}: {e}");
    }
    // At least one rank timed out itself (the other may have been stopped by it), and
    // each that did names the rank it waited for.
    assert!(
        results.iter().any(|e| matches!(e, Error::Timeout { .. })),
        "{results:?}"
    );
    for e in &results[..2] {
        if let Error::Timeout { waiting_for, .. } = e {
            assert!(waiting_for.contains("rank 2"), "{e}");
        }
    }
}

/// A rank that dies before it joins (spawn-time death; here a thread that never calls
/// `init_rank_with`): the others' bootstrap ends within the configured timeout with an
/// error that names the missing rank, instead of waiting for it forever.
#[test]
fn a_rank_that_never_joins_fails_the_bootstrap_naming_it() {
    let id = UniqueId::new_on("127.0.0.1:0".parse().unwrap()).unwrap();
    let timeout = Duration::from_millis(1000);
    let config = Config {
        timeout: Some(timeout),
        ..Config::default()
    };
    let t = Instant::now();
    let results: Vec<rocm_core::Result<()>> = std::thread::scope(|s| {
        let hs: Vec<_> = (0..2)
            .map(|r| {
                let config = config.clone();
                s.spawn(move || {
                    Comm::init_rank_with(3, &id, r, &Device::cpu(), &config).map(|_| ())
                })
            })
            .collect();
        hs.into_iter().map(|h| h.join().unwrap()).collect()
    });
    // The timeout, plus the root's and the ranks' own deadlines in turn at most.
    let waited = t.elapsed();
    assert!(
        waited < 3 * timeout + Duration::from_secs(1),
        "waited {waited:?}"
    );
    for (r, res) in results.iter().enumerate() {
        let e = res
            .as_ref()
            .expect_err("a bootstrap without rank 2 must fail");
        assert!(
            matches!(
                failure_kind(e),
                Some(FailureKind::Timeout | FailureKind::PeerLost)
            ),
            "rank {r}: {e}"
        );
        assert!(e.to_string().contains("rank 2"), "rank {r}: {e}");
    }
}

#[test]
fn abort_from_another_thread_releases_every_rank() {
    let comms = threads(4, &Config::default());
    let handle = comms[3].abort_handle();
    let t = Instant::now();
    let results = std::thread::scope(|s| {
        s.spawn(move || {
            std::thread::sleep(Duration::from_millis(200));
            handle.abort();
        });
        let hs: Vec<_> = comms
            .into_iter()
            .map(|mut c| {
                s.spawn(move || {
                    // Rank 3 never calls: the others wait on it until the abort.
                    if c.rank() == 3 {
                        return None;
                    }
                    Some(sum_of(&mut c, 1 << 16, 2.0).unwrap_err())
                })
            })
            .collect();
        hs.into_iter()
            .map(|h| h.join().unwrap())
            .collect::<Vec<_>>()
    });
    assert!(t.elapsed() < Duration::from_secs(5));
    for e in results.into_iter().flatten() {
        assert_eq!(failure_kind(&e), Some(FailureKind::Aborted), "{e}");
        assert!(e.to_string().contains("rank 3"), "{e}");
    }
}

fn expect_mismatch(results: &[rocm_core::Result<()>], field: &str) {
    for (r, res) in results.iter().enumerate() {
        let e = res.as_ref().expect_err("mismatch must fail");
        assert_eq!(
            failure_kind(e),
            Some(FailureKind::Mismatch),
            "rank {r}: {e}"
        );
        if let Error::Mismatch { what, .. } = e {
            assert_eq!(what, field, "rank {r}: {e}");
        }
    }
    assert!(
        results
            .iter()
            .any(|r| matches!(r, Err(Error::Mismatch { .. }))),
        "some rank must report the disagreement itself"
    );
}

#[test]
fn mismatched_count_dtype_and_op_are_reported() {
    let timeout = Config {
        timeout: Some(Duration::from_secs(10)),
        ..Config::default()
    };
    // Counts differ (both algorithm families).
    for len in [10usize, 100_000] {
        let res = on_threads(threads(3, &timeout), |comm| {
            sum_of(comm, len + comm.rank() % 2, 1.0).map(|_| ())
        });
        expect_mismatch(&res, "count");
    }
    // Same bytes, different dtype.
    let res = on_threads(threads(2, &timeout), |comm| {
        let dev = comm.device().clone();
        if comm.rank() == 0 {
            let x = DeviceBuffer::from_slice(&dev, &[1.0f32; 8])?;
            let mut y = DeviceBuffer::<f32>::zeros(&dev, 8)?;
            comm.all_reduce(&x.as_slice(), &mut y.as_slice_mut(), ReduceOp::Sum)
        } else {
            let x = DeviceBuffer::from_slice(&dev, &[1i32; 8])?;
            let mut y = DeviceBuffer::<i32>::zeros(&dev, 8)?;
            comm.all_reduce(&x.as_slice(), &mut y.as_slice_mut(), ReduceOp::Sum)
        }
    });
    expect_mismatch(&res, "dtype");
    // Different op.
    let res = on_threads(threads(2, &timeout), |comm| {
        let dev = comm.device().clone();
        let x = DeviceBuffer::from_slice(&dev, &[1.0f64; 8])?;
        let mut y = DeviceBuffer::<f64>::zeros(&dev, 8)?;
        let op = if comm.rank() == 0 {
            ReduceOp::Sum
        } else {
            ReduceOp::Max
        };
        comm.all_reduce(&x.as_slice(), &mut y.as_slice_mut(), op)
    });
    expect_mismatch(&res, "op");
}

#[test]
fn concurrent_communicators_do_not_mix() {
    // Two groups of 3 thread-ranks, and each thread also drives a second communicator
    // between the same threads: all six communicators run at once, interleaved.
    let a = threads(3, &Config::default());
    let b = threads(3, &tiny_config());
    let c = threads(3, &Config::default());
    let pairs: Vec<(Comm, Comm)> = a.into_iter().zip(b).collect();
    std::thread::scope(|s| {
        let mut hs = Vec::new();
        for (mut ca, mut cb) in pairs {
            hs.push(s.spawn(move || {
                for i in 0..20 {
                    let va = sum_of(&mut ca, 3000 + i, 1.0).unwrap();
                    let vb = sum_of(&mut cb, 17 + i, 10.0).unwrap();
                    assert!(va.iter().all(|&v| v == 3.0), "comm a mixed");
                    assert!(vb.iter().all(|&v| v == 30.0), "comm b mixed");
                }
            }));
        }
        for mut cc in c {
            hs.push(s.spawn(move || {
                for i in 0..20 {
                    let v = sum_of(&mut cc, 50_000 + i, 100.0).unwrap();
                    assert!(v.iter().all(|&x| x == 300.0), "comm c mixed");
                }
            }));
        }
        for h in hs {
            h.join().unwrap();
        }
    });
}

#[test]
fn bad_arguments_are_clear_errors() {
    let mut comms = threads(2, &Config::default());
    let comm = &mut comms[0];
    let dev = Device::cpu();
    let x = DeviceBuffer::from_slice(&dev, &[1.0f32; 4]).unwrap();
    let mut y = DeviceBuffer::<f32>::zeros(&dev, 3).unwrap();
    let e = comm
        .all_reduce(&x.as_slice(), &mut y.as_slice_mut(), ReduceOp::Sum)
        .unwrap_err();
    assert!(
        matches!(e, Error::InvalidArgument { ref what, .. } if what == "recv"),
        "{e}"
    );
    let mut y4 = DeviceBuffer::<f32>::zeros(&dev, 4).unwrap();
    assert!(comm.broadcast(&mut y4.as_slice_mut(), 2).is_err());
    assert!(comm.send(&x.as_slice(), 0).is_err(), "send to self");
    assert!(comm.send(&x.as_slice(), 5).is_err(), "send out of range");
    let c = DeviceBuffer::from_slice(&dev, &[rocm_core::Complex32::new(1.0, 0.0); 4]).unwrap();
    let mut cy = DeviceBuffer::<rocm_core::Complex32>::zeros(&dev, 4).unwrap();
    let e = comm
        .all_reduce(&c.as_slice(), &mut cy.as_slice_mut(), ReduceOp::Max)
        .unwrap_err();
    assert!(e.to_string().contains("complex"), "{e}");
    assert!(
        comm.reduce(&x.as_slice(), None, ReduceOp::Sum, 0).is_err(),
        "root needs recv"
    );
    let mut g = DeviceBuffer::<f32>::zeros(&dev, 7).unwrap();
    assert!(comm
        .all_gather(&x.as_slice(), &mut g.as_slice_mut())
        .is_err());
    // Argument errors are local: the communicator still works afterwards.
    assert_eq!(comm.stopped(), None);
    assert!(Comm::init_all(&[]).is_err());
    // More ranks than a communicator holds: refused before the n² rings are sized (with
    // 1 GiB rings, 2^17 ranks' region size would wrap).
    let many = vec![Device::cpu(); (1 << 16) + 1];
    let big_rings = Config {
        ring_bytes: 1 << 30,
        ..Config::default()
    };
    let e = Comm::init_all_with(&many, &big_rings)
        .map(|_| ())
        .unwrap_err();
    assert!(
        matches!(e, Error::InvalidArgument { ref what, .. } if what == "devices"),
        "{e}"
    );
    // Rank and nranks of a process-group join are checked before anything connects.
    let id = UniqueId::from_parts("127.0.0.1:9".parse().unwrap(), 1);
    for (n, r) in [(2, 2), (0, 0), ((1 << 16) + 1, 0), (usize::MAX, 0)] {
        let e = Comm::init_rank_with(n, &id, r, &dev, &Config::default())
            .map(|_| ())
            .unwrap_err();
        assert!(
            matches!(e, Error::InvalidArgument { ref what, .. } if what == "rank"),
            "nranks {n} rank {r}: {e}"
        );
    }
}

#[test]
fn gpu_devices_are_unsupported() {
    // Only runs where a GPU is present; the CPU-only CI has nothing to check here.
    if let Ok(gpu) = Device::open("cuda:0").or_else(|_| Device::open("hip:0")) {
        match Comm::init_all(std::slice::from_ref(&gpu)) {
            Err(Error::Unsupported { device, .. }) => assert_eq!(device, gpu.to_string()),
            other => panic!("expected Unsupported, got {:?}", other.err()),
        }
    }
}

#[test]
fn split_by_parity_and_key() {
    let res = on_threads(threads(5, &Config::default()), |comm| {
        let r = comm.rank();
        // Rank 4 opts out; the others split by parity, ordered by descending rank.
        let color = (r != 4).then_some((r % 2) as u32);
        let sub = comm.split(color, 10 - r as u32).unwrap();
        let Some(mut sub) = sub else { return (r, None) };
        let v = sum_of(&mut sub, 1000, r as f32).unwrap();
        (r, Some((sub.rank(), sub.nranks(), v[0])))
    });
    let want = [
        (0, Some((1, 2, 2.0))),
        (1, Some((1, 2, 4.0))),
        (2, Some((0, 2, 2.0))),
        (3, Some((0, 2, 4.0))),
        (4, None),
    ];
    assert_eq!(res, want);
}
