//! The Level 2 generators (`rocm_kernels::level2::{gemv, rank, trimv, trsv}`)
//! executed by the PTX interpreter against host computations in f64, for f32, f64,
//! Complex32 and Complex64, every op, storage, uplo, unit flag and β, on odd sizes that
//! leave partial workgroups and column groups, with leading dimensions above the rows and
//! negative and non-unit increments. Memory a kernel must not touch (the other triangle,
//! the padding below each column, the gaps of strided vectors) holds sentinels or NaN
//! that are compared exactly afterwards (or that would poison the result if read).
//!
//! Tolerances (u = the dtype's epsilon, c = 4 for complex arithmetic, else 1):
//! - gemv: each y entry a sum of k products (k = n for `N`, m for `T`/`C`) along a tree
//!   of depth at most k + 5 + chunks or warps per column (see `level2::gemv`), then α
//!   and β: (k + 40)·c·u·(|α|·Σ|a||x| + |β||y|).
//! - rank updates: one product and one or two fused additions per element:
//!   4c·u·(|a| + |α x y| (+ |α y x|)).
//! - triangle products: (n + 66)·c·u·(|α|·Σ|a||x| + |β||y|) (the kernel's addition tree
//!   has depth at most n + 64, see `level2::trimv`).
//! - general band products (gbmv) and windowed products (the trsv updates): the same
//!   bound with n replaced by the columns summed.
//! - block solve (dense, packed and band storage): by residual, |op(A)·x̂ − b| ≤ (bs + 4)·c·u·(|op(A)||x̂| + |b|) on
//!   diagonally dominant blocks.

#[allow(dead_code)]
mod ptx_sim;

use rocm_core::{DType, ModuleImage, Target};
use rocm_kernels::generator::Generator;
use rocm_kernels::level2::gemv::{self, Gemv, GemvParams, GemvTrans};
use rocm_kernels::level2::rank::{self, Rank, RankOp, RankParams};
use rocm_kernels::level2::trimv::{self, TriMv, TriMvOp, TriMvParams};
use rocm_kernels::level2::trsv::{self, TrsvBlock, TrsvParams};
use rocm_kernels::level2::Storage;

/// Complex numbers in f64 (reals have im = 0).
#[derive(Debug, Clone, Copy, PartialEq)]
struct C(f64, f64);

impl C {
    fn add(self, o: C) -> C {
        C(self.0 + o.0, self.1 + o.1)
    }
    fn sub(self, o: C) -> C {
        C(self.0 - o.0, self.1 - o.1)
    }
    fn mul(self, o: C) -> C {
        C(self.0 * o.0 - self.1 * o.1, self.0 * o.1 + self.1 * o.0)
    }
    fn conj(self) -> C {
        C(self.0, -self.1)
    }
    fn abs(self) -> f64 {
        self.0.hypot(self.1)
    }
    fn is_nan(self) -> bool {
        self.0.is_nan() || self.1.is_nan()
    }
    /// Same bits, or both NaN.
    fn same(self, o: C) -> bool {
        self == o || (self.is_nan() && o.is_nan())
    }
}

/// A dtype's storage: real width and components.
#[derive(Debug, Clone, Copy)]
struct Ty {
    dtype: DType,
    wide: bool,
    complex: bool,
}

const TYPES: [Ty; 4] = [
    Ty {
        dtype: DType::F32,
        wide: false,
        complex: false,
    },
    Ty {
        dtype: DType::F64,
        wide: true,
        complex: false,
    },
    Ty {
        dtype: DType::C32,
        wide: false,
        complex: true,
    },
    Ty {
        dtype: DType::C64,
        wide: true,
        complex: true,
    },
];

impl Ty {
    fn eps(self) -> f64 {
        let u = if self.wide {
            f64::EPSILON
        } else {
            f32::EPSILON as f64
        };
        u * if self.complex { 4.0 } else { 1.0 }
    }
    /// `v` rounded to the dtype (imaginary part dropped for reals).
    fn round(self, v: C) -> C {
        let r = |x: f64| if self.wide { x } else { x as f32 as f64 };
        C(r(v.0), if self.complex { r(v.1) } else { 0.0 })
    }
    fn bytes(self, v: &[C]) -> Vec<u8> {
        let mut out = Vec::new();
        for c in v {
            let parts: &[f64] = if self.complex { &[c.0, c.1] } else { &[c.0] };
            for &p in parts {
                if self.wide {
                    out.extend_from_slice(&p.to_le_bytes());
                } else {
                    out.extend_from_slice(&(p as f32).to_le_bytes());
                }
            }
        }
        out
    }
    fn values(self, b: &[u8]) -> Vec<C> {
        let w = if self.wide { 8 } else { 4 };
        let reals: Vec<f64> = b
            .chunks(w)
            .map(|c| {
                if self.wide {
                    f64::from_le_bytes(c.try_into().unwrap())
                } else {
                    f32::from_le_bytes(c.try_into().unwrap()) as f64
                }
            })
            .collect();
        if self.complex {
            reals.chunks(2).map(|p| C(p[0], p[1])).collect()
        } else {
            reals.into_iter().map(|r| C(r, 0.0)).collect()
        }
    }
    /// Scalar kernel arguments (bit patterns of the reals).
    fn scalar(self, v: C) -> Vec<u64> {
        let bits = |x: f64| {
            if self.wide {
                x.to_bits()
            } else {
                (x as f32).to_bits() as u64
            }
        };
        if self.complex {
            vec![bits(v.0), bits(v.1)]
        } else {
            vec![bits(v.0)]
        }
    }
}

