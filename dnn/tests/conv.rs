//! Convolution: every algorithm, direction, mode, layout and dtype against the f64
//! reference on random problems, plus argument errors and the find-db.

mod common;
use common::*;
use half::{bf16, f16};
use proptest::prelude::*;
use rocm_core::{DType, Device, DeviceBuffer};
use rocm_dnn::reference as r;
use rocm_dnn::*;

#[derive(Debug, Clone)]
struct Problem {
    conv: ConvDesc,
    xd: Vec<usize>,
    wd: Vec<usize>,
    mem: Mem,
}

fn problem() -> impl Strategy<Value = Problem> {
    problem_up_to(7, 3)
}

/// Random problems with spatial extents up to `max_extra + 2` and up to `max_cg`
/// channels per group on each side.
fn problem_up_to(max_extra: usize, max_cg: usize) -> impl Strategy<Value = Problem> {
    (
        any::<bool>(),   // 3-D
        any::<bool>(),   // transposed
        1usize..=3,      // groups
        1usize..=max_cg, // channels per group (x side)
        1usize..=max_cg, // channels per group (y side)
        prop::collection::vec(
            (
                1usize..=3,
                0usize..=2,
                1usize..=2,
                1usize..=2,
                1usize..=max_extra,
            ),
            3,
        ),
        1usize..=2, // batch
        0u8..3,     // memory
    )
        .prop_filter_map("valid", |(three, trans, g, cxg, cyg, sp, n, mem)| {
            let rank = if three { 3 } else { 2 };
            let sp = &sp[..rank];
            let pads: Vec<usize> = sp.iter().map(|s| s.1.min(s.0 - 1)).collect();
            let strides: Vec<usize> = sp.iter().map(|s| s.2).collect();
            let dils: Vec<usize> = sp.iter().map(|s| s.3).collect();
            let fil: Vec<usize> = sp.iter().map(|s| s.0).collect();
            let mode = if trans {
                ConvMode::Transposed
            } else {
                ConvMode::Convolution
            };
            let conv = ConvDesc::new(mode, &pads, &strides, &dils, g).ok()?;
            let mut xd = vec![n, g * cxg];
            xd.extend(sp.iter().map(|s| s.4 + 2));
            let mut wd = if trans {
                vec![g * cxg, cyg]
            } else {
                vec![g * cyg, cxg]
            };
            wd.extend(&fil);
            let mem = match mem {
                0 => Mem::Packed(false),
                1 => Mem::Packed(true),
                _ => Mem::Gapped,
            };
            let p = Problem { conv, xd, wd, mem };
            let x = desc(DType::F32, &p.xd, Mem::Packed(false));
            let w = desc(DType::F32, &p.wd, Mem::Packed(false));
            p.conv.output_dims(&x, &w).ok()?;
            Some(p)
        })
}

