//! The Fortran BLAS Level 3 ABI: argument checks in reference BLAS's order, then
//! rocm-blas on the device when the call's multiply-adds reach the offload threshold.

use crate::args::{arrays, at_least_one, diag, ints, letter, mat, scalars, side, trans, uplo};
use crate::runtime::{run, Work};
use crate::xerbla::{check, name};
use rocm_blas::{Scalar, Side, Transpose};
use rocm_core::{Complex32, Complex64};
use std::ffi::c_char;

type C32 = Complex32;
type C64 = Complex64;

#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn gemm<T: Scalar>(
    ta: *const c_char,
    tb: *const c_char,
    m: *const i32,
    n: *const i32,
    k: *const i32,
    alpha: *const T,
    a: *const T,
    lda: *const i32,
    b: *const T,
    ldb: *const i32,
    beta: *const T,
    c: *mut T,
    ldc: *const i32,
) {
    let base = "GEMM";
    let (ta, tb) = unsafe { (trans(letter(ta)), trans(letter(tb))) };
    let Some([m, n, k, lda, ldb, ldc]) = (unsafe {
        ints::<T, 6>(
            base,
            [(3, m), (4, n), (5, k), (8, lda), (10, ldb), (13, ldc)],
        )
    }) else {
        return;
    };
    let rows =
        |t: Option<Transpose>, no: i32, yes: i32| if t == Some(Transpose::N) { no } else { yes };
    let (nrowa, nrowb) = (rows(ta, m, k), rows(tb, k, n));
    if !check::<T>(
        base,
        &[
            (1, ta.is_none()),
            (2, tb.is_none()),
            (3, m < 0),
            (4, n < 0),
            (5, k < 0),
            (8, lda < at_least_one(nrowa)),
            (10, ldb < at_least_one(nrowb)),
            (13, ldc < at_least_one(m)),
        ],
    ) {
        return;
    }
    let Some([alpha, beta]) = (unsafe { scalars::<T, T, 2>(base, [(6, alpha), (11, beta)]) })
    else {
        return;
    };
    let (Some(ta), Some(tb)) = (ta, tb) else {
        return;
    };
    if m == 0 || n == 0 || ((alpha == T::zero() || k == 0) && beta == T::one()) {
        return;
    }
    let (la, lb, lc) = (
        mat(nrowa, rows(Some(ta), k, m), lda),
        mat(nrowb, rows(Some(tb), n, k), ldb),
        mat(m, n, ldc),
    );
    if !arrays::<T>(
        base,
        &[(7, a.cast(), la), (9, b.cast(), lb), (12, c.cast(), lc)],
    ) {
        return;
    }
    let work = f64::from(m) * f64::from(n) * f64::from(k);
    let (m, n, k, lda, ldb, ldc) = (
        m as usize,
        n as usize,
        k as usize,
        lda as usize,
        ldb as usize,
        ldc as usize,
    );
    run(&name::<T>(base), Work::Madds(work), |s| {
        // SAFETY: extents from the checked arguments.
        let (ab, bb, mut cb) = unsafe { (s.input(a, la)?, s.input(b, lb)?, s.output(c, lc)?) };
        s.blas.gemm(
            ta,
            tb,
            m,
            n,
            k,
            alpha,
            &ab.view(),
            lda,
            &bb.view(),
            ldb,
            beta,
            &mut cb.view_mut(),
            ldc,
        )?;
        cb.finish()
    });
}

