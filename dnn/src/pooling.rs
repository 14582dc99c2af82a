//! Pooling, 2-D and 3-D, forward and backward (MIOpen's `miopenPooling*`).
//!
//! Output size per spatial dim: ⌊(in + 2·pad − window)/stride⌋ + 1. Max pooling returns
//! the argmax of each window as a flat index into the input's (D·)H·W plane (first
//! maximum wins; padding never wins); backward routes dy to it. Average pooling divides
//! by the whole window (`AverageInclusive`, padding counts as zeros) or by the in-bounds
//! part (`AverageExclusive`).

use crate::tensor::{dim_name, sized, Tensor, TensorDesc, TensorMut};
use crate::{Dnn, DnnFloat};
use rayon::prelude::*;
use rocm_core::{BufferSlice, BufferSliceMut, Error, Result};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PoolMode {
    Max,
    AverageInclusive,
    AverageExclusive,
}

/// Window, padding and stride per spatial dim.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PoolDesc {
    pub mode: PoolMode,
    pub window: Vec<usize>,
    pub pads: Vec<usize>,
    pub strides: Vec<usize>,
}

/// Per-plane geometry widened to 3 dims.
#[derive(Debug, Clone, Copy)]
struct PGeom {
    i: [usize; 3],
    o: [usize; 3],
    win: [usize; 3],
    pad: [usize; 3],
    stride: [usize; 3],
}

impl PGeom {
    /// The in-bounds input range of window `o` in dim `d`, and the full window extent.
    fn range(&self, d: usize, o: usize) -> (usize, usize) {
        let start = (o * self.stride[d]) as isize - self.pad[d] as isize;
        let end = start + self.win[d] as isize;
        (start.max(0) as usize, (end.max(0) as usize).min(self.i[d]))
    }
}

impl PoolDesc {
    pub fn new(
        mode: PoolMode,
        window: &[usize],
        pads: &[usize],
        strides: &[usize],
    ) -> Result<Self> {
        let r = window.len();
        if r != 2 && r != 3 {
            return Err(Error::invalid(
                "window",
                format!("{r} entries; pooling has 2 or 3 spatial dimensions"),
            ));
        }
        if pads.len() != r || strides.len() != r {
            return Err(Error::invalid(
                "pads",
                format!(
                    "window, pads and strides have {}, {} and {} entries",
                    r,
                    pads.len(),
                    strides.len()
                ),
            ));
        }
        for i in 0..r {
            if window[i] == 0 || strides[i] == 0 {
                return Err(Error::invalid(
                    "window",
                    format!("window and stride of spatial dim {i} must be at least 1"),
                ));
            }
            if pads[i] >= window[i] {
                return Err(Error::invalid(
                    "pads",
                    format!(
                        "pad {} of spatial dim {i} must be smaller than the window {}",
                        pads[i], window[i]
                    ),
                ));
            }
        }
        Ok(PoolDesc {
            mode,
            window: window.to_vec(),
            pads: pads.to_vec(),
            strides: strides.to_vec(),
        })
    }

    /// The output dims for input `x`.
    pub fn output_dims(&self, x: &TensorDesc) -> Result<Vec<usize>> {
        let r = self.window.len();
        if x.rank() != r + 2 {
            return Err(Error::invalid(
                "x",
                format!("rank {} for {r}-D pooling", x.rank()),
            ));
        }
        let mut out = x.dims()[..2].to_vec();
        for i in 0..r {
            let inp = x.dims()[i + 2];
            let padded = sized(
                "pads",
                self.pads[i].checked_mul(2).and_then(|e| e.checked_add(inp)),
                || format!("the padded input {inp} + 2 x {}", self.pads[i]),
            )?;
            if padded < self.window[i] {
                return Err(Error::invalid(
                    "x",
                    format!(
                        "dimension {} = {inp} is smaller than the window {}",
                        dim_name(r + 2, i + 2),
                        self.window[i]
                    ),
                ));
            }
            out.push((padded - self.window[i]) / self.strides[i] + 1);
        }
        Ok(out)
    }

    fn geom(&self, x: &TensorDesc, yd: &[usize]) -> PGeom {
        let sp = |v: &[usize], fill: usize| {
            if v.len() == 2 {
                [fill, v[0], v[1]]
            } else {
                [v[0], v[1], v[2]]
            }
        };
        PGeom {
            i: sp(x.spatial(), 1),
            o: sp(&yd[2..], 1),
            win: sp(&self.window, 1),
            pad: sp(&self.pads, 0),
            stride: sp(&self.strides, 1),
        }
    }
}

fn plane_len(g: &PGeom, o: bool) -> usize {
    let v = if o { g.o } else { g.i };
    v.iter().product()
}

/// Calls `f(output index, window ranges)` for every output of a plane.
fn for_each_window(g: &PGeom, mut f: impl FnMut(usize, [(usize, usize); 3])) {
    let mut idx = 0;
    for a in 0..g.o[0] {
        for b in 0..g.o[1] {
            for c in 0..g.o[2] {
                f(idx, [g.range(0, a), g.range(1, b), g.range(2, c)]);
                idx += 1;
            }
        }
    }
}

