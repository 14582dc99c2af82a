//! The Fortran LAPACK ABI for the routines rocm-solver implements, meant to be preloaded
//! over reference LAPACK (which keeps every routine not here): LU (getrf, getrs, gesv,
//! getri), Cholesky (potrf, potrs, posv, potri), trtri, QR (geqrf, orgqr/ungqr,
//! ormqr/unmqr).
//!
//! LAPACK's conventions: `INFO = -i` and XERBLA for an invalid argument i, `INFO = i > 0`
//! for a numerical failure at step i, and `LWORK = -1` a workspace query answered in
//! WORK(1) (rocm-solver needs no caller workspace, so the answer is the documented
//! minimum; any LWORK at or above it is accepted).

use crate::args::{at_least_one, diag, ints, letter, mat, side, trans, uplo};
use crate::runtime::{run, Work};
use crate::xerbla::{name, report_for};
use rocm_blas::{Scalar, Side, Transpose};
use rocm_core::{Complex32, Complex64};
use rocm_solver::{Info, Solver};
use std::ffi::c_char;

type C32 = Complex32;
type C64 = Complex64;

/// LAPACK's argument check: the first invalid (position, bad) sets INFO = -position
/// and goes to XERBLA.
///
/// # Safety
/// `info` is null or points at an INTEGER.
unsafe fn check<T: Scalar>(base: &str, info: *mut i32, table: &[(i32, bool)]) -> bool {
    let bad = table.iter().find(|(_, b)| *b).map(|&(p, _)| p);
    // SAFETY: forwarded from the caller.
    unsafe { set(info, -bad.unwrap_or(0)) };
    match bad {
        Some(p) => {
            report_for::<T>(base, p);
            false
        }
        None => true,
    }
}

/// # Safety
/// `p` is null or points at an INTEGER.
unsafe fn set(p: *mut i32, v: i32) {
    if !p.is_null() {
        // SAFETY: forwarded from the caller.
        unsafe { *p = v };
    }
}

/// Writes the workspace-query answer into WORK(1).
///
/// # Safety
/// `work` is null or points at one element.
unsafe fn answer_query<T: Scalar>(work: *mut T, lwork: i32) {
    if !work.is_null() {
        // SAFETY: forwarded from the caller.
        unsafe { *work = T::from_f64(f64::from(lwork.max(1))) };
    }
}

fn info_of(i: Option<Info>) -> i32 {
    i.map_or(0, |i| i.0 as i32)
}

fn solver(b: &rocm_blas::Blas) -> Solver {
    Solver::from_blas(b.clone())
}

fn madds(m: i32, n: i32, k: i32) -> f64 {
    f64::from(m.max(0)) * f64::from(n.max(0)) * f64::from(k.max(0))
}

// ---- LU -----------------------------------------------------------------------------

unsafe fn getrf<T: Scalar>(
    m: *const i32,
    n: *const i32,
    a: *mut T,
    lda: *const i32,
    ipiv: *mut i32,
    info: *mut i32,
) {
    let base = "GETRF";
    let Some([m, n, lda]) = (unsafe { ints::<T, 3>(base, [(1, m), (2, n), (4, lda)]) }) else {
        return;
    };
    if !unsafe {
        check::<T>(
            base,
            info,
            &[(1, m < 0), (2, n < 0), (4, lda < at_least_one(m))],
        )
    } {
        return;
    }
    if m == 0 || n == 0 {
        return;
    }
    let (la, lp) = (mat(m, n, lda), m.min(n) as usize);
    let r = run(&name::<T>(base), Work::Madds(madds(m, n, m.min(n))), |s| {
        // SAFETY: extents from the checked arguments.
        let (mut ab, mut pb) = unsafe { (s.output(a, la)?, s.output(ipiv, lp)?) };
        let i = solver(s.blas).getrf(
            m as usize,
            n as usize,
            &mut ab.view_mut(),
            lda as usize,
            &mut pb.view_mut(),
        )?;
        ab.finish()?;
        pb.finish()?;
        Ok(i)
    });
    unsafe { set(info, info_of(r)) };
}

