//! `rocm-bench dnn`: MIOpenDriver-style runs of rocm-dnn primitives.
//!
//! `conv` takes MIOpenDriver's flags (-n -c -H -W -k -y -x -p -q -u -v -l -j -g -m -F
//! -t -i -I -S); `attention`, `norm`, `pool` and `softmax` take the analogous sizes.
//! Every run prints the equivalent command line, the algorithm, the time per call and
//! GFLOP/s (or GB/s for memory-bound ops). `softmax` and `dropout` run on any device
//! (`--device`, `--dtype`, `--size-mib`) and print % of a device copy of the same tensor
//! and, with `--vendor`, cuDNN's time on the same buffers.

use clap::{Args, Subcommand};
use rocm_core::{DType, Device, DeviceBuffer};
use rocm_dnn::norm::{ParamGrads, RowKind, SavedStats};
use rocm_dnn::pooling::{PoolDesc, PoolMode};
use rocm_dnn::softmax::SoftmaxMode;
use rocm_dnn::*;
use std::time::Instant;

type R<T> = Result<T, Box<dyn std::error::Error>>;

/// `f::<T>(a)` for the storage type `dtype` names.
macro_rules! by_dtype {
    ($dtype:expr, $f:ident, $a:expr) => {
        match $dtype.as_str() {
            "f32" => $f::<f32>($a),
            "f16" => $f::<half::f16>($a),
            "bf16" => $f::<half::bf16>($a),
            d => Err(format!("--dtype {d}: expected f32, f16 or bf16").into()),
        }
    };
}

#[derive(Subcommand)]
pub enum DnnCommand {
    /// Convolution (MIOpenDriver conv flags).
    Conv(Box<ConvArgs>),
    /// Fused attention forward and backward.
    Attention(AttnArgs),
    /// Batch, layer, RMS or group norm forward and backward.
    Norm(NormArgs),
    /// Pooling forward and backward.
    Pool(PoolArgs),
    /// Softmax forward and backward.
    Softmax(SoftmaxArgs),
    /// Dropout forward and backward.
    Dropout(DropoutArgs),
}

#[derive(Args, Clone)]
pub struct ConvArgs {
    #[arg(short = 'n', default_value_t = 100)]
    n: usize,
    #[arg(short = 'c', default_value_t = 3)]
    c: usize,
    #[arg(short = 'H', default_value_t = 32)]
    h: usize,
    #[arg(short = 'W', default_value_t = 32)]
    w: usize,
    #[arg(short = 'k', default_value_t = 32)]
    k: usize,
    #[arg(short = 'y', default_value_t = 3)]
    fy: usize,
    #[arg(short = 'x', default_value_t = 3)]
    fx: usize,
    #[arg(short = 'p', default_value_t = 0)]
    pad_h: usize,
    #[arg(short = 'q', default_value_t = 0)]
    pad_w: usize,
    #[arg(short = 'u', default_value_t = 1)]
    stride_h: usize,
    #[arg(short = 'v', default_value_t = 1)]
    stride_w: usize,
    #[arg(short = 'l', default_value_t = 1)]
    dil_h: usize,
    #[arg(short = 'j', default_value_t = 1)]
    dil_w: usize,
    #[arg(short = 'g', default_value_t = 1)]
    groups: usize,
    /// conv or trans.
    #[arg(short = 'm', default_value = "conv")]
    mode: String,
    /// Direction bitmask: 1 fwd, 2 bwd-data, 4 bwd-weights, 0 all.
    #[arg(short = 'F', default_value_t = 0)]
    direction: u32,
    /// 1: print timings.
    #[arg(short = 't', default_value_t = 0)]
    time: u32,
    /// Timed iterations.
    #[arg(short = 'i', default_value_t = 10)]
    iters: usize,
    /// Layout of all tensors: NCHW or NHWC (NCDHW/NDHWC with --spatial-dim 3).
    #[arg(short = 'I', default_value = "NCHW")]
    layout: String,
    /// Algorithm: direct, gemm, winograd-f2x3, winograd-f4x3, or `find` (benchmark all);
    /// default: the find mode's choice.
    #[arg(short = 'S')]
    solution: Option<String>,
    /// Element type: f32, f16, bf16.
    #[arg(long, default_value = "f32")]
    dtype: String,
    #[arg(long = "spatial-dim", default_value_t = 2)]
    spatial_dim: usize,
    #[arg(long = "in-d", default_value_t = 1)]
    in_d: usize,
    #[arg(long = "fil-d", default_value_t = 1)]
    fil_d: usize,
    #[arg(long = "pad-d", default_value_t = 0)]
    pad_d: usize,
    #[arg(long = "conv-stride-d", default_value_t = 1)]
    stride_d: usize,
    #[arg(long = "dilation-d", default_value_t = 1)]
    dil_d: usize,
    /// Device (only cpu runs until the GPU kernels land).
    #[arg(long, default_value = "cpu")]
    device: String,
}

