//! What every subcommand reports through: a NaN-aware maximum for error metrics, and the
//! count of requested cases that failed or could not run, which decides `main`'s exit
//! status (a table with a failed row must not exit 0).

use std::sync::atomic::{AtomicUsize, Ordering};

static FAILED: AtomicUsize = AtomicUsize::new(0);

/// Records that a requested case failed its check or could not run.
pub fn case_failed() {
    FAILED.fetch_add(1, Ordering::Relaxed);
}

/// Records `r`'s failure (if any) and passes it on.
pub fn track<T, E>(r: Result<T, E>) -> Result<T, E> {
    if r.is_err() {
        case_failed();
    }
    r
}

/// How many requested cases failed or could not run.
pub fn failures() -> usize {
    FAILED.load(Ordering::Relaxed)
}

/// The largest of `values`, NaN if any is NaN (`f64::max` drops NaN, so an error metric
/// folded with it reads 0 for a result full of NaN); 0 for none.
pub fn nan_max(values: impl IntoIterator<Item = f64>) -> f64 {
    values.into_iter().fold(0.0, |m, v| {
        if m.is_nan() || v.is_nan() {
            f64::NAN
        } else {
            m.max(v)
        }
    })
}

/// A relative error `worst / scale` that stays NaN when either is, and is 0 only when
/// both are (an exact zero result).
pub fn relative(worst: f64, scale: f64) -> f64 {
    if worst == 0.0 && scale == 0.0 {
        0.0
    } else {
        // `f64::max` would turn a NaN scale into MIN_POSITIVE; keep it NaN.
        let scale = if scale.is_nan() {
            scale
        } else {
            scale.max(f64::MIN_POSITIVE)
        };
        worst / scale
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nan_poisons_the_maximum() {
        assert_eq!(nan_max([1.0, 3.0, 2.0]), 3.0);
        assert_eq!(nan_max([]), 0.0);
        assert!(nan_max([1.0, f64::NAN, 2.0]).is_nan());
        assert!(nan_max([f64::NAN]).is_nan());
        assert_eq!(nan_max([f64::INFINITY, 1.0]), f64::INFINITY);
        assert!(relative(f64::NAN, 1.0).is_nan());
        assert!(relative(1.0, f64::NAN).is_nan());
        assert_eq!(relative(0.0, 0.0), 0.0);
        // A NaN metric fails any `metric <= tolerance` check.
        let metric = nan_max([f64::NAN]);
        assert!(!matches!(
            metric.partial_cmp(&1e-3),
            Some(std::cmp::Ordering::Less | std::cmp::Ordering::Equal)
        ));
    }
}
