//! im2col + GEMM: unfold a tile of output positions' input patches into a matrix and
//! multiply it with the filters through rocm-blas.
//!
//! Per image and group, with P = output positions, R = cg·fd·fh·fw patch length and
//! everything column-major (the packed NCDHW planes are column-major P×K matrices):
//!
//! ```text
//! fwd:  Y[p, k]   = Col[p, r] · W[r, k]            (W is the packed K×R filter = R×K col-major)
//! bwd:  dCol[p, r] = dY[p, k] · W[r, k]ᵀ, then col2im adds dCol back into dX
//! wrw:  dW[r, k] += Col[p, r]ᵀ · dY[p, k]
//! ```
//!
//! Tiles of P keep Col in cache (~512 KiB); images run in parallel, and one GEMM covers a
//! whole tile for all filters of the group.
//!
//! A pointwise convolution (1×1×1 filter, stride 1, no padding) has Col = X: the image's
//! channel planes already are the column-major P×C matrix (P = input positions), so the
//! GEMMs read X, dY and dX in place with no unfolding or col2im (forward: one GEMM per
//! image and group).

use super::{host, host_mut, ws_mut, ConvSolver, CoreOp, Geom};
use crate::Dnn;
use rayon::prelude::*;
use rocm_core::linalg::Transpose;
use rocm_core::{BufferSlice, BufferSliceMut, DeviceBuffer, Result};

pub(crate) struct Im2col;

/// Output positions per tile: Col (tile × R f32) stays near 512 KiB.
fn tile_len(g: &Geom) -> usize {
    let r = (g.cg() * g.fsize()).max(1);
    (131_072 / r).max(16).min(g.osize().max(1))
}

/// Visits the patch matrix of output positions [p0, p0 + len) of one image and group:
/// `f(r, t, input_offset)` for every in-bounds entry (entries outside the input are
/// skipped: they are zero). Offsets are into the image's packed channels of the group.
#[inline]
fn for_each_patch(g: &Geom, p0: usize, len: usize, mut f: impl FnMut(usize, usize, usize)) {
    let [_, oh_n, ow_n] = g.o;
    let [id_n, ih_n, iw_n] = g.i;
    let [fd, fh, fw] = g.f;
    let isz = g.isize();
    for c in 0..g.cg() {
        for z in 0..fd {
            for r in 0..fh {
                for s in 0..fw {
                    let row = ((c * fd + z) * fh + r) * fw + s;
                    let (mut od, mut oh, mut ow) =
                        (p0 / (oh_n * ow_n), (p0 / ow_n) % oh_n, p0 % ow_n);
                    let mut t = 0;
                    while t < len {
                        let run = (ow_n - ow).min(len - t);
                        let id = (od * g.stride[0] + z * g.dil[0]) as isize - g.pad[0] as isize;
                        let ih = (oh * g.stride[1] + r * g.dil[1]) as isize - g.pad[1] as isize;
                        if id >= 0 && (id as usize) < id_n && ih >= 0 && (ih as usize) < ih_n {
                            let base = c * isz + (id as usize * ih_n + ih as usize) * iw_n;
                            for j in 0..run {
                                let iw = ((ow + j) * g.stride[2] + s * g.dil[2]) as isize
                                    - g.pad[2] as isize;
                                if iw >= 0 && (iw as usize) < iw_n {
                                    f(row, t + j, base + iw as usize);
                                }
                            }
                        }
                        t += run;
                        ow += run;
                        if ow == ow_n {
                            ow = 0;
                            oh += 1;
                            if oh == oh_n {
                                oh = 0;
                                od += 1;
                            }
                        }
                    }
                }
            }
        }
    }
}

/// Whether Col = X (see the module doc).
fn pointwise(g: &Geom) -> bool {
    g.f == [1, 1, 1] && g.stride == [1, 1, 1] && g.pad == [0, 0, 0]
}

/// Splits `buf` into `n` consecutive views of `len` elements.
fn split_images(
    mut buf: BufferSliceMut<'_, f32>,
    n: usize,
    len: usize,
) -> Result<Vec<BufferSliceMut<'_, f32>>> {
    let mut v = Vec::with_capacity(n);
    for _ in 0..n {
        let (h, t) = buf.split_at_mut(len)?;
        v.push(h);
        buf = t;
    }
    Ok(v)
}