/// A small deterministic generator of values in [-1, 1).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> f64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.0 >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
    }
    fn value(&mut self, ty: Ty) -> C {
        let v = C(self.next(), self.next());
        ty.round(v)
    }
}

fn parse(image: ModuleImage) -> ptx_sim::Kernel {
    let ModuleImage::Ptx(text) = image else {
        panic!("not PTX")
    };
    ptx_sim::Kernel::parse(&text)
}

fn target() -> Target {
    "sm_90".parse().unwrap()
}

/// Storage index of logical element i of an n-vector at `inc`.
fn at(i: usize, n: usize, inc: isize) -> usize {
    if inc > 0 {
        i * inc as usize
    } else {
        (n - 1 - i) * inc.unsigned_abs()
    }
}

fn extent(n: usize, inc: isize) -> usize {
    1 + (n.max(1) - 1) * inc.unsigned_abs()
}

/// The address of logical element 0 of a vector stored from `base`.
fn logical0(base: u64, n: usize, inc: isize, es: usize) -> u64 {
    base + (at(0, n, inc) * es) as u64
}

fn stored(upper: bool, i: usize, j: usize) -> bool {
    if upper {
        i <= j
    } else {
        i >= j
    }
}

/// Storage index of (i, j): dense at lda, packed, or band (bandwidth `n` then, as the
/// kernels take it).
fn index(storage: Storage, upper: bool, n: usize, lda: usize, i: usize, j: usize) -> usize {
    match storage {
        Storage::Dense => i + j * lda,
        Storage::Packed if upper => i + j * (j + 1) / 2,
        Storage::Packed => i + j * n - j * (j + 1) / 2,
        Storage::Band if upper => n + i - j + j * lda,
        Storage::Band => i - j + j * lda,
    }
}

fn es(ty: Ty) -> usize {
    (if ty.wide { 8 } else { 4 }) * if ty.complex { 2 } else { 1 }
}

/// Runs the tri_mv kernel of `p` on `a` (its `n` and `lda` the kernel's first operands),
/// x (lx entries at incx) and y0 (ly entries at incy) with α and β (β when `p.read_y`),
/// then `flags` and the trailing operands `tail` (band, band_lower, window); `rows`
/// workgroup rows. Returns y's storage afterwards.
#[allow(clippy::too_many_arguments)]
fn run_tri_mv(
    ty: Ty,
    p: &TriMvParams,
    (a, n, lda): (&[C], usize, usize),
    (x, lx, incx): (&[C], usize, isize),
    (y0, ly, incy): (&[C], usize, isize),
    (alpha, beta): (C, C),
    (flags, tail): (u32, &[u64]),
    rows: usize,
) -> Vec<C> {
    let kernel = parse(TriMv::generate(p, &target()).unwrap().image);
    let mut mem = ptx_sim::Memory::default();
    let pa = mem.alloc(ty.bytes(a));
    let px = mem.alloc(ty.bytes(x));
    let py = mem.alloc(ty.bytes(y0));
    let e = es(ty);
    let mut args = vec![
        n as u64,
        pa,
        lda as u64,
        logical0(px, lx, incx, e),
        incx as i64 as u64,
        logical0(py, ly, incy, e),
        incy as i64 as u64,
    ];
    args.extend(ty.scalar(alpha));
    if p.read_y {
        args.extend(ty.scalar(beta));
    }
    args.push(flags as u64);
    args.extend(tail);
    kernel.run(
        [TriMvParams::groups(rows), 1, 1],
        p.block(),
        &args,
        &mut mem,
    );
    ty.values(mem.bytes(py))
}

