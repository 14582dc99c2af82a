//! Winograd minimal filtering F(m×m, 3×3) for 2-D 3×3 stride-1 forward convolutions.
//!
//! With α = m + 2, each m×m output tile is `Aᵀ[(G g Gᵀ) ⊙ (Bᵀ d B)]A` for the α×α input
//! tile d and 3×3 filter g (Lavin & Gray 2015). Summed over input channels the
//! elementwise products become α² independent rocm-blas GEMMs per block of tiles:
//!
//! ```text
//! M_ξ[t, k] = Σ_c V_ξ[t, c] · U_ξ[c, k]     ξ = 0..α²,  t = tile, U = G g Gᵀ, V = Bᵀ d B
//! ```
//!
//! F(2,3) uses interpolation points 0, ±1, ∞; F(4,3) adds ±2 (its transforms carry the
//! larger rounding error, still well within f32 tolerance for 3×3 filters).
//!
//! Tiles are numbered across the whole batch and processed in blocks of a few hundred,
//! so that every GEMM has many rows even when one image has few tiles (a 7×7 output has 4
//! F(4,3) tiles): a GEMM packs its cg×kg matrix U_ξ once per block. Each block runs three
//! parallel phases: the input transform (one channel per work item), the α² GEMMs, and
//! the output transform (one filter per work item). The transforms work on 8 tiles at a
//! time, one per SIMD lane, skip the zero entries of B, G and A, and use AVX2 + FMA where
//! the CPU has them.

use super::{host, host_mut, ws_mut, ConvSolver, CoreOp, Geom};
use crate::simd::has_fma;
use crate::Dnn;
use rayon::prelude::*;
use rocm_core::linalg::Transpose;
use rocm_core::{BufferSlice, BufferSliceMut, DeviceBuffer, Error, Result};

/// Bytes of the V (and M) workspace of one block of tiles: about L2-sized, so that the
/// transforms' stores stay in cache (measured on Zen 3: 1 MiB beat 0.5, 2 and 8 MiB for
/// C = 64 and 256).
const BLOCK_BYTES: usize = 1 << 20;

/// F(M×M, 3×3) with tile side A = M + 2.
pub(crate) struct Winograd<const M: usize, const A: usize>;

/// The transform matrices of one F(m, 3).
struct Transforms<const M: usize, const A: usize> {
    bt: [[f32; A]; A],
    g: [[f32; 3]; A],
    at: [[f32; A]; M],
}

trait HasTransforms<const M: usize, const A: usize> {
    const T: Transforms<M, A>;
}

impl HasTransforms<2, 4> for Winograd<2, 4> {
    const T: Transforms<2, 4> = Transforms {
        bt: [
            [1.0, 0.0, -1.0, 0.0],
            [0.0, 1.0, 1.0, 0.0],
            [0.0, -1.0, 1.0, 0.0],
            [0.0, 1.0, 0.0, -1.0],
        ],
        g: [
            [1.0, 0.0, 0.0],
            [0.5, 0.5, 0.5],
            [0.5, -0.5, 0.5],
            [0.0, 0.0, 1.0],
        ],
        at: [[1.0, 1.0, 1.0, 0.0], [0.0, 1.0, -1.0, -1.0]],
    };
}

impl HasTransforms<4, 6> for Winograd<4, 6> {
    const T: Transforms<4, 6> = Transforms {
        bt: [
            [4.0, 0.0, -5.0, 0.0, 1.0, 0.0],
            [0.0, -4.0, -4.0, 1.0, 1.0, 0.0],
            [0.0, 4.0, -4.0, -1.0, 1.0, 0.0],
            [0.0, -2.0, -1.0, 2.0, 1.0, 0.0],
            [0.0, 2.0, -1.0, -2.0, 1.0, 0.0],
            [0.0, 4.0, 0.0, -5.0, 0.0, 1.0],
        ],
        g: [
            [0.25, 0.0, 0.0],
            [-1.0 / 6.0, -1.0 / 6.0, -1.0 / 6.0],
            [-1.0 / 6.0, 1.0 / 6.0, -1.0 / 6.0],
            [1.0 / 24.0, 1.0 / 12.0, 1.0 / 6.0],
            [1.0 / 24.0, -1.0 / 12.0, 1.0 / 6.0],
            [0.0, 0.0, 1.0],
        ],
        at: [
            [1.0, 1.0, 1.0, 1.0, 1.0, 0.0],
            [0.0, 1.0, -1.0, 2.0, -2.0, 0.0],
            [0.0, 1.0, 1.0, 4.0, 4.0, 0.0],
            [0.0, 1.0, -1.0, 8.0, -8.0, 1.0],
        ],
    };
}

