//! Activations, pooling, normalisations, softmax and dropout against the f64 reference;
//! every reference gradient against finite differences of the reference forward, and
//! the kernels' gradients against the reference gradients.

mod common;
use common::*;
use half::f16;
use proptest::prelude::*;
use rocm_core::{DType, Device, DeviceBuffer};
use rocm_dnn::norm::{ParamGrads, RowKind, SavedStats};
use rocm_dnn::pooling::{PoolDesc, PoolMode};
use rocm_dnn::reference as r;
use rocm_dnn::softmax::SoftmaxMode;
use rocm_dnn::*;

const U: f64 = f32::EPSILON as f64 / 2.0;

#[test]
fn activations_forward_backward() {
    let dnn = dnn();
    let dims = [2, 3, 5, 7];
    let x = random::<f32>(&dims, Mem::Gapped, 11);
    let dy = random::<f32>(&dims, Mem::Packed(true), 12);
    let (xl, dyl) = (x.logical(), dy.logical());
    for act in Activation::ALL {
        let mut y = zeros::<f32>(&dims, Mem::Packed(false));
        dnn.activation_forward(act, 1.0, x.t(), 0.0, y.tm())
            .unwrap();
        let want: Vec<f64> = xl.iter().map(|&v| act.apply(v)).collect();
        // f32 rounding of the f64 result (u·|y|), plus the erf fit's 1.2e-7 for GELU.
        assert_close(&format!("{act:?} fwd"), &y.logical(), &want, |i| {
            U * want[i].abs() + 2e-7
        });
        let mut dx = zeros::<f32>(&dims, Mem::Packed(false));
        dnn.activation_backward(act, 1.0, x.t(), dy.t(), 0.0, dx.tm())
            .unwrap();
        let want: Vec<f64> = xl
            .iter()
            .zip(&dyl)
            .map(|(&v, &g)| g * act.derivative(v))
            .collect();
        assert_close(&format!("{act:?} bwd"), &dx.logical(), &want, |i| {
            2.0 * U * want[i].abs() + 2e-7
        });
        // derivative() against central differences of apply() (away from kinks).
        for &v in xl
            .iter()
            .filter(|v| v.abs() > 1e-3 && (v.abs() - 6.0).abs() > 1e-3)
        {
            let h = 1e-6;
            let fd = (act.apply(v + h) - act.apply(v - h)) / (2.0 * h);
            assert!(
                (fd - act.derivative(v)).abs() < 1e-6,
                "{act:?} at {v}: fd {fd} vs {}",
                act.derivative(v)
            );
        }
    }
    // f16 storage: rounding of the output to f16.
    let xh = random::<f16>(&dims, Mem::Packed(false), 13);
    let mut yh = zeros::<f16>(&dims, Mem::Packed(false));
    dnn.activation_forward(Activation::Silu, 1.0, xh.t(), 0.0, yh.tm())
        .unwrap();
    let want: Vec<f64> = xh
        .logical()
        .iter()
        .map(|&v| Activation::Silu.apply(v))
        .collect();
    assert_close("silu f16", &yh.logical(), &want, |i| {
        want[i].abs() / 2048.0 + 1e-7
    });
}

