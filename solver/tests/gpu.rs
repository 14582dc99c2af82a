//! Every routine on every present device (emulated AMD targets, CUDA when a GPU is
//! present) against the CPU: the hybrid path (panels staged to the host, trailing
//! updates by rocm-blas on the device).
//!
//! Tolerances: the device and the CPU run the same blocked algorithm; only the order of
//! the sums inside the BLAS kernels differs. The factorisations are backward stable, so
//! the residual of a factorisation is at most c·n·u·‖A‖ with a small c (64 is used,
//! LAPACK's test threshold is 30 on a scaled ratio). Eigenvalues and singular values move
//! by at most the norm of the backward error (Weyl), so they match the CPU's within
//! 64·n·u·‖A‖_F as well.
//!
//! The default sweep keeps the emulator runs small (a few sizes, tiny blocks so the
//! blocked path runs); `ROCM_SOLVER_GPU_FULL=1` adds larger and odd sizes.

mod common;

use rocm_core::Device;
use rocm_solver::{Evect, Info, Real, Scalar, Solver, Svect, Transpose, Uplo};

fn devices() -> Vec<Device> {
    let mut out = Vec::new();
    for name in ["emu:gfx908", "emu:gfx90a", "emu:gfx942", "emu:gfx1100"] {
        match Device::open(name) {
            Ok(d) => out.push(d),
            Err(e) => println!("skipping {name}: {e}"),
        }
    }
    match Device::open("cuda:0") {
        Ok(d) => out.push(d),
        Err(e) => println!("skipping cuda:0 (no CUDA device: {e})"),
    }
    out
}

fn sizes() -> Vec<usize> {
    if std::env::var("ROCM_SOLVER_GPU_FULL").is_ok_and(|v| v == "1") {
        vec![0, 1, 2, 7, 13, 17, 31, 40]
    } else {
        vec![0, 1, 5, 11]
    }
}

fn solver_on(dev: &Device) -> Solver {
    Solver::new(dev).with_block_sizes(common::TINY)
}

/// A deterministic pseudo-random m×n matrix with leading dimension ld (padding NaN-free
/// but distinct, so a write outside the matrix shows).
fn matrix<T: Scalar>(m: usize, n: usize, ld: usize, seed: u64, complex: bool) -> Vec<T> {
    let mut rng = common::rng(seed);
    let w = common::random(&mut rng, m, n, complex);
    let mut a = vec![T::from_f64(7.0); (ld * n).max(1)];
    for j in 0..n {
        for i in 0..m {
            a[i + j * ld] = T::from_c64(w.at(i, j));
        }
    }
    a
}

fn max_abs<T: Scalar>(a: &[T], m: usize, n: usize, ld: usize) -> f64 {
    let mut r: f64 = 0.0;
    for j in 0..n {
        for i in 0..m {
            r = r.max(a[i + j * ld].to_c64().norm());
        }
    }
    r
}

fn bound<T: Scalar>(n: usize, norm: f64) -> f64 {
    64.0 * (n.max(1) as f64) * T::eps().as_f64() * norm.max(1.0)
}

/// ||P·A − L·U||_max from the packed factors (host, in f64).
fn lu_residual<T: Scalar>(a0: &[T], lu: &[T], ipiv: &[i32], n: usize, ld: usize) -> f64 {
    let mut pa: Vec<_> = (0..n * n)
        .map(|k| a0[k % n + (k / n) * ld].to_c64())
        .collect();
    for (i, &p) in ipiv.iter().enumerate() {
        let p = (p - 1) as usize;
        for j in 0..n {
            pa.swap(i + j * n, p + j * n);
        }
    }
    let mut r: f64 = 0.0;
    for j in 0..n {
        for i in 0..n {
            let mut s = num_complex::Complex64::new(0.0, 0.0);
            for k in 0..=i.min(j) {
                let l = if k == i {
                    num_complex::Complex64::new(1.0, 0.0)
                } else {
                    lu[i + k * ld].to_c64()
                };
                s += l * lu[k + j * ld].to_c64();
            }
            r = r.max((pa[i + j * n] - s).norm());
        }
    }
    r
}