/// Tiles (or channels) transformed at once, one per SIMD lane.
const L: usize = 8;
type Lanes = [f32; L];

/// `e + a·v`, fused when `FMA` (only instantiated where the CPU has FMA: elsewhere
/// `mul_add` would be a library call).
#[inline(always)]
fn madd<const FMA: bool>(e: f32, a: f32, v: f32) -> f32 {
    if FMA {
        a.mul_add(v, e)
    } else {
        e + a * v
    }
}

/// `m · x · mᵀ` for an R×C matrix m and a C×C matrix x of lane vectors (L independent
/// problems). Zero entries of m are skipped: most entries of B, G and A are 0 (F(4,3)'s
/// Bᵀ has 22 non-zeros of 36), so the transforms cost a fraction of the dense product.
#[inline(always)]
fn sandwich<const FMA: bool, const R: usize, const C: usize>(
    m: &[[f32; C]; R],
    x: &[[Lanes; C]; C],
) -> [[Lanes; R]; R] {
    let mut t = [[[0f32; L]; C]; R]; // m · x
    for (ti, mi) in t.iter_mut().zip(m) {
        for (&a, xl) in mi.iter().zip(x) {
            if a == 0.0 {
                continue;
            }
            for (tij, xlj) in ti.iter_mut().zip(xl) {
                for (e, &v) in tij.iter_mut().zip(xlj) {
                    *e = madd::<FMA>(*e, a, v);
                }
            }
        }
    }
    let mut o = [[[0f32; L]; R]; R];
    for (oi, ti) in o.iter_mut().zip(&t) {
        for (oij, mj) in oi.iter_mut().zip(m) {
            for (&a, til) in mj.iter().zip(ti) {
                if a == 0.0 {
                    continue;
                }
                for (e, &v) in oij.iter_mut().zip(til) {
                    *e = madd::<FMA>(*e, a, v);
                }
            }
        }
    }
    o
}

/// One call's geometry and the transforms over it.
struct Plan<'a, const M: usize, const A: usize> {
    tr: &'a Transforms<M, A>,
    g: &'a Geom,
    /// Output tiles per row and column of one image, and per image.
    tw: usize,
    th: usize,
    tiles: usize,
}

