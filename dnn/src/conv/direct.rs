//! Direct convolution: one loop nest per output element, f32 accumulation.
//!
//! Applies to every problem; the reference all faster algorithms are checked against
//! besides the f64 `reference` module. Parallel over output planes.

use super::{host, host_mut, ConvSolver, CoreOp, Geom};
use crate::Dnn;
use rayon::prelude::*;
use rocm_core::{BufferSlice, BufferSliceMut, Result};

pub(crate) struct Direct;

/// The input coordinate a filter tap reads for output coordinate `o`, if inside.
#[inline]
fn tap(o: usize, f: usize, g: &Geom, dim: usize) -> Option<usize> {
    let v = (o * g.stride[dim] + f * g.dil[dim]) as isize - g.pad[dim] as isize;
    (v >= 0 && (v as usize) < g.i[dim]).then_some(v as usize)
}

/// The output coordinate whose tap `f` reads input coordinate `i`, if any.
#[inline]
fn inv_tap(i: usize, f: usize, g: &Geom, dim: usize) -> Option<usize> {
    let v = (i + g.pad[dim]) as isize - (f * g.dil[dim]) as isize;
    if v < 0 || v as usize % g.stride[dim] != 0 {
        return None;
    }
    let o = v as usize / g.stride[dim];
    (o < g.o[dim]).then_some(o)
}

impl ConvSolver for Direct {
    fn applies(&self, _: &Geom, _: CoreOp) -> bool {
        true
    }

    fn run(
        &self,
        _: &Dnn,
        g: &Geom,
        op: CoreOp,
        a: BufferSlice<'_, f32>,
        b: BufferSlice<'_, f32>,
        mut out: BufferSliceMut<'_, f32>,
    ) -> Result<()> {
        let (a, b) = (host(a, "a")?, host(b, "b")?);
        let out = host_mut(&mut out, "out")?;
        let (cg, kg) = (g.cg(), g.kg());
        let (isz, osz, fsz) = (g.isize(), g.osize(), g.fsize());
        let [oh, ow] = [g.o[1], g.o[2]];
        let [ih, iw] = [g.i[1], g.i[2]];
        let [fh, fw] = [g.f[1], g.f[2]];
        match op {
            CoreOp::Fwd => {
                let (x, w) = (a, b);
                if osz == 0 {
                    return Ok(());
                }
                out.par_chunks_mut(osz).enumerate().for_each(|(nk, y)| {
                    let (n, k) = (nk / g.k, nk % g.k);
                    let c0 = (k / kg) * cg;
                    for (p, yv) in y.iter_mut().enumerate() {
                        let (od, ohh, oww) = (p / (oh * ow), (p / ow) % oh, p % ow);
                        let mut acc = 0f32;
                        for c in 0..cg {
                            let xp = &x[(n * g.c + c0 + c) * isz..][..isz];
                            let wp = &w[(k * cg + c) * fsz..][..fsz];
                            for z in 0..g.f[0] {
                                let Some(id) = tap(od, z, g, 0) else { continue };
                                for r in 0..fh {
                                    let Some(ihh) = tap(ohh, r, g, 1) else {
                                        continue;
                                    };
                                    for s in 0..fw {
                                        let Some(iww) = tap(oww, s, g, 2) else {
                                            continue;
                                        };
                                        acc += xp[(id * ih + ihh) * iw + iww]
                                            * wp[(z * fh + r) * fw + s];
                                    }
                                }
                            }
                        }
                        *yv = acc;
                    }
                });
            }
            CoreOp::BwdData => {
                let (dy, w) = (a, b);
                if isz == 0 {
                    return Ok(());
                }
                out.par_chunks_mut(isz).enumerate().for_each(|(nc, dx)| {
                    let (n, c) = (nc / g.c, nc % g.c);
                    let (grp, cl) = (c / cg, c % cg);
                    for (p, dv) in dx.iter_mut().enumerate() {
                        let (id, ihh, iww) = (p / (ih * iw), (p / iw) % ih, p % iw);
                        let mut acc = 0f32;
                        for k in grp * kg..(grp + 1) * kg {
                            let dyp = &dy[(n * g.k + k) * osz..][..osz];
                            let wp = &w[(k * cg + cl) * fsz..][..fsz];
                            for z in 0..g.f[0] {
                                let Some(od) = inv_tap(id, z, g, 0) else {
                                    continue;
                                };
                                for r in 0..fh {
                                    let Some(ohh) = inv_tap(ihh, r, g, 1) else {
                                        continue;
                                    };
                                    for s in 0..fw {
                                        let Some(oww) = inv_tap(iww, s, g, 2) else {
                                            continue;
                                        };
                                        acc += dyp[(od * oh + ohh) * ow + oww]
                                            * wp[(z * fh + r) * fw + s];
                                    }
                                }
                            }
                        }
                        *dv = acc;
                    }
                });
            }
            CoreOp::BwdWeights => {
                let (x, dy) = (a, b);
                if fsz == 0 {
                    return Ok(());
                }
                out.par_chunks_mut(fsz).enumerate().for_each(|(kc, dw)| {
                    let (k, cl) = (kc / cg, kc % cg);
                    let c = (k / kg) * cg + cl;
                    for (t, dv) in dw.iter_mut().enumerate() {
                        let (z, r, s) = (t / (fh * fw), (t / fw) % fh, t % fw);
                        let mut acc = 0f32;
                        for n in 0..g.n {
                            let xp = &x[(n * g.c + c) * isz..][..isz];
                            let dyp = &dy[(n * g.k + k) * osz..][..osz];
                            for od in 0..g.o[0] {
                                let Some(id) = tap(od, z, g, 0) else { continue };
                                for ohh in 0..oh {
                                    let Some(ihh) = tap(ohh, r, g, 1) else {
                                        continue;
                                    };
                                    for oww in 0..ow {
                                        let Some(iww) = tap(oww, s, g, 2) else {
                                            continue;
                                        };
                                        acc += xp[(id * ih + ihh) * iw + iww]
                                            * dyp[(od * oh + ohh) * ow + oww];
                                    }
                                }
                            }
                        }
                        *dv = acc;
                    }
                });
            }
        }
        Ok(())
    }
}