/// symm and hemm.
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn symm<T: Scalar>(
    herm: bool,
    sd: *const c_char,
    ul: *const c_char,
    m: *const i32,
    n: *const i32,
    alpha: *const T,
    a: *const T,
    lda: *const i32,
    b: *const T,
    ldb: *const i32,
    beta: *const T,
    c: *mut T,
    ldc: *const i32,
) {
    let base = if herm { "HEMM" } else { "SYMM" };
    let (sd, u) = unsafe { (side(letter(sd)), uplo(letter(ul))) };
    let Some([m, n, lda, ldb, ldc]) =
        (unsafe { ints::<T, 5>(base, [(3, m), (4, n), (7, lda), (9, ldb), (12, ldc)]) })
    else {
        return;
    };
    let ka = if sd == Some(Side::Left) { m } else { n };
    if !check::<T>(
        base,
        &[
            (1, sd.is_none()),
            (2, u.is_none()),
            (3, m < 0),
            (4, n < 0),
            (7, lda < at_least_one(ka)),
            (9, ldb < at_least_one(m)),
            (12, ldc < at_least_one(m)),
        ],
    ) {
        return;
    }
    let Some([alpha, beta]) = (unsafe { scalars::<T, T, 2>(base, [(5, alpha), (10, beta)]) })
    else {
        return;
    };
    let (Some(sd), Some(u)) = (sd, u) else { return };
    if m == 0 || n == 0 || (alpha == T::zero() && beta == T::one()) {
        return;
    }
    let (la, lb, lc) = (mat(ka, ka, lda), mat(m, n, ldb), mat(m, n, ldc));
    if !arrays::<T>(
        base,
        &[(6, a.cast(), la), (8, b.cast(), lb), (11, c.cast(), lc)],
    ) {
        return;
    }
    let work = f64::from(m) * f64::from(n) * f64::from(ka);
    let (m, n, lda, ldb, ldc) = (
        m as usize,
        n as usize,
        lda as usize,
        ldb as usize,
        ldc as usize,
    );
    run(&name::<T>(base), Work::Madds(work), |s| {
        // SAFETY: extents from the checked arguments.
        let (ab, bb, mut cb) = unsafe { (s.input(a, la)?, s.input(b, lb)?, s.output(c, lc)?) };
        let (av, bv, mut cv) = (ab.view(), bb.view(), cb.view_mut());
        if herm {
            s.blas
                .hemm(sd, u, m, n, alpha, &av, lda, &bv, ldb, beta, &mut cv, ldc)?;
        } else {
            s.blas
                .symm(sd, u, m, n, alpha, &av, lda, &bv, ldb, beta, &mut cv, ldc)?;
        }
        cb.finish()
    });
}

/// Which rank-k update: syrk, herk (α, β real), syr2k, her2k (β real).
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum RankK {
    Syrk,
    Herk,
    Syr2k,
    Her2k,
}

#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn rank_k<
    T: Scalar,
    A: Copy + Default + PartialEq,
    B: Copy + Default + PartialEq,