unsafe fn getrs<T: Scalar>(
    tr: *const c_char,
    n: *const i32,
    nrhs: *const i32,
    a: *const T,
    lda: *const i32,
    ipiv: *const i32,
    b: *mut T,
    ldb: *const i32,
    info: *mut i32,
) {
    let base = "GETRS";
    let t = trans(unsafe { letter(tr) });
    let Some([n, nrhs, lda, ldb]) =
        (unsafe { ints::<T, 4>(base, [(2, n), (3, nrhs), (5, lda), (8, ldb)]) })
    else {
        return;
    };
    let table = [
        (1, t.is_none()),
        (2, n < 0),
        (3, nrhs < 0),
        (5, lda < at_least_one(n)),
        (8, ldb < at_least_one(n)),
    ];
    if !unsafe { check::<T>(base, info, &table) } {
        return;
    }
    let Some(t) = t else { return };
    if n == 0 || nrhs == 0 {
        return;
    }
    let (la, lb, lp) = (mat(n, n, lda), mat(n, nrhs, ldb), n as usize);
    run(&name::<T>(base), Work::Madds(madds(n, n, nrhs)), |s| {
        // SAFETY: extents from the checked arguments.
        let (ab, pb, mut bb) = unsafe { (s.input(a, la)?, s.input(ipiv, lp)?, s.output(b, lb)?) };
        solver(s.blas).getrs(
            t,
            n as usize,
            nrhs as usize,
            &ab.view(),
            lda as usize,
            &pb.view(),
            &mut bb.view_mut(),
            ldb as usize,
        )?;
        bb.finish()
    });
}

unsafe fn gesv<T: Scalar>(
    n: *const i32,
    nrhs: *const i32,
    a: *mut T,
    lda: *const i32,
    ipiv: *mut i32,
    b: *mut T,
    ldb: *const i32,
    info: *mut i32,
) {
    let base = "GESV";
    let Some([n, nrhs, lda, ldb]) =
        (unsafe { ints::<T, 4>(base, [(1, n), (2, nrhs), (4, lda), (7, ldb)]) })
    else {
        return;
    };
    let table = [
        (1, n < 0),
        (2, nrhs < 0),
        (4, lda < at_least_one(n)),
        (7, ldb < at_least_one(n)),
    ];
    if !unsafe { check::<T>(base, info, &table) } {
        return;
    }
    if n == 0 {
        return;
    }
    let (la, lb, lp) = (mat(n, n, lda), mat(n, nrhs, ldb), n as usize);
    let r = run(&name::<T>(base), Work::Madds(madds(n, n, n + nrhs)), |s| {
        // SAFETY: extents from the checked arguments.
        let (mut ab, mut pb, mut bb) =
            unsafe { (s.output(a, la)?, s.output(ipiv, lp)?, s.output(b, lb)?) };
        let i = solver(s.blas).gesv(
            n as usize,
            nrhs as usize,
            &mut ab.view_mut(),
            lda as usize,
            &mut pb.view_mut(),
            &mut bb.view_mut(),
            ldb as usize,
        )?;
        ab.finish()?;
        pb.finish()?;
        bb.finish()?;
        Ok(i)
    });
    unsafe { set(info, info_of(r)) };
}

unsafe fn getri<T: Scalar>(
    n: *const i32,
    a: *mut T,
    lda: *const i32,
    ipiv: *const i32,
    work: *mut T,
    lwork: *const i32,
    info: *mut i32,
) {
    let base = "GETRI";
    let Some([n, lda, lwork]) = (unsafe { ints::<T, 3>(base, [(1, n), (3, lda), (6, lwork)]) })
    else {
        return;
    };
    let query = lwork == -1;
    unsafe { answer_query(work, n) };
    let table = [
        (1, n < 0),
        (3, lda < at_least_one(n)),
        (6, lwork < at_least_one(n) && !query),
    ];
    if !unsafe { check::<T>(base, info, &table) } || query || n == 0 {
        return;
    }
    let (la, lp) = (mat(n, n, lda), n as usize);
    let r = run(&name::<T>(base), Work::Madds(madds(n, n, n)), |s| {
        // SAFETY: extents from the checked arguments.
        let (mut ab, pb) = unsafe { (s.output(a, la)?, s.input(ipiv, lp)?) };
        let i = solver(s.blas).getri(n as usize, &mut ab.view_mut(), lda as usize, &pb.view())?;
        ab.finish()?;
        Ok(i)
    });
    unsafe { set(info, info_of(r)) };
}

