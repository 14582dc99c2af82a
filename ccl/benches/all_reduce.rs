//! all_reduce between 2 thread ranks: 64 MiB f32 bandwidth against a single-thread memcpy
//! of the same 64 MiB measured in the same run (the peer), and 8-byte latency.
//!
//! `cargo bench -p rocm-ccl --bench all_reduce`. busbw of a 2-rank all_reduce equals algbw
//! (factor 2(n-1)/n = 1), so the ratio of throughputs criterion prints for the same byte
//! count is the busbw / memcpy ratio. Processes are measured by `rocm-bench ccl --procs`.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use rocm_ccl::{Comm, Config, ReduceOp};
use rocm_core::{Device, DeviceBuffer};
use std::time::{Duration, Instant};

/// Each rank's input and output.
type Bufs = Vec<(DeviceBuffer<f32>, DeviceBuffer<f32>)>;

/// Runs `iters` all_reduces of `len` f32 on every rank; returns rank 0's time.
fn timed(
    comms: &mut [Comm],
    bufs: &mut [(DeviceBuffer<f32>, DeviceBuffer<f32>)],
    iters: u64,
) -> Duration {
    std::thread::scope(|s| {
        let hs: Vec<_> = comms
            .iter_mut()
            .zip(bufs.iter_mut())
            .map(|(c, (x, y))| {
                s.spawn(move || {
                    c.barrier().expect("barrier");
                    let t = Instant::now();
                    for _ in 0..iters {
                        c.all_reduce(&x.as_slice(), &mut y.as_slice_mut(), ReduceOp::Sum)
                            .expect("all_reduce");
                    }
                    t.elapsed()
                })
            })
            .collect();
        let times: Vec<Duration> = hs.into_iter().map(|h| h.join().expect("rank")).collect();
        times.into_iter().max().unwrap_or_default()
    })
}

fn setup(len: usize, config: &Config) -> (Vec<Comm>, Bufs) {
    let dev = Device::cpu();
    let comms = Comm::init_all_with(&[dev.clone(), dev.clone()], config).expect("init_all");
    let bufs = (0..2)
        .map(|r| {
            let x = DeviceBuffer::from_slice(&dev, &vec![r as f32 + 1.0; len]).expect("alloc");
            let y = DeviceBuffer::<f32>::zeros(&dev, len).expect("alloc");
            (x, y)
        })
        .collect();
    (comms, bufs)
}

fn bandwidth(c: &mut Criterion) {
    let len = (64 << 20) / 4;
    let mut g = c.benchmark_group("all_reduce_64MiB_f32_2ranks");
    g.sample_size(10).measurement_time(Duration::from_secs(8));
    g.throughput(Throughput::Bytes((len * 4) as u64));
    let src = vec![1u8; len * 4];
    let mut dst = vec![0u8; len * 4];
    g.bench_function("memcpy_1thread (peer)", |b| {
        b.iter(|| dst.copy_from_slice(std::hint::black_box(&src)))
    });
    for (name, direct) in [("threads_direct", true), ("threads_rings", false)] {
        let config = Config {
            direct,
            ..Config::default()
        };
        let (mut comms, mut bufs) = setup(len, &config);
        g.bench_function(name, |b| {
            b.iter_custom(|iters| timed(&mut comms, &mut bufs, iters))
        });
    }
    g.finish();
}

fn latency(c: &mut Criterion) {
    let mut g = c.benchmark_group("all_reduce_8B_2ranks");
    g.sample_size(20).measurement_time(Duration::from_secs(4));
    let (mut comms, mut bufs) = setup(2, &Config::default());
    g.bench_function("threads", |b| {
        b.iter_custom(|iters| timed(&mut comms, &mut bufs, iters))
    });
    g.finish();
}

criterion_group!(benches, bandwidth, latency);
criterion_main!(benches);
