//! Matrix generators for tests and benchmarks: Poisson stencils, banded, random uniform,
//! power-law rows, R-MAT graphs and block-structured matrices, all as sorted [`Csr`].
//!
//! Random generators are deterministic in their `seed` (SplitMix64), so a benchmark
//! matrix is the same on every run and machine.

use crate::format::Csr;
use crate::scalar::{check_fits, Index, Scalar};
use rocm_core::host_alloc::{elements, try_from_fn, try_vec, try_with_capacity};
use rocm_core::Result;

/// SplitMix64: tiny, fast, and good enough to place nonzeros.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed ^ 0x9E37_79B9_7F4A_7C15)
    }
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// Uniform in `0..n` (`n > 0`).
    pub fn below(&mut self, n: usize) -> usize {
        ((self.next_u64() as u128 * n as u128) >> 64) as usize
    }
    /// Uniform in [0, 1).
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }
    /// A value in ±[0.5, 1.5): never zero.
    pub fn value<T: Scalar>(&mut self) -> T {
        let m = 0.5 + self.unit();
        let s = if self.next_u64() & 1 == 0 { m } else { -m };
        if T::IS_COMPLEX {
            T::from_c64(num_complex::Complex64::new(s, self.unit() - 0.5))
        } else {
            T::from_f64(s)
        }
    }
}

/// Builds a CSR from per-row generators that push `(col, value)` in increasing column
/// order. Storage is reserved fallibly (`nnz_hint` is the generator's estimate, saturated
/// rather than wrapped), so a size too large for memory is an error, not an abort.
fn build<I: Index, T: Scalar>(
    nrows: usize,
    ncols: usize,
    nnz_hint: usize,
    mut row: impl FnMut(usize, &mut Vec<(usize, T)>),
) -> Result<Csr<I, T>> {
    check_fits::<I>("nrows", nrows)?;
    check_fits::<I>("ncols", ncols)?;
    let mut ptr = try_with_capacity("row pointers", nrows.saturating_add(1))?;
    let mut idx = try_with_capacity("column indices", nnz_hint)?;
    let mut vals = try_with_capacity("values", nnz_hint)?;
    let mut buf = Vec::new();
    ptr.push(I::from_usize(0));
    for i in 0..nrows {
        buf.clear();
        row(i, &mut buf);
        for &(j, v) in &buf {
            idx.push(I::from_usize(j));
            vals.push(v);
        }
        check_fits::<I>("nnz", idx.len())?;
        ptr.push(I::from_usize(idx.len()));
    }
    Csr::new(nrows, ncols, ptr, idx, vals)
}

/// The 5-point Laplacian on an `n × n` grid (`n²` rows; 4 on the diagonal, -1 off).
pub fn poisson2d<I: Index, T: Scalar>(n: usize) -> Result<Csr<I, T>> {
    let (four, m1) = (T::from_f64(4.0), T::from_f64(-1.0));
    let nn = elements("poisson2d: n * n rows", &[n, n])?;
    build(nn, nn, nn.saturating_mul(5), |r, out| {
        let (i, j) = (r / n, r % n);
        if i > 0 {
            out.push((r - n, m1));
        }
        if j > 0 {
            out.push((r - 1, m1));
        }
        out.push((r, four));
        if j + 1 < n {
            out.push((r + 1, m1));
        }
        if i + 1 < n {
            out.push((r + n, m1));
        }
    })
}

/// The 7-point Laplacian on an `n × n × n` grid (`n³` rows, about `7 n³` nonzeros).
pub fn poisson3d<I: Index, T: Scalar>(n: usize) -> Result<Csr<I, T>> {
    let (six, m1) = (T::from_f64(6.0), T::from_f64(-1.0));
    let nn = n.saturating_mul(n);
    let rows = elements("poisson3d: n * n * n rows", &[n, n, n])?;
    build(rows, rows, rows.saturating_mul(7), |r, out| {
        let (i, j, k) = (r / nn, (r / n) % n, r % n);
        if i > 0 {
            out.push((r - nn, m1));
        }
        if j > 0 {
            out.push((r - n, m1));
        }
        if k > 0 {
            out.push((r - 1, m1));
        }
        out.push((r, six));
        if k + 1 < n {
            out.push((r + 1, m1));
        }
        if j + 1 < n {
            out.push((r + n, m1));
        }
        if i + 1 < n {
            out.push((r + nn, m1));
        }
    })
}