/// What a matrix-vector kernel must leave in y (ly entries at incy, y0 before, `got`
/// after): for each logical i in `rows`, y(i) = α·Σ_{j ∈ cols} M(i, j)·x(j) + β·y0(i)
/// (β when given) within `terms`·u·(|α|·Σ|M||x| + |β||y0|) + the smallest normal;
/// every other entry, and the gaps between entries, as they were.
#[allow(clippy::too_many_arguments)]
fn check_mv(
    ty: Ty,
    (alpha, beta): (C, Option<C>),
    (x, lx, incx): (&[C], usize, isize),
    (y0, got, ly, incy): (&[C], &[C], usize, isize),
    (rows, cols): (std::ops::Range<usize>, std::ops::Range<usize>),
    m: impl Fn(usize, usize) -> C,
    terms: f64,
    what: &str,
) {
    for i in 0..ly {
        let yi = at(i, ly, incy);
        if !rows.contains(&i) {
            assert!(
                got[yi].same(y0[yi]),
                "{what}: y({i}) outside the rows written"
            );
            continue;
        }
        let (mut s, mut mag) = (C(0.0, 0.0), 0.0);
        for j in cols.clone() {
            let v = m(i, j);
            let xj = x[at(j, lx, incx)];
            s = s.add(v.mul(xj));
            mag += v.abs() * xj.abs();
        }
        let mut want = alpha.mul(s);
        mag *= alpha.abs();
        if let Some(beta) = beta {
            want = want.add(beta.mul(y0[yi]));
            mag += beta.abs() * y0[yi].abs();
        }
        let bound = terms * ty.eps() * mag + f64::MIN_POSITIVE;
        let err = got[yi].sub(want).abs();
        assert!(
            err <= bound,
            "{what}: y({i}) = {:?}, want {want:?} (bound {bound:e})",
            got[yi]
        );
    }
    for q in 0..y0.len() {
        if q % incy.unsigned_abs() != 0 {
            assert!(got[q].same(y0[q]), "{what}: y gap {q} written");
        }
    }
}

fn rank_case(ty: Ty, op: RankOp, storage: Storage, upper: bool) {
    let triangle = !matches!(op, RankOp::Ger | RankOp::Gerc);
    let (m, n) = if triangle { (37, 37) } else { (37, 19) };
    let lda = m + 3;
    let (incx, incy) = (-3isize, 2isize);
    let conj = matches!(op, RankOp::Gerc | RankOp::Her | RankOp::Her2);
    let herm = matches!(op, RankOp::Her | RankOp::Her2);
    let rank2 = matches!(op, RankOp::Syr2 | RankOp::Her2);
    let mut rng = Rng(7 + op as u64 * 13 + storage as u64 * 5 + upper as u64);
    let len = match storage {
        Storage::Dense | Storage::Band => lda * n,
        Storage::Packed => n * (n + 1) / 2,
    };
    let a: Vec<C> = (0..len).map(|_| rng.value(ty)).collect();
    let x: Vec<C> = (0..extent(m, incx)).map(|_| rng.value(ty)).collect();
    // syr/her read x as y (the host passes x twice).
    let y: Vec<C> = if triangle && !rank2 {
        x.clone()
    } else {
        (0..extent(n, incy)).map(|_| rng.value(ty)).collect()
    };
    let incy = if triangle && !rank2 { incx } else { incy };
    let mut alpha = rng.value(ty);
    if op == RankOp::Her {
        alpha.1 = 0.0;
    }
    let p = RankParams {
        block: 32,
        cols: 3,
        ..RankParams::fallback(ty.dtype, op, storage)
    };
    let kernel = parse(Rank::generate(&p, &target()).unwrap().image);
    let mut mem = ptx_sim::Memory::default();
    let pa = mem.alloc(ty.bytes(&a));
    let px = mem.alloc(ty.bytes(&x));
    let py = mem.alloc(ty.bytes(&y));
    let e = es(ty);
    let mut args = vec![
        m as u64,
        n as u64,
        pa,
        lda as u64,
        logical0(px, m, incx, e),
        incx as i64 as u64,
        logical0(py, n, incy, e),
        incy as i64 as u64,
    ];
    args.extend(ty.scalar(alpha));
    args.push(if upper { rank::UPPER } else { 0 } as u64);
    // Two column groups at most: the grid-stride loop runs.
    let mut grid = p.grid(m, n);
    grid[1] = grid[1].min(2);
    kernel.run(grid, p.block, &args, &mut mem);
    let got = ty.values(mem.bytes(pa));
    let op_of = |v: C| if conj { v.conj() } else { v };
    let alpha2 = if herm { alpha.conj() } else { alpha };
    let mut want = a.clone();
    let mut mags = vec![0.0; len];
    for j in 0..n {
        for i in 0..m {
            if triangle && !stored(upper, i, j) {
                continue;
            }
            let q = index(storage, upper, n, lda, i, j);
            let xi = x[at(i, m, incx)];
            let t1 = xi.mul(alpha.mul(op_of(y[at(j, n, incy)])));
            let mut v = a[q].add(t1);
            let mut mag = a[q].abs() + t1.abs();
            if rank2 {
                let t2 = y[at(i, n, incy)].mul(alpha2.mul(op_of(x[at(j, m, incx)])));
                v = v.add(t2);
                mag += t2.abs();
            }
            if herm && i == j {
                v.1 = 0.0;
            }
            want[q] = v;
            mags[q] = mag;
        }
    }
    for q in 0..len {
        let what = format!("{:?} {op:?} {storage:?} upper {upper}: a[{q}]", ty.dtype);
        if mags[q] == 0.0 {
            assert!(
                got[q].same(a[q]),
                "{what} changed: {:?} -> {:?}",
                a[q],
                got[q]
            );
        } else {
            let bound = 4.0 * ty.eps() * mags[q] + f64::MIN_POSITIVE;
            let err = got[q].sub(want[q]).abs();
            assert!(err <= bound, "{what}: got {:?}, want {:?}", got[q], want[q]);
            if herm && q == index(storage, upper, n, lda, 0, 0) {
                assert_eq!(got[q].1, 0.0, "{what}: diagonal not real");
            }
        }
    }
}

