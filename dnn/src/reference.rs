//! Obviously-correct f64 implementations, straight from the definitions, that every
//! kernel is tested against. Tensors are packed in logical order (N, C, (D,) H, W).

use crate::activation::Activation;
use crate::conv::{ConvDesc, ConvMode};

/// Spatial dims widened to 3 (depth 1 for 2-D).
fn sp3(d: &[usize]) -> [usize; 3] {
    match d.len() {
        2 => [1, d[0], d[1]],
        _ => [d[0], d[1], d[2]],
    }
}

/// Calls `f(xi, wi, yi)` for every product x[xi]·w[wi] that contributes to y[yi] in the
/// forward pass of `conv` (plain or transposed) with packed x, w, y of these dims.
pub fn conv_terms(
    conv: &ConvDesc,
    xd: &[usize],
    wd: &[usize],
    yd: &[usize],
    mut f: impl FnMut(usize, usize, usize),
) {
    let r = conv.spatial_rank();
    let pad = sp3(&conv.pads);
    let (stride, dil) = (sp3(&conv.strides), sp3(&conv.dilations));
    let (xs, ws, ys) = (sp3(&xd[2..]), sp3(&wd[2..]), sp3(&yd[2..]));
    let (pad, stride, dil) = if r == 2 {
        (
            [0, pad[1], pad[2]],
            [1, stride[1], stride[2]],
            [1, dil[1], dil[2]],
        )
    } else {
        (pad, stride, dil)
    };
    let g = conv.groups;
    let (n, cx, cy) = (xd[0], xd[1], yd[1]);
    let (cxg, cyg) = (cx / g, cy / g);
    let vol = |s: [usize; 3]| s[0] * s[1] * s[2];
    let idx = |s: [usize; 3], p: [usize; 3]| (p[0] * s[1] + p[1]) * s[2] + p[2];
    for b in 0..n {
        for grp in 0..g {
            for xc in 0..cxg {
                for yc in 0..cyg {
                    let (xch, ych) = (grp * cxg + xc, grp * cyg + yc);
                    // Plain: w[k = y channel, c = x channel in group]; transposed:
                    // w[cin = x channel, kout = y channel in group].
                    let wbase = match conv.mode {
                        ConvMode::Convolution => (ych * cxg + xc) * vol(ws),
                        ConvMode::Transposed => (xch * cyg + yc) * vol(ws),
                    };
                    // The "small" side (output of the plain convolution).
                    let (outer, inner) = match conv.mode {
                        ConvMode::Convolution => (ys, xs),
                        ConvMode::Transposed => (xs, ys),
                    };
                    for o0 in 0..outer[0] {
                        for o1 in 0..outer[1] {
                            for o2 in 0..outer[2] {
                                for f0 in 0..ws[0] {
                                    for f1 in 0..ws[1] {
                                        for f2 in 0..ws[2] {
                                            let o = [o0, o1, o2];
                                            let fp = [f0, f1, f2];
                                            let mut ip = [0usize; 3];
                                            let mut inside = true;
                                            for d in 0..3 {
                                                let v = (o[d] * stride[d] + fp[d] * dil[d]) as i64
                                                    - pad[d] as i64;
                                                inside &= v >= 0 && (v as usize) < inner[d];
                                                ip[d] = v.max(0) as usize;
                                            }
                                            if !inside {
                                                continue;
                                            }
                                            let wi = wbase + idx(ws, fp);
                                            let (xi, yi) = match conv.mode {
                                                ConvMode::Convolution => (
                                                    (b * cx + xch) * vol(xs) + idx(xs, ip),
                                                    (b * cy + ych) * vol(ys) + idx(ys, o),
                                                ),
                                                ConvMode::Transposed => (
                                                    (b * cx + xch) * vol(xs) + idx(xs, o),
                                                    (b * cy + ych) * vol(ys) + idx(ys, ip),
                                                ),
                                            };
                                            f(xi, wi, yi);
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}

/// y = act(conv(x, w) + bias).
#[allow(clippy::too_many_arguments)]
pub fn conv_forward(
    conv: &ConvDesc,
    xd: &[usize],
    x: &[f64],
    wd: &[usize],
    w: &[f64],
    yd: &[usize],
    bias: Option<&[f64]>,
    act: Activation,
) -> Vec<f64> {
    let mut y = vec![0.0; yd.iter().product()];
    conv_terms(conv, xd, wd, yd, |xi, wi, yi| y[yi] += x[xi] * w[wi]);
    let plane: usize = yd[2..].iter().product();
    for (i, v) in y.iter_mut().enumerate() {
        let b = bias.map_or(0.0, |b| b[(i / plane) % yd[1]]);
        *v = act.apply(*v + b);
    }
    y
}

/// dx = (∂y/∂x)ᵀ dy.
pub fn conv_backward_data(
    conv: &ConvDesc,
    xd: &[usize],
    wd: &[usize],
    w: &[f64],
    yd: &[usize],
    dy: &[f64],
) -> Vec<f64> {
    let mut dx = vec![0.0; xd.iter().product()];
    conv_terms(conv, xd, wd, yd, |xi, wi, yi| dx[xi] += dy[yi] * w[wi]);
    dx
}

/// dw = (∂y/∂w)ᵀ dy.
pub fn conv_backward_weights(
    conv: &ConvDesc,
    xd: &[usize],
    x: &[f64],
    wd: &[usize],
    yd: &[usize],
    dy: &[f64],
) -> Vec<f64> {
    let mut dw = vec![0.0; wd.iter().product()];
    conv_terms(conv, xd, wd, yd, |xi, wi, yi| dw[wi] += x[xi] * dy[yi]);
    dw
}

/// Σ |x[xi]·w[wi]| per y element: the scale of the rounding error of each output.
pub fn conv_abs_forward(
    conv: &ConvDesc,
    xd: &[usize],
    x: &[f64],
    wd: &[usize],
    w: &[f64],
    yd: &[usize],
) -> Vec<f64> {
    let mut y = vec![0.0; yd.iter().product()];
    conv_terms(conv, xd, wd, yd, |xi, wi, yi| {
        y[yi] += (x[xi] * w[wi]).abs()
    });
    y
}

/// Pooling forward: (y, argmax flat index per output within the input plane).
pub fn pool_forward(
    pool: &crate::pooling::PoolDesc,
    xd: &[usize],
    x: &[f64],
) -> (Vec<f64>, Vec<i32>) {
    let (pd, pg) = pool_geom(pool, xd);
    let mut y = Vec::new();
    let mut ix = Vec::new();
    pool_visit(&pg, xd, |plane, win| {
        let vals: Vec<(usize, f64)> = win.iter().map(|&i| (i, x[plane + i])).collect();
        let (bi, bv) = vals
            .iter()
            .fold((usize::MAX, f64::NEG_INFINITY), |(bi, bv), &(i, v)| {
                if v > bv || bi == usize::MAX {
                    (i, v)
                } else {
                    (bi, bv)
                }
            });
        let s: f64 = vals.iter().map(|v| v.1).sum();
        y.push(match pool.mode {
            crate::pooling::PoolMode::Max => bv,
            crate::pooling::PoolMode::AverageInclusive => s / pd as f64,
            crate::pooling::PoolMode::AverageExclusive => s / vals.len().max(1) as f64,
        });
        ix.push(bi as i32);
    });
    (y, ix)
}

/// Pooling backward (max: to the first maximum of each window).
pub fn pool_backward(
    pool: &crate::pooling::PoolDesc,
    xd: &[usize],
    x: &[f64],
    dy: &[f64],
) -> Vec<f64> {
    let (pd, pg) = pool_geom(pool, xd);
    let mut dx = vec![0.0; x.len()];
    let mut o = 0;
    pool_visit(&pg, xd, |plane, win| {
        match pool.mode {
            crate::pooling::PoolMode::Max => {
                let mut best = (usize::MAX, f64::NEG_INFINITY);
                for &i in &win {
                    if x[plane + i] > best.1 || best.0 == usize::MAX {
                        best = (i, x[plane + i]);
                    }
                }
                if best.0 != usize::MAX {
                    dx[plane + best.0] += dy[o];
                }
            }
            mode => {
                let div = if mode == crate::pooling::PoolMode::AverageInclusive {
                    pd
                } else {
                    win.len().max(1)
                };
                for &i in &win {
                    dx[plane + i] += dy[o] / div as f64;
                }
            }
        }
        o += 1;
    });
    dx
}

type PoolGeom = ([usize; 3], [usize; 3], [usize; 3], [usize; 3], [usize; 3]);

fn pool_geom(pool: &crate::pooling::PoolDesc, xd: &[usize]) -> (usize, PoolGeom) {
    let r = pool.window.len();
    let w = |v: &[usize], f: usize| {
        if r == 2 {
            [f, v[0], v[1]]
        } else {
            [v[0], v[1], v[2]]
        }
    };
    let i = sp3(&xd[2..]);
    let (win, pad, st) = (w(&pool.window, 1), w(&pool.pads, 0), w(&pool.strides, 1));
    let o = [0, 1, 2].map(|d| (i[d] + 2 * pad[d] - win[d]) / st[d] + 1);
    (win.iter().product(), (i, o, win, pad, st))
}

/// Calls `f(plane offset, in-bounds window indices)` for every output in logical order.
fn pool_visit(g: &PoolGeom, xd: &[usize], mut f: impl FnMut(usize, Vec<usize>)) {
    let (i, o, win, pad, st) = *g;
    let plane: usize = i.iter().product();
    for nc in 0..xd[0] * xd[1] {
        for a in 0..o[0] {
            for b in 0..o[1] {
                for c in 0..o[2] {
                    let mut idx = Vec::new();
                    for u in 0..win[0] {
                        for v in 0..win[1] {
                            for w in 0..win[2] {
                                let p = [a * st[0] + u, b * st[1] + v, c * st[2] + w];
                                let q = [0, 1, 2].map(|d| p[d] as i64 - pad[d] as i64);
                                if (0..3).all(|d| q[d] >= 0 && (q[d] as usize) < i[d]) {
                                    idx.push(
                                        (q[0] as usize * i[1] + q[1] as usize) * i[2]
                                            + q[2] as usize,
                                    );
                                }
                            }
                        }
                    }
                    f(nc * plane, idx);
                }
            }
        }
    }
}

/// Normalisation over index sets: yᵢ = γ_{p(i)}·(xᵢ − μ_S)/√(σ²_S + ε) + β_{p(i)}
/// (μ = 0 when `center` is false, σ² then the mean square). Returns (y, μ per set,
/// 1/√(σ²+ε) per set).
pub fn normalize(
    x: &[f64],
    sets: &[Vec<usize>],
    center: bool,
    eps: f64,
    param: &dyn Fn(usize) -> usize,
    gamma: Option<&[f64]>,
    beta: Option<&[f64]>,
) -> (Vec<f64>, Vec<f64>, Vec<f64>) {
    let mut y = vec![0.0; x.len()];
    let (mut mu, mut rs) = (Vec::new(), Vec::new());
    for s in sets {
        let m = s.len().max(1) as f64;
        let mean = if center {
            s.iter().map(|&i| x[i]).sum::<f64>() / m
        } else {
            0.0
        };
        let var = s.iter().map(|&i| (x[i] - mean).powi(2)).sum::<f64>() / m;
        let r = 1.0 / (var + eps).sqrt();
        for &i in s {
            let p = param(i);
            y[i] = gamma.map_or(1.0, |g| g[p]) * (x[i] - mean) * r + beta.map_or(0.0, |b| b[p]);
        }
        mu.push(mean);
        rs.push(r);
    }
    (y, mu, rs)
}

/// Gradients of [`normalize`]: (dx, dγ, dβ), by the chain rule written out per set:
/// dxᵢ = r·(gᵢ − mean(g) − x̂ᵢ·mean(g·x̂)) with g = γ·dy (mean(g) term only when centred).
#[allow(clippy::too_many_arguments)]
pub fn normalize_backward(
    x: &[f64],
    dy: &[f64],
    sets: &[Vec<usize>],
    center: bool,
    eps: f64,
    param: &dyn Fn(usize) -> usize,
    gamma: Option<&[f64]>,
    nparam: usize,
) -> (Vec<f64>, Vec<f64>, Vec<f64>) {
    let (_, mu, rs) = normalize(x, sets, center, eps, param, None, None);
    let mut dx = vec![0.0; x.len()];
    let (mut dg, mut db) = (vec![0.0; nparam], vec![0.0; nparam]);
    for (si, s) in sets.iter().enumerate() {
        let m = s.len().max(1) as f64;
        let xh = |i: usize| (x[i] - mu[si]) * rs[si];
        let g = |i: usize| dy[i] * gamma.map_or(1.0, |gm| gm[param(i)]);
        let mg = if center {
            s.iter().map(|&i| g(i)).sum::<f64>() / m
        } else {
            0.0
        };
        let mgx = s.iter().map(|&i| g(i) * xh(i)).sum::<f64>() / m;
        for &i in s {
            dx[i] = rs[si] * (g(i) - mg - xh(i) * mgx);
            dg[param(i)] += dy[i] * xh(i);
            db[param(i)] += dy[i];
        }
    }
    (dx, dg, db)
}

/// Softmax or log-softmax along `axis` of a packed tensor of `dims`.
pub fn softmax(dims: &[usize], axis: usize, x: &[f64], log: bool) -> Vec<f64> {
    let mut y = vec![0.0; x.len()];
    for line in softmax_lines(dims, axis) {
        let m = line.iter().map(|&i| x[i]).fold(f64::NEG_INFINITY, f64::max);
        let s: f64 = line.iter().map(|&i| (x[i] - m).exp()).sum();
        for &i in &line {
            y[i] = if log {
                x[i] - m - s.ln()
            } else {
                (x[i] - m).exp() / s
            };
        }
    }
    y
}

/// dx = Jᵀ dy with the softmax Jacobian written out: ∂yⱼ/∂xᵢ = yⱼ(δᵢⱼ − yᵢ) for softmax,
/// δᵢⱼ − softmaxᵢ for log-softmax.
pub fn softmax_backward(dims: &[usize], axis: usize, x: &[f64], dy: &[f64], log: bool) -> Vec<f64> {
    let p = softmax(dims, axis, x, false);
    let mut dx = vec![0.0; x.len()];
    for line in softmax_lines(dims, axis) {
        for &i in &line {
            dx[i] = line
                .iter()
                .map(|&j| {
                    let d = if i == j { 1.0 } else { 0.0 };
                    dy[j] * if log { d - p[i] } else { p[j] * (d - p[i]) }
                })
                .sum();
        }
    }
    dx
}

/// The logical indices of every line along `axis` of a packed tensor of `dims`.
pub fn softmax_lines(dims: &[usize], axis: usize) -> Vec<Vec<usize>> {
    let outer: usize = dims[..axis].iter().product();
    let len = dims[axis];
    let inner: usize = dims[axis + 1..].iter().product();
    let mut v = Vec::new();
    for o in 0..outer {
        for j in 0..inner {
            v.push((0..len).map(|i| (o * len + i) * inner + j).collect());
        }
    }
    v
}

/// Attention problem sizes for the reference.
#[derive(Debug, Clone, Copy)]
pub struct AttnShape {
    pub b: usize,
    pub hq: usize,
    pub hkv: usize,
    pub sq: usize,
    pub sk: usize,
    pub d: usize,
    pub scale: f64,
    pub causal: bool,
}

impl AttnShape {
    /// Whether query i of batch b sees key j.
    pub fn visible(&self, key_len: Option<&[usize]>, b: usize, i: usize, j: usize) -> bool {
        j < key_len.map_or(self.sk, |l| l[b])
            && (!self.causal || j as i64 <= i as i64 + self.sk as i64 - self.sq as i64)
    }

    /// P = softmax(S) per (b, h) as a full Sq×Sk matrix (rows without keys are 0).
    fn probs(
        &self,
        q: &[f64],
        k: &[f64],
        key_len: Option<&[usize]>,
        b: usize,
        h: usize,
    ) -> Vec<f64> {
        let kh = h / (self.hq / self.hkv);
        let mut p = vec![0.0; self.sq * self.sk];
        for i in 0..self.sq {
            let qi = &q[((b * self.hq + h) * self.sq + i) * self.d..][..self.d];
            let mut row: Vec<Option<f64>> = vec![None; self.sk];
            for (j, r) in row.iter_mut().enumerate() {
                if self.visible(key_len, b, i, j) {
                    let kj = &k[((b * self.hkv + kh) * self.sk + j) * self.d..][..self.d];
                    *r = Some(self.scale * qi.iter().zip(kj).map(|(a, c)| a * c).sum::<f64>());
                }
            }
            let m = row
                .iter()
                .flatten()
                .copied()
                .fold(f64::NEG_INFINITY, f64::max);
            let s: f64 = row.iter().flatten().map(|v| (v - m).exp()).sum();
            for (j, r) in row.iter().enumerate() {
                if let Some(v) = r {
                    p[i * self.sk + j] = (v - m).exp() / s;
                }
            }
        }
        p
    }
}

/// Naive O(s²) attention: (o, logsumexp per query).
pub fn attention(
    a: &AttnShape,
    q: &[f64],
    k: &[f64],
    v: &[f64],
    key_len: Option<&[usize]>,
) -> Vec<f64> {
    let mut o = vec![0.0; a.b * a.hq * a.sq * a.d];
    for b in 0..a.b {
        for h in 0..a.hq {
            let kh = h / (a.hq / a.hkv);
            let p = a.probs(q, k, key_len, b, h);
            for i in 0..a.sq {
                for j in 0..a.sk {
                    let pij = p[i * a.sk + j];
                    for d in 0..a.d {
                        o[((b * a.hq + h) * a.sq + i) * a.d + d] +=
                            pij * v[((b * a.hkv + kh) * a.sk + j) * a.d + d];
                    }
                }
            }
        }
    }
    o
}

/// Naive attention gradients (dq, dk, dv) with full matrices:
/// dV = Pᵀ·dO, dP = dO·Vᵀ, dS = P ∘ (dP − rowsum(dP ∘ P)), dQ = scale·dS·K, dK = scale·dSᵀ·Q.
pub fn attention_backward(
    a: &AttnShape,
    q: &[f64],
    k: &[f64],
    v: &[f64],
    d_o: &[f64],
    key_len: Option<&[usize]>,
) -> (Vec<f64>, Vec<f64>, Vec<f64>) {
    let (mut dq, mut dk, mut dv) = (vec![0.0; q.len()], vec![0.0; k.len()], vec![0.0; v.len()]);
    for b in 0..a.b {
        for h in 0..a.hq {
            let kh = h / (a.hq / a.hkv);
            let p = a.probs(q, k, key_len, b, h);
            let qo = |i: usize| ((b * a.hq + h) * a.sq + i) * a.d;
            let ko = |j: usize| ((b * a.hkv + kh) * a.sk + j) * a.d;
            for i in 0..a.sq {
                let dp: Vec<f64> = (0..a.sk)
                    .map(|j| (0..a.d).map(|d| d_o[qo(i) + d] * v[ko(j) + d]).sum())
                    .collect();
                let rs: f64 = (0..a.sk).map(|j| dp[j] * p[i * a.sk + j]).sum();
                for j in 0..a.sk {
                    let pij = p[i * a.sk + j];
                    let ds = pij * (dp[j] - rs);
                    for d in 0..a.d {
                        dv[ko(j) + d] += pij * d_o[qo(i) + d];
                        dq[qo(i) + d] += a.scale * ds * k[ko(j) + d];
                        dk[ko(j) + d] += a.scale * ds * q[qo(i) + d];
                    }
                }
            }
        }
    }
    (dq, dk, dv)
}
