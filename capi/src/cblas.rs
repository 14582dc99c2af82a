//! CBLAS (`cblas_*`): the C interface, row- and column-major, on top of the Fortran
//! entry points' generics.
//!
//! A row-major matrix is the column-major transpose, so each row-major call becomes the
//! Fortran call on the transposed problem (dimensions and triangles swapped, operands
//! exchanged, and for complex Hermitian or conjugated cases the conjugated problem on
//! conjugated vectors), as reference CBLAS does. Invalid enumerations are reported to
//! `cblas_xerbla` by their CBLAS position; the Fortran checks report through XERBLA
//! while the global `RowMajorStrg` says the call came row-major (netlib's CBLAS tests
//! read it to map the positions back).

use crate::blas2::Storage;
use crate::blas3::RankK;
use crate::{blas1, blas2, blas3};
use rocm_blas::Scalar;
use rocm_core::{Complex32, Complex64};
use std::ffi::{c_char, c_int, c_void};

type C32 = Complex32;
type C64 = Complex64;

const ROW_MAJOR: c_int = 101;
const COL_MAJOR: c_int = 102;

/// Reference CBLAS's globals: `RowMajorStrg` is 1 while a row-major call runs.
#[no_mangle]
pub static mut RowMajorStrg: c_int = 0;
#[no_mangle]
pub static mut CBLAS_CallFromC: c_int = 0;

/// Sets the `RowMajorStrg` a program reads: the executable's own when it defines one
/// (netlib's tests do), else ours.
fn set_row_major(on: bool) {
    // SAFETY: dlsym with a NUL-terminated name; the symbol is a C int wherever defined.
    unsafe {
        let p = libc::dlsym(libc::RTLD_DEFAULT, c"RowMajorStrg".as_ptr()).cast::<c_int>();
        let p = if p.is_null() {
            &raw mut RowMajorStrg
        } else {
            p
        };
        p.write_volatile(c_int::from(on));
    }
}

type CblasXerblaFn = unsafe extern "C" fn(c_int, *const c_char, *const c_char, ...);

/// Reports CBLAS argument `pos` of `routine` ("cblas_dgemv") to `cblas_xerbla`, the
/// program's own when it defines one.
fn cblas_report(pos: c_int, routine: &str) {
    let name = format!("{routine}\0");
    // SAFETY: dlsym with a NUL-terminated name; a non-null result has cblas_xerbla's
    // signature. The strings are NUL-terminated and outlive the call.
    unsafe {
        let sym = libc::dlsym(libc::RTLD_DEFAULT, c"cblas_xerbla".as_ptr());
        if sym.is_null() {
            cblas_xerbla(pos, name.as_ptr().cast(), c"".as_ptr());
        } else {
            let f = std::mem::transmute::<*mut c_void, CblasXerblaFn>(sym);
            f(pos, name.as_ptr().cast(), c"".as_ptr());
        }
    }
}

/// The default `cblas_xerbla`: reference CBLAS's message. (C declares it variadic; the
/// format arguments after `form` are not read, which the C calling convention allows.)
#[no_mangle]
pub unsafe extern "C" fn cblas_xerbla(info: c_int, rout: *const c_char, _form: *const c_char) {
    let name = if rout.is_null() {
        String::new()
    } else {
        // SAFETY: a NUL-terminated routine name.
        unsafe { std::ffi::CStr::from_ptr(rout) }
            .to_string_lossy()
            .into_owned()
    };
    eprintln!("Parameter {info} to routine {name} was incorrect");
}

/// A decoded layout: `Some(row_major)`, or `None` after reporting position 1.
fn layout(l: c_int, routine: &str) -> Option<bool> {
    match l {
        ROW_MAJOR => Some(true),
        COL_MAJOR => Some(false),
        _ => {
            cblas_report(1, routine);
            None
        }
    }
}

/// The Fortran letter of a CBLAS enumeration value, from a table of (value, letter).
fn letter_of(v: c_int, table: &[(c_int, u8)]) -> Option<u8> {
    table.iter().find(|(k, _)| *k == v).map(|&(_, c)| c)
}

const TRANS: [(c_int, u8); 3] = [(111, b'N'), (112, b'T'), (113, b'C')];
const UPLO: [(c_int, u8); 2] = [(121, b'U'), (122, b'L')];
const DIAG: [(c_int, u8); 2] = [(131, b'N'), (132, b'U')];
const SIDE: [(c_int, u8); 2] = [(141, b'L'), (142, b'R')];

/// Decodes enumeration `v` at CBLAS position `pos`, reporting it when invalid.
fn decode(v: c_int, table: &[(c_int, u8)], pos: c_int, routine: &str) -> Option<u8> {
    let c = letter_of(v, table);
    if c.is_none() {
        cblas_report(pos, routine);
    }
    c
}

fn flip_uplo(c: u8) -> u8 {
    if c == b'U' {
        b'L'
    } else {
        b'U'
    }
}

fn flip_side(c: u8) -> u8 {
    if c == b'L' {
        b'R'
    } else {
        b'L'
    }
}

/// Transposition of the transposed problem: N ↔ T (real C counts as T).
fn flip_trans(c: u8) -> u8 {
    if c == b'N' {
        b'T'
    } else {
        b'N'
    }
}

/// Runs `f` with `RowMajorStrg` set for its duration.
fn with_layout(row: bool, f: impl FnOnce()) {
    set_row_major(row);
    f();
    set_row_major(false);
}

fn ch(c: &u8) -> *const c_char {
    (c as *const u8).cast()
}

/// Conjugates an n-vector in place (increment inc; no-op for real types).
///
/// # Safety
/// `x` holds the n-vector with increment `inc`.
unsafe fn conj_in_place<T: Scalar>(n: c_int, x: *mut T, inc: c_int) {
    if !T::IS_COMPLEX || n <= 0 || x.is_null() || inc == 0 {
        return;
    }
    let step = inc.unsigned_abs() as usize;
    for i in 0..n as usize {
        // SAFETY: inside the caller's vector.
        unsafe {
            let p = x.add(i * step);
            *p = (*p).conj();
        }
    }
}