#[test]
fn rank_updates_in_the_ptx_interpreter() {
    for ty in TYPES {
        for op in RankOp::ALL {
            let triangle = !matches!(op, RankOp::Ger | RankOp::Gerc);
            let storages: &[Storage] = if triangle {
                &[Storage::Dense, Storage::Packed]
            } else {
                &[Storage::Dense]
            };
            for &storage in storages {
                for upper in [false, true] {
                    if !triangle && upper {
                        continue;
                    }
                    rank_case(ty, op, storage, upper);
                }
            }
        }
    }
}

/// Element (i, j) of op(A) as the product sees it, or None where it is not part of the
/// operation (NaN there would be read otherwise).
fn full_at(
    op: TriMvOp,
    a: &dyn Fn(usize, usize) -> C,
    upper: bool,
    unit: bool,
    i: usize,
    j: usize,
) -> C {
    let tri = |r: usize, c: usize| -> C {
        if r == c && unit {
            C(1.0, 0.0)
        } else if stored(upper, r, c) {
            a(r, c)
        } else {
            C(0.0, 0.0)
        }
    };
    match op {
        TriMvOp::Symv => {
            if stored(upper, i, j) {
                a(i, j)
            } else {
                a(j, i)
            }
        }
        TriMvOp::Hemv => {
            if i == j {
                C(a(i, i).0, 0.0)
            } else if stored(upper, i, j) {
                a(i, j)
            } else {
                a(j, i).conj()
            }
        }
        TriMvOp::TrmvN => tri(i, j),
        TriMvOp::TrmvT => tri(j, i),
        TriMvOp::TrmvC => tri(j, i).conj(),
        // A general band: `a` is A itself (zero outside the band).
        TriMvOp::GeneralN => a(i, j),
        TriMvOp::GeneralT => a(j, i),
        TriMvOp::GeneralC => a(j, i).conj(),
    }
}

/// One triangle product in the interpreter; `kb` is the bandwidth of band storage
/// (ignored otherwise).
fn trimv_case(
    ty: Ty,
    op: TriMvOp,
    (storage, kb): (Storage, usize),
    upper: bool,
    unit: bool,
    read_y: bool,
) {
    let n = 45;
    let band = storage == Storage::Band;
    let lda = if band { kb + 3 } else { n + 2 };
    // The third operand of the element formula: n, or the bandwidth.
    let shape = if band { kb } else { n };
    let (incx, incy) = (-2isize, 3isize);
    let seed = 11 + op as u64 * 17 + storage as u64 * 7 + upper as u64 * 3 + unit as u64;
    let mut rng = Rng(seed + read_y as u64 * 101 + kb as u64 * 13);
    let len = match storage {
        Storage::Dense | Storage::Band => lda * n,
        Storage::Packed => n * (n + 1) / 2,
    };
    let in_band = |i: usize, j: usize| !band || i.abs_diff(j) <= kb;
    // The other triangle (dense), the padding, what lies outside the band and a unit
    // diagonal hold NaN.
    let mut a = vec![C(f64::NAN, f64::NAN); len];
    for j in 0..n {
        for i in 0..n {
            if stored(upper, i, j) && in_band(i, j) && !(unit && i == j) {
                a[index(storage, upper, shape, lda, i, j)] = rng.value(ty);
            }
        }
    }
    let x: Vec<C> = (0..extent(n, incx)).map(|_| rng.value(ty)).collect();
    let y0: Vec<C> = (0..extent(n, incy))
        .map(|_| {
            if read_y {
                rng.value(ty)
            } else {
                C(f64::NAN, f64::NAN)
            }
        })
        .collect();
    let alpha = rng.value(ty);
    let beta = if read_y { rng.value(ty) } else { C(0.0, 0.0) };
    let p = TriMvParams {
        warps: 4,
        unroll: 3,
        ..TriMvParams::fallback(ty.dtype, op, storage, read_y)
    };
    let flags = if upper { trimv::UPPER } else { 0 } | if unit { trimv::UNIT } else { 0 };
    let tail: &[u64] = if band { &[kb as u64] } else { &[] };
    let got = run_tri_mv(
        ty,
        &p,
        (&a, n, lda),
        (&x, n, incx),
        (&y0, n, incy),
        (alpha, beta),
        (flags, tail),
        n,
    );
    let av = |r: usize, c: usize| {
        if in_band(r, c) {
            a[index(storage, upper, shape, lda, r, c)]
        } else {
            C(0.0, 0.0)
        }
    };
    check_mv(
        ty,
        (alpha, read_y.then_some(beta)),
        (&x, n, incx),
        (&y0, &got, n, incy),
        (0..n, 0..n),
        |i, j| full_at(op, &av, upper, unit, i, j),
        n as f64 + 66.0,
        &format!(
            "{:?} {op:?} {storage:?} upper {upper} unit {unit} read_y {read_y}",
            ty.dtype
        ),
    );
}

