//! Layouts: strides, distances, offsets, in/out of place and batches against the
//! reference, and the validation errors.
//!
//! Tolerance: 8·ε·√max(1, log2 N) relative L2 per batch (ε of the plan's precision),
//! twice the smooth-size acceptance bound: these sizes are all smooth or small, and the
//! check is about where data goes, which a misplaced element breaks by O(1).

mod common;
use common::*;
use proptest::prelude::*;
use rocm_core::{Complex32, Device, DeviceBuffer, Error};
use rocm_fft::{Layout, Placement, PlanBuilder, Precision, TransformType};

fn tol(p: Precision, lens: &[usize]) -> f64 {
    let n: usize = lens.iter().product();
    8.0 * p.compute_eps() * (n as f64).log2().max(1.0).sqrt()
}

const KINDS: [TransformType; 4] = [
    TransformType::ComplexForward,
    TransformType::ComplexInverse,
    TransformType::RealForward,
    TransformType::RealInverse,
];

/// A strided, padded, offset layout for `lens` (innermost first): each dimension's
/// stride is `inner_stride` for axis 0 and the previous extent plus `pad` after that;
/// batches `gap` apart after the last extent.
fn padded(lens: &[usize], inner_stride: usize, pad: usize, gap: usize, offset: usize) -> Layout {
    let mut strides = Vec::new();
    let mut s = inner_stride;
    for &l in lens {
        strides.push(s);
        s = s * l + pad;
    }
    Layout::new(&strides, s + gap, offset)
}

#[test]
fn every_kind_rank_and_placement_with_defaults() {
    for kind in KINDS {
        for lens in [
            vec![16usize],
            vec![15],
            vec![6, 5],
            vec![4, 3, 5],
            vec![1],
            vec![2, 1, 3],
        ] {
            for placement in [Placement::NotInPlace, Placement::InPlace] {
                for batch in [1, 3] {
                    let e32 = layout_case::<f32>(kind, &lens, batch, None, None, placement, 5)
                        .unwrap_or_else(|e| panic!("{kind:?} {lens:?} {placement:?}: {e}"));
                    assert!(
                        e32 <= tol(Precision::F32, &lens),
                        "{kind:?} {lens:?} {placement:?} b{batch}: {e32:e}"
                    );
                    let e64 = layout_case::<f64>(kind, &lens, batch, None, None, placement, 6)
                        .unwrap_or_else(|e| panic!("{kind:?} {lens:?} {placement:?}: {e}"));
                    assert!(
                        e64 <= tol(Precision::F64, &lens),
                        "{kind:?} {lens:?} {placement:?} b{batch}: {e64:e}"
                    );
                }
            }
        }
    }
}

/// 1-D lengths whose first Stockham pass has a number of values per transform that
/// is not a multiple of the vector lanes (the short first pass, whose last vector
/// overlaps the one before), with batches, inner strides and gaps between batches,
/// in and out of place, both directions and precisions.
#[test]
fn short_first_pass_layouts() {
    layouts_1d(&[20, 40, 44, 72, 120, 216, 360, 12, 24], &[1, 3, 7]);
}

/// 1-D lengths whose transforms run whole, one at a time, with two passes in
/// registers or through the output (64 = 8 × 8, 128 = 8 × 16, 256 = 16 × 16, with
/// 32 and 512 around them), or a vector's lanes of them at a time (24, 27, 72), in
/// the same layouts; 40 transforms span several of the
/// chunks that the direct path runs together.
#[test]
fn whole_transform_layouts() {
    layouts_1d(&[32, 64, 128, 256, 512, 24, 27, 72], &[1, 3, 7, 40]);
}