/// A conjugated contiguous copy of an n-vector with increment `inc`, in storage order,
/// with the increment to read it by (±1, keeping the sign so that BLAS's far-end walk of
/// a negative increment sees the same order). A zero increment comes back as 0, so the
/// Fortran checks still report it.
///
/// # Safety
/// `x` holds the n-vector with increment `inc`.
unsafe fn conj_copy<T: Scalar>(n: c_int, x: *const T, inc: c_int) -> (Vec<T>, c_int) {
    if n <= 0 || x.is_null() || inc == 0 {
        return (Vec::new(), inc.signum());
    }
    let step = inc.unsigned_abs() as usize;
    // SAFETY: inside the caller's vector.
    let v = (0..n as usize)
        .map(|i| unsafe { *x.add(i * step) }.conj())
        .collect();
    (v, inc.signum())
}

// ---- Level 1 ------------------------------------------------------------------------

macro_rules! cblas_level1 {
    ($($t:ty, $r:ty: $axpy:ident $copy:ident $swap:ident $nrm2:ident $asum:ident $amax:ident;)*) => {$(
        #[no_mangle]
        pub unsafe extern "C" fn $axpy(n: c_int, alpha: Scalarg<$t>, x: *const $t, incx: c_int, y: *mut $t, incy: c_int) {
            let a = alpha.get();
            unsafe { blas1::axpy::<$t>(&n, &a, x, &incx, y, &incy) }
        }
        #[no_mangle]
        pub unsafe extern "C" fn $copy(n: c_int, x: *const $t, incx: c_int, y: *mut $t, incy: c_int) {
            unsafe { blas1::copy::<$t>(&n, x, &incx, y, &incy) }
        }
        #[no_mangle]
        pub unsafe extern "C" fn $swap(n: c_int, x: *mut $t, incx: c_int, y: *mut $t, incy: c_int) {
            unsafe { blas1::swap::<$t>(&n, x, &incx, y, &incy) }
        }
        #[no_mangle]
        pub unsafe extern "C" fn $nrm2(n: c_int, x: *const $t, incx: c_int) -> $r {
            unsafe { blas1::nrm2::<$t>(&n, x, &incx) }
        }
        #[no_mangle]
        pub unsafe extern "C" fn $asum(n: c_int, x: *const $t, incx: c_int) -> $r {
            unsafe { blas1::asum::<$t>(&n, x, &incx) }
        }
        /// 0-based, as CBLAS_INDEX.
        #[no_mangle]
        pub unsafe extern "C" fn $amax(n: c_int, x: *const $t, incx: c_int) -> usize {
            let i = unsafe { blas1::iamax::<$t>(&n, x, &incx) };
            if i > 0 { i as usize - 1 } else { 0 }
        }
    )*};
}

/// CBLAS passes real scalars by value and complex ones by pointer.
#[repr(transparent)]
pub struct Scalarg<T: ByArg>(T::Repr);

pub trait ByArg: Scalar {
    type Repr: Copy;
    /// # Safety
    /// A pointer representation is null or points at a value.
    unsafe fn read(r: Self::Repr) -> Self;
}

impl ByArg for f32 {
    type Repr = f32;
    unsafe fn read(r: f32) -> f32 {
        r
    }
}

impl ByArg for f64 {
    type Repr = f64;
    unsafe fn read(r: f64) -> f64 {
        r
    }
}

impl ByArg for C32 {
    type Repr = *const C32;
    unsafe fn read(r: *const C32) -> C32 {
        // SAFETY: CBLAS's complex α/β point at a value (null reads as 0).
        if r.is_null() {
            C32::new(0.0, 0.0)
        } else {
            unsafe { *r }
        }
    }
}

impl ByArg for C64 {
    type Repr = *const C64;
    unsafe fn read(r: *const C64) -> C64 {
        // SAFETY: as above.
        if r.is_null() {
            C64::new(0.0, 0.0)
        } else {
            unsafe { *r }
        }
    }
}

impl<T: ByArg> Scalarg<T> {
    /// # Safety
    /// As [`ByArg::read`].
    unsafe fn get(&self) -> T {
        // SAFETY: forwarded from the caller.
        unsafe { T::read(self.0) }
    }
}

cblas_level1! {
    f32, f32: cblas_saxpy cblas_scopy cblas_sswap cblas_snrm2 cblas_sasum cblas_isamax;
    f64, f64: cblas_daxpy cblas_dcopy cblas_dswap cblas_dnrm2 cblas_dasum cblas_idamax;
    C32, f32: cblas_caxpy cblas_ccopy cblas_cswap cblas_scnrm2 cblas_scasum cblas_icamax;
    C64, f64: cblas_zaxpy cblas_zcopy cblas_zswap cblas_dznrm2 cblas_dzasum cblas_izamax;
}

macro_rules! cblas_real1 {
    ($($t:ty: $dot:ident $scal:ident $rot:ident $rotg:ident $rotm:ident $rotmg:ident;)*) => {$(
        #[no_mangle]
        pub unsafe extern "C" fn $dot(n: c_int, x: *const $t, incx: c_int, y: *const $t, incy: c_int) -> $t {
            unsafe { blas1::dot::<$t>(false, &n, x, &incx, y, &incy) }
        }
        #[no_mangle]
        pub unsafe extern "C" fn $scal(n: c_int, alpha: $t, x: *mut $t, incx: c_int) {
            unsafe { blas1::scal::<$t, $t>(&n, &alpha, x, &incx) }
        }
        #[no_mangle]
        pub unsafe extern "C" fn $rot(n: c_int, x: *mut $t, incx: c_int, y: *mut $t, incy: c_int, c: $t, s: $t) {
            unsafe { blas1::rot::<$t>(&n, x, &incx, y, &incy, &c, &s) }
        }
        #[no_mangle]
        pub unsafe extern "C" fn $rotg(a: *mut $t, b: *mut $t, c: *mut $t, s: *mut $t) {
            unsafe { blas1::rotg(a, b, c, s) }
        }
        #[no_mangle]
        pub unsafe extern "C" fn $rotm(n: c_int, x: *mut $t, incx: c_int, y: *mut $t, incy: c_int, p: *const $t) {
            unsafe { blas1::rotm(&n, x, &incx, y, &incy, p) }
        }
        #[no_mangle]
        pub unsafe extern "C" fn $rotmg(d1: *mut $t, d2: *mut $t, b1: *mut $t, b2: $t, p: *mut $t) {
            unsafe { blas1::rotmg(d1, d2, b1, &b2, p) }
        }
    )*};
}
cblas_real1! {
    f32: cblas_sdot cblas_sscal cblas_srot cblas_srotg cblas_srotm cblas_srotmg;
    f64: cblas_ddot cblas_dscal cblas_drot cblas_drotg cblas_drotm cblas_drotmg;
}