// ---- Cholesky and triangular inverse ------------------------------------------------

/// potrf, potri: (UPLO, N, A, LDA, INFO).
unsafe fn potrf<T: Scalar>(
    inverse: bool,
    ul: *const c_char,
    n: *const i32,
    a: *mut T,
    lda: *const i32,
    info: *mut i32,
) {
    let base = if inverse { "POTRI" } else { "POTRF" };
    let u = uplo(unsafe { letter(ul) });
    let Some([n, lda]) = (unsafe { ints::<T, 2>(base, [(2, n), (4, lda)]) }) else {
        return;
    };
    if !unsafe {
        check::<T>(
            base,
            info,
            &[(1, u.is_none()), (2, n < 0), (4, lda < at_least_one(n))],
        )
    } {
        return;
    }
    let Some(u) = u else { return };
    if n == 0 {
        return;
    }
    let la = mat(n, n, lda);
    let r = run(&name::<T>(base), Work::Madds(madds(n, n, n) / 3.0), |s| {
        // SAFETY: extent from the checked arguments.
        let mut ab = unsafe { s.output(a, la)? };
        let sv = solver(s.blas);
        let i = if inverse {
            sv.potri(u, n as usize, &mut ab.view_mut(), lda as usize)?
        } else {
            sv.potrf(u, n as usize, &mut ab.view_mut(), lda as usize)?
        };
        ab.finish()?;
        Ok(i)
    });
    unsafe { set(info, info_of(r)) };
}

/// potrs, posv: (UPLO, N, NRHS, A, LDA, B, LDB, INFO).
unsafe fn potrs<T: Scalar>(
    factor: bool,
    ul: *const c_char,
    n: *const i32,
    nrhs: *const i32,
    a: *mut T,
    lda: *const i32,
    b: *mut T,
    ldb: *const i32,
    info: *mut i32,
) {
    let base = if factor { "POSV" } else { "POTRS" };
    let u = uplo(unsafe { letter(ul) });
    let Some([n, nrhs, lda, ldb]) =
        (unsafe { ints::<T, 4>(base, [(2, n), (3, nrhs), (5, lda), (7, ldb)]) })
    else {
        return;
    };
    let table = [
        (1, u.is_none()),
        (2, n < 0),
        (3, nrhs < 0),
        (5, lda < at_least_one(n)),
        (7, ldb < at_least_one(n)),
    ];
    if !unsafe { check::<T>(base, info, &table) } {
        return;
    }
    let Some(u) = u else { return };
    if n == 0 || (nrhs == 0 && !factor) {
        return;
    }
    let (la, lb) = (mat(n, n, lda), mat(n, nrhs, ldb));
    let r = run(
        &name::<T>(base),
        Work::Madds(madds(n, n, n / 3 + nrhs)),
        |s| {
            // SAFETY: extents from the checked arguments.
            let (mut ab, mut bb) = unsafe { (s.output(a, la)?, s.output(b, lb)?) };
            let sv = solver(s.blas);
            let (n, nrhs, lda, ldb) = (n as usize, nrhs as usize, lda as usize, ldb as usize);
            let i = if factor {
                let i = sv.posv(u, n, nrhs, &mut ab.view_mut(), lda, &mut bb.view_mut(), ldb)?;
                ab.finish()?;
                i
            } else {
                sv.potrs(u, n, nrhs, &ab.view(), lda, &mut bb.view_mut(), ldb)?;
                Info::OK
            };
            bb.finish()?;
            Ok(i)
        },
    );
    unsafe { set(info, info_of(r)) };
}