#[derive(Args)]
pub struct AttnArgs {
    #[arg(short = 'b', default_value_t = 1)]
    batch: usize,
    /// Query heads.
    #[arg(long, default_value_t = 8)]
    heads: usize,
    /// Key/value heads (grouped-query attention when fewer than heads).
    #[arg(long = "kv-heads")]
    kv_heads: Option<usize>,
    /// Query sequence length.
    #[arg(short = 's', default_value_t = 1024)]
    seq: usize,
    /// Key sequence length (default: seq).
    #[arg(long = "seq-k")]
    seq_k: Option<usize>,
    /// Head dimension.
    #[arg(short = 'd', default_value_t = 128)]
    dim: usize,
    #[arg(long)]
    causal: bool,
    #[arg(short = 'i', default_value_t = 3)]
    iters: usize,
}

#[derive(Args)]
pub struct NormArgs {
    /// batch, layer, rms or group.
    #[arg(long, default_value = "batch")]
    kind: String,
    #[arg(short = 'n', default_value_t = 32)]
    n: usize,
    #[arg(short = 'c', default_value_t = 64)]
    c: usize,
    #[arg(short = 'H', default_value_t = 56)]
    h: usize,
    #[arg(short = 'W', default_value_t = 56)]
    w: usize,
    /// Groups for group norm.
    #[arg(short = 'g', default_value_t = 8)]
    groups: usize,
    #[arg(short = 'i', default_value_t = 5)]
    iters: usize,
}

#[derive(Args)]
pub struct PoolArgs {
    #[arg(short = 'n', default_value_t = 32)]
    n: usize,
    #[arg(short = 'c', default_value_t = 64)]
    c: usize,
    #[arg(short = 'H', default_value_t = 112)]
    h: usize,
    #[arg(short = 'W', default_value_t = 112)]
    w: usize,
    #[arg(short = 'y', default_value_t = 3)]
    win_h: usize,
    #[arg(short = 'x', default_value_t = 3)]
    win_w: usize,
    #[arg(short = 'p', default_value_t = 1)]
    pad_h: usize,
    #[arg(short = 'q', default_value_t = 1)]
    pad_w: usize,
    #[arg(short = 'u', default_value_t = 2)]
    stride_h: usize,
    #[arg(short = 'v', default_value_t = 2)]
    stride_w: usize,
    /// max, avg (padding counted) or avg-exclusive.
    #[arg(short = 'm', default_value = "max")]
    mode: String,
    #[arg(short = 'i', default_value_t = 5)]
    iters: usize,
}

#[derive(Args)]
pub struct SoftmaxArgs {
    #[arg(short = 'n', default_value_t = 32)]
    n: usize,
    #[arg(short = 'c', default_value_t = 1000)]
    c: usize,
    #[arg(short = 'H', default_value_t = 1)]
    h: usize,
    #[arg(short = 'W', default_value_t = 1)]
    w: usize,
    #[arg(long, default_value_t = 1)]
    axis: usize,
    #[arg(long)]
    log: bool,
    #[arg(short = 'i', default_value_t = 10)]
    iters: usize,
    /// Device (cpu, cuda:0, emu:gfx90a, ...).
    #[arg(long, default_value = "cpu")]
    device: String,
    /// Element type: f32, f16, bf16.
    #[arg(long, default_value = "f32")]
    dtype: String,
    /// Tensor size in MiB: sets N so that N·C·H·W elements fill it (overrides -n).
    #[arg(long)]
    size_mib: Option<usize>,
    /// cuDNN's softmax on the same buffers in the same run (`--features vendor`, CUDA).
    #[arg(long)]
    vendor: bool,
}

#[derive(Args)]
pub struct DropoutArgs {
    #[arg(short = 'n', default_value_t = 32)]
    n: usize,
    #[arg(short = 'c', default_value_t = 64)]
    c: usize,
    #[arg(short = 'H', default_value_t = 56)]
    h: usize,
    #[arg(short = 'W', default_value_t = 56)]
    w: usize,
    /// Drop probability.
    #[arg(short = 'p', default_value_t = 0.5)]
    p: f32,
    #[arg(short = 'i', default_value_t = 10)]
    iters: usize,
    /// Device (cpu, cuda:0, emu:gfx90a, ...).
    #[arg(long, default_value = "cpu")]
    device: String,
    /// Element type: f32, f16, bf16.
    #[arg(long, default_value = "f32")]
    dtype: String,
    /// Tensor size in MiB: sets N so that N·C·H·W elements fill it (overrides -n).
    #[arg(long)]
    size_mib: Option<usize>,
    /// cuDNN's dropout on the same tensors in the same run (`--features vendor`, CUDA).
    #[arg(long)]
    vendor: bool,
}

