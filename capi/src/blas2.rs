//! The Fortran BLAS Level 2 ABI: argument checks in reference BLAS's order (each bad
//! argument reported to XERBLA by its position), then rocm-blas on the chosen device.
//!
//! One generic per routine family; the `#[no_mangle]` entry points for s, d, c, z are
//! stamped by the macros at the end. CHARACTER arguments' hidden lengths are declared
//! (gfortran appends one `size_t` per CHARACTER argument) and unused.

use crate::args::{
    arrays, at_least_one, diag, ints, letter, mat, packed, scalars, trans, uplo, vec,
};
use crate::runtime::{run, Work};
use crate::xerbla::{check, name};
use rocm_blas::{Scalar, Transpose};
use rocm_core::{Complex32, Complex64};
use std::ffi::c_char;

type C32 = Complex32;
type C64 = Complex64;

/// General and band matrix-vector products (gemv, gbmv).
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn gemv<T: Scalar>(
    band: bool,
    tr: *const c_char,
    m: *const i32,
    n: *const i32,
    kl: *const i32,
    ku: *const i32,
    alpha: *const T,
    a: *const T,
    lda: *const i32,
    x: *const T,
    incx: *const i32,
    beta: *const T,
    y: *mut T,
    incy: *const i32,
) {
    // Positions past N shift by two for the band form (KL, KU).
    let (base, o) = if band { ("GBMV", 2) } else { ("GEMV", 0) };
    let t = trans(unsafe { letter(tr) });
    let zero = 0i32;
    let (klp, kup) = if band {
        (kl, ku)
    } else {
        (&zero as *const i32, &zero as *const i32)
    };
    let Some([m, n, kl, ku, lda, incx, incy]) = (unsafe {
        ints::<T, 7>(
            base,
            [
                (2, m),
                (3, n),
                (4, klp),
                (5, kup),
                (6 + o, lda),
                (8 + o, incx),
                (11 + o, incy),
            ],
        )
    }) else {
        return;
    };
    let rows = if band { kl + ku + 1 } else { at_least_one(m) };
    if !check::<T>(
        base,
        &[
            (1, t.is_none()),
            (2, m < 0),
            (3, n < 0),
            (4, kl < 0),
            (5, ku < 0),
            (6 + o, lda < rows),
            (8 + o, incx == 0),
            (11 + o, incy == 0),
        ],
    ) {
        return;
    }
    let Some([alpha, beta]) =
        (unsafe { scalars::<T, T, 2>(base, [(4 + o, alpha), (9 + o, beta)]) })
    else {
        return;
    };
    let Some(t) = t else { return };
    let (lenx, leny) = if t == Transpose::N { (n, m) } else { (m, n) };
    let la = if band {
        mat(kl + ku + 1, n, lda)
    } else {
        mat(m, n, lda)
    };
    let (lx, ly) = (vec(lenx, incx), vec(leny, incy));
    if m == 0 || n == 0 || (alpha == T::zero() && beta == T::one()) {
        return;
    }
    if !arrays::<T>(
        base,
        &[
            (5 + o, a.cast(), la),
            (7 + o, x.cast(), lx),
            (10 + o, y.cast(), ly),
        ],
    ) {
        return;
    }
    let (m, n, lda, incx, incy) = (
        m as usize,
        n as usize,
        lda as usize,
        incx as isize,
        incy as isize,
    );
    run(&name::<T>(base), Work::Stream, |s| {
        // SAFETY: extents from the checked arguments (the caller's contract).
        let (ab, xb, mut yb) = unsafe { (s.input(a, la)?, s.input(x, lx)?, s.output(y, ly)?) };
        if band {
            let (kl, ku) = (kl as usize, ku as usize);
            s.blas.gbmv(
                t,
                m,
                n,
                kl,
                ku,
                alpha,
                &ab.view(),
                lda,
                &xb.view(),
                incx,
                beta,
                &mut yb.view_mut(),
                incy,
            )?;
        } else {
            s.blas.gemv(
                t,
                m,
                n,
                alpha,
                &ab.view(),
                lda,
                &xb.view(),
                incx,
                beta,
                &mut yb.view_mut(),
                incy,
            )?;
        }
        yb.finish()
    });
}