#[no_mangle]
pub unsafe extern "C" fn cblas_sdsdot(
    n: c_int,
    sb: f32,
    x: *const f32,
    incx: c_int,
    y: *const f32,
    incy: c_int,
) -> f32 {
    unsafe { blas1::sdsdot_(&n, &sb, x, &incx, y, &incy) }
}

#[no_mangle]
pub unsafe extern "C" fn cblas_dsdot(
    n: c_int,
    x: *const f32,
    incx: c_int,
    y: *const f32,
    incy: c_int,
) -> f64 {
    unsafe { blas1::dsdot_(&n, x, &incx, y, &incy) }
}

macro_rules! cblas_complex1 {
    ($($t:ty, $r:ty: $dotu:ident $dotc:ident $scal:ident $rscal:ident $rot:ident $rotg:ident;)*) => {$(
        #[no_mangle]
        pub unsafe extern "C" fn $dotu(n: c_int, x: *const $t, incx: c_int, y: *const $t, incy: c_int, out: *mut $t) {
            let d = unsafe { blas1::dot::<$t>(false, &n, x, &incx, y, &incy) };
            if !out.is_null() {
                // SAFETY: the caller's result slot.
                unsafe { *out = d };
            }
        }
        #[no_mangle]
        pub unsafe extern "C" fn $dotc(n: c_int, x: *const $t, incx: c_int, y: *const $t, incy: c_int, out: *mut $t) {
            let d = unsafe { blas1::dot::<$t>(true, &n, x, &incx, y, &incy) };
            if !out.is_null() {
                // SAFETY: the caller's result slot.
                unsafe { *out = d };
            }
        }
        #[no_mangle]
        pub unsafe extern "C" fn $scal(n: c_int, alpha: *const $t, x: *mut $t, incx: c_int) {
            unsafe { blas1::scal::<$t, $t>(&n, alpha, x, &incx) }
        }
        #[no_mangle]
        pub unsafe extern "C" fn $rscal(n: c_int, alpha: $r, x: *mut $t, incx: c_int) {
            let a = <$t>::new(alpha, 0.0);
            unsafe { blas1::scal::<$t, $t>(&n, &a, x, &incx) }
        }
        #[no_mangle]
        pub unsafe extern "C" fn $rot(n: c_int, x: *mut $t, incx: c_int, y: *mut $t, incy: c_int, c: $r, s: $r) {
            unsafe { blas1::rot::<$t>(&n, x, &incx, y, &incy, &c, &s) }
        }
        #[no_mangle]
        pub unsafe extern "C" fn $rotg(a: *mut $t, b: *const $t, c: *mut $r, s: *mut $t) {
            unsafe { blas1::rotg_complex(a, b, c, s) }
        }
    )*};
}
cblas_complex1! {
    C32, f32: cblas_cdotu_sub cblas_cdotc_sub cblas_cscal cblas_csscal cblas_csrot cblas_crotg;
    C64, f64: cblas_zdotu_sub cblas_zdotc_sub cblas_zscal cblas_zdscal cblas_zdrot cblas_zrotg;
}

// ---- Level 2 ------------------------------------------------------------------------

/// gemv and gbmv (kl = ku = None for gemv).
#[allow(clippy::too_many_arguments)]
unsafe fn gemv<T: Scalar>(
    routine: &str,
    lay: c_int,
    tr: c_int,
    m: c_int,
    n: c_int,
    band: Option<(c_int, c_int)>,
    alpha: T,
    a: *const T,
    lda: c_int,
    x: *const T,
    incx: c_int,
    beta: T,
    y: *mut T,
    incy: c_int,
) {
    let Some(row) = layout(lay, routine) else {
        return;
    };
    let Some(t) = decode(tr, &TRANS, 2, routine) else {
        return;
    };
    let isband = band.is_some();
    let (kl, ku) = band.unwrap_or((0, 0));
    with_layout(row, || {
        if !row {
            // SAFETY: forwarded from the caller.
            unsafe {
                blas2::gemv::<T>(
                    isband,
                    ch(&t),
                    &m,
                    &n,
                    &kl,
                    &ku,
                    &alpha,
                    a,
                    &lda,
                    x,
                    &incx,
                    &beta,
                    y,
                    &incy,
                )
            };
            return;
        }
        if t == b'C' && T::IS_COMPLEX {
            // y = α·conj(A_c)·x + β·y  ⇔  conj(y) = conj(α)·A_c·conj(x) + conj(β)·conj(y).
            // op(A) = Aᴴ: x has m elements, y has n.
            // SAFETY: the caller's vectors.
            unsafe {
                let (xc, incc) = conj_copy(m, x, incx);
                conj_in_place(n, y, incy);
                let (ac, bc) = (alpha.conj(), beta.conj());
                blas2::gemv::<T>(
                    isband,
                    ch(&b'N'),
                    &n,
                    &m,
                    &ku,
                    &kl,
                    &ac,
                    a,
                    &lda,
                    xc.as_ptr(),
                    &incc,
                    &bc,
                    y,
                    &incy,
                );
                conj_in_place(n, y, incy);
            }
        } else {
            let t = flip_trans(t);
            // SAFETY: forwarded from the caller.
            unsafe {
                blas2::gemv::<T>(
                    isband,
                    ch(&t),
                    &n,
                    &m,
                    &ku,
                    &kl,
                    &alpha,
                    a,
                    &lda,
                    x,
                    &incx,
                    &beta,
                    y,
                    &incy,
                )
            };
        }
    });
}

