//! Softmax and log-softmax on GPUs (every emulated AMD target, and `cuda:0` when one is
//! present), forward and backward, f32/f16/bf16, both kernel shapes, any axis and
//! strides, against f64 references.
//!
//! Tolerances, first order in the unit roundoff u = 2⁻²⁴ of the f32 arithmetic and u_T
//! of the storage type, for a line of n elements whose values span R = max x − min x:
//!
//! - an exponential e^(x−m) comes from `exp2((x−m)·log₂e)`: the difference, the
//!   product and the rounded constant put ≤ 3·R·u·log₂e on the argument (relative
//!   error 3·R·u·… ·ln 2 = 3Ru in the result), exp2 adds 2 ulps ≤ 4u: ε_e = (3R + 4)u;
//! - the sum S of the exponentials: each term is rescaled (one exponential and one
//!   product, ε_e + u) at most n + 1 times and the n terms are added (γ(n)):
//!   ε_S = (n + 2)(ε_e + u) + γ(n);
//! - softmax y = e·rcp(S): ε_e + ε_S + 3u relative, then u_T rounding;
//! - log-softmax y = (x − M) − log₂(S)·ln 2: R·u + ε_S + 6u·|ln S| + 2⁻²² (log2's
//!   absolute error) + (u + u_T)|y| absolute;
//! - softmax backward dx = y·(dy − s), s = Σ dy·y: |y|·(γ(n+1)·Σ|dy·y| + 2u(|dy| + |s|))
//!   + (u + u_T)|dx|;
//! - log-softmax backward dx = dy − e^y·s, s = Σ dy: e^y·(γ(n+1)·Σ|dy| + (2|y| + 6)u·|s|)
//!   + (u + u_T)|dx|.
//!
//! Each test allows twice the bound (the neglected higher-order terms) plus the storage
//! type's smallest subnormal (outputs that round into its subnormal range).

mod common;

use common::{desc, Mem};

use proptest::prelude::*;
use rand::{Rng, SeedableRng};
use rocm_core::{DType, Device, DeviceBuffer, Error};
use rocm_dnn::gpu::softmax::{self, Direction, Params, Shape};
use rocm_dnn::softmax::SoftmaxMode;
use rocm_dnn::{reference, Dnn, DnnFloat, Layout, Tensor, TensorDesc, TensorMut};
use rocm_kernels::lang::ptx;
use rocm_kernels::ptxas::{Ptxas, HOW_TO_GET};

const EMU: [&str; 4] = ["emu:gfx908", "emu:gfx90a", "emu:gfx942", "emu:gfx1100"];
const U: f64 = 1.0 / (1u64 << 24) as f64;
const MODES: [SoftmaxMode; 2] = [SoftmaxMode::Softmax, SoftmaxMode::LogSoftmax];
/// The plan's choice, a row kernel of single-element accesses, a column kernel.
const SHAPES: [Option<Shape>; 3] = [
    None,
    Some(Shape::Row { width: 1 }),
    Some(Shape::Column { unroll: 4 }),
];

fn gamma(n: usize) -> f64 {
    let nu = n as f64 * U;
    nu / (1.0 - nu)
}

/// Element offsets of `d` in logical order.
fn offsets(d: &TensorDesc) -> Vec<usize> {
    let (dims, s) = (d.dims(), d.strides());
    let mut out = vec![0usize];
    for (&n, &st) in dims.iter().zip(s) {
        out = out
            .iter()
            .flat_map(|&o| (0..n).map(move |i| o + i * st))
            .collect();
    }
    out
}

/// A device tensor holding logical values `v` (rounded to T); gaps hold junk.
struct DevTensor<T: DnnFloat> {
    desc: TensorDesc,
    buf: DeviceBuffer<T>,
}

impl<T: DnnFloat> DevTensor<T> {
    fn new(dev: &Device, dims: &[usize], mem: Mem, v: &[f64]) -> Self {
        let desc = desc(T::DTYPE, dims, mem);
        let mut host = vec![T::from_f32(7.5); desc.required_len().unwrap()];
        for (&o, &x) in offsets(&desc).iter().zip(v) {
            host[o] = T::from_f32(x as f32);
        }
        DevTensor {
            buf: DeviceBuffer::from_slice(dev, &host).unwrap(),
            desc,
        }
    }
    fn t(&self) -> Tensor<'_, T> {
        Tensor::new(&self.desc, self.buf.as_slice())
    }
    fn tm(&mut self) -> TensorMut<'_, T> {
        TensorMut::new(&self.desc, self.buf.as_slice_mut())
    }
    fn logical(&self) -> Vec<f64> {
        let h = self.buf.to_vec().unwrap();
        offsets(&self.desc)
            .iter()
            .map(|&o| h[o].to_f32() as f64)
            .collect()
    }
}