/// An `n × n` band matrix with `lower` sub- and `upper` super-diagonals of random values
/// and a dominant diagonal.
pub fn banded<I: Index, T: Scalar>(
    n: usize,
    lower: usize,
    upper: usize,
    seed: u64,
) -> Result<Csr<I, T>> {
    let mut rng = Rng::new(seed);
    // No band reaches past the matrix: clamped, so i + upper + 1 cannot wrap.
    let (lower, upper) = (
        lower.min(n.saturating_sub(1)),
        upper.min(n.saturating_sub(1)),
    );
    build(n, n, n.saturating_mul(lower + upper + 1), |i, out| {
        for j in i.saturating_sub(lower)..(i + upper + 1).min(n) {
            let v = if j == i {
                T::from_f64(2.0 * (lower + upper + 1) as f64)
            } else {
                rng.value()
            };
            out.push((j, v));
        }
    })
}

/// An `m × n` matrix with about `per_row` uniformly random columns in every row.
pub fn random_uniform<I: Index, T: Scalar>(
    m: usize,
    n: usize,
    per_row: usize,
    seed: u64,
) -> Result<Csr<I, T>> {
    let mut rng = Rng::new(seed);
    let mut cols = Vec::new();
    // More draws than columns only repeat columns (they are deduplicated).
    let per_row = per_row.min(n);
    build(m, n, m.saturating_mul(per_row), |_, out| {
        cols.clear();
        if n > 0 {
            cols.extend((0..per_row).map(|_| rng.below(n)));
        }
        cols.sort_unstable();
        cols.dedup();
        out.extend(cols.iter().map(|&j| (j, rng.value())));
    })
}

/// An `n × n` matrix with power-law row lengths: `P(len > x) ~ x^-(a-1)` (exponent
/// `a > 1`, smaller = heavier tail) scaled to an average of about `avg`, capped at `n`.
/// A few rows hold a large share of the nonzeros.
///
/// Columns are uniformly random, so unlike a real graph (see [`rmat`]) no column is
/// popular and there is no locality: for SpMV, once `x` outgrows the cache nearly every
/// gather `x[col]` misses. That makes it the adversarial case for the gathers, on top of
/// the load-balancing one.
pub fn power_law<I: Index, T: Scalar>(
    n: usize,
    avg: f64,
    exponent: f64,
    seed: u64,
) -> Result<Csr<I, T>> {
    rocm_core::ensure_arg!(exponent > 1.0, "exponent", "must be > 1, got {exponent}");
    rocm_core::ensure_arg!(
        avg.is_finite() && avg >= 0.0,
        "avg",
        "must be a finite count >= 0, got {avg}"
    );
    crate::scalar::check_fits::<I>("nrows", n)?;
    let mut rng = Rng::new(seed);
    // Pareto with minimum 1: mean = (a-1)/(a-2) for a > 2; rescale empirically.
    let raw: Vec<f64> = try_from_fn("power_law rows", n, |_| {
        (1.0 - rng.unit()).powf(-1.0 / (exponent - 1.0))
    })?;
    let mean = raw.iter().sum::<f64>() / n.max(1) as f64;
    let lens: Vec<usize> = raw
        .iter()
        .map(|&x| ((x * avg / mean).round() as usize).min(n))
        .collect();
    let total = lens.iter().fold(0usize, |a, &l| a.saturating_add(l));
    let mut cols = Vec::new();
    build(n, n, total, |i, out| {
        cols.clear();
        cols.extend((0..lens[i]).map(|_| rng.below(n)));
        cols.sort_unstable();
        cols.dedup();
        out.extend(cols.iter().map(|&j| (j, rng.value())));
    })
}

