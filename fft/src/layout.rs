//! Data layouts: where element `(i_0, i_1, i_2)` of batch `b` lives.
//!
//! As in rocFFT, a layout is per-dimension strides (innermost first), a distance between
//! batches and an offset, all counted in elements of that side of the transform (complex
//! elements on a complex side, reals on a real side):
//! `index = offset + b·distance + Σ_d i_d·stride_d`.

use rocm_core::{Error, Result};

/// Strides, batch distance and offset of one side of a transform, in its elements.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Layout {
    /// One stride per dimension, innermost first.
    pub strides: Vec<usize>,
    /// Elements between the starts of consecutive batches.
    pub distance: usize,
    /// Index of the first element of batch 0.
    pub offset: usize,
}

impl Layout {
    /// A layout with explicit strides, distance and offset.
    pub fn new(strides: &[usize], distance: usize, offset: usize) -> Self {
        Layout {
            strides: strides.to_vec(),
            distance,
            offset,
        }
    }

    /// Densely packed data of the given lengths (innermost first), batches back to back.
    pub fn contiguous(lengths: &[usize]) -> Self {
        let mut strides = Vec::with_capacity(lengths.len());
        let mut s: usize = 1;
        // Saturating: an overflowing product leaves strides that `extent` rejects, where
        // a wrapped one would describe a small, wrong layout.
        for &l in lengths {
            strides.push(s);
            s = s.saturating_mul(l);
        }
        Layout {
            strides,
            distance: s,
            offset: 0,
        }
    }

    /// One past the largest index used by `batch` transforms of `lengths`; `None` on
    /// overflow.
    pub fn extent(&self, lengths: &[usize], batch: usize) -> Option<usize> {
        if batch == 0 || lengths.contains(&0) {
            return Some(self.offset);
        }
        let mut last = self
            .offset
            .checked_add((batch - 1).checked_mul(self.distance)?)?;
        for (&l, &s) in lengths.iter().zip(&self.strides) {
            last = last.checked_add((l - 1).checked_mul(s)?)?;
        }
        last.checked_add(1)
    }

    /// Whether distinct elements (over all batches) have distinct indices.
    ///
    /// Sufficient test: ordering the dimensions (batch included) by stride, each stride
    /// exceeds the span of all smaller ones. Layouts that interleave dimensions in other
    /// ways are rejected even when they happen not to overlap.
    pub fn is_injective(&self, lengths: &[usize], batch: usize) -> bool {
        let mut dims: Vec<(usize, usize)> = lengths
            .iter()
            .zip(&self.strides)
            .map(|(&l, &s)| (s, l))
            .chain(std::iter::once((self.distance, batch)))
            .filter(|&(_, l)| l > 1)
            .collect();
        dims.sort_unstable();
        let mut span = 0usize; // largest index offset reachable by the smaller dimensions
        for (s, l) in dims {
            if s <= span {
                return false;
            }
            span = match (l - 1).checked_mul(s).and_then(|x| x.checked_add(span)) {
                Some(v) => v,
                None => return false,
            };
        }
        true
    }

    /// Checks the number of strides.
    pub(crate) fn check_rank(&self, what: &str, rank: usize) -> Result<()> {
        if self.strides.len() != rank {
            return Err(Error::invalid(
                what,
                format!(
                    "has {} strides but the transform has {rank} dimensions",
                    self.strides.len()
                ),
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extents_and_overlap() {
        let l = Layout::contiguous(&[4, 3]);
        assert_eq!(l.strides, vec![1, 4]);
        assert_eq!(l.distance, 12);
        assert_eq!(l.extent(&[4, 3], 2), Some(24));
        assert!(l.is_injective(&[4, 3], 2));
        // Batches interleaved with the inner dimension: distance 1, stride 2.
        let il = Layout::new(&[2], 1, 0);
        assert!(il.is_injective(&[5], 2));
        assert!(!il.is_injective(&[5], 3));
        // Overlapping batches.
        assert!(!Layout::new(&[1], 3, 0).is_injective(&[4], 2));
        assert!(Layout::new(&[1], 3, 0).is_injective(&[4], 1));
        assert_eq!(Layout::new(&[1], 3, 5).extent(&[4], 1), Some(9));
        assert_eq!(Layout::new(&[usize::MAX], 1, 0).extent(&[3], 1), None);
    }
}