fn getrf_gesv_case<T: Scalar>(dev: &Device, complex: bool) {
    let s = solver_on(dev);
    for n in sizes() {
        let ld = n + 2;
        let a0 = matrix::<T>(n, n, ld, 11 + n as u64, complex);
        let mut a = dev.upload(&a0).unwrap();
        let mut ipiv = dev.alloc::<i32>(n.max(1)).unwrap();
        let info = s
            .getrf(n, n, &mut a.as_slice_mut(), ld, &mut ipiv.as_slice_mut())
            .unwrap();
        assert_eq!(info, Info::OK, "{dev} getrf n={n}");
        let lu = a.to_vec().unwrap();
        let piv = ipiv.to_vec().unwrap();
        let r = lu_residual(&a0, &lu, &piv[..n], n, ld);
        let tol = bound::<T>(n, max_abs(&a0, n, n, ld));
        assert!(r <= tol, "{dev} getrf n={n}: residual {r} > {tol}");
        // Padding rows untouched.
        for j in 0..n {
            for i in n..ld {
                assert_eq!(lu[i + j * ld], a0[i + j * ld], "{dev} getrf wrote padding");
            }
        }
        // GETRS against the CPU's solution of the same factors.
        let nrhs = 3;
        let b0 = matrix::<T>(n, nrhs, ld, 99, complex);
        let mut b = dev.upload(&b0).unwrap();
        s.getrs(
            Transpose::N,
            n,
            nrhs,
            &a.as_slice(),
            ld,
            &ipiv.as_slice(),
            &mut b.as_slice_mut(),
            ld,
        )
        .unwrap();
        let x = b.to_vec().unwrap();
        let cpu = Device::cpu();
        let sc = solver_on(&cpu);
        let ca = cpu.upload(&lu).unwrap();
        let cp = cpu.upload(&piv).unwrap();
        let mut cb = cpu.upload(&b0).unwrap();
        sc.getrs(
            Transpose::N,
            n,
            nrhs,
            &ca.as_slice(),
            ld,
            &cp.as_slice(),
            &mut cb.as_slice_mut(),
            ld,
        )
        .unwrap();
        let xc = cb.to_vec().unwrap();
        let scale = max_abs(&xc, n, nrhs, ld);
        // Same factors, different summation order: a perturbation of the triangular
        // solves, amplified by cond(A); random matrices of these orders have cond < 1e3.
        let tol = 1e3 * bound::<T>(n, scale);
        for k in 0..x.len() {
            let d = (x[k].to_c64() - xc[k].to_c64()).norm();
            assert!(d <= tol, "{dev} getrs n={n} k={k}: {d} > {tol}");
        }
    }
    // Singular: a zero column gives info at its position.
    let n = 6;
    let mut a0 = matrix::<T>(n, n, n, 5, complex);
    (0..n).for_each(|i| a0[i + 3 * n] = T::zero());
    let mut a = dev.upload(&a0).unwrap();
    let mut ipiv = dev.alloc::<i32>(n).unwrap();
    let info = s
        .getrf(n, n, &mut a.as_slice_mut(), n, &mut ipiv.as_slice_mut())
        .unwrap();
    assert_eq!(info, Info(4), "{dev} singular getrf");
}

fn potrf_case<T: Scalar>(dev: &Device, complex: bool) {
    let s = solver_on(dev);
    for n in sizes() {
        let ld = n + 1;
        // A = B·Bᴴ + n·I (Hermitian positive definite).
        let b = matrix::<T>(n, n, n.max(1), 3 + n as u64, complex);
        let mut a0 = vec![T::from_f64(5.0); (ld * n).max(1)];
        for j in 0..n {
            for i in 0..n {
                let mut acc = num_complex::Complex64::new(0.0, 0.0);
                for k in 0..n {
                    acc += b[i + k * n].to_c64() * b[j + k * n].to_c64().conj();
                }
                if i == j {
                    acc += n as f64;
                }
                a0[i + j * ld] = T::from_c64(acc);
            }
        }
        let mut a = dev.upload(&a0).unwrap();
        let info = s.potrf(Uplo::Lower, n, &mut a.as_slice_mut(), ld).unwrap();
        assert_eq!(info, Info::OK, "{dev} potrf n={n}");
        let l = a.to_vec().unwrap();
        let mut r: f64 = 0.0;
        for j in 0..n {
            for i in j..n {
                let mut acc = num_complex::Complex64::new(0.0, 0.0);
                for k in 0..=j {
                    acc += l[i + k * ld].to_c64() * l[j + k * ld].to_c64().conj();
                }
                r = r.max((acc - a0[i + j * ld].to_c64()).norm());
            }
        }
        let tol = bound::<T>(n, max_abs(&a0, n, n, ld));
        assert!(r <= tol, "{dev} potrf n={n}: residual {r} > {tol}");
    }
    // Not positive definite at order 3.
    let n = 5;
    let mut a0 = vec![T::zero(); n * n];
    (0..n).for_each(|i| a0[i + i * n] = T::from_f64(if i == 2 { -1.0 } else { 2.0 }));
    let mut a = dev.upload(&a0).unwrap();
    let info = s.potrf(Uplo::Lower, n, &mut a.as_slice_mut(), n).unwrap();
    assert_eq!(info, Info(3), "{dev} non-SPD potrf");
}

