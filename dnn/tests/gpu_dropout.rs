//! Dropout on GPUs (every emulated AMD target, and `cuda:0` when one is present),
//! forward and backward, f32/f16/bf16, any strides: masks, outputs and gradients are
//! the CPU path's bits exactly (the same Philox stream and the same f32 operations),
//! for offsets inside a block, across 2^32 and wrapping at 2^64.

mod common;

use common::{random, zeros, Buf, Mem};
use proptest::prelude::*;
use rocm_core::{DType, Device, DeviceBuffer, Error};
use rocm_dnn::{Dnn, DnnFloat, DropoutDesc, Layout, Tensor, TensorDesc, TensorMut};

const EMU: [&str; 4] = ["emu:gfx908", "emu:gfx90a", "emu:gfx942", "emu:gfx1100"];

fn on<T: DnnFloat>(dev: &Device, b: &Buf<T>) -> DeviceBuffer<T> {
    DeviceBuffer::from_slice(dev, b.buf.as_host().unwrap()).unwrap()
}

/// One problem: shape, the input and output layouts, the dropout settings.
#[derive(Debug, Clone)]
struct Case {
    dims: Vec<usize>,
    mem_in: Mem,
    mem_out: Mem,
    d: DropoutDesc,
}

/// Forward and backward of `c` on `dev` against the CPU path, bit for bit.
fn check<T: DnnFloat>(dev: &Device, c: &Case) {
    let cpu = common::dnn();
    let gpu = Dnn::new(dev).unwrap();
    let tag = format!("{dev} {} {c:?}", T::DTYPE);
    let n: usize = c.dims.iter().product();
    let x = random::<T>(&c.dims, c.mem_in, c.d.seed ^ 1);
    let dy = random::<T>(&c.dims, c.mem_in, c.d.seed ^ 2);

    let mut y = zeros::<T>(&c.dims, c.mem_out);
    let mut mask = DeviceBuffer::<u8>::zeros(&Device::cpu(), n).unwrap();
    cpu.dropout_forward(&c.d, x.t(), y.tm(), &mut mask.as_slice_mut())
        .unwrap();
    let (xg, mut yg) = (on(dev, &x), on(dev, &zeros::<T>(&c.dims, c.mem_out)));
    let mut mg = DeviceBuffer::<u8>::zeros(dev, n).unwrap();
    gpu.dropout_forward(
        &c.d,
        Tensor::new(&x.desc, xg.as_slice()),
        TensorMut::new(&y.desc, yg.as_slice_mut()),
        &mut mg.as_slice_mut(),
    )
    .unwrap_or_else(|e| panic!("{tag}: {e}"));
    assert_eq!(mg.to_vec().unwrap(), mask.to_vec().unwrap(), "mask {tag}");
    let bits = |v: Vec<T>| v.iter().map(|e| e.to_f32().to_bits()).collect::<Vec<_>>();
    assert_eq!(
        bits(yg.to_vec().unwrap()),
        bits(y.buf.to_vec().unwrap()),
        "y {tag}"
    );

    let mut dx = zeros::<T>(&c.dims, c.mem_out);
    cpu.dropout_backward(&c.d, dy.t(), &mask.as_slice(), dx.tm())
        .unwrap();
    let (dyg, mut dxg) = (on(dev, &dy), on(dev, &zeros::<T>(&c.dims, c.mem_out)));
    gpu.dropout_backward(
        &c.d,
        Tensor::new(&dy.desc, dyg.as_slice()),
        &mg.as_slice(),
        TensorMut::new(&dx.desc, dxg.as_slice_mut()),
    )
    .unwrap_or_else(|e| panic!("{tag}: {e}"));
    assert_eq!(
        bits(dxg.to_vec().unwrap()),
        bits(dx.buf.to_vec().unwrap()),
        "dx {tag}"
    );
}