/// Every length of `lens` in `batches` transforms, with inner strides and gaps
/// between batches, in and out of place, both directions and precisions.
fn layouts_1d(lens: &[usize], batches: &[usize]) {
    for &n in lens {
        for &batch in batches {
            for &(stride, gap) in &[(1usize, 0usize), (2, 3), (1, 5)] {
                for placement in [Placement::NotInPlace, Placement::InPlace] {
                    for kind in [TransformType::ComplexForward, TransformType::ComplexInverse] {
                        let l = padded(&[n], stride, 0, gap, 1);
                        let outl = match placement {
                            Placement::InPlace => None,
                            Placement::NotInPlace => Some(padded(&[n], 1, 0, 0, 0)),
                        };
                        let seed = (n * 31 + batch) as u64;
                        let e32 = layout_case::<f32>(
                            kind,
                            &[n],
                            batch,
                            Some(l.clone()),
                            outl.clone(),
                            placement,
                            seed,
                        )
                        .expect("f32 case");
                        let e64 =
                            layout_case::<f64>(kind, &[n], batch, Some(l), outl, placement, seed)
                                .expect("f64 case");
                        let what = format!(
                            "{kind:?} {n} batch {batch} stride {stride} gap {gap} {placement:?}"
                        );
                        assert!(e32 <= tol(Precision::F32, &[n]), "{what}: f32 {e32:e}");
                        assert!(e64 <= tol(Precision::F64, &[n]), "{what}: f64 {e64:e}");
                    }
                }
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// Out-of-place strided layouts for every kind, rank 1 to 3.
    #[test]
    fn strided_out_of_place(
        kind in 0usize..4,
        lens in prop::collection::vec(1usize..12, 1..=3),
        batch in 1usize..4,
        s_in in 1usize..3, pad_in in 0usize..3, gap_in in 0usize..4, off_in in 0usize..5,
        s_out in 1usize..3, pad_out in 0usize..3, gap_out in 0usize..4, off_out in 0usize..5,
        f64p in any::<bool>(),
        seed in any::<u64>(),
    ) {
        let kind = KINDS[kind];
        let mut c_lens = lens.clone();
        if kind.is_real() {
            c_lens[0] = lens[0] / 2 + 1;
        }
        let in_lens = if kind == TransformType::RealForward { &lens } else { &c_lens };
        let out_lens = if kind == TransformType::RealInverse { &lens } else { &c_lens };
        let il = padded(in_lens, s_in, pad_in, gap_in, off_in);
        let ol = padded(out_lens, s_out, pad_out, gap_out, off_out);
        let (e, p) = if f64p {
            (layout_case::<f64>(kind, &lens, batch, Some(il), Some(ol), Placement::NotInPlace, seed), Precision::F64)
        } else {
            (layout_case::<f32>(kind, &lens, batch, Some(il), Some(ol), Placement::NotInPlace, seed), Precision::F32)
        };
        let e = e.map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert!(e <= tol(p, &lens), "{kind:?} {lens:?} batch {batch}: {e:e}");
    }

    /// In-place complex transforms with interleaved batches (distance 1) or padding.
    #[test]
    fn strided_in_place_complex(
        lens in prop::collection::vec(1usize..10, 1..=3),
        batch in 1usize..4,
        interleave in any::<bool>(),
        pad in 0usize..3,
        off in 0usize..4,
        fwd in any::<bool>(),
        seed in any::<u64>(),
    ) {
        let kind = if fwd { TransformType::ComplexForward } else { TransformType::ComplexInverse };
        let l = if interleave {
            padded(&lens, batch, 0, 0, off).with_distance(1)
        } else {
            padded(&lens, 1, pad, pad, off)
        };
        let e = layout_case::<f32>(kind, &lens, batch, Some(l), None, Placement::InPlace, seed)
            .map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert!(e <= tol(Precision::F32, &lens), "{lens:?}: {e:e}");
    }
}

trait WithDistance {
    fn with_distance(self, d: usize) -> Self;
}
impl WithDistance for Layout {
    fn with_distance(mut self, d: usize) -> Self {
        self.distance = d;
        self
    }
}

#[test]
fn scale_factor_and_half_precision() {
    // A normalised inverse recovers the input.
    let dev = Device::cpu();
    let n = 48;
    let x = random_c(n, 3);
    let xs: Vec<Complex32> = x
        .iter()
        .map(|z| Complex32::new(z.re as f32, z.im as f32))
        .collect();
    let fwd = PlanBuilder::new(TransformType::ComplexForward, &[n])
        .build(&dev)
        .unwrap();
    let inv = PlanBuilder::new(TransformType::ComplexInverse, &[n])
        .scale(1.0 / n as f64)
        .build(&dev)
        .unwrap();
    let a = DeviceBuffer::from_slice(&dev, &xs).unwrap();
    let mut b = DeviceBuffer::<Complex32>::zeros(&dev, n).unwrap();
    let mut c = DeviceBuffer::<Complex32>::zeros(&dev, n).unwrap();
    fwd.execute(
        dev.default_stream(),
        &a.as_slice(),
        &mut b.as_slice_mut(),
        None,
    )
    .unwrap();
    inv.execute(
        dev.default_stream(),
        &b.as_slice(),
        &mut c.as_slice_mut(),
        None,
    )
    .unwrap();
    let back: Vec<C64> = c
        .to_vec()
        .unwrap()
        .iter()
        .map(|z| C64::new(z.re as f64, z.im as f64))
        .collect();
    assert!(
        rocm_fft::reference::rel_l2(&back, &round32(&x)) < 2.0 * bound(Precision::F32, n, false)
    );

    // f16 storage, f32 compute: error is dominated by rounding the output to f16
    // (ε_f16 = 2^-10; relative L2 of rounding ≤ ε/2, plus the input's rounding carried
    // through the unitary-up-to-√N transform, another ε/2).
    for (p, e) in [
        (Precision::F16, half::f16::EPSILON.to_f64()),
        (Precision::Bf16, half::bf16::EPSILON.to_f64()),
    ] {
        let plan = PlanBuilder::new(TransformType::ComplexForward, &[n])
            .precision(p)
            .build(&dev)
            .unwrap();
        let (inp, got): (Vec<C64>, Vec<C64>) = match p {
            Precision::F16 => {
                let h: Vec<half::f16> = x
                    .iter()
                    .flat_map(|z| [half::f16::from_f64(z.re), half::f16::from_f64(z.im)])
                    .collect();
                let a = DeviceBuffer::from_slice(&dev, &h).unwrap();
                let mut o = DeviceBuffer::<half::f16>::zeros(&dev, 2 * n).unwrap();
                plan.execute(
                    dev.default_stream(),
                    &a.as_slice(),
                    &mut o.as_slice_mut(),
                    None,
                )
                .unwrap();
                let o = o.to_vec().unwrap();
                (
                    h.chunks(2)
                        .map(|c| C64::new(c[0].to_f64(), c[1].to_f64()))
                        .collect(),
                    o.chunks(2)
                        .map(|c| C64::new(c[0].to_f64(), c[1].to_f64()))
                        .collect(),
                )
            }
            _ => {
                let h: Vec<half::bf16> = x
                    .iter()
                    .flat_map(|z| [half::bf16::from_f64(z.re), half::bf16::from_f64(z.im)])
                    .collect();
                let a = DeviceBuffer::from_slice(&dev, &h).unwrap();
                let mut o = DeviceBuffer::<half::bf16>::zeros(&dev, 2 * n).unwrap();
                plan.execute(
                    dev.default_stream(),
                    &a.as_slice(),
                    &mut o.as_slice_mut(),
                    None,
                )
                .unwrap();
                let o = o.to_vec().unwrap();
                (
                    h.chunks(2)
                        .map(|c| C64::new(c[0].to_f64(), c[1].to_f64()))
                        .collect(),
                    o.chunks(2)
                        .map(|c| C64::new(c[0].to_f64(), c[1].to_f64()))
                        .collect(),
                )
            }
        };
        let want = rocm_fft::reference::fft_f64(&inp, true);
        let err = rocm_fft::reference::rel_l2(&got, &want);
        assert!(err <= e, "{p}: {err:e}");
        assert!(err > 0.0);
    }
}

#[test]
fn caller_work_buffer() {
    let dev = Device::cpu();
    let n = 1 << 16;
    let plan = PlanBuilder::new(TransformType::ComplexForward, &[n])
        .build(&dev)
        .unwrap();
    assert!(plan.work_buffer_size() >= plan.min_work_buffer_size());
    let x = DeviceBuffer::from_slice(&dev, &vec![Complex32::new(1.0, 0.0); n]).unwrap();
    let mut y = DeviceBuffer::<Complex32>::zeros(&dev, n).unwrap();
    let mut w = DeviceBuffer::<u8>::zeros(&dev, plan.work_buffer_size()).unwrap();
    plan.execute(
        dev.default_stream(),
        &x.as_slice(),
        &mut y.as_slice_mut(),
        Some(&mut w.as_slice_mut()),
    )
    .unwrap();
    let y = y.to_vec().unwrap();
    assert!((y[0].re - n as f32).abs() < 1e-2 && y[1..].iter().all(|z| z.norm() < 1e-2));
    let mut small = DeviceBuffer::<u8>::zeros(&dev, plan.min_work_buffer_size() - 8).unwrap();
    let mut y2 = DeviceBuffer::<Complex32>::zeros(&dev, n).unwrap();
    let e = plan.execute(
        dev.default_stream(),
        &x.as_slice(),
        &mut y2.as_slice_mut(),
        Some(&mut small.as_slice_mut()),
    );
    assert!(
        matches!(e, Err(Error::InvalidArgument { ref what, .. }) if what == "work buffer"),
        "{e:?}"
    );
}

fn invalid(r: Result<rocm_fft::Plan, Error>, what: &str) {
    match r {
        Err(Error::InvalidArgument { what: w, why }) => {
            assert_eq!(w, what, "{why}");
            assert!(!why.is_empty());
        }
        other => panic!("expected InvalidArgument({what}), got {other:?}"),
    }
}

#[test]
fn validation_errors() {
    let dev = Device::cpu();
    let c2c = |l: &[usize]| PlanBuilder::new(TransformType::ComplexForward, l);
    invalid(c2c(&[]).build(&dev), "lengths");
    invalid(c2c(&[4, 4, 4, 4]).build(&dev), "lengths");
    invalid(c2c(&[4, 0]).build(&dev), "lengths");
    invalid(c2c(&[4]).batch(0).build(&dev), "batch");
    invalid(c2c(&[4]).scale(f64::NAN).build(&dev), "scale");
    invalid(
        c2c(&[4])
            .input_layout(Layout::new(&[1, 4], 16, 0))
            .build(&dev),
        "input layout",
    );
    // Overlapping batches: distance smaller than the transform.
    invalid(
        c2c(&[8])
            .batch(2)
            .output_layout(Layout::new(&[1], 4, 0))
            .build(&dev),
        "output layout",
    );
    // Overlap inside one transform.
    invalid(
        c2c(&[4, 4])
            .output_layout(Layout::new(&[1, 2], 16, 0))
            .build(&dev),
        "output layout",
    );
    // In-place with different layouts.
    invalid(
        c2c(&[8])
            .placement(Placement::InPlace)
            .input_layout(Layout::new(&[1], 8, 0))
            .output_layout(Layout::new(&[2], 16, 0))
            .build(&dev),
        "output layout",
    );
    // In-place R2C without padding: rows of 8 reals cannot hold 5 complex values.
    invalid(
        PlanBuilder::new(TransformType::RealForward, &[8, 4])
            .placement(Placement::InPlace)
            .input_layout(Layout::new(&[1, 8], 32, 0))
            .output_layout(Layout::new(&[1, 5], 20, 0))
            .build(&dev),
        "input layout",
    );
    invalid(
        PlanBuilder::new(TransformType::RealForward, &[8])
            .batch(2)
            .placement(Placement::InPlace)
            .input_layout(Layout::new(&[1], 8, 0))
            .output_layout(Layout::new(&[1], 5, 0))
            .build(&dev),
        "input layout",
    );

    // Buffers too small, wrong dtype, wrong placement.
    let plan = c2c(&[16]).batch(2).build(&dev).unwrap();
    let x = DeviceBuffer::<Complex32>::zeros(&dev, 31).unwrap();
    let mut y = DeviceBuffer::<Complex32>::zeros(&dev, 32).unwrap();
    let e = plan.execute(
        dev.default_stream(),
        &x.as_slice(),
        &mut y.as_slice_mut(),
        None,
    );
    assert!(
        matches!(e, Err(Error::InvalidArgument { ref what, .. }) if what == "input"),
        "{e:?}"
    );
    let x = DeviceBuffer::<Complex32>::zeros(&dev, 32).unwrap();
    let mut y = DeviceBuffer::<Complex32>::zeros(&dev, 30).unwrap();
    let e = plan.execute(
        dev.default_stream(),
        &x.as_slice(),
        &mut y.as_slice_mut(),
        None,
    );
    assert!(
        matches!(e, Err(Error::InvalidArgument { ref what, .. }) if what == "output"),
        "{e:?}"
    );
    let xd = DeviceBuffer::<f64>::zeros(&dev, 64).unwrap();
    let e = plan.execute(
        dev.default_stream(),
        &xd.as_slice(),
        &mut y.as_slice_mut(),
        None,
    );
    assert!(matches!(e, Err(Error::InvalidArgument { .. })), "{e:?}");
    let mut z = DeviceBuffer::<Complex32>::zeros(&dev, 32).unwrap();
    assert!(plan
        .execute_in_place(dev.default_stream(), &mut z.as_slice_mut(), None)
        .is_err());
    // Interleaved f32 storage of complex data is accepted.
    let xf = DeviceBuffer::<f32>::zeros(&dev, 64).unwrap();
    let mut yf = DeviceBuffer::<f32>::zeros(&dev, 64).unwrap();
    plan.execute(
        dev.default_stream(),
        &xf.as_slice(),
        &mut yf.as_slice_mut(),
        None,
    )
    .unwrap();
}