>(
    op: RankK,
    ul: *const c_char,
    tr: *const c_char,
    n: *const i32,
    k: *const i32,
    alpha: *const A,
    a: *const T,
    lda: *const i32,
    b: *const T,
    ldb: *const i32,
    beta: *const B,
    c: *mut T,
    ldc: *const i32,
    one: B,
    apply: impl Fn(&rocm_blas::Blas, RankKOps<'_, T>, A, B) -> rocm_core::Result<()>,
) {
    let base = match op {
        RankK::Syrk => "SYRK",
        RankK::Herk => "HERK",
        RankK::Syr2k => "SYR2K",
        RankK::Her2k => "HER2K",
    };
    let two = matches!(op, RankK::Syr2k | RankK::Her2k);
    let herm = matches!(op, RankK::Herk | RankK::Her2k);
    let (u, t) = unsafe { (uplo(letter(ul)), trans(letter(tr))) };
    // Positions: (UPLO, TRANS, N, K, ALPHA, A, LDA, [B, LDB], BETA, C, LDC).
    let o = if two { 2 } else { 0 };
    let unit = 1i32;
    let (ldb, pldb) = if two {
        (ldb, 9)
    } else {
        (&unit as *const i32, 0)
    };
    let Some([n, k, lda, ldb, ldc]) =
        (unsafe { ints::<T, 5>(base, [(3, n), (4, k), (7, lda), (pldb, ldb), (10 + o, ldc)]) })
    else {
        return;
    };
    // Real types take N, T, C; complex symmetric ones N, T; Hermitian ones N, C.
    let trans_ok = match t {
        Some(Transpose::N) => true,
        Some(Transpose::T) => !T::IS_COMPLEX || !herm,
        Some(Transpose::C) => !T::IS_COMPLEX || herm,
        None => false,
    };
    let nrowa = if t == Some(Transpose::N) { n } else { k };
    if !check::<T>(
        base,
        &[
            (1, u.is_none()),
            (2, !trans_ok),
            (3, n < 0),
            (4, k < 0),
            (7, lda < at_least_one(nrowa)),
            (pldb, two && ldb < at_least_one(nrowa)),
            (10 + o, ldc < at_least_one(n)),
        ],
    ) {
        return;
    }
    let Some([alpha]) = (unsafe { scalars::<T, A, 1>(base, [(5, alpha)]) }) else {
        return;
    };
    let Some([beta]) = (unsafe { scalars::<T, B, 1>(base, [(8 + o, beta)]) }) else {
        return;
    };
    let (Some(u), Some(t)) = (u, t) else { return };
    if n == 0 || ((alpha == A::default() || k == 0) && beta == one) {
        return;
    }
    let ncola = if t == Transpose::N { k } else { n };
    let la = mat(nrowa, ncola, lda);
    let lb = if two { mat(nrowa, ncola, ldb) } else { 0 };
    let lc = mat(n, n, ldc);
    if !arrays::<T>(
        base,
        &[(6, a.cast(), la), (8, b.cast(), lb), (9 + o, c.cast(), lc)],
    ) {
        return;
    }
    let work = f64::from(n) * f64::from(n) * f64::from(k) * if two { 1.0 } else { 0.5 };
    let (n, k, lda, ldb, ldc) = (
        n as usize,
        k as usize,
        lda as usize,
        ldb as usize,
        ldc as usize,
    );
    run(&name::<T>(base), Work::Madds(work), |s| {
        // SAFETY: extents from the checked arguments.
        let (ab, bb, mut cb) = unsafe { (s.input(a, la)?, s.input(b, lb)?, s.output(c, lc)?) };
        let ops = RankKOps {
            uplo: u,
            trans: t,
            n,
            k,
            a: ab.view(),
            lda,
            b: bb.view(),
            ldb,
            c: cb.view_mut(),
            ldc,
        };
        apply(s.blas, ops, alpha, beta)?;
        cb.finish()
    });
}

/// The operands of one rank-k update, on the call's device.
pub(crate) struct RankKOps<'a, T: Scalar> {
    pub uplo: rocm_blas::Uplo,
    pub trans: Transpose,
    pub n: usize,
    pub k: usize,
    pub a: rocm_core::BufferSlice<'a, T>,
    pub lda: usize,
    pub b: rocm_core::BufferSlice<'a, T>,
    pub ldb: usize,
    pub c: rocm_core::BufferSliceMut<'a, T>,
    pub ldc: usize,
}