#[test]
fn triangle_products_in_the_ptx_interpreter() {
    for ty in TYPES {
        for op in [
            TriMvOp::Symv,
            TriMvOp::Hemv,
            TriMvOp::TrmvN,
            TriMvOp::TrmvT,
            TriMvOp::TrmvC,
        ] {
            let triangular = matches!(op, TriMvOp::TrmvN | TriMvOp::TrmvT | TriMvOp::TrmvC);
            // Bands: the diagonal alone, one crossing the 32-row blocks, and all of it.
            let storages = [
                (Storage::Dense, 0),
                (Storage::Packed, 0),
                (Storage::Band, 0),
                (Storage::Band, 7),
                (Storage::Band, 44),
            ];
            for storage in storages {
                for upper in [false, true] {
                    for unit in [false, true] {
                        if unit && !triangular {
                            continue;
                        }
                        for read_y in [false, true] {
                            trimv_case(ty, op, storage, upper, unit, read_y);
                        }
                    }
                }
            }
        }
    }
}

fn trsv_case(
    ty: Ty,
    (storage, kb): (Storage, usize),
    upper: bool,
    trans: u8,
    unit: bool,
    k0: usize,
) {
    let n = 45;
    let nb = 16;
    let band = storage == Storage::Band;
    let lda = if band { kb + 3 } else { n + 3 };
    let shape = if band { kb } else { n };
    let len = match storage {
        Storage::Dense | Storage::Band => lda * n,
        Storage::Packed => n * (n + 1) / 2,
    };
    let held = |i: usize, j: usize| stored(upper, i, j) && (!band || i.abs_diff(j) <= kb);
    let incx = -3isize;
    let mut rng = Rng(3 + upper as u64 * 5 + trans as u64 * 7 + unit as u64 * 11 + k0 as u64);
    // Diagonally dominant stored triangle; NaN in the other triangle, the padding, the
    // band's unused corners and a unit diagonal (none of them may be read).
    let mut a = vec![C(f64::NAN, f64::NAN); len];
    for j in 0..n {
        for i in 0..n {
            let at_ij = index(storage, upper, shape, lda, i, j);
            if i == j && !unit {
                let d = rng.value(ty);
                a[at_ij] = ty.round(C(2.0 + d.0.abs(), d.1));
            } else if i != j && held(i, j) {
                let v = rng.value(ty);
                a[at_ij] = ty.round(C(v.0 / nb as f64, v.1 / nb as f64));
            }
        }
    }
    let b: Vec<C> = (0..extent(n, incx)).map(|_| rng.value(ty)).collect();
    let p = TrsvParams {
        dtype: ty.dtype,
        storage,
        block: nb as u32,
    };
    let kernel = parse(TrsvBlock::generate(&p, &target()).unwrap().image);
    let mut mem = ptx_sim::Memory::default();
    let pa = mem.alloc(ty.bytes(&a));
    let px = mem.alloc(ty.bytes(&b));
    let flags = if upper { trsv::UPPER } else { 0 }
        | if unit { trsv::UNIT } else { 0 }
        | if trans > 0 { trsv::TRANS } else { 0 }
        | if trans > 1 { trsv::CONJ } else { 0 };
    let mut args = vec![
        n as u64,
        k0 as u64,
        pa,
        lda as u64,
        logical0(px, n, incx, es(ty)),
        incx as i64 as u64,
        flags as u64,
    ];
    if band {
        args.push(kb as u64);
    }
    kernel.run([1, 1, 1], nb as u32, &args, &mut mem);
    let got = ty.values(mem.bytes(px));
    let bs = nb.min(n - k0);
    // op(A)(r, c) within the block.
    let m = |r: usize, c: usize| -> C {
        let (i, j) = if trans > 0 { (c, r) } else { (r, c) };
        let v = if i == j && unit {
            C(1.0, 0.0)
        } else if held(k0 + i, k0 + j) {
            a[index(storage, upper, shape, lda, k0 + i, k0 + j)]
        } else {
            C(0.0, 0.0)
        };
        if trans > 1 {
            v.conj()
        } else {
            v
        }
    };
    let xv = |r: usize| got[at(k0 + r, n, incx)];
    for r in 0..bs {
        let (mut s, mut mag) = (C(0.0, 0.0), 0.0);
        for c in 0..bs {
            s = s.add(m(r, c).mul(xv(c)));
            mag += m(r, c).abs() * xv(c).abs();
        }
        let br = b[at(k0 + r, n, incx)];
        mag += br.abs();
        let bound = (bs as f64 + 4.0) * ty.eps() * mag;
        let res = s.sub(br).abs();
        assert!(
            res <= bound,
            "{:?} {storage:?} k {kb} upper {upper} trans {trans} unit {unit} k0 {k0}: residual {res:e} > {bound:e} in row {r}",
            ty.dtype
        );
    }
    // Everything outside the block is untouched.
    for (q, (g, w)) in got.iter().zip(&b).enumerate() {
        let inside = (0..bs).any(|r| at(k0 + r, n, incx) == q);
        if !inside {
            assert!(g.same(*w), "x[{q}] outside the block written");
        }
    }
}

