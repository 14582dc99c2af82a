//! Argument rules shared by every routine, as reference BLAS states them.
//!
//! Each check names the argument it rejects, so a caller reading the error knows which
//! parameter to fix.

use rocm_core::{BufferSlice, BufferSliceMut, Device, Element, Error, Result};

/// Elements a column-major `rows × cols` matrix with leading dimension `ld` spans;
/// `usize::MAX` when that does not fit in a `usize`, so no buffer ever satisfies it (a
/// wrapped extent would let a short buffer pass the checks below).
pub fn matrix_extent(rows: usize, cols: usize, ld: usize) -> usize {
    if rows == 0 || cols == 0 {
        0
    } else {
        ld.checked_mul(cols - 1)
            .and_then(|e| e.checked_add(rows))
            .unwrap_or(usize::MAX)
    }
}

/// Elements a vector of `n` entries with increment `inc` spans (`usize::MAX` when that
/// does not fit, as [`matrix_extent`]).
pub fn vector_extent(n: usize, inc: isize) -> usize {
    if n == 0 {
        0
    } else {
        (n - 1)
            .checked_mul(inc.unsigned_abs())
            .and_then(|e| e.checked_add(1))
            .unwrap_or(usize::MAX)
    }
}

/// "needs N elements", or that the extent does not fit in the address space.
fn needs(need: usize) -> String {
    if need == usize::MAX {
        "needs more elements than the address space holds".into()
    } else {
        format!("needs {need} elements")
    }
}

/// Position of logical element `i` of an `n`-vector with increment `inc`: BLAS walks a
/// vector with a negative increment from its far end.
#[inline]
pub fn vector_index(i: usize, n: usize, inc: isize) -> usize {
    if inc >= 0 {
        i * inc as usize
    } else {
        (n - 1 - i) * inc.unsigned_abs()
    }
}

/// `ld >= max(1, rows)`.
pub fn leading_dimension(name: &str, ld: usize, rows: usize) -> Result<()> {
    if ld < rows.max(1) {
        return Err(Error::invalid(
            name,
            format!("must be >= max(1, {rows}) = {}, got {ld}", rows.max(1)),
        ));
    }
    Ok(())
}

/// The leading dimension rule plus "the buffer holds the matrix".
pub fn matrix(
    name: &str,
    ld_name: &str,
    len: usize,
    rows: usize,
    cols: usize,
    ld: usize,
) -> Result<()> {
    leading_dimension(ld_name, ld, rows)?;
    let need = matrix_extent(rows, cols, ld);
    if len < need {
        return Err(Error::invalid(
            name,
            format!(
                "a {rows}x{cols} matrix with {ld_name} = {ld} {}, the buffer has {len}",
                needs(need)
            ),
        ));
    }
    Ok(())
}

/// `inc != 0` plus "the buffer holds the vector".
pub fn vector(name: &str, inc_name: &str, len: usize, n: usize, inc: isize) -> Result<()> {
    if inc == 0 {
        return Err(Error::invalid(inc_name, "must not be zero"));
    }
    let need = vector_extent(n, inc);
    if len < need {
        return Err(Error::invalid(
            name,
            format!(
                "{n} elements with {inc_name} = {inc} {}, the buffer has {len}",
                needs(need)
            ),
        ));
    }
    Ok(())
}

/// A packed triangle of order `n` (n(n+1)/2 elements).
pub fn packed(name: &str, len: usize, n: usize) -> Result<()> {
    let need = n
        .checked_add(1)
        .and_then(|m| m.checked_mul(n))
        .map_or(usize::MAX, |e| e / 2);
    if len < need {
        return Err(Error::invalid(
            name,
            format!(
                "a packed triangle of order {n} {}, the buffer has {len}",
                needs(need)
            ),
        ));
    }
    Ok(())
}

