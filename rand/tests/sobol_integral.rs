//! Sobol's low discrepancy, checked by integrating functions with known integrals over
//! the unit cube with the generator's points (through the public host API, so the
//! layout, the transforms and the direction numbers are all in the loop).
//!
//! - One dimension: the first 2^k points of dimension 0 are {i/2^k} (shifted by the
//!   uniform transform's 2⁻³²), whose star discrepancy is 2^−k, so by Koksma–Hlawka the
//!   error of ∫x² = 1/3 is at most V(x²)·D* + the shift = 2^−k + 2⁻³¹.
//! - Five dimensions: Sobol's g-function Π (|4x_j − 2| + a_j)/(1 + a_j), a_j = j, whose
//!   integral is 1. Koksma–Hlawka's bound V_HK·D*_N with the net bound D*_N ≤ c·(log
//!   N)^5/N is far above the error at these N, so the test states the observed rate
//!   instead: the error at N = 2^k points stays below k/(8N) (observed: at most 0.43/N
//!   at k = 12, 15, 18, against k/8 ≥ 1.5), which is also under a fiftieth of Monte
//!   Carlo's standard error σ/√N
//!   (σ² = Π(1 + 1/(3(1 + a_j)²)) − 1 ≈ 0.139), so pseudo-random points, a repeated
//!   dimension or wrong direction numbers fail it.

use rocm_core::{Device, DeviceBuffer};
use rocm_rand::{Generator, Kind};

/// `n` points of `dims` dimensions as rows of uniform f64 values, from point `offset`.
fn points(kind: Kind, dims: u32, n: usize, offset: u64) -> Vec<Vec<f64>> {
    let dev = Device::open("cpu").unwrap();
    let mut g = Generator::new(&dev, kind).unwrap();
    g.set_dimensions(dims).unwrap();
    g.set_offset(offset);
    let mut buf = DeviceBuffer::<f64>::zeros(&dev, n * dims as usize).unwrap();
    g.generate_uniform(&mut buf.as_slice_mut()).unwrap();
    let v = buf.to_vec().unwrap();
    // Dimension d's points are out[d·n ..(d + 1)·n].
    (0..n)
        .map(|i| (0..dims as usize).map(|d| v[d * n + i]).collect())
        .collect()
}

fn g_function(x: &[f64]) -> f64 {
    x.iter()
        .enumerate()
        .map(|(j, &x)| {
            let a = (j + 1) as f64;
            ((4.0 * x - 2.0).abs() + a) / (1.0 + a)
        })
        .product()
}

#[test]
fn one_dimension_meets_koksma_hlawka() {
    for kind in [Kind::Sobol32, Kind::Sobol64] {
        for k in [4u32, 10, 16] {
            let n = 1usize << k;
            let mean: f64 = points(kind, 1, n, 0)
                .iter()
                .map(|p| p[0] * p[0])
                .sum::<f64>()
                / n as f64;
            let err = (mean - 1.0 / 3.0).abs();
            let bound = 2f64.powi(-(k as i32)) + 2f64.powi(-31);
            assert!(
                err <= bound,
                "{kind:?} 2^{k} points: error {err:e} > {bound:e}"
            );
        }
    }
}

#[test]
fn five_dimensions_converge_at_the_quasi_monte_carlo_rate() {
    let sigma = ((1..=5)
        .map(|j| 1.0 + 1.0 / (3.0 * (1.0 + j as f64).powi(2)))
        .product::<f64>()
        - 1.0)
        .sqrt();
    for kind in [Kind::Sobol32, Kind::Sobol64] {
        for k in [12u32, 15, 18] {
            let n = 1usize << k;
            let pts = points(kind, 5, n, 0);
            let est: f64 = pts.iter().map(|p| g_function(p)).sum::<f64>() / n as f64;
            let err = (est - 1.0).abs();
            let rate = k as f64 / (8.0 * n as f64);
            let mc = sigma / (n as f64).sqrt();
            println!("{kind:?} 2^{k}: error {err:.3e} (rate bound {rate:.3e}, MC σ/√N {mc:.3e})");
            assert!(
                err <= rate,
                "{kind:?} 2^{k}: error {err:e} > k/(8N) = {rate:e}"
            );
            assert!(
                err <= mc / 50.0,
                "{kind:?} 2^{k}: error {err:e} not under MC's {mc:e}/50"
            );
        }
    }
}

/// The same rate from a later start: an offset is a skip-ahead along each dimension,
/// and any 2^k consecutive points from a multiple of 2^k form a net too.
#[test]
fn an_offset_continues_the_sequence() {
    let k = 14;
    let n = 1usize << k;
    let pts = points(Kind::Sobol32, 5, n, 3 << k);
    let est: f64 = pts.iter().map(|p| g_function(p)).sum::<f64>() / n as f64;
    let err = (est - 1.0).abs();
    assert!(err <= k as f64 / (8.0 * n as f64), "error {err:e}");
    // And the offset's points are the later points of one long call.
    let long = points(Kind::Sobol32, 5, 4 * n, 0);
    assert_eq!(pts[..], long[3 * n..]);
}

/// The Monte Carlo comparison discriminates: pseudo-random points meet "under a
/// fiftieth of σ/√N" with probability P(|Z| < 1/50) ≈ 0.016 each, so of eight seeds
/// at most one does (all eight fixed, so the test is deterministic).
#[test]
fn pseudo_random_points_miss_the_bound() {
    let sigma = ((1..=5)
        .map(|j| 1.0 + 1.0 / (3.0 * (1.0 + j as f64).powi(2)))
        .product::<f64>()
        - 1.0)
        .sqrt();
    let dev = Device::open("cpu").unwrap();
    let n = 1usize << 15;
    let mc = sigma / (n as f64).sqrt();
    let mut met = 0;
    for seed in 1..=8 {
        let mut g = Generator::new(&dev, Kind::Philox4x32_10).unwrap();
        g.set_seed(seed);
        let mut buf = DeviceBuffer::<f64>::zeros(&dev, 5 * n).unwrap();
        g.generate_uniform(&mut buf.as_slice_mut()).unwrap();
        let v = buf.to_vec().unwrap();
        let est: f64 = v.chunks(5).map(g_function).sum::<f64>() / n as f64;
        met += ((est - 1.0).abs() <= mc / 50.0) as u32;
    }
    assert!(
        met <= 1,
        "{met} of 8 pseudo-random estimates met the quasi-random bound"
    );
}