#[test]
fn trsv_block_solve_in_the_ptx_interpreter() {
    for ty in TYPES {
        for upper in [false, true] {
            for trans in 0..3u8 {
                for unit in [false, true] {
                    // A whole inner block and the partial last one (45 = 2·16 + 13).
                    for k0 in [16, 32] {
                        for storage in [
                            (Storage::Dense, 0),
                            (Storage::Packed, 0),
                            (Storage::Band, 0),
                            (Storage::Band, 3),
                            (Storage::Band, 60),
                        ] {
                            trsv_case(ty, storage, upper, trans, unit, k0);
                        }
                    }
                }
            }
        }
    }
}

/// gbmv's band kernel (the general ops) against the dense product: wide and tall
/// matrices, bands from the diagonal alone to beyond the matrix, lda above kl + ku + 1,
/// negative increments; NaN in the band storage's unused corners and padding, and in y
/// when β = 0 (none may be read). Tolerance: the triangle products' (c + 66)·u bound with
/// c = the columns summed.
#[test]
fn general_band_products_in_the_ptx_interpreter() {
    for ty in TYPES {
        for op in [TriMvOp::GeneralN, TriMvOp::GeneralT, TriMvOp::GeneralC] {
            for (m, n, kl, ku) in [
                (45, 37, 0, 0),
                (45, 37, 3, 8),
                (20, 70, 2, 1),
                (70, 20, 69, 19),
                (33, 33, 40, 50),
            ] {
                for read_y in [false, true] {
                    general_case(ty, op, (m, n, kl, ku), read_y);
                }
            }
        }
    }
}

fn general_case(ty: Ty, op: TriMvOp, (m, n, kl, ku): (usize, usize, usize, usize), read_y: bool) {
    let lda = kl + ku + 3;
    let (incx, incy) = (-2isize, 3isize);
    let held = |i: usize, j: usize| i < m && j < n && i + ku >= j && i <= j + kl;
    let mut rng = Rng(3 + m as u64 + kl as u64 * 7 + ku as u64 * 11 + op as u64 * 5);
    let mut a = vec![C(f64::NAN, f64::NAN); lda * n];
    for j in 0..n {
        for i in 0..m {
            if held(i, j) {
                a[ku + i - j + j * lda] = rng.value(ty);
            }
        }
    }
    let (lx, ly) = if op == TriMvOp::GeneralN {
        (n, m)
    } else {
        (m, n)
    };
    let x: Vec<C> = (0..extent(lx, incx)).map(|_| rng.value(ty)).collect();
    let y0: Vec<C> = (0..extent(ly, incy))
        .map(|_| {
            if read_y {
                rng.value(ty)
            } else {
                C(f64::NAN, f64::NAN)
            }
        })
        .collect();
    let alpha = rng.value(ty);
    let beta = if read_y { rng.value(ty) } else { C(0.0, 0.0) };
    let p = TriMvParams {
        warps: 4,
        unroll: 3,
        ..TriMvParams::fallback(ty.dtype, op, Storage::Band, read_y)
    };
    // flags 0, band ku, band_lower kl, the window all of y and x.
    let tail = [ku as u64, kl as u64, 0, ly as u64, 0, lx as u64];
    let got = run_tri_mv(
        ty,
        &p,
        (&a, n, lda),
        (&x, lx, incx),
        (&y0, ly, incy),
        (alpha, beta),
        (0, &tail),
        ly,
    );
    let av = |r: usize, c: usize| {
        if held(r, c) {
            a[ku + r - c + c * lda]
        } else {
            C(0.0, 0.0)
        }
    };
    check_mv(
        ty,
        (alpha, read_y.then_some(beta)),
        (&x, lx, incx),
        (&y0, &got, ly, incy),
        (0..ly, 0..lx),
        |i, j| full_at(op, &av, true, false, i, j),
        lx as f64 + 66.0,
        &format!(
            "{:?} {op:?} {m}x{n} kl {kl} ku {ku} read_y {read_y}",
            ty.dtype
        ),
    );
}

