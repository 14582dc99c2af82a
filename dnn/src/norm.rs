//! Normalisation: batch norm (spatial: statistics per channel over N and the spatial
//! dims), layer norm, RMS norm and group norm; forward and backward.
//!
//! With x̂ = (x − μ)·r, r = 1/√(σ² + ε) (biased σ² over the normalised set S of m
//! elements) and y = γ·x̂ + β, the backward pass is
//! `dx = r·(g − mean_S(g) − x̂·mean_S(g·x̂))` with g = γ·dy, `dγ = Σ dy·x̂`, `dβ = Σ dy`.
//! RMS norm has no centring: x̂ = x·r, r = 1/√(mean(x²) + ε), `dx = r·(g − x̂·mean(g·x̂))`.
//! Per-channel parameters and statistics are f32 buffers.

use crate::tensor::{Tensor, TensorMut};
use crate::{Dnn, DnnFloat};
use rayon::prelude::*;
use rocm_core::{BufferSlice, BufferSliceMut, Error, Result};

fn host<'a>(b: &BufferSlice<'a, f32>, what: &str, len: usize) -> Result<&'a [f32]> {
    let h = b
        .as_host()
        .ok_or_else(|| Error::unsupported(format!("dnn {what}"), b.device()))?;
    if h.len() != len {
        return Err(Error::invalid(
            what,
            format!("holds {} elements, expected {len}", h.len()),
        ));
    }
    Ok(h)
}

fn host_mut<'a>(
    b: &'a mut BufferSliceMut<'_, f32>,
    what: &str,
    len: usize,
) -> Result<&'a mut [f32]> {
    let dev = b.device().clone();
    let n = b.len();
    if n != len {
        return Err(Error::invalid(
            what,
            format!("holds {n} elements, expected {len}"),
        ));
    }
    b.as_host_mut()
        .ok_or_else(|| Error::unsupported(format!("dnn {what}"), dev))
}

/// Mean and 1/√(var + ε) of the elements `f(i)`, i < m, accumulated in f64.
fn stats(m: usize, center: bool, eps: f64, f: impl Fn(usize) -> f32) -> (f32, f32, f64) {
    let mut s = 0f64;
    for i in 0..m {
        s += f(i) as f64;
    }
    let mean = if center { s / m.max(1) as f64 } else { 0.0 };
    let mut q = 0f64;
    for i in 0..m {
        let d = f(i) as f64 - mean;
        q += d * d;
    }
    let var = q / m.max(1) as f64;
    (mean as f32, (1.0 / (var + eps).sqrt()) as f32, var)
}

/// Backward of one normalised set: given g = γ·dy and x̂ (as closures), writes dx.
fn set_backward(
    m: usize,
    center: bool,
    r: f32,
    g: impl Fn(usize) -> f32,
    xh: impl Fn(usize) -> f32,
    mut dx: impl FnMut(usize, f32),
) {
    let (mut sg, mut sgx) = (0f64, 0f64);
    for i in 0..m {
        sg += g(i) as f64;
        sgx += (g(i) * xh(i)) as f64;
    }
    let mf = m.max(1) as f64;
    let (mg, mgx) = (if center { sg / mf } else { 0.0 }, sgx / mf);
    for i in 0..m {
        dx(
            i,
            (r as f64 * (g(i) as f64 - mg - xh(i) as f64 * mgx)) as f32,
        );
    }
}

/// Per-row normalisation over contiguous rows of `cols` (layer, RMS, group norm).
/// `chan(row, col)` gives the affine parameter index.
struct RowNorm {
    rows: usize,
    cols: usize,
    center: bool,
}

impl RowNorm {
    #[allow(clippy::too_many_arguments)]
    fn forward(
        &self,
        x: &[f32],
        eps: f32,
        gamma: Option<&[f32]>,
        beta: Option<&[f32]>,
        chan: impl Fn(usize, usize) -> usize + Sync,
        mean: &mut [f32],
        rstd: &mut [f32],
    ) -> Vec<f32> {
        let mut y = vec![0f32; x.len()];
        if self.cols == 0 {
            return y;
        }
        y.par_chunks_mut(self.cols)
            .zip(x.par_chunks(self.cols))
            .zip(mean.par_iter_mut().zip(rstd.par_iter_mut()))
            .enumerate()
            .for_each(|(row, ((y, x), (mu, rs)))| {
                let (m, r, _) = stats(self.cols, self.center, eps as f64, |i| x[i]);
                *mu = m;
                *rs = r;
                for (i, (yv, &xv)) in y.iter_mut().zip(x).enumerate() {
                    let c = chan(row, i);
                    let gm = gamma.map_or(1.0, |g| g[c]);
                    let bt = beta.map_or(0.0, |b| b[c]);
                    *yv = (xv - m) * r * gm + bt;
                }
            });
        y
    }