fn check_all(dev: &Device, c: &Case) {
    check::<f32>(dev, c);
    check::<half::f16>(dev, c);
    check::<half::bf16>(dev, c);
}

fn mem() -> impl Strategy<Value = Mem> {
    prop_oneof![
        Just(Mem::Packed(false)),
        Just(Mem::Packed(true)),
        Just(Mem::Gapped)
    ]
}

/// Offsets inside the first block, just below 2^32 (the counter's high word changes
/// within the call), anywhere, and just below 2^64 (the counter wraps).
fn offset() -> impl Strategy<Value = u64> {
    prop_oneof![
        0u64..8,
        (1u64 << 32) - 40..(1u64 << 32),
        any::<u64>(),
        u64::MAX - 40..=u64::MAX,
    ]
}

fn case() -> impl Strategy<Value = Case> {
    (
        prop::collection::vec(1usize..=6, 4..=5),
        mem(),
        mem(),
        prop_oneof![Just(0.0f32), Just(0.3), Just(0.9)],
        any::<u64>(),
        offset(),
    )
        .prop_map(|(dims, mem_in, mem_out, p, seed, offset)| Case {
            dims,
            mem_in,
            mem_out,
            d: DropoutDesc { p, seed, offset },
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 10, ..ProptestConfig::default() })]
    #[test]
    fn emulated_targets_equal_the_cpu(c in case(), t in 0usize..EMU.len()) {
        check_all(&Device::open(EMU[t]).unwrap(), &c);
    }
}

/// Single elements, one block, one past it, an odd prime count, on every target.
#[test]
fn emulated_targets_edge_shapes() {
    for name in EMU {
        let dev = Device::open(name).unwrap();
        for (dims, offset) in [
            (vec![1, 1, 1, 1], 3),
            (vec![1, 1, 1, 4], 0),
            (vec![1, 1, 1, 5], 2),
            (vec![1, 1, 1, 257], 1),
        ] {
            let c = Case {
                dims,
                mem_in: Mem::Packed(false),
                mem_out: Mem::Gapped,
                d: DropoutDesc {
                    p: 0.5,
                    seed: 99,
                    offset,
                },
            };
            check_all(&dev, &c);
        }
    }
}

#[test]
fn cuda_equals_the_cpu() {
    let Ok(dev) = Device::open("cuda:0") else {
        eprintln!("skipped: no CUDA device (cuda:0 does not open)");
        return;
    };
    let mut runner = proptest::test_runner::TestRunner::new(ProptestConfig {
        cases: 64,
        ..ProptestConfig::default()
    });
    runner
        .run(&case(), |c| {
            check_all(&dev, &c);
            Ok(())
        })
        .unwrap();
    let c = Case {
        dims: vec![3, 64, 33, 65],
        mem_in: Mem::Packed(true),
        mem_out: Mem::Packed(false),
        d: DropoutDesc {
            p: 0.1,
            seed: 7,
            offset: (1 << 32) - 1000,
        },
    };
    check_all(&dev, &c);
}