macro_rules! cblas_gemv {
    ($($t:ty: $gemv:ident $gbmv:ident;)*) => {$(
        #[no_mangle]
        pub unsafe extern "C" fn $gemv(lay: c_int, tr: c_int, m: c_int, n: c_int, alpha: Scalarg<$t>, a: *const $t, lda: c_int, x: *const $t, incx: c_int, beta: Scalarg<$t>, y: *mut $t, incy: c_int) {
            unsafe { gemv::<$t>(stringify!($gemv), lay, tr, m, n, None, alpha.get(), a, lda, x, incx, beta.get(), y, incy) }
        }
        #[no_mangle]
        pub unsafe extern "C" fn $gbmv(lay: c_int, tr: c_int, m: c_int, n: c_int, kl: c_int, ku: c_int, alpha: Scalarg<$t>, a: *const $t, lda: c_int, x: *const $t, incx: c_int, beta: Scalarg<$t>, y: *mut $t, incy: c_int) {
            unsafe { gemv::<$t>(stringify!($gbmv), lay, tr, m, n, Some((kl, ku)), alpha.get(), a, lda, x, incx, beta.get(), y, incy) }
        }
    )*};
}
cblas_gemv! {
    f32: cblas_sgemv cblas_sgbmv;
    f64: cblas_dgemv cblas_dgbmv;
    C32: cblas_cgemv cblas_cgbmv;
    C64: cblas_zgemv cblas_zgbmv;
}

/// symv/sbmv/spmv and hemv/hbmv/hpmv.
#[allow(clippy::too_many_arguments)]
unsafe fn symv<T: Scalar>(
    routine: &str,
    herm: bool,
    st: Storage,
    lay: c_int,
    ul: c_int,
    n: c_int,
    k: c_int,
    alpha: T,
    a: *const T,
    lda: c_int,
    x: *const T,
    incx: c_int,
    beta: T,
    y: *mut T,
    incy: c_int,
) {
    let Some(row) = layout(lay, routine) else {
        return;
    };
    let Some(u) = decode(ul, &UPLO, 2, routine) else {
        return;
    };
    with_layout(row, || {
        if !row {
            // SAFETY: forwarded from the caller.
            unsafe {
                blas2::symv::<T>(
                    herm,
                    st,
                    ch(&u),
                    &n,
                    &k,
                    &alpha,
                    a,
                    &lda,
                    x,
                    &incx,
                    &beta,
                    y,
                    &incy,
                )
            };
            return;
        }
        let u = flip_uplo(u);
        if herm {
            // The stored triangle is conj(A): conjugate the problem.
            // SAFETY: the caller's vectors.
            unsafe {
                let (xc, incc) = conj_copy(n, x, incx);
                conj_in_place(n, y, incy);
                let (ac, bc) = (alpha.conj(), beta.conj());
                blas2::symv::<T>(
                    herm,
                    st,
                    ch(&u),
                    &n,
                    &k,
                    &ac,
                    a,
                    &lda,
                    xc.as_ptr(),
                    &incc,
                    &bc,
                    y,
                    &incy,
                );
                conj_in_place(n, y, incy);
            }
        } else {
            // SAFETY: forwarded from the caller.
            unsafe {
                blas2::symv::<T>(
                    herm,
                    st,
                    ch(&u),
                    &n,
                    &k,
                    &alpha,
                    a,
                    &lda,
                    x,
                    &incx,
                    &beta,
                    y,
                    &incy,
                )
            };
        }
    });
}

macro_rules! cblas_symv {
    ($herm:expr; $($t:ty: $full:ident $band:ident $packed:ident;)*) => {$(
        #[no_mangle]
        pub unsafe extern "C" fn $full(lay: c_int, ul: c_int, n: c_int, alpha: Scalarg<$t>, a: *const $t, lda: c_int, x: *const $t, incx: c_int, beta: Scalarg<$t>, y: *mut $t, incy: c_int) {
            unsafe { symv::<$t>(stringify!($full), $herm, Storage::Full, lay, ul, n, 0, alpha.get(), a, lda, x, incx, beta.get(), y, incy) }
        }
        #[no_mangle]
        pub unsafe extern "C" fn $band(lay: c_int, ul: c_int, n: c_int, k: c_int, alpha: Scalarg<$t>, a: *const $t, lda: c_int, x: *const $t, incx: c_int, beta: Scalarg<$t>, y: *mut $t, incy: c_int) {
            unsafe { symv::<$t>(stringify!($band), $herm, Storage::Band, lay, ul, n, k, alpha.get(), a, lda, x, incx, beta.get(), y, incy) }
        }
        #[no_mangle]
        pub unsafe extern "C" fn $packed(lay: c_int, ul: c_int, n: c_int, alpha: Scalarg<$t>, ap: *const $t, x: *const $t, incx: c_int, beta: Scalarg<$t>, y: *mut $t, incy: c_int) {
            unsafe { symv::<$t>(stringify!($packed), $herm, Storage::Packed, lay, ul, n, 0, alpha.get(), ap, 1, x, incx, beta.get(), y, incy) }
        }
    )*};
}
cblas_symv! { false;
    f32: cblas_ssymv cblas_ssbmv cblas_sspmv;
    f64: cblas_dsymv cblas_dsbmv cblas_dspmv;
}
cblas_symv! { true;
    C32: cblas_chemv cblas_chbmv cblas_chpmv;
    C64: cblas_zhemv cblas_zhbmv cblas_zhpmv;
}