/// Symmetric/Hermitian matrix-vector products in full, band and packed storage.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Storage {
    Full,
    Band,
    Packed,
}

#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn symv<T: Scalar>(
    herm: bool,
    st: Storage,
    ul: *const c_char,
    n: *const i32,
    k: *const i32,
    alpha: *const T,
    a: *const T,
    lda: *const i32,
    x: *const T,
    incx: *const i32,
    beta: *const T,
    y: *mut T,
    incy: *const i32,
) {
    let base = match (herm, st) {
        (false, Storage::Full) => "SYMV",
        (false, Storage::Band) => "SBMV",
        (false, Storage::Packed) => "SPMV",
        (true, Storage::Full) => "HEMV",
        (true, Storage::Band) => "HBMV",
        (true, Storage::Packed) => "HPMV",
    };
    let u = uplo(unsafe { letter(ul) });
    let one = 1i32;
    // Positions: (UPLO, N, [K], ALPHA, A, [LDA], X, INCX, BETA, Y, INCY).
    let (kp, ldp) = match st {
        Storage::Full => (&0i32 as *const i32, lda),
        Storage::Band => (k, lda),
        Storage::Packed => (&0i32 as *const i32, &one as *const i32),
    };
    let (pk, pa, plda, px, pincx, pbeta, py, pincy) = match st {
        Storage::Full => (0, 4, 5, 6, 7, 8, 9, 10),
        Storage::Band => (3, 5, 6, 7, 8, 9, 10, 11),
        Storage::Packed => (0, 4, 0, 5, 6, 7, 8, 9),
    };
    let Some([n, k, lda, incx, incy]) = (unsafe {
        ints::<T, 5>(
            base,
            [(2, n), (pk, kp), (plda, ldp), (pincx, incx), (pincy, incy)],
        )
    }) else {
        return;
    };
    let need_lda = match st {
        Storage::Full => at_least_one(n),
        Storage::Band => k + 1,
        Storage::Packed => 1,
    };
    if !check::<T>(
        base,
        &[
            (1, u.is_none()),
            (2, n < 0),
            (3, k < 0),
            (plda, lda < need_lda),
            (pincx, incx == 0),
            (pincy, incy == 0),
        ],
    ) {
        return;
    }
    let Some([alpha, beta]) =
        (unsafe { scalars::<T, T, 2>(base, [(pa - 1, alpha), (pbeta, beta)]) })
    else {
        return;
    };
    let Some(u) = u else { return };
    if n == 0 || (alpha == T::zero() && beta == T::one()) {
        return;
    }
    let la = match st {
        Storage::Full => mat(n, n, lda),
        Storage::Band => mat(k + 1, n, lda),
        Storage::Packed => packed(n),
    };
    let (lx, ly) = (vec(n, incx), vec(n, incy));
    if !arrays::<T>(
        base,
        &[(pa, a.cast(), la), (px, x.cast(), lx), (py, y.cast(), ly)],
    ) {
        return;
    }
    let (n, k, lda, incx, incy) = (
        n as usize,
        k as usize,
        lda as usize,
        incx as isize,
        incy as isize,
    );
    run(&name::<T>(base), Work::Stream, |s| {
        // SAFETY: extents from the checked arguments.
        let (ab, xb, mut yb) = unsafe { (s.input(a, la)?, s.input(x, lx)?, s.output(y, ly)?) };
        let (av, xv, mut yv) = (ab.view(), xb.view(), yb.view_mut());
        let b = s.blas;
        match (herm, st) {
            (false, Storage::Full) => b.symv(u, n, alpha, &av, lda, &xv, incx, beta, &mut yv, incy),
            (false, Storage::Band) => {
                b.sbmv(u, n, k, alpha, &av, lda, &xv, incx, beta, &mut yv, incy)
            }
            (false, Storage::Packed) => b.spmv(u, n, alpha, &av, &xv, incx, beta, &mut yv, incy),
            (true, Storage::Full) => b.hemv(u, n, alpha, &av, lda, &xv, incx, beta, &mut yv, incy),
            (true, Storage::Band) => {
                b.hbmv(u, n, k, alpha, &av, lda, &xv, incx, beta, &mut yv, incy)
            }
            (true, Storage::Packed) => b.hpmv(u, n, alpha, &av, &xv, incx, beta, &mut yv, incy),
        }?;
        yb.finish()
    });
}

