//! Dropout with a counter-based generator (Philox-4×32-10, as cuRAND and rocRAND).
//!
//! Element i of a call with (seed, offset) keeps its value with probability 1 − p from
//! the uniform `u(seed, offset + i)` ([`uniform`]): the mask is a pure function of
//! (seed, offset, i), so it is reproducible, independent of threading and device (the
//! GPU kernels, [`crate::gpu::dropout`], compute the same bits), and recomputable in
//! backward.

use crate::tensor::{Tensor, TensorMut};
use crate::{Dnn, DnnFloat};
use rocm_core::{BufferSlice, BufferSliceMut, Error, Result};

/// Philox-4×32-10 on counter `ctr` and key `key`: rocm-rand's generator
/// ([`rocm_rand::bits::philox4x32_10`]), the one the GPU kernels run.
pub fn philox4x32(ctr: [u32; 4], key: [u32; 2]) -> [u32; 4] {
    rocm_rand::bits::philox4x32_10(&mut rocm_rand::ops::Host, ctr, key)
}

/// A uniform f32 in [0, 1) for element `i` of stream `seed`: the top 24 bits of word
/// `i mod 4` of the Philox block at counter `i / 4` (so four consecutive elements share
/// one block, as on the GPUs).
pub fn uniform(seed: u64, i: u64) -> f32 {
    let b = i / 4;
    let r = philox4x32(
        [b as u32, (b >> 32) as u32, 0, 0],
        [seed as u32, (seed >> 32) as u32],
    );
    (r[(i % 4) as usize] >> 8) as f32 * (1.0 / 16_777_216.0)
}

/// Dropout settings: drop probability, seed and the counter offset of this call.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DropoutDesc {
    pub p: f32,
    pub seed: u64,
    pub offset: u64,
}

impl DropoutDesc {
    fn check(&self) -> Result<()> {
        if !(0.0..1.0).contains(&self.p) {
            return Err(Error::invalid("p", format!("{} is not in [0, 1)", self.p)));
        }
        Ok(())
    }

    fn call(&self) -> crate::gpu::dropout::Call {
        crate::gpu::dropout::Call {
            p: self.p,
            seed: self.seed,
            offset: self.offset,
        }
    }

    /// Whether logical element `i` is kept.
    pub fn keep(&self, i: usize) -> bool {
        uniform(self.seed, self.offset.wrapping_add(i as u64)) >= self.p
    }
}

impl Dnn {
    /// y = x·mask/(1 − p); `mask` (one byte per element, logical order) receives 1 for
    /// kept elements.
    pub fn dropout_forward<T: DnnFloat>(
        &self,
        d: &DropoutDesc,
        x: Tensor<'_, T>,
        mut y: TensorMut<'_, T>,
        mask: &mut BufferSliceMut<'_, u8>,
    ) -> Result<()> {
        d.check()?;
        y.desc.expect_dims("y", x.desc.dims())?;
        if let Some(stream) = self.gpu_stream() {
            return crate::gpu::dropout::forward(stream, d.call(), x, y, mask);
        }
        let mut v = x.widen("x")?;
        if mask.len() != v.len() {
            return Err(Error::invalid(
                "mask",
                format!("holds {} bytes; x has {} elements", mask.len(), v.len()),
            ));
        }
        let dev = mask.device().clone();
        let m = mask
            .as_host_mut()
            .ok_or_else(|| Error::unsupported("dnn dropout mask", dev))?;
        let scale = 1.0 / (1.0 - d.p);
        for (i, (e, mk)) in v.iter_mut().zip(m.iter_mut()).enumerate() {
            let k = d.keep(i);
            *mk = u8::from(k);
            *e = if k { *e * scale } else { 0.0 };
        }
        y.store("y", &v, 1.0, 0.0)
    }

    /// dx = dy·mask/(1 − p).
    pub fn dropout_backward<T: DnnFloat>(
        &self,
        d: &DropoutDesc,
        dy: Tensor<'_, T>,
        mask: &BufferSlice<'_, u8>,
        mut dx: TensorMut<'_, T>,
    ) -> Result<()> {
        d.check()?;
        dx.desc.expect_dims("dx", dy.desc.dims())?;
        if let Some(stream) = self.gpu_stream() {
            return crate::gpu::dropout::backward(stream, d.call(), dy, mask, dx);
        }
        let mut v = dy.widen("dy")?;
        let m = mask
            .as_host()
            .ok_or_else(|| Error::unsupported("dnn dropout mask", mask.device()))?;
        if m.len() != v.len() {
            return Err(Error::invalid(
                "mask",
                format!("holds {} bytes; dy has {} elements", m.len(), v.len()),
            ));
        }
        let scale = 1.0 / (1.0 - d.p);
        for (e, &mk) in v.iter_mut().zip(m) {
            *e = if mk != 0 { *e * scale } else { 0.0 };
        }
        dx.store("dx", &v, 1.0, 0.0)
    }
}