/// Values rounded to T, as f64 (what the kernels see).
fn rounded<T: DnnFloat>(v: &[f64]) -> Vec<f64> {
    v.iter()
        .map(|&x| T::from_f32(x as f32).to_f32() as f64)
        .collect()
}

fn check(what: &str, got: &[f64], want: &[f64], tol: &[f64]) {
    for i in 0..want.len() {
        let e = (got[i] - want[i]).abs();
        assert!(
            e <= tol[i],
            "{what}: element {i}: got {} want {} (error {e:e} > tolerance {:e})",
            got[i],
            want[i],
            tol[i]
        );
    }
}

/// One problem: a shape, an axis, the layouts of the input and the output, a data scale.
#[derive(Debug, Clone)]
struct Case {
    dims: Vec<usize>,
    axis: usize,
    mem_in: Mem,
    mem_out: Mem,
    scale: f64,
    seed: u64,
}

fn random(n: usize, scale: f64, seed: u64) -> Vec<f64> {
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    (0..n)
        .map(|_| rng.random_range(-1.0f64..1.0) * scale)
        .collect()
}

/// Forward and backward of both modes in `shape` on `dev`, for T.
fn run_case<T: DnnFloat>(dev: &Device, c: &Case, shape: Option<Shape>) {
    let n = c.dims.iter().product::<usize>();
    let len = c.dims[c.axis];
    let ut = T::UNIT_ROUNDOFF;
    let floor = T::MIN_SUBNORMAL;
    let stream = dev.default_stream();
    let x = rounded::<T>(&random(n, c.scale, c.seed));
    let dyv = rounded::<T>(&random(n, 1.0, c.seed ^ 0x5eed));
    for mode in MODES {
        let log = mode == SoftmaxMode::LogSoftmax;
        let tag = format!("{dev} {} {mode:?} {shape:?} {c:?}", T::DTYPE);
        // Forward.
        let want = reference::softmax(&c.dims, c.axis, &x, log);
        let mut tol = vec![0.0; n];
        for line in reference::softmax_lines(&c.dims, c.axis) {
            let (lo, hi) = line.iter().fold((f64::MAX, f64::MIN), |(a, b), &i| {
                (a.min(x[i]), b.max(x[i]))
            });
            let r = hi - lo;
            let s: f64 = line.iter().map(|&i| (x[i] - hi).exp()).sum();
            let eps_e = (3.0 * r + 4.0) * U;
            let eps_s = (len as f64 + 2.0) * (eps_e + U) + gamma(len);
            for &i in &line {
                let w = want[i].abs();
                tol[i] = if log {
                    r * U + eps_s + 6.0 * U * s.ln().abs() + 2f64.powi(-22) + (U + ut) * w
                } else {
                    (eps_e + eps_s + 3.0 * U) * w + ut * w
                };
                tol[i] = 2.0 * tol[i] + floor;
            }
        }
        let xt = DevTensor::<T>::new(dev, &c.dims, c.mem_in, &x);
        let mut yt = DevTensor::<T>::new(dev, &c.dims, c.mem_out, &vec![0.0; n]);
        softmax::forward(stream, mode, c.axis, xt.t(), yt.tm(), shape)
            .unwrap_or_else(|e| panic!("{tag}: {e}"));
        check(&format!("fwd {tag}"), &yt.logical(), &want, &tol);

        // Backward, from y = the reference output rounded to T.
        let y = rounded::<T>(&want);
        let mut wdx = vec![0.0; n];
        for line in reference::softmax_lines(&c.dims, c.axis) {
            let s: f64 = line
                .iter()
                .map(|&i| if log { dyv[i] } else { dyv[i] * y[i] })
                .sum();
            let sa: f64 = line
                .iter()
                .map(|&i| {
                    if log {
                        dyv[i].abs()
                    } else {
                        (dyv[i] * y[i]).abs()
                    }
                })
                .sum();
            for &i in &line {
                wdx[i] = if log {
                    dyv[i] - y[i].exp() * s
                } else {
                    y[i] * (dyv[i] - s)
                };
                let bound = if log {
                    y[i].exp() * (gamma(len + 1) * sa + (2.0 * y[i].abs() + 6.0) * U * s.abs())
                } else {
                    y[i].abs() * (gamma(len + 1) * sa + 2.0 * U * (dyv[i].abs() + s.abs()))
                };
                tol[i] = 2.0 * (bound + (U + ut) * wdx[i].abs()) + floor;
            }
        }
        let yt = DevTensor::<T>::new(dev, &c.dims, c.mem_in, &y);
        let dyt = DevTensor::<T>::new(dev, &c.dims, c.mem_out, &dyv);
        let mut dxt = DevTensor::<T>::new(dev, &c.dims, c.mem_in, &vec![0.0; n]);
        softmax::backward(stream, mode, c.axis, yt.t(), dyt.t(), dxt.tm(), shape)
            .unwrap_or_else(|e| panic!("{tag}: {e}"));
        check(&format!("bwd {tag}"), &dxt.logical(), &wdx, &tol);
    }
}