pub fn run(cmd: &DnnCommand) -> R<()> {
    match cmd {
        DnnCommand::Conv(a) => conv(a),
        DnnCommand::Attention(a) => attention(a),
        DnnCommand::Norm(a) => norm(a),
        DnnCommand::Pool(a) => pool(a),
        DnnCommand::Softmax(a) => softmax(a),
        DnnCommand::Dropout(a) => dropout(a),
    }
}

/// The short run `rocm-bench suite` does.
pub fn quick() -> R<()> {
    let a = ConvArgs {
        n: 4,
        c: 32,
        h: 28,
        w: 28,
        k: 32,
        fy: 3,
        fx: 3,
        pad_h: 1,
        pad_w: 1,
        stride_h: 1,
        stride_w: 1,
        dil_h: 1,
        dil_w: 1,
        groups: 1,
        mode: "conv".into(),
        direction: 0,
        time: 1,
        iters: 2,
        layout: "NCHW".into(),
        solution: Some("find".into()),
        dtype: "f32".into(),
        spatial_dim: 2,
        in_d: 1,
        fil_d: 1,
        pad_d: 0,
        stride_d: 1,
        dil_d: 1,
        device: "cpu".into(),
    };
    conv(&a)?;
    attention(&AttnArgs {
        batch: 1,
        heads: 2,
        kv_heads: None,
        seq: 256,
        seq_k: None,
        dim: 64,
        causal: true,
        iters: 2,
    })
}

fn rand_vec(len: usize, seed: u64) -> rocm_core::Result<Vec<f32>> {
    try_rand::<f32>(len, seed)
}

/// `len` random values of `T`, reserved fallibly (a huge tensor is an error, not an abort).
fn try_rand<T: DnnFloat>(len: usize, seed: u64) -> rocm_core::Result<Vec<T>> {
    rocm_core::host_alloc::try_from_fn("tensor data", len, |i| {
        T::from_f32(dropout::uniform(seed, i as u64) - 0.5)
    })
}

/// Sizes that must be at least 1 (a zero batch or channel count runs nothing).
fn at_least_one(sizes: &[(&str, usize)]) -> R<()> {
    for &(name, v) in sizes {
        if v == 0 {
            return Err(format!("{name} must be at least 1").into());
        }
    }
    Ok(())
}

/// Best-of time of `iters` calls (after one warm-up).
fn time(iters: usize, mut f: impl FnMut() -> rocm_core::Result<()>) -> R<f64> {
    f()?;
    let mut best = f64::INFINITY;
    for _ in 0..iters.max(1) {
        let t = Instant::now();
        f()?;
        best = best.min(t.elapsed().as_secs_f64());
    }
    Ok(best)
}

fn conv(a: &ConvArgs) -> R<()> {
    by_dtype!(a.dtype, conv_t, a)
}