    #[allow(clippy::too_many_arguments)]
    fn backward(
        &self,
        x: &[f32],
        dy: &[f32],
        gamma: Option<&[f32]>,
        chan: impl Fn(usize, usize) -> usize + Sync,
        mean: &[f32],
        rstd: &[f32],
        nparam: usize,
    ) -> (Vec<f32>, Vec<f64>, Vec<f64>) {
        let mut dx = vec![0f32; x.len()];
        let (mut dg, mut db) = (vec![0f64; nparam], vec![0f64; nparam]);
        if self.cols == 0 {
            return (dx, dg, db);
        }
        dx.par_chunks_mut(self.cols)
            .enumerate()
            .for_each(|(row, dxr)| {
                let (xr, dyr) = (
                    &x[row * self.cols..][..self.cols],
                    &dy[row * self.cols..][..self.cols],
                );
                let (m, r) = (mean[row], rstd[row]);
                set_backward(
                    self.cols,
                    self.center,
                    r,
                    |i| dyr[i] * gamma.map_or(1.0, |g| g[chan(row, i)]),
                    |i| (xr[i] - m) * r,
                    |i, v| dxr[i] = v,
                );
            });
        for row in 0..self.rows {
            for i in 0..self.cols {
                let j = row * self.cols + i;
                let c = chan(row, i);
                dg[c] += (dy[j] * (x[j] - mean[row]) * rstd[row]) as f64;
                db[c] += dy[j] as f64;
            }
        }
        (dx, dg, db)
    }
}

/// One channel's batch-norm gradient: (dx entries, dγ, dβ).
type ChannelGrad = (Vec<(usize, f32)>, f64, f64);

/// Saved statistics of a training-mode forward pass (one per normalised set).
pub struct SavedStats<'a, 'b> {
    pub mean: &'a mut BufferSliceMut<'b, f32>,
    pub inv_std: &'a mut BufferSliceMut<'b, f32>,
}

/// Parameter gradients of a backward pass.
pub struct ParamGrads<'a, 'b> {
    pub dgamma: &'a mut BufferSliceMut<'b, f32>,
    pub dbeta: &'a mut BufferSliceMut<'b, f32>,
}

fn store_grads(g: Option<ParamGrads<'_, '_>>, dg: &[f64], db: &[f64]) -> Result<()> {
    if let Some(p) = g {
        for (dst, src, what) in [(p.dgamma, dg, "dgamma"), (p.dbeta, db, "dbeta")] {
            let h = host_mut(dst, what, src.len())?;
            h.iter_mut().zip(src).for_each(|(d, s)| *d = *s as f32);
        }
    }
    Ok(())
}