fn run_all(dev: &Device, c: &Case) {
    for shape in SHAPES {
        run_case::<f32>(dev, c, shape);
        run_case::<half::f16>(dev, c, shape);
        run_case::<half::bf16>(dev, c, shape);
    }
}

fn mem() -> impl Strategy<Value = Mem> {
    prop_oneof![
        Just(Mem::Packed(false)),
        Just(Mem::Packed(true)),
        Just(Mem::Gapped)
    ]
}

/// Shapes of rank 4 or 5 whose axis is short (≤ 5), about a wave (31..=40) or longer
/// than a workgroup (250..=260, not a multiple of it); the other dimensions 1..=3.
fn case() -> impl Strategy<Value = Case> {
    (
        prop::bool::ANY,
        0usize..5,
        prop_oneof![1usize..=5, 31usize..=40, 250usize..=260],
        prop::collection::vec(1usize..=3, 4),
        mem(),
        mem(),
        prop_oneof![Just(1.0), Just(8.0)],
        any::<u64>(),
    )
        .prop_map(|(five, axis, len, other, mem_in, mem_out, scale, seed)| {
            let rank = if five { 5 } else { 4 };
            let axis = axis % rank;
            let mut dims = other[..rank - 1].to_vec();
            dims.insert(axis, len);
            Case {
                dims,
                axis,
                mem_in,
                mem_out,
                scale,
                seed,
            }
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 8, ..ProptestConfig::default() })]
    #[test]
    fn emulated_targets_match_reference(c in case(), t in 0usize..EMU.len()) {
        run_all(&Device::open(EMU[t]).unwrap(), &c);
    }
}

/// The edge shapes on every emulated target: single elements, a line of one, lines
/// that fill a workgroup exactly and one past it, an empty tensor.
#[test]
fn emulated_targets_edge_shapes() {
    let edges = [
        (vec![1, 1, 1, 1], 3),
        (vec![3, 1, 2, 2], 1),
        (vec![1, 2, 1, 256], 3),
        (vec![2, 257, 1, 1], 1),
        (vec![2, 3, 5, 7], 0),
    ];
    for name in EMU {
        let dev = Device::open(name).unwrap();
        for (dims, axis) in &edges {
            let c = Case {
                dims: dims.clone(),
                axis: *axis,
                mem_in: Mem::Packed(true),
                mem_out: Mem::Gapped,
                scale: 4.0,
                seed: 11,
            };
            run_all(&dev, &c);
        }
        let d = TensorDesc::new(DType::F32, Layout::Nchw, &[2, 0, 3, 3]).unwrap();
        let x = DeviceBuffer::<f32>::zeros(&dev, 1).unwrap();
        let mut y = DeviceBuffer::<f32>::zeros(&dev, 1).unwrap();
        let dnn = Dnn::new(&dev).unwrap();
        dnn.softmax_forward(
            SoftmaxMode::Softmax,
            1,
            Tensor::new(&d, x.as_slice()),
            TensorMut::new(&d, y.as_slice_mut()),
        )
        .unwrap();
    }
}