/// Strided batches: the stride must keep every problem inside the buffer, and for outputs
/// must keep problems from overlapping.
pub fn batch(
    name: &str,
    len: usize,
    extent: usize,
    stride: usize,
    batch_count: usize,
    output: bool,
) -> Result<()> {
    if batch_count == 0 || extent == 0 {
        return Ok(());
    }
    if output && batch_count > 1 && stride < extent {
        return Err(Error::invalid(
            format!("stride_{name}"),
            format!("{stride} is smaller than one problem's {extent} elements, so outputs overlap"),
        ));
    }
    let need = stride
        .checked_mul(batch_count - 1)
        .and_then(|s| s.checked_add(extent))
        .ok_or_else(|| {
            Error::invalid(format!("stride_{name}"), "stride * batch_count overflows")
        })?;
    if len < need {
        return Err(Error::invalid(
            name,
            format!("{batch_count} problems with stride {stride} need {need} elements, the buffer has {len}"),
        ));
    }
    Ok(())
}

/// Every buffer must be on the handle's device.
pub fn same_device(device: &Device, what: &str, other: &Device) -> Result<()> {
    if device != other {
        return Err(Error::DeviceMismatch {
            what: what.into(),
            expected: device.id().into(),
            found: other.id().into(),
        });
    }
    Ok(())
}

/// Host view of a CPU buffer (the caller has checked the device is the CPU).
pub fn host<'a, T: Element>(what: &str, s: &BufferSlice<'a, T>) -> Result<&'a [T]> {
    s.as_host()
        .ok_or_else(|| Error::unsupported(format!("host access to `{what}`"), s.device()))
}

/// Mutable host view of a CPU buffer.
pub fn host_mut<'b, T: Element>(
    what: &str,
    s: &'b mut BufferSliceMut<'_, T>,
) -> Result<&'b mut [T]> {
    let device = s.device().clone();
    s.as_host_mut()
        .ok_or_else(|| Error::unsupported(format!("host access to `{what}`"), device))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extents_and_indices() {
        assert_eq!(matrix_extent(3, 4, 5), 18);
        assert_eq!(matrix_extent(0, 4, 5), 0);
        assert_eq!(vector_extent(4, -3), 10);
        let idx: Vec<_> = (0..4).map(|i| vector_index(i, 4, -3)).collect();
        assert_eq!(idx, vec![9, 6, 3, 0]);
        assert!(matrix("a", "lda", 17, 3, 4, 5).is_err());
        assert!(matrix("a", "lda", 18, 3, 4, 5).is_ok());
        assert!(matrix("a", "lda", 100, 3, 4, 2).is_err());
        assert!(matrix("a", "lda", 0, 0, 0, 1).is_ok());
        assert!(matrix("a", "lda", 0, 0, 0, 0).is_err());
        assert!(vector("x", "incx", 10, 4, 0).is_err());
        assert!(vector("x", "incx", 9, 4, -3).is_err());
        assert!(batch("c", 30, 10, 9, 3, true).is_err());
        assert!(batch("a", 28, 10, 9, 3, false).is_ok());
        assert!(batch("a", 27, 10, 9, 3, false).is_err());
    }

    /// Extents past the address space saturate instead of wrapping, so an empty buffer
    /// never passes for a huge matrix, vector or packed triangle (2^32 x 2^32 with
    /// ld = 2^32 wrapped to 0 elements before).
    #[test]
    fn huge_extents_never_wrap_past_the_checks() {
        let big = 1usize << 32;
        assert_eq!(matrix_extent(big, big, big), usize::MAX);
        assert_eq!(matrix_extent(usize::MAX, 2, usize::MAX), usize::MAX);
        let e = matrix("a", "lda", 0, big, big, big)
            .unwrap_err()
            .to_string();
        assert!(e.contains("address space"), "{e}");
        assert_eq!(vector_extent(big, isize::MAX), usize::MAX);
        assert!(vector("x", "incx", 0, big, isize::MIN).is_err());
        assert!(packed("ap", 0, usize::MAX).is_err());
        assert!(packed("ap", 0, 1 << 33).is_err());
        assert!(packed("ap", 6, 3).is_ok());
    }
}