impl Dnn {
    /// Batch norm, training: normalises each channel over (N, spatial), updates
    /// `running_mean/var ← (1 − momentum)·running + momentum·batch` (unbiased batch
    /// variance, as MIOpen and PyTorch) and saves mean and 1/√(σ²+ε) for backward.
    #[allow(clippy::too_many_arguments)]
    pub fn batch_norm_forward_training<T: DnnFloat>(
        &self,
        x: Tensor<'_, T>,
        mut y: TensorMut<'_, T>,
        gamma: &BufferSlice<'_, f32>,
        beta: &BufferSlice<'_, f32>,
        eps: f32,
        momentum: f32,
        running_mean: &mut BufferSliceMut<'_, f32>,
        running_var: &mut BufferSliceMut<'_, f32>,
        saved: SavedStats<'_, '_>,
    ) -> Result<()> {
        self.engine("batch_norm_forward_training")?;
        y.desc.expect_dims("y", x.desc.dims())?;
        let d = x.desc.dims();
        let (n, c, sp) = (d[0], d[1], d[2..].iter().product::<usize>());
        let (g, b) = (host(gamma, "gamma", c)?, host(beta, "beta", c)?);
        let xv = x.widen("x")?;
        let m = n * sp;
        let at = |ch: usize, i: usize| xv[((i / sp.max(1)) * c + ch) * sp + i % sp.max(1)];
        let st: Vec<(f32, f32, f64)> = (0..c)
            .into_par_iter()
            .map(|ch| stats(m, true, eps as f64, |i| at(ch, i)))
            .collect();
        let mut yv = vec![0f32; xv.len()];
        for (i, (yv, &xv)) in yv.iter_mut().zip(&xv).enumerate() {
            let ch = (i / sp.max(1)) % c.max(1);
            *yv = (xv - st[ch].0) * st[ch].1 * g[ch] + b[ch];
        }
        let rm = host_mut(running_mean, "running_mean", c)?;
        for (r, s) in rm.iter_mut().zip(&st) {
            *r = (1.0 - momentum) * *r + momentum * s.0;
        }
        let rv = host_mut(running_var, "running_var", c)?;
        let unbias = if m > 1 {
            m as f64 / (m - 1) as f64
        } else {
            1.0
        };
        for (r, s) in rv.iter_mut().zip(&st) {
            *r = (1.0 - momentum) * *r + momentum * (s.2 * unbias) as f32;
        }
        host_mut(saved.mean, "saved mean", c)?
            .iter_mut()
            .zip(&st)
            .for_each(|(d, s)| *d = s.0);
        host_mut(saved.inv_std, "saved inv_std", c)?
            .iter_mut()
            .zip(&st)
            .for_each(|(d, s)| *d = s.1);
        y.store("y", &yv, 1.0, 0.0)
    }

    /// Batch norm, inference: y = γ·(x − mean)/√(var + ε) + β with given statistics.
    #[allow(clippy::too_many_arguments)]
    pub fn batch_norm_forward_inference<T: DnnFloat>(
        &self,
        x: Tensor<'_, T>,
        mut y: TensorMut<'_, T>,
        gamma: &BufferSlice<'_, f32>,
        beta: &BufferSlice<'_, f32>,
        mean: &BufferSlice<'_, f32>,
        var: &BufferSlice<'_, f32>,
        eps: f32,
    ) -> Result<()> {
        self.engine("batch_norm_forward_inference")?;
        y.desc.expect_dims("y", x.desc.dims())?;
        let d = x.desc.dims();
        let (c, sp) = (d[1], d[2..].iter().product::<usize>());
        let (g, b, mu, var) = (
            host(gamma, "gamma", c)?,
            host(beta, "beta", c)?,
            host(mean, "mean", c)?,
            host(var, "var", c)?,
        );
        let mut v = x.widen("x")?;
        for (i, e) in v.iter_mut().enumerate() {
            let ch = (i / sp.max(1)) % c.max(1);
            *e = (*e - mu[ch]) / (var[ch] + eps).sqrt() * g[ch] + b[ch];
        }
        y.store("y", &v, 1.0, 0.0)
    }

    /// Batch norm backward from the saved statistics: dx, dγ, dβ.
    #[allow(clippy::too_many_arguments)]
    pub fn batch_norm_backward<T: DnnFloat>(
        &self,
        x: Tensor<'_, T>,
        dy: Tensor<'_, T>,
        mut dx: TensorMut<'_, T>,
        gamma: &BufferSlice<'_, f32>,
        saved_mean: &BufferSlice<'_, f32>,
        saved_inv_std: &BufferSlice<'_, f32>,
        grads: ParamGrads<'_, '_>,
    ) -> Result<()> {
        self.engine("batch_norm_backward")?;
        dy.desc.expect_dims("dy", x.desc.dims())?;
        dx.desc.expect_dims("dx", x.desc.dims())?;
        let d = x.desc.dims();
        let (n, c, sp) = (d[0], d[1], d[2..].iter().product::<usize>());
        let (g, mu, rs) = (
            host(gamma, "gamma", c)?,
            host(saved_mean, "saved mean", c)?,
            host(saved_inv_std, "saved inv_std", c)?,
        );
        let (xv, dyv) = (x.widen("x")?, dy.widen("dy")?);
        let m = n * sp;
        let idx = |ch: usize, i: usize| ((i / sp.max(1)) * c + ch) * sp + i % sp.max(1);
        let per: Vec<ChannelGrad> = (0..c)
            .into_par_iter()
            .map(|ch| {
                let mut out = Vec::with_capacity(m);
                let xh = |i: usize| (xv[idx(ch, i)] - mu[ch]) * rs[ch];
                set_backward(
                    m,
                    true,
                    rs[ch],
                    |i| dyv[idx(ch, i)] * g[ch],
                    xh,
                    |i, v| out.push((idx(ch, i), v)),
                );
                let dgm: f64 = (0..m).map(|i| (dyv[idx(ch, i)] * xh(i)) as f64).sum();
                let dbt: f64 = (0..m).map(|i| dyv[idx(ch, i)] as f64).sum();
                (out, dgm, dbt)
            })
            .collect();
        let mut dxv = vec![0f32; xv.len()];
        let (mut dg, mut db) = (vec![0f64; c], vec![0f64; c]);
        for (ch, (out, a, b)) in per.into_iter().enumerate() {
            for (i, v) in out {
                dxv[i] = v;
            }
            dg[ch] = a;
            db[ch] = b;
        }
        store_grads(Some(grads), &dg, &db)?;
        dx.store("dx", &dxv, 1.0, 0.0)
    }