impl ConvSolver for Im2col {
    fn applies(&self, _: &Geom, _: CoreOp) -> bool {
        true
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
        let (cg, kg) = (g.cg(), g.kg());
        let (isz, osz) = (g.isize(), g.osize());
        let rlen = cg * g.fsize();
        let blas = dnn.blas();
        let dev = dnn.device();
        let tl = tile_len(g);
        if g.n == 0 || g.k == 0 || g.c == 0 {
            return out.fill_zero();
        }
        if pointwise(g) {
            return pointwise_run(dnn, g, op, a, b, out);
        }
        match op {
            CoreOp::Fwd => {
                let (x, w) = (host(a, "x")?, b);
                let images = split_images(out, g.n, g.k * osz)?;
                images
                    .into_par_iter()
                    .enumerate()
                    .try_for_each(|(n, mut y)| -> Result<()> {
                        let mut col = DeviceBuffer::<f32>::zeros(dev, tl * rlen)?;
                        for grp in 0..g.g {
                            let xg = &x[(n * g.c + grp * cg) * isz..][..cg * isz];
                            let wg = w.slice(grp * kg * rlen..(grp + 1) * kg * rlen)?;
                            for p0 in (0..osz).step_by(tl) {
                                let len = tl.min(osz - p0);
                                let cm = ws_mut(&mut col, "col")?;
                                cm[..len * rlen].fill(0.0);
                                for_each_patch(g, p0, len, |r, t, o| cm[r * len + t] = xg[o]);
                                let mut yt = y.slice_mut(grp * kg * osz + p0..)?;
                                blas.gemm(
                                    Transpose::N,
                                    Transpose::N,
                                    len,
                                    kg,
                                    rlen,
                                    1.0,
                                    &col.slice(..len * rlen)?,
                                    len,
                                    &wg,
                                    rlen,
                                    0.0,
                                    &mut yt,
                                    osz,
                                )?;
                            }
                        }
                        Ok(())
                    })
            }
            CoreOp::BwdData => {
                let (dy, w) = (a, b);
                let images = split_images(out, g.n, g.c * isz)?;
                images
                    .into_par_iter()
                    .enumerate()
                    .try_for_each(|(n, mut dx)| -> Result<()> {
                        let mut col = DeviceBuffer::<f32>::zeros(dev, tl * rlen)?;
                        let dxh = dx
                            .as_host_mut()
                            .ok_or_else(|| rocm_core::Error::unsupported("dnn dx", dev))?;
                        dxh.fill(0.0);
                        for grp in 0..g.g {
                            let wg = w.slice(grp * kg * rlen..(grp + 1) * kg * rlen)?;
                            let dxg = &mut dxh[grp * cg * isz..][..cg * isz];
                            for p0 in (0..osz).step_by(tl) {
                                let len = tl.min(osz - p0);
                                let dyt = dy.slice((n * g.k + grp * kg) * osz + p0..)?;
                                let mut cs = col.slice_mut(..len * rlen)?;
                                blas.gemm(
                                    Transpose::N,
                                    Transpose::T,
                                    len,
                                    rlen,
                                    kg,
                                    1.0,
                                    &dyt,
                                    osz,
                                    &wg,
                                    rlen,
                                    0.0,
                                    &mut cs,
                                    len,
                                )?;
                                let cm = host(col.as_slice(), "col")?;
                                for_each_patch(g, p0, len, |r, t, o| dxg[o] += cm[r * len + t]);
                            }
                        }
                        Ok(())
                    })
            }
            CoreOp::BwdWeights => {
                let (x, dy) = (host(a, "x")?, b);
                let chunks = rayon::current_num_threads().clamp(1, g.n);
                let per = g.n.div_ceil(chunks);
                let partial: Vec<DeviceBuffer<f32>> = (0..chunks)
                    .into_par_iter()
                    .map(|ch| -> Result<DeviceBuffer<f32>> {
                        let mut acc = DeviceBuffer::<f32>::zeros(dev, g.w_len())?;
                        let mut col = DeviceBuffer::<f32>::zeros(dev, tl * rlen)?;
                        for n in ch * per..((ch + 1) * per).min(g.n) {
                            for grp in 0..g.g {
                                let xg = &x[(n * g.c + grp * cg) * isz..][..cg * isz];
                                for p0 in (0..osz).step_by(tl) {
                                    let len = tl.min(osz - p0);
                                    let cm = ws_mut(&mut col, "col")?;
                                    cm[..len * rlen].fill(0.0);
                                    for_each_patch(g, p0, len, |r, t, o| cm[r * len + t] = xg[o]);
                                    let dyt = dy.slice((n * g.k + grp * kg) * osz + p0..)?;
                                    let mut dwg =
                                        acc.slice_mut(grp * kg * rlen..(grp + 1) * kg * rlen)?;
                                    blas.gemm(
                                        Transpose::T,
                                        Transpose::N,
                                        rlen,
                                        kg,
                                        len,
                                        1.0,
                                        &col.slice(..len * rlen)?,
                                        len,
                                        &dyt,
                                        osz,
                                        1.0,
                                        &mut dwg,
                                        rlen,
                                    )?;
                                }
                            }
                        }
                        Ok(acc)
                    })
                    .collect::<Result<_>>()?;
                let o = host_mut(&mut out, "dw")?;
                o.fill(0.0);
                for p in &partial {
                    for (d, s) in o.iter_mut().zip(host(p.as_slice(), "dw")?) {
                        *d += s;
                    }
                }
                Ok(())
            }
        }
    }
}