unsafe fn trtri<T: Scalar>(
    ul: *const c_char,
    dg: *const c_char,
    n: *const i32,
    a: *mut T,
    lda: *const i32,
    info: *mut i32,
) {
    let base = "TRTRI";
    let (u, d) = unsafe { (uplo(letter(ul)), diag(letter(dg))) };
    let Some([n, lda]) = (unsafe { ints::<T, 2>(base, [(3, n), (5, lda)]) }) else {
        return;
    };
    let table = [
        (1, u.is_none()),
        (2, d.is_none()),
        (3, n < 0),
        (5, lda < at_least_one(n)),
    ];
    if !unsafe { check::<T>(base, info, &table) } {
        return;
    }
    let (Some(u), Some(d)) = (u, d) else { return };
    if n == 0 {
        return;
    }
    let la = mat(n, n, lda);
    let r = run(&name::<T>(base), Work::Madds(madds(n, n, n) / 3.0), |s| {
        // SAFETY: extent from the checked arguments.
        let mut ab = unsafe { s.output(a, la)? };
        let i = solver(s.blas).trtri(u, d, n as usize, &mut ab.view_mut(), lda as usize)?;
        ab.finish()?;
        Ok(i)
    });
    unsafe { set(info, info_of(r)) };
}

// ---- QR -----------------------------------------------------------------------------

unsafe fn geqrf<T: Scalar>(
    m: *const i32,
    n: *const i32,
    a: *mut T,
    lda: *const i32,
    tau: *mut T,
    work: *mut T,
    lwork: *const i32,
    info: *mut i32,
) {
    let base = "GEQRF";
    let Some([m, n, lda, lwork]) =
        (unsafe { ints::<T, 4>(base, [(1, m), (2, n), (4, lda), (7, lwork)]) })
    else {
        return;
    };
    let query = lwork == -1;
    let k = m.min(n);
    let min_work = if k == 0 { 1 } else { at_least_one(n) };
    unsafe { answer_query(work, min_work) };
    let table = [
        (1, m < 0),
        (2, n < 0),
        (4, lda < at_least_one(m)),
        (7, lwork < min_work && !query),
    ];
    if !unsafe { check::<T>(base, info, &table) } || query || k == 0 {
        return;
    }
    let (la, lt) = (mat(m, n, lda), k as usize);
    run(&name::<T>(base), Work::Madds(madds(m, n, k)), |s| {
        // SAFETY: extents from the checked arguments.
        let (mut ab, mut tb) = unsafe { (s.output(a, la)?, s.output(tau, lt)?) };
        solver(s.blas).geqrf(
            m as usize,
            n as usize,
            &mut ab.view_mut(),
            lda as usize,
            &mut tb.view_mut(),
        )?;
        ab.finish()?;
        tb.finish()
    });
}

/// orgqr (real) / ungqr (complex): (M, N, K, A, LDA, TAU, WORK, LWORK, INFO).
unsafe fn orgqr<T: Scalar>(
    m: *const i32,
    n: *const i32,
    k: *const i32,
    a: *mut T,
    lda: *const i32,
    tau: *const T,
    work: *mut T,
    lwork: *const i32,
    info: *mut i32,
) {
    let base = if T::IS_COMPLEX { "UNGQR" } else { "ORGQR" };
    let Some([m, n, k, lda, lwork]) =
        (unsafe { ints::<T, 5>(base, [(1, m), (2, n), (3, k), (5, lda), (8, lwork)]) })
    else {
        return;
    };
    let query = lwork == -1;
    unsafe { answer_query(work, at_least_one(n)) };
    let table = [
        (1, m < 0),
        (2, n < 0 || n > m),
        (3, k < 0 || k > n),
        (5, lda < at_least_one(m)),
        (8, lwork < at_least_one(n) && !query),
    ];
    if !unsafe { check::<T>(base, info, &table) } || query || n == 0 {
        return;
    }
    let (la, lt) = (mat(m, n, lda), k as usize);
    run(&name::<T>(base), Work::Madds(madds(m, n, k)), |s| {
        // SAFETY: extents from the checked arguments.
        let (mut ab, tb) = unsafe { (s.output(a, la)?, s.input(tau, lt)?) };
        let sv = solver(s.blas);
        let (m, n, k, lda) = (m as usize, n as usize, k as usize, lda as usize);
        if T::IS_COMPLEX {
            sv.ungqr(m, n, k, &mut ab.view_mut(), lda, &tb.view())?;
        } else {
            sv.orgqr(m, n, k, &mut ab.view_mut(), lda, &tb.view())?;
        }
        ab.finish()
    });
}

