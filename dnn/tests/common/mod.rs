//! Shared test helpers: random tensors in any layout, logical f64 views.
#![allow(dead_code)]

use rand::{Rng, SeedableRng};
use rocm_core::{DType, Device, DeviceBuffer};
use rocm_dnn::{Dnn, DnnFloat, Layout, Tensor, TensorDesc, TensorMut};

pub fn dnn() -> Dnn {
    let mut d = Dnn::new(&Device::cpu()).unwrap();
    d.set_find_db(None);
    d.set_find_mode(rocm_dnn::FindMode::Fast);
    d
}

/// Tensor storage: descriptor + buffer.
pub struct Buf<T: DnnFloat> {
    pub desc: TensorDesc,
    pub buf: DeviceBuffer<T>,
}

impl<T: DnnFloat> Buf<T> {
    pub fn t(&self) -> Tensor<'_, T> {
        Tensor::new(&self.desc, self.buf.as_slice())
    }
    pub fn tm(&mut self) -> TensorMut<'_, T> {
        TensorMut::new(&self.desc, self.buf.as_slice_mut())
    }
    /// Logical-order values as f64.
    pub fn logical(&self) -> Vec<f64> {
        let h = self.buf.as_host().unwrap();
        let mut out = Vec::with_capacity(self.desc.numel());
        let d5 = pad5(&self.desc);
        let (dims, s) = d5;
        for a in 0..dims[0] {
            for b in 0..dims[1] {
                for c in 0..dims[2] {
                    for e in 0..dims[3] {
                        for f in 0..dims[4] {
                            out.push(
                                h[a * s[0] + b * s[1] + c * s[2] + e * s[3] + f * s[4]].to_f32()
                                    as f64,
                            );
                        }
                    }
                }
            }
        }
        out
    }
}

fn pad5(d: &TensorDesc) -> ([usize; 5], [usize; 5]) {
    let (dd, s) = (d.dims(), d.strides());
    if dd.len() == 4 {
        ([dd[0], dd[1], 1, dd[2], dd[3]], [s[0], s[1], 0, s[2], s[3]])
    } else {
        (
            [dd[0], dd[1], dd[2], dd[3], dd[4]],
            [s[0], s[1], s[2], s[3], s[4]],
        )
    }
}

/// How a test tensor is laid out: a packed layout, or padded strides (gaps).
#[derive(Debug, Clone, Copy)]
pub enum Mem {
    Packed(bool),
    Gapped,
}

pub fn desc(dtype: DType, dims: &[usize], mem: Mem) -> TensorDesc {
    match mem {
        Mem::Packed(cl) => {
            TensorDesc::new(dtype, Layout::for_rank(dims.len(), cl).unwrap(), dims).unwrap()
        }
        Mem::Gapped => {
            // Channels-first with one spare element after each row and plane.
            let mut strides = vec![0; dims.len()];
            let mut s = 1;
            for i in (0..dims.len()).rev() {
                strides[i] = s;
                s = s * dims[i].max(1) + 1;
            }
            TensorDesc::with_strides(dtype, dims, &strides).unwrap()
        }
    }
}

/// A tensor of uniform values in [-1, 1) (rounded to T), gaps filled with NaN-free junk.
pub fn random<T: DnnFloat>(dims: &[usize], mem: Mem, seed: u64) -> Buf<T> {
    let desc = desc(T::DTYPE, dims, mem);
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    let len = desc.required_len().unwrap();
    let v: Vec<T> = (0..len)
        .map(|_| T::from_f32(rng.random_range(-1.0f32..1.0)))
        .collect();
    Buf {
        buf: DeviceBuffer::from_slice(&Device::cpu(), &v).unwrap(),
        desc,
    }
}

pub fn zeros<T: DnnFloat>(dims: &[usize], mem: Mem) -> Buf<T> {
    let desc = desc(T::DTYPE, dims, mem);
    let len = desc.required_len().unwrap();
    Buf {
        buf: DeviceBuffer::zeros(&Device::cpu(), len).unwrap(),
        desc,
    }
}

/// Asserts |got − want| ≤ tol[i] elementwise, reporting the worst element.
pub fn assert_close(what: &str, got: &[f64], want: &[f64], tol: impl Fn(usize) -> f64) {
    assert_eq!(got.len(), want.len(), "{what}: lengths");
    let mut worst = (0usize, 0.0f64);
    for i in 0..got.len() {
        let e = (got[i] - want[i]).abs();
        let t = tol(i);
        assert!(
            e.is_finite() || got[i] == want[i],
            "{what}[{i}]: got {} want {}",
            got[i],
            want[i]
        );
        if e - t > worst.1 - tol(worst.0) {
            worst = (i, e);
        }
    }
    let i = worst.0;
    assert!(
        worst.1 <= tol(i),
        "{what}[{i}]: got {} want {} (error {:e} > tolerance {:e})",
        got[i],
        want[i],
        worst.1,
        tol(i)
    );
}

/// The full numerical gradient of L(x) = Σ dy·f(x) by central differences (f64, h = 1e-6;
/// truncation O(h²), cancellation O(ε·|L|/h) ≈ 1e-10·|L|).
pub fn numeric_grad(f: &dyn Fn(&[f64]) -> Vec<f64>, x: &[f64], dy: &[f64]) -> Vec<f64> {
    let h = 1e-6;
    let l = |x: &[f64]| -> f64 { f(x).iter().zip(dy).map(|(a, b)| a * b).sum() };
    let mut xp = x.to_vec();
    (0..x.len())
        .map(|i| {
            let x0 = xp[i];
            xp[i] = x0 + h;
            let a = l(&xp);
            xp[i] = x0 - h;
            let b = l(&xp);
            xp[i] = x0;
            (a - b) / (2.0 * h)
        })
        .collect()
}

/// A random f64 vector in [-1, 1).
pub fn rvec(n: usize, seed: u64) -> Vec<f64> {
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    (0..n).map(|_| rng.random_range(-1.0..1.0)).collect()
}

/// A buffer of f32 values.
pub fn f32buf(v: &[f64]) -> DeviceBuffer<f32> {
    DeviceBuffer::from_slice(
        &Device::cpu(),
        &v.iter().map(|&x| x as f32).collect::<Vec<_>>(),
    )
    .unwrap()
}

pub fn f64of(b: &DeviceBuffer<f32>) -> Vec<f64> {
    b.to_vec().unwrap().iter().map(|&x| x as f64).collect()
}
