//! Host allocations whose size a caller chose: the one place where a user-given count
//! becomes a host `Vec`. Sizes are multiplied with overflow checks and the memory is
//! reserved fallibly, so a huge or wrapping size is an [`Error`], never a capacity
//! overflow panic or an allocation-failure abort.

use crate::{Error, Result};

/// The product of `dims` (elements of a tensor, rows × columns, ...), or an error naming
/// `what` when it does not fit in a `usize`.
pub fn elements(what: &str, dims: &[usize]) -> Result<usize> {
    dims.iter()
        .try_fold(1usize, |acc, &d| acc.checked_mul(d))
        .ok_or_else(|| {
            let shown: Vec<String> = dims.iter().map(|d| d.to_string()).collect();
            Error::invalid(
                what,
                format!("{} elements overflow the address space", shown.join(" x ")),
            )
        })
}

/// Bytes of `n` values of `T`, checked as [`elements`].
pub fn bytes_of<T>(what: &str, n: usize) -> Result<usize> {
    elements(what, &[n, std::mem::size_of::<T>()])
}

/// An empty `Vec` with room for `len` values reserved, or [`Error::OutOfMemory`] on
/// `host` when the allocator refuses (or `len` values exceed `isize::MAX` bytes).
pub fn try_with_capacity<T>(what: &str, len: usize) -> Result<Vec<T>> {
    let bytes = bytes_of::<T>(what, len)?;
    let mut v = Vec::new();
    v.try_reserve_exact(len).map_err(|_| Error::OutOfMemory {
        device: format!("host ({what})"),
        bytes,
    })?;
    Ok(v)
}

/// `len` copies of `value`, fallibly as [`try_with_capacity`].
pub fn try_vec<T: Clone>(what: &str, len: usize, value: T) -> Result<Vec<T>> {
    let mut v = try_with_capacity(what, len)?;
    v.resize(len, value);
    Ok(v)
}

/// `f(0), f(1), ..., f(len - 1)`, fallibly as [`try_with_capacity`].
pub fn try_from_fn<T>(what: &str, len: usize, f: impl FnMut(usize) -> T) -> Result<Vec<T>> {
    let mut v = try_with_capacity(what, len)?;
    v.extend((0..len).map(f));
    Ok(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn products_and_allocations_never_wrap_or_abort() {
        assert_eq!(elements("x", &[3, 4, 5]).unwrap(), 60);
        assert_eq!(elements("x", &[]).unwrap(), 1);
        assert_eq!(elements("x", &[0, usize::MAX, usize::MAX]).unwrap(), 0);
        let e = elements("dims", &[1 << 32, 1 << 32])
            .unwrap_err()
            .to_string();
        assert!(e.contains("dims") && e.contains("overflow"), "{e}");
        assert!(bytes_of::<f64>("x", usize::MAX / 4).is_err());
        // 2^61 f64 = 2^64 bytes: refused before the allocator is asked.
        assert!(try_vec("x", 1usize << 61, 0.0f64).is_err());
        // 2^60 bytes fits a usize but no allocator grants it.
        let e = try_vec("big", 1usize << 57, 0u8 as u64).unwrap_err();
        assert!(matches!(e, Error::OutOfMemory { .. }), "{e}");
        assert_eq!(try_vec("x", 3, 7u8).unwrap(), vec![7, 7, 7]);
        assert_eq!(try_from_fn("x", 3, |i| i * 2).unwrap(), vec![0, 2, 4]);
        assert!(try_vec::<u8>("x", 0, 0).unwrap().is_empty());
    }
}