impl<const M: usize, const A: usize> Plan<'_, M, A> {
    /// Where global tile `t` starts: (image, first output row, first output column).
    fn origin(&self, t: usize) -> (usize, usize, usize) {
        let (n, tt) = (t / self.tiles, t % self.tiles);
        (n, (tt / self.tw) * M, (tt % self.tw) * M)
    }

    /// The origin of the tile after the one at `o` (no division).
    fn next(&self, (n, y0, x0): (usize, usize, usize)) -> (usize, usize, usize) {
        if x0 + M < self.tw * M {
            (n, y0, x0 + M)
        } else if y0 + M < self.th * M {
            (n, y0 + M, 0)
        } else {
            (n + 1, 0, 0)
        }
    }

    /// U of group `grp` into `ug` (α² column-major cg×kg matrices: filter k's transforms
    /// in column k), L input channels at a time.
    #[inline(always)]
    fn filters<const FMA: bool>(&self, w: &[f32], grp: usize, ug: &mut [f32]) {
        let (cg, kg) = (self.g.cg(), self.g.kg());
        for kl in 0..kg {
            let k = grp * kg + kl;
            for c0 in (0..cg).step_by(L) {
                let lanes = L.min(cg - c0);
                let mut f = [[[0f32; L]; 3]; 3];
                for q in 0..lanes {
                    let taps = &w[(k * cg + c0 + q) * 9..][..9];
                    for (e, &v) in f.iter_mut().flatten().zip(taps) {
                        e[q] = v;
                    }
                }
                let t = sandwich::<FMA, A, 3>(&self.tr.g, &f);
                for (xi, v) in t.iter().flatten().enumerate() {
                    let at = (xi * kg + kl) * cg + c0;
                    ug[at..at + lanes].copy_from_slice(&v[..lanes]);
                }
            }
        }
    }

    /// The input transforms of channel `c` of group `grp` for tiles [t0, t0 + nt) into
    /// `vc` (element (ξ, t) at ξ·tb + t − t0).
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    fn inputs<const FMA: bool>(
        &self,
        x: &[f32],
        grp: usize,
        c: usize,
        t0: usize,
        nt: usize,
        tb: usize,
        vc: &mut [f32],
    ) {
        let g = self.g;
        let ([_, ih, iw], cg) = (g.i, g.cg());
        let (ph, pw) = (g.pad[1] as isize, g.pad[2] as isize);
        for t in (0..nt).step_by(L) {
            let mut d = [[[0f32; L]; A]; A];
            let mut at = self.origin(t0 + t);
            for q in 0..L.min(nt - t) {
                let (n, y0, x0) = at;
                at = self.next(at);
                let plane = &x[(n * g.c + grp * cg + c) * ih * iw..][..ih * iw];
                let (yy0, xx0) = (y0 as isize - ph, x0 as isize - pw);
                if yy0 >= 0 && xx0 >= 0 && yy0 as usize + A <= ih && xx0 as usize + A <= iw {
                    // Interior tile: whole rows, no bounds per element.
                    let base = yy0 as usize * iw + xx0 as usize;
                    for (i, di) in d.iter_mut().enumerate() {
                        for (dij, &v) in di.iter_mut().zip(&plane[base + i * iw..][..A]) {
                            dij[q] = v;
                        }
                    }
                    continue;
                }
                for (i, di) in d.iter_mut().enumerate() {
                    let yy = yy0 + i as isize;
                    if yy < 0 || yy as usize >= ih {
                        continue;
                    }
                    let row = &plane[yy as usize * iw..][..iw];
                    for (j, dij) in di.iter_mut().enumerate() {
                        let xx = xx0 + j as isize;
                        if xx >= 0 && (xx as usize) < iw {
                            dij[q] = row[xx as usize];
                        }
                    }
                }
            }
            let bt = sandwich::<FMA, A, A>(&self.tr.bt, &d);
            for (xi, val) in bt.iter().flatten().enumerate() {
                vc[xi * tb + t..][..L].copy_from_slice(val);
            }
        }
    }

    /// The output transforms of filter `kl` (of the group whose M is `mh`) for tiles
    /// [t0, t0 + nt) into the filter's output planes (`planes[n]` for image n).
    #[inline(always)]
    fn outputs<const FMA: bool>(
        &self,
        mh: &[f32],
        kl: usize,
        t0: usize,
        nt: usize,
        tb: usize,
        planes: &mut [&mut [f32]],
    ) {
        let [_, oh, ow] = self.g.o;
        let kg = self.g.kg();
        for t in (0..nt).step_by(L) {
            let mut mt = [[[0f32; L]; A]; A];
            for (xi, e) in mt.iter_mut().flatten().enumerate() {
                e.copy_from_slice(&mh[(xi * kg + kl) * tb + t..][..L]);
            }
            let o = sandwich::<FMA, M, A>(&self.tr.at, &mt);
            let mut at = self.origin(t0 + t);
            for q in 0..L.min(nt - t) {
                let (n, y0, x0) = at;
                at = self.next(at);
                let plane = &mut *planes[n];
                for (i, oi) in o.iter().enumerate().take(oh - y0) {
                    let row = &mut plane[(y0 + i) * ow..][..ow];
                    for (j, oij) in oi.iter().enumerate().take(ow - x0) {
                        row[x0 + j] = oij[q];
                    }
                }
            }
        }
    }
}

/// The transforms compiled for AVX2 + FMA; callable only where [`has_fma`] holds.
#[cfg(target_arch = "x86_64")]
mod fma {
    use super::Plan;

    #[target_feature(enable = "avx2,fma")]
    pub(super) unsafe fn filters<const M: usize, const A: usize>(
        p: &Plan<'_, M, A>,
        w: &[f32],
        grp: usize,
        ug: &mut [f32],
    ) {
        p.filters::<true>(w, grp, ug)
    }

    #[target_feature(enable = "avx2,fma")]
    #[allow(clippy::too_many_arguments)]
    pub(super) unsafe fn inputs<const M: usize, const A: usize>(
        p: &Plan<'_, M, A>,
        x: &[f32],
        grp: usize,
        c: usize,
        t0: usize,
        nt: usize,
        tb: usize,
        vc: &mut [f32],
    ) {
        p.inputs::<true>(x, grp, c, t0, nt, tb, vc)
    }