    /// Layer norm over dims `axis..` (1 ≤ axis < rank); `gamma`/`beta` hold one value per
    /// normalised element (or are absent); saves mean and 1/σ per row.
    #[allow(clippy::too_many_arguments)]
    pub fn layer_norm_forward<T: DnnFloat>(
        &self,
        axis: usize,
        x: Tensor<'_, T>,
        mut y: TensorMut<'_, T>,
        gamma: Option<&BufferSlice<'_, f32>>,
        beta: Option<&BufferSlice<'_, f32>>,
        eps: f32,
        saved: SavedStats<'_, '_>,
    ) -> Result<()> {
        self.engine("layer_norm_forward")?;
        let rows = row_count(RowKind::Layer(axis), x.desc.dims())?.0;
        let mean = host_mut(saved.mean, "saved mean", rows)?;
        let inv = host_mut(saved.inv_std, "saved inv_std", rows)?;
        self.row_norm_forward(RowKind::Layer(axis), x, &mut y, gamma, beta, eps, mean, inv)
    }

    /// RMS norm (T5 layer norm) over dims `axis..`: y = γ·x/√(mean(x²) + ε).
    pub fn rms_norm_forward<T: DnnFloat>(
        &self,
        axis: usize,
        x: Tensor<'_, T>,
        mut y: TensorMut<'_, T>,
        gamma: Option<&BufferSlice<'_, f32>>,
        eps: f32,
        saved_inv_rms: &mut BufferSliceMut<'_, f32>,
    ) -> Result<()> {
        self.engine("rms_norm_forward")?;
        let rows = row_count(RowKind::Rms(axis), x.desc.dims())?.0;
        let mut mean = vec![0f32; rows];
        let inv = host_mut(saved_inv_rms, "saved inv_rms", rows)?;
        self.row_norm_forward(
            RowKind::Rms(axis),
            x,
            &mut y,
            gamma,
            None,
            eps,
            &mut mean,
            inv,
        )
    }

    /// Group norm: channels split into `groups`, each (n, group) normalised over its
    /// channels and spatial dims; `gamma`/`beta` per channel.
    #[allow(clippy::too_many_arguments)]
    pub fn group_norm_forward<T: DnnFloat>(
        &self,
        groups: usize,
        x: Tensor<'_, T>,
        mut y: TensorMut<'_, T>,
        gamma: Option<&BufferSlice<'_, f32>>,
        beta: Option<&BufferSlice<'_, f32>>,
        eps: f32,
        saved: SavedStats<'_, '_>,
    ) -> Result<()> {
        self.engine("group_norm_forward")?;
        let rows = row_count(RowKind::Group(groups), x.desc.dims())?.0;
        let mean = host_mut(saved.mean, "saved mean", rows)?;
        let inv = host_mut(saved.inv_std, "saved inv_std", rows)?;
        self.row_norm_forward(
            RowKind::Group(groups),
            x,
            &mut y,
            gamma,
            beta,
            eps,
            mean,
            inv,
        )
    }