/// ormqr (real) / unmqr (complex): (SIDE, TRANS, M, N, K, A, LDA, TAU, C, LDC, WORK,
/// LWORK, INFO).
unsafe fn ormqr<T: Scalar>(
    sd: *const c_char,
    tr: *const c_char,
    m: *const i32,
    n: *const i32,
    k: *const i32,
    a: *const T,
    lda: *const i32,
    tau: *const T,
    c: *mut T,
    ldc: *const i32,
    work: *mut T,
    lwork: *const i32,
    info: *mut i32,
) {
    let base = if T::IS_COMPLEX { "UNMQR" } else { "ORMQR" };
    let (sd, t) = unsafe { (side(letter(sd)), trans(letter(tr))) };
    // Real types take N or T, complex ones N or C.
    let t = match t {
        Some(Transpose::T) if T::IS_COMPLEX => None,
        Some(Transpose::C) if !T::IS_COMPLEX => None,
        t => t,
    };
    let Some([m, n, k, lda, ldc, lwork]) = (unsafe {
        ints::<T, 6>(
            base,
            [(3, m), (4, n), (5, k), (7, lda), (10, ldc), (12, lwork)],
        )
    }) else {
        return;
    };
    let left = sd == Some(Side::Left);
    let (nq, nw) = if left { (m, n) } else { (n, m) };
    let query = lwork == -1;
    unsafe { answer_query(work, at_least_one(nw)) };
    let table = [
        (1, sd.is_none()),
        (2, t.is_none()),
        (3, m < 0),
        (4, n < 0),
        (5, k < 0 || k > nq),
        (7, lda < at_least_one(nq)),
        (10, ldc < at_least_one(m)),
        (12, lwork < at_least_one(nw) && !query),
    ];
    if !unsafe { check::<T>(base, info, &table) } || query {
        return;
    }
    let (Some(sd), Some(t)) = (sd, t) else { return };
    if m == 0 || n == 0 || k == 0 {
        return;
    }
    let (la, lt, lc) = (mat(nq, k, lda), k as usize, mat(m, n, ldc));
    run(&name::<T>(base), Work::Madds(madds(m, n, k)), |s| {
        // SAFETY: extents from the checked arguments.
        let (ab, tb, mut cb) = unsafe { (s.input(a, la)?, s.input(tau, lt)?, s.output(c, lc)?) };
        let sv = solver(s.blas);
        let (m, n, k, lda, ldc) = (
            m as usize,
            n as usize,
            k as usize,
            lda as usize,
            ldc as usize,
        );
        if T::IS_COMPLEX {
            sv.unmqr(
                sd,
                t,
                m,
                n,
                k,
                &ab.view(),
                lda,
                &tb.view(),
                &mut cb.view_mut(),
                ldc,
            )?;
        } else {
            sv.ormqr(
                sd,
                t,
                m,
                n,
                k,
                &ab.view(),
                lda,
                &tb.view(),
                &mut cb.view_mut(),
                ldc,
            )?;
        }
        cb.finish()
    });
}

// ---- entry points -------------------------------------------------------------------