impl Dnn {
    /// y = pool(x); for max pooling `indices` (one per y element, logical order)
    /// receives each window's argmax if given.
    pub fn pooling_forward<T: DnnFloat>(
        &self,
        pool: &PoolDesc,
        x: Tensor<'_, T>,
        mut y: TensorMut<'_, T>,
        indices: Option<&mut BufferSliceMut<'_, i32>>,
    ) -> Result<()> {
        self.engine("pooling_forward")?;
        let yd = pool.output_dims(x.desc)?;
        y.desc.expect_dims("y", &yd)?;
        let g = pool.geom(x.desc, &yd);
        let (ip, op) = (plane_len(&g, false), plane_len(&g, true));
        if ip > i32::MAX as usize {
            return Err(Error::invalid(
                "x",
                "spatial planes beyond 2³¹ elements cannot be indexed",
            ));
        }
        let xv = x.widen("x")?;
        let mut yv = rocm_core::host_alloc::try_vec("pooling output", y.desc.numel(), 0f32)?;
        let mut iv = rocm_core::host_alloc::try_vec("pooling indices", y.desc.numel(), 0i32)?;
        if op > 0 && ip > 0 {
            yv.par_chunks_mut(op)
                .zip(iv.par_chunks_mut(op))
                .zip(xv.par_chunks(ip))
                .for_each(|((yp, ix), xp)| {
                    for_each_window(&g, |o, r| {
                        let (mut best, mut arg, mut sum, mut cnt) =
                            (f32::NEG_INFINITY, -1i32, 0f32, 0usize);
                        for a in r[0].0..r[0].1 {
                            for b in r[1].0..r[1].1 {
                                for c in r[2].0..r[2].1 {
                                    let i = (a * g.i[1] + b) * g.i[2] + c;
                                    let v = xp[i];
                                    if v > best || arg < 0 {
                                        best = v;
                                        arg = i as i32;
                                    }
                                    sum += v;
                                    cnt += 1;
                                }
                            }
                        }
                        yp[o] = match pool.mode {
                            PoolMode::Max => best,
                            PoolMode::AverageInclusive => {
                                sum / g.win.iter().product::<usize>() as f32
                            }
                            PoolMode::AverageExclusive => sum / cnt.max(1) as f32,
                        };
                        ix[o] = arg;
                    });
                });
        }
        if let Some(ind) = indices {
            if ind.len() != iv.len() {
                return Err(Error::invalid(
                    "indices",
                    format!("holds {} elements; y has {}", ind.len(), iv.len()),
                ));
            }
            let dev = ind.device().clone();
            ind.as_host_mut()
                .ok_or_else(|| Error::unsupported("dnn pooling indices", dev))?
                .copy_from_slice(&iv);
        }
        y.store("y", &yv, 1.0, 0.0)
    }

    /// dx = (∂y/∂x)ᵀ dy. Max pooling uses `indices` from the forward pass if given,
    /// else recomputes the argmax from `x`.
    pub fn pooling_backward<T: DnnFloat>(
        &self,
        pool: &PoolDesc,
        x: Tensor<'_, T>,
        dy: Tensor<'_, T>,
        indices: Option<&BufferSlice<'_, i32>>,
        mut dx: TensorMut<'_, T>,
    ) -> Result<()> {
        self.engine("pooling_backward")?;
        let yd = pool.output_dims(x.desc)?;
        dy.desc.expect_dims("dy", &yd)?;
        dx.desc.expect_dims("dx", x.desc.dims())?;
        let g = pool.geom(x.desc, &yd);
        let (ip, op) = (plane_len(&g, false), plane_len(&g, true));
        let dyv = dy.widen("dy")?;
        let mut dxv = vec![0f32; x.desc.numel()];
        let idx: Vec<i32> = match (pool.mode, indices) {
            (PoolMode::Max, Some(ind)) => {
                let h = ind
                    .as_host()
                    .ok_or_else(|| Error::unsupported("dnn pooling indices", ind.device()))?;
                if h.len() != dyv.len() {
                    return Err(Error::invalid(
                        "indices",
                        format!("holds {} elements; dy has {}", h.len(), dyv.len()),
                    ));
                }
                if let Some(bad) = h.iter().find(|&&i| i < 0 || i as usize >= ip) {
                    return Err(Error::invalid(
                        "indices",
                        format!("{bad} is outside the input plane of {ip} elements"),
                    ));
                }
                h.to_vec()
            }
            (PoolMode::Max, None) => {
                let ydesc =
                    TensorDesc::new(T::DTYPE, crate::Layout::for_rank(yd.len(), false)?, &yd)?;
                let mut ybuf = rocm_core::DeviceBuffer::<T>::zeros(self.device(), ydesc.numel())?;
                let mut ib = rocm_core::DeviceBuffer::<i32>::zeros(self.device(), dyv.len())?;
                self.pooling_forward(
                    pool,
                    x,
                    TensorMut::new(&ydesc, ybuf.as_slice_mut()),
                    Some(&mut ib.as_slice_mut()),
                )?;
                ib.to_vec()?
            }
            _ => Vec::new(),
        };
        if op > 0 && ip > 0 {
            dxv.par_chunks_mut(ip).enumerate().for_each(|(pl, dxp)| {
                let dyp = &dyv[pl * op..][..op];
                for_each_window(&g, |o, r| match pool.mode {
                    PoolMode::Max => {
                        if let Some(&i) = idx.get(pl * op + o) {
                            if let Some(d) = dxp.get_mut(i as usize) {
                                *d += dyp[o];
                            }
                        }
                    }
                    _ => {
                        let cnt = (r[0].1 - r[0].0) * (r[1].1 - r[1].0) * (r[2].1 - r[2].0);
                        let div = if pool.mode == PoolMode::AverageInclusive {
                            g.win.iter().product::<usize>()
                        } else {
                            cnt.max(1)
                        };
                        let v = dyp[o] / div as f32;
                        for a in r[0].0..r[0].1 {
                            for b in r[1].0..r[1].1 {
                                for c in r[2].0..r[2].1 {
                                    dxp[(a * g.i[1] + b) * g.i[2] + c] += v;
                                }
                            }
                        }
                    }
                });
            });
        }
        dx.store("dx", &dxv, 1.0, 0.0)
    }
}