/// Triangular products and solves in full, band and packed storage.
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn trxv<T: Scalar>(
    solve: bool,
    st: Storage,
    ul: *const c_char,
    tr: *const c_char,
    dg: *const c_char,
    n: *const i32,
    k: *const i32,
    a: *const T,
    lda: *const i32,
    x: *mut T,
    incx: *const i32,
) {
    let base = match (solve, st) {
        (false, Storage::Full) => "TRMV",
        (false, Storage::Band) => "TBMV",
        (false, Storage::Packed) => "TPMV",
        (true, Storage::Full) => "TRSV",
        (true, Storage::Band) => "TBSV",
        (true, Storage::Packed) => "TPSV",
    };
    let (u, t, d) = unsafe { (uplo(letter(ul)), trans(letter(tr)), diag(letter(dg))) };
    let one = 1i32;
    // Positions: (UPLO, TRANS, DIAG, N, [K], A, [LDA], X, INCX).
    let (kp, ldp) = match st {
        Storage::Full => (&0i32 as *const i32, lda),
        Storage::Band => (k, lda),
        Storage::Packed => (&0i32 as *const i32, &one as *const i32),
    };
    let (pk, pa, plda, px, pincx) = match st {
        Storage::Full => (0, 5, 6, 7, 8),
        Storage::Band => (5, 6, 7, 8, 9),
        Storage::Packed => (0, 5, 0, 6, 7),
    };
    let Some([n, k, lda, incx]) =
        (unsafe { ints::<T, 4>(base, [(4, n), (pk, kp), (plda, ldp), (pincx, incx)]) })
    else {
        return;
    };
    let need_lda = match st {
        Storage::Full => at_least_one(n),
        Storage::Band => k + 1,
        Storage::Packed => 1,
    };
    if !check::<T>(
        base,
        &[
            (1, u.is_none()),
            (2, t.is_none()),
            (3, d.is_none()),
            (4, n < 0),
            (5, k < 0),
            (plda, lda < need_lda),
            (pincx, incx == 0),
        ],
    ) {
        return;
    }
    let (Some(u), Some(t), Some(d)) = (u, t, d) else {
        return;
    };
    if n == 0 {
        return;
    }
    let la = match st {
        Storage::Full => mat(n, n, lda),
        Storage::Band => mat(k + 1, n, lda),
        Storage::Packed => packed(n),
    };
    let lx = vec(n, incx);
    if !arrays::<T>(base, &[(pa, a.cast(), la), (px, x.cast(), lx)]) {
        return;
    }
    let (n, k, lda, incx) = (n as usize, k as usize, lda as usize, incx as isize);
    run(&name::<T>(base), Work::Stream, |s| {
        // SAFETY: extents from the checked arguments.
        let (ab, mut xb) = unsafe { (s.input(a, la)?, s.output(x, lx)?) };
        let (av, mut xv) = (ab.view(), xb.view_mut());
        let b = s.blas;
        match (solve, st) {
            (false, Storage::Full) => b.trmv(u, t, d, n, &av, lda, &mut xv, incx),
            (false, Storage::Band) => b.tbmv(u, t, d, n, k, &av, lda, &mut xv, incx),
            (false, Storage::Packed) => b.tpmv(u, t, d, n, &av, &mut xv, incx),
            (true, Storage::Full) => b.trsv(u, t, d, n, &av, lda, &mut xv, incx),
            (true, Storage::Band) => b.tbsv(u, t, d, n, k, &av, lda, &mut xv, incx),
            (true, Storage::Packed) => b.tpsv(u, t, d, n, &av, &mut xv, incx),
        }?;
        xb.finish()
    });
}

