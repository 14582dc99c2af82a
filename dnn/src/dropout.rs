//! Dropout with a counter-based generator (Philox-4×32-10, as cuRAND and rocRAND).
//!
//! Element i of a call with (seed, offset) keeps its value with probability 1 − p from
//! the uniform `u(seed, offset + i)`: the mask is a pure function of (seed, offset, i),
//! so it is reproducible, independent of threading, and recomputable in backward.

use crate::tensor::{Tensor, TensorMut};
use crate::{Dnn, DnnFloat};
use rocm_core::{BufferSlice, BufferSliceMut, Error, Result};

const M0: u64 = 0xD251_1F53;
const M1: u64 = 0xCD9E_8D57;
const W0: u32 = 0x9E37_79B9;
const W1: u32 = 0xBB67_AE85;

/// Philox-4×32 with 10 rounds on counter `ctr` and key `key`.
pub fn philox4x32(ctr: [u32; 4], key: [u32; 2]) -> [u32; 4] {
    let (mut c, mut k) = (ctr, key);
    for _ in 0..10 {
        let p0 = M0 * c[0] as u64;
        let p1 = M1 * c[2] as u64;
        c = [
            (p1 >> 32) as u32 ^ c[1] ^ k[0],
            p1 as u32,
            (p0 >> 32) as u32 ^ c[3] ^ k[1],
            p0 as u32,
        ];
        k = [k[0].wrapping_add(W0), k[1].wrapping_add(W1)];
    }
    c
}

/// A uniform f32 in [0, 1) for element `i` of stream `seed`.
pub fn uniform(seed: u64, i: u64) -> f32 {
    let r = philox4x32(
        [i as u32, (i >> 32) as u32, 0, 0],
        [seed as u32, (seed >> 32) as u32],
    );
    (r[0] >> 8) as f32 * (1.0 / 16_777_216.0)
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
        self.engine("dropout_forward")?;
        d.check()?;
        y.desc.expect_dims("y", x.desc.dims())?;
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
        self.engine("dropout_backward")?;
        d.check()?;
        dx.desc.expect_dims("dx", dy.desc.dims())?;
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