/// Checks every applicable algorithm of every direction of `p` against the reference.
/// Tolerance per element: the f32 dot-product bound 2·K·u·Σ|terms| (K terms, u = 2⁻²⁴),
/// ×16 for Winograd (its transforms reach |entries| ~ 10 and sum α² products), plus the
/// output rounding of the storage type: u_T·|ref|, or half its smallest subnormal where the
/// result falls below the normal range (f16 results near 1e-5 are subnormal).
fn check<T: DnnFloat>(p: &Problem, seed: u64) {
    let dnn = dnn();
    let x = random::<T>(&p.xd, p.mem, seed);
    let w = random::<T>(&p.wd, p.mem, seed + 1);
    let yd = p.conv.output_dims(&x.desc, &w.desc).unwrap();
    let dy = random::<T>(&yd, p.mem, seed + 2);
    let (xl, wl, dyl) = (x.logical(), w.logical(), dy.logical());
    let u = f32::EPSILON as f64 / 2.0;
    let ut = T::UNIT_ROUNDOFF;
    let underflow = T::MIN_SUBNORMAL / 2.0;
    // An upper bound on the number of products summed into any one output:
    // channels × filter taps (fwd, bwd-data) or batch × positions (wrw).
    let f: usize = p.wd[2..].iter().product();
    let k_chan = ((p.xd[1] + p.wd[0] + p.wd[1]) * f) as f64;
    let k_pos = (p.xd[0]
        * (p.xd[2..].iter().product::<usize>() + yd[2..].iter().product::<usize>()))
        as f64;
    for dir in [
        ConvDirection::Forward,
        ConvDirection::BackwardData,
        ConvDirection::BackwardWeights,
    ] {
        let prob = ConvProblem::new(dir, &p.conv, &x.desc, &w.desc, &dy.desc).unwrap();
        let (want, absw): (Vec<f64>, Vec<f64>) = match dir {
            ConvDirection::Forward => (
                r::conv_forward(
                    &p.conv,
                    &p.xd,
                    &xl,
                    &p.wd,
                    &wl,
                    &yd,
                    None,
                    Activation::Identity,
                ),
                r::conv_abs_forward(
                    &p.conv,
                    &p.xd,
                    &xl.iter().map(|v| v.abs()).collect::<Vec<_>>(),
                    &p.wd,
                    &wl,
                    &yd,
                ),
            ),
            ConvDirection::BackwardData => {
                let a = r::conv_backward_data(
                    &p.conv,
                    &p.xd,
                    &p.wd,
                    &wl.iter().map(|v| v.abs()).collect::<Vec<_>>(),
                    &yd,
                    &dyl.iter().map(|v| v.abs()).collect::<Vec<_>>(),
                );
                (
                    r::conv_backward_data(&p.conv, &p.xd, &p.wd, &wl, &yd, &dyl),
                    a,
                )
            }
            ConvDirection::BackwardWeights => {
                let a = r::conv_backward_weights(
                    &p.conv,
                    &p.xd,
                    &xl.iter().map(|v| v.abs()).collect::<Vec<_>>(),
                    &p.wd,
                    &yd,
                    &dyl.iter().map(|v| v.abs()).collect::<Vec<_>>(),
                );
                (
                    r::conv_backward_weights(&p.conv, &p.xd, &xl, &p.wd, &yd, &dyl),
                    a,
                )
            }
        };
        let absw: Vec<f64> = if dir == ConvDirection::Forward {
            r::conv_abs_forward(
                &p.conv,
                &p.xd,
                &xl.iter().map(|v| v.abs()).collect::<Vec<_>>(),
                &p.wd,
                &wl.iter().map(|v| v.abs()).collect::<Vec<_>>(),
                &yd,
            )
        } else {
            absw
        };
        let algos = prob.applicable();
        assert!(algos.contains(&ConvAlgo::Direct) && algos.contains(&ConvAlgo::Im2colGemm));
        for algo in algos {
            let wino = if matches!(algo, ConvAlgo::WinogradF2x3 | ConvAlgo::WinogradF4x3) {
                64.0
            } else {
                1.0
            };
            let got = match dir {
                ConvDirection::Forward => {
                    let mut y = zeros::<T>(&yd, p.mem);
                    dnn.convolution_forward(&p.conv, Some(algo), 1.0, x.t(), w.t(), 0.0, y.tm())
                        .unwrap();
                    y.logical()
                }
                ConvDirection::BackwardData => {
                    let mut dx = zeros::<T>(&p.xd, p.mem);
                    dnn.convolution_backward_data(
                        &p.conv,
                        Some(algo),
                        1.0,
                        dy.t(),
                        w.t(),
                        0.0,
                        dx.tm(),
                    )
                    .unwrap();
                    dx.logical()
                }
                ConvDirection::BackwardWeights => {
                    let mut dw = zeros::<T>(&p.wd, p.mem);
                    dnn.convolution_backward_weights(
                        &p.conv,
                        Some(algo),
                        1.0,
                        x.t(),
                        dy.t(),
                        0.0,
                        dw.tm(),
                    )
                    .unwrap();
                    dw.logical()
                }
            };
            let k = if dir == ConvDirection::BackwardWeights {
                k_pos
            } else {
                k_chan
            };
            assert_close(&format!("{dir:?} {algo} {p:?}"), &got, &want, |i| {
                2.0 * k * u * absw[i] * wino + ut * want[i].abs() + underflow + 1e-30
            });
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]
    #[test]
    fn all_algorithms_match_reference_f32(p in problem(), seed in 0u64..1000) {
        check::<f32>(&p, seed);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(12))]
    #[test]
    fn all_algorithms_match_reference_f16_bf16(p in problem(), seed in 0u64..1000) {
        check::<f16>(&p, seed);
        check::<bf16>(&p, seed);
    }
}