macro_rules! lapack {
    ($($t:ty: $getrf:ident $getrs:ident $gesv:ident $getri:ident $potrf:ident $potrs:ident $posv:ident $potri:ident $trtri:ident $geqrf:ident $orgqr:ident $ormqr:ident;)*) => {$(
        #[no_mangle]
        pub unsafe extern "C" fn $getrf(m: *const i32, n: *const i32, a: *mut $t, lda: *const i32, ipiv: *mut i32, info: *mut i32) {
            unsafe { getrf::<$t>(m, n, a, lda, ipiv, info) }
        }
        #[no_mangle]
        pub unsafe extern "C" fn $getrs(tr: *const c_char, n: *const i32, nrhs: *const i32, a: *const $t, lda: *const i32, ipiv: *const i32, b: *mut $t, ldb: *const i32, info: *mut i32, _l: usize) {
            unsafe { getrs::<$t>(tr, n, nrhs, a, lda, ipiv, b, ldb, info) }
        }
        #[no_mangle]
        pub unsafe extern "C" fn $gesv(n: *const i32, nrhs: *const i32, a: *mut $t, lda: *const i32, ipiv: *mut i32, b: *mut $t, ldb: *const i32, info: *mut i32) {
            unsafe { gesv::<$t>(n, nrhs, a, lda, ipiv, b, ldb, info) }
        }
        #[no_mangle]
        pub unsafe extern "C" fn $getri(n: *const i32, a: *mut $t, lda: *const i32, ipiv: *const i32, work: *mut $t, lwork: *const i32, info: *mut i32) {
            unsafe { getri::<$t>(n, a, lda, ipiv, work, lwork, info) }
        }
        #[no_mangle]
        pub unsafe extern "C" fn $potrf(u: *const c_char, n: *const i32, a: *mut $t, lda: *const i32, info: *mut i32, _l: usize) {
            unsafe { potrf::<$t>(false, u, n, a, lda, info) }
        }
        #[no_mangle]
        pub unsafe extern "C" fn $potrs(u: *const c_char, n: *const i32, nrhs: *const i32, a: *const $t, lda: *const i32, b: *mut $t, ldb: *const i32, info: *mut i32, _l: usize) {
            unsafe { potrs::<$t>(false, u, n, nrhs, a.cast_mut(), lda, b, ldb, info) }
        }
        #[no_mangle]
        pub unsafe extern "C" fn $posv(u: *const c_char, n: *const i32, nrhs: *const i32, a: *mut $t, lda: *const i32, b: *mut $t, ldb: *const i32, info: *mut i32, _l: usize) {
            unsafe { potrs::<$t>(true, u, n, nrhs, a, lda, b, ldb, info) }
        }
        #[no_mangle]
        pub unsafe extern "C" fn $potri(u: *const c_char, n: *const i32, a: *mut $t, lda: *const i32, info: *mut i32, _l: usize) {
            unsafe { potrf::<$t>(true, u, n, a, lda, info) }
        }
        #[no_mangle]
        pub unsafe extern "C" fn $trtri(u: *const c_char, d: *const c_char, n: *const i32, a: *mut $t, lda: *const i32, info: *mut i32, _l1: usize, _l2: usize) {
            unsafe { trtri::<$t>(u, d, n, a, lda, info) }
        }
        #[no_mangle]
        pub unsafe extern "C" fn $geqrf(m: *const i32, n: *const i32, a: *mut $t, lda: *const i32, tau: *mut $t, work: *mut $t, lwork: *const i32, info: *mut i32) {
            unsafe { geqrf::<$t>(m, n, a, lda, tau, work, lwork, info) }
        }
        #[no_mangle]
        pub unsafe extern "C" fn $orgqr(m: *const i32, n: *const i32, k: *const i32, a: *mut $t, lda: *const i32, tau: *const $t, work: *mut $t, lwork: *const i32, info: *mut i32) {
            unsafe { orgqr::<$t>(m, n, k, a, lda, tau, work, lwork, info) }
        }
        #[no_mangle]
        pub unsafe extern "C" fn $ormqr(sd: *const c_char, tr: *const c_char, m: *const i32, n: *const i32, k: *const i32, a: *const $t, lda: *const i32, tau: *const $t, c: *mut $t, ldc: *const i32, work: *mut $t, lwork: *const i32, info: *mut i32, _l1: usize, _l2: usize) {
            unsafe { ormqr::<$t>(sd, tr, m, n, k, a, lda, tau, c, ldc, work, lwork, info) }
        }
    )*};
}
lapack! {
    f32: sgetrf_ sgetrs_ sgesv_ sgetri_ spotrf_ spotrs_ sposv_ spotri_ strtri_ sgeqrf_ sorgqr_ sormqr_;
    f64: dgetrf_ dgetrs_ dgesv_ dgetri_ dpotrf_ dpotrs_ dposv_ dpotri_ dtrtri_ dgeqrf_ dorgqr_ dormqr_;
    C32: cgetrf_ cgetrs_ cgesv_ cgetri_ cpotrf_ cpotrs_ cposv_ cpotri_ ctrtri_ cgeqrf_ cungqr_ cunmqr_;
    C64: zgetrf_ zgetrs_ zgesv_ zgetri_ zpotrf_ zpotrs_ zposv_ zpotri_ ztrtri_ zgeqrf_ zungqr_ zunmqr_;
}