/// The blocked trsv's updates on packed and band storage: trmv N/T/C with a window of
/// rows and columns (α = −1, β = 1 in the solve; any α, β here). Rows outside the
/// window are untouched; the sum covers exactly the window's columns.
#[test]
fn windowed_triangle_products_in_the_ptx_interpreter() {
    let n = 45;
    for ty in TYPES {
        for op in [TriMvOp::TrmvN, TriMvOp::TrmvT, TriMvOp::TrmvC] {
            for (storage, kb) in [
                (Storage::Dense, 0),
                (Storage::Packed, 0),
                (Storage::Band, 5),
                (Storage::Band, 50),
            ] {
                for upper in [false, true] {
                    // Rows after the columns and before them (forward and backward
                    // substitution), and a window narrower than a block.
                    for window in [(16, 45, 0, 16), (0, 16, 16, 32), (33, 40, 20, 30)] {
                        windowed_case(ty, op, (storage, kb), upper, window, n);
                    }
                }
            }
        }
    }
}

fn windowed_case(
    ty: Ty,
    op: TriMvOp,
    (storage, kb): (Storage, usize),
    upper: bool,
    (r0, r1, c0, c1): (usize, usize, usize, usize),
    n: usize,
) {
    let band = storage == Storage::Band;
    let lda = if band { kb + 2 } else { n + 1 };
    let shape = if band { kb } else { n };
    let (incx, incy) = (-1isize, 2isize);
    let len = match storage {
        Storage::Dense | Storage::Band => lda * n,
        Storage::Packed => n * (n + 1) / 2,
    };
    let held = |i: usize, j: usize| stored(upper, i, j) && (!band || i.abs_diff(j) <= kb);
    let mut rng = Rng(7 + op as u64 * 3 + storage as u64 * 5 + upper as u64 + r0 as u64);
    let mut a = vec![C(f64::NAN, f64::NAN); len];
    for j in 0..n {
        for i in 0..n {
            if held(i, j) {
                a[index(storage, upper, shape, lda, i, j)] = rng.value(ty);
            }
        }
    }
    let x: Vec<C> = (0..extent(n, incx)).map(|_| rng.value(ty)).collect();
    let y0: Vec<C> = (0..extent(n, incy)).map(|_| rng.value(ty)).collect();
    let (alpha, beta) = (rng.value(ty), rng.value(ty));
    let p = TriMvParams {
        window: true,
        ..TriMvParams::fallback(ty.dtype, op, storage, true)
    };
    let flags = if upper { trimv::UPPER } else { 0 };
    let window = [r0, r1, c0, c1].map(|v| v as u64);
    let tail: Vec<u64> = band
        .then_some(kb as u64)
        .into_iter()
        .chain(window)
        .collect();
    let got = run_tri_mv(
        ty,
        &p,
        (&a, n, lda),
        (&x, n, incx),
        (&y0, n, incy),
        (alpha, beta),
        (flags, &tail),
        r1 - r0,
    );
    let av = |r: usize, c: usize| {
        if held(r, c) {
            a[index(storage, upper, shape, lda, r, c)]
        } else {
            C(0.0, 0.0)
        }
    };
    check_mv(
        ty,
        (alpha, Some(beta)),
        (&x, n, incx),
        (&y0, &got, n, incy),
        (r0..r1, c0..c1),
        |i, j| full_at(op, &av, upper, false, i, j),
        (c1 - c0) as f64 + 66.0,
        &format!(
            "{:?} {op:?} {storage:?} k {kb} upper {upper} window {r0}..{r1} x {c0}..{c1}",
            ty.dtype
        ),
    );
}