/// Runs `f` on `dev` and on the CPU and compares the real outputs it returns.
fn against_cpu<T: Scalar>(
    dev: &Device,
    what: &str,
    n: usize,
    norm: f64,
    f: impl Fn(&Solver, &Device) -> Vec<f64>,
) {
    let cpu = Device::cpu();
    let want = f(&solver_on(&cpu), &cpu);
    let got = f(&solver_on(dev), dev);
    assert_eq!(want.len(), got.len());
    let tol = bound::<T>(n, norm);
    for (k, (w, g)) in want.iter().zip(&got).enumerate() {
        assert!(
            (w - g).abs() <= tol,
            "{dev} {what} n={n} k={k}: {g} vs {w} (tol {tol})"
        );
    }
}

fn orthogonal_case<T: Scalar>(dev: &Device, complex: bool) {
    for n in sizes() {
        let (m, ld) = (n + 3, n + 5);
        let a0 = matrix::<T>(m, n, ld, 21 + n as u64, complex);
        let norm = max_abs(&a0, m, n, ld) * (m * n).max(1) as f64;
        // GEQRF: |R| on and above the diagonal.
        against_cpu::<T>(dev, "geqrf", m, norm, |s, d| {
            let mut a = d.upload(&a0).unwrap();
            let mut tau = d.alloc::<T>(n.max(1)).unwrap();
            s.geqrf(m, n, &mut a.as_slice_mut(), ld, &mut tau.as_slice_mut())
                .unwrap();
            let r = a.to_vec().unwrap();
            (0..n)
                .flat_map(|j| (0..=j).map(move |i| (i, j)))
                .map(|(i, j)| r[i + j * ld].to_c64().norm())
                .collect()
        });
        // GESVD: singular values.
        against_cpu::<T>(dev, "gesvd", m, norm, |s, d| {
            let mut a = d.upload(&a0).unwrap();
            let mut sv = d.alloc::<T::Real>(n.max(1)).unwrap();
            let mut u = d.alloc::<T>(1).unwrap();
            let mut vt = d.alloc::<T>(1).unwrap();
            let info = s
                .gesvd(
                    Svect::None,
                    Svect::None,
                    m,
                    n,
                    &mut a.as_slice_mut(),
                    ld,
                    &mut sv.as_slice_mut(),
                    &mut u.as_slice_mut(),
                    1,
                    &mut vt.as_slice_mut(),
                    1,
                )
                .unwrap();
            assert_eq!(info, Info::OK);
            sv.to_vec().unwrap()[..n]
                .iter()
                .map(|x| x.as_f64())
                .collect()
        });
        // SYEVD/HEEVD: eigenvalues of the Hermitian part.
        let mut h = vec![T::zero(); (ld * n).max(1)];
        for j in 0..n {
            for i in 0..n {
                h[i + j * ld] =
                    T::from_c64((a0[i + j * ld].to_c64() + a0[j + i * ld].to_c64().conj()) * 0.5);
            }
        }
        against_cpu::<T>(dev, "syevd", n, norm, |s, d| {
            let mut a = d.upload(&h).unwrap();
            let mut w = d.alloc::<T::Real>(n.max(1)).unwrap();
            let info = s
                .syevd(
                    Evect::None,
                    Uplo::Lower,
                    n,
                    &mut a.as_slice_mut(),
                    ld,
                    &mut w.as_slice_mut(),
                )
                .unwrap();
            assert_eq!(info, Info::OK);
            w.to_vec().unwrap()[..n]
                .iter()
                .map(|x| x.as_f64())
                .collect()
        });
    }
}

fn all_cases<T: Scalar>(complex: bool) {
    for dev in devices() {
        let s = solver_on(&dev);
        assert!(s.explain("getrf").contains("hybrid") || dev.kind() == rocm_core::BackendKind::Cpu);
        getrf_gesv_case::<T>(&dev, complex);
        potrf_case::<T>(&dev, complex);
        orthogonal_case::<T>(&dev, complex);
    }
}

#[test]
fn gpu_f32() {
    all_cases::<f32>(false);
}

#[test]
fn gpu_f64() {
    all_cases::<f64>(false);
}

#[test]
fn gpu_c32() {
    all_cases::<num_complex::Complex32>(true);
}

#[test]
fn gpu_c64() {
    all_cases::<num_complex::Complex64>(true);
}