fn conv_t<T: DnnFloat>(a: &ConvArgs) -> R<()> {
    at_least_one(&[
        ("-n", a.n),
        ("-c", a.c),
        ("-H", a.h),
        ("-W", a.w),
        ("-k", a.k),
        ("-y", a.fy),
        ("-x", a.fx),
        ("-g", a.groups),
        ("-i", a.iters),
    ])?;
    if a.direction > 7 {
        return Err(format!(
            "-F {}: the direction mask takes 1 (forward), 2 (backward data), 4 (backward weights), their sums, or 0 (all)",
            a.direction
        )
        .into());
    }
    let dev = Device::open(&a.device)?;
    let mut dnn = Dnn::new(&dev)?;
    let three = a.spatial_dim == 3;
    let mode = match a.mode.as_str() {
        "conv" => ConvMode::Convolution,
        "trans" => ConvMode::Transposed,
        m => return Err(format!("-m {m}: expected conv or trans").into()),
    };
    let (pads, strides, dils) = if three {
        (
            vec![a.pad_d, a.pad_h, a.pad_w],
            vec![a.stride_d, a.stride_h, a.stride_w],
            vec![a.dil_d, a.dil_h, a.dil_w],
        )
    } else {
        (
            vec![a.pad_h, a.pad_w],
            vec![a.stride_h, a.stride_w],
            vec![a.dil_h, a.dil_w],
        )
    };
    let conv = ConvDesc::new(mode, &pads, &strides, &dils, a.groups)?;
    let layout = Layout::for_rank(a.spatial_dim + 2, Layout::parse(&a.layout)?.channels_last())?;
    let sp = |d: usize, h: usize, w: usize| if three { vec![d, h, w] } else { vec![h, w] };
    let mut xd = vec![a.n, a.c];
    xd.extend(sp(a.in_d, a.h, a.w));
    let mut wd = match mode {
        ConvMode::Convolution => vec![a.k, a.c / a.groups.max(1)],
        ConvMode::Transposed => vec![a.c, a.k / a.groups.max(1)],
    };
    wd.extend(sp(a.fil_d, a.fy, a.fx));
    let x = TensorDesc::new(T::DTYPE, layout, &xd)?;
    let w = TensorDesc::new(T::DTYPE, layout, &wd)?;
    let y = TensorDesc::new(T::DTYPE, layout, &conv.output_dims(&x, &w)?)?;
    let up = |len: usize, seed: u64| -> R<DeviceBuffer<T>> {
        let v: Vec<T> = try_rand(len, seed)?;
        Ok(DeviceBuffer::from_slice(&dev, &v)?)
    };
    let (xb, wb, yb) = (up(x.numel(), 1)?, up(w.numel(), 2)?, up(y.numel(), 3)?);
    let (mut xo, mut wo, mut yo) = (up(x.numel(), 4)?, up(w.numel(), 5)?, up(y.numel(), 6)?);
    let dirs = [
        ConvDirection::Forward,
        ConvDirection::BackwardData,
        ConvDirection::BackwardWeights,
    ];
    for (bit, dir) in [1u32, 2, 4].into_iter().zip(dirs) {
        if a.direction != 0 && a.direction & bit == 0 {
            continue;
        }
        let p = ConvProblem::new(dir, &conv, &x, &w, &y)?;
        println!(
            "{}",
            p.driver_command()
                .replace("-F 1", &format!("-F {bit}"))
                .replace("-F 2", &format!("-F {bit}"))
                .replace("-F 4", &format!("-F {bit}"))
        );
        let algos: Vec<Option<ConvAlgo>> = match a.solution.as_deref() {
            Some("find") => {
                dnn.set_find_mode(FindMode::Normal);
                let perf = dnn.find_convolution_algorithm(&p)?;
                for r in &perf {
                    println!(
                        "  find: {:<14} {:>12.1} us  {:>8.2} GFLOP/s",
                        r.algo.name(),
                        r.time_us,
                        p.flops() / r.time_us / 1e3
                    );
                }
                vec![perf.first().map(|r| r.algo)]
            }
            Some(s) => vec![Some(ConvAlgo::parse(s)?)],
            None => vec![None],
        };
        for algo in algos {
            let mut ran = None;
            let secs = time(a.iters, || {
                let r = match dir {
                    ConvDirection::Forward => dnn.convolution_forward(
                        &conv,
                        algo,
                        1.0,
                        Tensor::new(&x, xb.as_slice()),
                        Tensor::new(&w, wb.as_slice()),
                        0.0,
                        TensorMut::new(&y, yo.as_slice_mut()),
                    ),
                    ConvDirection::BackwardData => dnn.convolution_backward_data(
                        &conv,
                        algo,
                        1.0,
                        Tensor::new(&y, yb.as_slice()),
                        Tensor::new(&w, wb.as_slice()),
                        0.0,
                        TensorMut::new(&x, xo.as_slice_mut()),
                    ),
                    ConvDirection::BackwardWeights => dnn.convolution_backward_weights(
                        &conv,
                        algo,
                        1.0,
                        Tensor::new(&x, xb.as_slice()),
                        Tensor::new(&y, yb.as_slice()),
                        0.0,
                        TensorMut::new(&w, wo.as_slice_mut()),
                    ),
                }?;
                ran = Some(r);
                Ok(())
            })?;
            let name = ran.map_or("?", |r| r.name());
            if a.time != 0 {
                println!(
                    "  {} {name}: {:.3} ms, {:.2} GFLOP/s",
                    dir.name(),
                    secs * 1e3,
                    p.flops() / secs / 1e9
                );
            } else {
                println!("  {} {name}: ok", dir.name());
            }
        }
    }
    Ok(())
}