/// Lines contiguous along the axis get wide row accesses (4 f32, 8 f16/bf16 where the
/// length allows), and they match the reference; a width the tensors do not allow is
/// an error naming the shape.
#[test]
fn wide_row_accesses_on_every_emulated_target() {
    for name in EMU {
        let dev = Device::open(name).unwrap();
        for (dims, widths) in [(vec![2, 3, 1, 40], [4, 8]), (vec![1, 1, 2, 260], [4, 4])] {
            let c = Case {
                dims: dims.clone(),
                axis: 3,
                mem_in: Mem::Packed(false),
                mem_out: Mem::Packed(false),
                scale: 4.0,
                seed: 2,
            };
            for (dtype, want) in [DType::F32, DType::F16].into_iter().zip(widths) {
                let d = desc(dtype, &dims, Mem::Packed(false));
                let lines = rocm_dnn::gpu::Lines::new(3, &[("x", &d), ("y", &d)]).unwrap();
                let shape = softmax::choose_shape(&lines, dtype, &[0, 256]);
                assert_eq!(shape, Shape::Row { width: want }, "{dims:?} {dtype}");
            }
            run_case::<f32>(&dev, &c, None);
            run_case::<half::f16>(&dev, &c, None);
            run_case::<half::bf16>(&dev, &c, None);
        }
        let dims = [1, 2, 3, 40];
        let x = DevTensor::<f32>::new(&dev, &dims, Mem::Gapped, &random(240, 1.0, 1));
        let mut y = DevTensor::<f32>::new(&dev, &dims, Mem::Gapped, &[0.0; 240]);
        let r = softmax::forward(
            dev.default_stream(),
            SoftmaxMode::Softmax,
            3,
            x.t(),
            y.tm(),
            Some(Shape::Row { width: 4 }),
        );
        match r {
            Err(Error::InvalidArgument { what, .. }) => assert_eq!(what, "shape"),
            other => panic!("{name}: expected InvalidArgument, got {other:?}"),
        }
    }
}

/// The `Dnn` handle routes to the GPU kernels (shape chosen by the plan) and agrees
/// with the CPU path.
#[test]
fn handle_on_an_emulated_target_matches_the_cpu_path() {
    let dev = Device::open("emu:gfx942").unwrap();
    let (gpu, cpu) = (Dnn::new(&dev).unwrap(), common::dnn());
    let dims = [2, 40, 3, 5];
    let x = random(dims.iter().product(), 3.0, 5);
    for (axis, mode) in [(1, SoftmaxMode::Softmax), (3, SoftmaxMode::LogSoftmax)] {
        let xg = DevTensor::<f32>::new(&dev, &dims, Mem::Packed(false), &x);
        let mut yg = DevTensor::<f32>::new(&dev, &dims, Mem::Packed(true), &vec![0.0; 600]);
        gpu.softmax_forward(mode, axis, xg.t(), yg.tm()).unwrap();
        let xc = DevTensor::<f32>::new(&Device::cpu(), &dims, Mem::Packed(false), &x);
        let mut yc = DevTensor::<f32>::new(&Device::cpu(), &dims, Mem::Packed(true), &[0.0; 600]);
        cpu.softmax_forward(mode, axis, xc.t(), yc.tm()).unwrap();
        let (g, c) = (yg.logical(), yc.logical());
        let tol: Vec<f64> = c.iter().map(|v| 1e-5 * (1.0 + v.abs())).collect();
        check(&format!("handle {mode:?} axis {axis}"), &g, &c, &tol);
    }
}

#[test]
fn cuda_matches_reference() {
    let Ok(dev) = Device::open("cuda:0") else {
        eprintln!("skipped: no CUDA device (cuda:0 does not open)");
        return;
    };
    let mut runner = proptest::test_runner::TestRunner::new(ProptestConfig {
        cases: 48,
        ..ProptestConfig::default()
    });
    runner
        .run(&case(), |c| {
            run_all(&dev, &c);
            Ok(())
        })
        .unwrap();
    // Long lines in both shapes.
    for (dims, axis) in [(vec![3, 4099, 1, 1], 1), (vec![2, 3, 1, 5000], 3)] {
        let c = Case {
            dims,
            axis,
            mem_in: Mem::Packed(false),
            mem_out: Mem::Packed(true),
            scale: 8.0,
            seed: 3,
        };
        run_all(&dev, &c);
    }
}