/// The R-MAT / Kronecker graph of Chakrabarti, Zhan & Faloutsos (SDM 2004) with the
/// Graph 500 parameters: a `2^scale × 2^scale` adjacency matrix of about
/// `edge_factor · 2^scale` edges (duplicates merged, so somewhat fewer nonzeros).
///
/// Each edge picks one quadrant of the matrix per level, with probabilities
/// `(A, B, C, D) = (0.57, 0.19, 0.19, 0.05)`, recursively down to a single entry. Both
/// the row lengths (out-degrees) and the column counts (in-degrees) follow heavy-tailed
/// laws, as in real graphs, where a few "hub" vertices are linked from everywhere (this
/// is what [`power_law`], with uniformly random columns, lacks). As in the Graph 500
/// reference generator, vertex labels are then randomly permuted (the same permutation
/// for rows and columns), which removes the index locality of the raw recursion: hubs
/// are scattered over `x`, not packed at its start.
pub fn rmat<I: Index, T: Scalar>(scale: u32, edge_factor: usize, seed: u64) -> Result<Csr<I, T>> {
    rocm_core::ensure_arg!(scale < 40, "scale", "must be < 40, got {scale}");
    let n = 1usize << scale;
    let edges = n.checked_mul(edge_factor).ok_or_else(|| {
        rocm_core::Error::invalid("edge_factor", "2^scale * edge_factor overflows")
    })?;
    check_fits::<I>("nrows", n)?;
    let mut rng = Rng::new(seed);
    // Graph 500: A = 0.57, B = 0.19, C = 0.19 (D = 0.05), as 2^-32 thresholds.
    const T_A: u64 = (0.57 * (1u64 << 32) as f64) as u64;
    const T_AB: u64 = (0.76 * (1u64 << 32) as f64) as u64;
    const T_ABC: u64 = (0.95 * (1u64 << 32) as f64) as u64;
    let mut perm: Vec<usize> = try_from_fn("rmat vertices", n, |i| i)?;
    for i in (1..n).rev() {
        perm.swap(i, rng.below(i + 1));
    }
    let mut rows = try_with_capacity("rmat edges", edges)?;
    let mut cols = try_with_capacity("rmat edges", edges)?;
    for _ in 0..edges {
        let (mut r, mut c) = (0usize, 0usize);
        let mut bits = 0u64;
        for level in 0..scale {
            // Two 32-bit draws per 64-bit random number.
            if level % 2 == 0 {
                bits = rng.next_u64();
            }
            let u = bits & 0xFFFF_FFFF;
            bits >>= 32;
            let (dr, dc) = match u {
                u if u < T_A => (0, 0),
                u if u < T_AB => (0, 1),
                u if u < T_ABC => (1, 0),
                _ => (1, 1),
            };
            r = r << 1 | dr;
            c = c << 1 | dc;
        }
        rows.push(perm[r]);
        cols.push(perm[c]);
    }
    // Bucket the edges by row (counting sort), then sort and merge each row.
    let mut start = try_vec("rmat row starts", n.saturating_add(1), 0usize)?;
    for &r in &rows {
        start[r + 1] += 1;
    }
    for r in 0..n {
        start[r + 1] += start[r];
    }
    let mut next = start.clone();
    let mut bucket = try_vec("rmat edges", edges, 0usize)?;
    for (&r, &c) in rows.iter().zip(&cols) {
        bucket[next[r]] = c;
        next[r] += 1;
    }
    drop((rows, cols));
    build(n, n, edges, |i, out| {
        let row = &mut bucket[start[i]..start[i + 1]];
        row.sort_unstable();
        let mut last = usize::MAX;
        for &j in row.iter() {
            if j != last {
                out.push((j, rng.value()));
                last = j;
            }
        }
    })
}

/// A matrix of dense `bd × bd` blocks: `mb × mb` block grid, the diagonal block plus
/// about `blocks_per_row - 1` random blocks per block row (for BSR).
pub fn block_structured<I: Index, T: Scalar>(
    mb: usize,
    bd: usize,
    blocks_per_row: usize,
    seed: u64,
) -> Result<Csr<I, T>> {
    let mut rng = Rng::new(seed);
    let n = elements("blocks: mb * bd rows", &[mb, bd])?;
    crate::scalar::check_fits::<I>("nrows", n)?;
    let blocks_per_row = blocks_per_row.min(mb);
    let block_cols: Vec<Vec<usize>> = (0..mb)
        .map(|bi| {
            let mut c: Vec<usize> = (1..blocks_per_row.max(1)).map(|_| rng.below(mb)).collect();
            c.push(bi);
            c.sort_unstable();
            c.dedup();
            c
        })
        .collect();
    build(
        n,
        n,
        n.saturating_mul(blocks_per_row).saturating_mul(bd),
        |i, out| {
            for &bj in &block_cols[i / bd] {
                for c in 0..bd {
                    out.push((bj * bd + c, rng.value()));
                }
            }
        },
    )
}