fn attention(a: &AttnArgs) -> R<()> {
    let dev = Device::cpu();
    let dnn = Dnn::new(&dev)?;
    let hkv = a.kv_heads.unwrap_or(a.heads);
    let sk = a.seq_k.unwrap_or(a.seq);
    let qd = TensorDesc::new(DType::F32, Layout::Nchw, &[a.batch, a.heads, a.seq, a.dim])?;
    let kd = TensorDesc::new(DType::F32, Layout::Nchw, &[a.batch, hkv, sk, a.dim])?;
    let up = |len: usize, s: u64| DeviceBuffer::from_slice(&dev, &rand_vec(len, s)?);
    let (q, k, v, d_o) = (
        up(qd.numel(), 1)?,
        up(kd.numel(), 2)?,
        up(kd.numel(), 3)?,
        up(qd.numel(), 4)?,
    );
    let mut o = DeviceBuffer::<f32>::zeros(&dev, qd.numel())?;
    let mut lse = DeviceBuffer::<f32>::zeros(&dev, a.batch * a.heads * a.seq)?;
    let (mut dq, mut dk, mut dv) = (
        DeviceBuffer::<f32>::zeros(&dev, qd.numel())?,
        DeviceBuffer::<f32>::zeros(&dev, kd.numel())?,
        DeviceBuffer::<f32>::zeros(&dev, kd.numel())?,
    );
    let desc = AttentionDesc {
        scale: 1.0 / (a.dim as f32).sqrt(),
        causal: a.causal,
    };
    let frac = if a.causal { 0.5 } else { 1.0 };
    let flops = 4.0 * (a.batch * a.heads * a.seq * sk * a.dim) as f64 * frac;
    let f = time(a.iters, || {
        dnn.attention_forward(
            &desc,
            Tensor::new(&qd, q.as_slice()),
            Tensor::new(&kd, k.as_slice()),
            Tensor::new(&kd, v.as_slice()),
            None,
            TensorMut::new(&qd, o.as_slice_mut()),
            &mut lse.as_slice_mut(),
        )
    })?;
    let b = time(a.iters, || {
        dnn.attention_backward(
            &desc,
            Tensor::new(&qd, q.as_slice()),
            Tensor::new(&kd, k.as_slice()),
            Tensor::new(&kd, v.as_slice()),
            Tensor::new(&qd, o.as_slice()),
            Tensor::new(&qd, d_o.as_slice()),
            &lse.as_slice(),
            None,
            TensorMut::new(&qd, dq.as_slice_mut()),
            TensorMut::new(&kd, dk.as_slice_mut()),
            TensorMut::new(&kd, dv.as_slice_mut()),
        )
    })?;
    println!(
        "attention b={} heads={} kv_heads={hkv} seq={} seq_k={sk} d={} causal={}: fwd {:.3} ms {:.2} GFLOP/s, bwd {:.3} ms {:.2} GFLOP/s",
        a.batch, a.heads, a.seq, a.dim, a.causal, f * 1e3, flops / f / 1e9, b * 1e3, 2.5 * flops / b / 1e9
    );
    Ok(())
}

fn norm(a: &NormArgs) -> R<()> {
    let dev = Device::cpu();
    let dnn = Dnn::new(&dev)?;
    let xd = TensorDesc::new(DType::F32, Layout::Nchw, &[a.n, a.c, a.h, a.w])?;
    let x = DeviceBuffer::from_slice(&dev, &rand_vec(xd.numel(), 1)?)?;
    let dy = DeviceBuffer::from_slice(&dev, &rand_vec(xd.numel(), 2)?)?;
    let mut y = DeviceBuffer::<f32>::zeros(&dev, xd.numel())?;
    let (kind, rows, np) = match a.kind.as_str() {
        "batch" => (None, a.c, a.c),
        "layer" => (Some(RowKind::Layer(1)), a.n, a.c * a.h * a.w),
        "rms" => (Some(RowKind::Rms(1)), a.n, a.c * a.h * a.w),
        "group" => (Some(RowKind::Group(a.groups)), a.n * a.groups, a.c),
        k => return Err(format!("--kind {k}: expected batch, layer, rms or group").into()),
    };
    let g = DeviceBuffer::from_slice(&dev, &vec![1.0f32; np])?;
    let bt = DeviceBuffer::from_slice(&dev, &vec![0.0f32; np])?;
    let (mut mu, mut rs) = (
        DeviceBuffer::<f32>::zeros(&dev, rows)?,
        DeviceBuffer::<f32>::zeros(&dev, rows)?,
    );
    let (mut rm, mut rv) = (
        DeviceBuffer::<f32>::zeros(&dev, a.c)?,
        DeviceBuffer::<f32>::zeros(&dev, a.c)?,
    );
    let fwd = time(a.iters, || {
        let (xt, yt) = (
            Tensor::new(&xd, x.as_slice()),
            TensorMut::new(&xd, y.as_slice_mut()),
        );
        let saved = SavedStats {
            mean: &mut mu.as_slice_mut(),
            inv_std: &mut rs.as_slice_mut(),
        };
        match kind {
            None => dnn.batch_norm_forward_training(
                xt,
                yt,
                &g.as_slice(),
                &bt.as_slice(),
                1e-5,
                0.1,
                &mut rm.as_slice_mut(),
                &mut rv.as_slice_mut(),
                saved,
            ),
            Some(RowKind::Layer(ax)) => dnn.layer_norm_forward(
                ax,
                xt,
                yt,
                Some(&g.as_slice()),
                Some(&bt.as_slice()),
                1e-5,
                saved,
            ),
            Some(RowKind::Rms(ax)) => {
                dnn.rms_norm_forward(ax, xt, yt, Some(&g.as_slice()), 1e-5, saved.inv_std)
            }
            Some(RowKind::Group(gr)) => dnn.group_norm_forward(
                gr,
                xt,
                yt,
                Some(&g.as_slice()),
                Some(&bt.as_slice()),
                1e-5,
                saved,
            ),
        }
    })?;
    let (mut dg, mut db) = (
        DeviceBuffer::<f32>::zeros(&dev, np)?,
        DeviceBuffer::<f32>::zeros(&dev, np)?,
    );
    let bwd = time(a.iters, || {
        let (xt, dyt, dxt) = (
            Tensor::new(&xd, x.as_slice()),
            Tensor::new(&xd, dy.as_slice()),
            TensorMut::new(&xd, y.as_slice_mut()),
        );
        let grads = ParamGrads {
            dgamma: &mut dg.as_slice_mut(),
            dbeta: &mut db.as_slice_mut(),
        };
        match kind {
            None => dnn.batch_norm_backward(
                xt,
                dyt,
                dxt,
                &g.as_slice(),
                &mu.as_slice(),
                &rs.as_slice(),
                grads,
            ),
            Some(k) => dnn.norm_backward(
                k,
                xt,
                dyt,
                dxt,
                Some(&g.as_slice()),
                &mu.as_slice(),
                &rs.as_slice(),
                Some(grads),
            ),
        }
    })?;
    let bytes = (xd.numel() * 4) as f64;
    println!("{} norm n={} c={} h={} w={}: fwd {:.3} ms {:.2} GB/s (x+y), bwd {:.3} ms {:.2} GB/s (x+dy+dx)", a.kind, a.n, a.c, a.h, a.w, fwd * 1e3, 2.0 * bytes / fwd / 1e9, bwd * 1e3, 3.0 * bytes / bwd / 1e9);
    Ok(())
}