/// One gemv of `p` on an m×n matrix (lda = m + pad) against the host sum: `T`/`C` one
/// launch; `N` split over `chunks` column chunks (the partials in a workspace, then the
/// finish kernel) when `p.split`, else one launch.
fn gemv_case(ty: Ty, p: &GemvParams, (m, n, pad): (usize, usize, usize), incx: isize, chunks: u32) {
    let lda = m + pad;
    let incy = -2isize;
    let conj = p.trans == GemvTrans::C;
    let (lx, ly) = match p.trans {
        GemvTrans::N => (n, m),
        _ => (m, n),
    };
    let mut rng = Rng(3 + m as u64 * 7 + n as u64 * 11 + p.warps_per_column as u64);
    // The padding below each column holds NaN: a kernel reading past row m − 1 fails.
    let mut a = vec![C(f64::NAN, f64::NAN); lda * n];
    for j in 0..n {
        for i in 0..m {
            a[i + j * lda] = rng.value(ty);
        }
    }
    let x: Vec<C> = (0..extent(lx, incx)).map(|_| rng.value(ty)).collect();
    let y0: Vec<C> = (0..extent(ly, incy)).map(|_| rng.value(ty)).collect();
    let (alpha, beta) = (rng.value(ty), rng.value(ty));
    let ModuleImage::Ptx(text) = Gemv::generate(p, &target()).unwrap().image else {
        panic!("not PTX")
    };
    let mut mem = ptx_sim::Memory::default();
    let pa = mem.alloc(ty.bytes(&a));
    let px = mem.alloc(ty.bytes(&x));
    let py = mem.alloc(ty.bytes(&y0));
    let e = es(ty);
    let head = vec![
        m as u64,
        n as u64,
        pa,
        lda as u64,
        logical0(px, lx, incx, e),
        incx as i64 as u64,
    ];
    let mut tail = vec![logical0(py, ly, incy, e), incy as i64 as u64];
    tail.extend(ty.scalar(alpha));
    if p.read_y {
        tail.extend(ty.scalar(beta));
    }
    let groups = ly.div_ceil(p.outputs_per_group() as usize) as u32;
    let main = ptx_sim::host::entry(&text, gemv::KERNEL);
    if p.split {
        // Compute-type partials, chunk-major; unwritten ones would stay NaN.
        let work = mem.alloc(ty.bytes(&vec![C(f64::NAN, f64::NAN); chunks as usize * m]));
        let mut args = head.clone();
        args.push(work);
        main.run([groups, chunks, 1], p.block, &args, &mut mem);
        let mut args = vec![m as u64, chunks as u64, work];
        args.extend(&tail);
        let finish = ptx_sim::host::entry(&text, gemv::FINISH);
        finish.run(
            [m.div_ceil(p.block as usize) as u32, 1, 1],
            p.block,
            &args,
            &mut mem,
        );
    } else {
        let mut args = head.clone();
        args.extend(&tail);
        main.run([groups, 1, 1], p.block, &args, &mut mem);
    }
    let got = ty.values(mem.bytes(py));
    // op(A)(o, q): A(o, q) for N, A(q, o) (conjugated for C) for T/C.
    let op_a = |o: usize, q: usize| match p.trans {
        GemvTrans::N => a[o + q * lda],
        _ if conj => a[q + o * lda].conj(),
        _ => a[q + o * lda],
    };
    let c = if ty.complex { 4.0 } else { 1.0 };
    check_mv(
        ty,
        (alpha, p.read_y.then_some(beta)),
        (&x, lx, incx),
        (&y0, &got, ly, incy),
        (0..ly, 0..lx),
        op_a,
        (lx as f64 + 40.0) * c,
        &format!("{:?} {p:?} m {m} n {n} chunks {chunks}", ty.dtype),
    );
}

/// gemv `T`/`C` with one warp per column and with groups of 2 and 16 warps sharing a
/// column (the named-barrier reduction), element and wide loads, on sizes that leave
/// partial load steps, partial spans and a partial last workgroup.
#[test]
fn gemv_t_column_groups_in_the_ptx_interpreter() {
    for ty in TYPES {
        for trans in [GemvTrans::T, GemvTrans::C] {
            for (block, warps_per_column, rows, vector) in [
                (64, 1, 3, 1),
                (128, 2, 2, 1),
                (512, 16, 2, 2),
                (256, 2, 3, 4),
            ] {
                let p = GemvParams {
                    block,
                    warps_per_column,
                    rows,
                    vector,
                    read_y: warps_per_column != 2,
                    ..GemvParams::fallback(ty.dtype, trans, true)
                };
                // Wide loads need 16 bytes at most (the host picks them only then).
                if p.vector as usize * es(ty) > 16 {
                    continue;
                }
                for (m, n) in [(1, 3), (37, 5), (1100, 3)] {
                    // Wide loads: x contiguous, lda a multiple of the load.
                    let v = vector as usize;
                    let (pad, incx) = if v > 1 {
                        ((v - m % v) % v + v, 1)
                    } else {
                        (3, -3)
                    };
                    gemv_case(ty, &p, (m, n, pad), incx, 1);
                }
            }
        }
    }
}

/// gemv `N`, one launch and split over column chunks (including more chunks than
/// columns), with element and wide loads (m a multiple of the load, as the host
/// requires), rows and columns that leave partial slots and steps.
#[test]
fn gemv_n_in_the_ptx_interpreter() {
    for ty in TYPES {
        for (block, rows, cols, vector) in [(64, 3, 2, 1), (128, 2, 4, 2), (64, 2, 3, 4)] {
            if vector as usize * es(ty) > 16 {
                continue;
            }
            // 9 and 17 chunks: the finish kernel's batches of 8 loads and its single tail.
            for (split, chunks) in [(false, 1), (true, 3), (true, 9), (true, 17)] {
                let p = GemvParams {
                    block,
                    rows,
                    cols,
                    vector,
                    split,
                    read_y: chunks != 3,
                    ..GemvParams::fallback(ty.dtype, GemvTrans::N, true)
                };
                // (36, 50): every chunk of 9 and 17 holds columns.
                for (m, n) in [(4, 1), (36, 7), (1100, 5), (36, 50)] {
                    let v = vector as usize;
                    let pad = if v > 1 { v } else { 3 };
                    gemv_case(ty, &p, (m, n, pad), -2, chunks);
                }
            }
        }
    }
}