/// Bad input is an error naming what is wrong, before any launch.
#[test]
fn bad_input_is_an_error_before_any_launch() {
    let dev = Device::open("emu:gfx90a").unwrap();
    let dnn = Dnn::new(&dev).unwrap();
    let d = TensorDesc::new(DType::F32, Layout::Nchw, &[1, 2, 3, 4]).unwrap();
    let other = TensorDesc::new(DType::F32, Layout::Nchw, &[1, 2, 3, 5]).unwrap();
    let buf = |n: usize| DeviceBuffer::<f32>::zeros(&dev, n).unwrap();
    let (x, mut y) = (buf(24), buf(24));
    let short = buf(23);
    let expect = |r: rocm_core::Result<()>, what: &str| match r {
        Err(Error::InvalidArgument { what: name, .. }) => assert_eq!(name, what),
        other => panic!("{what}: expected InvalidArgument, got {other:?}"),
    };
    let mode = SoftmaxMode::Softmax;
    expect(
        dnn.softmax_forward(
            mode,
            4,
            Tensor::new(&d, x.as_slice()),
            TensorMut::new(&d, y.as_slice_mut()),
        ),
        "axis",
    );
    expect(
        dnn.softmax_forward(
            mode,
            1,
            Tensor::new(&d, x.as_slice()),
            TensorMut::new(&other, y.as_slice_mut()),
        ),
        "y",
    );
    expect(
        dnn.softmax_forward(
            mode,
            1,
            Tensor::new(&d, short.as_slice()),
            TensorMut::new(&d, y.as_slice_mut()),
        ),
        "x",
    );
    let overlapping = TensorDesc::with_strides(DType::F32, &[1, 2, 3, 4], &[0, 1, 1, 1]).unwrap();
    expect(
        dnn.softmax_forward(
            mode,
            1,
            Tensor::new(&d, x.as_slice()),
            TensorMut::new(&overlapping, y.as_slice_mut()),
        ),
        "y",
    );
    let h = TensorDesc::new(DType::F16, Layout::Nchw, &[1, 2, 3, 4]).unwrap();
    expect(
        dnn.softmax_forward(
            mode,
            1,
            Tensor::new(&h, x.as_slice()),
            TensorMut::new(&d, y.as_slice_mut()),
        ),
        "x",
    );
    let cpu_x = DeviceBuffer::<f32>::zeros(&Device::cpu(), 24).unwrap();
    expect(
        dnn.softmax_forward(
            mode,
            1,
            Tensor::new(&d, cpu_x.as_slice()),
            TensorMut::new(&d, y.as_slice_mut()),
        ),
        "x",
    );
    let huge = TensorDesc::with_strides(DType::F32, &[1, 2, 3, 4], &[0, 1 << 33, 1, 1]).unwrap();
    expect(
        dnn.softmax_backward(
            mode,
            3,
            Tensor::new(&d, x.as_slice()),
            Tensor::new(&huge, x.as_slice()),
            TensorMut::new(&d, y.as_slice_mut()),
        ),
        "dy",
    );
}

/// Every kernel variant passes ptxas on sm_80 and sm_90 without spills.
#[test]
fn every_variant_passes_ptxas() {
    let Some(ptxas) = Ptxas::find() else {
        eprintln!("ptxas checks skipped: no ptxas ({HOW_TO_GET})");
        return;
    };
    for direction in [Direction::Forward, Direction::Backward] {
        for log in [false, true] {
            for shape in [1, 2, 4, 8]
                .map(|width| Shape::Row { width })
                .into_iter()
                .chain([1, 4].map(|unroll| Shape::Column { unroll }))
            {
                for dtype in [DType::F32, DType::F16, DType::Bf16] {
                    if shape == (Shape::Row { width: 8 }) && dtype == DType::F32 {
                        continue;
                    }
                    let p = Params {
                        direction,
                        log,
                        shape,
                        dtype,
                    };
                    for arch in ["sm_80", "sm_90"] {
                        let target = arch.parse().unwrap();
                        let text = ptx::lower(&softmax::kernel(&p, &target).unwrap()).unwrap();
                        let report = ptxas
                            .compile(&text, &target)
                            .unwrap_or_else(|e| panic!("ptxas {arch} {p:?}: {e}"));
                        let k = report.kernel(&softmax::kernel_name(&p)).unwrap();
                        assert_eq!(k.spill_stores, 0, "{arch} {p:?} spills");
                    }
                }
            }
        }
    }
}