/// trmv/tbmv/tpmv/trsv/tbsv/tpsv.
#[allow(clippy::too_many_arguments)]
unsafe fn trxv<T: Scalar>(
    routine: &str,
    solve: bool,
    st: Storage,
    lay: c_int,
    ul: c_int,
    tr: c_int,
    dg: c_int,
    n: c_int,
    k: c_int,
    a: *const T,
    lda: c_int,
    x: *mut T,
    incx: c_int,
) {
    let Some(row) = layout(lay, routine) else {
        return;
    };
    let Some(u) = decode(ul, &UPLO, 2, routine) else {
        return;
    };
    let Some(t) = decode(tr, &TRANS, 3, routine) else {
        return;
    };
    let Some(d) = decode(dg, &DIAG, 4, routine) else {
        return;
    };
    with_layout(row, || {
        if !row {
            // SAFETY: forwarded from the caller.
            unsafe {
                blas2::trxv::<T>(solve, st, ch(&u), ch(&t), ch(&d), &n, &k, a, &lda, x, &incx)
            };
            return;
        }
        let u = flip_uplo(u);
        if t == b'C' && T::IS_COMPLEX {
            // x ← conj(A_c)·x  ⇔  conj(x) ← A_c·conj(x).
            // SAFETY: the caller's vector.
            unsafe {
                conj_in_place(n, x, incx);
                blas2::trxv::<T>(
                    solve,
                    st,
                    ch(&u),
                    ch(&b'N'),
                    ch(&d),
                    &n,
                    &k,
                    a,
                    &lda,
                    x,
                    &incx,
                );
                conj_in_place(n, x, incx);
            }
        } else {
            let t = flip_trans(t);
            // SAFETY: forwarded from the caller.
            unsafe {
                blas2::trxv::<T>(solve, st, ch(&u), ch(&t), ch(&d), &n, &k, a, &lda, x, &incx)
            };
        }
    });
}

macro_rules! cblas_trxv {
    ($($t:ty: $trmv:ident $tbmv:ident $tpmv:ident $trsv:ident $tbsv:ident $tpsv:ident;)*) => {$(
        #[no_mangle]
        pub unsafe extern "C" fn $trmv(lay: c_int, u: c_int, t: c_int, d: c_int, n: c_int, a: *const $t, lda: c_int, x: *mut $t, incx: c_int) {
            unsafe { trxv::<$t>(stringify!($trmv), false, Storage::Full, lay, u, t, d, n, 0, a, lda, x, incx) }
        }
        #[no_mangle]
        pub unsafe extern "C" fn $tbmv(lay: c_int, u: c_int, t: c_int, d: c_int, n: c_int, k: c_int, a: *const $t, lda: c_int, x: *mut $t, incx: c_int) {
            unsafe { trxv::<$t>(stringify!($tbmv), false, Storage::Band, lay, u, t, d, n, k, a, lda, x, incx) }
        }
        #[no_mangle]
        pub unsafe extern "C" fn $tpmv(lay: c_int, u: c_int, t: c_int, d: c_int, n: c_int, ap: *const $t, x: *mut $t, incx: c_int) {
            unsafe { trxv::<$t>(stringify!($tpmv), false, Storage::Packed, lay, u, t, d, n, 0, ap, 1, x, incx) }
        }
        #[no_mangle]
        pub unsafe extern "C" fn $trsv(lay: c_int, u: c_int, t: c_int, d: c_int, n: c_int, a: *const $t, lda: c_int, x: *mut $t, incx: c_int) {
            unsafe { trxv::<$t>(stringify!($trsv), true, Storage::Full, lay, u, t, d, n, 0, a, lda, x, incx) }
        }
        #[no_mangle]
        pub unsafe extern "C" fn $tbsv(lay: c_int, u: c_int, t: c_int, d: c_int, n: c_int, k: c_int, a: *const $t, lda: c_int, x: *mut $t, incx: c_int) {
            unsafe { trxv::<$t>(stringify!($tbsv), true, Storage::Band, lay, u, t, d, n, k, a, lda, x, incx) }
        }
        #[no_mangle]
        pub unsafe extern "C" fn $tpsv(lay: c_int, u: c_int, t: c_int, d: c_int, n: c_int, ap: *const $t, x: *mut $t, incx: c_int) {
            unsafe { trxv::<$t>(stringify!($tpsv), true, Storage::Packed, lay, u, t, d, n, 0, ap, 1, x, incx) }
        }
    )*};
}
cblas_trxv! {
    f32: cblas_strmv cblas_stbmv cblas_stpmv cblas_strsv cblas_stbsv cblas_stpsv;
    f64: cblas_dtrmv cblas_dtbmv cblas_dtpmv cblas_dtrsv cblas_dtbsv cblas_dtpsv;
    C32: cblas_ctrmv cblas_ctbmv cblas_ctpmv cblas_ctrsv cblas_ctbsv cblas_ctpsv;
    C64: cblas_ztrmv cblas_ztbmv cblas_ztpmv cblas_ztrsv cblas_ztbsv cblas_ztpsv;
}

/// ger/geru/gerc: row-major swaps the roles of x and y (gerc on conj(y) with geru).
#[allow(clippy::too_many_arguments)]
unsafe fn ger<T: Scalar>(
    routine: &str,
    conj: bool,
    lay: c_int,
    m: c_int,
    n: c_int,
    alpha: T,
    x: *const T,
    incx: c_int,
    y: *const T,
    incy: c_int,
    a: *mut T,
    lda: c_int,
) {
    let Some(row) = layout(lay, routine) else {
        return;
    };
    let base = if !T::IS_COMPLEX {
        "GER"
    } else if conj {
        "GERC"
    } else {
        "GERU"
    };
    with_layout(row, || {
        if !row {
            // SAFETY: forwarded from the caller.
            unsafe { blas2::ger::<T>(base, conj, &m, &n, &alpha, x, &incx, y, &incy, a, &lda) };
        } else if conj {
            // SAFETY: the caller's vectors.
            unsafe {
                let (yc, incc) = conj_copy(n, y, incy);
                blas2::ger::<T>(
                    base,
                    false,
                    &n,
                    &m,
                    &alpha,
                    yc.as_ptr(),
                    &incc,
                    x,
                    &incx,
                    a,
                    &lda,
                );
            }
        } else {
            // SAFETY: forwarded from the caller.
            unsafe { blas2::ger::<T>(base, false, &n, &m, &alpha, y, &incy, x, &incx, a, &lda) };
        }
    });
}