fn pool(a: &PoolArgs) -> R<()> {
    let dev = Device::cpu();
    let dnn = Dnn::new(&dev)?;
    let mode = match a.mode.as_str() {
        "max" => PoolMode::Max,
        "avg" => PoolMode::AverageInclusive,
        "avg-exclusive" => PoolMode::AverageExclusive,
        m => return Err(format!("-m {m}: expected max, avg or avg-exclusive").into()),
    };
    let p = PoolDesc::new(
        mode,
        &[a.win_h, a.win_w],
        &[a.pad_h, a.pad_w],
        &[a.stride_h, a.stride_w],
    )?;
    let xd = TensorDesc::new(DType::F32, Layout::Nchw, &[a.n, a.c, a.h, a.w])?;
    let yd = TensorDesc::new(DType::F32, Layout::Nchw, &p.output_dims(&xd)?)?;
    let x = DeviceBuffer::from_slice(&dev, &rand_vec(xd.numel(), 1)?)?;
    let dy = DeviceBuffer::from_slice(&dev, &rand_vec(yd.numel(), 2)?)?;
    let mut y = DeviceBuffer::<f32>::zeros(&dev, yd.numel())?;
    let mut dx = DeviceBuffer::<f32>::zeros(&dev, xd.numel())?;
    let mut idx = DeviceBuffer::<i32>::zeros(&dev, yd.numel())?;
    let fwd = time(a.iters, || {
        dnn.pooling_forward(
            &p,
            Tensor::new(&xd, x.as_slice()),
            TensorMut::new(&yd, y.as_slice_mut()),
            Some(&mut idx.as_slice_mut()),
        )
    })?;
    let bwd = time(a.iters, || {
        dnn.pooling_backward(
            &p,
            Tensor::new(&xd, x.as_slice()),
            Tensor::new(&yd, dy.as_slice()),
            Some(&idx.as_slice()),
            TensorMut::new(&xd, dx.as_slice_mut()),
        )
    })?;
    let bytes = ((xd.numel() + yd.numel()) * 4) as f64;
    println!(
        "pool {} {:?} -> {:?}: fwd {:.3} ms {:.2} GB/s, bwd {:.3} ms {:.2} GB/s",
        a.mode,
        xd.dims(),
        yd.dims(),
        fwd * 1e3,
        bytes / fwd / 1e9,
        bwd * 1e3,
        bytes / bwd / 1e9
    );
    Ok(())
}

fn softmax(a: &SoftmaxArgs) -> R<()> {
    by_dtype!(a.dtype, softmax_t, a)
}

