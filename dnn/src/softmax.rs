//! Softmax and log-softmax along any axis, numerically stable, forward and backward.
//!
//! With the tensor viewed as (outer, len, inner) around `axis`:
//! softmax yᵢ = e^{xᵢ−m}/Σⱼe^{xⱼ−m} (m = max x, so no overflow); log-softmax
//! yᵢ = xᵢ − m − ln Σⱼe^{xⱼ−m}. Backward: softmax dx = y·(dy − Σ dy·y); log-softmax
//! dx = dy − e^y·Σ dy.

use crate::tensor::{Tensor, TensorMut};
use crate::{Dnn, DnnFloat};
use rayon::prelude::*;
use rocm_core::{Error, Result};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SoftmaxMode {
    Softmax,
    LogSoftmax,
}

/// (outer, len, inner) around `axis`.
fn split(dims: &[usize], axis: usize) -> Result<(usize, usize, usize)> {
    if axis >= dims.len() {
        return Err(Error::invalid(
            "axis",
            format!("{axis}; the tensor has {} dimensions", dims.len()),
        ));
    }
    Ok((
        dims[..axis].iter().product(),
        dims[axis],
        dims[axis + 1..].iter().product(),
    ))
}

/// Applies `f(values along the axis)` to every (outer, inner) line of `v` in place.
fn for_each_line(
    v: &mut [f32],
    (_, len, inner): (usize, usize, usize),
    f: impl Fn(&mut [f32]) + Sync,
) {
    if len == 0 || inner == 0 {
        return;
    }
    v.par_chunks_mut(len * inner).for_each(|blk| {
        let mut line = vec![0f32; len];
        for j in 0..inner {
            for (i, l) in line.iter_mut().enumerate() {
                *l = blk[i * inner + j];
            }
            f(&mut line);
            for (i, l) in line.iter().enumerate() {
                blk[i * inner + j] = *l;
            }
        }
    });
}

impl Dnn {
    /// y = softmax(x) or log-softmax(x) along `axis`.
    pub fn softmax_forward<T: DnnFloat>(
        &self,
        mode: SoftmaxMode,
        axis: usize,
        x: Tensor<'_, T>,
        mut y: TensorMut<'_, T>,
    ) -> Result<()> {
        y.desc.expect_dims("y", x.desc.dims())?;
        let shape = split(x.desc.dims(), axis)?;
        if let Some(stream) = self.gpu_stream() {
            return crate::gpu::softmax::forward(stream, mode, axis, x, y, None);
        }
        let mut v = x.widen("x")?;
        for_each_line(&mut v, shape, |l| {
            let m = l.iter().copied().fold(f32::NEG_INFINITY, f32::max);
            let s: f64 = l.iter().map(|&e| ((e - m) as f64).exp()).sum();
            match mode {
                SoftmaxMode::Softmax => l
                    .iter_mut()
                    .for_each(|e| *e = (((*e - m) as f64).exp() / s) as f32),
                SoftmaxMode::LogSoftmax => {
                    let ls = s.ln();
                    l.iter_mut()
                        .for_each(|e| *e = ((*e - m) as f64 - ls) as f32)
                }
            }
        });
        y.store("y", &v, 1.0, 0.0)
    }

    /// dx from the forward output y and dy.
    pub fn softmax_backward<T: DnnFloat>(
        &self,
        mode: SoftmaxMode,
        axis: usize,
        y: Tensor<'_, T>,
        dy: Tensor<'_, T>,
        mut dx: TensorMut<'_, T>,
    ) -> Result<()> {
        dy.desc.expect_dims("dy", y.desc.dims())?;
        dx.desc.expect_dims("dx", y.desc.dims())?;
        let shape = split(y.desc.dims(), axis)?;
        if let Some(stream) = self.gpu_stream() {
            return crate::gpu::softmax::backward(stream, mode, axis, y, dy, dx, None);
        }
        let (outer, len, inner) = shape;
        let yv = y.widen("y")?;
        let mut g = dy.widen("dy")?;
        // Interleave y and dy per line: process lines by index.
        let total = outer * len * inner;
        if total > 0 {
            g.par_chunks_mut(len * inner)
                .enumerate()
                .for_each(|(o, blk)| {
                    let yb = &yv[o * len * inner..][..len * inner];
                    for j in 0..inner {
                        let s: f64 = (0..len)
                            .map(|i| match mode {
                                SoftmaxMode::Softmax => {
                                    (blk[i * inner + j] * yb[i * inner + j]) as f64
                                }
                                SoftmaxMode::LogSoftmax => blk[i * inner + j] as f64,
                            })
                            .sum();
                        for i in 0..len {
                            let (d, yy) = (&mut blk[i * inner + j], yb[i * inner + j] as f64);
                            *d = match mode {
                                SoftmaxMode::Softmax => (yy * (*d as f64 - s)) as f32,
                                SoftmaxMode::LogSoftmax => (*d as f64 - yy.exp() * s) as f32,
                            };
                        }
                    }
                });
        }
        dx.store("dx", &g, 1.0, 0.0)
    }
}