/// trmm and trsm.
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn trxm<T: Scalar>(
    solve: bool,
    sd: *const c_char,
    ul: *const c_char,
    tr: *const c_char,
    dg: *const c_char,
    m: *const i32,
    n: *const i32,
    alpha: *const T,
    a: *const T,
    lda: *const i32,
    b: *mut T,
    ldb: *const i32,
) {
    let base = if solve { "TRSM" } else { "TRMM" };
    let (sd, u, t, d) = unsafe {
        (
            side(letter(sd)),
            uplo(letter(ul)),
            trans(letter(tr)),
            diag(letter(dg)),
        )
    };
    let Some([m, n, lda, ldb]) =
        (unsafe { ints::<T, 4>(base, [(5, m), (6, n), (9, lda), (11, ldb)]) })
    else {
        return;
    };
    let ka = if sd == Some(Side::Left) { m } else { n };
    if !check::<T>(
        base,
        &[
            (1, sd.is_none()),
            (2, u.is_none()),
            (3, t.is_none()),
            (4, d.is_none()),
            (5, m < 0),
            (6, n < 0),
            (9, lda < at_least_one(ka)),
            (11, ldb < at_least_one(m)),
        ],
    ) {
        return;
    }
    let Some([alpha]) = (unsafe { scalars::<T, T, 1>(base, [(7, alpha)]) }) else {
        return;
    };
    let (Some(sd), Some(u), Some(t), Some(d)) = (sd, u, t, d) else {
        return;
    };
    if m == 0 || n == 0 {
        return;
    }
    let (la, lb) = (mat(ka, ka, lda), mat(m, n, ldb));
    if alpha == T::zero() {
        // B ← 0 without reading A, as reference BLAS.
        if !arrays::<T>(base, &[(10, b.cast(), lb)]) {
            return;
        }
        for j in 0..n as usize {
            for i in 0..m as usize {
                // SAFETY: (i, j) lies inside B's checked extent.
                unsafe { *b.add(i + j * ldb as usize) = T::zero() };
            }
        }
        return;
    }
    if !arrays::<T>(base, &[(8, a.cast(), la), (10, b.cast(), lb)]) {
        return;
    }
    let work = f64::from(m) * f64::from(n) * f64::from(ka) * 0.5;
    let (m, n, lda, ldb) = (m as usize, n as usize, lda as usize, ldb as usize);
    run(&name::<T>(base), Work::Madds(work), |s| {
        // SAFETY: extents from the checked arguments.
        let (ab, mut bb) = unsafe { (s.input(a, la)?, s.output(b, lb)?) };
        let (av, mut bv) = (ab.view(), bb.view_mut());
        if solve {
            s.blas
                .trsm(sd, u, t, d, m, n, alpha, &av, lda, &mut bv, ldb)?;
        } else {
            s.blas
                .trmm(sd, u, t, d, m, n, alpha, &av, lda, &mut bv, ldb)?;
        }
        bb.finish()
    });
}

// ---- entry points -------------------------------------------------------------------

macro_rules! level3 {
    ($($t:ty, $r:ty: $gemm:ident $symm:ident $syrk:ident $syr2k:ident $trmm:ident $trsm:ident;)*) => {$(
        #[no_mangle]
        pub unsafe extern "C" fn $gemm(ta: *const c_char, tb: *const c_char, m: *const i32, n: *const i32, k: *const i32, alpha: *const $t, a: *const $t, lda: *const i32, b: *const $t, ldb: *const i32, beta: *const $t, c: *mut $t, ldc: *const i32, _l1: usize, _l2: usize) {
            unsafe { gemm::<$t>(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc) }
        }
        #[no_mangle]
        pub unsafe extern "C" fn $symm(sd: *const c_char, ul: *const c_char, m: *const i32, n: *const i32, alpha: *const $t, a: *const $t, lda: *const i32, b: *const $t, ldb: *const i32, beta: *const $t, c: *mut $t, ldc: *const i32, _l1: usize, _l2: usize) {
            unsafe { symm::<$t>(false, sd, ul, m, n, alpha, a, lda, b, ldb, beta, c, ldc) }
        }
        #[no_mangle]
        pub unsafe extern "C" fn $syrk(ul: *const c_char, tr: *const c_char, n: *const i32, k: *const i32, alpha: *const $t, a: *const $t, lda: *const i32, beta: *const $t, c: *mut $t, ldc: *const i32, _l1: usize, _l2: usize) {
            unsafe {
                rank_k::<$t, $t, $t>(RankK::Syrk, ul, tr, n, k, alpha, a, lda, std::ptr::null(), std::ptr::null(), beta, c, ldc, <$t as num_traits::One>::one(),
                    |bl, mut o, al, be| bl.syrk(o.uplo, o.trans, o.n, o.k, al, &o.a, o.lda, be, &mut o.c, o.ldc))
            }
        }
        #[no_mangle]
        pub unsafe extern "C" fn $syr2k(ul: *const c_char, tr: *const c_char, n: *const i32, k: *const i32, alpha: *const $t, a: *const $t, lda: *const i32, b: *const $t, ldb: *const i32, beta: *const $t, c: *mut $t, ldc: *const i32, _l1: usize, _l2: usize) {
            unsafe {
                rank_k::<$t, $t, $t>(RankK::Syr2k, ul, tr, n, k, alpha, a, lda, b, ldb, beta, c, ldc, <$t as num_traits::One>::one(),
                    |bl, mut o, al, be| bl.syr2k(o.uplo, o.trans, o.n, o.k, al, &o.a, o.lda, &o.b, o.ldb, be, &mut o.c, o.ldc))
            }
        }
        #[no_mangle]
        pub unsafe extern "C" fn $trmm(sd: *const c_char, ul: *const c_char, tr: *const c_char, dg: *const c_char, m: *const i32, n: *const i32, alpha: *const $t, a: *const $t, lda: *const i32, b: *mut $t, ldb: *const i32, _l1: usize, _l2: usize, _l3: usize, _l4: usize) {
            unsafe { trxm::<$t>(false, sd, ul, tr, dg, m, n, alpha, a, lda, b, ldb) }
        }
        #[no_mangle]
        pub unsafe extern "C" fn $trsm(sd: *const c_char, ul: *const c_char, tr: *const c_char, dg: *const c_char, m: *const i32, n: *const i32, alpha: *const $t, a: *const $t, lda: *const i32, b: *mut $t, ldb: *const i32, _l1: usize, _l2: usize, _l3: usize, _l4: usize) {
            unsafe { trxm::<$t>(true, sd, ul, tr, dg, m, n, alpha, a, lda, b, ldb) }
        }
    )*};
}
level3! {
    f32, f32: sgemm_ ssymm_ ssyrk_ ssyr2k_ strmm_ strsm_;
    f64, f64: dgemm_ dsymm_ dsyrk_ dsyr2k_ dtrmm_ dtrsm_;
    C32, f32: cgemm_ csymm_ csyrk_ csyr2k_ ctrmm_ ctrsm_;
    C64, f64: zgemm_ zsymm_ zsyrk_ zsyr2k_ ztrmm_ ztrsm_;
}

