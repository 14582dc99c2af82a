//! Criterion benchmarks of rocm-dnn on the CPU, each against the rocm-blas f32 GEMM rate
//! measured in the same run (the acceptance list):
//!
//! - forward convolution on the ResNet-50 shapes (N = 32: C = K = 64 56×56 3×3 pad 1;
//!   C = K = 256 14×14 3×3 pad 1; 1×1 C = 64 → K = 256 56×56), every algorithm but direct
//!   and the one immediate mode selects, against one GEMM of the same multiply-add count
//!   (M = N·P·Q, N = K, K = C·R·S): target ≥ 50%;
//! - Winograd against im2col on the two 3×3 stride-1 shapes;
//! - attention forward at seq 2048, head dim 128 (B = 1, H = 2; full and causal) against a
//!   GEMM of the score-matrix shape (2048×2048×128): target ≥ 40%; and its peak heap
//!   growth during one call, measured by a counting global allocator at seq 1024, 2048
//!   and 4096 (O(seq): doubling seq doubles it; one score matrix would quadruple).
//!
//! Throughput is in "elements" = floating-point operations, so criterion's Gelem/s are
//! GFLOP/s. A summary of the ratios (median times of the same samples criterion takes)
//! is printed at the end. `ROCM_DNN_BENCH_N` sets the conv batch (default 32).

use criterion::{Bencher, Criterion, Throughput};
use rocm_core::linalg::Transpose;
use rocm_core::{DType, Device, DeviceBuffer};
use rocm_dnn::*;
use std::alloc::{GlobalAlloc, Layout as AllocLayout, System};
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

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

/// Samples per benchmark (criterion's sample size).
const SAMPLES: usize = 10;

/// Per-iteration times of every benchmark, keyed by (group, function): criterion's
/// samples, recorded through `iter_custom` for the summary.
#[derive(Default)]
struct Record {
    times: RefCell<BTreeMap<(String, String), Vec<Duration>>>,
    flops: RefCell<BTreeMap<(String, String), f64>>,
}

impl Record {
    /// Benchmarks `f` as (group, name) with `flops` per call, recording the samples.
    fn bench(&self, b: &mut Bencher<'_>, group: &str, name: &str, flops: f64, mut f: impl FnMut()) {
        let key = (group.to_string(), name.to_string());
        self.flops.borrow_mut().insert(key.clone(), flops);
        b.iter_custom(|iters| {
            let t = Instant::now();
            for _ in 0..iters {
                f();
            }
            let e = t.elapsed();
            self.times
                .borrow_mut()
                .entry(key.clone())
                .or_default()
                .push(e / iters.max(1) as u32);
            e
        });
    }

    /// GFLOP/s of the median of the last SAMPLES samples (the ones after warm-up).
    fn rate(&self, group: &str, name: &str) -> Option<f64> {
        let key = (group.to_string(), name.to_string());
        let times = self.times.borrow();
        let t = times.get(&key)?;
        let mut s: Vec<f64> = t[t.len().saturating_sub(SAMPLES)..]
            .iter()
            .map(|d| d.as_secs_f64())
            .collect();
        s.sort_by(f64::total_cmp);
        let med = *s.get(s.len() / 2)?;
        Some(self.flops.borrow()[&key] / med / 1e9)
    }
}

fn rand_buf(len: usize, seed: u64) -> DeviceBuffer<f32> {
    let v: Vec<f32> = (0..len as u64)
        .map(|i| dropout::uniform(seed, i) - 0.5)
        .collect();
    DeviceBuffer::from_slice(&Device::cpu(), &v).unwrap()
}

fn dnn() -> Dnn {
    let mut d = Dnn::new(&Device::cpu()).unwrap();
    d.set_find_db(None);
    d.set_find_mode(FindMode::Fast);
    d
}