/// General rank-1 updates: ger (real), geru, gerc.
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn ger<T: Scalar>(
    base: &'static str,
    conj: bool,
    m: *const i32,
    n: *const i32,
    alpha: *const T,
    x: *const T,
    incx: *const i32,
    y: *const T,
    incy: *const i32,
    a: *mut T,
    lda: *const i32,
) {
    let Some([m, n, incx, incy, lda]) =
        (unsafe { ints::<T, 5>(base, [(1, m), (2, n), (5, incx), (7, incy), (9, lda)]) })
    else {
        return;
    };
    if !check::<T>(
        base,
        &[
            (1, m < 0),
            (2, n < 0),
            (5, incx == 0),
            (7, incy == 0),
            (9, lda < at_least_one(m)),
        ],
    ) {
        return;
    }
    let Some([alpha]) = (unsafe { scalars::<T, T, 1>(base, [(3, alpha)]) }) else {
        return;
    };
    if m == 0 || n == 0 || alpha == T::zero() {
        return;
    }
    let (lx, ly, la) = (vec(m, incx), vec(n, incy), mat(m, n, lda));
    if !arrays::<T>(
        base,
        &[(4, x.cast(), lx), (6, y.cast(), ly), (8, a.cast(), la)],
    ) {
        return;
    }
    let (m, n, lda, incx, incy) = (
        m as usize,
        n as usize,
        lda as usize,
        incx as isize,
        incy as isize,
    );
    run(&name::<T>(base), Work::Stream, |s| {
        // SAFETY: extents from the checked arguments.
        let (xb, yb, mut ab) = unsafe { (s.input(x, lx)?, s.input(y, ly)?, s.output(a, la)?) };
        let (xv, yv, mut av) = (xb.view(), yb.view(), ab.view_mut());
        if conj {
            s.blas
                .gerc(m, n, alpha, &xv, incx, &yv, incy, &mut av, lda)?;
        } else {
            s.blas
                .geru(m, n, alpha, &xv, incx, &yv, incy, &mut av, lda)?;
        }
        ab.finish()
    });
}

/// Symmetric/Hermitian rank-1 and rank-2 updates, full and packed:
/// syr, spr, her, hpr (α real for the Hermitian ones), syr2, spr2, her2, hpr2.
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn syr<T: Scalar, A: Copy + Default + PartialEq>(
    herm: bool,
    rank2: bool,
    pk: bool,
    ul: *const c_char,
    n: *const i32,
    alpha: *const A,
    x: *const T,
    incx: *const i32,
    y: *const T,
    incy: *const i32,
    a: *mut T,
    lda: *const i32,
    apply: impl Fn(&rocm_blas::Blas, Rank<'_, T>, A) -> rocm_core::Result<()>,
) {
    let base = match (herm, rank2, pk) {
        (false, false, false) => "SYR",
        (false, false, true) => "SPR",
        (false, true, false) => "SYR2",
        (false, true, true) => "SPR2",
        (true, false, false) => "HER",
        (true, false, true) => "HPR",
        (true, true, false) => "HER2",
        (true, true, true) => "HPR2",
    };
    let u = uplo(unsafe { letter(ul) });
    let one = 1i32;
    // Positions: (UPLO, N, ALPHA, X, INCX, [Y, INCY], A, [LDA]).
    let o = if rank2 { 2 } else { 0 };
    let (incy, pincy) = if rank2 {
        (incy, 7)
    } else {
        (&one as *const i32, 0)
    };
    let (lda, plda) = if pk {
        (&one as *const i32, 0)
    } else {
        (lda, 7 + o)
    };
    let Some([n, incx, incy, lda]) =
        (unsafe { ints::<T, 4>(base, [(2, n), (5, incx), (pincy, incy), (plda, lda)]) })
    else {
        return;
    };
    if !check::<T>(
        base,
        &[
            (1, u.is_none()),
            (2, n < 0),
            (5, incx == 0),
            (pincy, incy == 0),
            (plda, !pk && lda < at_least_one(n)),
        ],
    ) {
        return;
    }
    let Some([alpha]) = (unsafe { scalars::<T, A, 1>(base, [(3, alpha)]) }) else {
        return;
    };
    let Some(u) = u else { return };
    if n == 0 || alpha == A::default() {
        return;
    }
    let (lx, ly) = (vec(n, incx), if rank2 { vec(n, incy) } else { 0 });
    let la = if pk { packed(n) } else { mat(n, n, lda) };
    if !arrays::<T>(
        base,
        &[(4, x.cast(), lx), (6, y.cast(), ly), (6 + o, a.cast(), la)],
    ) {
        return;
    }
    let (n, lda, incx, incy) = (n as usize, lda as usize, incx as isize, incy as isize);
    run(&name::<T>(base), Work::Stream, |s| {
        // SAFETY: extents from the checked arguments.
        let (xb, yb, mut ab) = unsafe { (s.input(x, lx)?, s.input(y, ly)?, s.output(a, la)?) };
        let r = Rank {
            uplo: u,
            n,
            x: xb.view(),
            incx,
            y: yb.view(),
            incy,
            a: ab.view_mut(),
            lda,
        };
        apply(s.blas, r, alpha)?;
        ab.finish()
    });
}

/// The operands of one rank update, on the call's device.
pub(crate) struct Rank<'a, T: Scalar> {
    pub uplo: rocm_blas::Uplo,
    pub n: usize,
    pub x: rocm_core::BufferSlice<'a, T>,
    pub incx: isize,
    pub y: rocm_core::BufferSlice<'a, T>,
    pub incy: isize,
    pub a: rocm_core::BufferSliceMut<'a, T>,
    pub lda: usize,
}