    #[allow(clippy::too_many_arguments)]
    fn row_norm_forward<T: DnnFloat>(
        &self,
        kind: RowKind,
        x: Tensor<'_, T>,
        y: &mut TensorMut<'_, T>,
        gamma: Option<&BufferSlice<'_, f32>>,
        beta: Option<&BufferSlice<'_, f32>>,
        eps: f32,
        mean: &mut [f32],
        inv_std: &mut [f32],
    ) -> Result<()> {
        y.desc.expect_dims("y", x.desc.dims())?;
        let d = x.desc.dims();
        let (rows, cols, nparam) = row_count(kind, d)?;
        let g = gamma.map(|g| host(g, "gamma", nparam)).transpose()?;
        let b = beta.map(|b| host(b, "beta", nparam)).transpose()?;
        let xv = x.widen("x")?;
        let rn = RowNorm {
            rows,
            cols,
            center: !matches!(kind, RowKind::Rms(_)),
        };
        let chan = chan_fn(kind, d);
        let yv = rn.forward(&xv, eps, g, b, chan, mean, inv_std);
        y.store("y", &yv, 1.0, 0.0)
    }

    /// Backward of layer norm (`RowKind::Layer`), RMS norm or group norm from the saved
    /// statistics (for RMS norm pass `mean` = zeros).
    #[allow(clippy::too_many_arguments)]
    pub fn norm_backward<T: DnnFloat>(
        &self,
        kind: RowKind,
        x: Tensor<'_, T>,
        dy: Tensor<'_, T>,
        mut dx: TensorMut<'_, T>,
        gamma: Option<&BufferSlice<'_, f32>>,
        saved_mean: &BufferSlice<'_, f32>,
        saved_inv_std: &BufferSlice<'_, f32>,
        grads: Option<ParamGrads<'_, '_>>,
    ) -> Result<()> {
        self.engine("norm_backward")?;
        dy.desc.expect_dims("dy", x.desc.dims())?;
        dx.desc.expect_dims("dx", x.desc.dims())?;
        let d = x.desc.dims();
        let (rows, cols, nparam) = row_count(kind, d)?;
        let g = gamma.map(|g| host(g, "gamma", nparam)).transpose()?;
        let (mu, rs) = (
            host(saved_mean, "saved mean", rows)?,
            host(saved_inv_std, "saved inv_std", rows)?,
        );
        let (xv, dyv) = (x.widen("x")?, dy.widen("dy")?);
        let rn = RowNorm {
            rows,
            cols,
            center: !matches!(kind, RowKind::Rms(_)),
        };
        let (dxv, dg, db) = rn.backward(&xv, &dyv, g, chan_fn(kind, d), mu, rs, nparam);
        store_grads(grads, &dg, &db)?;
        dx.store("dx", &dxv, 1.0, 0.0)
    }
}

/// Which row normalisation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RowKind {
    /// Layer norm over dims `axis..`.
    Layer(usize),
    /// RMS norm over dims `axis..`.
    Rms(usize),
    /// Group norm with this many groups.
    Group(usize),
}

/// (rows, cols, affine parameter count).
fn row_count(kind: RowKind, d: &[usize]) -> Result<(usize, usize, usize)> {
    match kind {
        RowKind::Layer(a) | RowKind::Rms(a) => {
            if a == 0 || a >= d.len() {
                return Err(Error::invalid(
                    "axis",
                    format!("{a}; it must be in 1..{}", d.len()),
                ));
            }
            let cols: usize = d[a..].iter().product();
            Ok((d[..a].iter().product(), cols, cols))
        }
        RowKind::Group(g) => {
            if g == 0 || d[1] % g != 0 {
                return Err(Error::invalid(
                    "groups",
                    format!("{g} does not divide C = {}", d[1]),
                ));
            }
            let sp: usize = d[2..].iter().product();
            Ok((d[0] * g, d[1] / g * sp, d[1]))
        }
    }
}

fn chan_fn(kind: RowKind, d: &[usize]) -> impl Fn(usize, usize) -> usize + Sync {
    let sp: usize = d[2..].iter().product();
    let (g, c) = match kind {
        RowKind::Group(g) => (g, d[1]),
        _ => (0, 0),
    };
    move |row: usize, col: usize| {
        if g == 0 {
            col
        } else {
            (row % g) * (c / g) + col / sp.max(1)
        }
    }
}