/// One f32 GEMM m×n×k through rocm-blas, the peer of `group` (recorded as "peer").
fn bench_gemm(c: &mut Criterion, rec: &Record, group: &str, m: usize, n: usize, k: usize) {
    let blas = rocm_blas::Blas::new(&Device::cpu());
    let a = rand_buf(m * k, 1);
    let b = rand_buf(k * n, 2);
    let mut out = DeviceBuffer::<f32>::zeros(&Device::cpu(), m * n).unwrap();
    let flops = (2 * m * n * k) as f64;
    let mut g = c.benchmark_group(group);
    g.sample_size(SAMPLES);
    g.throughput(Throughput::Elements(flops as u64));
    g.bench_function(format!("peer gemm {m}x{n}x{k}"), |bch| {
        rec.bench(bch, group, "peer", flops, || {
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

/// The conv shapes: (name, C, K, H = W, filter, pad).
const SHAPES: [(&str, usize, usize, usize, usize, usize); 3] = [
    ("resnet50 3x3 c64", 64, 64, 56, 3, 1),
    ("resnet50 3x3 c256", 256, 256, 14, 3, 1),
    ("resnet50 1x1 c64-k256", 64, 256, 56, 1, 0),
];

fn batch() -> usize {
    std::env::var("ROCM_DNN_BENCH_N")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(32)
}

fn conv_group(name: &str) -> String {
    format!("conv fwd {name} n{}", batch())
}

fn conv(c: &mut Criterion, rec: &Record) {
    let n = batch();
    let dnn = dnn();
    for (name, ch, k, hw, f, pad) in SHAPES {
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
        let group = conv_group(name);
        bench_gemm(c, rec, &group, n * hw * hw, k, ch * f * f);
        let x = rand_buf(xd.numel(), 3);
        let w = rand_buf(wd.numel(), 4);
        let mut y = DeviceBuffer::<f32>::zeros(&Device::cpu(), yd.numel()).unwrap();
        let mut g = c.benchmark_group(&group);
        g.sample_size(SAMPLES);
        g.throughput(Throughput::Elements(p.flops() as u64));
        let selected = format!("selected ({})", p.heuristic());
        let algos: Vec<(String, Option<ConvAlgo>)> = p
            .applicable()
            .into_iter()
            .filter(|&a| a != ConvAlgo::Direct)
            .map(|a| (a.name().to_string(), Some(a)))
            .chain([(selected, None)])
            .collect();
        for (fname, algo) in algos {
            g.bench_function(&fname, |b| {
                rec.bench(b, &group, &fname, p.flops(), || {
                    dnn.convolution_forward(
                        &conv,
                        algo,
                        1.0,
                        Tensor::new(&xd, x.as_slice()),
                        Tensor::new(&wd, w.as_slice()),
                        0.0,
                        TensorMut::new(&yd, y.as_slice_mut()),
                    )
                    .unwrap();
                })
            });
        }
        g.finish();
    }
}

/// Attention sizes: batch, heads, head dim, and the benchmarked sequence length.
const ATTN: (usize, usize, usize, usize) = (1, 2, 128, 2048);

fn attn_group() -> String {
    let (b, h, d, s) = ATTN;
    format!("attention fwd b{b} h{h} s{s} d{d}")
}

/// Peak heap growth (bytes) during one attention forward at sequence length `s`.
fn attention_peak(s: usize) -> usize {
    let (b, h, d, _) = ATTN;
    let dnn = dnn();
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
    PEAK.load(Ordering::Relaxed) - base
}

fn attention(c: &mut Criterion, rec: &Record) {
    let dnn = dnn();
    let (b, h, d, s) = ATTN;
    let group = attn_group();
    bench_gemm(c, rec, &group, s, s, d);
    let qd = TensorDesc::new(DType::F32, Layout::Nchw, &[b, h, s, d]).unwrap();
    let (q, k, v) = (
        rand_buf(qd.numel(), 5),
        rand_buf(qd.numel(), 6),
        rand_buf(qd.numel(), 7),
    );
    let mut o = DeviceBuffer::<f32>::zeros(&Device::cpu(), qd.numel()).unwrap();
    let mut lse = DeviceBuffer::<f32>::zeros(&Device::cpu(), b * h * s).unwrap();
    let mut g = c.benchmark_group(&group);
    g.sample_size(SAMPLES);
    for causal in [false, true] {
        let desc = AttentionDesc {
            scale: 1.0 / (d as f32).sqrt(),
            causal,
        };
        // FlashAttention's count: 4·B·H·S²·D, halved when causal.
        let flops = (4 * b * h * s * s * d) as f64 / if causal { 2.0 } else { 1.0 };
        g.throughput(Throughput::Elements(flops as u64));
        let name = if causal { "causal" } else { "full" };
        g.bench_function(name, |bch| {
            rec.bench(bch, &group, name, flops, || {
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

fn pct(a: Option<f64>, b: Option<f64>) -> String {
    match (a, b) {
        (Some(a), Some(b)) => format!("{:.0}%", 100.0 * a / b),
        _ => "-".into(),
    }
}

fn gf(a: Option<f64>) -> String {
    a.map_or("-".into(), |v| format!("{v:.1}"))
}

fn summary(rec: &Record) {
    println!("\n== rocm-dnn summary: GFLOP/s of the median sample, and % of the GEMM rate measured in the same run");
    for (name, ..) in SHAPES {
        let group = conv_group(name);
        let Some(gemm) = rec.rate(&group, "peer") else {
            continue;
        };
        let mut line = format!("{group}: GEMM peer {gemm:.1}");
        let mut wino: Option<f64> = None;
        let mut im2col = None;
        let fns: Vec<String> = rec
            .times
            .borrow()
            .keys()
            .filter(|(g, f)| g == &group && f != "peer")
            .map(|(_, f)| f.clone())
            .collect();
        for f in fns {
            let r = rec.rate(&group, &f);
            let label = if f == ConvAlgo::Im2colGemm.name() {
                "im2col+gemm"
            } else {
                &f
            };
            line += &format!("; {label} {} ({})", gf(r), pct(r, Some(gemm)));
            if f.starts_with("winograd") {
                wino = match (wino, r) {
                    (Some(a), Some(b)) => Some(a.max(b)),
                    (a, b) => a.or(b),
                };
            }
            if f == ConvAlgo::Im2colGemm.name() {
                im2col = r;
            }
        }
        println!("{line}  [target >= 50%]");
        if wino.is_some() {
            println!("  best Winograd / im2col: {}", pct(wino, im2col));
        }
    }
    let group = attn_group();
    if let Some(gemm) = rec.rate(&group, "peer") {
        let (full, causal) = (rec.rate(&group, "full"), rec.rate(&group, "causal"));
        println!(
            "{group}: GEMM peer {gemm:.1}; full {} ({}); causal {} ({})  [target >= 40%]",
            gf(full),
            pct(full, Some(gemm)),
            gf(causal),
            pct(causal, Some(gemm))
        );
        let (b, h, d, _) = ATTN;
        let peaks: Vec<(usize, usize)> = [1024, 2048, 4096].map(|s| (s, attention_peak(s))).into();
        for &(s, p) in &peaks {
            println!(
                "  peak heap growth of one call, seq {s}: {:.2} MiB (q, k, v, o in f32: {:.2} MiB; one score matrix per head: {:.2} MiB)",
                p as f64 / 1048576.0,
                (4 * b * h * s * d * 4) as f64 / 1048576.0,
                (b * h * s * s * 4) as f64 / 1048576.0
            );
        }
        println!(
            "  growth seq 2048 -> 4096: x{:.2} (linear: 2, quadratic: 4)",
            peaks[2].1 as f64 / peaks[1].1.max(1) as f64
        );
    }
}

fn main() {
    let rec = Record::default();
    let mut c = Criterion::default().configure_from_args();
    conv(&mut c, &rec);
    attention(&mut c, &rec);
    c.final_summary();
    summary(&rec);
}