/// The three ops of a pointwise convolution as GEMMs on the tensors in place: per image
/// and group, X is P×cg (ld P), dY and Y are P×kg (ld P), W is cg×kg (ld cg).
fn pointwise_run(
    dnn: &Dnn,
    g: &Geom,
    op: CoreOp,
    a: BufferSlice<'_, f32>,
    b: BufferSlice<'_, f32>,
    mut out: BufferSliceMut<'_, f32>,
) -> Result<()> {
    let (cg, kg, p) = (g.cg(), g.kg(), g.osize());
    let blas = dnn.blas();
    // W is always the second operand of the forward and backward-data ops.
    let w_of = |grp: usize| b.slice(grp * kg * cg..(grp + 1) * kg * cg);
    match op {
        CoreOp::Fwd => {
            let x = a;
            split_images(out, g.n, g.k * p)?
                .into_par_iter()
                .enumerate()
                .try_for_each(|(n, mut y)| -> Result<()> {
                    for grp in 0..g.g {
                        let xg = x.slice((n * g.c + grp * cg) * p..)?;
                        let mut yg = y.slice_mut(grp * kg * p..)?;
                        blas.gemm(
                            Transpose::N,
                            Transpose::N,
                            p,
                            kg,
                            cg,
                            1.0,
                            &xg,
                            p,
                            &w_of(grp)?,
                            cg,
                            0.0,
                            &mut yg,
                            p,
                        )?;
                    }
                    Ok(())
                })
        }
        CoreOp::BwdData => {
            let dy = a;
            split_images(out, g.n, g.c * p)?
                .into_par_iter()
                .enumerate()
                .try_for_each(|(n, mut dx)| -> Result<()> {
                    for grp in 0..g.g {
                        let dyg = dy.slice((n * g.k + grp * kg) * p..)?;
                        let mut dxg = dx.slice_mut(grp * cg * p..)?;
                        blas.gemm(
                            Transpose::N,
                            Transpose::T,
                            p,
                            cg,
                            kg,
                            1.0,
                            &dyg,
                            p,
                            &w_of(grp)?,
                            cg,
                            0.0,
                            &mut dxg,
                            p,
                        )?;
                    }
                    Ok(())
                })
        }
        CoreOp::BwdWeights => {
            let (x, dy) = (a, b);
            // dW accumulates over images in a fixed order (deterministic).
            out.fill_zero()?;
            for n in 0..g.n {
                for grp in 0..g.g {
                    let xg = x.slice((n * g.c + grp * cg) * p..)?;
                    let dyg = dy.slice((n * g.k + grp * kg) * p..)?;
                    let mut dwg = out.slice_mut(grp * kg * cg..(grp + 1) * kg * cg)?;
                    blas.gemm(
                        Transpose::T,
                        Transpose::N,
                        cg,
                        kg,
                        p,
                        1.0,
                        &xg,
                        p,
                        &dyg,
                        p,
                        1.0,
                        &mut dwg,
                        cg,
                    )?;
                }
            }
            Ok(())
        }
    }
}