macro_rules! cblas_ger {
    ($($t:ty: $f:ident $conj:expr;)*) => {$(
        #[no_mangle]
        pub unsafe extern "C" fn $f(lay: c_int, m: c_int, n: c_int, alpha: Scalarg<$t>, x: *const $t, incx: c_int, y: *const $t, incy: c_int, a: *mut $t, lda: c_int) {
            unsafe { ger::<$t>(stringify!($f), $conj, lay, m, n, alpha.get(), x, incx, y, incy, a, lda) }
        }
    )*};
}
cblas_ger! {
    f32: cblas_sger false;
    f64: cblas_dger false;
    C32: cblas_cgeru false;
    C64: cblas_zgeru false;
    C32: cblas_cgerc true;
    C64: cblas_zgerc true;
}

/// syr/spr/syr2/spr2 and her/hpr/her2/hpr2. Row-major: the other triangle; for the
/// Hermitian ones the conjugated problem (conj(x), and x and y exchanged for rank 2).
#[allow(clippy::too_many_arguments)]
unsafe fn syr<T: Scalar, A: Copy + Default + PartialEq>(
    routine: &str,
    herm: bool,
    pk: bool,
    lay: c_int,
    ul: c_int,
    n: c_int,
    alpha: A,
    x: *const T,
    incx: c_int,
    y: Option<(*const T, c_int)>,
    a: *mut T,
    lda: c_int,
    call: impl Fn(*const c_char, &c_int, &A, *const T, &c_int, *const T, &c_int, *mut T, &c_int),
) {
    let Some(row) = layout(lay, routine) else {
        return;
    };
    let Some(u) = decode(ul, &UPLO, 2, routine) else {
        return;
    };
    let (yp, incy) = y.unwrap_or((std::ptr::null(), 1));
    let _ = pk;
    with_layout(row, || {
        if !row {
            call(ch(&u), &n, &alpha, x, &incx, yp, &incy, a, &lda);
            return;
        }
        let u = flip_uplo(u);
        if herm {
            // SAFETY: the caller's vectors.
            let (xc, incxc) = unsafe { conj_copy(n, x, incx) };
            if y.is_some() {
                let (yc, incyc) = unsafe { conj_copy(n, yp, incy) };
                call(
                    ch(&u),
                    &n,
                    &alpha,
                    yc.as_ptr(),
                    &incyc,
                    xc.as_ptr(),
                    &incxc,
                    a,
                    &lda,
                );
            } else {
                call(ch(&u), &n, &alpha, xc.as_ptr(), &incxc, yp, &incy, a, &lda);
            }
        } else {
            call(ch(&u), &n, &alpha, x, &incx, yp, &incy, a, &lda);
        }
    });
}

macro_rules! cblas_syr {
    ($($t:ty, $r:ty: $syr:ident $spr:ident $syr2:ident $spr2:ident, $herm:expr, $f1:ident $f1p:ident $f2:ident $f2p:ident;)*) => {$(
        #[no_mangle]
        pub unsafe extern "C" fn $syr(lay: c_int, ul: c_int, n: c_int, alpha: $r, x: *const $t, incx: c_int, a: *mut $t, lda: c_int) {
            unsafe { syr::<$t, $r>(stringify!($syr), $herm, false, lay, ul, n, alpha, x, incx, None, a, lda,
                |u, n, al, x, ix, _y, _iy, a, lda| blas2::$f1(u, n, al, x, ix, a, lda, 1)) }
        }
        #[no_mangle]
        pub unsafe extern "C" fn $spr(lay: c_int, ul: c_int, n: c_int, alpha: $r, x: *const $t, incx: c_int, ap: *mut $t) {
            unsafe { syr::<$t, $r>(stringify!($spr), $herm, true, lay, ul, n, alpha, x, incx, None, ap, 1,
                |u, n, al, x, ix, _y, _iy, a, _lda| blas2::$f1p(u, n, al, x, ix, a, 1)) }
        }
        #[no_mangle]
        pub unsafe extern "C" fn $syr2(lay: c_int, ul: c_int, n: c_int, alpha: Scalarg<$t>, x: *const $t, incx: c_int, y: *const $t, incy: c_int, a: *mut $t, lda: c_int) {
            unsafe { syr::<$t, $t>(stringify!($syr2), $herm, false, lay, ul, n, alpha.get(), x, incx, Some((y, incy)), a, lda,
                |u, n, al, x, ix, y, iy, a, lda| blas2::$f2(u, n, al, x, ix, y, iy, a, lda, 1)) }
        }
        #[no_mangle]
        pub unsafe extern "C" fn $spr2(lay: c_int, ul: c_int, n: c_int, alpha: Scalarg<$t>, x: *const $t, incx: c_int, y: *const $t, incy: c_int, ap: *mut $t) {
            unsafe { syr::<$t, $t>(stringify!($spr2), $herm, true, lay, ul, n, alpha.get(), x, incx, Some((y, incy)), ap, 1,
                |u, n, al, x, ix, y, iy, a, _lda| blas2::$f2p(u, n, al, x, ix, y, iy, a, 1)) }
        }
    )*};
}
cblas_syr! {
    f32, f32: cblas_ssyr cblas_sspr cblas_ssyr2 cblas_sspr2, false, ssyr_ sspr_ ssyr2_ sspr2_;
    f64, f64: cblas_dsyr cblas_dspr cblas_dsyr2 cblas_dspr2, false, dsyr_ dspr_ dsyr2_ dspr2_;
    C32, f32: cblas_cher cblas_chpr cblas_cher2 cblas_chpr2, true, cher_ chpr_ cher2_ chpr2_;
    C64, f64: cblas_zher cblas_zhpr cblas_zher2 cblas_zhpr2, true, zher_ zhpr_ zher2_ zhpr2_;
}

// ---- Level 3 ------------------------------------------------------------------------

