//! Winograd minimal filtering F(m×m, 3×3) for 2-D 3×3 stride-1 forward convolutions.
//!
//! With α = m + 2, each m×m output tile is `Aᵀ[(G g Gᵀ) ⊙ (Bᵀ d B)]A` for the α×α input
//! tile d and 3×3 filter g (Lavin & Gray 2015). Summed over input channels the
//! elementwise products become α² independent GEMMs, run as one strided-batched
//! rocm-blas call per block of tiles:
//!
//! ```text
//! M_ξ[t, k] = Σ_c V_ξ[t, c] · U_ξ[c, k]     ξ = 0..α²,  t = tile, U = G g Gᵀ, V = Bᵀ d B
//! ```
//!
//! F(2,3) uses interpolation points 0, ±1, ∞; F(4,3) adds ±2 (its transforms carry the
//! larger rounding error, still well within f32 tolerance for 3×3 filters).

use super::{host, host_mut, ws_mut, ConvSolver, CoreOp, Geom};
use crate::Dnn;
use rayon::prelude::*;
use rocm_blas::Transpose;
use rocm_core::{BufferSlice, BufferSliceMut, DeviceBuffer, Error, Result};

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

/// `m · x · mᵀ` for an R×C matrix m and a C×C matrix x.
#[inline]
fn sandwich<const R: usize, const C: usize>(m: &[[f32; C]; R], x: &[[f32; C]; C]) -> [[f32; R]; R] {
    let mut t = [[0f32; C]; R]; // m · x
    for i in 0..R {
        for (j, tj) in t[i].iter_mut().enumerate() {
            *tj = (0..C).map(|l| m[i][l] * x[l][j]).sum();
        }
    }
    let mut o = [[0f32; R]; R];
    for i in 0..R {
        for (j, oj) in o[i].iter_mut().enumerate() {
            *oj = (0..C).map(|l| t[i][l] * m[j][l]).sum();
        }
    }
    o
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
        let [_, ih, iw] = g.i;
        let [_, oh, ow] = g.o;
        let (ph, pw) = (g.pad[1] as isize, g.pad[2] as isize);
        let (th, tw) = (oh.div_ceil(M), ow.div_ceil(M));
        let tiles = th * tw;
        let aa = A * A;
        let dev = dnn.device();
        let blas = dnn.blas();
        if g.n == 0 || g.k == 0 || tiles == 0 {
            return out.fill_zero();
        }
        // U: per group, α² column-major cg×kg matrices.
        let mut u = DeviceBuffer::<f32>::zeros(dev, g.g * aa * cg * kg)?;
        {
            let uh = ws_mut(&mut u, "U")?;
            for k in 0..g.k {
                let (grp, kl) = (k / kg, k % kg);
                for c in 0..cg {
                    let f = &w[(k * cg + c) * 9..][..9];
                    let gm = [[f[0], f[1], f[2]], [f[3], f[4], f[5]], [f[6], f[7], f[8]]];
                    let t = sandwich(&tr.g, &gm);
                    for (xi, v) in t.iter().flatten().enumerate() {
                        uh[((grp * aa + xi) * kg + kl) * cg + c] = *v;
                    }
                }
            }
        }
        // Tiles per block: V and M (α² × tb × max(cg, kg) f32) near 1 MiB.
        let tb = (262_144 / (aa * cg.max(kg)).max(1)).max(8).min(tiles);
        let osz = oh * ow;
        let y_all = host_mut(&mut out, "y")?;
        y_all
            .par_chunks_mut(g.k * osz)
            .enumerate()
            .try_for_each(|(n, y)| -> Result<()> {
                let mut v = DeviceBuffer::<f32>::zeros(dev, aa * tb * cg)?;
                let mut m = DeviceBuffer::<f32>::zeros(dev, aa * tb * kg)?;
                for grp in 0..g.g {
                    let ug = u.slice(grp * aa * cg * kg..(grp + 1) * aa * cg * kg)?;
                    for t0 in (0..tiles).step_by(tb) {
                        let nt = tb.min(tiles - t0);
                        {
                            let vh = ws_mut(&mut v, "V")?;
                            for c in 0..cg {
                                let plane = &x[(n * g.c + grp * cg + c) * ih * iw..][..ih * iw];
                                for t in 0..nt {
                                    let (ty, tx) = ((t0 + t) / tw, (t0 + t) % tw);
                                    let (y0, x0) = ((ty * M) as isize - ph, (tx * M) as isize - pw);
                                    let mut d = [[0f32; A]; A];
                                    for (i, di) in d.iter_mut().enumerate() {
                                        let yy = y0 + i as isize;
                                        if yy < 0 || yy as usize >= ih {
                                            continue;
                                        }
                                        let row = &plane[yy as usize * iw..][..iw];
                                        for (j, dij) in di.iter_mut().enumerate() {
                                            let xx = x0 + j as isize;
                                            if xx >= 0 && (xx as usize) < iw {
                                                *dij = row[xx as usize];
                                            }
                                        }
                                    }
                                    let bt = sandwich(&tr.bt, &d);
                                    for (xi, val) in bt.iter().flatten().enumerate() {
                                        vh[(xi * cg + c) * nt + t] = *val;
                                    }
                                }
                            }
                        }
                        let vs = v.slice(..aa * nt * cg)?;
                        let mut ms = m.slice_mut(..aa * nt * kg)?;
                        blas.gemm_strided_batched(
                            Transpose::N,
                            Transpose::N,
                            nt,
                            kg,
                            cg,
                            1.0,
                            &vs,
                            nt,
                            nt * cg,
                            &ug,
                            cg,
                            cg * kg,
                            0.0,
                            &mut ms,
                            nt,
                            nt * kg,
                            aa,
                        )?;
                        let mh = host(m.as_slice(), "M")?;
                        for kl in 0..kg {
                            let yk = &mut y[(grp * kg + kl) * osz..][..osz];
                            for t in 0..nt {
                                let mut mt = [[0f32; A]; A];
                                for (xi, e) in mt.iter_mut().flatten().enumerate() {
                                    *e = mh[(xi * kg + kl) * nt + t];
                                }
                                let o = sandwich(&tr.at, &mt);
                                let (ty, tx) = ((t0 + t) / tw, (t0 + t) % tw);
                                for (i, oi) in o.iter().enumerate() {
                                    let yy = ty * M + i;
                                    if yy >= oh {
                                        break;
                                    }
                                    for (j, &val) in oi.iter().enumerate() {
                                        let xx = tx * M + j;
                                        if xx < ow {
                                            yk[yy * ow + xx] = val;
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
                Ok(())
            })
    }
}