/// The buffers and timers of a bandwidth-bound run: x, dy (random), y, dx of one
/// packed NCHW tensor on the device, and a device-to-device copy of it timed first.
struct Bandwidth<T: DnnFloat> {
    dev: Device,
    dnn: Dnn,
    dims: [usize; 4],
    desc: TensorDesc,
    x: DeviceBuffer<T>,
    dy: DeviceBuffer<T>,
    y: DeviceBuffer<T>,
    dx: DeviceBuffer<T>,
    iters: u32,
    bytes: f64,
    copy: Option<f64>,
}

impl<T: DnnFloat> Bandwidth<T> {
    /// `[n, c, h, w]` (n from `size_mib` where given) on `device`.
    fn new(device: &str, dims: [usize; 4], size_mib: Option<usize>, iters: usize) -> R<Self> {
        let dev = Device::open(device)?;
        let size = std::mem::size_of::<T>();
        let per_image = rocm_core::host_alloc::elements(
            "-c/-H/-W: one image's bytes",
            &[dims[1], dims[2], dims[3], size],
        )?;
        let n = match size_mib {
            None => dims[0],
            Some(mib) => {
                let bytes = rocm_core::host_alloc::elements("--size-mib", &[mib, 1 << 20])?;
                (bytes / per_image.max(1)).max(1)
            }
        };
        rocm_core::host_alloc::elements("-n/-c/-H/-W: tensor bytes", &[n, per_image])?;
        let dims = [n, dims[1], dims[2], dims[3]];
        let desc = TensorDesc::new(T::DTYPE, Layout::Nchw, &dims)?;
        let numel = desc.numel();
        let mut b = Bandwidth {
            dnn: Dnn::new(&dev)?,
            x: DeviceBuffer::from_slice(&dev, &try_rand::<T>(numel, 1)?)?,
            dy: DeviceBuffer::from_slice(&dev, &try_rand::<T>(numel, 2)?)?,
            y: DeviceBuffer::zeros(&dev, numel)?,
            dx: DeviceBuffer::zeros(&dev, numel)?,
            iters: iters.max(1) as u32,
            bytes: (numel * size) as f64,
            copy: None,
            dims,
            desc,
            dev,
        };
        if !b.dev.is_cpu() {
            let stream = b.dev.default_stream().clone();
            let (x, y) = (&b.x, &mut b.y);
            let dev = &b.dev;
            b.copy = Some(crate::rand::timed(
                b.iters,
                || dev.synchronize(),
                || rocm_kernels::copy::copy(&stream, &mut y.as_slice_mut(), &x.as_slice()),
            )?);
        }
        Ok(b)
    }

    fn header(&self, what: &str) {
        println!(
            "{what} {:?} {} on {} ({:.1} MiB per tensor)",
            self.dims,
            T::DTYPE,
            self.dev.id(),
            self.bytes / (1u64 << 20) as f64
        );
        if let Some(c) = self.copy {
            self.row("device copy", 2.0 * self.bytes, c);
        }
    }

    /// A line: time, GB/s of `moved` bytes and % of the copy's GB/s.
    fn row(&self, what: &str, moved: f64, s: f64) {
        let pct = self.copy.map_or(String::new(), |c| {
            format!(
                ", {:.1}% of copy",
                (moved / s) / (2.0 * self.bytes / c) * 100.0
            )
        });
        println!(
            "  {what:<22} {:>9.3} ms {:>8.1} GB/s{pct}",
            s * 1e3,
            moved / s / 1e9
        );
    }

    fn vendor_shape(&self, axis: usize) -> crate::vendor_dnn::Shape {
        crate::vendor_dnn::Shape {
            outer: self.dims[..axis].iter().product(),
            len: self.dims[axis],
            inner: self.dims[axis + 1..].iter().product(),
            dtype: T::DTYPE,
        }
    }
}