macro_rules! cblas_level3 {
    ($($t:ty, $r:ty: $gemm:ident $symm:ident $syrk:ident $syr2k:ident $trmm:ident $trsm:ident;)*) => {$(
        #[no_mangle]
        pub unsafe extern "C" fn $gemm(lay: c_int, ta: c_int, tb: c_int, m: c_int, n: c_int, k: c_int, alpha: Scalarg<$t>, a: *const $t, lda: c_int, b: *const $t, ldb: c_int, beta: Scalarg<$t>, c: *mut $t, ldc: c_int) {
            let r = stringify!($gemm);
            let Some(row) = layout(lay, r) else { return };
            let Some(ta) = decode(ta, &TRANS, 2, r) else { return };
            let Some(tb) = decode(tb, &TRANS, 3, r) else { return };
            let (al, be) = (alpha.get(), beta.get());
            with_layout(row, || unsafe {
                if row {
                    blas3::gemm::<$t>(ch(&tb), ch(&ta), &n, &m, &k, &al, b, &ldb, a, &lda, &be, c, &ldc)
                } else {
                    blas3::gemm::<$t>(ch(&ta), ch(&tb), &m, &n, &k, &al, a, &lda, b, &ldb, &be, c, &ldc)
                }
            });
        }
        #[no_mangle]
        pub unsafe extern "C" fn $symm(lay: c_int, sd: c_int, ul: c_int, m: c_int, n: c_int, alpha: Scalarg<$t>, a: *const $t, lda: c_int, b: *const $t, ldb: c_int, beta: Scalarg<$t>, c: *mut $t, ldc: c_int) {
            unsafe { symm::<$t>(stringify!($symm), false, lay, sd, ul, m, n, alpha.get(), a, lda, b, ldb, beta.get(), c, ldc) }
        }
        #[no_mangle]
        pub unsafe extern "C" fn $syrk(lay: c_int, ul: c_int, tr: c_int, n: c_int, k: c_int, alpha: Scalarg<$t>, a: *const $t, lda: c_int, beta: Scalarg<$t>, c: *mut $t, ldc: c_int) {
            let (al, be) = (alpha.get(), beta.get());
            unsafe { rank_k::<$t, $t, $t>(stringify!($syrk), RankK::Syrk, lay, ul, tr, n, k, al, a, lda, std::ptr::null(), 1, be, c, ldc, <$t as num_traits::One>::one(),
                |bl, mut o, al, be| bl.syrk(o.uplo, o.trans, o.n, o.k, al, &o.a, o.lda, be, &mut o.c, o.ldc)) }
        }
        #[no_mangle]
        pub unsafe extern "C" fn $syr2k(lay: c_int, ul: c_int, tr: c_int, n: c_int, k: c_int, alpha: Scalarg<$t>, a: *const $t, lda: c_int, b: *const $t, ldb: c_int, beta: Scalarg<$t>, c: *mut $t, ldc: c_int) {
            let (al, be) = (alpha.get(), beta.get());
            unsafe { rank_k::<$t, $t, $t>(stringify!($syr2k), RankK::Syr2k, lay, ul, tr, n, k, al, a, lda, b, ldb, be, c, ldc, <$t as num_traits::One>::one(),
                |bl, mut o, al, be| bl.syr2k(o.uplo, o.trans, o.n, o.k, al, &o.a, o.lda, &o.b, o.ldb, be, &mut o.c, o.ldc)) }
        }
        #[no_mangle]
        pub unsafe extern "C" fn $trmm(lay: c_int, sd: c_int, ul: c_int, tr: c_int, dg: c_int, m: c_int, n: c_int, alpha: Scalarg<$t>, a: *const $t, lda: c_int, b: *mut $t, ldb: c_int) {
            unsafe { trxm::<$t>(stringify!($trmm), false, lay, sd, ul, tr, dg, m, n, alpha.get(), a, lda, b, ldb) }
        }
        #[no_mangle]
        pub unsafe extern "C" fn $trsm(lay: c_int, sd: c_int, ul: c_int, tr: c_int, dg: c_int, m: c_int, n: c_int, alpha: Scalarg<$t>, a: *const $t, lda: c_int, b: *mut $t, ldb: c_int) {
            unsafe { trxm::<$t>(stringify!($trsm), true, lay, sd, ul, tr, dg, m, n, alpha.get(), a, lda, b, ldb) }
        }
    )*};
}
cblas_level3! {
    f32, f32: cblas_sgemm cblas_ssymm cblas_ssyrk cblas_ssyr2k cblas_strmm cblas_strsm;
    f64, f64: cblas_dgemm cblas_dsymm cblas_dsyrk cblas_dsyr2k cblas_dtrmm cblas_dtrsm;
    C32, f32: cblas_cgemm cblas_csymm cblas_csyrk cblas_csyr2k cblas_ctrmm cblas_ctrsm;
    C64, f64: cblas_zgemm cblas_zsymm cblas_zsyrk cblas_zsyr2k cblas_ztrmm cblas_ztrsm;
}

macro_rules! cblas_herm3 {
    ($($t:ty, $r:ty: $hemm:ident $herk:ident $her2k:ident;)*) => {$(
        #[no_mangle]
        pub unsafe extern "C" fn $hemm(lay: c_int, sd: c_int, ul: c_int, m: c_int, n: c_int, alpha: *const $t, a: *const $t, lda: c_int, b: *const $t, ldb: c_int, beta: *const $t, c: *mut $t, ldc: c_int) {
            unsafe { symm::<$t>(stringify!($hemm), true, lay, sd, ul, m, n, <$t as ByArg>::read(alpha), a, lda, b, ldb, <$t as ByArg>::read(beta), c, ldc) }
        }
        #[no_mangle]
        pub unsafe extern "C" fn $herk(lay: c_int, ul: c_int, tr: c_int, n: c_int, k: c_int, alpha: $r, a: *const $t, lda: c_int, beta: $r, c: *mut $t, ldc: c_int) {
            unsafe { rank_k::<$t, $r, $r>(stringify!($herk), RankK::Herk, lay, ul, tr, n, k, alpha, a, lda, std::ptr::null(), 1, beta, c, ldc, 1.0,
                |bl, mut o, al, be| bl.herk(o.uplo, o.trans, o.n, o.k, al, &o.a, o.lda, be, &mut o.c, o.ldc)) }
        }
        #[no_mangle]
        pub unsafe extern "C" fn $her2k(lay: c_int, ul: c_int, tr: c_int, n: c_int, k: c_int, alpha: *const $t, a: *const $t, lda: c_int, b: *const $t, ldb: c_int, beta: $r, c: *mut $t, ldc: c_int) {
            unsafe { rank_k::<$t, $t, $r>(stringify!($her2k), RankK::Her2k, lay, ul, tr, n, k, <$t as ByArg>::read(alpha), a, lda, b, ldb, beta, c, ldc, 1.0,
                |bl, mut o, al, be| bl.her2k(o.uplo, o.trans, o.n, o.k, al, &o.a, o.lda, &o.b, o.ldb, be, &mut o.c, o.ldc)) }
        }
    )*};
}
cblas_herm3! {
    C32, f32: cblas_chemm cblas_cherk cblas_cher2k;
    C64, f64: cblas_zhemm cblas_zherk cblas_zher2k;
}