fn pool_case() -> impl Strategy<Value = (PoolDesc, Vec<usize>)> {
    (
        any::<bool>(),
        0u8..3,
        prop::collection::vec((1usize..=3, 0usize..=2, 1usize..=2, 1usize..=6), 3),
        1usize..=2,
        1usize..=3,
    )
        .prop_filter_map("valid", |(three, mode, sp, n, c)| {
            let r = if three { 3 } else { 2 };
            let sp = &sp[..r];
            let mode = [
                PoolMode::Max,
                PoolMode::AverageInclusive,
                PoolMode::AverageExclusive,
            ][mode as usize];
            let win: Vec<usize> = sp.iter().map(|s| s.0).collect();
            let pads: Vec<usize> = sp.iter().map(|s| s.1.min(s.0 - 1)).collect();
            let st: Vec<usize> = sp.iter().map(|s| s.2).collect();
            let p = PoolDesc::new(mode, &win, &pads, &st).ok()?;
            let mut xd = vec![n, c];
            xd.extend(sp.iter().map(|s| s.3 + s.0));
            Some((p, xd))
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(40))]
    #[test]
    fn pooling_matches_reference((pool, xd) in pool_case(), seed in 0u64..1000) {
        let dnn = dnn();
        let x = random::<f32>(&xd, Mem::Packed(seed % 2 == 0), seed);
        let yd = pool.output_dims(&x.desc).unwrap();
        let dy = random::<f32>(&yd, Mem::Gapped, seed + 1);
        let (xl, dyl) = (x.logical(), dy.logical());
        let (want, widx) = r::pool_forward(&pool, &xd, &xl);
        let mut y = zeros::<f32>(&yd, Mem::Packed(false));
        let mut idx = DeviceBuffer::<i32>::zeros(&Device::cpu(), want.len()).unwrap();
        dnn.pooling_forward(&pool, x.t(), y.tm(), Some(&mut idx.as_slice_mut())).unwrap();
        // Sums of ≤ 27 f32 values: 27·u·Σ|x| ≤ 27·27·u.
        assert_close("pool fwd", &y.logical(), &want, |_| 30.0 * U * 30.0);
        if pool.mode == PoolMode::Max {
            prop_assert_eq!(idx.to_vec().unwrap(), widx);
        }
        let wdx = r::pool_backward(&pool, &xd, &xl, &dyl);
        for with_idx in [true, false] {
            let mut dx = zeros::<f32>(&xd, Mem::Packed(true));
            let ind = idx.as_slice();
            dnn.pooling_backward(&pool, x.t(), dy.t(), if with_idx { Some(&ind) } else { None }, dx.tm()).unwrap();
            assert_close("pool bwd", &dx.logical(), &wdx, |_| 30.0 * U * 30.0);
        }
        // Reference gradient against finite differences (random data: no ties).
        let fd = numeric_grad(&|v| r::pool_forward(&pool, &xd, v).0, &xl, &dyl);
        assert_close("pool fd", &wdx, &fd, |i| 1e-6 * (1.0 + fd[i].abs()));
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(30))]
    #[test]
    fn softmax_matches_reference(dims in prop::collection::vec(1usize..=5, 4), axis in 0usize..4, log in any::<bool>(), seed in 0u64..1000) {
        let dnn = dnn();
        let mode = if log { SoftmaxMode::LogSoftmax } else { SoftmaxMode::Softmax };
        let x = random::<f32>(&dims, Mem::Packed(seed % 2 == 1), seed);
        let dy = random::<f32>(&dims, Mem::Gapped, seed + 1);
        let (xl, dyl) = (x.logical(), dy.logical());
        // Scale up the logits so the max-subtraction matters.
        let want = r::softmax(&dims, axis, &xl, log);
        let mut y = zeros::<f32>(&dims, Mem::Packed(false));
        dnn.softmax_forward(mode, axis, x.t(), y.tm()).unwrap();
        // exp/sum in f64 then one f32 rounding per output, plus the input's f32 spacing.
        assert_close("softmax fwd", &y.logical(), &want, |i| 4.0 * U * (1.0 + want[i].abs()));
        let wdx = r::softmax_backward(&dims, axis, &xl, &dyl, log);
        let mut dx = zeros::<f32>(&dims, Mem::Packed(true));
        dnn.softmax_backward(mode, axis, y.t(), dy.t(), dx.tm()).unwrap();
        // y carries the f32 error above; Σ over ≤ 5 terms of |dy|·|y| ≤ 5.
        assert_close("softmax bwd", &dx.logical(), &wdx, |_| 64.0 * U * 6.0);
        let fd = numeric_grad(&|v| r::softmax(&dims, axis, v, log), &xl, &dyl);
        assert_close("softmax fd", &wdx, &fd, |i| 1e-7 * (1.0 + fd[i].abs()));
    }
}

#[test]
fn softmax_is_stable_for_large_logits() {
    let dnn = dnn();
    let d = TensorDesc::new(DType::F32, Layout::Nchw, &[1, 1, 1, 3]).unwrap();
    let x = DeviceBuffer::from_slice(&Device::cpu(), &[1000.0f32, 1001.0, 999.0]).unwrap();
    let mut y = DeviceBuffer::<f32>::zeros(&Device::cpu(), 3).unwrap();
    dnn.softmax_forward(
        SoftmaxMode::Softmax,
        3,
        Tensor::new(&d, x.as_slice()),
        TensorMut::new(&d, y.as_slice_mut()),
    )
    .unwrap();
    let v = y.to_vec().unwrap();
    assert!(
        v.iter().all(|x| x.is_finite()) && (v.iter().sum::<f32>() - 1.0).abs() < 1e-6,
        "{v:?}"
    );
    assert!(dnn
        .softmax_forward(
            SoftmaxMode::Softmax,
            4,
            Tensor::new(&d, x.as_slice()),
            TensorMut::new(&d, y.as_slice_mut())
        )
        .unwrap_err()
        .to_string()
        .contains("axis"));
}