// ---- entry points -------------------------------------------------------------------

macro_rules! level2 {
    ($($t:ty: $gemv:ident $gbmv:ident $trmv:ident $tbmv:ident $tpmv:ident $trsv:ident $tbsv:ident $tpsv:ident;)*) => {$(
        #[no_mangle]
        pub unsafe extern "C" fn $gemv(tr: *const c_char, m: *const i32, n: *const i32, alpha: *const $t, a: *const $t, lda: *const i32, x: *const $t, incx: *const i32, beta: *const $t, y: *mut $t, incy: *const i32, _tr_len: usize) {
            unsafe { gemv::<$t>(false, tr, m, n, std::ptr::null(), std::ptr::null(), alpha, a, lda, x, incx, beta, y, incy) }
        }
        #[no_mangle]
        pub unsafe extern "C" fn $gbmv(tr: *const c_char, m: *const i32, n: *const i32, kl: *const i32, ku: *const i32, alpha: *const $t, a: *const $t, lda: *const i32, x: *const $t, incx: *const i32, beta: *const $t, y: *mut $t, incy: *const i32, _tr_len: usize) {
            unsafe { gemv::<$t>(true, tr, m, n, kl, ku, alpha, a, lda, x, incx, beta, y, incy) }
        }
        #[no_mangle]
        pub unsafe extern "C" fn $trmv(u: *const c_char, t: *const c_char, d: *const c_char, n: *const i32, a: *const $t, lda: *const i32, x: *mut $t, incx: *const i32, _l1: usize, _l2: usize, _l3: usize) {
            unsafe { trxv::<$t>(false, Storage::Full, u, t, d, n, std::ptr::null(), a, lda, x, incx) }
        }
        #[no_mangle]
        pub unsafe extern "C" fn $tbmv(u: *const c_char, t: *const c_char, d: *const c_char, n: *const i32, k: *const i32, a: *const $t, lda: *const i32, x: *mut $t, incx: *const i32, _l1: usize, _l2: usize, _l3: usize) {
            unsafe { trxv::<$t>(false, Storage::Band, u, t, d, n, k, a, lda, x, incx) }
        }
        #[no_mangle]
        pub unsafe extern "C" fn $tpmv(u: *const c_char, t: *const c_char, d: *const c_char, n: *const i32, ap: *const $t, x: *mut $t, incx: *const i32, _l1: usize, _l2: usize, _l3: usize) {
            unsafe { trxv::<$t>(false, Storage::Packed, u, t, d, n, std::ptr::null(), ap, std::ptr::null(), x, incx) }
        }
        #[no_mangle]
        pub unsafe extern "C" fn $trsv(u: *const c_char, t: *const c_char, d: *const c_char, n: *const i32, a: *const $t, lda: *const i32, x: *mut $t, incx: *const i32, _l1: usize, _l2: usize, _l3: usize) {
            unsafe { trxv::<$t>(true, Storage::Full, u, t, d, n, std::ptr::null(), a, lda, x, incx) }
        }
        #[no_mangle]
        pub unsafe extern "C" fn $tbsv(u: *const c_char, t: *const c_char, d: *const c_char, n: *const i32, k: *const i32, a: *const $t, lda: *const i32, x: *mut $t, incx: *const i32, _l1: usize, _l2: usize, _l3: usize) {
            unsafe { trxv::<$t>(true, Storage::Band, u, t, d, n, k, a, lda, x, incx) }
        }
        #[no_mangle]
        pub unsafe extern "C" fn $tpsv(u: *const c_char, t: *const c_char, d: *const c_char, n: *const i32, ap: *const $t, x: *mut $t, incx: *const i32, _l1: usize, _l2: usize, _l3: usize) {
            unsafe { trxv::<$t>(true, Storage::Packed, u, t, d, n, std::ptr::null(), ap, std::ptr::null(), x, incx) }
        }
    )*};
}
level2! {
    f32: sgemv_ sgbmv_ strmv_ stbmv_ stpmv_ strsv_ stbsv_ stpsv_;
    f64: dgemv_ dgbmv_ dtrmv_ dtbmv_ dtpmv_ dtrsv_ dtbsv_ dtpsv_;
    C32: cgemv_ cgbmv_ ctrmv_ ctbmv_ ctpmv_ ctrsv_ ctbsv_ ctpsv_;
    C64: zgemv_ zgbmv_ ztrmv_ ztbmv_ ztpmv_ ztrsv_ ztbsv_ ztpsv_;
}

