//! The C ABI from Rust: bad input goes to XERBLA (never a crash), and concurrent calls
//! from many threads give the single-threaded answer.

use rocm_capi::blas1::ddot_;
use rocm_capi::blas2::dgemv_;
use rocm_capi::blas3::dgemm_;
use rocm_capi::lapack::dgetrf_;
use rocm_capi::take_last_error;
use std::ffi::c_char;
use std::ptr::{null, null_mut};

fn c(s: &u8) -> *const c_char {
    (s as *const u8).cast()
}

/// C = A·B by the definition, the reference for the thread test.
fn matmul(m: usize, n: usize, k: usize, a: &[f64], b: &[f64]) -> Vec<f64> {
    let mut out = vec![0.0; m * n];
    for j in 0..n {
        for i in 0..m {
            out[i + j * m] = (0..k).map(|p| a[i + p * m] * b[p + j * k]).sum();
        }
    }
    out
}

#[allow(clippy::too_many_arguments)] // DGEMM's own argument list
unsafe fn gemm(
    m: i32,
    n: i32,
    k: i32,
    a: *const f64,
    lda: i32,
    b: *const f64,
    ldb: i32,
    cm: *mut f64,
    ldc: i32,
) {
    let (one, zero) = (1.0f64, 0.0f64);
    unsafe {
        dgemm_(
            c(&b'N'),
            c(&b'N'),
            &m,
            &n,
            &k,
            &one,
            a,
            &lda,
            b,
            &ldb,
            &zero,
            cm,
            &ldc,
            1,
            1,
        )
    };
}

#[test]
fn bad_input_goes_to_xerbla() {
    let a = [1.0f64; 16];
    let mut out = [0.0f64; 16];
    let _ = take_last_error();
    // SAFETY (each call): the arrays hold what a valid call of these sizes touches; the
    // invalid arguments are rejected before any access.
    unsafe {
        // Null A with nonzero sizes: position 7 (A) of DGEMM.
        gemm(2, 2, 2, null(), 2, a.as_ptr(), 2, out.as_mut_ptr(), 2);
        assert_eq!(take_last_error(), Some(("DGEMM".into(), 7)));
        // Negative M: position 3.
        gemm(-1, 2, 2, a.as_ptr(), 2, a.as_ptr(), 2, out.as_mut_ptr(), 2);
        assert_eq!(take_last_error(), Some(("DGEMM".into(), 3)));
        // LDA < M: position 8.
        gemm(4, 2, 2, a.as_ptr(), 3, a.as_ptr(), 2, out.as_mut_ptr(), 4);
        assert_eq!(take_last_error(), Some(("DGEMM".into(), 8)));
        // Null C: position 12.
        gemm(2, 2, 2, a.as_ptr(), 2, a.as_ptr(), 2, null_mut(), 2);
        assert_eq!(take_last_error(), Some(("DGEMM".into(), 12)));
        // A null INTEGER argument (LDC) is reported at its position.
        let (m, one, zero) = (2, 1.0f64, 0.0f64);
        dgemm_(
            c(&b'N'),
            c(&b'N'),
            &m,
            &m,
            &m,
            &one,
            a.as_ptr(),
            &m,
            a.as_ptr(),
            &m,
            &zero,
            out.as_mut_ptr(),
            null(),
            1,
            1,
        );
        assert_eq!(take_last_error(), Some(("DGEMM".into(), 13)));
        // Invalid TRANS and INCX = 0 in DGEMV.
        let (n, inc0, inc1) = (2, 0, 1);
        dgemv_(
            c(&b'X'),
            &n,
            &n,
            &one,
            a.as_ptr(),
            &n,
            a.as_ptr(),
            &inc1,
            &zero,
            out.as_mut_ptr(),
            &inc1,
            1,
        );
        assert_eq!(take_last_error(), Some(("DGEMV".into(), 1)));
        dgemv_(
            c(&b'N'),
            &n,
            &n,
            &one,
            a.as_ptr(),
            &n,
            a.as_ptr(),
            &inc0,
            &zero,
            out.as_mut_ptr(),
            &inc1,
            1,
        );
        assert_eq!(take_last_error(), Some(("DGEMV".into(), 8)));
        // LAPACK: INFO = -position and XERBLA.
        let (mut info, mut ipiv) = (0, [0i32; 4]);
        let (m4, lda1) = (4, 1);
        let mut a4 = [1.0f64; 16];
        dgetrf_(
            &m4,
            &m4,
            a4.as_mut_ptr(),
            &lda1,
            ipiv.as_mut_ptr(),
            &mut info,
        );
        assert_eq!(info, -4);
        assert_eq!(take_last_error(), Some(("DGETRF".into(), 4)));
        // Level 1 has no XERBLA: null vectors and n < 0 do nothing.
        let r = ddot_(&n, null(), &inc1, a.as_ptr(), &inc1);
        assert_eq!(r, 0.0);
        assert_eq!(take_last_error(), None);
    }
    assert!(
        out.iter().all(|&v| v == 0.0),
        "a rejected call wrote its output"
    );
}

#[test]
fn concurrent_calls_agree() {
    let (m, n, k) = (37usize, 29usize, 41usize);
    let a: Vec<f64> = (0..m * k)
        .map(|i| ((i * 7919) % 101) as f64 / 50.0 - 1.0)
        .collect();
    let b: Vec<f64> = (0..k * n)
        .map(|i| ((i * 104_729) % 97) as f64 / 48.0 - 1.0)
        .collect();
    let want = matmul(m, n, k, &a, &b);
    // Each product sums k = 41 terms of magnitude ≤ 1: the two orders differ by at most
    // 2·k·u·Σ|aᵢbᵢ| ≤ 2·41·2⁻⁵³·41.
    let tol = 2.0 * (k * k) as f64 * f64::EPSILON / 2.0;
    std::thread::scope(|s| {
        for _ in 0..16 {
            s.spawn(|| {
                for _ in 0..20 {
                    let mut out = vec![f64::NAN; m * n];
                    // SAFETY: arrays of exactly the stated shapes.
                    unsafe {
                        gemm(
                            m as i32,
                            n as i32,
                            k as i32,
                            a.as_ptr(),
                            m as i32,
                            b.as_ptr(),
                            k as i32,
                            out.as_mut_ptr(),
                            m as i32,
                        )
                    };
                    for (g, w) in out.iter().zip(&want) {
                        assert!((g - w).abs() <= tol, "{g} vs {w}");
                    }
                }
            });
        }
    });
}