/// Index sets, the parameter index of each element, and the parameter count.
type Sets = (Vec<Vec<usize>>, Box<dyn Fn(usize) -> usize>, usize);

/// Index sets and parameter maps of each normalisation over packed `dims`.
fn sets_for(kind: &str, dims: &[usize], arg: usize) -> Sets {
    let n = dims[0];
    let c = dims[1];
    let sp: usize = dims[2..].iter().product();
    let total = n * c * sp;
    match kind {
        "batch" => (
            (0..c)
                .map(|ch| (0..total).filter(|i| (i / sp) % c == ch).collect())
                .collect(),
            Box::new(move |i| (i / sp) % c),
            c,
        ),
        "group" => {
            let per = c / arg * sp;
            (
                (0..n * arg)
                    .map(|s| (s * per..(s + 1) * per).collect())
                    .collect(),
                Box::new(move |i| (i / sp) % c),
                c,
            )
        }
        _ => {
            let cols: usize = dims[arg..].iter().product();
            (
                (0..total / cols)
                    .map(|s| (s * cols..(s + 1) * cols).collect())
                    .collect(),
                Box::new(move |i| i % cols),
                cols,
            )
        }
    }
}

#[test]
fn normalisations_match_reference_and_finite_differences() {
    let dnn = dnn();
    let eps = 1e-5f32;
    for (kind, dims, arg) in [
        ("batch", vec![3, 4, 2, 3], 0),
        ("batch", vec![2, 3, 2, 2, 2], 0),
        ("layer", vec![2, 3, 4, 5], 2),
        ("layer", vec![3, 2, 3, 2, 2], 1),
        ("rms", vec![2, 3, 4, 5], 3),
        ("group", vec![2, 6, 3, 2], 3),
        ("group", vec![2, 4, 2, 2, 3], 2),
    ] {
        let x = random::<f32>(&dims, Mem::Packed(true), 21);
        let dy = random::<f32>(&dims, Mem::Gapped, 22);
        let (xl, dyl) = (x.logical(), dy.logical());
        let (sets, param, np) = sets_for(kind, &dims, arg);
        let gam = rvec(np, 23);
        let bet = rvec(np, 24);
        let (gb, bb) = (f32buf(&gam), f32buf(&bet));
        let center = kind != "rms";
        let bref = if kind == "rms" { None } else { Some(&bet[..]) };
        let (want, wmu, wrs) =
            r::normalize(&xl, &sets, center, eps as f64, &*param, Some(&gam), bref);
        let mut y = zeros::<f32>(&dims, Mem::Packed(false));
        let ns = sets.len();
        let mut mu = DeviceBuffer::<f32>::zeros(&Device::cpu(), ns).unwrap();
        let mut rs = DeviceBuffer::<f32>::zeros(&Device::cpu(), ns).unwrap();
        match kind {
            "batch" => {
                let mut rm = f32buf(&vec![0.5; np]);
                let mut rv = f32buf(&vec![2.0; np]);
                dnn.batch_norm_forward_training(
                    x.t(),
                    y.tm(),
                    &gb.as_slice(),
                    &bb.as_slice(),
                    eps,
                    0.1,
                    &mut rm.as_slice_mut(),
                    &mut rv.as_slice_mut(),
                    SavedStats {
                        mean: &mut mu.as_slice_mut(),
                        inv_std: &mut rs.as_slice_mut(),
                    },
                )
                .unwrap();
                let m = sets[0].len() as f64;
                for ch in 0..np {
                    let var = (1.0 / wrs[ch].powi(2) - eps as f64) * m / (m - 1.0);
                    assert!(
                        (rm.to_vec().unwrap()[ch] as f64 - (0.9 * 0.5 + 0.1 * wmu[ch])).abs()
                            < 1e-6
                    );
                    assert!(
                        (rv.to_vec().unwrap()[ch] as f64 - (0.9 * 2.0 + 0.1 * var)).abs() < 1e-5
                    );
                }
                // Inference with the batch statistics reproduces the training output.
                let mut yi = zeros::<f32>(&dims, Mem::Packed(true));
                let var: Vec<f64> = wrs.iter().map(|r| 1.0 / r.powi(2) - eps as f64).collect();
                dnn.batch_norm_forward_inference(
                    x.t(),
                    yi.tm(),
                    &gb.as_slice(),
                    &bb.as_slice(),
                    &f32buf(&wmu).as_slice(),
                    &f32buf(&var).as_slice(),
                    eps,
                )
                .unwrap();
                assert_close("bn inference", &yi.logical(), &want, |i| {
                    1e-5 * (1.0 + want[i].abs())
                });
            }
            "layer" => dnn
                .layer_norm_forward(
                    arg,
                    x.t(),
                    y.tm(),
                    Some(&gb.as_slice()),
                    Some(&bb.as_slice()),
                    eps,
                    SavedStats {
                        mean: &mut mu.as_slice_mut(),
                        inv_std: &mut rs.as_slice_mut(),
                    },
                )
                .unwrap(),
            "rms" => dnn
                .rms_norm_forward(
                    arg,
                    x.t(),
                    y.tm(),
                    Some(&gb.as_slice()),
                    eps,
                    &mut rs.as_slice_mut(),
                )
                .unwrap(),
            _ => dnn
                .group_norm_forward(
                    arg,
                    x.t(),
                    y.tm(),
                    Some(&gb.as_slice()),
                    Some(&bb.as_slice()),
                    eps,
                    SavedStats {
                        mean: &mut mu.as_slice_mut(),
                        inv_std: &mut rs.as_slice_mut(),
                    },
                )
                .unwrap(),
        }
        // Statistics accumulate in f64; x̂ ≤ √m in size, so the output error is a few
        // f32 roundings of |γ·x̂| + |β|.
        assert_close(&format!("{kind} fwd"), &y.logical(), &want, |i| {
            16.0 * U * (2.0 + want[i].abs()) * 4.0
        });
        assert_close(&format!("{kind} inv_std"), &f64of(&rs), &wrs, |i| {
            8.0 * U * wrs[i]
        });
        // Backward.
        let (wdx, wdg, wdb) = r::normalize_backward(
            &xl,
            &dyl,
            &sets,
            center,
            eps as f64,
            &*param,
            Some(&gam),
            np,
        );
        let fd = numeric_grad(
            &|v| r::normalize(v, &sets, center, eps as f64, &*param, Some(&gam), bref).0,
            &xl,
            &dyl,
        );
        assert_close(&format!("{kind} reference vs fd"), &wdx, &fd, |i| {
            1e-6 * (1.0 + fd[i].abs())
        });
        let mut dx = zeros::<f32>(&dims, Mem::Packed(false));
        let mut dg = DeviceBuffer::<f32>::zeros(&Device::cpu(), np).unwrap();
        let mut db = DeviceBuffer::<f32>::zeros(&Device::cpu(), np).unwrap();
        let grads = ParamGrads {
            dgamma: &mut dg.as_slice_mut(),
            dbeta: &mut db.as_slice_mut(),
        };
        match kind {
            "batch" => dnn
                .batch_norm_backward(
                    x.t(),
                    dy.t(),
                    dx.tm(),
                    &gb.as_slice(),
                    &mu.as_slice(),
                    &rs.as_slice(),
                    grads,
                )
                .unwrap(),
            _ => {
                let rk = match kind {
                    "layer" => RowKind::Layer(arg),
                    "rms" => RowKind::Rms(arg),
                    _ => RowKind::Group(arg),
                };
                dnn.norm_backward(
                    rk,
                    x.t(),
                    dy.t(),
                    dx.tm(),
                    Some(&gb.as_slice()),
                    &mu.as_slice(),
                    &rs.as_slice(),
                    Some(grads),
                )
                .unwrap()
            }
        }
        // Sums over each set of m terms bounded by |γ||dy|·(1 + |x̂|²): m·u·that.
        let m = sets[0].len() as f64;
        let scale = wrs.iter().cloned().fold(0.0, f64::max);
        assert_close(&format!("{kind} dx"), &f64of_t(&dx), &wdx, |_| {
            64.0 * m * U * scale * 4.0
        });
        assert_close(&format!("{kind} dgamma"), &f64of(&dg), &wdg, |_| {
            16.0 * m * U * 4.0
        });
        if center {
            assert_close(&format!("{kind} dbeta"), &f64of(&db), &wdb, |_| {
                16.0 * m * U
            });
        }
    }
}