/// symv/sbmv/spmv (real: sy, complex: he) — `$herm` picks the Hermitian family.
macro_rules! symmetric_mv {
    ($herm:expr; $($t:ty: $full:ident $band:ident $packed:ident;)*) => {$(
        #[no_mangle]
        pub unsafe extern "C" fn $full(u: *const c_char, n: *const i32, alpha: *const $t, a: *const $t, lda: *const i32, x: *const $t, incx: *const i32, beta: *const $t, y: *mut $t, incy: *const i32, _l: usize) {
            unsafe { symv::<$t>($herm, Storage::Full, u, n, std::ptr::null(), alpha, a, lda, x, incx, beta, y, incy) }
        }
        #[no_mangle]
        pub unsafe extern "C" fn $band(u: *const c_char, n: *const i32, k: *const i32, alpha: *const $t, a: *const $t, lda: *const i32, x: *const $t, incx: *const i32, beta: *const $t, y: *mut $t, incy: *const i32, _l: usize) {
            unsafe { symv::<$t>($herm, Storage::Band, u, n, k, alpha, a, lda, x, incx, beta, y, incy) }
        }
        #[no_mangle]
        pub unsafe extern "C" fn $packed(u: *const c_char, n: *const i32, alpha: *const $t, ap: *const $t, x: *const $t, incx: *const i32, beta: *const $t, y: *mut $t, incy: *const i32, _l: usize) {
            unsafe { symv::<$t>($herm, Storage::Packed, u, n, std::ptr::null(), alpha, ap, std::ptr::null(), x, incx, beta, y, incy) }
        }
    )*};
}
symmetric_mv! { false;
    f32: ssymv_ ssbmv_ sspmv_;
    f64: dsymv_ dsbmv_ dspmv_;
}
symmetric_mv! { true;
    C32: chemv_ chbmv_ chpmv_;
    C64: zhemv_ zhbmv_ zhpmv_;
}

macro_rules! general_rank1 {
    ($($t:ty: $f:ident $base:literal $conj:expr;)*) => {$(
        #[no_mangle]
        pub unsafe extern "C" fn $f(m: *const i32, n: *const i32, alpha: *const $t, x: *const $t, incx: *const i32, y: *const $t, incy: *const i32, a: *mut $t, lda: *const i32) {
            unsafe { ger::<$t>($base, $conj, m, n, alpha, x, incx, y, incy, a, lda) }
        }
    )*};
}
general_rank1! {
    f32: sger_ "GER" false;
    f64: dger_ "GER" false;
    C32: cgeru_ "GERU" false;
    C64: zgeru_ "GERU" false;
    C32: cgerc_ "GERC" true;
    C64: zgerc_ "GERC" true;
}