/// Pointwise (1×1, stride 1, no padding) problems, which im2col runs as GEMMs on the
/// tensors in place: groups, channel counts, 2-D and 3-D, every memory layout, dilation
/// (irrelevant for a 1×1 filter, so it must not matter).
fn pointwise_problem() -> impl Strategy<Value = Problem> {
    (
        any::<bool>(),
        1usize..=3,
        1usize..=5,
        1usize..=5,
        prop::collection::vec((1usize..=9, 1usize..=2), 3),
        1usize..=3,
        0u8..3,
    )
        .prop_filter_map("valid", |(three, g, cxg, cyg, sp, n, mem)| {
            let rank = if three { 3 } else { 2 };
            let sp = &sp[..rank];
            let dils: Vec<usize> = sp.iter().map(|s| s.1).collect();
            let conv = ConvDesc::new(
                ConvMode::Convolution,
                &vec![0; rank],
                &vec![1; rank],
                &dils,
                g,
            )
            .ok()?;
            let mut xd = vec![n, g * cxg];
            xd.extend(sp.iter().map(|s| s.0));
            let mut wd = vec![g * cyg, cxg];
            wd.extend(vec![1; rank]);
            let mem = match mem {
                0 => Mem::Packed(false),
                1 => Mem::Packed(true),
                _ => Mem::Gapped,
            };
            Some(Problem { conv, xd, wd, mem })
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]
    #[test]
    fn pointwise_matches_reference(p in pointwise_problem(), seed in 0u64..1000) {
        check::<f32>(&p, seed);
        check::<f16>(&p, seed);
    }
}

/// Winograd on larger 2-D 3×3 problems (several tiles, ragged edges, groups).
#[test]
fn winograd_larger_problems() {
    for (n, c, k, h, w, pad, g) in [
        (2, 8, 6, 11, 13, 1, 1),
        (1, 16, 16, 9, 7, 0, 2),
        (3, 4, 4, 5, 6, 1, 4),
        (1, 3, 5, 17, 3, 1, 1),
    ] {
        let conv = ConvDesc::conv2d(pad, 1, 1, g).unwrap();
        let p = Problem {
            conv,
            xd: vec![n, c, h, w],
            wd: vec![k, c / g, 3, 3],
            mem: Mem::Packed(true),
        };
        check::<f32>(&p, 7);
    }
}

/// Winograd with more tiles than one block holds (several blocks, lane groups spanning
/// two images, ragged last block), with and without groups.
#[test]
fn winograd_several_blocks() {
    for (n, c, k, h, w, g) in [(5, 64, 8, 20, 19, 1), (3, 32, 32, 13, 31, 2)] {
        let p = Problem {
            conv: ConvDesc::conv2d(1, 1, 1, g).unwrap(),
            xd: vec![n, c, h, w],
            wd: vec![k, c / g, 3, 3],
            mem: Mem::Packed(false),
        };
        check::<f32>(&p, 11);
    }
}

/// The fused conv + bias + activation, y = α·act(conv(x, w) + bias), for every
/// activation and every applicable algorithm (Winograd on the stride-1 problem), written
/// in place (f32 NCHW, β = 0) and through the staging path (NHWC), with α = 2.
#[test]
fn fused_bias_activation_matches_reference() {
    let dnn = dnn();
    let x = random::<f32>(&[2, 3, 9, 8], Mem::Packed(true), 1);
    let w = random::<f32>(&[5, 3, 3, 3], Mem::Packed(true), 2);
    let bias = DeviceBuffer::from_slice(&Device::cpu(), &[0.1f32, -0.2, 0.3, -0.4, 0.5]).unwrap();
    let b: Vec<f64> = bias.to_vec().unwrap().iter().map(|&v| v as f64).collect();
    for stride in [2, 1] {
        let conv = ConvDesc::conv2d(1, stride, 1, 1).unwrap();
        let yd = conv.output_dims(&x.desc, &w.desc).unwrap();
        let p = ConvProblem::new(
            ConvDirection::Forward,
            &conv,
            &x.desc,
            &w.desc,
            &desc(DType::F32, &yd, Mem::Packed(false)),
        )
        .unwrap();
        let want0 = r::conv_forward(
            &conv,
            x.desc.dims(),
            &x.logical(),
            w.desc.dims(),
            &w.logical(),
            &yd,
            None,
            Activation::Identity,
        );
        for act in Activation::ALL {
            let want: Vec<f64> = want0
                .iter()
                .enumerate()
                .map(|(i, &c)| 2.0 * act.apply(c + b[(i / (yd[2] * yd[3])) % 5]))
                .collect();
            for algo in p.applicable() {
                for mem in [Mem::Packed(false), Mem::Packed(true)] {
                    let mut y = zeros::<f32>(&yd, mem);
                    dnn.convolution_bias_activation_forward(
                        &conv,
                        Some(algo),
                        2.0,
                        x.t(),
                        w.t(),
                        Some(bias.as_slice()),
                        act,
                        0.0,
                        y.tm(),
                    )
                    .unwrap();
                    // Σ|terms| ≤ 27 per output, summed in f32 over 27 terms: 2·27·u·27
                    // (×64 for Winograd, as in `check`), through activations of slope
                    // ≤ 1.2 (GELU's peak is 1.13), doubled by α, plus the f32 rounding
                    // of the bias add and the activation.
                    let wino = if matches!(algo, ConvAlgo::WinogradF2x3 | ConvAlgo::WinogradF4x3) {
                        64.0
                    } else {
                        1.0
                    };
                    let u = f32::EPSILON as f64 / 2.0;
                    assert_close(
                        &format!("{act:?} {algo} {mem:?}"),
                        &y.logical(),
                        &want,
                        |i| 2.0 * (1.2 * 2.0 * 27.0 * u * 27.0 * wino + 4.0 * u * want[i].abs()),
                    );
                }
            }
        }
    }
}

#[test]
fn alpha_beta_blend() {
    let dnn = dnn();
    let conv = ConvDesc::conv2d(0, 1, 1, 1).unwrap();
    let x = random::<f32>(&[1, 2, 4, 4], Mem::Packed(false), 3);
    let w = random::<f32>(&[3, 2, 1, 1], Mem::Packed(false), 4);
    let mut y = random::<f32>(&[1, 3, 4, 4], Mem::Packed(false), 5);
    let old = y.logical();
    dnn.convolution_forward(
        &conv,
        Some(ConvAlgo::Im2colGemm),
        2.0,
        x.t(),
        w.t(),
        -0.5,
        y.tm(),
    )
    .unwrap();
    let c = r::conv_forward(
        &conv,
        &[1, 2, 4, 4],
        &x.logical(),
        &[3, 2, 1, 1],
        &w.logical(),
        &[1, 3, 4, 4],
        None,
        Activation::Identity,
    );
    let want: Vec<f64> = c.iter().zip(&old).map(|(c, o)| 2.0 * c - 0.5 * o).collect();
    assert_close("blend", &y.logical(), &want, |_| 1e-5);
}

#[test]
fn shape_errors_name_the_dimension() {
    let dnn = dnn();
    let conv = ConvDesc::conv2d(1, 1, 1, 2).unwrap();
    let x = random::<f32>(&[1, 4, 5, 5], Mem::Packed(false), 1);
    let w = random::<f32>(&[6, 3, 3, 3], Mem::Packed(false), 2);
    let mut y = zeros::<f32>(&[1, 6, 5, 5], Mem::Packed(false));
    let e = dnn
        .convolution_forward(&conv, None, 1.0, x.t(), w.t(), 0.0, y.tm())
        .unwrap_err()
        .to_string();
    assert!(e.contains("w") && e.contains("C = 3"), "{e}");
    let w = random::<f32>(&[6, 2, 3, 3], Mem::Packed(false), 2);
    let mut y = zeros::<f32>(&[1, 6, 5, 4], Mem::Packed(false));
    let e = dnn
        .convolution_forward(&conv, None, 1.0, x.t(), w.t(), 0.0, y.tm())
        .unwrap_err()
        .to_string();
    assert!(e.contains("dimension W is 4, expected 5"), "{e}");
    let mut y = zeros::<f32>(&[1, 6, 5, 5], Mem::Packed(false));
    let e = dnn.convolution_forward(
        &conv,
        Some(ConvAlgo::WinogradF4x3),
        1.0,
        x.t(),
        w.t(),
        0.0,
        y.tm(),
    );
    assert!(e.is_ok(), "{e:?}");
    let conv2 = ConvDesc::conv2d(1, 2, 1, 2).unwrap();
    let mut y = zeros::<f32>(&[1, 6, 3, 3], Mem::Packed(false));
    let e = dnn
        .convolution_forward(
            &conv2,
            Some(ConvAlgo::WinogradF2x3),
            1.0,
            x.t(),
            w.t(),
            0.0,
            y.tm(),
        )
        .unwrap_err()
        .to_string();
    assert!(e.contains("does not apply"), "{e}");
    assert!(ConvDesc::conv2d(0, 0, 1, 1)
        .unwrap_err()
        .to_string()
        .contains("strides"));
    assert!(TensorDesc::new(DType::F64, Layout::Nchw, &[1, 1, 1, 1]).is_err());
    assert!(TensorDesc::new(DType::F32, Layout::Ncdhw, &[1, 1, 1, 1])
        .unwrap_err()
        .to_string()
        .contains("dims"));
    // A buffer too short for its descriptor.
    let d = TensorDesc::new(DType::F32, Layout::Nchw, &[1, 4, 5, 5]).unwrap();
    let short = DeviceBuffer::<f32>::zeros(&Device::cpu(), 10).unwrap();
    let e = dnn
        .convolution_forward(
            &conv,
            None,
            1.0,
            Tensor::new(&d, short.as_slice()),
            w.t(),
            0.0,
            y.tm(),
        )
        .unwrap_err()
        .to_string();
    assert!(e.contains("x") || e.contains("y"), "{e}");
    // An overlapping output.
    let od = TensorDesc::with_strides(DType::F32, &[1, 6, 5, 5], &[0, 0, 5, 1]).unwrap();
    let mut ob = DeviceBuffer::<f32>::zeros(&Device::cpu(), 25).unwrap();
    let e = dnn
        .convolution_forward(
            &conv,
            None,
            1.0,
            x.t(),
            w.t(),
            0.0,
            TensorMut::new(&od, ob.as_slice_mut()),
        )
        .unwrap_err()
        .to_string();
    assert!(e.contains("map two elements"), "{e}");
}

#[test]
fn layout_detection() {
    let d = TensorDesc::new(DType::F32, Layout::Ndhwc, &[2, 3, 4, 5, 6]).unwrap();
    assert_eq!(d.strides(), &[360, 1, 90, 18, 3]);
    assert_eq!(d.layout(), Some(Layout::Ndhwc));
    let g = desc(DType::F32, &[2, 3, 4, 5], Mem::Gapped);
    assert_eq!(g.layout(), None);
    assert!(g.is_non_overlapping());
}

/// Σ a·b.
fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// Runs one direction of `p` with `algo` on f32 tensors in packed NCHW and returns the
/// output in logical order; `ins` are the two inputs as the call takes them.
fn run_f32(
    p: &Problem,
    dir: ConvDirection,
    algo: ConvAlgo,
    ins: (&[f64], &[f64]),
    out_dims: &[usize],
) -> Vec<f64> {
    let dnn = dnn();
    let mk = |v: &[f64], dims: &[usize]| {
        let d = desc(DType::F32, dims, Mem::Packed(false));
        let b = f32buf(v);
        (d, b)
    };
    let yd = p
        .conv
        .output_dims(
            &desc(DType::F32, &p.xd, Mem::Packed(false)),
            &desc(DType::F32, &p.wd, Mem::Packed(false)),
        )
        .unwrap();
    let (a_dims, b_dims): (&[usize], &[usize]) = match dir {
        ConvDirection::Forward => (&p.xd, &p.wd),
        ConvDirection::BackwardData => (&yd, &p.wd),
        ConvDirection::BackwardWeights => (&p.xd, &yd),
    };
    let (ad, ab) = mk(ins.0, a_dims);
    let (bd, bb) = mk(ins.1, b_dims);
    let mut out = zeros::<f32>(out_dims, Mem::Packed(false));
    let (a, b) = (
        Tensor::new(&ad, ab.as_slice()),
        Tensor::new(&bd, bb.as_slice()),
    );
    match dir {
        ConvDirection::Forward => {
            dnn.convolution_forward(&p.conv, Some(algo), 1.0, a, b, 0.0, out.tm())
        }
        ConvDirection::BackwardData => {
            dnn.convolution_backward_data(&p.conv, Some(algo), 1.0, a, b, 0.0, out.tm())
        }
        ConvDirection::BackwardWeights => {
            dnn.convolution_backward_weights(&p.conv, Some(algo), 1.0, a, b, 0.0, out.tm())
        }
    }
    .unwrap();
    out.logical()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(16))]
    /// Backward-data and backward-weights against finite differences of the forward pass,
    /// for the f64 reference and for every algorithm's f32 kernels, on random problems
    /// (plain and transposed, 2-D and 3-D, groups, padding, stride, dilation).
    ///
    /// L(x, w) = Σ dy·conv(x, w) is bilinear, so the central difference
    /// (L(x + h·e) − L(x − h·e)) / 2h has no truncation error for any h: only rounding.
    /// - Reference (f64): the full gradient with h = 1e-6 (numeric_grad), against
    ///   conv_backward_data / conv_backward_weights within 1e-6·(1 + |fd|) (cancellation
    ///   ~1e-10·|L|).
    /// - Kernels (f32): along a random direction e with h = 1, Σ e·dx (bwd-data kernel)
    ///   against (L(x + e) − L(x − e)) / 2 (same algorithm's forward kernel where it
    ///   applies, else the forward's first applicable one), and likewise
    ///   for w. Each f32 output carries at most γ = 2·K·u times its Σ|terms| (K terms
    ///   summed), so the two sides differ by at most
    ///   γ·(Σ|dy|·conv(|x| + |e|, |w|) + Σ|e|·convᵀ(|w|, |dy|)), and the same with x and w
    ///   exchanged for the weights.
    #[test]
    fn backward_passes_match_finite_differences(p in problem_up_to(3, 2), seed in 0u64..1000) {
        let yd = p.conv.output_dims(
            &desc(DType::F32, &p.xd, Mem::Packed(false)),
            &desc(DType::F32, &p.wd, Mem::Packed(false)),
        ).unwrap();
        let nx: usize = p.xd.iter().product();
        let nw: usize = p.wd.iter().product();
        let ny: usize = yd.iter().product();
        // Inputs rounded to f32 so the kernels see exactly the reference's values.
        let r32 = |v: Vec<f64>| -> Vec<f64> { v.iter().map(|&x| x as f32 as f64).collect() };
        let (x, w, dy) = (r32(rvec(nx, seed)), r32(rvec(nw, seed + 1)), r32(rvec(ny, seed + 2)));
        let (ex, ew) = (r32(rvec(nx, seed + 3)), r32(rvec(nw, seed + 4)));
        let fwd = |x: &[f64], w: &[f64]| r::conv_forward(&p.conv, &p.xd, x, &p.wd, w, &yd, None, Activation::Identity);
        let dx = r::conv_backward_data(&p.conv, &p.xd, &p.wd, &w, &yd, &dy);
        let dw = r::conv_backward_weights(&p.conv, &p.xd, &x, &p.wd, &yd, &dy);
        let fdx = numeric_grad(&|v| fwd(v, &w), &x, &dy);
        let fdw = numeric_grad(&|v| fwd(&x, v), &w, &dy);
        assert_close("reference dx vs fd", &dx, &fdx, |i| 1e-6 * (1.0 + fdx[i].abs()));
        assert_close("reference dw vs fd", &dw, &fdw, |i| 1e-6 * (1.0 + fdw[i].abs()));

        let abs = |v: &[f64]| -> Vec<f64> { v.iter().map(|a| a.abs()).collect() };
        let add = |a: &[f64], b: &[f64]| -> Vec<f64> { a.iter().zip(b).map(|(a, b)| a.abs() + b.abs()).collect() };
        let u = f32::EPSILON as f64 / 2.0;
        let f: usize = p.wd[2..].iter().product();
        let k_chan = ((p.xd[1] + p.wd[0] + p.wd[1]) * f) as f64;
        let k_pos = (p.xd[0] * (nx / p.xd[0] / p.xd[1] + ny / yd[0] / yd[1])) as f64;
        let gamma = 2.0 * k_chan.max(k_pos) * u;
        let sdy: Vec<f64> = abs(&dy);
        for dir in [ConvDirection::BackwardData, ConvDirection::BackwardWeights] {
            let prob = ConvProblem::new(dir, &p.conv, &desc(DType::F32, &p.xd, Mem::Packed(false)),
                &desc(DType::F32, &p.wd, Mem::Packed(false)), &desc(DType::F32, &yd, Mem::Packed(false))).unwrap();
            let fwd_prob = ConvProblem::new(ConvDirection::Forward, &p.conv, &desc(DType::F32, &p.xd, Mem::Packed(false)),
                &desc(DType::F32, &p.wd, Mem::Packed(false)), &desc(DType::F32, &yd, Mem::Packed(false))).unwrap();
            let fwd_algos = fwd_prob.applicable();
            for algo in prob.applicable() {
                // The same algorithm's forward kernel where it applies (a transposed
                // convolution's backward pass may take Winograd while its forward cannot),
                // else the forward's first applicable algorithm.
                let fwd_algo = if fwd_algos.contains(&algo) { algo } else { fwd_algos[0] };
                let l = |x: &[f64], w: &[f64]| dot(&dy, &run_f32(&p, ConvDirection::Forward, fwd_algo, (x, w), &yd));
                let (an, fd, tol) = if dir == ConvDirection::BackwardData {
                    let g = run_f32(&p, dir, algo, (&dy, &w), &p.xd);
                    let xp: Vec<f64> = x.iter().zip(&ex).map(|(a, b)| a + b).collect();
                    let xm: Vec<f64> = x.iter().zip(&ex).map(|(a, b)| a - b).collect();
                    let fd = (l(&xp, &w) - l(&xm, &w)) / 2.0;
                    let af = r::conv_abs_forward(&p.conv, &p.xd, &add(&x, &ex), &p.wd, &abs(&w), &yd);
                    let ab = r::conv_backward_data(&p.conv, &p.xd, &p.wd, &abs(&w), &yd, &sdy);
                    (dot(&ex, &g), fd, gamma * (dot(&sdy, &af) + dot(&abs(&ex), &ab)))
                } else {
                    let g = run_f32(&p, dir, algo, (&x, &dy), &p.wd);
                    let wp: Vec<f64> = w.iter().zip(&ew).map(|(a, b)| a + b).collect();
                    let wm: Vec<f64> = w.iter().zip(&ew).map(|(a, b)| a - b).collect();
                    let fd = (l(&x, &wp) - l(&x, &wm)) / 2.0;
                    let af = r::conv_abs_forward(&p.conv, &p.xd, &abs(&x), &p.wd, &add(&w, &ew), &yd);
                    let ab = r::conv_backward_weights(&p.conv, &p.xd, &abs(&x), &p.wd, &yd, &sdy);
                    (dot(&ew, &g), fd, gamma * (dot(&sdy, &af) + dot(&abs(&ew), &ab)))
                };
                prop_assert!((an - fd).abs() <= tol + 1e-30,
                    "{dir:?} {algo} {p:?}: analytic {an} vs fd {fd} (tol {tol:e})");
            }
        }
    }
}

/// Depthwise convolutions (one channel per group, channel multiplier 1 and 2), 2-D and
/// 3-D, channels-last, in every dtype: every algorithm against the reference.
#[test]
fn depthwise() {
    for (xd, wd, three) in [
        (vec![2, 8, 9, 10], vec![8, 1, 3, 3], false),
        (vec![1, 6, 7, 7], vec![12, 1, 3, 3], false),
        (vec![2, 4, 5, 6, 5], vec![4, 1, 3, 3, 3], true),
    ] {
        let g = xd[1];
        let rank = if three { 3 } else { 2 };
        let conv = ConvDesc::new(
            ConvMode::Convolution,
            &vec![1; rank],
            &vec![1; rank],
            &vec![1; rank],
            g,
        )
        .unwrap();
        let p = Problem {
            conv,
            xd,
            wd,
            mem: Mem::Packed(true),
        };
        check::<f32>(&p, 3);
        check::<f16>(&p, 4);
        check::<bf16>(&p, 5);
    }
}