fn f64of_t(b: &Buf<f32>) -> Vec<f64> {
    b.logical()
}

#[test]
fn norm_errors() {
    let dnn = dnn();
    let x = random::<f32>(&[2, 6, 3, 3], Mem::Packed(false), 1);
    let mut y = zeros::<f32>(&[2, 6, 3, 3], Mem::Packed(false));
    let mut a = DeviceBuffer::<f32>::zeros(&Device::cpu(), 8).unwrap();
    let mut b = DeviceBuffer::<f32>::zeros(&Device::cpu(), 8).unwrap();
    let e = dnn
        .group_norm_forward(
            4,
            x.t(),
            y.tm(),
            None,
            None,
            1e-5,
            SavedStats {
                mean: &mut a.as_slice_mut(),
                inv_std: &mut b.as_slice_mut(),
            },
        )
        .unwrap_err()
        .to_string();
    assert!(e.contains("groups"), "{e}");
    let e = dnn
        .layer_norm_forward(
            4,
            x.t(),
            y.tm(),
            None,
            None,
            1e-5,
            SavedStats {
                mean: &mut a.as_slice_mut(),
                inv_std: &mut b.as_slice_mut(),
            },
        )
        .unwrap_err()
        .to_string();
    assert!(e.contains("axis"), "{e}");
    let g = f32buf(&[1.0; 5]);
    let e = dnn
        .layer_norm_forward(
            3,
            x.t(),
            y.tm(),
            Some(&g.as_slice()),
            None,
            1e-5,
            SavedStats {
                mean: &mut a.as_slice_mut(),
                inv_std: &mut b.as_slice_mut(),
            },
        )
        .unwrap_err()
        .to_string();
    assert!(e.contains("gamma") || e.contains("saved"), "{e}");
}