macro_rules! hermitian3 {
    ($($t:ty, $r:ty: $hemm:ident $herk:ident $her2k:ident;)*) => {$(
        #[no_mangle]
        pub unsafe extern "C" fn $hemm(sd: *const c_char, ul: *const c_char, m: *const i32, n: *const i32, alpha: *const $t, a: *const $t, lda: *const i32, b: *const $t, ldb: *const i32, beta: *const $t, c: *mut $t, ldc: *const i32, _l1: usize, _l2: usize) {
            unsafe { symm::<$t>(true, sd, ul, m, n, alpha, a, lda, b, ldb, beta, c, ldc) }
        }
        #[no_mangle]
        pub unsafe extern "C" fn $herk(ul: *const c_char, tr: *const c_char, n: *const i32, k: *const i32, alpha: *const $r, a: *const $t, lda: *const i32, beta: *const $r, c: *mut $t, ldc: *const i32, _l1: usize, _l2: usize) {
            unsafe {
                rank_k::<$t, $r, $r>(RankK::Herk, ul, tr, n, k, alpha, a, lda, std::ptr::null(), std::ptr::null(), beta, c, ldc, 1.0,
                    |bl, mut o, al, be| bl.herk(o.uplo, o.trans, o.n, o.k, al, &o.a, o.lda, be, &mut o.c, o.ldc))
            }
        }
        #[no_mangle]
        pub unsafe extern "C" fn $her2k(ul: *const c_char, tr: *const c_char, n: *const i32, k: *const i32, alpha: *const $t, a: *const $t, lda: *const i32, b: *const $t, ldb: *const i32, beta: *const $r, c: *mut $t, ldc: *const i32, _l1: usize, _l2: usize) {
            unsafe {
                rank_k::<$t, $t, $r>(RankK::Her2k, ul, tr, n, k, alpha, a, lda, b, ldb, beta, c, ldc, 1.0,
                    |bl, mut o, al, be| bl.her2k(o.uplo, o.trans, o.n, o.k, al, &o.a, o.lda, &o.b, o.ldb, be, &mut o.c, o.ldc))
            }
        }
    )*};
}
hermitian3! {
    C32, f32: chemm_ cherk_ cher2k_;
    C64, f64: zhemm_ zherk_ zher2k_;
}