#[allow(clippy::too_many_arguments)]
unsafe fn symm<T: Scalar>(
    routine: &str,
    herm: bool,
    lay: c_int,
    sd: c_int,
    ul: c_int,
    m: c_int,
    n: c_int,
    alpha: T,
    a: *const T,
    lda: c_int,
    b: *const T,
    ldb: c_int,
    beta: T,
    c: *mut T,
    ldc: c_int,
) {
    let Some(row) = layout(lay, routine) else {
        return;
    };
    let Some(s) = decode(sd, &SIDE, 2, routine) else {
        return;
    };
    let Some(u) = decode(ul, &UPLO, 3, routine) else {
        return;
    };
    with_layout(row, || unsafe {
        if row {
            let (s, u) = (flip_side(s), flip_uplo(u));
            blas3::symm::<T>(
                herm,
                ch(&s),
                ch(&u),
                &n,
                &m,
                &alpha,
                a,
                &lda,
                b,
                &ldb,
                &beta,
                c,
                &ldc,
            )
        } else {
            blas3::symm::<T>(
                herm,
                ch(&s),
                ch(&u),
                &m,
                &n,
                &alpha,
                a,
                &lda,
                b,
                &ldb,
                &beta,
                c,
                &ldc,
            )
        }
    });
}

/// syrk/herk/syr2k/her2k. Row-major: the other triangle and the other transposition
/// (N ↔ T, or N ↔ C for the Hermitian ones, whose α is conjugated for her2k).
#[allow(clippy::too_many_arguments)]
unsafe fn rank_k<
    T: Scalar,
    A: Copy + Default + PartialEq + ConjScalar,
    B: Copy + Default + PartialEq,
>(
    routine: &str,
    op: RankK,
    lay: c_int,
    ul: c_int,
    tr: c_int,
    n: c_int,
    k: c_int,
    alpha: A,
    a: *const T,
    lda: c_int,
    b: *const T,
    ldb: c_int,
    beta: B,
    c: *mut T,
    ldc: c_int,
    one: B,
    apply: impl Fn(&rocm_blas::Blas, blas3::RankKOps<'_, T>, A, B) -> rocm_core::Result<()>,
) {
    let Some(row) = layout(lay, routine) else {
        return;
    };
    let Some(u) = decode(ul, &UPLO, 2, routine) else {
        return;
    };
    let Some(t) = decode(tr, &TRANS, 3, routine) else {
        return;
    };
    let herm = matches!(op, RankK::Herk | RankK::Her2k);
    let (u, t, alpha) = if row {
        let t = match (t, herm && T::IS_COMPLEX) {
            (b'N', true) => b'C',
            (_, true) => b'N',
            (t, false) => flip_trans(t),
        };
        let alpha = if op == RankK::Her2k {
            alpha.conj_scalar()
        } else {
            alpha
        };
        (flip_uplo(u), t, alpha)
    } else {
        (u, t, alpha)
    };
    with_layout(row, || unsafe {
        blas3::rank_k::<T, A, B>(
            op,
            ch(&u),
            ch(&t),
            &n,
            &k,
            &alpha,
            a,
            &lda,
            b,
            &ldb,
            &beta,
            c,
            &ldc,
            one,
            &apply,
        )
    });
}

/// Conjugation of a CBLAS scalar argument (identity for real scalars).
pub trait ConjScalar {
    fn conj_scalar(self) -> Self;
}

impl<T: Scalar> ConjScalar for T {
    fn conj_scalar(self) -> Self {
        self.conj()
    }
}

#[allow(clippy::too_many_arguments)]
unsafe fn trxm<T: Scalar>(
    routine: &str,
    solve: bool,
    lay: c_int,
    sd: c_int,
    ul: c_int,
    tr: c_int,
    dg: c_int,
    m: c_int,
    n: c_int,
    alpha: T,
    a: *const T,
    lda: c_int,
    b: *mut T,
    ldb: c_int,
) {
    let Some(row) = layout(lay, routine) else {
        return;
    };
    let Some(s) = decode(sd, &SIDE, 2, routine) else {
        return;
    };
    let Some(u) = decode(ul, &UPLO, 3, routine) else {
        return;
    };
    let Some(t) = decode(tr, &TRANS, 4, routine) else {
        return;
    };
    let Some(d) = decode(dg, &DIAG, 5, routine) else {
        return;
    };
    with_layout(row, || unsafe {
        if row {
            let (s, u) = (flip_side(s), flip_uplo(u));
            blas3::trxm::<T>(
                solve,
                ch(&s),
                ch(&u),
                ch(&t),
                ch(&d),
                &n,
                &m,
                &alpha,
                a,
                &lda,
                b,
                &ldb,
            )
        } else {
            blas3::trxm::<T>(
                solve,
                ch(&s),
                ch(&u),
                ch(&t),
                ch(&d),
                &m,
                &n,
                &alpha,
                a,
                &lda,
                b,
                &ldb,
            )
        }
    });
}