#[test]
fn dropout_is_reproducible_and_unbiased() {
    let dnn = dnn();
    let dims = [4, 8, 16, 16];
    let x = random::<f32>(&dims, Mem::Packed(false), 31);
    let n = x.desc.numel();
    let d = DropoutDesc {
        p: 0.3,
        seed: 42,
        offset: 0,
    };
    let run = |d: &DropoutDesc| {
        let mut y = zeros::<f32>(&dims, Mem::Packed(false));
        let mut m = DeviceBuffer::<u8>::zeros(&Device::cpu(), n).unwrap();
        dnn.dropout_forward(d, x.t(), y.tm(), &mut m.as_slice_mut())
            .unwrap();
        (y.logical(), m.to_vec().unwrap())
    };
    let (y1, m1) = run(&d);
    let (y2, m2) = run(&d);
    assert_eq!(m1, m2);
    assert_eq!(y1, y2);
    let (_, m3) = run(&DropoutDesc { offset: 1000, ..d });
    assert_ne!(m1, m3);
    // Kept fraction: binomial(n, 0.7), 6 standard deviations.
    let kept = m1.iter().filter(|&&b| b == 1).count() as f64;
    let sd = (n as f64 * 0.7 * 0.3).sqrt();
    assert!(
        (kept - 0.7 * n as f64).abs() < 6.0 * sd,
        "kept {kept} of {n}"
    );
    let xl = x.logical();
    for i in 0..n {
        let want = if m1[i] == 1 { xl[i] / 0.7 } else { 0.0 };
        assert!((y1[i] - want).abs() <= 2.0 * U * want.abs(), "{i}");
    }
    let dy = random::<f32>(&dims, Mem::Packed(true), 32);
    let mut dx = zeros::<f32>(&dims, Mem::Packed(false));
    let mb = DeviceBuffer::from_slice(&Device::cpu(), &m1).unwrap();
    dnn.dropout_backward(&d, dy.t(), &mb.as_slice(), dx.tm())
        .unwrap();
    let dyl = dy.logical();
    let got = dx.logical();
    for i in 0..n {
        let want = if m1[i] == 1 { dyl[i] / 0.7 } else { 0.0 };
        assert!((got[i] - want).abs() <= 2.0 * U * want.abs(), "{i}");
    }
    assert!(dnn
        .dropout_forward(
            &DropoutDesc { p: 1.0, ..d },
            x.t(),
            zeros::<f32>(&dims, Mem::Packed(false)).tm(),
            &mut DeviceBuffer::<u8>::zeros(&Device::cpu(), n)
                .unwrap()
                .as_slice_mut()
        )
        .is_err());
}