/// A generator named on a command line: `poisson2d:N`, `poisson3d:N`, `banded:N:L:U`,
/// `uniform:M:N:PER_ROW`, `powerlaw:N:AVG[:EXPONENT]`, `rmat:SCALE:EDGE_FACTOR`, `blocks:MB:BD:PER_ROW`.
pub fn from_spec<I: Index, T: Scalar>(spec: &str) -> Result<Csr<I, T>> {
    let parts: Vec<&str> = spec.split(':').collect();
    let num = |k: usize| -> Result<usize> {
        parts.get(k).and_then(|s| s.parse().ok()).ok_or_else(|| {
            rocm_core::Error::invalid(
                "gen",
                format!("`{spec}`: argument {k} missing or not a number"),
            )
        })
    };
    let float =
        |k: usize, d: f64| -> f64 { parts.get(k).and_then(|s| s.parse().ok()).unwrap_or(d) };
    match parts[0] {
        "poisson2d" => poisson2d(num(1)?),
        "poisson3d" => poisson3d(num(1)?),
        "banded" => banded(num(1)?, num(2)?, num(3)?, 1),
        "uniform" => random_uniform(num(1)?, num(2)?, num(3)?, 2),
        "powerlaw" => power_law(num(1)?, float(2, 8.0), float(3, 2.1), 3),
        "rmat" => rmat(u32::try_from(num(1)?).unwrap_or(u32::MAX), num(2)?, 5),
        "blocks" => block_structured(num(1)?, num(2)?, num(3)?, 4),
        other => Err(rocm_core::Error::invalid(
            "gen",
            format!("unknown generator `{other}`; use poisson2d:N, poisson3d:N, banded:N:L:U, uniform:M:N:K, powerlaw:N:AVG[:EXP], rmat:SCALE:EDGES_PER_ROW, blocks:MB:BD:K"),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn poisson_rows_sum_to_boundary_count() {
        // Interior rows of the Laplacian sum to 0; the matrix is symmetric.
        let a = poisson3d::<i32, f64>(5).unwrap();
        assert_eq!(a.nrows(), 125);
        assert_eq!(a.nnz(), 7 * 125 - 6 * 25);
        let interior = 2 * 25 + 2 * 5 + 2;
        let s: f64 = a.values()[a.row_range(interior)].iter().sum();
        assert_eq!(s, 0.0);
        assert_eq!(a.transpose(), a);
        let b = poisson2d::<i64, f32>(4).unwrap();
        assert_eq!(b.nnz(), 5 * 16 - 4 * 4);
        assert_eq!(b.transpose(), b);
    }

    #[test]
    fn power_law_has_a_heavy_tail() {
        let a = power_law::<i32, f64>(20_000, 8.0, 2.1, 7).unwrap();
        let max = (0..a.nrows()).map(|i| a.row_range(i).len()).max().unwrap();
        let avg = a.nnz() as f64 / a.nrows() as f64;
        assert!(avg > 4.0 && avg < 12.0, "avg {avg}");
        assert!(max as f64 > 50.0 * avg, "max {max} avg {avg}");
    }

    #[test]
    fn rmat_has_hub_rows_and_hub_columns() {
        let a = rmat::<i32, f64>(12, 8, 1).unwrap();
        assert_eq!((a.nrows(), a.ncols()), (4096, 4096));
        // Duplicate edges merged: fewer entries than edges, but most survive.
        assert!(a.nnz() <= 8 * 4096 && a.nnz() > 5 * 4096, "nnz {}", a.nnz());
        let avg = a.nnz() as f64 / 4096.0;
        let max_row = (0..4096).map(|i| a.row_range(i).len()).max().unwrap();
        let mut col_count = vec![0usize; 4096];
        for &j in a.col_idx() {
            col_count[j as usize] += 1;
        }
        let max_col = *col_count.iter().max().unwrap();
        assert!(max_row as f64 > 20.0 * avg, "max row {max_row}, avg {avg}");
        assert!(
            max_col as f64 > 20.0 * avg,
            "max column {max_col}, avg {avg}"
        );
        // The permutation scatters the hubs: the heaviest row is not row 0.
        assert!(a.row_range(0).len() < max_row);
        assert_eq!(a, rmat::<i32, f64>(12, 8, 1).unwrap());
        assert_ne!(a, rmat::<i32, f64>(12, 8, 2).unwrap());
        assert!(rmat::<i32, f64>(40, 1, 0).is_err());
    }

    #[test]
    fn generators_validate_and_parse() {
        assert_eq!(
            banded::<i32, f64>(10, 2, 1, 0).unwrap().nnz(),
            10 * 4 - 3 - 1
        );
        assert!(random_uniform::<i32, f64>(7, 5, 3, 0).unwrap().nnz() <= 21);
        let b = block_structured::<i32, f64>(6, 3, 2, 0).unwrap();
        assert_eq!(b.nnz() % 3, 0);
        assert_eq!(from_spec::<i32, f64>("poisson2d:3").unwrap().nrows(), 9);
        assert_eq!(from_spec::<i32, f64>("rmat:5:2").unwrap().nrows(), 32);
        assert!(from_spec::<i32, f64>("poisson9d:3").is_err());
        assert!(from_spec::<i32, f64>("banded:3:x:1").is_err());
        assert!(power_law::<i32, f64>(10, 2.0, 1.0, 0).is_err());
    }
}
