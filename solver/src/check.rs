//! Argument checks shared by the routines; each error names the argument to fix.

use rocm_core::{Device, Error, Result};

/// `ld >= max(1, rows)` and a buffer of `len` elements holds the `rows × cols` matrix.
pub(crate) fn matrix(
    name: &str,
    ld_name: &str,
    len: usize,
    rows: usize,
    cols: usize,
    ld: usize,
) -> Result<()> {
    rocm_blas::check::matrix(name, ld_name, len, rows, cols, ld)
}

/// A dimension must fit LAPACK's 32-bit integers (pivots and info are `i32`).
pub(crate) fn dim(name: &str, v: usize) -> Result<()> {
    if v > i32::MAX as usize {
        return Err(Error::invalid(
            name,
            format!("{v} does not fit a 32-bit LAPACK integer"),
        ));
    }
    Ok(())
}

/// A vector buffer of `len` elements must hold `need`.
pub(crate) fn vector(name: &str, len: usize, need: usize) -> Result<()> {
    if len < need {
        return Err(Error::invalid(
            name,
            format!("needs {need} elements, the buffer has {len}"),
        ));
    }
    Ok(())
}

/// The buffer lives on the handle's device.
pub(crate) fn device(handle: &Device, what: &str, other: &Device) -> Result<()> {
    rocm_blas::check::same_device(handle, what, other)
}

/// Strided batches: problem `i` starts at `i·stride`; outputs must not overlap.
pub(crate) fn batch(
    name: &str,
    len: usize,
    one: usize,
    stride: usize,
    count: usize,
    output: bool,
) -> Result<()> {
    rocm_blas::check::batch(name, len, one, stride, count, output)
}

/// LAPACK 1-based pivots (`ipiv[i]` in `1..=rows`) as 0-based row indices.
pub(crate) fn pivots(name: &str, ipiv: &[i32], rows: usize) -> Result<Vec<usize>> {
    ipiv.iter()
        .enumerate()
        .map(|(i, &p)| {
            if p >= 1 && (p as usize) <= rows {
                Ok(p as usize - 1)
            } else {
                Err(Error::invalid(
                    format!("{name}[{i}]"),
                    format!("pivot {p} is outside 1..={rows}"),
                ))
            }
        })
        .collect()
}

/// `ld >= max(1, rows)`.
pub(crate) fn leading_dimension_of(name: &str, ld: usize, rows: usize) -> Result<()> {
    rocm_blas::check::leading_dimension(name, ld, rows)
}
