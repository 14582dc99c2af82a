//! Decoding Fortran arguments: everything arrives by reference; CHARACTER arguments are
//! read by their first byte (upper or lower case), as reference BLAS's LSAME does.

use crate::xerbla;
use rocm_blas::{Diag, Scalar, Side, Transpose, Uplo};
use std::ffi::c_char;

/// The upper-cased first byte of a CHARACTER argument (0 for a null pointer).
///
/// # Safety
/// `p` is null or points at a readable byte.
pub(crate) unsafe fn letter(p: *const c_char) -> u8 {
    if p.is_null() {
        0
    } else {
        // SAFETY: forwarded from the caller.
        (unsafe { *p } as u8).to_ascii_uppercase()
    }
}

pub(crate) fn trans(c: u8) -> Option<Transpose> {
    match c {
        b'N' => Some(Transpose::N),
        b'T' => Some(Transpose::T),
        b'C' => Some(Transpose::C),
        _ => None,
    }
}

pub(crate) fn uplo(c: u8) -> Option<Uplo> {
    match c {
        b'U' => Some(Uplo::Upper),
        b'L' => Some(Uplo::Lower),
        _ => None,
    }
}

pub(crate) fn diag(c: u8) -> Option<Diag> {
    match c {
        b'U' => Some(Diag::Unit),
        b'N' => Some(Diag::NonUnit),
        _ => None,
    }
}

pub(crate) fn side(c: u8) -> Option<Side> {
    match c {
        b'L' => Some(Side::Left),
        b'R' => Some(Side::Right),
        _ => None,
    }
}

/// Reads INTEGER arguments given as (position, pointer); a null pointer is reported to
/// XERBLA as an invalid argument at its position.
///
/// # Safety
/// Each pointer is null or points at an `i32`.
pub(crate) unsafe fn ints<T: Scalar, const N: usize>(
    base: &str,
    args: [(i32, *const i32); N],
) -> Option<[i32; N]> {
    let mut out = [0; N];
    for (o, (pos, p)) in out.iter_mut().zip(args) {
        if p.is_null() {
            xerbla::report_for::<T>(base, pos);
            return None;
        }
        // SAFETY: non-null, forwarded from the caller.
        *o = unsafe { *p };
    }
    Some(out)
}

/// Reads scalar arguments (α, β) as [`ints`] reads integers.
///
/// # Safety
/// Each pointer is null or points at an `S`.
pub(crate) unsafe fn scalars<T: Scalar, S: Copy + Default, const N: usize>(
    base: &str,
    args: [(i32, *const S); N],
) -> Option<[S; N]> {
    let mut out = [S::default(); N];
    for (o, (pos, p)) in out.iter_mut().zip(args) {
        if p.is_null() {
            xerbla::report_for::<T>(base, pos);
            return None;
        }
        // SAFETY: non-null, forwarded from the caller.
        *o = unsafe { *p };
    }
    Some(out)
}

/// Arrays given as (position, pointer, elements the call touches): a null pointer with
/// a nonzero extent is reported to XERBLA at its position (reference BLAS would fault).
pub(crate) fn arrays<T: Scalar>(base: &str, args: &[(i32, *const (), usize)]) -> bool {
    let table: Vec<(i32, bool)> = args
        .iter()
        .map(|&(pos, p, len)| (pos, p.is_null() && len > 0))
        .collect();
    xerbla::check::<T>(base, &table)
}

/// Elements of a column-major `rows × cols` matrix with leading dimension `ld`
/// (arguments already checked non-negative).
pub(crate) fn mat(rows: i32, cols: i32, ld: i32) -> usize {
    rocm_blas::check::matrix_extent(rows as usize, cols as usize, ld as usize)
}

/// Elements of an `n`-vector with increment `inc`.
pub(crate) fn vec(n: i32, inc: i32) -> usize {
    rocm_blas::check::vector_extent(n.max(0) as usize, inc as isize)
}

/// Elements of a packed triangle of order `n`.
pub(crate) fn packed(n: i32) -> usize {
    let n = n.max(0) as usize;
    n * (n + 1) / 2
}

/// `max(1, x)`.
pub(crate) fn at_least_one(x: i32) -> i32 {
    x.max(1)
}