/// Softmax forward (reads x, writes y) and backward (reads y, dy, writes dx): GB/s of
/// the bytes they must move, beside a device-to-device copy of the same tensor (bytes
/// read plus written) and, with `--vendor`, cuDNN on the same buffers.
fn softmax_t<T: DnnFloat>(a: &SoftmaxArgs) -> R<()> {
    let mode = if a.log {
        SoftmaxMode::LogSoftmax
    } else {
        SoftmaxMode::Softmax
    };
    let mut b = Bandwidth::<T>::new(&a.device, [a.n, a.c, a.h, a.w], a.size_mib, a.iters)?;
    let what = if a.log { "log-softmax" } else { "softmax" };
    b.header(&format!("{what} axis {}", a.axis));
    let bytes = b.bytes;
    let fwd = {
        let Bandwidth {
            dnn, desc, x, y, ..
        } = &mut b;
        let f = || {
            dnn.softmax_forward(
                mode,
                a.axis,
                Tensor::new(desc, x.as_slice()),
                TensorMut::new(desc, y.as_slice_mut()),
            )
        };
        crate::rand::timed(a.iters.max(1) as u32, || dnn.device().synchronize(), f)?
    };
    b.row("rocm-dnn forward", 2.0 * bytes, fwd);
    let bwd = {
        let Bandwidth {
            dnn,
            desc,
            y,
            dy,
            dx,
            ..
        } = &mut b;
        let f = || {
            dnn.softmax_backward(
                mode,
                a.axis,
                Tensor::new(desc, y.as_slice()),
                Tensor::new(desc, dy.as_slice()),
                TensorMut::new(desc, dx.as_slice_mut()),
            )
        };
        crate::rand::timed(a.iters.max(1) as u32, || dnn.device().synchronize(), f)?
    };
    b.row("rocm-dnn backward", 3.0 * bytes, bwd);
    if a.vendor {
        let ours_y = b.y.to_vec()?;
        let call = crate::vendor_dnn::SoftmaxCall {
            shape: b.vendor_shape(a.axis),
            log: a.log,
            x: b.x.address(),
            y: b.y.address(),
            dy: b.dy.address(),
            dx: b.dx.address(),
        };
        let (cf, cb) = crate::vendor_dnn::softmax_times(&b.dev, &call, b.iters)?;
        b.row("cuDNN forward", 2.0 * bytes, cf);
        b.row("cuDNN backward", 3.0 * bytes, cb);
        println!(
            "  rocm-dnn / cuDNN: forward {:.2}x, backward {:.2}x",
            cf / fwd,
            cb / bwd
        );
        let theirs = b.y.to_vec()?;
        let worst = ours_y
            .iter()
            .zip(&theirs)
            .map(|(p, q)| (p.to_f32() - q.to_f32()).abs() as f64);
        let worst = crate::report::nan_max(worst);
        println!("  largest |y − y_cuDNN|: {worst:e}");
    }
    Ok(())
}

fn dropout(a: &DropoutArgs) -> R<()> {
    by_dtype!(a.dtype, dropout_t, a)
}

/// Dropout forward (reads x, writes y and the one-byte mask) and backward (reads dy and
/// the mask, writes dx): GB/s of those bytes beside the copy and, with `--vendor`,
/// cuDNN's dropout (its own generator and reserve space) on the same tensors.
fn dropout_t<T: DnnFloat>(a: &DropoutArgs) -> R<()> {
    let mut b = Bandwidth::<T>::new(&a.device, [a.n, a.c, a.h, a.w], a.size_mib, a.iters)?;
    b.header(&format!("dropout p {}", a.p));
    let numel = b.desc.numel();
    let mut mask = DeviceBuffer::<u8>::zeros(&b.dev, numel)?;
    let d = DropoutDesc {
        p: a.p,
        seed: 1234,
        offset: 0,
    };
    let (bytes, mask_bytes) = (b.bytes, numel as f64);
    let fwd = {
        let Bandwidth {
            dnn, desc, x, y, ..
        } = &mut b;
        let f = || {
            dnn.dropout_forward(
                &d,
                Tensor::new(desc, x.as_slice()),
                TensorMut::new(desc, y.as_slice_mut()),
                &mut mask.as_slice_mut(),
            )
        };
        crate::rand::timed(a.iters.max(1) as u32, || dnn.device().synchronize(), f)?
    };
    b.row("rocm-dnn forward", 2.0 * bytes + mask_bytes, fwd);
    let bwd = {
        let Bandwidth {
            dnn, desc, dy, dx, ..
        } = &mut b;
        let f = || {
            dnn.dropout_backward(
                &d,
                Tensor::new(desc, dy.as_slice()),
                &mask.as_slice(),
                TensorMut::new(desc, dx.as_slice_mut()),
            )
        };
        crate::rand::timed(a.iters.max(1) as u32, || dnn.device().synchronize(), f)?
    };
    b.row("rocm-dnn backward", 2.0 * bytes + mask_bytes, bwd);
    let kept = mask.to_vec()?.iter().filter(|&&m| m != 0).count();
    println!("  kept {:.4} of the elements", kept as f64 / numel as f64);
    if a.vendor {
        let call = crate::vendor_dnn::DropoutCall {
            shape: b.vendor_shape(1),
            p: a.p,
            x: b.x.address(),
            y: b.y.address(),
            dy: b.dy.address(),
            dx: b.dx.address(),
        };
        let (cf, cb) = crate::vendor_dnn::dropout_times(&b.dev, &call, b.iters)?;
        // cuDNN's reserve space is its mask: count it as the same bytes.
        b.row("cuDNN forward", 2.0 * bytes + mask_bytes, cf);
        b.row("cuDNN backward", 2.0 * bytes + mask_bytes, cb);
        println!(
            "  rocm-dnn / cuDNN: forward {:.2}x, backward {:.2}x",
            cf / fwd,
            cb / bwd
        );
    }
    Ok(())
}