/// syr/spr/syr2/spr2 for real types, her/hpr/her2/hpr2 for complex ones.
macro_rules! symmetric_rank {
    ($($t:ty, $r:ty: $syr:ident $spr:ident $syr2:ident $spr2:ident, $herm:expr, $one:ident, $two:ident;)*) => {$(
        #[no_mangle]
        pub unsafe extern "C" fn $syr(u: *const c_char, n: *const i32, alpha: *const $r, x: *const $t, incx: *const i32, a: *mut $t, lda: *const i32, _l: usize) {
            unsafe { syr::<$t, $r>($herm, false, false, u, n, alpha, x, incx, std::ptr::null(), std::ptr::null(), a, lda, |b, r, al| $one(b, r, al, false)) }
        }
        #[no_mangle]
        pub unsafe extern "C" fn $spr(u: *const c_char, n: *const i32, alpha: *const $r, x: *const $t, incx: *const i32, ap: *mut $t, _l: usize) {
            unsafe { syr::<$t, $r>($herm, false, true, u, n, alpha, x, incx, std::ptr::null(), std::ptr::null(), ap, std::ptr::null(), |b, r, al| $one(b, r, al, true)) }
        }
        #[no_mangle]
        pub unsafe extern "C" fn $syr2(u: *const c_char, n: *const i32, alpha: *const $t, x: *const $t, incx: *const i32, y: *const $t, incy: *const i32, a: *mut $t, lda: *const i32, _l: usize) {
            unsafe { syr::<$t, $t>($herm, true, false, u, n, alpha, x, incx, y, incy, a, lda, |b, r, al| $two(b, r, al, false)) }
        }
        #[no_mangle]
        pub unsafe extern "C" fn $spr2(u: *const c_char, n: *const i32, alpha: *const $t, x: *const $t, incx: *const i32, y: *const $t, incy: *const i32, ap: *mut $t, _l: usize) {
            unsafe { syr::<$t, $t>($herm, true, true, u, n, alpha, x, incx, y, incy, ap, std::ptr::null(), |b, r, al| $two(b, r, al, true)) }
        }
    )*};
}

fn sym1<T: Scalar>(
    b: &rocm_blas::Blas,
    mut r: Rank<'_, T>,
    alpha: T,
    pk: bool,
) -> rocm_core::Result<()> {
    if pk {
        b.spr(r.uplo, r.n, alpha, &r.x, r.incx, &mut r.a)
    } else {
        b.syr(r.uplo, r.n, alpha, &r.x, r.incx, &mut r.a, r.lda)
    }
}

fn sym2<T: Scalar>(
    b: &rocm_blas::Blas,
    mut r: Rank<'_, T>,
    alpha: T,
    pk: bool,
) -> rocm_core::Result<()> {
    if pk {
        b.spr2(r.uplo, r.n, alpha, &r.x, r.incx, &r.y, r.incy, &mut r.a)
    } else {
        b.syr2(
            r.uplo, r.n, alpha, &r.x, r.incx, &r.y, r.incy, &mut r.a, r.lda,
        )
    }
}

fn her1<T: Scalar>(
    b: &rocm_blas::Blas,
    mut r: Rank<'_, T>,
    alpha: T::Real,
    pk: bool,
) -> rocm_core::Result<()> {
    if pk {
        b.hpr(r.uplo, r.n, alpha, &r.x, r.incx, &mut r.a)
    } else {
        b.her(r.uplo, r.n, alpha, &r.x, r.incx, &mut r.a, r.lda)
    }
}

fn her2<T: Scalar>(
    b: &rocm_blas::Blas,
    mut r: Rank<'_, T>,
    alpha: T,
    pk: bool,
) -> rocm_core::Result<()> {
    if pk {
        b.hpr2(r.uplo, r.n, alpha, &r.x, r.incx, &r.y, r.incy, &mut r.a)
    } else {
        b.her2(
            r.uplo, r.n, alpha, &r.x, r.incx, &r.y, r.incy, &mut r.a, r.lda,
        )
    }
}

symmetric_rank! {
    f32, f32: ssyr_ sspr_ ssyr2_ sspr2_, false, sym1, sym2;
    f64, f64: dsyr_ dspr_ dsyr2_ dspr2_, false, sym1, sym2;
    C32, f32: cher_ chpr_ cher2_ chpr2_, true, her1, her2;
    C64, f64: zher_ zhpr_ zher2_ zhpr2_, true, her1, her2;
}
