//! Hostile descriptor arguments (issue 29): tensor, convolution, pooling, softmax and
//! attention descriptors with zero, huge (2^32, 2^40, 2^63, 2^64 − 1) and wrapping
//! dimensions, and buffers shorter than their descriptors. Each case must be a clean
//! `Error` whose message names the argument to fix, never a panic (each case runs
//! under `catch_unwind`, so a panic fails this test instead of aborting it) and never
//! a silent success. The huge cases are refused by checks before any allocation, so
//! the table runs in milliseconds; the table of outcomes is printed in the issue-29
//! form (tried / clean error / accepted / panic / wrong).

use rocm_core::{DType, Device, DeviceBuffer, Result};
use rocm_dnn::pooling::{PoolDesc, PoolMode};
use rocm_dnn::softmax::SoftmaxMode;
use rocm_dnn::{AttentionDesc, ConvDesc, ConvMode, Dnn, Layout, Tensor, TensorDesc, TensorMut};

const BIG: [usize; 4] = [1 << 32, 1 << 40, 1 << 63, usize::MAX];

fn desc(dims: &[usize]) -> TensorDesc {
    TensorDesc::new(DType::F32, Layout::Nchw, dims).expect("a valid test descriptor")
}

/// What a case runs.
type Run = Box<dyn Fn(&Dnn) -> Result<()>>;
/// A case: its name, the word its error must contain, and what it runs.
type Case = (String, &'static str, Run);

fn conv_dims(
    dnn: &Dnn,
    conv: &ConvDesc,
    x: &[usize],
    w: &[usize],
    y: &[usize],
    lens: [usize; 3],
) -> Result<()> {
    let dev = dnn.device();
    let (xd, wd, yd) = (
        TensorDesc::new(DType::F32, Layout::Nchw, x)?,
        TensorDesc::new(DType::F32, Layout::Nchw, w)?,
        TensorDesc::new(DType::F32, Layout::Nchw, y)?,
    );
    let xb = DeviceBuffer::<f32>::zeros(dev, lens[0])?;
    let wb = DeviceBuffer::<f32>::zeros(dev, lens[1])?;
    let mut yb = DeviceBuffer::<f32>::zeros(dev, lens[2])?;
    dnn.convolution_forward(
        conv,
        None,
        1.0,
        Tensor::new(&xd, xb.as_slice()),
        Tensor::new(&wd, wb.as_slice()),
        0.0,
        TensorMut::new(&yd, yb.as_slice_mut()),
    )
    .map(|_| ())
}

fn cases() -> Vec<Case> {
    let mut v: Vec<Case> = Vec::new();
    let mut add = |name: String, word: &'static str, f: Run| {
        v.push((name, word, f));
    };
    // Tensor descriptors whose element count or extent wraps.
    for &b in &BIG {
        add(
            format!("tensor dims [{b}, {b}, 1, 1]"),
            "overflow",
            Box::new(move |_| TensorDesc::new(DType::F32, Layout::Nchw, &[b, b, 1, 1]).map(|_| ())),
        );
    }
    for &b in &BIG[2..] {
        add(
            format!("tensor strides [{b}, {b}, 1, 1] with N = C = 3"),
            "overflow",
            Box::new(move |_| {
                TensorDesc::with_strides(DType::F32, &[3, 3, 1, 1], &[b, b, 1, 1]).map(|_| ())
            }),
        );
    }
    add(
        "tensor of rank 3 in NCHW".into(),
        "dims",
        Box::new(|_| TensorDesc::new(DType::F32, Layout::Nchw, &[1, 2, 3]).map(|_| ())),
    );
    add(
        "tensor of dtype i32".into(),
        "dtype",
        Box::new(|_| TensorDesc::new(DType::I32, Layout::Nchw, &[1, 1, 1, 1]).map(|_| ())),
    );
    // Convolution descriptors.
    add(
        "conv stride 0".into(),
        "strides",
        Box::new(|_| ConvDesc::conv2d(0, 0, 1, 1).map(|_| ())),
    );
    add(
        "conv dilation 0".into(),
        "dilations",
        Box::new(|_| ConvDesc::conv2d(0, 1, 0, 1).map(|_| ())),
    );
    add(
        "conv groups 0".into(),
        "groups",
        Box::new(|_| ConvDesc::conv2d(0, 1, 1, 0).map(|_| ())),
    );
    add(
        "conv with one spatial entry".into(),
        "pads",
        Box::new(|_| ConvDesc::new(ConvMode::Convolution, &[0], &[1], &[1], 1).map(|_| ())),
    );
    for &b in &BIG[2..] {
        // 2·pad wraps to a small value: the output must not come out as if unpadded.
        add(
            format!("conv pad {b}"),
            "pads",
            Box::new(move |_| {
                let c = ConvDesc::conv2d(b, 1, 1, 1)?;
                c.output_dims(&desc(&[1, 1, 8, 8]), &desc(&[1, 1, 3, 3]))
                    .map(|_| ())
            }),
        );
        add(
            format!("conv dilation {b} with a 3x3 filter"),
            "dilations",
            Box::new(move |_| {
                let c = ConvDesc::conv2d(0, 1, b, 1)?;
                c.output_dims(&desc(&[1, 1, 8, 8]), &desc(&[1, 1, 3, 3]))
                    .map(|_| ())
            }),
        );
        add(
            format!("transposed conv stride {b}"),
            "strides",
            Box::new(move |_| {
                let c = ConvDesc::new(ConvMode::Transposed, &[0, 0], &[b, b], &[1, 1], 1)?;
                c.output_dims(&desc(&[1, 1, 8, 8]), &desc(&[1, 1, 3, 3]))
                    .map(|_| ())
            }),
        );
        add(
            format!("transposed conv groups {b}"),
            "groups",
            Box::new(move |_| {
                let c = ConvDesc::new(ConvMode::Transposed, &[0, 0], &[1, 1], &[1, 1], b)?;
                c.output_dims(&desc(&[1, 0, 8, 8]), &desc(&[0, 2, 3, 3]))
                    .map(|_| ())
            }),
        );
    }
    for &b in &BIG[..2] {
        add(
            format!("conv groups {b} with C = 4"),
            "x",
            Box::new(move |_| {
                let c = ConvDesc::conv2d(0, 1, 1, b)?;
                c.output_dims(&desc(&[1, 4, 8, 8]), &desc(&[4, 4, 3, 3]))
                    .map(|_| ())
            }),
        );
        // Huge tensors over one-element buffers: refused before anything is allocated.
        add(
            format!("conv N = {b} over a 1-element x"),
            "x",
            Box::new(move |d| {
                let c = ConvDesc::conv2d(0, 1, 1, 1)?;
                conv_dims(
                    d,
                    &c,
                    &[b, 1, 4, 4],
                    &[1, 1, 3, 3],
                    &[b, 1, 2, 2],
                    [1, 9, 1],
                )
            }),
        );
        add(
            format!("conv K = {b} over a 1-element w"),
            "w",
            Box::new(move |d| {
                let c = ConvDesc::conv2d(0, 1, 1, 1)?;
                conv_dims(
                    d,
                    &c,
                    &[1, 1, 4, 4],
                    &[b, 1, 3, 3],
                    &[1, b, 2, 2],
                    [16, 1, 1],
                )
            }),
        );
    }
    add(
        "conv filter 0x0".into(),
        "w",
        Box::new(|_| {
            let c = ConvDesc::conv2d(0, 1, 1, 1)?;
            c.output_dims(&desc(&[1, 1, 8, 8]), &desc(&[1, 1, 0, 0]))
                .map(|_| ())
        }),
    );
    add(
        "conv filter larger than the input".into(),
        "x",
        Box::new(|_| {
            let c = ConvDesc::conv2d(0, 1, 1, 1)?;
            c.output_dims(&desc(&[1, 1, 2, 2]), &desc(&[1, 1, 3, 3]))
                .map(|_| ())
        }),
    );
    add(
        "conv y of the wrong shape".into(),
        "y",
        Box::new(|d| {
            let c = ConvDesc::conv2d(0, 1, 1, 1)?;
            conv_dims(
                d,
                &c,
                &[1, 1, 4, 4],
                &[1, 1, 3, 3],
                &[1, 1, 3, 3],
                [16, 9, 9],
            )
        }),
    );
    add(
        "conv short y buffer".into(),
        "y",
        Box::new(|d| {
            let c = ConvDesc::conv2d(0, 1, 1, 1)?;
            conv_dims(
                d,
                &c,
                &[1, 1, 4, 4],
                &[1, 1, 3, 3],
                &[1, 1, 2, 2],
                [16, 9, 3],
            )
        }),
    );
    // Pooling.
    add(
        "pool window 0".into(),
        "window",
        Box::new(|_| PoolDesc::new(PoolMode::Max, &[0, 2], &[0, 0], &[1, 1]).map(|_| ())),
    );
    add(
        "pool pad not below the window".into(),
        "pads",
        Box::new(|_| PoolDesc::new(PoolMode::Max, &[2, 2], &[2, 0], &[1, 1]).map(|_| ())),
    );
    for &b in &BIG[2..] {
        add(
            format!("pool window {b} with pad {}", b - 1),
            "pads",
            Box::new(move |_| {
                let p = PoolDesc::new(PoolMode::Max, &[b, 1], &[b - 1, 0], &[1, 1])?;
                p.output_dims(&desc(&[1, 1, 8, 8])).map(|_| ())
            }),
        );
    }
    add(
        "pool over a short x buffer".into(),
        "x",
        Box::new(|d| {
            let p = PoolDesc::new(PoolMode::Max, &[2, 2], &[0, 0], &[2, 2])?;
            let (xd, yd) = (desc(&[1, 1, 4, 4]), desc(&[1, 1, 2, 2]));
            let xb = DeviceBuffer::<f32>::zeros(d.device(), 15)?;
            let mut yb = DeviceBuffer::<f32>::zeros(d.device(), 4)?;
            d.pooling_forward(
                &p,
                Tensor::new(&xd, xb.as_slice()),
                TensorMut::new(&yd, yb.as_slice_mut()),
                None,
            )
        }),
    );
    // Softmax.
    for axis in [4, usize::MAX] {
        add(
            format!("softmax axis {axis}"),
            "axis",
            Box::new(move |d| {
                let xd = desc(&[1, 2, 2, 2]);
                let xb = DeviceBuffer::<f32>::zeros(d.device(), 8)?;
                let mut yb = DeviceBuffer::<f32>::zeros(d.device(), 8)?;
                d.softmax_forward(
                    SoftmaxMode::Softmax,
                    axis,
                    Tensor::new(&xd, xb.as_slice()),
                    TensorMut::new(&xd, yb.as_slice_mut()),
                )
            }),
        );
    }
    for &b in &BIG[..2] {
        add(
            format!("softmax of {b} channels over an 8-element x"),
            "x",
            Box::new(move |d| {
                let xd = desc(&[1, b, 2, 2]);
                let xb = DeviceBuffer::<f32>::zeros(d.device(), 8)?;
                let mut yb = DeviceBuffer::<f32>::zeros(d.device(), 8)?;
                d.softmax_forward(
                    SoftmaxMode::LogSoftmax,
                    1,
                    Tensor::new(&xd, xb.as_slice()),
                    TensorMut::new(&xd, yb.as_slice_mut()),
                )
            }),
        );
    }
    // Attention ([B, H, S, D] descriptors, NCHW-packed).
    let attention = |q: [usize; 4], k: [usize; 4], keys: Option<Vec<usize>>, lse: usize| {
        move |d: &Dnn| -> Result<()> {
            let (qd, kd) = (desc(&q), desc(&k));
            let dev = d.device();
            let small = |n: usize| DeviceBuffer::<f32>::zeros(dev, n.min(64));
            let (qb, kb, vb) = (small(qd.numel())?, small(kd.numel())?, small(kd.numel())?);
            let mut ob = small(qd.numel())?;
            let mut lb = DeviceBuffer::<f32>::zeros(dev, lse)?;
            d.attention_forward(
                &AttentionDesc {
                    scale: 0.5,
                    causal: false,
                },
                Tensor::new(&qd, qb.as_slice()),
                Tensor::new(&kd, kb.as_slice()),
                Tensor::new(&kd, vb.as_slice()),
                keys.as_deref(),
                TensorMut::new(&qd, ob.as_slice_mut()),
                &mut lb.as_slice_mut(),
            )
        }
    };
    add(
        "attention kv heads 0".into(),
        "k",
        Box::new(attention([1, 2, 4, 2], [1, 0, 4, 2], None, 8)),
    );
    add(
        "attention head dims differ".into(),
        "k",
        Box::new(attention([1, 2, 4, 2], [1, 2, 4, 3], None, 8)),
    );
    add(
        "attention key lengths of the wrong count".into(),
        "key_lengths",
        Box::new(attention([1, 2, 4, 2], [1, 2, 4, 2], Some(vec![1, 1]), 8)),
    );
    add(
        "attention key length beyond S".into(),
        "key_lengths",
        Box::new(attention([1, 2, 4, 2], [1, 2, 4, 2], Some(vec![5]), 8)),
    );
    add(
        "attention short lse".into(),
        "lse",
        Box::new(attention([1, 2, 4, 2], [1, 2, 4, 2], None, 7)),
    );
    for &b in &BIG[..2] {
        add(
            format!("attention S = {b} over 64-element buffers"),
            "q",
            Box::new(attention([1, 1, b, 2], [1, 1, b, 2], None, 0)),
        );
    }
    v
}

#[test]
fn hostile_descriptors_are_clean_errors() {
    let dnn = Dnn::new(&Device::cpu()).expect("CPU handle");
    let table = cases();
    let (mut clean, mut panics, mut wrong) = (0, 0, Vec::new());
    for (name, word, f) in &table {
        let got = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| f(&dnn)));
        let outcome = match got {
            Err(_) => {
                panics += 1;
                wrong.push(format!("{name}: panicked"));
                "panic".to_string()
            }
            Ok(Ok(())) => {
                wrong.push(format!("{name}: accepted"));
                "WRONG: accepted".to_string()
            }
            Ok(Err(e)) => {
                let msg = e.to_string();
                if msg.contains(word) {
                    clean += 1;
                    format!("clean error: {msg}")
                } else {
                    wrong.push(format!("{name}: error does not name `{word}`: {msg}"));
                    format!("WRONG: does not name `{word}`: {msg}")
                }
            }
        };
        println!("{name:<52} {outcome}");
    }
    println!(
        "dnn descriptor arguments: tried {} / clean error {clean} / accepted 0 / panic {panics} / abort 0 / hang 0 / wrong {}",
        table.len(),
        wrong.len() - panics
    );
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