/// Bad input is an error naming what is wrong, before any launch.
#[test]
fn bad_input_is_an_error_before_any_launch() {
    let dev = Device::open("emu:gfx942").unwrap();
    let dnn = Dnn::new(&dev).unwrap();
    let d = TensorDesc::new(DType::F32, Layout::Nchw, &[1, 2, 3, 4]).unwrap();
    let x = DeviceBuffer::<f32>::zeros(&dev, 24).unwrap();
    let mut y = DeviceBuffer::<f32>::zeros(&dev, 24).unwrap();
    let expect = |r: rocm_core::Result<()>, what: &str| match r {
        Err(Error::InvalidArgument { what: w, .. }) => assert_eq!(w, what),
        other => panic!("{what}: expected InvalidArgument, got {other:?}"),
    };
    let ok = DropoutDesc {
        p: 0.5,
        seed: 1,
        offset: 0,
    };
    let mut short = DeviceBuffer::<u8>::zeros(&dev, 23).unwrap();
    expect(
        dnn.dropout_forward(
            &ok,
            Tensor::new(&d, x.as_slice()),
            TensorMut::new(&d, y.as_slice_mut()),
            &mut short.as_slice_mut(),
        ),
        "mask",
    );
    let mut host_mask = DeviceBuffer::<u8>::zeros(&Device::cpu(), 24).unwrap();
    expect(
        dnn.dropout_forward(
            &ok,
            Tensor::new(&d, x.as_slice()),
            TensorMut::new(&d, y.as_slice_mut()),
            &mut host_mask.as_slice_mut(),
        ),
        "mask",
    );
    let mut mask = DeviceBuffer::<u8>::zeros(&dev, 24).unwrap();
    expect(
        dnn.dropout_forward(
            &DropoutDesc { p: 1.0, ..ok },
            Tensor::new(&d, x.as_slice()),
            TensorMut::new(&d, y.as_slice_mut()),
            &mut mask.as_slice_mut(),
        ),
        "p",
    );
    let other = TensorDesc::new(DType::F32, Layout::Nchw, &[1, 2, 3, 5]).unwrap();
    expect(
        dnn.dropout_backward(
            &ok,
            Tensor::new(&d, x.as_slice()),
            &mask.as_slice(),
            TensorMut::new(&other, y.as_slice_mut()),
        ),
        "dx",
    );
    let overlapping = TensorDesc::with_strides(DType::F32, &[1, 2, 3, 4], &[0, 0, 1, 1]).unwrap();
    expect(
        dnn.dropout_backward(
            &ok,
            Tensor::new(&d, x.as_slice()),
            &mask.as_slice(),
            TensorMut::new(&overlapping, y.as_slice_mut()),
        ),
        "dx",
    );
}

/// The stream is rocm-rand's Philox: element i uses word i mod 4 of block i / 4.
#[test]
fn the_stream_is_rocm_rands_philox() {
    for i in [0u64, 1, 2, 3, 4, 7, (1 << 34) + 5] {
        let seed = 0x1234_5678_9abc_def0u64;
        let b = i / 4;
        let w = rocm_rand::bits::philox4x32_10(
            &mut rocm_rand::ops::Host,
            [b as u32, (b >> 32) as u32, 0, 0],
            [seed as u32, (seed >> 32) as u32],
        )[(i % 4) as usize];
        let want = (w >> 8) as f32 / 16_777_216.0;
        assert_eq!(rocm_dnn::dropout::uniform(seed, i), want, "{i}");
    }
}

/// Every kernel variant passes ptxas on sm_80 and sm_90 without spills.
#[test]
fn every_variant_passes_ptxas() {
    use rocm_dnn::gpu::dropout::{self, Direction, Params};
    use rocm_kernels::ptxas::{Ptxas, HOW_TO_GET};
    let Some(ptxas) = Ptxas::find() else {
        eprintln!("ptxas checks skipped: no ptxas ({HOW_TO_GET})");
        return;
    };
    for direction in [Direction::Forward, Direction::Backward] {
        for packed in [false, true] {
            for dtype in [DType::F32, DType::F16, DType::Bf16] {
                let p = Params {
                    direction,
                    dtype,
                    packed,
                };
                for arch in ["sm_80", "sm_90"] {
                    let target = arch.parse().unwrap();
                    let def = dropout::kernel(&p, &target).unwrap();
                    let text = rocm_kernels::lang::ptx::lower(&def).unwrap();
                    let report = ptxas
                        .compile(&text, &target)
                        .unwrap_or_else(|e| panic!("ptxas {arch} {p:?}: {e}"));
                    let k = report.kernel(&dropout::kernel_name(&p)).unwrap();
                    assert_eq!(k.spill_stores, 0, "{arch} {p:?} spills");
                }
            }
        }
    }
}
