//! Work partitioning for row-structured kernels: merge-path (rows and nonzeros split
//! together, so a single huge row is shared among threads) and row-split.
//!
//! Merge path (Merrill & Garland, SC'16): the kernel walks a path through the grid of
//! (row ends consumed, nonzeros consumed); cutting it into equal-length pieces gives each
//! piece the same amount of `rows + nonzeros` work regardless of row lengths. A piece
//! that ends inside a row hands that row's partial sum to a serial fix-up.

use crate::scalar::Index;

/// A point on the merge path: `(rows completed, nonzeros consumed)`.
pub(crate) type Coord = (usize, usize);

/// The merge-path point on diagonal `d` of the row-end list `ptr[1..]` and the nonzero
/// counter.
fn search<I: Index>(ptr: &[I], d: usize) -> Coord {
    let m = ptr.len() - 1;
    let nnz = ptr[m].to_usize();
    let (mut lo, mut hi) = (d.saturating_sub(nnz), d.min(m));
    while lo < hi {
        let mid = (lo + hi) / 2;
        if ptr[mid + 1].to_usize() < d - mid {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    (lo, d - lo)
}

/// `parts + 1` merge-path coordinates cutting the work into `parts` equal pieces.
pub(crate) fn merge_path<I: Index>(ptr: &[I], parts: usize) -> Vec<Coord> {
    if ptr.len() < 2 {
        return vec![(0, 0); 2];
    }
    let m = ptr.len() - 1;
    let total = m + ptr[m].to_usize();
    let parts = parts.max(1);
    (0..=parts)
        .map(|p| search(ptr, (total as u128 * p as u128 / parts as u128) as usize))
        .collect()
}

/// `parts + 1` coordinates at row boundaries with equal row counts.
pub(crate) fn row_split<I: Index>(ptr: &[I], parts: usize) -> Vec<Coord> {
    if ptr.len() < 2 {
        return vec![(0, 0); 2];
    }
    let m = ptr.len() - 1;
    let parts = parts.max(1);
    (0..=parts)
        .map(|p| {
            let r = m * p / parts;
            (r, ptr[r].to_usize())
        })
        .collect()
}

/// Row boundaries splitting `ptr`'s nonzeros into `parts` nearly equal pieces without
/// cutting rows (for block rows and products, where rows are the unit of output).
pub(crate) fn nnz_split_rows(weights_prefix: &[usize], parts: usize) -> Vec<usize> {
    let m = weights_prefix.len() - 1;
    let total = weights_prefix[m];
    let parts = parts.max(1);
    let mut b: Vec<usize> = (0..=parts)
        .map(|p| {
            let target = (total as u128 * p as u128 / parts as u128) as usize;
            weights_prefix.partition_point(|&w| w < target).min(m)
        })
        .collect();
    b[0] = 0;
    b[parts] = m;
    b.dedup();
    b
}

/// Merge-path items (rows + nonzeros) per piece of a row-kernel partition.
///
/// Fixed, not derived from the thread count, so that a plan cuts long rows at the same
/// places on every machine: the partial sums, and so the rounding, do not depend on how
/// many threads run it (results are bitwise reproducible across thread counts). 2^16
/// items (about 0.8 MB of f64 values and i32 indices) make rayon's per-task cost (about
/// a microsecond) negligible while still giving each of 16 threads ten pieces of a
/// 10^7-nonzero matrix to balance with.
pub(crate) const PIECE_WORK: usize = 1 << 16;

/// Pieces of at most about [`PIECE_WORK`] items covering `work` items (at least one).
pub(crate) fn fixed_pieces(work: usize) -> usize {
    work.div_ceil(PIECE_WORK).max(1)
}

/// Whether every coordinate is a point of `ptr`'s merge path: `ptr[r] <= k <= ptr[r+1]`
/// (or `(m, nnz)` at the end), first `(0, 0)`, non-decreasing in both. This is exactly
/// what a merge-path kernel needs to cover every nonzero once; checking it costs
/// O(pieces), so a plan can verify it against the matrix it is given on every call.
pub(crate) fn coords_fit<I: Index>(ptr: &[I], coords: &[Coord]) -> bool {
    let Some(m) = ptr.len().checked_sub(1) else {
        return coords.iter().all(|&c| c == (0, 0));
    };
    let nnz = ptr[m].to_usize();
    let on_path = |&(r, k): &Coord| {
        r <= m && ptr[r].to_usize() <= k && k <= ptr.get(r + 1).map_or(nnz, |p| p.to_usize())
    };
    coords.first() == Some(&(0, 0))
        && coords.last() == Some(&(m, nnz))
        && coords.iter().all(on_path)
        && coords
            .windows(2)
            .all(|w| w[0].0 <= w[1].0 && w[0].1 <= w[1].1)
}

/// Total merge-path work (rows + nonzeros) of a pointer array.
pub(crate) fn path_len<I: Index>(ptr: &[I]) -> usize {
    ptr.len() + ptr.last().map_or(0, |p| p.to_usize())
}

/// How many pieces to cut `work` items into: enough for balance on every thread, but
/// not so many that a piece is shorter than a few thousand items.
pub(crate) fn piece_count(work: usize) -> usize {
    let threads = rayon::current_num_threads().max(1);
    (work / 4096).clamp(1, threads * 8)
}

/// Splits `y` into consecutive chunks at the given row boundaries (non-decreasing, first
/// 0 or more, last at most `y.len()`).
pub(crate) fn split_rows<'a, T>(mut y: &'a mut [T], bounds: &[usize]) -> Vec<&'a mut [T]> {
    let mut out = Vec::with_capacity(bounds.len().saturating_sub(1));
    let mut at = bounds.first().copied().unwrap_or(0);
    y = &mut y[at..];
    for &b in &bounds[1.min(bounds.len())..] {
        let (head, tail) = std::mem::take(&mut y).split_at_mut(b - at);
        out.push(head);
        y = tail;
        at = b;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn coords_fit_only_their_own_path() {
        let ptr: Vec<i32> = vec![0, 0, 5, 5, 6, 106, 108];
        let c = merge_path(&ptr, 7);
        assert!(coords_fit(&ptr, &c));
        // Same nnz and rows, nonzeros moved between rows: some cut no longer lies in
        // the row it names.
        let moved: Vec<i32> = vec![0, 50, 55, 55, 56, 106, 108];
        assert!(!coords_fit(&moved, &c));
        assert!(coords_fit::<i32>(&[0], &merge_path::<i32>(&[0], 3)));
        assert!(!coords_fit(&ptr, &[(0, 0), (6, 107)]));
    }

    #[test]
    fn merge_path_covers_everything_once() {
        // rows of lengths 0, 5, 0, 1, 100, 2
        let ptr: Vec<i32> = vec![0, 0, 5, 5, 6, 106, 108];
        for parts in 1..20 {
            let c = merge_path(&ptr, parts);
            assert_eq!(c[0], (0, 0));
            assert_eq!(*c.last().unwrap(), (6, 108));
            for w in c.windows(2) {
                assert!(w[0].0 <= w[1].0 && w[0].1 <= w[1].1);
                // every point lies on the path: rows completed have ended
                assert!(ptr[w[1].0].to_usize() <= w[1].1);
                if w[1].0 < 6 {
                    assert!(w[1].1 <= ptr[w[1].0 + 1].to_usize());
                }
            }
        }
    }
}
