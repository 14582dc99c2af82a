//! Criterion benchmarks of rocm-dnn on the CPU, each against the rocm-blas GEMM rate
//! measured in the same run:
//!
//! - forward convolution on ResNet-50 shapes (im2col + GEMM and Winograd) vs one f32
//!   GEMM of the same multiply-add count (M = N·P·Q, N = K, K = C·R·S);
//! - Winograd vs im2col on 3×3 stride 1;
//! - attention forward at seq 2048, head dim 128 vs a GEMM of the score-matrix shape,
//!   with the peak heap growth of one call (a counting global allocator) printed for
//!   seq 1024/2048/4096 to show it grows linearly, not quadratically.
//!
//! Throughput is in "elements" = floating-point operations, so criterion's Gelem/s are
//! GFLOP/s. `ROCM_DNN_BENCH_N` sets the conv batch (default 32).

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use rocm_blas::Transpose;
use rocm_core::{DType, Device, DeviceBuffer};
use rocm_dnn::*;
use std::alloc::{GlobalAlloc, Layout as AllocLayout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

struct Counting;
static CUR: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

// SAFETY: forwards to the system allocator unchanged; only counts bytes.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: AllocLayout) -> *mut u8 {
        let now = CUR.fetch_add(l.size(), Ordering::Relaxed) + l.size();
        PEAK.fetch_max(now, Ordering::Relaxed);
        // SAFETY: same contract as the caller's.
        unsafe { System.alloc(l) }
    }
    unsafe fn dealloc(&self, p: *mut u8, l: AllocLayout) {
        CUR.fetch_sub(l.size(), Ordering::Relaxed);
        // SAFETY: same contract as the caller's.
        unsafe { System.dealloc(p, l) }
    }
    unsafe fn alloc_zeroed(&self, l: AllocLayout) -> *mut u8 {
        let now = CUR.fetch_add(l.size(), Ordering::Relaxed) + l.size();
        PEAK.fetch_max(now, Ordering::Relaxed);
        // SAFETY: same contract as the caller's.
        unsafe { System.alloc_zeroed(l) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

fn rand_buf(len: usize, seed: u64) -> DeviceBuffer<f32> {
    let v: Vec<f32> = (0..len as u64)
        .map(|i| dropout::uniform(seed, i) - 0.5)
        .collect();
    DeviceBuffer::from_slice(&Device::cpu(), &v).unwrap()
}

fn dnn() -> Dnn {
    let mut d = Dnn::new(&Device::cpu()).unwrap();
    d.set_find_db(None);
    d
}

/// One f32 GEMM m×n×k through rocm-blas.
fn bench_gemm(c: &mut Criterion, group: &str, m: usize, n: usize, k: usize) {
    let blas = rocm_blas::Blas::new(&Device::cpu());
    let a = rand_buf(m * k, 1);
    let b = rand_buf(k * n, 2);
    let mut out = DeviceBuffer::<f32>::zeros(&Device::cpu(), m * n).unwrap();
    let mut g = c.benchmark_group(group);
    g.sample_size(10);
    g.throughput(Throughput::Elements((2 * m * n * k) as u64));
    g.bench_function(format!("gemm {m}x{n}x{k}"), |bch| {
        bch.iter(|| {
            blas.gemm(
                Transpose::N,
                Transpose::N,
                m,
                n,
                k,
                1.0,
                &a.as_slice(),
                m,
                &b.as_slice(),
                k,
                0.0,
                &mut out.as_slice_mut(),
                m,
            )
            .unwrap()
        })
    });
    g.finish();
}

fn conv(c: &mut Criterion) {
    let n: usize = std::env::var("ROCM_DNN_BENCH_N")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(32);
    let dnn = dnn();
    // (name, C, K, H=W, filter, pad)
    for (name, ch, k, hw, f, pad) in [
        ("resnet50 3x3 c64", 64, 64, 56, 3, 1),
        ("resnet50 3x3 c256", 256, 256, 14, 3, 1),
        ("resnet50 1x1 c64-k256", 64, 256, 56, 1, 0),
    ] {
        let conv = ConvDesc::conv2d(pad, 1, 1, 1).unwrap();
        let xd = TensorDesc::new(DType::F32, Layout::Nchw, &[n, ch, hw, hw]).unwrap();
        let wd = TensorDesc::new(DType::F32, Layout::Nchw, &[k, ch, f, f]).unwrap();
        let yd = TensorDesc::new(
            DType::F32,
            Layout::Nchw,
            &conv.output_dims(&xd, &wd).unwrap(),
        )
        .unwrap();
        let p = ConvProblem::new(ConvDirection::Forward, &conv, &xd, &wd, &yd).unwrap();
        let group = format!("conv fwd {name} n{n}");
        bench_gemm(c, &group, n * hw * hw, k, ch * f * f);
        let x = rand_buf(xd.numel(), 3);
        let w = rand_buf(wd.numel(), 4);
        let mut y = DeviceBuffer::<f32>::zeros(&Device::cpu(), yd.numel()).unwrap();
        let mut g = c.benchmark_group(&group);
        g.sample_size(10);
        g.throughput(Throughput::Elements(p.flops() as u64));
        for algo in p.applicable() {
            if algo == ConvAlgo::Direct {
                continue;
            }
            g.bench_function(algo.name(), |b| {
                b.iter(|| {
                    dnn.convolution_forward(
                        &conv,
                        Some(algo),
                        1.0,
                        Tensor::new(&xd, x.as_slice()),
                        Tensor::new(&wd, w.as_slice()),
                        0.0,
                        TensorMut::new(&yd, y.as_slice_mut()),
                    )
                    .unwrap()
                })
            });
        }
        g.finish();
    }
}

fn attention(c: &mut Criterion) {
    let dnn = dnn();
    let (b, h, d) = (1usize, 2usize, 128usize);
    let run = |s: usize| -> (usize, f64) {
        let qd = TensorDesc::new(DType::F32, Layout::Nchw, &[b, h, s, d]).unwrap();
        let (q, k, v) = (
            rand_buf(qd.numel(), 5),
            rand_buf(qd.numel(), 6),
            rand_buf(qd.numel(), 7),
        );
        let mut o = DeviceBuffer::<f32>::zeros(&Device::cpu(), qd.numel()).unwrap();
        let mut lse = DeviceBuffer::<f32>::zeros(&Device::cpu(), b * h * s).unwrap();
        let desc = AttentionDesc {
            scale: 1.0 / (d as f32).sqrt(),
            causal: false,
        };
        let base = CUR.load(Ordering::Relaxed);
        PEAK.store(base, Ordering::Relaxed);
        let t = std::time::Instant::now();
        dnn.attention_forward(
            &desc,
            Tensor::new(&qd, q.as_slice()),
            Tensor::new(&qd, k.as_slice()),
            Tensor::new(&qd, v.as_slice()),
            None,
            TensorMut::new(&qd, o.as_slice_mut()),
            &mut lse.as_slice_mut(),
        )
        .unwrap();
        let secs = t.elapsed().as_secs_f64();
        (PEAK.load(Ordering::Relaxed) - base, secs)
    };
    for s in [1024usize, 2048, 4096] {
        let (peak, secs) = run(s);
        let io = 4 * b * h * s * d * 4; // q, k, v, o in f32
        let scores = b * h * s * s * 4;
        println!(
            "attention fwd peak heap growth: seq {s}, B={b} H={h} D={d}: {:.2} MiB (q/k/v/o f32 = {:.2} MiB; one full score matrix per head would be {:.2} MiB); {:.2} GFLOP/s",
            peak as f64 / 1048576.0,
            io as f64 / 1048576.0,
            scores as f64 / 1048576.0,
            4.0 * (b * h * s * s * d) as f64 / secs / 1e9
        );
    }
    let s = 2048;
    let group = format!("attention fwd b{b} h{h} s{s} d{d}");
    bench_gemm(c, &group, s, s, d);
    let qd = TensorDesc::new(DType::F32, Layout::Nchw, &[b, h, s, d]).unwrap();
    let (q, k, v) = (
        rand_buf(qd.numel(), 5),
        rand_buf(qd.numel(), 6),
        rand_buf(qd.numel(), 7),
    );
    let mut o = DeviceBuffer::<f32>::zeros(&Device::cpu(), qd.numel()).unwrap();
    let mut lse = DeviceBuffer::<f32>::zeros(&Device::cpu(), b * h * s).unwrap();
    let mut g = c.benchmark_group(&group);
    g.sample_size(10);
    g.throughput(Throughput::Elements((4 * b * h * s * s * d) as u64));
    for causal in [false, true] {
        let desc = AttentionDesc {
            scale: 1.0 / (d as f32).sqrt(),
            causal,
        };
        if causal {
            g.throughput(Throughput::Elements((2 * b * h * s * s * d) as u64));
        }
        g.bench_function(if causal { "causal" } else { "full" }, |bch| {
            bch.iter(|| {
                dnn.attention_forward(
                    &desc,
                    Tensor::new(&qd, q.as_slice()),
                    Tensor::new(&qd, k.as_slice()),
                    Tensor::new(&qd, v.as_slice()),
                    None,
                    TensorMut::new(&qd, o.as_slice_mut()),
                    &mut lse.as_slice_mut(),
                )
                .unwrap()
            })
        });
    }
    g.finish();
}

criterion_group!(benches, conv, attention);
criterion_main!(benches);