#[test]
fn philox_known_answer() {
    // Random123's known-answer test for philox4x32-10 with zero counter and key.
    assert_eq!(
        rocm_dnn::dropout::philox4x32([0, 0, 0, 0], [0, 0]),
        [0x6627_e8d5, 0xe169_c58d, 0xbc57_ac4c, 0x9b00_dbd8]
    );
}

/// Every op family with f16 and bf16 storage (computed in f32) against the f64
/// reference on the stored (rounded) inputs. Each tolerance is the f32 test's bound for
/// the op plus the rounding of the output to the storage type: u_T·|want|, or half the
/// type's smallest subnormal where the result falls below the normal range.
fn sixteen_bit<T: DnnFloat>() {
    let dnn = dnn();
    let ut = T::UNIT_ROUNDOFF;
    let sub = T::MIN_SUBNORMAL / 2.0;
    let store = |w: f64| ut * w.abs() + sub;
    let name = T::DTYPE.name();
    let dims = [2, 3, 6, 7];
    let x = random::<T>(&dims, Mem::Packed(true), 41);
    let dy = random::<T>(&dims, Mem::Packed(false), 42);
    let (xl, dyl) = (x.logical(), dy.logical());
    for act in Activation::ALL {
        let mut y = zeros::<T>(&dims, Mem::Packed(false));
        dnn.activation_forward(act, 1.0, x.t(), 0.0, y.tm())
            .unwrap();
        let want: Vec<f64> = xl.iter().map(|&v| act.apply(v)).collect();
        assert_close(&format!("{name} {act:?} fwd"), &y.logical(), &want, |i| {
            U * want[i].abs() + 2e-7 + store(want[i])
        });
        let mut dx = zeros::<T>(&dims, Mem::Gapped);
        dnn.activation_backward(act, 1.0, x.t(), dy.t(), 0.0, dx.tm())
            .unwrap();
        let want: Vec<f64> = xl
            .iter()
            .zip(&dyl)
            .map(|(&v, &g)| g * act.derivative(v))
            .collect();
        assert_close(&format!("{name} {act:?} bwd"), &dx.logical(), &want, |i| {
            2.0 * U * want[i].abs() + 2e-7 + store(want[i])
        });
    }
    for mode in [
        PoolMode::Max,
        PoolMode::AverageInclusive,
        PoolMode::AverageExclusive,
    ] {
        let pool = PoolDesc::new(mode, &[3, 3], &[1, 1], &[2, 2]).unwrap();
        let yd = pool.output_dims(&x.desc).unwrap();
        let mut y = zeros::<T>(&yd, Mem::Packed(false));
        dnn.pooling_forward(&pool, x.t(), y.tm(), None).unwrap();
        let (want, _) = r::pool_forward(&pool, &dims, &xl);
        assert_close(
            &format!("{name} {mode:?} pool fwd"),
            &y.logical(),
            &want,
            |i| 30.0 * U * 30.0 + store(want[i]),
        );
        let pdy = random::<T>(&yd, Mem::Packed(true), 43);
        let mut dx = zeros::<T>(&dims, Mem::Packed(false));
        dnn.pooling_backward(&pool, x.t(), pdy.t(), None, dx.tm())
            .unwrap();
        let want = r::pool_backward(&pool, &dims, &xl, &pdy.logical());
        assert_close(
            &format!("{name} {mode:?} pool bwd"),
            &dx.logical(),
            &want,
            |i| 30.0 * U * 30.0 + store(want[i]),
        );
    }
    for log in [false, true] {
        let mode = if log {
            SoftmaxMode::LogSoftmax
        } else {
            SoftmaxMode::Softmax
        };
        let mut y = zeros::<T>(&dims, Mem::Packed(false));
        dnn.softmax_forward(mode, 3, x.t(), y.tm()).unwrap();
        let want = r::softmax(&dims, 3, &xl, log);
        assert_close(
            &format!("{name} log={log} softmax fwd"),
            &y.logical(),
            &want,
            |i| 4.0 * U * (1.0 + want[i].abs()) + store(want[i]),
        );
        // Backward from the stored y (what a training step has): dx = y ⊙ (dy − Σ dy·y)
        // for softmax, dy − e^y·Σ dy for log-softmax, each row of 7 over axis 3.
        let ys = y.logical();
        let mut dx = zeros::<T>(&dims, Mem::Packed(true));
        dnn.softmax_backward(mode, 3, y.t(), dy.t(), dx.tm())
            .unwrap();
        let mut want = vec![0.0; ys.len()];
        for row in 0..ys.len() / 7 {
            let r = row * 7..row * 7 + 7;
            if log {
                let s: f64 = dyl[r.clone()].iter().sum();
                for i in r {
                    want[i] = dyl[i] - ys[i].exp() * s;
                }
            } else {
                let s: f64 = r.clone().map(|i| dyl[i] * ys[i]).sum();
                for i in r {
                    want[i] = ys[i] * (dyl[i] - s);
                }
            }
        }
        // f32 arithmetic on ≤ 7 terms of size ≤ 1 (exp of a log-softmax ≤ 1): 64·u·8.
        assert_close(
            &format!("{name} log={log} softmax bwd"),
            &dx.logical(),
            &want,
            |i| 64.0 * U * 8.0 + store(want[i]),
        );
    }
    // Layer norm over (C, H, W) with γ and β.
    let np = 3 * 6 * 7;
    let (gam, bet) = (rvec(np, 44), rvec(np, 45));
    let mut y = zeros::<T>(&dims, Mem::Packed(false));
    let (mut mu, mut rs) = (
        DeviceBuffer::<f32>::zeros(&Device::cpu(), 2).unwrap(),
        DeviceBuffer::<f32>::zeros(&Device::cpu(), 2).unwrap(),
    );
    dnn.layer_norm_forward(
        1,
        x.t(),
        y.tm(),
        Some(&f32buf(&gam).as_slice()),
        Some(&f32buf(&bet).as_slice()),
        1e-5,
        SavedStats {
            mean: &mut mu.as_slice_mut(),
            inv_std: &mut rs.as_slice_mut(),
        },
    )
    .unwrap();
    let gam32: Vec<f64> = gam.iter().map(|&v| v as f32 as f64).collect();
    let bet32: Vec<f64> = bet.iter().map(|&v| v as f32 as f64).collect();
    let sets: Vec<Vec<usize>> = (0..2).map(|s| (s * np..(s + 1) * np).collect()).collect();
    let (want, _, _) = r::normalize(
        &xl,
        &sets,
        true,
        1e-5,
        &|i| i % np,
        Some(&gam32),
        Some(&bet32),
    );
    assert_close(
        &format!("{name} layer norm fwd"),
        &y.logical(),
        &want,
        |i| 16.0 * U * (2.0 + want[i].abs()) * 4.0 + store(want[i]),
    );
    // Attention forward, grouped-query, causal.
    let a = r::AttnShape {
        b: 1,
        hq: 2,
        hkv: 1,
        sq: 19,
        sk: 23,
        d: 16,
        scale: 0.25,
        causal: true,
    };
    let q = random::<T>(&[1, 2, 19, 16], Mem::Packed(false), 46);
    let k = random::<T>(&[1, 1, 23, 16], Mem::Packed(false), 47);
    let v = random::<T>(&[1, 1, 23, 16], Mem::Packed(false), 48);
    let mut o = zeros::<T>(&[1, 2, 19, 16], Mem::Packed(false));
    let mut lse = DeviceBuffer::<f32>::zeros(&Device::cpu(), 38).unwrap();
    dnn.attention_forward(
        &AttentionDesc {
            scale: 0.25,
            causal: true,
        },
        q.t(),
        k.t(),
        v.t(),
        None,
        o.tm(),
        &mut lse.as_slice_mut(),
    )
    .unwrap();
    let want = r::attention(&a, &q.logical(), &k.logical(), &v.logical(), None);
    // The f32 bound of attention.rs: 2d²·u·scale + 4(sk + d)·u.
    let tol = 2.0 * 256.0 * U * 0.25 + 4.0 * (23.0 + 16.0) * U;
    assert_close(&format!("{name} attention fwd"), &o.logical(), &want, |i| {
        tol + store(want[i])
    });
}

#[test]
fn ops_with_16_bit_storage() {
    sixteen_bit::<f16>();
    sixteen_bit::<half::bf16>();
}