    #[target_feature(enable = "avx2,fma")]
    pub(super) unsafe fn outputs<const M: usize, const A: usize>(
        p: &Plan<'_, M, A>,
        mh: &[f32],
        kl: usize,
        t0: usize,
        nt: usize,
        tb: usize,
        planes: &mut [&mut [f32]],
    ) {
        p.outputs::<true>(mh, kl, t0, nt, tb, planes)
    }
}

impl<const M: usize, const A: usize> ConvSolver for Winograd<M, A>
where
    Winograd<M, A>: HasTransforms<M, A>,
{
    fn applies(&self, g: &Geom, op: CoreOp) -> bool {
        op == CoreOp::Fwd && g.is_3x3_unit()
    }

    fn run(
        &self,
        dnn: &Dnn,
        g: &Geom,
        op: CoreOp,
        a: BufferSlice<'_, f32>,
        b: BufferSlice<'_, f32>,
        mut out: BufferSliceMut<'_, f32>,
    ) -> Result<()> {
        if !self.applies(g, op) {
            return Err(Error::invalid(
                "algorithm",
                "Winograd applies to 2-D 3×3 stride-1 forward problems only",
            ));
        }
        let tr = <Self as HasTransforms<M, A>>::T;
        let (cg, kg) = (g.cg(), g.kg());
        let (x, w) = (host(a, "x")?, host(b, "w")?);
        let [_, oh, ow] = g.o;
        let (th, tw) = (oh.div_ceil(M), ow.div_ceil(M));
        let plan = Plan {
            tr: &tr,
            g,
            tw,
            th,
            tiles: th * tw,
        };
        let aa = A * A;
        let dev = dnn.device();
        let blas = dnn.blas();
        if g.n == 0 || g.k == 0 || plan.tiles == 0 {
            return out.fill_zero();
        }
        let fma = has_fma();
        let mut u = DeviceBuffer::<f32>::zeros(dev, g.g * aa * cg * kg)?;
        ws_mut(&mut u, "U")?
            .par_chunks_mut(aa * cg * kg)
            .enumerate()
            .for_each(|(grp, ug)| {
                #[cfg(target_arch = "x86_64")]
                if fma {
                    // SAFETY: has_fma() found AVX2 and FMA on this CPU.
                    return unsafe { fma::filters(&plan, w, grp, ug) };
                }
                plan.filters::<false>(w, grp, ug)
            });
        // Blocks of at most BLOCK_BYTES of V (and of M) but at least 64 tiles, balanced and
        // rounded up to whole lane groups (the spare lanes are computed, never read).
        let total = g.n * plan.tiles;
        let tmax = (BLOCK_BYTES / (4 * aa * cg.max(kg))).clamp(64, 4096);
        let tb = total.div_ceil(total.div_ceil(tmax)).next_multiple_of(L);
        let osz = oh * ow;
        // The output planes grouped by filter: y_k[k][n] is plane (n, k).
        let mut y_k: Vec<Vec<&mut [f32]>> = (0..g.k).map(|_| Vec::with_capacity(g.n)).collect();
        for (i, plane) in host_mut(&mut out, "y")?.chunks_mut(osz).enumerate() {
            y_k[i % g.k].push(plane);
        }
        // V: channel-major, V[c][ξ][t]: the matrix V_ξ (tiles × channels) has leading
        // dimension α²·tb and starts at ξ·tb, so one channel's transforms are contiguous.
        let mut v = DeviceBuffer::<f32>::zeros(dev, aa * tb * cg)?;
        // M: ξ-major, M_ξ (tiles × filters) of leading dimension tb at ξ·tb·kg.
        let mut m = DeviceBuffer::<f32>::zeros(dev, aa * tb * kg)?;
        for grp in 0..g.g {
            let ug = u.slice(grp * aa * cg * kg..(grp + 1) * aa * cg * kg)?;
            for t0 in (0..total).step_by(tb) {
                let nt = tb.min(total - t0);
                ws_mut(&mut v, "V")?
                    .par_chunks_mut(aa * tb)
                    .enumerate()
                    .for_each(|(c, vc)| {
                        #[cfg(target_arch = "x86_64")]
                        if fma {
                            // SAFETY: has_fma() found AVX2 and FMA on this CPU.
                            return unsafe { fma::inputs(&plan, x, grp, c, t0, nt, tb, vc) };
                        }
                        plan.inputs::<false>(x, grp, c, t0, nt, tb, vc)
                    });
                let vs = v.as_slice();
                let mut ms = Vec::with_capacity(aa);
                let mut rest = m.as_slice_mut();
                for _ in 0..aa {
                    let (head, tail) = rest.split_at_mut(tb * kg)?;
                    ms.push(head);
                    rest = tail;
                }
                ms.into_par_iter()
                    .enumerate()
                    .try_for_each(|(xi, mut mx)| {
                        blas.gemm(
                            Transpose::N,
                            Transpose::N,
                            nt,
                            kg,
                            cg,
                            1.0,
                            &vs.slice(xi * tb..)?,
                            aa * tb,
                            &ug.slice(xi * cg * kg..)?,
                            cg,
                            0.0,
                            &mut mx,
                            tb,
                        )
                    })?;
                let mh = host(m.as_slice(), "M")?;
                y_k[grp * kg..(grp + 1) * kg]
                    .par_iter_mut()
                    .enumerate()
                    .for_each(|(kl, planes)| {
                        #[cfg(target_arch = "x86_64")]
                        if fma {
                            // SAFETY: has_fma() found AVX2 and FMA on this CPU.
                            return unsafe { fma::outputs(&plan, mh, kl, t0, nt, tb, planes) };
                        }
                        plan.outputs::<false>(mh, kl, t0, nt, tb, planes)
                    });
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The AVX2 + FMA instantiations of the transforms against the portable ones on the
    /// same random block (ragged tiles, padding, two images per lane group). The two
    /// differ only in fused rounding: each output is a sum of at most 36 products of
    /// entries ≤ 8 in size with |x| < 1, so they agree to 64·u·36·8 ≈ 1e-4·|scale|.
    #[test]
    fn fma_transforms_match_portable_ones() {
        if !has_fma() {
            return;
        }
        let g = Geom {
            n: 3,
            c: 5,
            k: 4,
            g: 1,
            i: [1, 7, 9],
            o: [1, 7, 9],
            f: [1, 3, 3],
            pad: [0, 1, 1],
            stride: [1, 1, 1],
            dil: [1, 1, 1],
        };
        let tr = <Winograd<4, 6> as HasTransforms<4, 6>>::T;
        let (th, tw) = (2, 3);
        let plan = Plan {
            tr: &tr,
            g: &g,
            tw,
            th,
            tiles: th * tw,
        };
        let rnd = |len: usize, seed: u64| -> Vec<f32> {
            (0..len as u64)
                .map(|i| crate::dropout::uniform(seed, i) * 2.0 - 1.0)
                .collect()
        };
        let close = |a: &[f32], b: &[f32]| {
            for (i, (x, y)) in a.iter().zip(b).enumerate() {
                assert!((x - y).abs() <= 1e-4 * (1.0 + x.abs()), "{i}: {x} vs {y}");
            }
        };
        let w = rnd(4 * 5 * 9, 1);
        let (mut u0, mut u1) = (vec![0f32; 36 * 20], vec![0f32; 36 * 20]);
        plan.filters::<false>(&w, 0, &mut u0);
        // SAFETY: has_fma() holds (checked above).
        unsafe { fma::filters(&plan, &w, 0, &mut u1) };
        close(&u0, &u1);
        let x = rnd(3 * 5 * 63, 2);
        let (t0, nt, tb) = (3, 13, 16);
        let (mut v0, mut v1) = (vec![0f32; 36 * tb], vec![0f32; 36 * tb]);
        plan.inputs::<false>(&x, 0, 2, t0, nt, tb, &mut v0);
        // SAFETY: as above.
        unsafe { fma::inputs(&plan, &x, 0, 2, t0, nt, tb, &mut v1) };
        close(&v0, &v1);
        let mh = rnd(36 * tb * 4, 3);
        let mut y0 = vec![0f32; 3 * 63];
        let mut y1 = vec![0f32; 3 * 63];
        let mut p0: Vec<&mut [f32]> = y0.chunks_mut(63).collect();
        let mut p1: Vec<&mut [f32]> = y1.chunks_mut(63).collect();
        plan.outputs::<false>(&mh, 1, t0, nt, tb, &mut p0);
        // SAFETY: as above.
        unsafe { fma::outputs(&plan, &mh, 1, t0, nt, tb, &mut p1) };
        close(&y0, &y1);
        // Tiles t0..t0+nt of 3 images of 6 tiles were written, nothing else.
        assert!(y0[..9].iter().all(|&v| v == 0.0) && y0[9..].iter().any(|&v| v != 0.0));
    }
}
